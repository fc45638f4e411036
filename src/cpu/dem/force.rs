//! Stage `dem_force`: the soft-sphere contact force and torque on every grain,
//! gathered from its own contact list (no atomics: a grain-grain contact sits
//! in both grains' lists and both copies compute the same scalars). CPU twin
//! of shaders/dem_force.wgsl; the contact law is documented in [`super`], its
//! constants ([`crate::model::DemLaw`]) are `DemLaw` of shaders/dem_shared.wgsl.

use rayon::prelude::*;

use crate::model::grains::inv_inertia;
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
    let law = &inp.law;
    let k = inp.capacity;
    let listed = (inp.count[i] as usize).min(k);
    let (r_a, v_a, w_a) = (inp.radius[i], inp.vel[i], inp.ang_vel[i]);
    let mut f = [0.0f32; 2];
    let mut tau = 0.0f32;
    let mut m_roll = 0.0f32;
    for c in &inp.slots[i * k..i * k + listed] {
        let delta = -c.gap;
        if delta <= 0.0 {
            continue;
        }
        let (v_b, w_b, r_b) = match c.body() {
            Body::Grain(j) => {
                let j = j as usize;
                (inp.vel[j], inp.ang_vel[j], inp.radius[j])
            }
            Body::Segment(_) | Body::Corner(_) => ([0.0; 2], 0.0, 0.0),
        };
        let n = c.normal;
        let t = [-n[1], n[0]];
        let dv = [v_a[0] - v_b[0], v_a[1] - v_b[1]];
        let u = dot(dv, n);
        let vt = dot(dv, t) - (r_a * w_a + r_b * w_b);
        let fn_ = (law.elastic(delta) - law.gamma * u).max(0.0);
        let cap = law.mu * fn_;
        // max/min, not clamp: WGSL's clamp(e, lo, hi) = min(max(e, lo), hi), and no panic on NaN.
        let ft = (-law.kt * vt / (1.0 + law.kt * 3.0 * c.inv_mass_sum * law.dt))
            .max(-cap)
            .min(cap);
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

/// Stage `dem_force` over all grains (parallel over grains).
pub fn dem_force(inp: &ForceInput, force: &mut [[f32; 2]], torque: &mut [f32]) {
    force
        .par_iter_mut()
        .zip(torque.par_iter_mut())
        .with_min_len(crate::cpu::PAR_MIN)
        .enumerate()
        .for_each(|(i, (f, t))| (*f, *t) = force_grain(inp, i));
}
