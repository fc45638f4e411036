//! Projected Jacobi: CPU twin of shaders/jacobi_contact.wgsl and
//! shaders/jacobi_gather.wgsl.
//!
//! One iteration, all contacts from the same velocity snapshot:
//! ```text
//!   jacobi_contact: u  = (v_a - v_b) . n
//!                   P' = max(0, P - omega (u + max(d, 0)/dt + beta min(d, 0)/dt) / W)
//!   jacobi_gather:  v_a = v_free_a + im_a sum_c P_c n_c
//! ```
//! Each grain owns a copy of each of its contacts (model::contact), so both
//! passes are per-grain loops with no atomics; the gather recomputes v from
//! the accumulated impulses, so rounding does not accumulate across iterations.
//!
//! With friction (docs/nscd.md#coulomb-friction-and-rotation, `StepParams::friction`) each stage's
//! `FRICTION = true` instance (the WGSL pipelines with `FRICTION` overridden
//! to true) carries the tangential impulse and the spins:
//! ```text
//!   jacobi_contact:           u_t = (v_a - v_b) . t - (r_a w_a + r_b w_b)
//!                             (P_n', P_t') = coulomb(P_n, P_t, target, u_t, W, omega, mu)
//!   jacobi_gather:            v_a = v_free_a + im_a sum_c (P_n n + P_t t)
//!                             w_a = w_free_a - 2 im_a / r_a sum_c P_t
//! ```
//! Both copies of a grain-grain contact see the same (u_n, u_t) and so keep
//! the same (P_n, P_t).
//!
//! The stages are written over the space (model::space): in 3D u_t and P_t
//! are vectors in the contact plane, the Coulomb bound is the disk |P_t| <=
//! mu P_n, the two copies of a pair hold opposite P_t (each seen from its
//! own grain), and the spins gather -r I^-1 sum n x P_t (`Space::spin_kick`). `FRICTION` is a constant: the frictionless instance
//! carries no spin and does the frictionless arithmetic alone: a run with
//! mu = mu_wall = 0 spends nothing on friction.

use rayon::prelude::*;

use super::PAR_MIN;
use super::solver::{SolveCtx, Solver};
use crate::model::contact::coulomb_in;
use crate::model::{Body, Contact, Dim2, Space, StepParams, StepStats};

/// Velocity of the other body of a contact (walls are fixed).
#[inline]
pub fn other_velocity<S: Space>(c: &Contact<S>, vel: &[S::Vec]) -> S::Vec {
    match c.body() {
        Body::Grain(j) => vel[j as usize],
        _ => S::Vec::default(),
    }
}

/// Update every valid contact of every grain in parallel with `update(grain,
/// contact)`, which returns that contact's velocity correction; returns the
/// largest (the per-contact projection of Jacobi).
pub fn update_contacts<S: Space>(
    count: &[u32],
    slots: &mut [Contact<S>],
    capacity: usize,
    update: impl Fn(usize, &mut Contact<S>) -> f32 + Sync + Send,
) -> f32 {
    if capacity == 0 {
        return 0.0;
    }
    slots
        .par_chunks_mut(capacity)
        .zip(count)
        .with_min_len(PAR_MIN)
        .enumerate()
        .map(|(i, (list, &n))| {
            list.iter_mut()
                .take(n as usize)
                .map(|c| update(i, c))
                .fold(0.0f32, f32::max)
        })
        .reduce(|| 0.0, f32::max)
}

/// The constants of a projection pass: the target's 1/dt, beta and slop
/// ([`Contact::target`]) and the relaxation omega.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projection {
    pub inv_dt: f32,
    pub beta: f32,
    pub slop: f32,
    pub omega: f32,
}

impl Projection {
    /// The step's: 1/dt, `overlap_relax`, `slop()` and `omega`.
    pub fn of(p: &StepParams) -> Projection {
        Projection {
            inv_dt: 1.0 / p.dt,
            beta: p.overlap_relax,
            slop: p.slop(),
            omega: p.omega,
        }
    }
}

/// The state a gather starts from: the free velocities, the inverse masses,
/// and with friction the free spins (rad/s) and the radii (m). A
/// frictionless gather reads neither of the last two (they may be empty).
#[derive(Debug)]
pub struct Free<'a, S: Space = Dim2> {
    pub vel: &'a [S::Vec],
    pub inv_mass: &'a [f32],
    pub spin: &'a [S::Spin],
    pub radius: &'a [f32],
}

impl<S: Space> Clone for Free<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: Space> Copy for Free<'_, S> {}

/// What a gather writes: the velocities and, with friction, the spins
/// (untouched, and may be empty, without).
#[derive(Debug)]
pub struct Moving<'a, S: Space = Dim2> {
    pub vel: &'a mut [S::Vec],
    pub spin: &'a mut [S::Spin],
}

/// Stage `jacobi_contact`: new impulses for every contact from one snapshot
/// of the velocities `vel`; returns the largest unrelaxed velocity
/// correction, m/s: |P' - P| W / omega (dividing by omega keeps a small
/// relaxation factor from passing for convergence). With `FRICTION`
/// (docs/nscd.md#coulomb-friction-and-rotation) new (P_n, P_t) from the velocities and the spins `f.spin`, by the
/// local Coulomb update `coulomb` relaxed by omega, and the correction
/// [`friction_correction`]; without, `f` is not read.
pub fn jacobi_contact<S: Space, const FRICTION: bool>(
    count: &[u32],
    slots: &mut [Contact<S>],
    capacity: usize,
    vel: &[S::Vec],
    f: &Friction<S>,
    how: &Projection,
) -> f32 {
    update_contacts(count, slots, capacity, |i, c| {
        if !FRICTION {
            return project(i, c, vel, how.inv_dt, how.beta, how.slop, how.omega);
        }
        let (u, u_t, mu) = f.velocities(i, c, vel);
        let target = c.target(u, how.inv_dt, how.beta, how.slop);
        let w = c.inv_mass_sum;
        let (pn, pt) = coulomb_in::<S>(c.impulse, c.impulse_t, target, u_t, w, how.omega, mu);
        let correction = friction_correction_in::<S>(pn - c.impulse, S::tangent_sub(pt, c.impulse_t), w, how.omega);
        (c.impulse, c.impulse_t) = (pn, pt);
        correction
    })
}

/// [`jacobi_contact`] on grain `i`'s contact `c`: its new impulse from the
/// velocities `vel`; returns the unrelaxed velocity correction.
#[inline]
pub fn project<S: Space>(
    i: usize,
    c: &mut Contact<S>,
    vel: &[S::Vec],
    inv_dt: f32,
    beta: f32,
    slop: f32,
    omega: f32,
) -> f32 {
    let u = S::dot(S::sub(vel[i], other_velocity(c, vel)), c.normal);
    let target = c.target(u, inv_dt, beta, slop);
    let p = (c.impulse - omega * target / c.inv_mass_sum).max(0.0);
    let correction = (p - c.impulse).abs() * c.inv_mass_sum / omega;
    c.impulse = p;
    correction
}

/// [`jacobi_gather`] for one grain: `v_free` plus `im` times the impulses
/// of its contacts `list`.
#[inline]
pub fn gathered<S: Space>(list: &[Contact<S>], v_free: S::Vec, im: f32) -> S::Vec {
    gathered_by(list, v_free, im, |_, c| c.impulse)
}

/// `v_free` + `im` sum_k P_k n_k over `list`, with P_k = `impulse(k, c)`
/// for its k-th contact `c`.
#[inline]
pub fn gathered_by<S: Space>(
    list: &[Contact<S>],
    v_free: S::Vec,
    im: f32,
    impulse: impl Fn(usize, &Contact<S>) -> f32,
) -> S::Vec {
    let mut acc = S::splat(0.0);
    for (k, c) in list.iter().enumerate() {
        let p = impulse(k, c);
        acc = S::zip(acc, c.normal, |a, n| a + p * n);
    }
    S::zip(v_free, acc, |v, a| v + im * a)
}

/// Stage `jacobi_gather`: each grain's velocity from its free velocity and
/// the impulses of its own contacts, v = v_free + im sum P n; with
/// `FRICTION` also its spin, v = v_free + im sum (P_n n + P_t t),
/// w = w_free + spin_kick(im, r, sum P_t).
pub fn jacobi_gather<S: Space, const FRICTION: bool>(
    count: &[u32],
    slots: &[Contact<S>],
    capacity: usize,
    free: &Free<S>,
    out: Moving<S>,
) {
    gather_with::<S, FRICTION>(count, slots, capacity, free, out, |_, c| (c.impulse, c.impulse_t));
}

/// The gather of [`jacobi_gather`] with the impulses (P_n, P_t) =
/// `impulses(s, c)` of the contact `c` in slot `s` (P_t unread without
/// `FRICTION`; APGD gathers its extrapolated impulses so).
pub fn gather_with<S: Space, const FRICTION: bool>(
    count: &[u32],
    slots: &[Contact<S>],
    capacity: usize,
    free: &Free<S>,
    out: Moving<S>,
    impulses: impl Fn(usize, &Contact<S>) -> (f32, S::Tangent) + Sync + Send,
) {
    let list = |i: usize| &slots[i * capacity..i * capacity + (count[i] as usize).min(capacity)];
    if !FRICTION {
        out.vel
            .par_iter_mut()
            .with_min_len(PAR_MIN)
            .enumerate()
            .for_each(|(i, v)| {
                *v = gathered_by(list(i), free.vel[i], free.inv_mass[i], |k, c| {
                    impulses(i * capacity + k, c).0
                });
            });
        return;
    }
    out.vel
        .par_iter_mut()
        .zip(out.spin.par_iter_mut())
        .with_min_len(PAR_MIN)
        .enumerate()
        .for_each(|(i, (v, w))| {
            let (acc, acc_t) = friction_sums(list(i), |k, c| impulses(i * capacity + k, c));
            (*v, *w) = apply_sums::<S>(free.vel[i], free.spin[i], free.inv_mass[i], free.radius[i], acc, acc_t);
        });
}

/// What a frictional pass reads besides the velocities (docs/nscd.md#coulomb-friction-and-rotation): the
/// spins (rad/s, ccw) and radii (m) of the grains, and the friction
/// coefficients of grain-grain (`mu`) and wall (`mu_wall`) contacts.
#[derive(Debug)]
pub struct Friction<'a, S: Space = Dim2> {
    pub spin: &'a [S::Spin],
    pub radius: &'a [f32],
    pub mu: f32,
    pub mu_wall: f32,
}

impl<S: Space> Clone for Friction<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: Space> Copy for Friction<'_, S> {}

impl Friction<'_> {
    /// No friction: what a frictionless pass is handed (and does not read).
    pub const NONE: Friction<'static> = Friction {
        spin: &[],
        radius: &[],
        mu: 0.0,
        mu_wall: 0.0,
    };
}

impl<S: Space> Friction<'_, S> {
    /// No friction, in either space.
    pub fn none() -> Friction<'static, S> {
        Friction {
            spin: &[],
            radius: &[],
            mu: 0.0,
            mu_wall: 0.0,
        }
    }

    /// The relative velocities (u_n, u_t) of `c`, seen from grain `i`, and
    /// its friction coefficient (`mu` for a grain, `mu_wall` for a wall or
    /// corner, as `StepParams::mu_of`); r w of both bodies enter u_t (0 for
    /// a wall). The other body is decoded once: this is the hot loop of
    /// every frictional Jacobi and APGD pass.
    #[inline(always)]
    pub fn velocities(&self, i: usize, c: &Contact<S>, vel: &[S::Vec]) -> (f32, S::Tangent, f32) {
        let (vo, rw_o, mu) = match c.body() {
            Body::Grain(j) => {
                let j = j as usize;
                (vel[j], S::spin_scale(self.spin[j], self.radius[j]), self.mu)
            }
            _ => (S::Vec::default(), S::Spin::default(), self.mu_wall),
        };
        let vi = vel[i];
        let rw_i = S::spin_scale(self.spin[i], self.radius[i]);
        let slip = S::slip(c.normal, vi, S::add(vo, c.wall_vel), rw_i, rw_o);
        (S::dot(S::sub(vi, vo), c.normal), slip, mu)
    }
}

/// The unrelaxed correction of a frictional update, m/s:
/// max(|dP_n| W, |dP_t| 3W) / relax (the frictionless |dP| W / relax, plus
/// the tangential row's own diagonal). One division: a correctly rounded
/// division by relax > 0 keeps the order of its dividends, so dividing the
/// larger one equals the larger of both quotients, bit for bit (the WGSL
/// twins divide both).
#[inline]
pub fn friction_correction(dp_n: f32, dp_t: f32, inv_mass_sum: f32, relax: f32) -> f32 {
    friction_correction_in::<Dim2>(dp_n, dp_t, inv_mass_sum, relax)
}

/// [`friction_correction`] in either space: |dP_t| is the tangent's length
/// and W_tt its space's (`Space::TANGENT_MASS_RATIO`).
#[inline(always)]
pub fn friction_correction_in<S: Space>(dp_n: f32, dp_t: S::Tangent, inv_mass_sum: f32, relax: f32) -> f32 {
    let t = S::tangent_norm(dp_t) * S::TANGENT_MASS_RATIO * inv_mass_sum;
    (dp_n.abs() * inv_mass_sum).max(t) / relax
}

/// Sum over `list` of P_n n + P_t t (N s) and of the contact moments n x
/// P_t (`Space::contact_moment`: P_t itself in the plane; the spin kicks
/// share one factor, so the sum is taken first), with (P_n, P_t) =
/// `impulses(k, c)` for the k-th contact `c` of the list.
/// The WGSL gathers evaluate the same expressions in the same order.
#[inline(always)]
pub fn friction_sums<S: Space>(
    list: &[Contact<S>],
    impulses: impl Fn(usize, &Contact<S>) -> (f32, S::Tangent),
) -> (S::Vec, S::Spin) {
    let mut acc = S::splat(0.0);
    let mut acc_t = S::Spin::default();
    for (k, c) in list.iter().enumerate() {
        let (pn, pt) = impulses(k, c);
        let t = S::tangent_vec(c.normal, pt);
        acc = S::zip(acc, S::zip(c.normal, t, |n, t| pn * n + t), |a, b| a + b);
        acc_t = S::spin_add(acc_t, S::contact_moment(c.normal, pt));
    }
    (acc, acc_t)
}

/// v = v_free + im acc, w = w_free + spin_kick(im, r, acc_t).
#[inline(always)]
pub fn apply_sums<S: Space>(
    vf: S::Vec,
    wf: S::Spin,
    im: f32,
    r: f32,
    acc: S::Vec,
    acc_t: S::Spin,
) -> (S::Vec, S::Spin) {
    (
        S::zip(vf, acc, |v, a| v + im * a),
        S::spin_add(wf, S::spin_kick(im, r, acc_t)),
    )
}

/// Projected Jacobi as a [`Solver`]: the gather of the warm-started
/// impulses, then `jacobi_contact` + `jacobi_gather` per iteration.
#[derive(Debug, Clone, Copy, Default)]
pub struct Jacobi;

impl<S: Space> Solver<S> for Jacobi {
    fn solve(&mut self, ctx: SolveCtx<S>, stats: &mut StepStats) {
        if ctx.p.friction() {
            solve::<S, true>(ctx, stats)
        } else {
            solve::<S, false>(ctx, stats)
        }
    }

    fn boxed(&self) -> Box<dyn Solver<S>> {
        Box::new(*self)
    }
}

fn solve<S: Space, const FRICTION: bool>(ctx: SolveCtx<S>, stats: &mut StepStats) {
    let SolveCtx {
        lists,
        free,
        out: Moving { vel, spin },
        p,
        history,
        ..
    } = ctx;
    let (k, how) = (lists.capacity, Projection::of(p));
    let out = Moving {
        vel: &mut *vel,
        spin: &mut *spin,
    };
    jacobi_gather::<S, FRICTION>(&lists.count, &lists.slots, k, &free, out);
    super::iterate(stats, p.itmax, p.threshold(), history, || {
        let f = Friction {
            spin: &*spin,
            radius: free.radius,
            mu: p.mu,
            mu_wall: p.mu_wall,
        };
        let r = jacobi_contact::<S, FRICTION>(&lists.count, &mut lists.slots, k, vel, &f, &how);
        let out = Moving {
            vel: &mut *vel,
            spin: &mut *spin,
        };
        jacobi_gather::<S, FRICTION>(&lists.count, &lists.slots, k, &free, out);
        r
    });
}
