//! The run's counters (`Tally`, kept in state.json) and what one step adds
//! to them: the warnings of its first itmax step, overflow and alert
//! excess, and the tolerance of the next step (`solver.max_overlap`).

use super::{Observer, Run};
use crate::backend::Substepped;
use crate::model::StepStats;

/// Counters over the whole run.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Tally {
    pub(super) steps: u64,
    pub(super) iterations: u64,
    pub(super) itmax_steps: u64,
    pub(super) overflow: u64,
    pub(super) alert_steps: u64,
    /// Steps split into substeps, and the most substeps of one step.
    pub(super) subdivided_steps: u64,
    pub(super) max_substeps: u32,
    /// Largest colour count of a step (coloured NLGS), else 0.
    pub(super) colors: u32,
    pub(super) max_overlap: f64,
    /// The smallest and the largest tolerance a step was solved to, m, and
    /// the tolerance of the next step (`solver.max_overlap` adapts it).
    /// Absent in an older state.json: the run goes on from the scene's.
    #[serde(default)]
    pub(super) tol_range: Option<[f32; 2]>,
    #[serde(default)]
    pub(super) tol: Option<f32>,
    /// The tightening under way (`model::accuracy::Tightening`).
    #[serde(default)]
    pub(super) tightening: crate::model::accuracy::Tightening,
    pub(super) since_row_iterations: u64,
    pub(super) since_row_steps: u64,
    /// The last step's figures (a resumed run starts from none: the next
    /// row comes after a step).
    #[serde(skip)]
    pub(super) last: StepStats,
}

impl<S: super::RunSpace> Run<S> {
    /// Tally one step's figures; the first step that hits itmax, overflows
    /// the contact lists or moves past the alert distance is a warning, the
    /// first one split into substeps a notice.
    pub(super) fn count(&mut self, outer: &Substepped, obs: &mut dyn Observer) {
        let (p, stats) = (&self.p, &outer.stats);
        let tally = &mut self.tally;
        tally.steps += 1;
        tally.iterations += u64::from(stats.iterations);
        tally.since_row_iterations += u64::from(stats.iterations);
        tally.since_row_steps += 1;
        tally.overflow += stats.overflow;
        tally.colors = tally.colors.max(stats.colors);
        tally.max_overlap = tally.max_overlap.max(f64::from(stats.max_overlap));
        let steps = tally.steps;
        tally.max_substeps = tally.max_substeps.max(outer.substeps);
        if outer.substeps > 1 {
            tally.subdivided_steps += 1;
            if tally.subdivided_steps == 1 {
                obs.notice(&format!(
                    "step {steps}: grains fast enough to close more than the alert distance {:.3e} m in dt = {:.3e} s; the step is split into {} substeps (such steps are counted in summary.json)",
                    p.alert, p.dt, outer.substeps
                ));
            }
        }
        if !stats.converged {
            tally.itmax_steps += 1;
            if tally.itmax_steps == 1 {
                obs.notice(&format!(
                    "warning: step {steps}: solver hit itmax = {} (residual {:.3e} m/s); such steps are counted in summary.json",
                    p.itmax, stats.residual
                ));
            }
        }
        if stats.overflow > 0 && tally.overflow == stats.overflow {
            obs.notice(&format!(
                "warning: step {steps}: {} contacts did not fit in the per-grain lists (capacity {}); raise solver.contact_capacity",
                stats.overflow, self.contact_capacity
            ));
        }
        if stats.max_displacement > p.alert {
            tally.alert_steps += 1;
            if tally.alert_steps == 1 {
                obs.notice(&format!(
                    "warning: step {steps}: a grain moved {:.3e} m, more than the alert distance {:.3e} m; contacts can be missed (lower dt or raise alert)",
                    stats.max_displacement, p.alert
                ));
            }
        }
        tally.last = *stats;
    }

    /// Note the tolerance the step was solved to and, with an overlap
    /// target, set the next step's from the deepest overlap this one saw
    /// and whether it converged ([`OverlapTarget::next_tol`]).
    pub(super) fn adapt_tol(&mut self, stats: &StepStats) {
        let tally = &mut self.tally;
        let tol = self.p.tol;
        tally.tol_range = Some(
            tally
                .tol_range
                .map_or([tol, tol], |[lo, hi]| [lo.min(tol), hi.max(tol)]),
        );
        if let Some(target) = &self.target {
            self.p.tol = target.next_tol(tol, stats.max_overlap, stats.converged, &mut tally.tightening);
            tally.tol = Some(self.p.tol);
        }
    }
}
