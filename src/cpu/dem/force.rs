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
    let a = (inp.radius[i], inp.vel[i], inp.ang_vel[i]);
    let mut sum = Sum::default();
    for (s, c) in inp.slots[i * k..i * k + listed].iter().enumerate() {
        let mut hist = c.impulse_t;
        let forces = contact(inp, c, a, &mut hist);
        if let Some(h) = history.get_mut(s) {
            *h = hist;
        }
        let Some(forces) = forces else { continue };
        sum.add(law, c.normal, forces, a.0);
    }
    sum.total(law, inp.inv_mass[i], a.0, a.2)
}

/// A grain's (radius, velocity, angular velocity).
pub type Disk = (f32, [f32; 2], f32);

/// The force, torque and rolling-resistance bound M_r gathered over a
/// grain's contacts, in list order.
#[derive(Debug, Default, Clone, Copy)]
pub struct Sum {
    f: [f32; 2],
    tau: f32,
    m_roll: f32,
}

impl Sum {
    /// Contact of normal `n` with forces (F_n, F_t) on the grain of radius `r_a`.
    #[inline]
    pub fn add(&mut self, law: &DemLaw, n: [f32; 2], (fn_, ft): (f32, f32), r_a: f32) {
        self.add_force(law, contact_force(n, (fn_, ft)), (fn_, ft), r_a);
    }

    /// A contact whose force on the grain of radius `r_a` is `f`
    /// ([`contact_force`] of its normal and (F_n, F_t)).
    #[inline]
    pub fn add_force(&mut self, law: &DemLaw, f: [f32; 2], (fn_, ft): (f32, f32), r_a: f32) {
        self.f[0] += f[0];
        self.f[1] += f[1];
        self.tau -= r_a * ft;
        self.m_roll += law.mu_roll * fn_ * r_a;
    }

    /// Force and torque, the rolling resistance of the grain (inverse mass
    /// `inv_mass`, radius `r_a`, angular velocity `w_a`) included.
    #[inline]
    pub fn total(self, law: &DemLaw, inv_mass: f32, r_a: f32, w_a: f32) -> ([f32; 2], f32) {
        let (m_roll, mut tau) = (self.m_roll, self.tau);
        let inv_i = inv_inertia(inv_mass, r_a);
        if inv_i > 0.0 {
            tau += (-(tau + w_a / (inv_i * law.dt))).max(-m_roll).min(m_roll);
        }
        (self.f, tau)
    }
}

/// F_n n + F_t t, t = perp(n): the force of a contact of normal `n` on its
/// grain. The other body's is its exact negative (n and t flip sign).
#[inline]
pub fn contact_force(n: [f32; 2], (fn_, ft): (f32, f32)) -> [f32; 2] {
    let t = [-n[1], n[0]];
    [fn_ * n[0] + ft * t[0], fn_ * n[1] + ft * t[1]]
}

/// (F_n, F_t) of a closed contact (overlap `delta` > 0, normal `n` from b to
/// a, inverse masses summing to `inv_mass_sum`) of disk `a` with disk `b`
/// (a wall: radius and angular velocity 0, velocity the wall's at the
/// contact, zero for a still wall), its history `hist` updated.
#[inline]
pub fn closed(
    law: &DemLaw,
    n: [f32; 2],
    delta: f32,
    inv_mass_sum: f32,
    a: Disk,
    b: Disk,
    hist: &mut f32,
) -> (f32, f32) {
    let ((r_a, v_a, w_a), (r_b, v_b, w_b)) = (a, b);
    let t = [-n[1], n[0]];
    let dv = [v_a[0] - v_b[0], v_a[1] - v_b[1]];
    let p = Pair {
        delta,
        u: dot(dv, n),
        vt: dot(dv, t) - (r_a * w_a + r_b * w_b),
        inv_mass_sum,
    };
    pair(law, &p, hist)
}

/// (F_n, F_t) of contact `c` of grain `a`, its history `hist` updated; None
/// for an open contact, whose history is then 0.
#[inline]
fn contact(inp: &ForceInput, c: &Contact, a: Disk, hist: &mut f32) -> Option<(f32, f32)> {
    let delta = -c.gap;
    if delta <= 0.0 {
        *hist = 0.0;
        return None;
    }
    let b = match c.body() {
        Body::Grain(j) => {
            let j = j as usize;
            (inp.radius[j], inp.vel[j], inp.ang_vel[j])
        }
        Body::Segment(_) | Body::Corner(_) => (0.0, c.wall_vel, 0.0),
    };
    Some(closed(&inp.law, c.normal, delta, c.inv_mass_sum, a, b, hist))
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
