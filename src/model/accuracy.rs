//! Accuracy stated as overlap (`solver.max_overlap`, docs/nscd.md#accuracy-as-overlap).
//!
//! The NSCD solve stops at a geometric tolerance `tol`, and a contact's
//! overlap creeps by up to `tol` per step before the push-out takes it back,
//! over a slop of `SLOP_TOLS` tol that is never pushed out. The overlap a run
//! reaches therefore scales with `tol`, by a factor that depends on the
//! solver, the push-out fraction and the scene (about 5 for the bundled
//! hourglass). Users think in overlap, so the run keeps a target depth and
//! adapts `tol` after every step from the deepest overlap that step saw:
//!
//! ```text
//!   target  = max_overlap r_mean
//!   tol_hi  = target / 15            (the slop then stays at a third of the target)
//!   tol_lo  = tol_hi / 20
//!   step hit itmax:           tol <- min(tol_hi, 1.5 tol)
//!   overlap > 0.7 target:     tol <- max(tol_lo, 0.9 tol)   unless held
//!   overlap < 0.5 target:     tol <- min(tol_hi, 1.01 tol)
//!   held: 7 tightenings (tol halved) left the deepest overlap above 0.9
//!         of what it was before them: the halving is undone (tol back to
//!         where it began) and tol holds; released when the overlap falls
//!         under 0.5 target, or tightened again when it grows past 1.1
//!         times the overlap the halving did not lower
//! ```
//!
//! A tightening that does not pay is undone: in a 100,000-grain hourglass
//! still compacting when its gate opens, the deepest overlap stood at
//! 0.96-1.05 % of the mean radius whether the solve ran to 2e-6 m or to
//! 5e-7 m, which took 57 against 219 sweeps a step (906 at 1.5e-7 m;
//! BENCHMARKS.md, "Cost per grain-step"). The rule halves the tolerance and
//! looks: an overlap that did not fall by a tenth is not the solve's, so
//! the tolerance goes back to where the halving began. The hold outlasts a
//! dip of the overlap under 0.7 of the target: an overlap that comes and
//! goes at the same depth (a flowing bed, a settled tall pile at 0.8 of the
//! target) would otherwise take another halving each time it came back,
//! and the tolerance would only ever go down.
//!
//! An overlap that stays above 0.7 of the target tightens `tol` by 10 % a
//! step (20 steps cut it by 8); an overlap that stays under half the target
//! loosens it by 1 % a step (70 steps double it). The tightening is gradual
//! because a single deep overlap is mostly an impact (a grain landing fast
//! on the pile), which a tighter solve does not make shallower; the overlap
//! that grows step after step (a column creeping into its contacts) is what
//! the tolerance sets. A step that reached `itmax` loosens `tol` by half:
//! there the overlap comes from the unconverged solve, and a tighter
//! tolerance would only make the following steps stop at `itmax` too. The
//! range is narrow (20x) for the same reason: below it the overlap of a
//! resting pile no longer follows `tol` (the push-out sets it), and the
//! solve would only cost more. The run starts at `tol_hi`, which is low
//! for a flow (overlaps of a discharge stay near half the target) because
//! it is also the tolerance of a pile at rest: there its slop, the overlap
//! never pushed out, sets how far the packing can creep, and a settled
//! 2,000-grain fill at a slop of 0.8 % of the radius (tol_hi = target / 6)
//! collapsed as a whole after 6 s where at a third of it (2e-6 m, the
//! fixed default this rule replaces) it stayed put but for a few surface
//! grains. The rule is the
//! same on both backends: it reads only `StepStats::max_overlap` and
//! `converged`, which both report every step.

use super::params::SLOP_TOLS;

/// The share of the mean radius the NSCD solvers keep the largest overlap
/// under when a scene states neither `solver.tol` nor `solver.max_overlap`.
pub const DEFAULT_MAX_OVERLAP: f64 = 0.01;

/// The target overlap and the range `tol` adapts in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverlapTarget {
    /// The share of the mean radius aimed at (`solver.max_overlap`).
    pub share: f64,
    /// The deepest overlap aimed at, m: `share` times the mean radius.
    pub depth: f32,
}

/// `tol_hi = target / TOL_SHARE`: the slop (`SLOP_TOLS` tol) stays below the target.
const TOL_SHARE: f32 = 15.0;
/// The range of `tol`: `tol_lo = tol_hi / TOL_RANGE`.
const TOL_RANGE: f32 = 20.0;
/// Above this share of the target the tolerance tightens, by [`TIGHTEN`] at least ...
const TIGHTEN_ABOVE: f32 = 0.7;
const TIGHTEN: f32 = 0.9;
/// A step that stopped at itmax loosens the tolerance by this.
const UNSTICK: f32 = 1.5;
/// ... below this one it loosens, by [`LOOSEN`] per step.
const LOOSEN_BELOW: f32 = 0.5;
const LOOSEN: f32 = 1.01;
/// Tightenings between two looks at whether tightening pays: 0.9^7 = 0.48,
/// a halving of the tolerance.
const LOOK_EVERY: u32 = 7;
/// A halving pays when the deepest overlap falls under this share of the
/// one before it.
const PAYS_BELOW: f32 = 0.9;
/// A held tolerance tightens again once the overlap grows past this
/// multiple of the one the undone halving did not lower.
const RETRY_ABOVE: f32 = 1.1;

/// What [`OverlapTarget::next_tol`] remembers of a tightening under way
/// (kept in state.json, so a resumed run adapts as the run it continues).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tightening {
    /// The deepest overlap when the current halving began, m; once `held`,
    /// the overlap that halving did not lower.
    pub reference: f32,
    /// Tightenings of the current halving.
    pub steps: u32,
    /// A halving did not pay: it was undone, and the tolerance holds until
    /// the overlap falls under `LOOSEN_BELOW` of the target or grows past
    /// `RETRY_ABOVE` times `reference`.
    pub held: bool,
    /// The tolerance the current halving started from, m (0 in a state
    /// saved before it was kept: the halving is then held, not undone).
    #[serde(default)]
    pub from: f32,
}

const _: () = assert!(SLOP_TOLS < TOL_SHARE);

impl OverlapTarget {
    /// The target `share` (of the mean radius) for grains of mean radius `radius_mean`, m.
    pub fn new(share: f64, radius_mean: f64) -> OverlapTarget {
        OverlapTarget {
            share,
            depth: (share * radius_mean) as f32,
        }
    }

    /// The loosest tolerance, m, and the one a run starts from.
    pub fn tol_hi(&self) -> f32 {
        self.depth / TOL_SHARE
    }

    /// The tightest tolerance, m.
    pub fn tol_lo(&self) -> f32 {
        self.tol_hi() / TOL_RANGE
    }

    /// The tolerance for the next step, after a step solved to `tol` saw
    /// `overlap` (m) as its deepest overlap and `converged` (false: it
    /// stopped at itmax); `memory` carries the tightening under way from
    /// step to step.
    pub fn next_tol(&self, tol: f32, overlap: f32, converged: bool, memory: &mut Tightening) -> f32 {
        let deep = overlap > TIGHTEN_ABOVE * self.depth;
        let shallow = overlap < LOOSEN_BELOW * self.depth;
        if shallow {
            *memory = Tightening::default();
        } else if !deep && !memory.held {
            // A tightening under way stops when the overlap is no longer deep.
            memory.steps = 0;
        }
        let next = if !converged {
            tol * UNSTICK
        } else if deep {
            self.tighten(tol, overlap, memory)
        } else if shallow {
            tol * LOOSEN
        } else {
            tol
        };
        next.clamp(self.tol_lo(), self.tol_hi())
    }

    /// A step over `TIGHTEN_ABOVE` of the target: tighten by [`TIGHTEN`],
    /// looking every [`LOOK_EVERY`] tightenings whether the overlap fell; a
    /// halving after which it did not is undone and held.
    fn tighten(&self, tol: f32, overlap: f32, memory: &mut Tightening) -> f32 {
        if memory.held {
            if overlap <= RETRY_ABOVE * memory.reference {
                return tol;
            }
            // Deeper than the overlap the undone halving was tried on: try again.
            *memory = Tightening::default();
        }
        if memory.steps == 0 {
            memory.reference = overlap;
            memory.from = tol;
        }
        memory.steps += 1;
        if memory.steps > LOOK_EVERY {
            if overlap >= PAYS_BELOW * memory.reference {
                memory.held = true;
                return memory.from.max(tol);
            }
            memory.reference = overlap;
            memory.from = tol;
            memory.steps = 1;
        }
        tol * TIGHTEN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overshoot_tightens_tol_a_quiet_or_unconverged_step_loosens_it_within_its_range() {
        let t = OverlapTarget::new(0.01, 3e-3);
        assert!((t.depth - 3e-5).abs() < 1e-12);
        assert_eq!(t.tol_hi(), t.depth / 15.0);
        let tol = 0.5 * t.tol_hi();
        let fresh = || Tightening::default();
        assert_eq!(t.next_tol(tol, 0.71 * t.depth, true, &mut fresh()), TIGHTEN * tol);
        assert_eq!(t.next_tol(tol, 2.0 * t.depth, true, &mut fresh()), TIGHTEN * tol);
        assert_eq!(
            t.next_tol(0.5 * tol, 2.0 * t.depth, false, &mut fresh()),
            0.5 * tol * UNSTICK
        );
        assert_eq!(t.next_tol(tol, 0.6 * t.depth, true, &mut fresh()), tol);
        assert_eq!(t.next_tol(tol, 0.0, true, &mut fresh()), tol * LOOSEN);
        assert_eq!(t.next_tol(t.tol_hi(), 0.0, true, &mut fresh()), t.tol_hi());
        assert_eq!(t.next_tol(t.tol_lo(), 10.0 * t.depth, true, &mut fresh()), t.tol_lo());
    }

    /// Run `overlaps` through the rule from tol_hi; the tolerances.
    fn follow(t: &OverlapTarget, overlaps: impl Iterator<Item = f32>) -> Vec<f32> {
        let mut memory = Tightening::default();
        let mut tol = t.tol_hi();
        overlaps
            .map(|o| {
                tol = t.next_tol(tol, o, true, &mut memory);
                tol
            })
            .collect()
    }

    #[test]
    fn a_tightening_that_does_not_lower_the_overlap_is_undone_after_a_halving() {
        let t = OverlapTarget::new(0.01, 3e-3);
        // An overlap the solve does not set: one halving, undone, then held.
        let tols = follow(&t, std::iter::repeat_n(0.95 * t.depth, 60));
        let halved = (0..LOOK_EVERY).fold(t.tol_hi(), |x, _| x * TIGHTEN);
        assert_eq!(tols[LOOK_EVERY as usize - 1], halved);
        assert!(tols[LOOK_EVERY as usize..].iter().all(|&x| x == t.tol_hi()), "{tols:?}");
        // Over the target too: there the tighter tolerance did not take the overlap back either.
        let over = follow(&t, std::iter::repeat_n(1.2 * t.depth, 60));
        assert!(over[LOOK_EVERY as usize..].iter().all(|&x| x == t.tol_hi()), "{over:?}");
        // An overlap that falls with the tolerance: tightening goes on past a halving.
        let mut o = 0.99 * t.depth;
        let falling = follow(
            &t,
            (0..60).map(|_| {
                o = (o * 0.97).max(0.71 * t.depth);
                o
            }),
        );
        let twice = 2 * LOOK_EVERY as usize;
        assert!(falling[twice - 1] < halved * 0.5, "{falling:?}");
        // Floored at 0.71 of the target, it stops falling: the second halving is undone, the first kept.
        assert!(falling[twice..].iter().all(|&x| x == halved), "{falling:?}");
    }

    #[test]
    fn an_overlap_that_comes_and_goes_at_the_same_depth_does_not_ratchet_the_tolerance_down() {
        let t = OverlapTarget::new(0.01, 3e-3);
        // A flow whose deepest overlap swings between 0.6 and 0.8 of the
        // target whatever the tolerance: each deep spell used to take
        // another halving that was never given back.
        let swings = (0..200).map(|k| if (k / 20) % 2 == 0 { 0.8 } else { 0.6 } * t.depth);
        let tols = follow(&t, swings);
        assert!(tols[LOOK_EVERY as usize..].iter().all(|&x| x == t.tol_hi()), "{tols:?}");
    }

    #[test]
    fn a_held_tolerance_tightens_again_when_the_overlap_grows_and_loosens_when_it_falls() {
        let t = OverlapTarget::new(0.01, 3e-3);
        let held = || Tightening {
            reference: 0.8 * t.depth,
            steps: LOOK_EVERY + 1,
            held: true,
            from: t.tol_hi(),
        };
        let tol = t.tol_hi();
        // Deep, but no deeper than the halving that did not pay: held.
        let mut memory = held();
        assert_eq!(t.next_tol(tol, 0.85 * t.depth, true, &mut memory), tol);
        assert_eq!(memory, held());
        // Between half and 0.7 of the target the hold stays.
        assert_eq!(t.next_tol(tol, 0.6 * t.depth, true, &mut memory), tol);
        assert_eq!(memory, held());
        // Deeper than 1.1 times it: a new halving starts from here.
        assert_eq!(t.next_tol(tol, 0.95 * t.depth, true, &mut memory), TIGHTEN * tol);
        assert_eq!((memory.held, memory.steps, memory.from), (false, 1, tol));
        // Under half the target the hold is released and the tolerance loosens.
        let mut memory = held();
        let low = 0.5 * tol;
        assert_eq!(t.next_tol(low, 0.4 * t.depth, true, &mut memory), low * LOOSEN);
        assert_eq!(memory, Tightening::default());
        // A state saved before `from` was kept: the failed halving is held, not undone.
        let mut memory = Tightening {
            reference: 0.9 * t.depth,
            steps: LOOK_EVERY,
            held: false,
            from: 0.0,
        };
        assert_eq!(t.next_tol(low, 0.9 * t.depth, true, &mut memory), low);
        assert!(memory.held);
    }
}
