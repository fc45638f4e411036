//! [`GpuDemBackend`]: the soft-sphere DEM step on the GPU, state resident, on
//! the shared [`Pipeline`] (grains, binning, detection, counters, reduction)
//! plus its own stages and buffers.
//!
//! ```text
//!   pipeline: pos vel radius inv_mass id, bins, one contact list (rebuilt every step); a law
//!             with history (model::law) adds a second, the last step's lists, which
//!             WarmStart reads after every Detect and the end of each step overwrites
//!   own:      ang_vel force torque (n each), law (uniform)
//!   stats:    [-, max |v|^2 bits, overflow, contacts] summed over a check window
//!
//!   one step, one submit, no wait (model::dem_plan mapped to StepStages), KDK (velocity Verlet, leapfrog):
//!     [ClearCells BinCount PrefixSum CursorCopy BinScatter BinSort Detect DemForce ClearStats]  (priming)
//!     DemKickDrift | ClearCells BinCount PrefixSum CursorCopy BinScatter BinSort Detect DemForce DemKick
//!   semi-implicit Euler:
//!     ClearCells BinCount PrefixSum CursorCopy BinScatter BinSort Detect DemForce DemKick DemKickDrift
//! ```
//! Nothing is read back per step: every [`CHECK_EVERY`] steps the counters of
//! the window are read (overflow summed, contacts averaged, the largest speed),
//! and steps in between report no overflow and the last known contact count.
//! The force of the previous step is kept on the device (velocity Verlet needs
//! it for the first half kick); a change of walls recomputes it before the next
//! drift, as on the CPU (`cpu::dem::DemStepper`).
//!
//! Moving walls ([`GpuDemBackend::move_walls`]): the pipeline's wall buffers
//! hold the walls at the step's start, with their velocities, which every
//! wall contact carries (`Contact::wall_vel`) into the force. The detection
//! after the drift ([`StepStage::DetectAhead`]) reads the walls a step ahead
//! (`model::walls::walls_ahead` of the step's dt, found on the host and
//! written before the step), so the force the next step starts from belongs
//! to one instant, grains and walls, as on the CPU. Still walls record the
//! step of still walls.

use crate::error::Result;
use crate::gpu::buffers::{read, storage, storage_zeroed, uniform};
use crate::gpu::pipeline::{INV_MASS, POS, Pipeline, RADIUS, VEL};
use crate::gpu::space::GpuSpace;
use crate::gpu::step::{Recorder, StepStage, record, stages_of};
use crate::gpu::{GpuContext, Kernel, STAT_CONTACTS, STAT_OVERFLOW, STAT_OVERLAP, STAT_SPEED2, STAT_WORDS, Stage};
use crate::model::plan::{DEM_STAGES, Stage as PlanStage, split};
use crate::model::space::Coords;
use crate::model::{
    ContactLists, DemLaw, DemParams, Dim2, Grains, Grid, Phase, Region, StepParams, StepStats, Totals, dem_plan, law,
};

/// Steps between two reads of the step counters.
pub const CHECK_EVERY: u32 = 50;

/// The DEM buffers beside the pipeline's (see the module doc).
pub struct DemBuffers {
    pub law: wgpu::Buffer,
    pub ang_vel: wgpu::Buffer,
    pub force: wgpu::Buffer,
    pub torque: wgpu::Buffer,
}

/// The DEM stages' pipelines: each entry point's contract and CPU twin.
struct Kernels {
    /// `dem_force::main`: force and torque of every grain gathered from its
    /// own contact list (law: the `DemLaw` uniform). Twin `cpu::dem::force::dem_force`.
    force: Kernel,
    /// `dem_integrate::kick_drift`: velocity Verlet's first half kick and
    /// drift. Twin `cpu::dem::integrate::kick_drift`.
    kick_drift: Kernel,
    /// `dem_integrate::kick`: the second half kick, which also folds max |v|^2
    /// into stats[STAT_SPEED2]. Twin `cpu::dem::integrate::kick`.
    kick: Kernel,
}

/// The walls a step ahead of the step's walls: what the detection after the
/// drift reads while the walls move.
struct Ahead<S: GpuSpace> {
    /// Host scratch: `GpuSpace::walls_ahead` of the step's walls.
    walls: S::Walls,
    segments: wgpu::Buffer,
    corners: wgpu::Buffer,
    /// `detect::main` on lists 0 against `segments` and `corners`.
    detect: wgpu::BindGroup,
}

impl<S: GpuSpace> Ahead<S> {
    /// Buffers as large as `walls`' (the pipeline's walls), and their detection group.
    fn new(core: &Pipeline<S>, walls: &S::Walls) -> Ahead<S> {
        let (faces, ridges) = S::wall_bodies(walls);
        let segments = storage(&core.ctx, &core.label("segments.ahead"), &faces);
        let corners = storage(&core.ctx, &core.label("corners.ahead"), &ridges);
        let detect = core.detect_group(0, &segments, &corners);
        Ahead {
            walls: walls.clone(),
            segments,
            corners,
            detect,
        }
    }

    /// `walls` moved on by `dt` into the buffers.
    fn write(&mut self, core: &Pipeline<S>, walls: &S::Walls, dt: f32) {
        S::walls_ahead(walls, dt, &mut self.walls);
        let (faces, ridges) = S::wall_bodies(&self.walls);
        let write = |buffer: &wgpu::Buffer, bytes: &[u8]| {
            if !bytes.is_empty() {
                core.ctx.queue.write_buffer(buffer, 0, bytes);
            }
        };
        write(&self.segments, bytemuck::cast_slice(&faces));
        write(&self.corners, bytemuck::cast_slice(&ridges));
    }
}

struct Groups {
    force: wgpu::BindGroup,
    kick_drift: wgpu::BindGroup,
    kick: wgpu::BindGroup,
}

/// The DEM (and the spring model) on the GPU, in the space `S`.
pub struct GpuDemBackend<S: GpuSpace = Dim2> {
    core: Pipeline<S>,
    kernels: Kernels,
    pub bufs: DemBuffers,
    groups: Groups,
    dem: DemParams,
    phase: Phase,
    law: DemLaw,
    host: Grains<S>,
    host_fresh: bool,
    /// `force`, `torque` belong to the current positions and walls.
    primed: bool,
    /// Steps since the counters were last read.
    window: u32,
    contacts: u64,
    steps: u64,
    /// Steps between reads of the counters ([`CHECK_EVERY`]; 1 = every step).
    pub check_every: u32,
    /// A law with history: `warm_start::main` of lists 0 from lists 1
    /// (each contact's history from the last step's, see `state::Kernels::warm_start`).
    history: Option<(Kernel, wgpu::BindGroup)>,
    /// The walls at the step's start, with their velocities.
    walls: S::Walls,
    /// While the walls move: the walls a step ahead.
    ahead: Option<Ahead<S>>,
}

impl<S: GpuSpace> GpuDemBackend<S> {
    /// Upload grains and walls; fails with [`crate::Error::Gpu`] naming the
    /// adapter limit a buffer exceeds.
    pub fn new(
        ctx: GpuContext,
        grains: Grains<S>,
        walls: S::Walls,
        grid: Grid<S>,
        capacity: usize,
        dem: DemParams,
    ) -> Result<GpuDemBackend<S>> {
        let keeps_history = crate::model::law::spec(dem.law).history > 0;
        let lists = 1 + usize::from(keeps_history);
        // 3D keeps its spheres in id order on the device: its totals pair
        // the lists read back with the spheres in id order.
        let grains = if S::DIM == 3 { grains.into_id_order() } else { grains };
        let core = Pipeline::new(ctx, "hourglass.dem", &grains, &walls, grid, capacity, lists)?;
        let (ctx, n) = (&core.ctx, core.n);
        let kernel = |stage, entry| Kernel::new(ctx, &core.cfg, stage, entry);
        let kernels = Kernels {
            force: kernel(Stage::DemForce, "main"),
            kick_drift: kernel(Stage::DemIntegrate, "kick_drift"),
            kick: kernel(Stage::DemIntegrate, "kick"),
        };
        let phase = Phase::Discharge;
        let law = law(&dem, phase, 0.0);
        let bufs = DemBuffers {
            law: uniform(ctx, &core.label("law"), &law),
            ang_vel: storage(ctx, &core.label("ang_vel"), &grains.ang_vel),
            force: storage_zeroed::<S::Vec>(ctx, &core.label("force"), n),
            torque: storage_zeroed::<S::Spin>(ctx, &core.label("torque"), n),
        };
        let groups = Self::groups(&core, &kernels, &bufs);
        let ahead = S::moving(&walls).then(|| Ahead::new(&core, &walls));
        let history = keeps_history.then(|| {
            let (warm, b) = (kernel(Stage::WarmStart, "main"), &core.bufs);
            let lists = [("params", &b.params), ("count", &b.count[0]), ("slots", &b.slots[0])];
            let prev = [("prev_count", &b.count[1]), ("prev_slots", &b.slots[1])];
            let group = warm.group(ctx, &[&lists[..], &prev[..]].concat());
            (warm, group)
        });
        Ok(GpuDemBackend {
            core,
            kernels,
            bufs,
            groups,
            dem,
            phase,
            law,
            host: grains,
            host_fresh: true,
            primed: false,
            window: 0,
            contacts: 0,
            steps: 0,
            check_every: CHECK_EVERY,
            history,
            walls,
            ahead,
        })
    }

    fn groups(core: &Pipeline<S>, k: &Kernels, own: &DemBuffers) -> Groups {
        let (ctx, b) = (&core.ctx, &core.bufs);
        let g = &b.grains;
        // What both half kicks read and write.
        let kick = [
            ("params", &b.params),
            ("vel", &g[VEL]),
            ("ang_vel", &own.ang_vel),
            ("force", &own.force),
            ("torque", &own.torque),
            ("radius", &g[RADIUS]),
            ("inv_mass", &g[INV_MASS]),
        ];
        let force = [
            ("params", &b.params),
            ("law", &own.law),
            ("count", &b.count[0]),
            ("slots", &b.slots[0]),
            ("radius", &g[RADIUS]),
            ("inv_mass", &g[INV_MASS]),
            ("vel", &g[VEL]),
            ("ang_vel", &own.ang_vel),
            ("force", &own.force),
            ("torque", &own.torque),
        ];
        Groups {
            force: k.force.group(ctx, &force),
            kick_drift: k.kick_drift.group(ctx, &[&kick[..], &[("pos", &g[POS])][..]].concat()),
            kick: k.kick.group(ctx, &[&kick[..], &[("stats", &b.stats)][..]].concat()),
        }
    }

    pub fn context(&self) -> &GpuContext {
        &self.core.ctx
    }

    /// The DEM parameters the backend was built with.
    pub fn dem(&self) -> DemParams {
        self.dem
    }

    /// Contact slots per grain.
    pub fn capacity(&self) -> usize {
        self.core.capacity
    }

    /// The GPU stages of the step's plan (`model::dem_plan`: priming when the
    /// force is stale, then the integrator's stages) from plan stage `from`
    /// on (`model::plan::split`), each mapped by [`stages_of`], a detection
    /// after the drift made [`StepStage::DetectAhead`] while the walls move;
    /// for a law with history, a warm start of the lists from the last
    /// step's before every force.
    fn plan(&mut self, from: PlanStage) -> Vec<StepStage> {
        let plan = dem_plan(&self.dem, self.primed);
        // Velocity Verlet keeps this step's force for the next; semi-implicit
        // Euler's belongs to the old positions. The speed Euler's kick folds
        // into the counters is the half-kicked one.
        self.primed = self.dem.integrator.kdk();
        let start = split(&plan, &DEM_STAGES, from);
        let drift = plan.iter().position(|&s| s == PlanStage::DemKickDrift);
        let moving = S::moving(&self.walls);
        let mut stages = Vec::new();
        for (k, &stage) in plan.iter().enumerate().skip(start) {
            let ahead = moving && drift.is_some_and(|d| k > d);
            stages.extend(stages_of(stage, false).iter().map(|&s| match s {
                StepStage::Detect if ahead => StepStage::DetectAhead,
                s => s,
            }));
        }
        if self.history.is_some() {
            let mut k = 0;
            while let Some(f) = stages[k..].iter().position(|s| *s == StepStage::DemForce) {
                stages.insert(k + f, StepStage::WarmStart);
                k += f + 2;
            }
        }
        stages
    }

    /// Upload the law and the parameters where they changed.
    fn write_params(&mut self, p: &StepParams) {
        let law = law(&self.dem, self.phase, p.dt);
        if law != self.law {
            self.law = law;
            self.core
                .ctx
                .queue
                .write_buffer(&self.bufs.law, 0, bytemuck::bytes_of(&law));
        }
        let q = &mut self.core.params;
        if (q.gravity, q.dt, q.alert) != (p.gravity, p.dt, p.alert) {
            q.gravity = p.gravity;
            q.dt = p.dt;
            q.inv_dt = 1.0 / p.dt;
            q.alert = p.alert;
            self.core.write_params();
        }
    }

    /// Read and clear the counters of the window.
    fn read_stats(&mut self) -> Result<[u32; STAT_WORDS as usize]> {
        let words = self
            .core
            .submit_and_read_stats(self.core.encoder("hourglass.dem.stats"))?;
        let mut enc = self.core.encoder("hourglass.dem.stats");
        enc.clear_buffer(&self.core.bufs.stats, 0, None);
        self.core.ctx.submit(enc.finish());
        Ok(words)
    }
}

impl<S: GpuSpace> Recorder for GpuDemBackend<S> {
    fn dispatch(&self, stage: StepStage, ps: &mut wgpu::ComputePass) {
        let (g, n) = (&self.groups, self.core.n as u32);
        match stage {
            StepStage::DemKickDrift => self.kernels.kick_drift.dispatch(ps, &g.kick_drift, n),
            StepStage::DemForce => self.kernels.force.dispatch(ps, &g.force, n),
            StepStage::DemKick => self.kernels.kick.dispatch(ps, &g.kick, n),
            // Planned only while the walls move.
            StepStage::DetectAhead => {
                if let Some(ahead) = &self.ahead {
                    self.core.kernels.detect.dispatch(ps, &ahead.detect, n);
                }
            }
            // Planned only for a law with history.
            StepStage::WarmStart => {
                if let Some((warm, group)) = &self.history {
                    warm.dispatch(ps, group, n);
                }
            }
            shared => self.core.dispatch(shared, 0, ps),
        }
    }

    fn encode(&mut self, stage: StepStage, mut enc: wgpu::CommandEncoder) -> Result<wgpu::CommandEncoder> {
        self.core.encode(stage, &mut enc);
        Ok(enc)
    }
}

/// The step itself and what [`crate::backend::Backend`] needs of it.
impl<S: GpuSpace> GpuDemBackend<S> {
    /// One DEM step (see the module doc).
    pub fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        self.step_from(p, PlanStage::DemPrime)
    }

    /// The stages of the step's plan from `from` on (the whole step from
    /// `dem_prime`); the output of the stages before it must have been
    /// uploaded.
    pub fn step_from(&mut self, p: &StepParams, from: PlanStage) -> Result<StepStats> {
        self.write_params(p);
        if S::moving(&self.walls) {
            let ahead = self.ahead.get_or_insert_with(|| Ahead::new(&self.core, &self.walls));
            ahead.write(&self.core, &self.walls, p.dt);
        }
        let stages = self.plan(from);
        let enc = self.core.encoder("hourglass.dem.step");
        let mut enc = record(self, &stages, enc)?;
        if self.history.is_some() {
            // The step's force is final: the next step's history starts from it.
            let b = &self.core.bufs;
            enc.copy_buffer_to_buffer(&b.count[0], 0, &b.count[1], 0, b.count[0].size());
            enc.copy_buffer_to_buffer(&b.slots[0], 0, &b.slots[1], 0, b.slots[0].size());
        }
        self.core.ctx.submit(enc.finish());
        self.steps += 1;
        self.window += 1;
        self.host_fresh = false;
        let mut stats = StepStats {
            converged: true,
            contacts: self.contacts,
            ..StepStats::default()
        };
        if self.window >= self.check_every.max(1) {
            let words = self.read_stats()?;
            self.contacts = u64::from(words[STAT_CONTACTS as usize]) / u64::from(self.window);
            stats.contacts = self.contacts;
            stats.overflow = u64::from(words[STAT_OVERFLOW as usize]);
            stats.max_displacement = f32::from_bits(words[STAT_SPEED2 as usize]).sqrt() * p.dt;
            // The deepest overlap of the steps since the last read.
            stats.max_overlap = f32::from_bits(words[STAT_OVERLAP as usize]);
            self.window = 0;
        }
        Ok(stats)
    }

    /// Replace the walls (the gate opens): the kept force is recomputed
    /// before the next drift, and a law's history starts afresh.
    pub fn set_walls(&mut self, walls: &S::Walls) {
        self.core.set_walls(walls);
        self.walls = walls.clone();
        self.ahead = S::moving(walls).then(|| Ahead::new(&self.core, walls));
        self.primed = false;
    }

    /// The same walls at a new pose with their velocities over the next
    /// step (`Backend::move_walls`): written over the wall buffers, the
    /// kept force, the lists and the history stay, as on the CPU
    /// (`CpuHostBackend::move_walls`).
    ///
    /// # Panics
    /// If `walls` does not have as many segments and corners as the walls
    /// uploaded last.
    pub fn move_walls(&mut self, walls: &S::Walls) {
        S::move_walls(&mut self.core, walls);
        self.walls.clone_from(walls);
    }

    pub fn grains(&mut self) -> Result<&Grains<S>> {
        if !self.host_fresh {
            self.host = self.core.read_grains(Some(&self.bufs.ang_vel), None)?;
            self.host_fresh = true;
        }
        Ok(&self.host)
    }

    /// The grains (as [`Self::grains`]) with the walls of the step.
    pub fn grains_and_walls(&mut self) -> Result<(&Grains<S>, &S::Walls)> {
        self.grains()?;
        Ok((&self.host, &self.walls))
    }

    /// The contact lists of the last detection (this step's, with the
    /// history a law keeps), read back.
    pub fn lists(&self) -> Result<ContactLists<S>> {
        let (ctx, n, k) = (&self.core.ctx, self.core.n, self.core.capacity);
        let size = std::mem::size_of::<crate::model::Contact<S>>();
        let bytes: Vec<u8> = read(ctx, &self.core.bufs.slots[0], n * k * size)?;
        Ok(ContactLists {
            capacity: k,
            count: read(ctx, &self.core.bufs.count[0], n)?,
            slots: S::contacts(&bytes),
        })
    }

    pub fn set_phase(&mut self, phase: Phase) {
        self.phase = phase;
    }

    pub fn max_angular_speed(&mut self) -> Result<f32> {
        let w: Vec<S::Spin> = read(&self.core.ctx, &self.bufs.ang_vel, self.core.n)?;
        Ok(w.iter().fold(0.0f32, |m, w| m.max(w.norm())))
    }
}

/// The plane's totals: the device's reduction.
impl GpuDemBackend {
    pub fn totals(&mut self, region: &Region) -> Result<Totals> {
        self.core.totals(region, 0)
    }
}

/// Bisection: the CPU's output of the plan stages before a boundary, put where
/// the GPU stages after it read it ([`GpuDemBackend::step_from`]).
impl GpuDemBackend {
    fn write<T: bytemuck::Pod>(&self, buffer: &wgpu::Buffer, data: &[T]) {
        if !data.is_empty() {
            self.core.ctx.queue.write_buffer(buffer, 0, bytemuck::cast_slice(data));
        }
    }

    /// Replace the device grains (pos, vel, spins) and the kept force and
    /// torque with the host's.
    pub fn upload_state(&mut self, grains: &Grains, force: &[[f32; 2]], torque: &[f32]) {
        let g = &self.core.bufs.grains;
        self.write(&g[POS], &grains.pos);
        self.write(&g[VEL], &grains.vel);
        self.write(&self.bufs.ang_vel, &grains.ang_vel);
        if force.len() == grains.len() && torque.len() == grains.len() {
            self.write(&self.bufs.force, force);
            self.write(&self.bufs.torque, torque);
        }
        self.host_fresh = false;
    }

    /// This step's contact lists (capacity K), as the CPU's detection left them.
    pub fn upload_lists(&self, lists: &ContactLists) {
        self.write(&self.core.bufs.count[0], &lists.count);
        self.write(&self.core.bufs.slots[0], &lists.slots);
    }

    /// The kept force (N/m) and torque (N), per grain.
    pub fn read_force(&self) -> Result<(Vec<[f32; 2]>, Vec<f32>)> {
        let n = self.core.n;
        Ok((
            read(&self.core.ctx, &self.bufs.force, n)?,
            read(&self.core.ctx, &self.bufs.torque, n)?,
        ))
    }
}
