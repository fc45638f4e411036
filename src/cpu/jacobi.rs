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
//! the same (P_n, P_t). `FRICTION` is a constant: the frictionless instance
//! carries no spin and does the frictionless arithmetic alone: a run with
//! mu = mu_wall = 0 spends nothing on friction.

use rayon::prelude::*;

use super::PAR_MIN;
use super::solver::{SolveCtx, Solver};
use crate::model::contact::{coulomb, spin_kick, tangent};
use crate::model::{Body, Contact, StepParams, StepStats, dot, sub};

/// Velocity of the other body of a contact (walls are fixed).
#[inline]
pub fn other_velocity(c: &Contact, vel: &[[f32; 2]]) -> [f32; 2] {
    match c.body() {
        Body::Grain(j) => vel[j as usize],
        _ => [0.0, 0.0],
    }
}

/// Update every valid contact of every grain in parallel with `update(grain,
/// contact)`, which returns that contact's velocity correction; returns the
/// largest (the per-contact projection of Jacobi).
pub fn update_contacts(
    count: &[u32],
    slots: &mut [Contact],
    capacity: usize,
    update: impl Fn(usize, &mut Contact) -> f32 + Sync + Send,
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
#[derive(Debug, Clone, Copy)]
pub struct Free<'a> {
    pub vel: &'a [[f32; 2]],
    pub inv_mass: &'a [f32],
    pub spin: &'a [f32],
    pub radius: &'a [f32],
}

/// What a gather writes: the velocities and, with friction, the spins
/// (untouched, and may be empty, without).
#[derive(Debug)]
pub struct Moving<'a> {
    pub vel: &'a mut [[f32; 2]],
    pub spin: &'a mut [f32],
}

/// Stage `jacobi_contact`: new impulses for every contact from one snapshot
/// of the velocities `vel`; returns the largest unrelaxed velocity
/// correction, m/s: |P' - P| W / omega (dividing by omega keeps a small
/// relaxation factor from passing for convergence). With `FRICTION`
/// (docs/nscd.md#coulomb-friction-and-rotation) new (P_n, P_t) from the velocities and the spins `f.spin`, by the
/// local Coulomb update `coulomb` relaxed by omega, and the correction
/// [`friction_correction`]; without, `f` is not read.
pub fn jacobi_contact<const FRICTION: bool>(
    count: &[u32],
    slots: &mut [Contact],
    capacity: usize,
    vel: &[[f32; 2]],
    f: &Friction,
    how: &Projection,
) -> f32 {
    update_contacts(count, slots, capacity, |i, c| {
        if !FRICTION {
            return project(i, c, vel, how.inv_dt, how.beta, how.slop, how.omega);
        }
        let (u, u_t, mu) = f.velocities(i, c, vel);
        let target = c.target(u, how.inv_dt, how.beta, how.slop);
        let w = c.inv_mass_sum;
        let (pn, pt) = coulomb(c.impulse, c.impulse_t, target, u_t, w, how.omega, mu);
        let correction = friction_correction(pn - c.impulse, pt - c.impulse_t, w, how.omega);
        (c.impulse, c.impulse_t) = (pn, pt);
        correction
    })
}

/// [`jacobi_contact`] on grain `i`'s contact `c`: its new impulse from the
/// velocities `vel`; returns the unrelaxed velocity correction.
#[inline]
pub fn project(i: usize, c: &mut Contact, vel: &[[f32; 2]], inv_dt: f32, beta: f32, slop: f32, omega: f32) -> f32 {
    let u = dot(sub(vel[i], other_velocity(c, vel)), c.normal);
    let target = c.target(u, inv_dt, beta, slop);
    let p = (c.impulse - omega * target / c.inv_mass_sum).max(0.0);
    let correction = (p - c.impulse).abs() * c.inv_mass_sum / omega;
    c.impulse = p;
    correction
}

/// [`jacobi_gather`] for one grain: `v_free` plus `im` times the impulses
/// of its contacts `list`.
#[inline]
pub fn gathered(list: &[Contact], v_free: [f32; 2], im: f32) -> [f32; 2] {
    gathered_by(list, v_free, im, |_, c| c.impulse)
}

/// `v_free` + `im` sum_k P_k n_k over `list`, with P_k = `impulse(k, c)`
/// for its k-th contact `c`.
#[inline]
pub fn gathered_by(list: &[Contact], v_free: [f32; 2], im: f32, impulse: impl Fn(usize, &Contact) -> f32) -> [f32; 2] {
    let mut acc = [0.0f32; 2];
    for (k, c) in list.iter().enumerate() {
        let p = impulse(k, c);
        acc[0] += p * c.normal[0];
        acc[1] += p * c.normal[1];
    }
    [v_free[0] + im * acc[0], v_free[1] + im * acc[1]]
}

/// Stage `jacobi_gather`: each grain's velocity from its free velocity and
/// the impulses of its own contacts, v = v_free + im sum P n; with
/// `FRICTION` also its spin, v = v_free + im sum (P_n n + P_t t),
/// w = w_free + spin_kick(im, r, sum P_t).
pub fn jacobi_gather<const FRICTION: bool>(
    count: &[u32],
    slots: &[Contact],
    capacity: usize,
    free: &Free,
    out: Moving,
) {
    gather_with::<FRICTION>(count, slots, capacity, free, out, |_, c| (c.impulse, c.impulse_t));
}

/// The gather of [`jacobi_gather`] with the impulses (P_n, P_t) =
/// `impulses(s, c)` of the contact `c` in slot `s` (P_t unread without
/// `FRICTION`; APGD gathers its extrapolated impulses so).
pub fn gather_with<const FRICTION: bool>(
    count: &[u32],
    slots: &[Contact],
    capacity: usize,
    free: &Free,
    out: Moving,
    impulses: impl Fn(usize, &Contact) -> (f32, f32) + Sync + Send,
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
            (*v, *w) = apply_sums(free.vel[i], free.spin[i], free.inv_mass[i], free.radius[i], acc, acc_t);
        });
}

/// What a frictional pass reads besides the velocities (docs/nscd.md#coulomb-friction-and-rotation): the
/// spins (rad/s, ccw) and radii (m) of the grains, and the friction
/// coefficients of grain-grain (`mu`) and wall (`mu_wall`) contacts.
#[derive(Debug, Clone, Copy)]
pub struct Friction<'a> {
    pub spin: &'a [f32],
    pub radius: &'a [f32],
    pub mu: f32,
    pub mu_wall: f32,
}

impl Friction<'_> {
    /// No friction: what a frictionless pass is handed (and does not read).
    pub const NONE: Friction<'static> = Friction {
        spin: &[],
        radius: &[],
        mu: 0.0,
        mu_wall: 0.0,
    };

    /// The relative velocities (u_n, u_t) of `c`, seen from grain `i`, and
    /// its friction coefficient (`mu` for a grain, `mu_wall` for a wall or
    /// corner, as `StepParams::mu_of`); r w of both bodies enter u_t (0 for
    /// a wall). The other body is decoded once: this is the hot loop of
    /// every frictional Jacobi and APGD pass.
    #[inline(always)]
    pub fn velocities(&self, i: usize, c: &Contact, vel: &[[f32; 2]]) -> (f32, f32, f32) {
        let (vo, rw_o, mu) = match c.body() {
            Body::Grain(j) => {
                let j = j as usize;
                (vel[j], self.radius[j] * self.spin[j], self.mu)
            }
            _ => ([0.0, 0.0], 0.0, self.mu_wall),
        };
        let vi = vel[i];
        let rw_i = self.radius[i] * self.spin[i];
        (dot(sub(vi, vo), c.normal), c.slip(vi, vo, rw_i, rw_o), mu)
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
    let t = dp_t.abs() * crate::model::contact::TANGENT_MASS_RATIO * inv_mass_sum;
    (dp_n.abs() * inv_mass_sum).max(t) / relax
}

/// Sum over `list` of P_n n + P_t t (N s) and of P_t (the spin kicks share
/// one factor, so the sum is taken first), with (P_n, P_t) =
/// `impulses(k, c)` for the k-th contact `c` of the list.
/// The WGSL gathers evaluate the same expressions in the same order.
#[inline]
pub fn friction_sums(list: &[Contact], impulses: impl Fn(usize, &Contact) -> (f32, f32)) -> ([f32; 2], f32) {
    let mut acc = [0.0f32; 2];
    let mut acc_t = 0.0f32;
    for (k, c) in list.iter().enumerate() {
        let (pn, pt) = impulses(k, c);
        let t = tangent(c.normal);
        acc[0] += pn * c.normal[0] + pt * t[0];
        acc[1] += pn * c.normal[1] + pt * t[1];
        acc_t += pt;
    }
    (acc, acc_t)
}

/// v = v_free + im acc, w = w_free + spin_kick(im, r, acc_t).
#[inline]
pub fn apply_sums(vf: [f32; 2], wf: f32, im: f32, r: f32, acc: [f32; 2], acc_t: f32) -> ([f32; 2], f32) {
    ([vf[0] + im * acc[0], vf[1] + im * acc[1]], wf + spin_kick(im, r, acc_t))
}

/// Projected Jacobi as a [`Solver`]: the gather of the warm-started
/// impulses, then `jacobi_contact` + `jacobi_gather` per iteration.
#[derive(Debug, Clone, Copy, Default)]
pub struct Jacobi;

impl Solver for Jacobi {
    fn solve(&mut self, ctx: SolveCtx, stats: &mut StepStats) {
        if ctx.p.friction() {
            solve::<true>(ctx, stats)
        } else {
            solve::<false>(ctx, stats)
        }
    }

    fn boxed(&self) -> Box<dyn Solver> {
        Box::new(*self)
    }
}

fn solve<const FRICTION: bool>(ctx: SolveCtx, stats: &mut StepStats) {
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
    jacobi_gather::<FRICTION>(&lists.count, &lists.slots, k, &free, out);
    super::iterate(stats, p.itmax, p.threshold(), history, || {
        let f = Friction {
            spin: &*spin,
            radius: free.radius,
            mu: p.mu,
            mu_wall: p.mu_wall,
        };
        let r = jacobi_contact::<FRICTION>(&lists.count, &mut lists.slots, k, vel, &f, &how);
        let out = Moving {
            vel: &mut *vel,
            spin: &mut *spin,
        };
        jacobi_gather::<FRICTION>(&lists.count, &lists.slots, k, &free, out);
        r
    });
}
