//! Stage `dem_integrate`: the two half kicks and the drift of velocity Verlet.
//! CPU twin of shaders/dem_integrate.wgsl (entry points `kick_drift`, `kick`).
//!
//! ```text
//!   kick_drift:  v += dt/2 (g + im F);  w += dt/2 (1/I) T;  x += dt v
//!   kick:        v += dt/2 (g + im F);  w += dt/2 (1/I) T
//! ```
//! F, T are the force and torque of the last `dem_force`. A fixed grain (im = 0)
//! keeps its velocities and still drifts (x += dt v), as under NSCD.

use rayon::prelude::*;

use crate::model::space::{Coords, Dim2, Space};

/// Per-grain arrays of the stage, in binding order (`pos` is only used by `kick_drift`).
pub struct Integrand<'a, S: Space = Dim2> {
    pub pos: &'a mut [S::Vec],
    pub vel: &'a mut [S::Vec],
    pub ang_vel: &'a mut [S::Spin],
    pub force: &'a [S::Vec],
    pub torque: &'a [S::Spin],
    pub radius: &'a [f32],
    pub inv_mass: &'a [f32],
}

/// A half kick of `h` seconds of one grain, from its force `f`, torque `t`,
/// radius `r` and inverse mass `im`.
#[inline]
fn half_kick<S: Space>(
    v: &mut S::Vec,
    w: &mut S::Spin,
    (f, t, r, im): (S::Vec, S::Spin, f32, f32),
    gravity: S::Vec,
    h: f32,
) {
    if im > 0.0 {
        for k in 0..S::DIM {
            v[k] += h * (gravity[k] + im * f[k]);
        }
        let inv_i = S::inv_inertia(im, r);
        *w = w.zip(t, |w, t| w + h * inv_i * t);
    }
}

/// Entry point `kick_drift`: the first half kick, then the drift with the
/// half-step velocity. `gravity` in the x-y plane (`Space::in_plane`).
pub fn kick_drift<S: Space>(s: Integrand<S>, gravity: [f32; 2], dt: f32) {
    let (h, g) = (0.5 * dt, S::in_plane(gravity));
    (s.pos, s.vel, s.ang_vel)
        .into_par_iter()
        .zip((s.force, s.torque, s.radius, s.inv_mass))
        .with_min_len(crate::cpu::PAR_MIN)
        .for_each(|((x, v, w), (&f, &t, &r, &im))| {
            half_kick::<S>(v, w, (f, t, r, im), g, h);
            for k in 0..S::DIM {
                x[k] += dt * v[k];
            }
        });
}

/// Entry point `kick`: the second half kick with the new force and torque.
pub fn kick<S: Space>(s: Integrand<S>, gravity: [f32; 2], dt: f32) {
    let (h, g) = (0.5 * dt, S::in_plane(gravity));
    (s.vel, s.ang_vel)
        .into_par_iter()
        .zip((s.force, s.torque, s.radius, s.inv_mass))
        .with_min_len(crate::cpu::PAR_MIN)
        .for_each(|((v, w), (&f, &t, &r, &im))| half_kick::<S>(v, w, (f, t, r, im), g, h));
}
