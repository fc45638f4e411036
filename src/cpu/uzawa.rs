//! Uzawa (Maury's velocity projection): CPU twin of shaders/uzawa.wgsl.
//!
//! The step's velocity is the projection of v_free onto the admissible set
//! (docs/nscd.md):
//! ```text
//!   min 1/2 |v - v_free|_M^2   s.t.   t_c(u_c) >= 0   for every contact c
//! ```
//! with the target t of every NSCD solver (`Contact::target`: u + max(d, 0)/dt,
//! plus beta min(d + slop, 0)/dt when overlaps are pushed out through the
//! velocity, `overlap_iterations = 0`), solved by projected gradient on the
//! dual (the impulses):
//! ```text
//!   uzawa_contact:  P_c' = max(0, P_c - rho_c t_c)   (one velocity snapshot)
//!   jacobi_gather:  v_a  = v_free_a + im_a sum_c P_c n_c
//! ```
//! Step size. The dual Hessian is the Delassus operator D = H^T M^-1 H, with
//! D_cc = W_c and |D_cc'| <= im_g for contacts sharing grain g. Its Gershgorin
//! row sum for c = (a, b) is g_c = im_a N_a + im_b N_b (N = listed contacts of
//! a grain), and the row sums of diag(1/g) D are all <= 1, so the gradient
//! step scaled by rho_c = s / g_c converges for any s in (0, 2)
//! ([`UZAWA_STEP`] = 1.9: close to the bound, so that the slow mode of a
//! resting column is damped fast enough for it to rest; the convergence
//! test is a quarter of tol/dt, [`crate::model::UZAWA_THRESHOLD`]). Unlike Jacobi's omega, s needs no study: it is safe by
//! construction, whatever the coordination of the pile. Both copies of a
//! grain-grain contact compute the same g_c (im_a N_a + im_b N_b is commutative),
//! so they stay bit-identical, as in Jacobi.

use rayon::prelude::*;

use super::PAR_MIN;
use super::jacobi::{Free, Moving, Projection, other_velocity};
use super::solver::{SolveCtx, Solver};
use crate::model::space::Space;
use crate::model::{Body, Contact, UZAWA_STEP};
use crate::model::{ContactLists, StepParams, StepStats};

/// rho_c / s = 1 / (im_a N_a + im_b N_b) of a contact of grain `i` (0 when both are fixed).
#[inline]
pub fn step_of<S: Space>(c: &Contact<S>, i: usize, count: &[u32], capacity: usize, inv_mass: &[f32]) -> f32 {
    let n = |g: usize| (count[g] as usize).min(capacity) as f32;
    let gb = match c.body() {
        Body::Grain(j) => inv_mass[j as usize] * n(j as usize),
        _ => 0.0,
    };
    let g = inv_mass[i] * n(i) + gb;
    if g > 0.0 { 1.0 / g } else { 0.0 }
}

/// Stage `uzawa_contact`, in binding order: new impulses of every contact
/// from one velocity snapshot; `residual[i]` is the largest |P' - P| / rho_c
/// over grain i's contacts (= |u + d/dt| where the projection is inactive),
/// m/s, 0 for a grain without contacts.
/// `how` gives the target's (1/dt, beta, slop) (`Contact::target`; its
/// omega is not read), `scale` the step fraction s.
pub fn uzawa_contact<S: Space>(
    lists: &mut ContactLists<S>,
    vel: &[S::Vec],
    inv_mass: &[f32],
    residual: &mut [f32],
    how: &Projection,
    scale: f32,
) {
    let (count, capacity) = (&lists.count, lists.capacity);
    if capacity == 0 {
        residual.fill(0.0);
        return;
    }
    lists
        .slots
        .par_chunks_mut(capacity)
        .zip(residual.par_iter_mut())
        .with_min_len(PAR_MIN)
        .enumerate()
        .for_each(|(i, (list, r))| {
            let n = (count[i] as usize).min(capacity);
            *r = list[..n]
                .iter_mut()
                .map(|c| {
                    let rho = scale * step_of(c, i, count, capacity, inv_mass);
                    project(c, i, rho, vel, how)
                })
                .fold(0.0f32, f32::max);
        });
}

/// P' = max(0, P - rho t) of one contact of grain `i` with step `rho`;
/// returns |P' - P| / rho (0 when rho is 0).
#[inline]
fn project<S: Space>(c: &mut Contact<S>, i: usize, rho: f32, vel: &[S::Vec], how: &Projection) -> f32 {
    if rho == 0.0 {
        return 0.0;
    }
    let u = S::dot(S::sub(vel[i], other_velocity(c, vel)), c.normal);
    let t = c.target(u, how.inv_dt, how.beta, how.slop);
    let p = (c.impulse - rho * t).max(0.0);
    let correction = (p - c.impulse).abs() / rho;
    c.impulse = p;
    correction
}

/// The Uzawa solver of one step on the CPU path (frictionless: `free.spin`
/// and `free.radius` are not read).
pub fn solve<S: Space>(
    lists: &mut ContactLists<S>,
    free: &Free<S>,
    vel: &mut [S::Vec],
    p: &StepParams,
    stats: &mut StepStats,
    history: Option<&mut Vec<f32>>,
) {
    solve_with(lists, free, vel, p, stats, UZAWA_STEP, history);
}

/// [`solve`] with step fraction `scale` (the study sweeps it).
pub fn solve_with<S: Space>(
    lists: &mut ContactLists<S>,
    free: &Free<S>,
    vel: &mut [S::Vec],
    p: &StepParams,
    stats: &mut StepStats,
    scale: f32,
    history: Option<&mut Vec<f32>>,
) {
    let k = lists.capacity;
    let (how, threshold) = (Projection::of(p), p.threshold());
    let inv_mass = free.inv_mass;
    let gather = |lists: &ContactLists<S>, vel: &mut [S::Vec]| {
        let out = Moving { vel, spin: &mut [] };
        super::jacobi::jacobi_gather::<S, false>(&lists.count, &lists.slots, k, free, out);
    };
    // Per-grain residuals, reduced like the GPU's uzawa_contact + residual_max.
    let mut residual = vec![0.0f32; vel.len()];
    gather(lists, vel);
    super::iterate(stats, p.itmax, threshold, history, || {
        uzawa_contact(lists, vel, inv_mass, &mut residual, &how, scale);
        gather(lists, vel);
        super::residual_max::residual_max(&residual, &[]).0
    });
}

/// Uzawa as a [`Solver`] in either space (frictionless: the scene checks
/// refuse friction, and in 3D a frictional step is refused by name).
#[derive(Debug, Clone, Copy, Default)]
pub struct Uzawa;

impl<S: Space> Solver<S> for Uzawa {
    fn solve(&mut self, ctx: SolveCtx<S>, stats: &mut StepStats) {
        solve(ctx.lists, &ctx.free, ctx.out.vel, ctx.p, stats, ctx.history);
    }

    fn boxed(&self) -> Box<dyn Solver<S>> {
        Box::new(*self)
    }
}
