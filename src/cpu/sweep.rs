//! Nonlinear Gauss-Seidel over any space: each contact's local update (the
//! projection, or with friction the Coulomb update `coulomb_in`) applied in
//! turn to the velocities and spins of both its bodies, so the next contact
//! sees it within the same sweep.
//!
//! ```text
//!   sweep: for grain i, for its contacts c with a wall or a grain j > i:
//!            (P_n, P_t)' = local update of c from the current velocities
//!            v_i += im_i dP,  w_i += spin_kick(im_i, r_i, n x dP_t)
//!            v_j -= im_j dP,  w_j += spin_kick(im_j, r_j, (-n) x mirror(dP_t))
//!   after the sweeps: each pair's second copy (in j's list) takes the
//!   owner's impulses, P_t mirrored (`Space::mirror_tangent`), and the
//!   velocities are gathered afresh from the impulses (`jacobi_gather`)
//! ```
//! The plane's NLGS (`cpu::nlgs`) runs the same sweep packed into arrays
//! of acting contacts, two threads on large piles and with over-relaxation
//! far from convergence; this plain form is the 3D solver `nlgs`, and its
//! twin in the plane (tests hold both to one answer).

use super::jacobi::{Free, Friction, Moving, Projection, friction_correction_in, jacobi_gather};
use super::solver::{SolveCtx, Solver};
use crate::model::contact::coulomb_in;
use crate::model::{Body, Contact, Space, StepStats};

/// NLGS by plain Gauss-Seidel sweeps, as a [`Solver`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Sweep;

impl<S: Space> Solver<S> for Sweep {
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

/// A grain's velocity and spin change from an impulse change `dp` (N s) at
/// a contact of normal `n` with tangential part `dp_t`.
#[inline]
fn kick<S: Space>(
    vel: &mut S::Vec,
    spin: Option<&mut S::Spin>,
    im: f32,
    r: f32,
    n: S::Vec,
    dp: S::Vec,
    dp_t: S::Tangent,
) {
    *vel = S::zip(*vel, dp, |v, d| v + im * d);
    if let Some(w) = spin {
        *w = S::spin_add(*w, S::spin_kick(im, r, S::contact_moment(n, dp_t)));
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
    // Gauss-Seidel proper: each update taken whole (omega, the relaxation
    // the Jacobi family needs, is not read), as the plane's NLGS near
    // convergence.
    let (k, how) = (
        lists.capacity,
        Projection {
            omega: 1.0,
            ..Projection::of(p)
        },
    );
    let n = lists.grains();
    let out = Moving {
        vel: &mut *vel,
        spin: &mut *spin,
    };
    jacobi_gather::<S, FRICTION>(&lists.count, &lists.slots, k, &free, out);
    let (count, slots) = (&lists.count, &mut lists.slots);
    super::iterate(stats, p.itmax, p.threshold(), history, || {
        let mut worst = 0.0f32;
        for i in 0..n {
            for slot in &mut slots[i * k..i * k + (count[i] as usize).min(k)] {
                let c: Contact<S> = *slot;
                let j = match c.body() {
                    Body::Grain(j) if (j as usize) < i => continue,
                    Body::Grain(j) => Some(j as usize),
                    _ => None,
                };
                let w = c.inv_mass_sum;
                let (pn, pt, correction) = if FRICTION {
                    let f = Friction {
                        spin: &*spin,
                        radius: free.radius,
                        mu: p.mu,
                        mu_wall: p.mu_wall,
                    };
                    let (u, u_t, mu) = f.velocities(i, &c, vel);
                    let target = c.target(u, how.inv_dt, how.beta, how.slop);
                    let (pn, pt) = coulomb_in::<S>(c.impulse, c.impulse_t, target, u_t, w, how.omega, mu);
                    let dp_t = S::tangent_sub(pt, c.impulse_t);
                    (pn, pt, friction_correction_in::<S>(pn - c.impulse, dp_t, w, how.omega))
                } else {
                    let other = j.map_or(S::Vec::default(), |j| vel[j]);
                    let u = S::dot(S::sub(vel[i], other), c.normal);
                    let target = c.target(u, how.inv_dt, how.beta, how.slop);
                    let pn = (c.impulse - how.omega * target / w).max(0.0);
                    (pn, c.impulse_t, (pn - c.impulse).abs() * w / how.omega)
                };
                worst = worst.max(correction);
                let (dp_n, dp_t) = (pn - c.impulse, S::tangent_sub(pt, c.impulse_t));
                (slot.impulse, slot.impulse_t) = (pn, pt);
                let dp = S::zip(c.normal, S::tangent_vec(c.normal, dp_t), |n, t| dp_n * n + t);
                let wi = if FRICTION { Some(&mut spin[i]) } else { None };
                kick::<S>(
                    &mut vel[i],
                    wi,
                    free.inv_mass[i],
                    radius_of(free, i),
                    c.normal,
                    dp,
                    dp_t,
                );
                if let Some(j) = j {
                    let back = S::scale(c.normal, -1.0);
                    let wj = if FRICTION { Some(&mut spin[j]) } else { None };
                    let dp_back = S::scale(dp, -1.0);
                    kick::<S>(
                        &mut vel[j],
                        wj,
                        free.inv_mass[j],
                        radius_of(free, j),
                        back,
                        dp_back,
                        S::mirror_tangent(dp_t),
                    );
                }
            }
        }
        worst
    });
    // Each pair's second copy takes the owner's impulses.
    for i in 0..n {
        for s in i * k..i * k + (count[i] as usize).min(k) {
            let c = slots[s];
            let Body::Grain(j) = c.body() else { continue };
            let j = j as usize;
            if j < i {
                continue;
            }
            let mirror =
                (j * k..j * k + (count[j] as usize).min(k)).find(|&m| slots[m].body() == Body::Grain(i as u32));
            if let Some(m) = mirror {
                slots[m].impulse = c.impulse;
                slots[m].impulse_t = S::mirror_tangent(c.impulse_t);
            }
        }
    }
    let out = Moving { vel, spin };
    jacobi_gather::<S, FRICTION>(count, slots, k, &free, out);
}

/// Grain `g`'s radius where the gather has them (with friction), else 0.
#[inline]
fn radius_of<S: Space>(free: Free<'_, S>, g: usize) -> f32 {
    free.radius.get(g).copied().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::CpuStepper;
    use crate::model::{Grains, Grid, SolverKind, StepParams, Walls};

    /// 60 disks in three loose rows over a floor, falling for `steps`
    /// steps under `solver` (`sweep`: this module's sweep in place of the
    /// plane's packed NLGS).
    fn fall(mu: f32, sweep: bool, steps: usize) -> Grains {
        let r = 0.01f32;
        let pos: Vec<[f32; 2]> = (0..60)
            .map(|i| {
                [
                    0.025 * (i % 20) as f32 + 0.0125 * (i / 20 % 2) as f32,
                    0.0105 + 0.0205 * (i / 20) as f32,
                ]
            })
            .collect();
        let n = pos.len();
        let mut g = Grains::new(pos, vec![[0.0, -0.3]; n], vec![r; n], 2500.0);
        let walls = Walls::new(&[[[-0.1, 0.0], [0.6, 0.0]]]);
        let p = StepParams {
            gravity: [0.0, -9.81],
            dt: 1e-3,
            alert: 0.002,
            tol: 1e-8,
            itmax: 20_000,
            omega: 1.0,
            overlap_relax: 0.2,
            overlap_relax_default: false,
            overlap_iterations: 0,
            solver: SolverKind::Nlgs,
            warm_start: true,
            mu,
            mu_wall: mu,
            cohesion: Default::default(),
            restitution: 0.0,
            forcing: Default::default(),
        };
        let grid = Grid::covering([-0.1, -0.1, 0.6, 0.2], 2.0 * r + p.alert).unwrap();
        let mut st = CpuStepper::new(grid, 16);
        if sweep {
            st.solver = Some((SolverKind::Nlgs, Box::new(Sweep)));
        }
        for _ in 0..steps {
            let stats = st.step(&mut g, &walls, &p).unwrap();
            assert!(
                stats.converged,
                "sweep {sweep} mu {mu}: residual {} after {} iterations",
                stats.residual, stats.iterations
            );
        }
        g
    }

    /// The plane's packed NLGS and this sweep solve the same steps to one
    /// answer (frictionless and with friction), to the solve's tolerance.
    #[test]
    fn the_sweep_and_the_planes_packed_nlgs_reach_one_answer() {
        for mu in [0.0, 0.4] {
            let (a, b) = (fall(mu, false, 30), fall(mu, true, 30));
            for i in 0..a.len() {
                for k in 0..2 {
                    assert!(
                        (a.pos[i][k] - b.pos[i][k]).abs() < 1e-5,
                        "mu {mu}: grain {i} {:?} {:?}",
                        a.pos[i],
                        b.pos[i]
                    );
                    assert!(
                        (a.vel[i][k] - b.vel[i][k]).abs() < 2e-3,
                        "mu {mu}: grain {i} {:?} {:?}",
                        a.vel[i],
                        b.vel[i]
                    );
                }
            }
            // Not at rest yet: the answer is a motion, not the trivial one.
            assert!(a.max_speed() > 0.05, "{}", a.max_speed());
        }
    }
}
