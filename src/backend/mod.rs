//! The [`Backend`] trait and the one policy that picks the CPU or the GPU
//! ([`select`]): `run`, the window, `view`, `study` and `bench` all go through it.
//!
//! ```text
//!   sim ──> backend ──> cpu   (CpuBackend, CpuDemBackend: the reference)
//!                  └──> gpu   (GpuBackend, GpuDemBackend: wgpu, state on the device)
//! ```
//! The implementations of the trait live here ([`cpu`], [`gpu`]), so neither
//! `cpu/` nor `gpu/` knows the trait: each exposes plain steppers. The run
//! steps every backend through [`substep::step`], which splits a step whose
//! fastest grain could outrun contact detection.

pub mod bisect;
pub mod census;
pub mod cpu;
pub mod crowd;
pub mod gpu;
pub mod overlap;
pub mod regrow;
pub mod start;
pub mod substep;

pub use self::bisect::{BisectBackend, DemBisectBackend};
pub use self::cpu::{CpuBackend, CpuDemBackend, CpuHostBackend, CpuImpulseBackend, HostStepper};
pub use self::overlap::OverlapHistogram;
pub use self::start::{Start, check_initial_state, first_grain_overlap, grid_for};
pub use self::substep::{MAX_SUBSTEPS, Substepped, substeps};
pub use crate::gpu::GrainView;

use crate::error::{Error, Result};
use crate::gpu::{AdapterChoice, GpuContext};
use crate::model::{
    ContactLists, Dim2, Dim3, Grains, Grid, Phase, Region, SolverKind, Space, StepParams, StepStats, Totals,
};
use crate::scene::{BackendChoice, Setup};

/// Which kind of backend runs the steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BackendKind {
    Cpu,
    Gpu,
}

impl BackendKind {
    /// `"cpu"` or `"gpu"`, as written in summary.json and the bench table.
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Cpu => "cpu",
            BackendKind::Gpu => "gpu",
        }
    }
}

/// Something that advances the grains: the CPU reference or the GPU.
pub trait Backend<S: Space = Dim2> {
    fn kind(&self) -> BackendKind;
    /// The device that runs the steps.
    fn adapter(&self) -> String;
    fn step(&mut self, p: &StepParams) -> Result<StepStats>;
    /// Replace the walls (the gate opens); forgets warm-start impulses.
    fn set_walls(&mut self, walls: &S::Walls);
    /// The same walls (the same segments and corners, in the same order)
    /// moved to where they are at the start of the next step, with their
    /// velocities over it (`model::motion`); keeps the warm start. A backend
    /// that cannot move walls refuses them before the run starts
    /// ([`refuse_unrunnable`]).
    fn move_walls(&mut self, walls: &S::Walls) {
        self.set_walls(walls);
    }
    /// The grains as they are now (read back from the device if needed).
    fn grains(&mut self) -> Result<&Grains<S>>;
    /// One diagnostics reduction.
    fn totals(&mut self, region: &Region<S>) -> Result<Totals>;
    /// The fastest grain's speed, m/s (0 without grains): by default
    /// `totals`'s `max_speed` (the device's reduction on the GPU backends,
    /// which the bisection backends share); the CPU backends read their
    /// grains instead, without a reduction (nor, for the DEM, a detection to
    /// count contacts).
    fn max_speed(&mut self, region: &Region<S>) -> Result<f64> {
        Ok(self.totals(region)?.max_speed)
    }
    /// Steps this backend has taken (substeps included): the CPU reorders
    /// its grains on a schedule of its own steps, which a resumed run restores.
    fn step_count(&self) -> u64 {
        0
    }
    /// Go on counting from `n` steps (a resumed run).
    fn set_step_count(&mut self, _n: u64) {}
    /// The last step's contact lists with their impulses, where the next
    /// step warm-starts from them, and the cell order of the last binning,
    /// which the next reorder puts the grains in (the CPU NSCD stepper): for
    /// a saved state.
    fn saved_contacts(&mut self) -> Option<(&ContactLists<S>, &[u32])> {
        None
    }
    /// Go on from [`Backend::saved_contacts`] of a saved state.
    fn restore_contacts(&mut self, _lists: ContactLists<S>, _order: &[u32]) {}
    /// Add grains (an emitter's, docs/lab.md) after the existing ones, with
    /// the ids they carry; the next step moves them.
    fn add_grains(&mut self, _new: &Grains<S>) -> Result<()> {
        Err(Error::NotImplemented {
            what: format!("adding grains during a run on the {} backend", self.kind().name()),
        })
    }
    /// The run entered `phase` (the gate opened, or the fill starts to
    /// relax): DEM switches its normal damping. Others ignore it.
    fn set_phase(&mut self, _phase: Phase) {}
    /// The device's command submissions and host read-backs so far (None:
    /// the backend runs on the host).
    fn transfers(&self) -> Option<crate::gpu::context::Transfers> {
        None
    }
    /// Largest angular speed of any grain, rad/s (0 where grains do not turn).
    fn max_angular_speed(&mut self) -> Result<f32> {
        Ok(0.0)
    }
    /// The grains for drawing: the host arrays, or the device buffers bound
    /// in place (no copy through the host) on the GPU.
    fn view(&mut self) -> Result<GrainView<'_, S>> {
        Ok(GrainView::Host {
            grains: self.grains()?,
            contacts: None,
        })
    }
    /// Record the residual of every solver iteration of the following steps
    /// (m/s, the largest velocity correction of one iteration), until turned
    /// off; [`take_residuals`](Backend::take_residuals) hands them over. The
    /// GPU reads its residual back after every iteration while recording
    /// (one host round trip each, so recorded steps are slower) and returns
    /// to its usual cadence when recording stops. Nothing is recorded where
    /// the solver has no residual (DEM).
    fn record_residuals(&mut self, _on: bool) {}
    /// The residuals recorded since recording was turned on (or since the
    /// last take); empty when not recording.
    fn take_residuals(&mut self) -> Vec<f32> {
        Vec::new()
    }
    /// Time the stages that report their own time ([`StepStats::coloring_ms`])
    /// by waiting for the device around them: one extra host wait per step,
    /// so off by default. The CPU's times need no wait and ignore it.
    fn set_profiling(&mut self, _on: bool) {}
    /// People who have left through the door (crowd motion); `None` where
    /// grains never leave.
    fn evacuated(&self) -> Option<u64> {
        None
    }
    /// The solver that actually runs (`auto` resolved for this backend).
    fn solver(&self, asked: SolverKind) -> SolverKind {
        asked.resolve(self.kind() == BackendKind::Gpu)
    }
}

/// Solvers the GPU backend runs; the others (`nlgs`, `seed`) are sequential
/// sweeps and run on the CPU only.
pub fn runs_on_gpu(solver: SolverKind) -> bool {
    solver.resolve(true).facts().gpu
}

/// Where a GPU backend gets its device.
#[derive(Clone, Copy)]
pub enum Device<'a> {
    /// Open the best adapter the choice accepts (headless runs, study, bench).
    Open,
    /// Share this device (the window's), so the renderer can bind the
    /// simulation's buffers in place.
    Shared(&'a GpuContext),
}

/// The CPU backend of `setup`'s solver.
pub fn cpu_backend(setup: &Setup, grid: Grid) -> Box<dyn Backend> {
    if let (SolverKind::Crowd, Some(crowd)) = (setup.params.solver, &setup.crowd) {
        let (grains, walls) = (setup.grains.clone(), setup.walls(false).clone());
        let capacity = setup.scene.solver.contact_capacity as usize;
        return Box::new(crowd::CpuCrowdBackend::new(
            grains,
            walls,
            grid,
            capacity,
            crowd.clone(),
        ));
    }
    cpu_backend_from(&Start::of(setup, grid))
}

/// The CPU backend of `setup`'s solver in any space (crowd motion, a
/// plane's model, is refused by a 3D scene's checks).
pub fn cpu_backend_of<S>(setup: &Setup<S>, grid: Grid<S>) -> Box<dyn Backend<S>>
where
    S: crate::cpu::CpuSpace,
    crate::cpu::dem::DemStepper<S>: HostStepper<S>,
{
    let (grains, walls) = (setup.grains.clone(), setup.walls(true).clone());
    let capacity = setup.scene.solver.contact_capacity as usize;
    match setup.params.solver {
        SolverKind::Dem | SolverKind::Spring => Box::new(CpuDemBackend::new(grains, walls, grid, capacity, setup.dem)),
        SolverKind::Impulse => Box::new(CpuImpulseBackend::new(grains, walls, grid, capacity, setup.impulse)),
        _ => Box::new(CpuBackend::new(grains, walls, grid, capacity)),
    }
}

/// The CPU backend of `start`'s solver.
pub fn cpu_backend_from(start: &Start<'_>) -> Box<dyn Backend> {
    let (grains, walls) = (start.grains.clone(), start.walls.clone());
    if matches!(start.solver, SolverKind::Dem | SolverKind::Spring) {
        Box::new(CpuDemBackend::new(grains, walls, start.grid, start.capacity, start.dem))
    } else if start.solver == SolverKind::Impulse {
        Box::new(CpuImpulseBackend::new(
            grains,
            walls,
            start.grid,
            start.capacity,
            start.impulse,
        ))
    } else {
        Box::new(CpuBackend::new(grains, walls, start.grid, start.capacity))
    }
}

/// The GPU backend of `setup`'s solver on `ctx`; one that rebuilds itself
/// when grains are added ([`regrow::Regrown`]) when the scene has emitters.
pub fn gpu_backend<S: GpuRun>(setup: &Setup<S>, grid: Grid<S>, ctx: GpuContext) -> Result<Box<dyn Backend<S>>> {
    let start = Start::of(setup, grid);
    if setup.emitters.is_empty() {
        S::gpu_backend_from(&start, ctx)
    } else {
        Ok(Box::new(regrow::Regrown::new(&start, ctx)?))
    }
}

/// A space the GPU backends run in: the backend of a start on a device.
pub trait GpuRun: crate::gpu::space::GpuSpace {
    /// The GPU backend of `start`'s solver on `ctx`.
    fn gpu_backend_from(start: &Start<'_, Self>, ctx: GpuContext) -> Result<Box<dyn Backend<Self>>>;
}

/// Every GPU stepper of the plane, and bisection ([`gpu_backend_from`]).
impl GpuRun for Dim2 {
    fn gpu_backend_from(start: &Start<'_>, ctx: GpuContext) -> Result<Box<dyn Backend>> {
        gpu_backend_from(start, ctx)
    }
}

/// The DEM and the spring model, and the NSCD solvers of 3D the GPU runs
/// (`scene::GPU_SOLVERS_3D`).
impl GpuRun for Dim3 {
    fn gpu_backend_from(start: &Start<'_, Dim3>, ctx: GpuContext) -> Result<Box<dyn Backend<Dim3>>> {
        let (grains, walls, grid, k) = (start.grains.clone(), start.walls.clone(), start.grid, start.capacity);
        if matches!(start.solver, SolverKind::Dem | SolverKind::Spring) {
            let gpu = crate::gpu::dem::GpuDemBackend::new(ctx, grains, walls, grid, k, start.dem)?;
            Ok(Box::new(gpu))
        } else {
            Ok(Box::new(crate::gpu::GpuBackend::new(ctx, grains, walls, grid, k)?))
        }
    }
}

/// The GPU backend of `start`'s solver on `ctx`; a [`BisectBackend`] (NSCD)
/// or [`DemBisectBackend`] when `HOURGLASS_GPU_FROM` names a stage of the
/// solver's plan (debugging).
pub fn gpu_backend_from(start: &Start<'_>, ctx: GpuContext) -> Result<Box<dyn Backend>> {
    let (grains, walls) = (start.grains.clone(), start.walls.clone());
    let dem = matches!(start.solver, SolverKind::Dem | SolverKind::Spring);
    let from = bisect::gpu_from_env()?
        .map(|from| bisect::check_boundary(from, dem))
        .transpose()?;
    if dem {
        let (grid, k) = (start.grid, start.capacity);
        let gpu = crate::gpu::dem::GpuDemBackend::new(ctx, grains.clone(), walls.clone(), grid, k, start.dem)?;
        Ok(match from {
            Some(from) => Box::new(DemBisectBackend::new(grains, walls, grid, gpu, from)),
            None => Box::new(gpu),
        })
    } else {
        let gpu = crate::gpu::GpuBackend::new(ctx, grains.clone(), walls.clone(), start.grid, start.capacity)?;
        Ok(match from {
            Some(from) => Box::new(BisectBackend::new(grains, walls, start.grid, gpu, from)),
            None => Box::new(gpu),
        })
    }
}

/// Why a scene with `[[motion]]` is refused on `--backend gpu` by a solver
/// whose GPU path keeps its walls still.
pub const MOTION_ON_GPU: &str = "moving walls run on the CPU backend only with this solver (use --backend cpu)";

/// Whether the GPU path of `solver` moves walls (`[[motion]]`): the NSCD
/// solvers, the DEM and the spring model do.
pub fn moves_walls_on_gpu(solver: SolverKind) -> bool {
    solver.nscd() || matches!(solver, SolverKind::Dem | SolverKind::Spring)
}

/// The refusal of a solver that `choice` cannot run (a CPU-only solver on
/// `--backend gpu`), naming the key; checked by [`select`] and, before
/// anything is written, by the callers that write a result directory.
pub fn refuse_unrunnable(setup: &Setup, choice: BackendChoice) -> Result<()> {
    let solver = setup.params.solver;
    if choice == BackendChoice::Gpu && runs_on_gpu(solver) && setup.moves_walls() && !moves_walls_on_gpu(solver) {
        return Err(Error::field(&setup.scene.origin, "motion", MOTION_ON_GPU));
    }
    if choice != BackendChoice::Gpu || runs_on_gpu(solver) {
        return Ok(());
    }
    match solver {
        // Its sequential sweep of impulses has no GPU stage (yet).
        SolverKind::Impulse => Err(Error::field(
            &setup.scene.origin,
            "solver.kind",
            crate::scene::IMPULSE_ON_GPU,
        )),
        SolverKind::Crowd => Err(Error::field(
            &setup.scene.origin,
            "solver.kind",
            crate::scene::CROWD_ON_GPU,
        )),
        _ => Err(Error::NotImplemented {
            what: format!(
                "solver `{}` on the GPU backend (the GPU runs jacobi, colored, uzawa, apgd, dem and spring)",
                solver.name()
            ),
        }),
    }
}

/// The one backend policy. `cpu` always runs on the CPU; `gpu` takes any
/// adapter (lavapipe too) and refuses, before anything is written, a solver
/// the GPU does not run; `auto` takes a real GPU when the solver runs there
/// and the CPU otherwise. Every fallback is said in `notices`.
pub fn select(
    setup: &Setup,
    grid: Grid,
    choice: BackendChoice,
    device: Device<'_>,
    notices: &mut Vec<String>,
) -> Result<Box<dyn Backend>> {
    let solver = setup.params.solver;
    if choice == BackendChoice::Cpu {
        return Ok(cpu_backend(setup, grid));
    }
    if !runs_on_gpu(solver) {
        refuse_unrunnable(setup, choice)?;
        notices.push(format!(
            "backend auto: solver `{}` runs only on the CPU; running on the CPU",
            solver.name()
        ));
        return Ok(cpu_backend(setup, grid));
    }
    if setup.moves_walls() && !moves_walls_on_gpu(solver) {
        refuse_unrunnable(setup, choice)?;
        notices.push(format!(
            "backend auto: moving walls with solver `{}` run only on the CPU; running on the CPU",
            solver.name()
        ));
        return Ok(cpu_backend(setup, grid));
    }
    match gpu_context(choice, device, notices)? {
        Some(ctx) => gpu_backend(setup, grid, ctx),
        None => Ok(cpu_backend(setup, grid)),
    }
}

/// The device of a run whose solver runs on the GPU: `gpu` takes any
/// adapter (none is an error), `auto` a real GPU only (None: the CPU, said
/// in `notices`, as is the GPU it takes).
fn gpu_context(choice: BackendChoice, device: Device<'_>, notices: &mut Vec<String>) -> Result<Option<GpuContext>> {
    let ctx = match (choice, device) {
        (BackendChoice::Gpu, Device::Shared(ctx)) => Some(ctx.clone()),
        (BackendChoice::Gpu, Device::Open) => {
            Some(GpuContext::new(AdapterChoice::Any)?.ok_or_else(|| Error::Gpu("no GPU adapter found".to_string()))?)
        }
        (_, Device::Shared(ctx)) if ctx.is_hardware() => Some(ctx.clone()),
        (_, Device::Shared(ctx)) => {
            notices.push(format!(
                "backend auto: {} is a software adapter; running on the CPU (use --backend gpu to force it)",
                ctx.adapter_name()
            ));
            None
        }
        (_, Device::Open) => {
            let ctx = GpuContext::new(AdapterChoice::Auto)?;
            if ctx.is_none() {
                notices.push("backend auto: no GPU adapter found; running on the CPU".to_string());
            }
            ctx
        }
    };
    if let Some(ctx) = &ctx
        && choice == BackendChoice::Auto
    {
        notices.push(format!("backend auto: running on the GPU ({})", ctx.adapter_name()));
    }
    Ok(ctx)
}

/// The refusal of what `choice` cannot run in 3D: a solver the GPU does
/// not run there (`scene::GPU_SOLVERS_3D`) on `--backend gpu` (naming
/// `solver.kind`). Checked by [`select_solid`] before any backend is built.
pub fn refuse_unrunnable_solid(setup: &Setup<Dim3>, choice: BackendChoice) -> Result<()> {
    if choice != BackendChoice::Gpu {
        return Ok(());
    }
    if !crate::scene::GPU_SOLVERS_3D.contains(&setup.params.solver) {
        return Err(Error::field(
            &setup.scene.origin,
            "solver.kind",
            crate::scene::SOLID_ON_GPU,
        ));
    }
    Ok(())
}

/// The backend policy of [`select`] for a scene of 3D: the GPU runs the
/// solvers of `scene::GPU_SOLVERS_3D` (rebuilt over the same device as
/// emitters add spheres); `auto` runs every other solver on the CPU and
/// says so in `notices`.
pub fn select_solid(
    setup: &Setup<Dim3>,
    grid: Grid<Dim3>,
    choice: BackendChoice,
    device: Device<'_>,
    notices: &mut Vec<String>,
) -> Result<Box<dyn Backend<Dim3>>> {
    if choice == BackendChoice::Cpu {
        return Ok(cpu_backend_of(setup, grid));
    }
    refuse_unrunnable_solid(setup, choice)?;
    let solver = setup.params.solver;
    if !crate::scene::GPU_SOLVERS_3D.contains(&solver) {
        notices.push(format!(
            "backend auto: solver `{}` runs only on the CPU in 3D; running on the CPU",
            solver.name()
        ));
        return Ok(cpu_backend_of(setup, grid));
    }
    match gpu_context(choice, device, notices)? {
        Some(ctx) => gpu_backend(setup, grid, ctx),
        None => Ok(cpu_backend_of(setup, grid)),
    }
}
