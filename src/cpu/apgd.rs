//! Accelerated projected Jacobi (APGD): CPU twin of shaders/apgd.wgsl.
//!
//! Jacobi's projected step on the impulses, taken from an extrapolated point
//! (Nesterov momentum) instead of the last iterate, with adaptive restart:
//! ```text
//!   apgd_gather:   y_c = P_c + theta (P_c - Q_c)                 (Q: previous iterate)
//!                  v_a = v_free_a + im_a sum_c y_c n_c           (the velocities of y)
//!   apgd_contact:  P_c' = max(0, y_c - omega t_c(v) / W_c),  Q_c' = P_c
//!                  residual[a] = max_c |P_c' - y_c| W_c / omega  (m/s)
//!   apgd_momentum: r = max_a residual[a]
//!                  k = 0 if r > r_prev (restart) else k + 1;  theta = k / (k + 3);  r_prev = r
//! ```
//! t is the common target (`Contact::target`), so the fixed points are
//! Jacobi's: a converged step solves the same problem to the same test. The
//! residual is the unrelaxed projected-gradient correction at y (Jacobi's,
//! taken at the extrapolated point), and the convergence test is the same:
//! max |dP| W < tol/dt. theta = k / (k + 3) is the closed form of Nesterov's
//! momentum sequence (Su, Boyd and Candès' (k - 1)/(k + 2), shifted to start
//! at 0); the restart when the largest correction grows (O'Donoghue and
//! Candès' function-value restart, with the residual standing in for the
//! value) drops the momentum as soon as it overshoots, so the iteration never
//! does worse for long than plain Jacobi at the same omega.
//!
//! Why it keeps Jacobi's layout: theta is one number for the whole pile (the
//! restart is decided on the global maximum), so both copies of a grain-grain
//! contact compute the same y from the same P and Q, and the same P' from
//! the same velocities (the note of model::contact): every pass is a
//! per-grain loop with no atomics. Q is one extra f32 per slot. After the
//! last iteration the velocities are those of y; [`solve`] gathers the final
//! impulses once more (on the GPU, `jacobi_gather` after the solve).
//!
//! With friction (DESIGN §1d) `apgd_gather_friction` and
//! `apgd_contact_friction` extrapolate both components from their previous
//! iterates (`prev`, `prev_t`), gather the spins with the velocities and take
//! the local Coulomb update of `cpu::jacobi` at y; the momentum is shared.

use rayon::prelude::*;

use super::PAR_MIN;
use super::jacobi::{Friction, apply_sums, friction_correction, friction_sums, jacobi_gather_friction, other_velocity};
use crate::model::contact::coulomb;
use crate::model::{Contact, ContactLists, StepParams, StepStats, dot, sub};

/// The momentum state: theta (used by the next iteration), k, and the last
/// largest residual (m/s; f32::MAX before the first iteration). Same layout as
/// the GPU's `state` buffer (vec4<f32>, w unused).
pub type Momentum = [f32; 4];

/// The state at the start of a step: no momentum, no residual yet.
pub const MOMENTUM_START: Momentum = crate::model::APGD_START;

/// y = P + theta (P - Q) of one slot (the same expression on both copies).
#[inline]
pub fn extrapolate(p: f32, q: f32, theta: f32) -> f32 {
    p + theta * (p - q)
}

/// Stage `apgd_gather`: each grain's velocity at the extrapolated impulses y.
#[allow(clippy::too_many_arguments)]
pub fn apgd_gather(
    count: &[u32],
    slots: &[Contact],
    capacity: usize,
    prev: &[f32],
    vel_free: &[[f32; 2]],
    inv_mass: &[f32],
    vel: &mut [[f32; 2]],
    state: &Momentum,
) {
    let theta = state[0];
    vel.par_iter_mut().with_min_len(PAR_MIN).enumerate().for_each(|(i, v)| {
        let mut acc = [0.0f32; 2];
        let n = (count[i] as usize).min(capacity);
        for (k, c) in slots[i * capacity..i * capacity + n].iter().enumerate() {
            let y = extrapolate(c.impulse, prev[i * capacity + k], theta);
            acc[0] += y * c.normal[0];
            acc[1] += y * c.normal[1];
        }
        *v = [
            vel_free[i][0] + inv_mass[i] * acc[0],
            vel_free[i][1] + inv_mass[i] * acc[1],
        ];
    });
}

/// Stage `apgd_contact`, in binding order: P' = max(0, y - omega t(v)/W)
/// for every listed contact from one velocity snapshot (the velocities of
/// y), Q' = P; `residual[i]` is grain i's largest |P' - y| W / omega (m/s, 0
/// for a grain without contacts).
#[allow(clippy::too_many_arguments)]
pub fn apgd_contact(
    count: &[u32],
    slots: &mut [Contact],
    capacity: usize,
    prev: &mut [f32],
    vel: &[[f32; 2]],
    residual: &mut [f32],
    state: &Momentum,
    inv_dt: f32,
    beta: f32,
    slop: f32,
    omega: f32,
) {
    if capacity == 0 {
        residual.fill(0.0);
        return;
    }
    let theta = state[0];
    slots
        .par_chunks_mut(capacity)
        .zip(prev.par_chunks_mut(capacity))
        .zip(residual.par_iter_mut())
        .with_min_len(PAR_MIN)
        .enumerate()
        .for_each(|(i, ((list, q), r))| {
            let n = (count[i] as usize).min(capacity);
            let mut worst = 0.0f32;
            for (c, q) in list[..n].iter_mut().zip(&mut q[..n]) {
                let y = extrapolate(c.impulse, *q, theta);
                let u = dot(sub(vel[i], other_velocity(c, vel)), c.normal);
                let t = c.target(u, inv_dt, beta, slop);
                let p = (y - omega * t / c.inv_mass_sum).max(0.0);
                worst = worst.max((p - y).abs() * c.inv_mass_sum / omega);
                *q = c.impulse;
                c.impulse = p;
            }
            *r = worst;
        });
}

/// Stage `apgd_momentum`: the largest residual of the iteration, the restart
/// test and the next theta; returns the largest residual.
pub fn apgd_momentum(residual: &[f32], state: &mut Momentum) -> f32 {
    let r = residual.iter().copied().fold(0.0f32, f32::max);
    let k = if r > state[2] { 0.0 } else { state[1] + 1.0 };
    *state = [k / (k + 3.0), k, r, 0.0];
    r
}

/// The APGD solver of one step on the CPU path (`prev` is scratch, resized here).
#[allow(clippy::too_many_arguments)]
pub fn solve(
    lists: &mut ContactLists,
    prev: &mut Vec<f32>,
    vel_free: &[[f32; 2]],
    inv_mass: &[f32],
    vel: &mut [[f32; 2]],
    p: &StepParams,
    stats: &mut StepStats,
    history: Option<&mut Vec<f32>>,
) {
    let k = lists.capacity;
    let (inv_dt, threshold) = (1.0 / p.dt, p.threshold());
    prev.clear();
    prev.extend(lists.slots.iter().map(|c| c.impulse));
    let mut residual = vec![0.0f32; vel.len()];
    let mut state = MOMENTUM_START;
    super::iterate(stats, p.itmax, threshold, history, || {
        apgd_gather(&lists.count, &lists.slots, k, prev, vel_free, inv_mass, vel, &state);
        apgd_contact(
            &lists.count,
            &mut lists.slots,
            k,
            prev,
            vel,
            &mut residual,
            &state,
            inv_dt,
            p.overlap_relax,
            p.slop(),
            p.omega,
        );
        apgd_momentum(&residual, &mut state)
    });
    super::jacobi::jacobi_gather(&lists.count, &lists.slots, k, vel_free, inv_mass, vel);
}

/// Stage `apgd_gather_friction` (DESIGN §1d): velocities and spins at the
/// extrapolated impulses (y_n, y_t), from the previous iterates `prev`
/// (normal) and `prev_t` (tangential), one f32 each per slot.
#[allow(clippy::too_many_arguments)]
pub fn apgd_gather_friction(
    count: &[u32],
    slots: &[Contact],
    capacity: usize,
    prev: &[f32],
    vel_free: &[[f32; 2]],
    inv_mass: &[f32],
    vel: &mut [[f32; 2]],
    state: &Momentum,
    prev_t: &[f32],
    spin_free: &[f32],
    radius: &[f32],
    spin: &mut [f32],
) {
    let theta = state[0];
    vel.par_iter_mut()
        .zip(spin.par_iter_mut())
        .with_min_len(PAR_MIN)
        .enumerate()
        .for_each(|(i, (v, w))| {
            let n = (count[i] as usize).min(capacity);
            let base = i * capacity;
            let list = &slots[base..base + n];
            let (acc, acc_t) = friction_sums(list, |k, c| {
                let s = base + k;
                (
                    extrapolate(c.impulse, prev[s], theta),
                    extrapolate(c.impulse_t, prev_t[s], theta),
                )
            });
            (*v, *w) = apply_sums(vel_free[i], spin_free[i], inv_mass[i], radius[i], acc, acc_t);
        });
}

/// Stage `apgd_contact_friction`: the local Coulomb update relaxed by omega
/// from (y_n, y_t) with the velocities and spins of y, Q' = P for both
/// components; `residual[i]` is grain i's largest
/// `jacobi::friction_correction` of (P' - y) (m/s).
#[allow(clippy::too_many_arguments)]
pub fn apgd_contact_friction(
    count: &[u32],
    slots: &mut [Contact],
    capacity: usize,
    prev: &mut [f32],
    vel: &[[f32; 2]],
    residual: &mut [f32],
    state: &Momentum,
    prev_t: &mut [f32],
    f: &Friction,
    inv_dt: f32,
    beta: f32,
    slop: f32,
    omega: f32,
) {
    if capacity == 0 {
        residual.fill(0.0);
        return;
    }
    let theta = state[0];
    slots
        .par_chunks_mut(capacity)
        .zip(prev.par_chunks_mut(capacity))
        .zip(prev_t.par_chunks_mut(capacity))
        .zip(residual.par_iter_mut())
        .with_min_len(PAR_MIN)
        .enumerate()
        .for_each(|(i, (((list, q), q_t), r))| {
            let n = (count[i] as usize).min(capacity);
            let mut worst = 0.0f32;
            for ((c, q), q_t) in list[..n].iter_mut().zip(&mut q[..n]).zip(&mut q_t[..n]) {
                let y = extrapolate(c.impulse, *q, theta);
                let y_t = extrapolate(c.impulse_t, *q_t, theta);
                let (u, u_t) = f.velocities(i, c, vel);
                let t = c.target(u, inv_dt, beta, slop);
                let w = c.inv_mass_sum;
                let (pn, pt) = coulomb(y, y_t, t, u_t, w, omega, f.mu_of(c));
                worst = worst.max(friction_correction(pn - y, pt - y_t, w, omega));
                (*q, *q_t) = (c.impulse, c.impulse_t);
                (c.impulse, c.impulse_t) = (pn, pt);
            }
            *r = worst;
        });
}

/// The frictional APGD solve of one step (`prev`, `prev_t` are scratch,
/// resized here); leaves the velocities and spins of the final impulses.
#[allow(clippy::too_many_arguments)]
pub fn solve_friction(
    lists: &mut ContactLists,
    prev: &mut Vec<f32>,
    prev_t: &mut Vec<f32>,
    vel_free: &[[f32; 2]],
    spin_free: &[f32],
    inv_mass: &[f32],
    radius: &[f32],
    vel: &mut [[f32; 2]],
    spin: &mut [f32],
    p: &StepParams,
    stats: &mut StepStats,
    history: Option<&mut Vec<f32>>,
) {
    let k = lists.capacity;
    let (inv_dt, threshold) = (1.0 / p.dt, p.threshold());
    prev.clear();
    prev.extend(lists.slots.iter().map(|c| c.impulse));
    prev_t.clear();
    prev_t.extend(lists.slots.iter().map(|c| c.impulse_t));
    let mut residual = vec![0.0f32; vel.len()];
    let mut state = MOMENTUM_START;
    super::iterate(stats, p.itmax, threshold, history, || {
        let (c, s) = (&lists.count, &lists.slots);
        apgd_gather_friction(
            c, s, k, prev, vel_free, inv_mass, vel, &state, prev_t, spin_free, radius, spin,
        );
        let f = Friction {
            spin,
            radius,
            mu: p.mu,
            mu_wall: p.mu_wall,
        };
        apgd_contact_friction(
            &lists.count,
            &mut lists.slots,
            k,
            prev,
            vel,
            &mut residual,
            &state,
            prev_t,
            &f,
            inv_dt,
            p.overlap_relax,
            p.slop(),
            p.omega,
        );
        apgd_momentum(&residual, &mut state)
    });
    let (c, s) = (&lists.count, &lists.slots);
    jacobi_gather_friction(c, s, k, vel_free, spin_free, inv_mass, radius, vel, spin);
}
