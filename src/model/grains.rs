//! Grains as a structure of arrays. Disks of radius r (m) and areal density
//! rho (kg/m^2 per unit thickness): m = rho * pi * r^2, inverse mass 1/m
//! (0 for a fixed grain). Rotation (soft-sphere DEM): angular velocity w
//! (rad/s, counter-clockwise positive) and moment of inertia I = 1/2 m r^2
//! (a uniform disk), so 1/I = 2 im / r^2.

/// All grains of a simulation, one entry per grain in every vector.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Grains {
    /// Centre position, m.
    pub pos: Vec<[f32; 2]>,
    /// Velocity, m/s.
    pub vel: Vec<[f32; 2]>,
    /// Radius, m.
    pub radius: Vec<f32>,
    /// Inverse mass, 1/kg (per unit thickness); 0 for a fixed grain.
    pub inv_mass: Vec<f32>,
    /// Stable identity (index in the initial fill, which is ordered bottom-up).
    pub id: Vec<u32>,
    /// Angular velocity, rad/s, counter-clockwise positive (DEM, and NSCD
    /// with friction; stays 0 under frictionless NSCD).
    pub ang_vel: Vec<f32>,
    /// Rotation angle, rad, counter-clockwise positive (NSCD: integrated
    /// from `ang_vel`; 0 at the start).
    #[serde(default)]
    pub angle: Vec<f32>,
}

impl Grains {
    /// Grains of the given radii and density at rest at `pos`.
    pub fn new(pos: Vec<[f32; 2]>, vel: Vec<[f32; 2]>, radius: Vec<f32>, density: f64) -> Self {
        assert_eq!(pos.len(), radius.len());
        assert_eq!(pos.len(), vel.len());
        let inv_mass = radius
            .iter()
            .map(|&r| (1.0 / (density * std::f64::consts::PI * f64::from(r) * f64::from(r))) as f32)
            .collect();
        let id = (0..pos.len() as u32).collect();
        let ang_vel = vec![0.0; pos.len()];
        let angle = vec![0.0; pos.len()];
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

    /// Inverse moment of inertia of grain i, 1/(kg m^2): 2 im / r^2 (0 for a fixed grain).
    pub fn inv_inertia(&self, i: usize) -> f32 {
        inv_inertia(self.inv_mass[i], self.radius[i])
    }

    /// The same grains reordered so that `id` is ascending (the GPU backends
    /// permute grains into cell order; callers see them in id order).
    pub fn into_id_order(self) -> Grains {
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_unstable_by_key(|&i| self.id[i]);
        let pick = |v: &[f32]| order.iter().map(|&i| v[i]).collect();
        let pick2 = |v: &[[f32; 2]]| order.iter().map(|&i| v[i]).collect();
        Grains {
            pos: pick2(&self.pos),
            vel: pick2(&self.vel),
            radius: pick(&self.radius),
            inv_mass: pick(&self.inv_mass),
            ang_vel: pick(&self.ang_vel),
            angle: if self.angle.len() == self.len() {
                pick(&self.angle)
            } else {
                self.angle.clone()
            },
            id: order.iter().map(|&i| self.id[i]).collect(),
        }
    }

    /// Append `other`'s grains (with their ids) after these.
    pub fn extend(&mut self, other: &Grains) {
        let n = self.len();
        self.ang_vel.resize(n, 0.0);
        self.angle.resize(n, 0.0);
        self.pos.extend(&other.pos);
        self.vel.extend(&other.vel);
        self.radius.extend(&other.radius);
        self.inv_mass.extend(&other.inv_mass);
        self.id.extend(&other.id);
        let m = other.len();
        let spin = |v: &[f32]| if v.len() == m { v.to_vec() } else { vec![0.0; m] };
        self.ang_vel.extend(spin(&other.ang_vel));
        self.angle.extend(spin(&other.angle));
    }

    /// The fastest grain's speed, m/s (0 when there are no grains).
    pub fn max_speed(&self) -> f32 {
        self.vel
            .iter()
            .map(|v| v[0] * v[0] + v[1] * v[1])
            .fold(0.0f32, f32::max)
            .sqrt()
    }

    /// Largest radius, m (0 when there are no grains).
    pub fn max_radius(&self) -> f32 {
        self.radius.iter().copied().fold(0.0, f32::max)
    }
}

/// Inverse moment of inertia of a disk, 1/(kg m^2): 1/I = 1/(1/2 m r^2) = 2 im / r^2.
#[inline]
pub fn inv_inertia(inv_mass: f32, radius: f32) -> f32 {
    2.0 * inv_mass / (radius * radius)
}
