//! A GPU step is data: each stepper maps the stages of its step plan
//! (`model::plan`, the same list the CPU runs) to the GPU stages that record
//! them ([`stages_of`]: one recording per plan stage, several kernels where
//! needed), and [`record`] runs the list through one loop; the stepper's
//! [`Recorder`] says what each stage records.
//!
//! ```text
//!   plan stage      GPU stages
//!   (prologue)      ClearStats [Reorder]                 (NSCD, a step started on the GPU)
//!   free_velocity   FreeVelocity                         (the forcing is in its kernel)
//!   spin_free       SpinFree
//!   detect          ClearCells BinCount PrefixSum CursorCopy BinScatter BinSort Detect
//!                   (DetectAhead for Detect after a DEM drift while the walls move)
//!   cohesion        Cohesion
//!   warm_start      WarmStart                            (when the device holds last step's lists)
//!   bounce          Bounce
//!   solve           Gather [Color] Solve [Mirror]
//!   push_out        PredictGap Correct Shift
//!   integrate       Integrate
//!   integrate_angle IntegrateAngle
//!   dem_prime       ClearCells .. BinSort Detect DemForce ClearStats
//!   dem_kick_drift  DemKickDrift
//!   dem_force       DemForce
//!   dem_kick        DemKick
//! ```
//! Consecutive dispatch stages share one compute pass (labelled after the
//! first); a host stage (a clear, a copy, or [`StepStage::Color`] and
//! [`StepStage::Solve`], which submit and read counters back) ends the pass.
//! The binning, detection and counter stages belong to the shared
//! [`super::pipeline::Pipeline`]; the others to the stepper.
//!
//! Bisection: a stepper records the stages of its plan from a given plan
//! stage on (`GpuBackend::step_from`, `GpuDemBackend::step_from`);
//! `crate::backend::bisect` runs the CPU stages before it and uploads their
//! output.

use super::{Stage, pass};
use crate::error::Result;
use crate::model::plan;

/// One stage of a GPU step, in data-flow order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepStage {
    /// Zero the step counters (`stats`).
    ClearStats,
    /// Friction: the spins before the contacts act, `spin_free` = `spin`
    /// (twin: `CpuStepper::step` copying `ang_vel` into `spin_free`).
    SpinFree,
    /// Permute the grain arrays into the cell order of the last binning.
    Reorder,
    FreeVelocity,
    /// Zero `cell_count` (binning, 1/6).
    ClearCells,
    /// Each grain's cell and the cell counts (binning, 2/6).
    BinCount,
    /// `cell_start`, exclusive scan of the counts (binning, 3/6).
    PrefixSum,
    /// The scatter cursors start as `cell_start` (binning, 4/6).
    CursorCopy,
    /// Grain indices in cell order, in atomic order inside a cell (binning, 5/6).
    BinScatter,
    /// Each cell's grain indices in increasing order, so a run repeats bit for
    /// bit (binning, 6/6).
    BinSort,
    Detect,
    /// [`Self::Detect`] against the walls a step ahead of the step's walls
    /// (`model::walls::walls_ahead`): a DEM step's detection after the drift
    /// while the walls move. Recorded by the DEM stepper.
    DetectAhead,
    /// Capillary bridges into the free velocities (`[cohesion]`, docs/cohesion.md).
    Cohesion,
    WarmStart,
    /// Restitution (e > 0): each contact's bounce velocity from the
    /// start-of-step velocities (entry point `bounce` of warm_start).
    Bounce,
    /// Velocities from the free velocities and the (warm) impulses.
    Gather,
    /// Graph colouring and colour buckets (coloured solver; reads back sizes).
    Color,
    /// Solver iterations in batches of `check_every`, each followed by the
    /// convergence check (one readback), until converged or `itmax`.
    Solve,
    /// Owners' impulses into the other copies (coloured solver).
    Mirror,
    /// Split push-out (`overlap_iterations` > 0), 1/3: a copy of the lists
    /// with the gap the step will leave, zero impulses (into the other lists).
    PredictGap,
    /// Split push-out, 2/3: the shift starts at 0, then `overlap_iterations`
    /// Jacobi iterations (`jacobi_contact`, `jacobi_gather`) on it.
    Correct,
    /// Split push-out, 3/3: pos += dt shift (`integrate` on the shift).
    Shift,
    Integrate,
    /// Friction: angle += dt spin (`integrate_angle`).
    IntegrateAngle,
    DemKickDrift,
    DemForce,
    DemKick,
}

impl StepStage {
    /// The kernel stage whose label the stage's pass carries.
    pub fn stage(self) -> Stage {
        match self {
            StepStage::ClearStats | StepStage::Solve => Stage::JacobiContact,
            StepStage::Reorder => Stage::Reorder,
            StepStage::FreeVelocity => Stage::FreeVelocity,
            StepStage::ClearCells | StepStage::BinCount => Stage::BinCount,
            StepStage::PrefixSum => Stage::PrefixSum,
            StepStage::CursorCopy | StepStage::BinScatter => Stage::BinScatter,
            StepStage::BinSort => Stage::BinSort,
            StepStage::Detect | StepStage::DetectAhead => Stage::Detect,
            StepStage::WarmStart | StepStage::Bounce => Stage::WarmStart,
            StepStage::Gather | StepStage::SpinFree => Stage::JacobiGather,
            StepStage::Color => Stage::Coloring,
            StepStage::Mirror => Stage::Colored,
            StepStage::PredictGap => Stage::PredictGap,
            StepStage::Correct => Stage::JacobiContact,
            StepStage::Shift | StepStage::Integrate | StepStage::IntegrateAngle => Stage::Integrate,
            StepStage::DemKickDrift | StepStage::DemKick => Stage::DemIntegrate,
            StepStage::DemForce => Stage::DemForce,
            StepStage::Cohesion => Stage::Cohesion,
        }
    }

    /// Recorded inside a compute pass (a dispatch), rather than on the encoder.
    pub fn is_dispatch(self) -> bool {
        !matches!(
            self,
            StepStage::ClearStats
                | StepStage::SpinFree
                | StepStage::Reorder
                | StepStage::ClearCells
                | StepStage::CursorCopy
                | StepStage::Color
                | StepStage::Solve
        )
    }
}

/// The GPU stages that record plan stage `stage`, in order; `colored`: the
/// coloured solver's stages around the solve. The DEM's priming clears the
/// counters after its detection (they are not a step's).
pub fn stages_of(stage: plan::Stage, colored: bool) -> &'static [StepStage] {
    use StepStage::*;
    // Priming is binning and detection, then the force.
    const PRIME: [StepStage; 9] = [
        ClearCells, BinCount, PrefixSum, CursorCopy, BinScatter, BinSort, Detect, DemForce, ClearStats,
    ];
    const DETECT: &[StepStage] = PRIME.split_at(7).0;
    match stage {
        plan::Stage::FreeVelocity => &[FreeVelocity],
        plan::Stage::SpinFree => &[SpinFree],
        plan::Stage::Detect => DETECT,
        plan::Stage::Cohesion => &[Cohesion],
        plan::Stage::WarmStart => &[WarmStart],
        plan::Stage::Bounce => &[Bounce],
        plan::Stage::Solve if colored => &[Gather, Color, Solve, Mirror],
        plan::Stage::Solve => &[Gather, Solve],
        plan::Stage::PushOut => &[PredictGap, Correct, Shift],
        plan::Stage::Integrate => &[Integrate],
        plan::Stage::IntegrateAngle => &[IntegrateAngle],
        plan::Stage::DemPrime => &PRIME,
        plan::Stage::DemKickDrift => &[DemKickDrift],
        plan::Stage::DemForce => &[DemForce],
        plan::Stage::DemKick => &[DemKick],
    }
}

/// What a stepper records for each of its stages.
pub trait Recorder {
    /// Record dispatch stage `stage` into `pass`.
    fn dispatch(&self, stage: StepStage, pass: &mut wgpu::ComputePass);
    /// Record host stage `stage` on `enc`; a stage that submits returns the
    /// encoder the step goes on with.
    fn encode(&mut self, stage: StepStage, enc: wgpu::CommandEncoder) -> Result<wgpu::CommandEncoder>;
}

/// Run `stages` in order: consecutive dispatches share a pass. Returns the
/// encoder holding what is not submitted yet.
pub fn record<R: Recorder>(
    r: &mut R,
    stages: &[StepStage],
    mut enc: wgpu::CommandEncoder,
) -> Result<wgpu::CommandEncoder> {
    let mut i = 0;
    while let Some(&first) = stages.get(i) {
        if first.is_dispatch() {
            let mut ps = pass(&mut enc, &first.stage().label());
            while let Some(&s) = stages.get(i).filter(|s| s.is_dispatch()) {
                r.dispatch(s, &mut ps);
                i += 1;
            }
        } else {
            enc = r.encode(first, enc)?;
            i += 1;
        }
    }
    Ok(enc)
}
