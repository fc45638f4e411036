//! Stage `dem_force`: the soft-sphere contact force and torque on every grain,
//! gathered from its own contact list (no atomics: a grain-grain contact sits
//! in both grains' lists and both copies compute the same scalars). CPU twin
//! of shaders/dem_force.wgsl; the kinematics are documented in [`super`], the
//! contact laws in [`mod@crate::model::law`] (their constants, `DemLaw`, are those
//! of shaders/dem_shared.wgsl).

use rayon::prelude::*;

use crate::model::law::{Pair, pair};
use crate::model::space::{Coords, Dim2, Space};
use crate::model::{Body, Contact, DemLaw};

/// Per-grain inputs of the stage, in binding order.
pub struct ForceInput<'a, S: Space = Dim2> {
    pub law: DemLaw,
    /// K, slots per grain.
    pub capacity: usize,
    pub count: &'a [u32],
    pub slots: &'a [Contact<S>],
    pub radius: &'a [f32],
    pub inv_mass: &'a [f32],
    pub vel: &'a [S::Vec],
    pub ang_vel: &'a [S::Spin],
}

/// Force (N/m) and torque (N m/m) on grain i from its listed contacts
/// (N and N m in 3D).
pub fn force_grain<S: Space>(inp: &ForceInput<S>, i: usize) -> (S::Vec, S::Spin) {
    force_grain_into(inp, i, &mut [])
}

/// [`force_grain`], and the new history of grain i's listed contacts into
/// `history` (its K slots; 0 for an open contact) when it is not empty.
pub fn force_grain_into<S: Space>(inp: &ForceInput<S>, i: usize, history: &mut [S::Tangent]) -> (S::Vec, S::Spin) {
    let law = &inp.law;
    let k = inp.capacity;
    let listed = (inp.count[i] as usize).min(k);
    let a = (inp.radius[i], inp.vel[i], inp.ang_vel[i]);
    let mut sum = Sum::<S>::default();
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
pub type Ball<S = Dim2> = (f32, <S as Space>::Vec, <S as Space>::Spin);

/// The force, torque and rolling-resistance bound M_r gathered over a
/// grain's contacts, in list order.
#[derive(Debug, Default, Clone, Copy)]
pub struct Sum<S: Space = Dim2> {
    f: S::Vec,
    tau: S::Spin,
    m_roll: f32,
}

impl<S: Space> Sum<S> {
    /// Contact of normal `n` with forces (F_n, F_t) on the grain of radius `r_a`.
    #[inline]
    pub fn add(&mut self, law: &DemLaw, n: S::Vec, (fn_, ft): (f32, S::Tangent), r_a: f32) {
        self.add_force(
            law,
            contact_force::<S>(n, (fn_, ft)),
            fn_,
            S::contact_moment(n, ft),
            r_a,
        );
    }

    /// A contact whose force on the grain of radius `r_a` is `f`
    /// ([`contact_force`] of its normal and (F_n, F_t)), of normal force
    /// `fn_` and moment n x F_t `moment` (`Space::contact_moment`): the
    /// torque on the grain, whose contact point lies at -r_a n, is
    /// -r_a n x F_t. Both bodies of a grain pair see the same moment (n and
    /// F_t flip together).
    #[inline]
    pub fn add_force(&mut self, law: &DemLaw, f: S::Vec, fn_: f32, moment: S::Spin, r_a: f32) {
        for k in 0..S::DIM {
            self.f[k] += f[k];
        }
        self.tau = self.tau.zip(moment, |t, m| t - r_a * m);
        self.m_roll += law.mu_roll * fn_ * r_a;
    }

    /// Force and torque, the rolling resistance of the grain (inverse mass
    /// `inv_mass`, radius `r_a`, angular velocity `w_a`) included: the
    /// torque that would stop its turning within the step, shortened to M_r.
    #[inline]
    pub fn total(self, law: &DemLaw, inv_mass: f32, r_a: f32, w_a: S::Spin) -> (S::Vec, S::Spin) {
        let (m_roll, mut tau) = (self.m_roll, self.tau);
        let inv_i = S::inv_inertia(inv_mass, r_a);
        if inv_i > 0.0 {
            let stop = tau.zip(w_a, |t, w| -(t + w / (inv_i * law.dt)));
            tau = tau.zip(stop.cap(m_roll), |t, s| t + s);
        }
        (self.f, tau)
    }
}

/// F_n n + F_t, with F_t laid out in space (t = perp(n) in the plane): the
/// force of a contact of normal `n` on its grain. The other body's is its
/// exact negative (n and F_t flip sign).
#[inline]
pub fn contact_force<S: Space>(n: S::Vec, (fn_, ft): (f32, S::Tangent)) -> S::Vec {
    let t = S::tangent_vec(n, ft);
    S::zip(n, t, |n, t| fn_ * n + t)
}

/// (F_n, F_t) of a closed contact (overlap `delta` > 0, normal `n` from b to
/// a, inverse masses summing to `inv_mass_sum`) of grain `a` with grain `b`
/// (a wall: radius and angular velocity 0, velocity the wall's at the
/// contact, zero for a still wall), its history `hist` updated.
#[inline]
pub fn closed<S: Space>(
    law: &DemLaw,
    n: S::Vec,
    delta: f32,
    inv_mass_sum: f32,
    a: Ball<S>,
    b: Ball<S>,
    hist: &mut S::Tangent,
) -> (f32, S::Tangent) {
    let ((r_a, v_a, w_a), (r_b, v_b, w_b)) = (a, b);
    let p = Pair {
        delta,
        u: S::dot(S::sub(v_a, v_b), n),
        vt: S::slip(n, v_a, v_b, w_a.map(|w| r_a * w), w_b.map(|w| r_b * w)),
        inv_mass_sum,
    };
    pair::<S>(law, &p, hist)
}

/// (F_n, F_t) of contact `c` of grain `a`, its history `hist` updated; None
/// for an open contact, whose history is then 0.
#[inline]
fn contact<S: Space>(
    inp: &ForceInput<S>,
    c: &Contact<S>,
    a: Ball<S>,
    hist: &mut S::Tangent,
) -> Option<(f32, S::Tangent)> {
    let delta = -c.gap;
    if delta <= 0.0 {
        *hist = S::Tangent::default();
        return None;
    }
    let b = match c.body() {
        Body::Grain(j) => {
            let j = j as usize;
            (inp.radius[j], inp.vel[j], inp.ang_vel[j])
        }
        Body::Segment(_) | Body::Corner(_) => (0.0, c.wall_vel, S::Spin::default()),
    };
    Some(closed::<S>(&inp.law, c.normal, delta, c.inv_mass_sum, a, b, hist))
}

/// Stage `dem_force` over all grains (parallel over grains).
pub fn dem_force<S: Space>(inp: &ForceInput<S>, force: &mut [S::Vec], torque: &mut [S::Spin]) {
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
pub fn dem_force_history<S: Space>(
    inp: &ForceInput<S>,
    force: &mut [S::Vec],
    torque: &mut [S::Spin],
    history: &mut [S::Tangent],
) {
    force
        .par_iter_mut()
        .zip(torque.par_iter_mut())
        .zip(history.par_chunks_mut(inp.capacity.max(1)))
        .with_min_len(crate::cpu::PAR_MIN)
        .enumerate()
        .for_each(|(i, ((f, t), h))| (*f, *t) = force_grain_into(inp, i, h));
}
