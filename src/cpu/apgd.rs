//! Accelerated projected Jacobi (APGD): CPU twin of shaders/apgd.wgsl.
//!
//! Jacobi's projected step on the impulses, taken from an extrapolated point
//! (Nesterov momentum) instead of the last iterate, with adaptive restart:
//! ```text
//!   apgd_gather:   y_c = P_c + theta (P_c - Q_c)                 (Q: previous iterate)
//!                  v_a = v_free_a + im_a sum_c y_c n_c           (the velocities of y)
//!   apgd_contact:  P_c' = max(0, y_c - omega t_c(v) / W_c),  Q_c' = P_c
//!                  residual[a] = max_c |P_c' - y_c| W_c / omega  (m/s),  worst = max_a residual[a]
//!   apgd_momentum: r = worst;  restart if r > r_prev and (k >= AGE or r > r_run);
//!                  k = 0 if restart else k + 1;  theta = k / (k + 3);  r_prev = r;
//!                  worst = 0;  r_run = r when the run begins (restart, or k was 0)
//! ```
//! t is the common target (`Contact::target`), so the fixed points are
//! Jacobi's: a converged step solves the same problem to the same test. The
//! residual is the unrelaxed projected-gradient correction at y (Jacobi's,
//! taken at the extrapolated point), and the convergence test is the same:
//! max |dP| W < tol/dt. theta = k / (k + 3) is the closed form of Nesterov's
//! momentum sequence (Su, Boyd and Candès' (k - 1)/(k + 2), shifted to start
//! at 0); the restart when the largest correction grows (O'Donoghue and
//! Candès' function-value restart, with the residual standing in for the
//! value) drops the momentum once it overshoots. The largest
//! residual is a noisy stand-in for the value (it rises now and then under
//! plain Jacobi too), so a rise restarts only after AGE =
//! [`APGD_RESTART_AGE`] iterations of momentum, or at once when it takes
//! the residual above r_run, where the run began: within a run the residual
//! never stays above its start.
//!
//! Why it keeps Jacobi's layout: theta is one number for the whole pile (the
//! restart is decided on the global maximum), so both copies of a grain-grain
//! contact compute the same y from the same P and Q, and the same P' from
//! the same velocities (the note of model::contact): every pass is a
//! per-grain loop with no atomics. Q is one extra f32 per slot. After the
//! last iteration the velocities are those of y; [`solve`] gathers the final
//! impulses once more (on the GPU, `jacobi_gather` after the solve).
//!
//! With friction (docs/nscd.md#coulomb-friction-and-rotation) the `FRICTION = true` instances of
//! `apgd_gather` and `apgd_contact` extrapolate both components from their previous
//! iterates (`prev`, `prev_t`), gather the spins with the velocities and take
//! the local Coulomb update of `cpu::jacobi` at y; the momentum is shared.

use rayon::prelude::*;

use super::PAR_MIN;
use super::jacobi::{Free, Friction, Moving, Projection, friction_correction_in, gather_with, other_velocity};
use super::solver::{SolveCtx, Solver};
use crate::model::contact::coulomb_in;
use crate::model::space::{Coords, Dim2, Space};
use crate::model::{APGD_RESTART_AGE, Contact, ContactLists, StepStats};

/// The momentum state: theta (used by the next iteration), k, the last
/// largest residual (m/s; f32::MAX before the first iteration), this
/// iteration's largest residual so far (`apgd_contact` raises it,
/// `apgd_momentum` takes and clears it) and the residual the momentum run
/// began at (f32::MAX before the first iteration). Same layout as the GPU's
/// `state` (`ApgdState`, whose fourth word is the iteration's residual's
/// bits, gathered by an atomic max of each workgroup).
pub type Momentum = crate::model::ApgdMomentum;

/// The state at the start of a step: no momentum, no residual yet.
pub const MOMENTUM_START: Momentum = crate::model::APGD_START;

/// y = P + theta (P - Q) of one slot (the same expression on both copies).
#[inline]
pub fn extrapolate(p: f32, q: f32, theta: f32) -> f32 {
    p + theta * (p - q)
}

/// [`extrapolate`] of a tangential impulse, coordinate by coordinate (in
/// 3D the two copies hold opposite vectors and extrapolate to opposite ones).
#[inline]
pub fn extrapolate_t<T: Coords>(p: T, q: T, theta: f32) -> T {
    p.zip(q, |p, q| extrapolate(p, q, theta))
}

/// Stage `apgd_gather`: each grain's velocity at the extrapolated impulses
/// y = P + theta (P - Q), from the previous iterates `prev[0]` (one f32 per
/// slot); with `FRICTION` also its spin, the tangential y from `prev.1`
/// (docs/nscd.md#coulomb-friction-and-rotation). Without, `prev.1`, `free.spin`, `free.radius` and
/// `out.spin` are not read (they may be empty).
pub fn apgd_gather<S: Space, const FRICTION: bool>(
    lists: &ContactLists<S>,
    prev: (&[f32], &[S::Tangent]),
    free: &Free<S>,
    out: Moving<S>,
    state: &Momentum,
) {
    let (theta, (prev, prev_t)) = (state[0], prev);
    let (count, slots, k) = (&lists.count, &lists.slots, lists.capacity);
    gather_with::<S, FRICTION>(count, slots, k, free, out, |s, c| {
        let y_t = if FRICTION {
            extrapolate_t(c.impulse_t, prev_t[s], theta)
        } else {
            S::Tangent::default()
        };
        (extrapolate(c.impulse, prev[s], theta), y_t)
    });
}

/// Stage `apgd_contact`: P' = max(0, y - omega t(v)/W) for every listed
/// contact from one velocity snapshot (the velocities of y), Q' = P;
/// `residual[i]` is grain i's largest |P' - y| W / omega (m/s, 0 for a grain
/// without contacts), and `state[3]` is raised to the largest of them. With `FRICTION` the local Coulomb update relaxed by
/// omega from (y_n, y_t) with the velocities and the spins `f.spin` of y,
/// Q' = P for both components (`prev.1` the tangential), and the residual
/// `jacobi::friction_correction` of (P' - y); without, `f` and `prev.1`
/// are not read.
pub fn apgd_contact<S: Space, const FRICTION: bool>(
    lists: &mut ContactLists<S>,
    prev: (&mut [f32], &mut [S::Tangent]),
    vel: &[S::Vec],
    residual: &mut [f32],
    state: &mut Momentum,
    f: &Friction<S>,
    how: &Projection,
) {
    let capacity = lists.capacity;
    if capacity == 0 {
        // Every residual 0: the largest so far (never negative) stands.
        residual.fill(0.0);
        return;
    }
    let (theta, count) = (state[0], &lists.count);
    let Projection {
        inv_dt,
        beta,
        slop,
        omega,
    } = *how;
    // Grain i's contacts `list`, their previous iterates `q` (and `q_t`
    // with friction): the update, and the grain's residual.
    let grain = |i: usize, list: &mut [Contact<S>], q: &mut [f32], q_t: &mut [S::Tangent]| {
        let n = (count[i] as usize).min(capacity);
        let mut worst = 0.0f32;
        for (k, c) in list[..n].iter_mut().enumerate() {
            let y = extrapolate(c.impulse, q[k], theta);
            if !FRICTION {
                let u = S::dot(S::sub(vel[i], other_velocity(c, vel)), c.normal);
                let t = c.target(u, inv_dt, beta, slop);
                let p = (y - omega * t / c.inv_mass_sum).max(0.0);
                worst = worst.max((p - y).abs() * c.inv_mass_sum / omega);
                q[k] = c.impulse;
                c.impulse = p;
                continue;
            }
            let y_t = extrapolate_t(c.impulse_t, q_t[k], theta);
            let (u, u_t, mu) = f.velocities(i, c, vel);
            let t = c.target(u, inv_dt, beta, slop);
            let w = c.inv_mass_sum;
            let (pn, pt) = coulomb_in::<S>(y, y_t, t, u_t, w, omega, mu);
            worst = worst.max(friction_correction_in::<S>(pn - y, S::tangent_sub(pt, y_t), w, omega));
            (q[k], q_t[k]) = (c.impulse, c.impulse_t);
            (c.impulse, c.impulse_t) = (pn, pt);
        }
        worst
    };
    let (prev, prev_t) = prev;
    let chunks = lists.slots.par_chunks_mut(capacity).zip(prev.par_chunks_mut(capacity));
    if FRICTION {
        chunks
            .zip(prev_t.par_chunks_mut(capacity))
            .zip(residual.par_iter_mut())
            .with_min_len(PAR_MIN)
            .enumerate()
            .for_each(|(i, (((list, q), q_t), r))| *r = grain(i, list, q, q_t));
    } else {
        chunks
            .zip(residual.par_iter_mut())
            .with_min_len(PAR_MIN)
            .enumerate()
            .for_each(|(i, ((list, q), r))| *r = grain(i, list, q, &mut []));
    }
    state[3] = residual.iter().copied().fold(state[3], f32::max);
}

/// Stage `apgd_momentum`: from the largest residual of the iteration
/// (`state[3]`, which it clears), the restart test (a rise above the last
/// residual after [`APGD_RESTART_AGE`] iterations of momentum, or above the
/// residual the run began at, `state[4]`) and the next theta; returns that
/// residual.
pub fn apgd_momentum(state: &mut Momentum) -> f32 {
    let [_, k, r_prev, r, r_run] = *state;
    let restart = r > r_prev && (k >= APGD_RESTART_AGE || r > r_run);
    let next = if restart { 0.0 } else { k + 1.0 };
    let r_run = if restart || k == 0.0 { r } else { r_run };
    *state = [next / (next + 3.0), next, r, 0.0, r_run];
    r
}

/// The APGD solve of one step on the CPU path (`prev`, the previous
/// iterates of the normal and, with `FRICTION`, the tangential impulses, is
/// scratch, resized here); leaves the velocities (and spins) of the final
/// impulses.
pub fn solve<S: Space, const FRICTION: bool>(
    ctx: SolveCtx<S>,
    prev: (&mut Vec<f32>, &mut Vec<S::Tangent>),
    stats: &mut StepStats,
) {
    let SolveCtx {
        lists,
        free,
        out,
        p,
        history,
        ..
    } = ctx;
    let (how, threshold) = (Projection::of(p), p.threshold());
    let (prev, prev_t) = prev;
    prev.clear();
    prev.extend(lists.slots.iter().map(|c| c.impulse));
    if FRICTION {
        prev_t.clear();
        prev_t.extend(lists.slots.iter().map(|c| c.impulse_t));
    }
    let Moving { vel, spin } = out;
    let mut residual = vec![0.0f32; vel.len()];
    let mut state = MOMENTUM_START;
    super::iterate(stats, p.itmax, threshold, history, || {
        let out = Moving {
            vel: &mut *vel,
            spin: &mut *spin,
        };
        apgd_gather::<S, FRICTION>(lists, (prev, prev_t), &free, out, &state);
        let f = Friction {
            spin: &*spin,
            radius: free.radius,
            mu: p.mu,
            mu_wall: p.mu_wall,
        };
        let prev = (&mut prev[..], &mut prev_t[..]);
        apgd_contact::<S, FRICTION>(lists, prev, vel, &mut residual, &mut state, &f, &how);
        apgd_momentum(&mut state)
    });
    let (c, s, k) = (&lists.count, &lists.slots, lists.capacity);
    super::jacobi::jacobi_gather::<_, FRICTION>(c, s, k, &free, Moving { vel, spin });
}

/// APGD as a [`Solver`] in the space `S`; keeps its previous-iterate
/// buffers between steps.
#[derive(Debug, Clone, Default)]
pub struct Apgd<S: Space = Dim2> {
    /// The previous iterates of the normal impulses, one per slot.
    prev: Vec<f32>,
    /// The previous iterates of the tangential impulses (friction only).
    prev_t: Vec<S::Tangent>,
}

impl<S: Space> Solver<S> for Apgd<S> {
    fn solve(&mut self, ctx: SolveCtx<S>, stats: &mut StepStats) {
        let prev = (&mut self.prev, &mut self.prev_t);
        if ctx.p.friction() {
            solve::<S, true>(ctx, prev, stats)
        } else {
            solve::<S, false>(ctx, prev, stats)
        }
    }

    fn boxed(&self) -> Box<dyn Solver<S>> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Take one iteration whose largest residual is `r`; the new k.
    fn iterate(state: &mut Momentum, r: f32) -> f32 {
        state[3] = r;
        assert_eq!(apgd_momentum(state), r);
        assert_eq!(state[0], state[1] / (state[1] + 3.0), "theta = k / (k + 3)");
        state[1]
    }

    /// A rise under the residual the run began at keeps the momentum until
    /// APGD_RESTART_AGE iterations of it; a rise above it restarts at once.
    #[test]
    fn the_restart_waits_for_its_age_under_the_runs_start() {
        let mut state = MOMENTUM_START;
        assert_eq!(iterate(&mut state, 1.0), 1.0);
        assert_eq!(state[4], 1.0, "the run begins at the first residual");
        // Alternating falls and rises, all under 1.0: no restart before the age.
        let mut k = 1.0;
        while k < APGD_RESTART_AGE {
            let r = if (k as u32).is_multiple_of(2) { 0.5 } else { 0.25 };
            k = iterate(&mut state, r);
        }
        assert_eq!(k, APGD_RESTART_AGE);
        assert_eq!(iterate(&mut state, 0.9), 0.0, "a rise at the age restarts");
        assert_eq!(state[4], 0.9, "the new run begins at the restart's residual");
        assert_eq!(iterate(&mut state, 0.5), 1.0);
        assert_eq!(state[4], 0.5, "and then at its first iterate's");
        assert_eq!(iterate(&mut state, 0.3), 2.0);
        assert_eq!(iterate(&mut state, 0.45), 3.0, "a young rise under the start stays");
        assert_eq!(
            iterate(&mut state, 0.55),
            0.0,
            "a rise above the start restarts at once"
        );
    }
}
