//! Emitters (`[[emitters]]`, docs/lab.md): every grain an emitter will add,
//! drawn once when the scene is built so a run (and a resumed run) adds the
//! same grains whatever happens in between.
//!
//! ```text
//!   grain k of emitter e (k = 0 .. count-1):
//!     due at    t_k = start + k interval      (s; emitted at the first step
//!                                              with t >= t_k - dt/2 whose spot is free)
//!     centre    position + jitter (u_x, u_y),  u uniform in [-1, 1]
//!     radius    radius, or log-normal(radius_mean, radius_std) within 3 std
//!     mass      grains.mass, else grains.density pi r^2
//! ```
//! Radii and offsets come from their own stream per emitter, seeded from
//! `grains.seed` and the emitter's index.

use rand::RngExt;

use super::fill;
use super::spec::{GrainsSpec, Scene};
use crate::model::{Dim2, Grains, Space};

/// One emitter's grains and timetable.
#[derive(Debug, Clone, PartialEq)]
pub struct Emitter<S: Space = Dim2> {
    /// Time of the first grain, s.
    pub start: f64,
    /// Time between two grains, s.
    pub interval: f64,
    /// Every grain it adds, in order (ids are given when they appear).
    pub grains: Grains<S>,
}

impl<S: Space> Emitter<S> {
    /// Grain `k` is due at `time` (s) in a run of step `dt` (s): its time is
    /// at most half a step ahead.
    pub fn due(&self, k: usize, time: f64, dt: f64) -> bool {
        k < self.grains.len() && time >= self.start + k as f64 * self.interval - 0.5 * dt
    }

    /// Grain `k` alone.
    pub fn grain(&self, k: usize) -> Grains<S> {
        let g = &self.grains;
        Grains {
            pos: vec![g.pos[k]],
            vel: vec![g.vel[k]],
            radius: vec![g.radius[k]],
            inv_mass: vec![g.inv_mass[k]],
            id: vec![0],
            ang_vel: vec![S::Spin::default()],
            angle: vec![S::UNTURNED],
        }
    }
}

/// The emitters of `scene` (validated), in space `S` (in 3D the jitter
/// also draws z, after x and y).
pub fn emitters<S: Space>(scene: &Scene) -> Vec<Emitter<S>> {
    let g = &scene.grains;
    scene
        .emitters
        .iter()
        .enumerate()
        .map(|(e, spec)| {
            let mut rng = fill::rng(g.seed ^ 0x5eed_e417_0000_0000 ^ (e as u64).wrapping_mul(0x9e37_79b9));
            let count = spec.count as usize;
            let radii = match (spec.radius, spec.radius_mean) {
                (Some(r), _) => vec![r; count],
                (None, mean) => {
                    let mean = mean.unwrap_or(g.radius_mean);
                    let std = spec.radius_std;
                    let draw = GrainsSpec {
                        radius_mean: mean,
                        radius_std: std,
                        radius_min: (mean - 3.0 * std).max(0.1 * mean),
                        radius_max: mean + 3.0 * std,
                        ..GrainsSpec::default()
                    };
                    fill::sample_radii(&draw, count, &mut rng)
                }
            };
            let pos = (0..count)
                .map(|_| {
                    let mut x = S::splat(0.0);
                    for k in 0..S::DIM {
                        let u: f64 = if spec.jitter > 0.0 {
                            rng.random_range(-1.0..=1.0)
                        } else {
                            0.0
                        };
                        x[k] = (spec.position[k] + spec.jitter * u) as f32;
                    }
                    x
                })
                .collect();
            let mut v = S::splat(0.0);
            for k in 0..S::DIM {
                v[k] = spec.velocity[k] as f32;
            }
            let mut grains = Grains::of_density(pos, vec![v; count], radii.iter().map(|&r| r as f32).collect(), 1.0);
            let density = g.density.unwrap_or(super::spec::DEFAULT_DENSITY);
            for (k, &r) in radii.iter().enumerate() {
                let m = g.mass.unwrap_or_else(|| S::mass(density, r));
                grains.inv_mass[k] = (1.0 / m) as f32;
            }
            Emitter {
                start: spec.start,
                interval: spec.interval,
                grains,
            }
        })
        .collect()
}
