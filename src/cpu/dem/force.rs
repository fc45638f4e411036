//! Stage `dem_force`: the soft-sphere contact force and torque on every grain,
//! gathered from its own contact list (no atomics: a grain-grain contact sits
//! in both grains' lists and both copies compute the same scalars). CPU twin
//! of shaders/dem_force.wgsl; the kinematics are documented in [`super`], the
//! contact laws in [`mod@crate::model::law`] (their constants, `DemLaw`, are those
//! of shaders/dem_shared.wgsl).

use rayon::prelude::*;

use crate::model::grains::inv_inertia;
use crate::model::law::{Pair, pair};
use crate::model::{Body, Contact, DemLaw, dot};

/// Per-grain inputs of the stage, in binding order.
pub struct ForceInput<'a> {
    pub law: DemLaw,
    /// K, slots per grain.
    pub capacity: usize,
    pub count: &'a [u32],
    pub slots: &'a [Contact],
    pub radius: &'a [f32],
    pub inv_mass: &'a [f32],
    pub vel: &'a [[f32; 2]],
    pub ang_vel: &'a [f32],
}

/// Force (N/m) and torque (N m/m) on grain i from its listed contacts.
pub fn force_grain(inp: &ForceInput, i: usize) -> ([f32; 2], f32) {
    force_grain_into(inp, i, &mut [])
}

/// [`force_grain`], and the new history of grain i's listed contacts into
/// `history` (its K slots; 0 for an open contact) when it is not empty.
pub fn force_grain_into(inp: &ForceInput, i: usize, history: &mut [f32]) -> ([f32; 2], f32) {
    let law = &inp.law;
    let k = inp.capacity;
    let listed = (inp.count[i] as usize).min(k);
    let (r_a, v_a, w_a) = (inp.radius[i], inp.vel[i], inp.ang_vel[i]);
    let mut f = [0.0f32; 2];
    let mut tau = 0.0f32;
    let mut m_roll = 0.0f32;
    for (s, c) in inp.slots[i * k..i * k + listed].iter().enumerate() {
        let mut hist = c.impulse_t;
        let forces = contact(inp, c, (r_a, v_a, w_a), &mut hist);
        if let Some(h) = history.get_mut(s) {
            *h = hist;
        }
        let Some((fn_, ft)) = forces else { continue };
        let n = c.normal;
        let t = [-n[1], n[0]];
        f[0] += fn_ * n[0] + ft * t[0];
        f[1] += fn_ * n[1] + ft * t[1];
        tau -= r_a * ft;
        m_roll += law.mu_roll * fn_ * r_a;
    }
    let inv_i = inv_inertia(inp.inv_mass[i], r_a);
    if inv_i > 0.0 {
        tau += (-(tau + w_a / (inv_i * law.dt))).max(-m_roll).min(m_roll);
    }
    (f, tau)
}

/// (F_n, F_t) of contact `c` of a grain with (radius, velocity, angular
/// velocity) `a`, its history `hist` updated; None for an open contact,
/// whose history is then 0.
#[inline]
fn contact(inp: &ForceInput, c: &Contact, a: (f32, [f32; 2], f32), hist: &mut f32) -> Option<(f32, f32)> {
    let (r_a, v_a, w_a) = a;
    let n = c.normal;
    let t = [-n[1], n[0]];
    let delta = -c.gap;
    if delta <= 0.0 {
        *hist = 0.0;
        return None;
    }
    let (v_b, w_b, r_b) = match c.body() {
        Body::Grain(j) => {
            let j = j as usize;
            (inp.vel[j], inp.ang_vel[j], inp.radius[j])
        }
        Body::Segment(_) | Body::Corner(_) => ([0.0; 2], 0.0, 0.0),
    };
    let dv = [v_a[0] - v_b[0], v_a[1] - v_b[1]];
    let p = Pair {
        delta,
        u: dot(dv, n),
        vt: dot(dv, t) - (r_a * w_a + r_b * w_b),
        inv_mass_sum: c.inv_mass_sum,
    };
    Some(pair(&inp.law, &p, hist))
}

/// Stage `dem_force` over all grains (parallel over grains).
pub fn dem_force(inp: &ForceInput, force: &mut [[f32; 2]], torque: &mut [f32]) {
    force
        .par_iter_mut()
        .zip(torque.par_iter_mut())
        .with_min_len(crate::cpu::PAR_MIN)
        .enumerate()
        .for_each(|(i, (f, t))| (*f, *t) = force_grain(inp, i));
}

/// Stage `dem_force` for a law with history: as [`dem_force`], reading each
/// contact's history from its slot (`Contact::impulse_t`) and writing the new
/// one into `history` (K per grain, like the slots; unlisted slots untouched).
pub fn dem_force_history(inp: &ForceInput, force: &mut [[f32; 2]], torque: &mut [f32], history: &mut [f32]) {
    force
        .par_iter_mut()
        .zip(torque.par_iter_mut())
        .zip(history.par_chunks_mut(inp.capacity.max(1)))
        .with_min_len(crate::cpu::PAR_MIN)
        .enumerate()
        .for_each(|(i, ((f, t), h))| (*f, *t) = force_grain_into(inp, i, h));
}
