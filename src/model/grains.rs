//! Grains as a structure of arrays, in a space `S` (model::space): disks of
//! radius r (m) and areal density rho (kg/m^2 per unit thickness), m = rho
//! pi r^2, in the plane ([`Dim2`], the default); spheres, m = rho 4/3 pi
//! r^3, in three dimensions. Inverse mass 1/m (0 for a fixed grain).
//! Rotation (DEM, and NSCD with friction): angular velocity w (rad/s,
//! counter-clockwise positive in the plane) and the moment of inertia of a
//! uniform grain, I = 1/2 m r^2 (disk) or 2/5 m r^2 (sphere).

use super::space::{Dim2, Space};

/// All grains of a simulation, one entry per grain in every vector.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(bound = "")]
pub struct Grains<S: Space = Dim2> {
    /// Centre position, m.
    pub pos: Vec<S::Vec>,
    /// Velocity, m/s.
    pub vel: Vec<S::Vec>,
    /// Radius, m.
    pub radius: Vec<f32>,
    /// Inverse mass, 1/kg (per unit thickness); 0 for a fixed grain.
    pub inv_mass: Vec<f32>,
    /// Stable identity (index in the initial fill, which is ordered bottom-up).
    pub id: Vec<u32>,
    /// Angular velocity, rad/s, counter-clockwise positive in the plane (DEM,
    /// and NSCD with friction; stays 0 under frictionless NSCD).
    pub ang_vel: Vec<S::Spin>,
    /// Orientation: in the plane the rotation angle, rad, counter-clockwise
    /// positive; in 3D a unit quaternion (NSCD: integrated from `ang_vel`;
    /// `S::UNTURNED` at the start).
    #[serde(default)]
    pub angle: Vec<S::Orientation>,
}

impl Grains<Dim2> {
    /// Disks of the given radii and areal density at `pos` with velocities `vel`.
    pub fn new(pos: Vec<[f32; 2]>, vel: Vec<[f32; 2]>, radius: Vec<f32>, density: f64) -> Self {
        Grains::of_density(pos, vel, radius, density)
    }
}

impl<S: Space> Grains<S> {
    /// Grains of the given radii and density (areal in the plane) at `pos`
    /// with velocities `vel`, not spinning, not turned.
    pub fn of_density(pos: Vec<S::Vec>, vel: Vec<S::Vec>, radius: Vec<f32>, density: f64) -> Self {
        assert_eq!(pos.len(), radius.len());
        assert_eq!(pos.len(), vel.len());
        let inv_mass = radius
            .iter()
            .map(|&r| (1.0 / S::mass(density, f64::from(r))) as f32)
            .collect();
        let id = (0..pos.len() as u32).collect();
        let ang_vel = vec![S::Spin::default(); pos.len()];
        let angle = vec![S::UNTURNED; pos.len()];
        Grains {
            pos,
            vel,
            radius,
            inv_mass,
            id,
            ang_vel,
            angle,
        }
    }

    pub fn len(&self) -> usize {
        self.pos.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }

    /// Mass of grain i, kg (infinite for a fixed grain).
    pub fn mass(&self, i: usize) -> f64 {
        1.0 / f64::from(self.inv_mass[i])
    }

    /// Inverse moment of inertia of grain i, 1/(kg m^2): 2 im / r^2 for a
    /// disk, 5/2 im / r^2 for a sphere (0 for a fixed grain).
    pub fn inv_inertia(&self, i: usize) -> f32 {
        S::inv_inertia(self.inv_mass[i], self.radius[i])
    }

    /// The same grains reordered so that `id` is ascending (the GPU backends
    /// permute grains into cell order; callers see them in id order).
    pub fn into_id_order(self) -> Grains<S> {
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_unstable_by_key(|&i| self.id[i]);
        fn pick<T: Copy>(order: &[usize], v: &[T]) -> Vec<T> {
            order.iter().map(|&i| v[i]).collect()
        }
        Grains {
            pos: pick(&order, &self.pos),
            vel: pick(&order, &self.vel),
            radius: pick(&order, &self.radius),
            inv_mass: pick(&order, &self.inv_mass),
            ang_vel: pick(&order, &self.ang_vel),
            angle: if self.angle.len() == self.len() {
                pick(&order, &self.angle)
            } else {
                self.angle.clone()
            },
            id: order.iter().map(|&i| self.id[i]).collect(),
        }
    }

    /// Append `other`'s grains (with their ids) after these.
    pub fn extend(&mut self, other: &Grains<S>) {
        let n = self.len();
        self.ang_vel.resize(n, S::Spin::default());
        self.angle.resize(n, S::UNTURNED);
        self.pos.extend(&other.pos);
        self.vel.extend(&other.vel);
        self.radius.extend(&other.radius);
        self.inv_mass.extend(&other.inv_mass);
        self.id.extend(&other.id);
        let m = other.len();
        fn all_or<T: Copy>(v: &[T], m: usize, or: T) -> Vec<T> {
            if v.len() == m { v.to_vec() } else { vec![or; m] }
        }
        self.ang_vel.extend(all_or(&other.ang_vel, m, S::Spin::default()));
        self.angle.extend(all_or(&other.angle, m, S::UNTURNED));
    }

    /// The fastest grain's speed, m/s (0 when there are no grains).
    pub fn max_speed(&self) -> f32 {
        self.vel.iter().map(|&v| S::dot(v, v)).fold(0.0f32, f32::max).sqrt()
    }

    /// Largest radius, m (0 when there are no grains).
    pub fn max_radius(&self) -> f32 {
        self.radius.iter().copied().fold(0.0, f32::max)
    }
}

/// Inverse moment of inertia of a disk, 1/(kg m^2): 1/I = 1/(1/2 m r^2) = 2 im / r^2.
#[inline]
pub fn inv_inertia(inv_mass: f32, radius: f32) -> f32 {
    Dim2::inv_inertia(inv_mass, radius)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Dim3;

    /// Spheres take the mass rho 4/3 pi r^3 and the inertia 2/5 m r^2; they
    /// start unturned (the unit quaternion) and not spinning, and keep both
    /// through a reorder, an extension and state.json's serde.
    #[test]
    fn spheres_have_their_mass_and_inertia_and_keep_their_orientation() {
        let (rho, r) = (2500.0, 0.003f32);
        let mut g = Grains::<Dim3>::of_density(
            vec![[0.0, 0.1, 0.2], [1.0, 2.0, 3.0]],
            vec![[0.0; 3], [0.5, 0.0, -4.0]],
            vec![r, 2.0 * r],
            rho,
        );
        let m = rho * 4.0 / 3.0 * std::f64::consts::PI * f64::from(r).powi(3);
        assert!((g.mass(0) / m - 1.0).abs() < 1e-6);
        assert!((g.mass(1) / (8.0 * m) - 1.0).abs() < 1e-6);
        let inertia = 0.4 * g.mass(0) * f64::from(r * r);
        assert!((1.0 / f64::from(g.inv_inertia(0)) / inertia - 1.0).abs() < 1e-6);
        assert_eq!(g.angle, vec![[1.0, 0.0, 0.0, 0.0]; 2]);
        assert_eq!(g.ang_vel, vec![[0.0; 3]; 2]);
        assert_eq!(g.max_speed(), (0.25f32 + 16.0).sqrt());
        g.angle[1] = [0.0, 1.0, 0.0, 0.0];
        g.id = vec![5, 2];
        let mut more = g.clone().into_id_order();
        assert_eq!(more.id, vec![2, 5]);
        assert_eq!(more.angle[0], [0.0, 1.0, 0.0, 0.0]);
        more.angle.clear();
        let mut all = g.clone();
        all.extend(&more);
        assert_eq!(all.len(), 4);
        assert_eq!(all.angle[2..], [[1.0, 0.0, 0.0, 0.0]; 2]);
        let text = serde_json::to_string(&g).unwrap();
        assert_eq!(serde_json::from_str::<Grains<Dim3>>(&text).unwrap(), g);
        // A plane's state does not read as a solid's.
        let flat = Grains::new(vec![[0.0, 0.0]], vec![[0.0, 0.0]], vec![r], rho);
        assert!(serde_json::from_str::<Grains<Dim3>>(&serde_json::to_string(&flat).unwrap()).is_err());
    }
}
