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

use crate::model::grains::inv_inertia;

/// Per-grain arrays of the stage, in binding order (`pos` is only used by `kick_drift`).
pub struct Integrand<'a> {
    pub pos: &'a mut [[f32; 2]],
    pub vel: &'a mut [[f32; 2]],
    pub ang_vel: &'a mut [f32],
    pub force: &'a [[f32; 2]],
    pub torque: &'a [f32],
    pub radius: &'a [f32],
    pub inv_mass: &'a [f32],
}

/// A half kick of `h` seconds of one grain, from its force `f`, torque `t`,
/// radius `r` and inverse mass `im`.
#[inline]
fn half_kick(v: &mut [f32; 2], w: &mut f32, (f, t, r, im): ([f32; 2], f32, f32, f32), gravity: [f32; 2], h: f32) {
    if im > 0.0 {
        v[0] += h * (gravity[0] + im * f[0]);
        v[1] += h * (gravity[1] + im * f[1]);
        *w += h * inv_inertia(im, r) * t;
    }
}

/// Entry point `kick_drift`: the first half kick, then the drift with the half-step velocity.
pub fn kick_drift(s: Integrand, gravity: [f32; 2], dt: f32) {
    let h = 0.5 * dt;
    (s.pos, s.vel, s.ang_vel)
        .into_par_iter()
        .zip((s.force, s.torque, s.radius, s.inv_mass))
        .with_min_len(crate::cpu::PAR_MIN)
        .for_each(|((x, v, w), (&f, &t, &r, &im))| {
            half_kick(v, w, (f, t, r, im), gravity, h);
            x[0] += dt * v[0];
            x[1] += dt * v[1];
        });
}

/// Entry point `kick`: the second half kick with the new force and torque.
pub fn kick(s: Integrand, gravity: [f32; 2], dt: f32) {
    let h = 0.5 * dt;
    (s.vel, s.ang_vel)
        .into_par_iter()
        .zip((s.force, s.torque, s.radius, s.inv_mass))
        .with_min_len(crate::cpu::PAR_MIN)
        .for_each(|((v, w), (&f, &t, &r, &im))| half_kick(v, w, (f, t, r, im), gravity, h));
}
