//! What one diagnostics reduction returns ([`Totals`]) and the region it is
//! taken over ([`Region`]): shared by the CPU and GPU `reduce` stages; and
//! the rotational kinetic energy of a row ([`rotational_kinetic_energy`]),
//! summed on the host from the grains the row reads back anyway.

use super::Grains;
use super::space::{Dim2, Space};

/// One diagnostics reduction.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Totals {
    pub kinetic_energy: f64,
    pub potential_energy: f64,
    /// Sum of m v, N s (z is 0 in the plane).
    pub momentum: [f64; 3],
    pub passed: u64,
    pub lost: u64,
    pub max_overlap: f64,
    /// Largest grain speed, m/s.
    pub max_speed: f64,
    /// Distinct potential contacts at this instant, from a backend whose
    /// steps do not count them ([`crate::model::StepStats::contacts`]); None
    /// where the last step's count stands.
    pub contacts: Option<u64>,
}

impl Totals {
    pub fn merge(a: Totals, b: Totals) -> Totals {
        Totals {
            kinetic_energy: a.kinetic_energy + b.kinetic_energy,
            potential_energy: a.potential_energy + b.potential_energy,
            momentum: [0, 1, 2].map(|k| a.momentum[k] + b.momentum[k]),
            passed: a.passed + b.passed,
            lost: a.lost + b.lost,
            max_overlap: a.max_overlap.max(b.max_overlap),
            max_speed: a.max_speed.max(b.max_speed),
            contacts: match (a.contacts, b.contacts) {
                (None, None) => None,
                (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
            },
        }
    }
}

/// Where the neck is and what counts as lost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Region<S: Space = Dim2> {
    pub gravity: S::Vec,
    /// Height of the neck, m: grains below it have passed.
    pub neck_y: f32,
    /// The scene's bounds ([`Space::Bounds`]: [xmin, ymin, xmax, ymax] in
    /// the plane), m (`scene::bounds`): a grain more than its radius outside
    /// is lost (and never counted as passed).
    pub bbox: S::Bounds,
    /// Period along x, m (`walls.periodic_x`; 0: not periodic): two grains'
    /// overlap is measured through the minimum image of their offset.
    pub period: f32,
}

/// Rotational kinetic energy, J (per unit thickness in the plane):
///
/// ```text
///   sum over grains with inv_mass > 0 of 1/2 I |w|^2,
///   I = 1/2 m r^2 (a uniform disk), 2/5 m r^2 (a uniform sphere)
/// ```
///
/// Fixed grains (inverse mass 0) turn with their wall and carry none.
/// Summed in f64 on the host over the grains a diagnostics row reads back
/// for its frame, not in the `reduce` stage: the GPU's `reduce` reads no
/// angular velocities, and one sum for every backend keeps the column alike.
pub fn rotational_kinetic_energy<S: Space>(grains: &Grains<S>) -> f64 {
    if grains.ang_vel.len() != grains.len() {
        return 0.0;
    }
    // I = k m r^2: k = 1/2 for a disk, 2/5 for a sphere.
    let k = 1.0 / f64::from(S::inv_inertia(1.0, 1.0));
    (0..grains.len())
        .filter(|&i| grains.inv_mass[i] > 0.0)
        .map(|i| {
            let w: &[f32] = bytemuck::cast_slice(std::slice::from_ref(&grains.ang_vel[i]));
            let r = f64::from(grains.radius[i]);
            let half_i = 0.5 * k * grains.mass(i) * r * r;
            w.iter().fold(0.0, |e, &w| e + half_i * f64::from(w) * f64::from(w))
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotational_energy_is_half_i_w_squared_over_moving_grains() {
        // Density 1/pi: m = r^2. Grain 0: r = 2, m = 4, I = 8, w = 3 -> 36 J.
        // Grain 1: r = 0.5, m = 0.25, I = 1/32, w = -4 -> 0.25 J. Grain 2 is
        // fixed (inv_mass 0) and spins: it counts nothing.
        let mut g = Grains::new(
            vec![[0.0, 0.0], [5.0, 0.0], [9.0, 0.0]],
            vec![[1.0, 0.0]; 3],
            vec![2.0, 0.5, 1.0],
            1.0 / std::f64::consts::PI,
        );
        g.ang_vel = vec![3.0, -4.0, 100.0];
        g.inv_mass[2] = 0.0;
        let e = rotational_kinetic_energy(&g);
        assert!((e - 36.25).abs() < 1e-5 * 36.25, "{e}");
        assert_eq!(rotational_kinetic_energy(&Grains::<Dim2>::default()), 0.0);
    }
}
