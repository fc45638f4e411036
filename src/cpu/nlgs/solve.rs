//! The NLGS solve of one step ([`Sweep::solve`]): sweeps of the acting
//! contacts, checks of the idle ones, the hot sweeps and the switch between
//! over-relaxed and plain sweeps.

use super::*;

impl Sweep {
    /// Iterate to `limits.threshold` (m/s), sweeping the contacts that can act and
    /// checking the others now and then. A contact whose gap is open by more
    /// than `limits.reach` (m) beyond what the step's velocities close (target * dt,
    /// at the warm-started velocities) starts outside the sweeps; once the
    /// swept contacts are under the threshold (and every [`IDLE_CHECK_EVERY`]
    /// sweeps, and on the last iteration), one pass over the others checks
    /// them, and any that moved joins the sweeps. Convergence is therefore
    /// the same test as sweeping every contact (every contact's last visit
    /// was under the threshold), and a contact left out never had an impulse
    /// to give. Sweeps are over-relaxed far from convergence ([`SOR`]; with
    /// friction within the first [`SOR_SWEEPS`] iterations) and run
    /// on two threads from `limits.par_min` acting contacts (`Split`). With the
    /// split push-out (`beta` = 0), a full sweep still over the threshold,
    /// with or without friction, is followed by [`HOT_SWEEPS`] sweeps of its hot contacts.
    /// Each full sweep of the acting contacts, and each check, is one
    /// iteration in `tally` (hot sweeps are not counted).
    pub fn solve(
        &self,
        scratch: &mut SolveScratch,
        slots: &mut [Contact],
        mut bodies: Bodies<'_>,
        how: &Visit,
        limits: &Limits,
        mut tally: Tally<'_>,
    ) {
        let (threshold, itmax) = (limits.threshold, limits.itmax);
        self.start(scratch, slots, &bodies, how, limits);
        // Only frictionless visits are screened: with friction every check visits.
        let screen = bodies.spin.is_none();
        // Over-relaxed while far from the threshold, plain Gauss-Seidel near
        // it, on a step's first sweep (a resting pile, which starts near
        // it, is then solved exactly: see SOR) and, with friction, after
        // SOR_SWEEPS iterations.
        let relaxed = *how;
        let plain = Visit { sor: 1.0, ..*how };
        let (hot, above) = hot_and_relaxed(how, limits);
        // Frictional steps relax only their first SOR_SWEEPS iterations.
        let cap = if bodies.spin.is_some() { SOR_SWEEPS } else { u32::MAX };
        let mut last = 0.0f32;
        while tally.stats.iterations < itmax {
            let how = if last > above && tally.stats.iterations < cap {
                &relaxed
            } else {
                &plain
            };
            let spin = bodies.spin.as_mut().map(|t| &mut *t.w);
            let r = scratch.packed.sweep(&scratch.split, bodies.vel, spin, how, hot);
            last = r;
            tally.record(r);
            // The idle contacts are checked once the acting ones converged,
            // every IDLE_CHECK_EVERY sweeps (a slow step must not leave one
            // unvisited while velocities change), and on the last iteration.
            let due = tally.stats.iterations.is_multiple_of(IDLE_CHECK_EVERY) || tally.stats.iterations + 1 >= itmax;
            if r >= threshold && !due {
                continue;
            }
            if scratch.idle.is_empty() {
                if r < threshold {
                    tally.stats.converged = true;
                    break;
                }
                continue;
            }
            if tally.stats.iterations >= itmax {
                break;
            }
            // Check the idle contacts once; those that moved act from now on.
            let before = scratch.acting.len();
            if screen && !scratch.probes.any_closing(bodies.vel) {
                // No idle contact would take an impulse: visiting them would
                // leave them and the velocities as they are (each r = 0).
                tally.record(r);
                if r < threshold {
                    tally.stats.converged = true;
                    break;
                }
                continue;
            }
            let worst = self.check_idle(scratch, slots, &mut bodies, how);
            tally.record(worst.max(r));
            if r < threshold && worst < threshold {
                // Every contact's last visit is under the threshold.
                tally.stats.converged = true;
                break;
            }
            if scratch.acting.len() > before {
                self.grow(scratch, slots, &bodies, how, limits);
            }
        }
        scratch.packed.write_back(slots);
    }

    /// The start of a [`Sweep::solve`]: the contacts sorted into acting and
    /// idle ones, the acting ones split for two threads and packed
    /// (`Packed`, `Turned` with friction) for the sweeps, which
    /// run on the packed copy until it is written back (when the solve ends
    /// or the acting set grows, [`Sweep::grow`]).
    fn start(&self, scratch: &mut SolveScratch, slots: &[Contact], bodies: &Bodies<'_>, how: &Visit, limits: &Limits) {
        self.classify(slots, bodies.vel, how, limits.reach, scratch);
        self.pack_acting(scratch, slots, bodies, how, limits);
    }

    /// The acting contacts split for two threads and packed for the sweeps.
    fn pack_acting(
        &self,
        scratch: &mut SolveScratch,
        slots: &[Contact],
        bodies: &Bodies<'_>,
        how: &Visit,
        limits: &Limits,
    ) {
        scratch
            .split
            .build(self, &scratch.acting, bodies.vel.len(), limits.par_min);
        scratch
            .packed
            .build(self, &scratch.split, &scratch.acting, slots, bodies, how);
    }

    /// Visit each idle contact once, in order; those given an impulse join
    /// the acting ones ([`Sweep::solve`]). Returns the largest |dP| W.
    fn check_idle(
        &self,
        scratch: &mut SolveScratch,
        slots: &mut [Contact],
        bodies: &mut Bodies<'_>,
        how: &Visit,
    ) -> f32 {
        let (inv_mass, vel, spin) = (bodies.inv_mass, &mut *bodies.vel, &mut bodies.spin);
        let acting = &mut scratch.acting;
        let mut worst = 0.0f32;
        scratch.idle.retain(|&k| {
            let r = self.visit(k as usize, slots, inv_mass, vel, spin.as_mut().map(Turn::reborrow), how);
            worst = worst.max(r);
            if r > 0.0 {
                acting.push(k);
                false
            } else {
                true
            }
        });
        worst
    }

    /// After idle contacts joined the acting ones ([`Sweep::check_idle`]):
    /// the remaining idle ones' probes (frictionless), and the packed copy
    /// written back, then rebuilt with the acting set in sweep order.
    fn grow(
        &self,
        scratch: &mut SolveScratch,
        slots: &mut [Contact],
        bodies: &Bodies<'_>,
        how: &Visit,
        limits: &Limits,
    ) {
        if bodies.spin.is_none() {
            scratch.probes.build(self, &scratch.idle, slots, how);
        }
        scratch.packed.write_back(slots);
        scratch.acting.sort_unstable();
        self.pack_acting(scratch, slots, bodies, how, limits);
    }
}

/// The hot sweeps of a [`Sweep::solve`] (NLGS with the split push-out
/// only, with and without friction) and the correction above which its next sweep is
/// relaxed. The hot sweeps and the later switch to plain sweeps were tuned
/// with the split push-out (beta = 0 in the solve, the default). Pushing
/// overlaps out through the velocities (beta > 0) keeps the former solve:
/// with them a resting 12-grain column's overlap kept growing (8.07e-6
/// then 8.81e-6 m over two 500-step halves, tests/nscd_physics.rs).
fn hot_and_relaxed(how: &Visit, limits: &Limits) -> (Option<packed::Hot>, f32) {
    let threshold = limits.threshold;
    let tuned = how.beta == 0.0 && how.rule == Rule::Accumulated;
    let above = (if tuned { SOR_ABOVE } else { SOR_ABOVE_VELOCITY_PUSH } * threshold).max(limits.sor_floor);
    let hot = tuned.then_some(packed::Hot {
        threshold,
        mark: HOT_MARK * threshold,
        sweeps: limits.hot_sweeps,
    });
    (hot, above)
}
