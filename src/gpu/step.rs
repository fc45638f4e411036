//! A GPU step is data: each stepper builds the list of its step's stages up
//! front (as Box2D v3 builds its stage array) and [`record`] runs the list
//! through one loop; the stepper's [`Recorder`] says what each stage records.
//!
//! ```text
//!   NSCD:  ClearStats [Reorder] [SpinFree] ClearCells FreeVelocity BinCount PrefixSum CursorCopy
//!          BinScatter BinSort Detect [Cohesion] [WarmStart] [Bounce] Gather [Color] Solve [Mirror] [PredictGap Correct Shift]
//!          Integrate
//!   DEM:   [ClearCells BinCount PrefixSum CursorCopy BinScatter BinSort Detect DemForce ClearStats]
//!          DemKickDrift ClearCells BinCount PrefixSum CursorCopy BinScatter BinSort Detect DemForce DemKick
//! ```
//! Consecutive dispatch stages share one compute pass (labelled after the
//! first); a host stage (a clear, a copy, or [`StepStage::Color`] and
//! [`StepStage::Solve`], which submit and read counters back) ends the pass.
//! The binning, detection and counter stages belong to the shared
//! [`super::pipeline::Pipeline`]; the others to the stepper.
//!
//! Bisection: [`GpuFrom`] names where the GPU takes over from the CPU twins
//! ([`StepStage::phase`]); `crate::backend::bisect` runs the CPU stages before
//! it and uploads their output.

use super::{Stage, pass};
use crate::error::Result;

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
    /// Capillary bridges into the free velocities (`[cohesion]`, DESIGN §1e).
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
    DemKickDrift,
    DemForce,
    DemKick,
}

impl StepStage {
    /// The binning stages, in order.
    pub const BIN: [StepStage; 6] = [
        StepStage::ClearCells,
        StepStage::BinCount,
        StepStage::PrefixSum,
        StepStage::CursorCopy,
        StepStage::BinScatter,
        StepStage::BinSort,
    ];

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
            StepStage::Detect => Stage::Detect,
            StepStage::WarmStart | StepStage::Bounce => Stage::WarmStart,
            StepStage::Gather | StepStage::SpinFree => Stage::JacobiGather,
            StepStage::Color => Stage::Coloring,
            StepStage::Mirror => Stage::Colored,
            StepStage::PredictGap => Stage::PredictGap,
            StepStage::Correct => Stage::JacobiContact,
            StepStage::Shift | StepStage::Integrate => Stage::Integrate,
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

    /// The bisection phase of the stage: it runs on the GPU when the GPU
    /// takes over at this phase or before.
    pub fn phase(self) -> GpuFrom {
        match self {
            StepStage::Detect => GpuFrom::Detect,
            // SpinFree feeds the first gather: it runs wherever the gather does.
            StepStage::SpinFree
            | StepStage::Cohesion
            | StepStage::WarmStart
            | StepStage::Bounce
            | StepStage::Gather => GpuFrom::WarmStart,
            StepStage::Color | StepStage::Solve | StepStage::Mirror => GpuFrom::Solve,
            // The correction moves the grains: it belongs with integrate.
            StepStage::PredictGap | StepStage::Correct | StepStage::Shift | StepStage::Integrate => GpuFrom::Integrate,
            _ => GpuFrom::FreeVelocity,
        }
    }
}

/// Where the GPU takes over an NSCD step from the CPU (vello's
/// `force_gpu_from`): the CPU twins run every stage before it and their output
/// is uploaded (see `crate::backend::bisect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GpuFrom {
    /// The whole step on the GPU.
    FreeVelocity,
    /// Free velocity and binning on the CPU (`vel_free`, `cell_start`, `sorted` uploaded).
    Detect,
    /// ... and detection (contact lists and counters uploaded).
    WarmStart,
    /// ... and warm start and the first gather (impulses and velocities uploaded).
    Solve,
    /// ... and the solve (the lists with their final impulses and the
    /// velocities uploaded): the GPU only moves the grains (the split
    /// push-out's correction, then integrate).
    Integrate,
}

impl GpuFrom {
    pub const ALL: [GpuFrom; 5] = [
        GpuFrom::FreeVelocity,
        GpuFrom::Detect,
        GpuFrom::WarmStart,
        GpuFrom::Solve,
        GpuFrom::Integrate,
    ];

    /// The stage name (`"detect"`), as `HOURGLASS_GPU_FROM` spells it.
    pub fn name(self) -> &'static str {
        match self {
            GpuFrom::FreeVelocity => "free_velocity",
            GpuFrom::Detect => "detect",
            GpuFrom::WarmStart => "warm_start",
            GpuFrom::Solve => "solve",
            GpuFrom::Integrate => "integrate",
        }
    }

    pub fn parse(name: &str) -> Option<GpuFrom> {
        GpuFrom::ALL.into_iter().find(|f| f.name() == name)
    }

    /// `HOURGLASS_GPU_FROM`: None when unset or empty, an error naming the
    /// variable and the stage names when it names no stage (a typo must not
    /// silently run the plain GPU step).
    pub fn from_env() -> Result<Option<GpuFrom>> {
        let Ok(v) = std::env::var("HOURGLASS_GPU_FROM") else {
            return Ok(None);
        };
        if v.is_empty() {
            return Ok(None);
        }
        GpuFrom::parse(&v).map(Some).ok_or_else(|| {
            let names: Vec<&str> = GpuFrom::ALL.iter().map(|f| f.name()).collect();
            crate::error::Error::field(
                "environment",
                "HOURGLASS_GPU_FROM",
                format!("`{v}` is not a stage; use one of {}", names.join(", ")),
            )
        })
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
