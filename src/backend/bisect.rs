//! [`BisectBackend`] (NSCD) and [`DemBisectBackend`] (DEM, spring): the CPU
//! runs a step's plan (`model::plan`) up to a named stage and the GPU runs it
//! from there on (vello's `force_gpu_from`), to find the stage at which the
//! two backends start to disagree. Any stage of the model's plan is a
//! boundary; a stage the step does not run hands over at the next one it runs
//! (`model::plan::split`).
//!
//! ```text
//!   each step:  host state -> CPU: plan stages before the boundary -> upload
//!               -> GPU: plan stages from the boundary on -> read back
//!   NSCD uploads: grains (+ vel_free after free_velocity/cohesion, spin_free
//!                 after spin_free, lists and counters after detect)
//!   DEM uploads:  grains, force, torque (+ lists after detect or dem_prime)
//! ```
//! Every step starts from the host grains (the GPU's result of the last step,
//! read back), so the GPU never reorders and indices are ids. Warm start
//! reads last step's impulses where that step solved them: on the device
//! while the GPU warm-starts, read back into the CPU stepper when the CPU
//! warm-starts and the GPU solved; the DEM's kept force is read back every
//! step. Pick the boundary in code ([`BisectBackend::new`],
//! [`DemBisectBackend::new`]) or from `HOURGLASS_GPU_FROM=<stage>`
//! ([`gpu_from_env`]); tests/gpu_bisect.rs runs every boundary of both
//! plans against the pure CPU and pure GPU steps. A debugging tool: it reads
//! the grains back every step.

use super::{Backend, BackendKind};
use crate::cpu::CpuStepper;
use crate::cpu::dem::DemStepper;
use crate::cpu::reduce::reduce;
use crate::error::Result;
use crate::gpu::GpuBackend;
use crate::gpu::dem::GpuDemBackend;
use crate::model::plan::{self, Stage};
use crate::model::{DemParams, Grains, Grid, Phase, Region, StepParams, StepStats, Totals, Walls};

/// The variable that names the first stage the GPU runs.
pub const GPU_FROM: &str = "HOURGLASS_GPU_FROM";

/// `HOURGLASS_GPU_FROM`: None when unset or empty, an error naming the
/// variable and every stage name when it names no stage (a typo must not
/// silently run the plain GPU step).
pub fn gpu_from_env() -> Result<Option<Stage>> {
    match std::env::var(GPU_FROM) {
        Ok(v) if !v.is_empty() => Stage::parse_named(&v, GPU_FROM).map(Some),
        _ => Ok(None),
    }
}

/// The adapter of a bisect backend: the GPU's and where it takes over.
fn adapter(ctx: &crate::gpu::GpuContext, from: Stage) -> String {
    format!("{} (CPU before {})", ctx.adapter_name(), from.name())
}

/// CPU stages before [`BisectBackend::from`], GPU stages from it on.
pub struct BisectBackend {
    /// The grains between steps (id order).
    pub grains: Grains,
    pub walls: Walls,
    pub cpu: CpuStepper,
    pub gpu: GpuBackend,
    /// The first stage the GPU runs.
    pub from: Stage,
    /// The last step's solve ran on the CPU (its lists are the step's).
    cpu_solved: bool,
}

impl BisectBackend {
    /// `gpu` must hold `grains` as uploaded (a fresh [`GpuBackend`] of them).
    pub fn new(grains: Grains, walls: Walls, grid: Grid, gpu: GpuBackend, from: Stage) -> Self {
        let capacity = gpu.device_grains().capacity as usize;
        let mut gpu = gpu;
        gpu.reorder_every = 0;
        BisectBackend {
            grains: grains.into_id_order(),
            walls,
            cpu: CpuStepper::new(grid, capacity),
            gpu,
            from,
            cpu_solved: false,
        }
    }

    /// One step: the CPU stages before `from`, their output uploaded, the GPU stages after.
    pub fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        let p = &p.resolved(true);
        let (cpu_stats, ran) = self.cpu.step_before(&mut self.grains, &self.walls, p, self.from)?;
        self.upload(&ran);
        let gpu_stats = self.gpu.step_from(p, self.from)?;
        self.grains = self.gpu.grains()?.clone();
        self.cpu_solved = ran.contains(&Stage::Solve);
        if ran.contains(&Stage::WarmStart) && !self.cpu_solved {
            // The CPU's next warm start reads the impulses the GPU solved.
            self.cpu.restore_contacts(self.gpu.read_lists()?);
        }
        Ok(if self.cpu_solved { cpu_stats } else { gpu_stats })
    }

    /// The output of the CPU stages `ran` where the GPU stages read it.
    fn upload(&mut self, ran: &[Stage]) {
        let (cpu, gpu) = (&self.cpu, &mut self.gpu);
        if ran.contains(&Stage::FreeVelocity) {
            gpu.upload_vel_free(cpu.vel_free());
        }
        if ran.contains(&Stage::SpinFree) {
            gpu.upload_spin_free(cpu.spin_free());
        }
        if ran.contains(&Stage::Detect) {
            // The step's lists, closed by `step_before`.
            let l = cpu.contacts();
            gpu.upload_lists(l);
            gpu.upload_counters(l.overflow(), l.distinct(), l.max_overlap());
        } else if !ran.is_empty() {
            // The GPU's prologue, which clears the counters, does not run.
            gpu.upload_counters(0, 0, 0.0);
        }
        gpu.upload_grains(&self.grains);
    }
}

impl Backend for BisectBackend {
    fn transfers(&self) -> Option<crate::gpu::context::Transfers> {
        Some(self.gpu.context().transfers())
    }
    fn kind(&self) -> BackendKind {
        BackendKind::Gpu
    }
    fn adapter(&self) -> String {
        adapter(self.gpu.context(), self.from)
    }
    fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        BisectBackend::step(self, p)
    }
    fn set_walls(&mut self, walls: &Walls) {
        self.walls = walls.clone();
        self.cpu.reset_warm_start();
        self.gpu.set_walls(walls);
    }
    fn move_walls(&mut self, walls: &Walls) {
        self.walls.clone_from(walls);
        self.gpu.move_walls(walls);
    }
    fn grains(&mut self) -> Result<&Grains> {
        Ok(&self.grains)
    }
    fn totals(&mut self, region: &Region) -> Result<Totals> {
        if self.cpu_solved {
            // The CPU's lists hold the step's final impulses.
            Ok(reduce(&self.grains, self.cpu.contacts(), &self.walls, region))
        } else {
            self.gpu.totals(region)
        }
    }
}

/// The DEM (and spring) step: CPU stages before [`DemBisectBackend::from`],
/// GPU stages from it on.
pub struct DemBisectBackend {
    /// The grains between steps (the device's order).
    pub grains: Grains,
    pub walls: Walls,
    pub cpu: DemStepper,
    pub gpu: GpuDemBackend,
    /// The first stage the GPU runs.
    pub from: Stage,
}

impl DemBisectBackend {
    /// `gpu` must hold `grains` as uploaded (a fresh [`GpuDemBackend`] of
    /// them, with the same `dem`); its counters are read every step.
    pub fn new(grains: Grains, walls: Walls, grid: Grid, gpu: GpuDemBackend, from: Stage) -> Self {
        let dem: DemParams = gpu.dem();
        let capacity = gpu.capacity();
        let mut gpu = gpu;
        gpu.check_every = 1;
        DemBisectBackend {
            grains,
            walls,
            cpu: DemStepper::new(grid, capacity, dem),
            gpu,
            from,
        }
    }

    /// One step: the CPU stages before `from`, the state uploaded, the GPU
    /// stages after, the state read back. The contact counters are the
    /// detection's that ran the step's `detect`.
    pub fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        let (cpu_stats, ran) = self.cpu.step_before(&mut self.grains, &self.walls, p, Some(self.from));
        let cpu = &self.cpu;
        self.gpu.upload_state(&self.grains, &cpu.force, &cpu.torque);
        if ran.contains(&Stage::Detect) || ran.contains(&Stage::DemPrime) {
            self.gpu.upload_lists(&cpu.lists);
        }
        let mut stats = self.gpu.step_from(p, self.from)?;
        self.grains = self.gpu.grains()?.clone();
        (self.cpu.force, self.cpu.torque) = self.gpu.read_force()?;
        if ran.contains(&Stage::Detect) {
            (stats.contacts, stats.overflow) = (cpu_stats.contacts, cpu_stats.overflow);
            stats.max_overlap = cpu_stats.max_overlap;
        }
        stats.max_displacement = self.grains.max_speed() * p.dt;
        Ok(stats)
    }
}

impl Backend for DemBisectBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Gpu
    }
    fn adapter(&self) -> String {
        adapter(self.gpu.context(), self.from)
    }
    fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        DemBisectBackend::step(self, p)
    }
    fn set_walls(&mut self, walls: &Walls) {
        self.walls = walls.clone();
        self.cpu.invalidate();
        self.gpu.set_walls(walls);
    }
    /// The same walls at a new pose: the CPU stepper and the GPU keep their
    /// force and history (`Backend::move_walls`).
    fn move_walls(&mut self, walls: &Walls) {
        self.walls.clone_from(walls);
        self.gpu.move_walls(walls);
    }
    fn grains(&mut self) -> Result<&Grains> {
        Ok(&self.grains)
    }
    fn totals(&mut self, region: &Region) -> Result<Totals> {
        self.gpu.totals(region)
    }
    fn set_phase(&mut self, phase: Phase) {
        self.cpu.phase = phase;
        self.gpu.set_phase(phase);
    }
    fn max_angular_speed(&mut self) -> Result<f32> {
        Ok(crate::cpu::dem::max_angular_speed(&self.grains))
    }
    fn transfers(&self) -> Option<crate::gpu::context::Transfers> {
        Some(self.gpu.context().transfers())
    }
}

/// `from` as a boundary of the NSCD plan (`dem` false) or of the DEM plan,
/// or an error naming [`GPU_FROM`] and the plan's stages.
pub fn check_boundary(from: Stage, dem: bool) -> Result<Stage> {
    if dem {
        plan::check_boundary(from, &plan::DEM_STAGES, "DEM", GPU_FROM)
    } else {
        plan::check_boundary(from, &plan::NSCD_STAGES, "NSCD", GPU_FROM)
    }
}
