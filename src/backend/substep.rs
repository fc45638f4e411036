//! Substeps: no grain outruns contact detection, whatever the step.
//!
//! Detection at the start of a step lists only the pairs (grain-grain and
//! grain-wall) whose surface distance is under `alert`. A pair farther apart
//! that closes by more than its gap within the step is never seen: a grain
//! passes through a wall and is lost, or two grains overlap (which the next
//! step detects and pushes out, and `max_overlap` reports). Over a step of
//! length dt, with every grain slower than v at its start, gravity adds at
//! most |g| dt, so a grain closes on a wall by at most
//!
//! ```text
//!   need = S (v + |g| dt) dt              S = SAFETY (1.25)
//!   k    = ceil(need / alert)             substeps of dt/k each
//! ```
//!
//! and k substeps of dt/k close no grain on a wall by more than alert / S
//! each (the bound v + |g| dt holds through all of them). The bound is the
//! rule "alert >= max |v| dt plus a margin": two grains head-on could
//! close by twice that, but guarding that case split 885 of the 1,000 steps
//! of a default 2,000-grain discharge (grains reach 3-4 m/s falling into the
//! lower bulb, almost all towards grains at rest or moving alike), tripling
//! its cost to protect against overlaps, not losses. A step with k > 1 is split;
//! with k > [`MAX_SUBSTEPS`] it is refused ([`Error::StepTooLong`]) rather
//! than taken with contacts missed. The substeps' [`StepStats`] are merged
//! into one ([`merge`]), so the run still counts, times and writes rows per
//! outer step. Every backend goes through [`step`]; v is the fastest grain at
//! the end of the previous step ([`Substepped::next_speed`]).

use super::Backend;
use crate::error::{Error, Result};
use crate::model::motion::Moves;
use crate::model::{Dim2, Space};
use crate::model::{StepParams, StepStats};

/// Margin on the closing bound. v is measured at the end of the previous
/// step; within a step the solver moves momentum between grains and the
/// overlap push-out (`overlap_relax` d / dt) adds a separating speed, so a
/// grain can leave a collision somewhat faster than v + |g| dt. 1.25 is the
/// same margin as the automatic dt (`scene::laws::default_dt` keeps one
/// grain's step to 80% of alert), so a split step and the default step leave
/// the same room at the edge of the alert band.
pub const SAFETY: f32 = 1.25;

/// Most substeps one step may be split into. 64 keeps a too-long dt
/// (say 0.1 s for millimetre grains) from silently running 100x slower: past
/// it the run stops and names dt and the speed.
pub const MAX_SUBSTEPS: u32 = 64;

/// Farthest a grain slower than `v_max` (m/s) can close on a wall in a
/// step of `dt` (s) under gravity `g` (m/s^2), with the [`SAFETY`] margin, m.
pub fn closing(v_max: f32, g: [f32; 2], dt: f32) -> f32 {
    SAFETY * (v_max + g[0].hypot(g[1]) * dt) * dt
}

/// Substeps that keep every pair's closing within `alert` (m) when the
/// fastest grain moves at `v_max` (m/s): ceil([`closing`] / alert), at least
/// 1, not capped (a step that needs more than u32::MAX reads u32::MAX). A
/// non-finite speed is a blown-up state, which the run reports as
/// [`Error::Diverged`] on its next row: no split can save it, so it is 1.
pub fn substeps(v_max: f32, g: [f32; 2], dt: f32, alert: f32) -> u32 {
    if !v_max.is_finite() {
        return 1;
    }
    // `as` saturates: an infinite or huge ratio reads u32::MAX, NaN reads 0.
    ((closing(v_max, g, dt) / alert).ceil() as u32).max(1)
}

/// One step as the run sees it, however many substeps it took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Substepped {
    /// The substeps' stats merged ([`merge`]).
    pub stats: StepStats,
    /// Substeps taken, each of dt / substeps (1: the step was not split).
    pub substeps: u32,
    /// The fastest grain any substep reported, m/s (its max_displacement
    /// over its own dt); 0 when none reported one.
    pub speed: f32,
}

impl Substepped {
    /// The v_max of the next step: the fastest grain of this one, or the
    /// previous `v_max` when no substep measured it. The GPU DEM backend
    /// reads its counters every `gpu::dem::CHECK_EVERY` steps and reports 0
    /// between reads; its explicit dt is far below the alert limit, so the
    /// last measured speed is a fair bound there.
    pub fn next_speed(&self, v_max: f32) -> f32 {
        if self.speed > 0.0 { self.speed } else { v_max }
    }
}

/// Two consecutive substeps' stats as one step's: iterations, overflow and
/// colouring time summed; converged only if both did; the larger residual,
/// displacement and colour count; the later contact count.
pub fn merge(a: StepStats, b: StepStats) -> StepStats {
    StepStats {
        iterations: a.iterations + b.iterations,
        converged: a.converged && b.converged,
        residual: a.residual.max(b.residual),
        contacts: b.contacts,
        overflow: a.overflow + b.overflow,
        max_displacement: a.max_displacement.max(b.max_displacement),
        max_overlap: a.max_overlap.max(b.max_overlap),
        colors: a.colors.max(b.colors),
        coloring_ms: a.coloring_ms + b.coloring_ms,
    }
}

/// Advance `backend` by `p.dt`, in as many substeps as [`substeps`] asks
/// for the fastest grain `v_max` (m/s); [`Error::StepTooLong`] when that is
/// more than [`MAX_SUBSTEPS`] (nothing is stepped then).
pub fn step<S: Space>(backend: &mut dyn Backend<S>, p: &StepParams, v_max: f32) -> Result<Substepped> {
    step_moving(backend, p, v_max, None)
}

/// Moving walls over a step: their motion and the time on its clock at the
/// start of the step, s.
pub struct Moving<'a, S: Space = Dim2> {
    pub motion: &'a S::Motion,
    pub t0: f64,
}

impl<S: Space> Clone for Moving<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Space> Copy for Moving<'_, S> {}

/// [`step`] with walls that move: a wall closes on a grain as a grain
/// does, so the fastest wall point's speed over the step adds to `v_max`
/// in the count of substeps, and each substep first moves the walls to
/// where they are at its start, with their velocities over it. The caller
/// has already given the backend the walls at `t0` with their velocities
/// over the whole step (as the run does after every step), so a step that
/// is not split moves nothing here.
pub fn step_moving<S: Space>(
    backend: &mut dyn Backend<S>,
    p: &StepParams,
    v_max: f32,
    moving: Option<Moving<'_, S>>,
) -> Result<Substepped> {
    let dt = f64::from(p.dt);
    let wall_speed = moving.map_or(0.0, |m| (m.motion.farthest(m.t0, m.t0 + dt) / dt) as f32);
    let k = substeps(v_max + wall_speed, p.gravity, p.dt, p.alert);
    if k > MAX_SUBSTEPS {
        return Err(Error::StepTooLong {
            dt: p.dt,
            speed: v_max + wall_speed,
            closing: closing(v_max + wall_speed, p.gravity, p.dt),
            alert: p.alert,
            max: MAX_SUBSTEPS,
        });
    }
    let sub = StepParams {
        dt: p.dt / k as f32,
        ..*p
    };
    let mut stats: Option<StepStats> = None;
    let mut speed = 0.0f32;
    for i in 0..k {
        if let Some(m) = moving
            && k > 1
        {
            let at = |j: u32| m.t0 + dt * f64::from(j) / f64::from(k);
            backend.move_walls(&m.motion.walls(at(i), at(i + 1)));
        }
        let s = backend.step(&sub)?;
        speed = speed.max(s.max_displacement / sub.dt);
        stats = Some(stats.map_or(s, |a| merge(a, s)));
    }
    Ok(Substepped {
        // k >= 1, so at least one substep ran.
        stats: stats.unwrap_or_default(),
        substeps: k,
        speed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::BackendKind;
    use crate::model::{Grains, Region, SolverKind, Totals, Walls};

    const G: [f32; 2] = [0.0, -9.81];

    /// A backend whose grains move at a set speed; it records each step's dt.
    struct Fake {
        speed: f32,
        dts: Vec<f32>,
        grains: Grains,
    }

    impl Fake {
        fn new(speed: f32) -> Fake {
            Fake {
                speed,
                dts: Vec::new(),
                grains: Grains::new(Vec::new(), Vec::new(), Vec::new(), 2500.0),
            }
        }
    }

    impl Backend for Fake {
        fn kind(&self) -> BackendKind {
            BackendKind::Cpu
        }
        fn adapter(&self) -> String {
            "fake".to_string()
        }
        fn step(&mut self, p: &StepParams) -> Result<StepStats> {
            self.dts.push(p.dt);
            let n = self.dts.len() as u32;
            Ok(StepStats {
                iterations: n,
                converged: n != 2,
                residual: n as f32,
                contacts: 10 * u64::from(n),
                overflow: 1,
                max_displacement: self.speed * p.dt,
                max_overlap: 0.0,
                colors: n,
                coloring_ms: 0.5,
            })
        }
        fn set_walls(&mut self, _walls: &Walls) {}
        fn grains(&mut self) -> Result<&Grains> {
            Ok(&self.grains)
        }
        fn totals(&mut self, _region: &Region) -> Result<Totals> {
            Ok(Totals::default())
        }
    }

    fn params(dt: f32, alert: f32) -> StepParams {
        StepParams {
            gravity: G,
            dt,
            alert,
            tol: 1e-6,
            itmax: 100,
            omega: 0.5,
            overlap_relax: 0.2,
            overlap_relax_default: false,
            overlap_iterations: 0,
            solver: SolverKind::Nlgs,
            warm_start: true,
            mu: 0.0,
            mu_wall: 0.0,
            cohesion: Default::default(),
            restitution: 0.0,
            forcing: Default::default(),
        }
    }

    #[test]
    fn slow_grains_take_one_step() {
        // The default step: 1e-3 s, alert 4 mm; at rest and at 1 m/s.
        assert_eq!(substeps(0.0, G, 1e-3, 0.004), 1);
        assert_eq!(substeps(1.0, G, 1e-3, 0.004), 1);
        // No gravity, no speed: nothing closes.
        assert_eq!(substeps(0.0, [0.0, 0.0], 1.0, 1e-9), 1);
    }

    #[test]
    fn substeps_are_the_ceiling_of_closing_over_alert() {
        // 1.25 * (3 + 9.81e-2) * 1e-2 = 0.0387263 m over 4 mm: 9.68 -> 10.
        assert_eq!(substeps(3.0, G, 1e-2, 0.004), 10);
        // 1.25 * (3.1 + 0.04905) * 5e-3 = 0.019682 m < 0.02: one step ...
        assert_eq!(substeps(3.1, G, 5e-3, 0.02), 1);
        // ... and just above it two.
        assert_eq!(substeps(3.2, G, 5e-3, 0.02), 2);
        // Gravity alone, at rest: 1.25 * 9.81 * 0.1^2 = 0.122625 m over 4 mm -> 31.
        assert_eq!(substeps(0.0, G, 0.1, 0.004), 31);
        // Each of the k substeps closes no more than alert / SAFETY.
        for v in [0.0f32, 0.3, 1.0, 2.8, 7.0] {
            let k = substeps(v, G, 1e-2, 0.004) as f32;
            let per = (v + 9.81 * 1e-2) * (1e-2 / k);
            assert!(
                per * SAFETY <= 0.004 * (1.0 + 1e-6),
                "v {v}: {per} m per substep of {k}"
            );
        }
    }

    #[test]
    fn blown_up_and_huge_speeds() {
        assert_eq!(substeps(f32::NAN, G, 1e-3, 0.004), 1);
        assert_eq!(substeps(f32::INFINITY, G, 1e-3, 0.004), 1);
        assert_eq!(substeps(1e30, G, 1e-3, 0.004), u32::MAX);
    }

    #[test]
    fn merge_sums_counts_and_keeps_extremes() {
        let a = StepStats {
            iterations: 3,
            converged: true,
            residual: 2e-3,
            contacts: 7,
            overflow: 1,
            max_displacement: 1e-4,
            max_overlap: 2e-6,
            colors: 5,
            coloring_ms: 0.25,
        };
        let b = StepStats {
            iterations: 4,
            converged: false,
            residual: 1e-3,
            contacts: 9,
            overflow: 2,
            max_displacement: 3e-4,
            max_overlap: 1e-6,
            colors: 4,
            coloring_ms: 0.5,
        };
        let want = StepStats {
            iterations: 7,
            converged: false,
            residual: 2e-3,
            contacts: 9,
            overflow: 3,
            max_displacement: 3e-4,
            max_overlap: 2e-6,
            colors: 5,
            coloring_ms: 0.75,
        };
        assert_eq!(merge(a, b), want);
    }

    #[test]
    fn a_fast_step_is_split_into_equal_substeps() {
        let mut be = Fake::new(3.0);
        let out = step(&mut be, &params(1e-2, 0.004), 3.0).unwrap();
        assert_eq!(out.substeps, 10);
        assert_eq!(be.dts, vec![1e-2f32 / 10.0; 10]);
        let s = out.stats;
        assert_eq!(s.iterations, (1..=10).sum::<u32>());
        assert!(!s.converged, "substep 2 did not converge");
        assert_eq!((s.residual, s.contacts, s.overflow, s.colors), (10.0, 100, 10, 10));
        assert!((s.coloring_ms - 5.0).abs() < 1e-4);
        assert!((s.max_displacement - 3.0 * 1e-3).abs() < 1e-7);
        assert!((out.speed - 3.0).abs() < 1e-5);
        assert_eq!(out.next_speed(9.0), out.speed);
    }

    #[test]
    fn a_slow_step_is_one_call_with_its_own_stats() {
        let mut be = Fake::new(0.5);
        let out = step(&mut be, &params(1e-3, 0.004), 0.5).unwrap();
        assert_eq!((out.substeps, be.dts.clone()), (1, vec![1e-3]));
        assert_eq!(out.stats.iterations, 1);
        assert!(out.stats.converged);
    }

    #[test]
    fn an_unmeasured_speed_keeps_the_last_one() {
        // Between two counter reads the GPU DEM backend reports no displacement.
        let mut be = Fake::new(0.0);
        let out = step(&mut be, &params(1e-3, 0.004), 1.5).unwrap();
        assert_eq!(out.speed, 0.0);
        assert_eq!(out.next_speed(1.5), 1.5);
    }

    #[test]
    fn a_step_past_the_cap_is_refused_before_anything_moves() {
        let mut be = Fake::new(2.0);
        let err = step(&mut be, &params(0.1, 0.004), 2.0).unwrap_err();
        assert!(be.dts.is_empty(), "stepped {} times", be.dts.len());
        let msg = err.to_string();
        assert!(matches!(err, Error::StepTooLong { max: MAX_SUBSTEPS, .. }), "{msg}");
        assert!(msg.contains("dt = 1e-1 s") && msg.contains("2.00 m/s"), "{msg}");
        assert!(msg.contains("solver.dt") && msg.contains("solver.alert"), "{msg}");
    }
}
