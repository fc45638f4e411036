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
//!   overlap > 0.7 target:     tol <- max(tol_lo, 0.9 tol)
//!   overlap < 0.5 target:     tol <- min(tol_hi, 1.01 tol)
//! ```
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
    /// stopped at itmax).
    pub fn next_tol(&self, tol: f32, overlap: f32, converged: bool) -> f32 {
        let next = if !converged {
            tol * UNSTICK
        } else if overlap > TIGHTEN_ABOVE * self.depth {
            tol * TIGHTEN
        } else if overlap < LOOSEN_BELOW * self.depth {
            tol * LOOSEN
        } else {
            tol
        };
        next.clamp(self.tol_lo(), self.tol_hi())
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
        assert_eq!(t.next_tol(tol, 0.71 * t.depth, true), TIGHTEN * tol);
        assert_eq!(t.next_tol(tol, 2.0 * t.depth, true), TIGHTEN * tol);
        assert_eq!(t.next_tol(0.5 * tol, 2.0 * t.depth, false), 0.5 * tol * UNSTICK);
        assert_eq!(t.next_tol(tol, 0.6 * t.depth, true), tol);
        assert_eq!(t.next_tol(tol, 0.0, true), tol * LOOSEN);
        assert_eq!(t.next_tol(t.tol_hi(), 0.0, true), t.tol_hi());
        assert_eq!(t.next_tol(t.tol_lo(), 10.0 * t.depth, true), t.tol_lo());
    }
}
