//! [`GpuBackend`]: the NSCD step (Jacobi, coloured, Uzawa and APGD solvers) on the
//! GPU, state resident between steps, on the shared [`Pipeline`].
//!
//! The step is the NSCD plan (`model::nscd_plan`, as on the CPU) mapped to a
//! list of [`StepStage`]s up front (`GpuBackend::plan`) and run by
//! [`super::step::record`], into few submits:
//! ```text
//!   submit 1: ClearStats [Reorder] FreeVelocity [SpinFree] ClearCells BinCount PrefixSum CursorCopy
//!             BinScatter BinSort Detect [Cohesion] [WarmStart] [Bounce] Gather [Color: submits per batch of rounds]
//!             Solve: CHECK iterations, residual_max, copy stats -> staging  (wait, read 16 bytes)
//!   submit 2..: CHECK more iterations + residual_max, while residual >= tol/dt and < itmax
//!   last:     [Mirror] [PredictGap Correct Shift] Integrate [IntegrateAngle]  (no wait)
//! ```
//! APGD (`shaders/apgd.wgsl`) iterates apgd_gather, apgd_contact and
//! apgd_momentum (the restart decided on the device, no host read), and its
//! Solve ends with one `jacobi_gather`: the iterations leave the velocities of
//! the extrapolated impulses, the step needs those of the final ones.
//! Friction (`StepParams::friction`, docs/nscd.md#coulomb-friction-and-rotation): `SpinFree` copies the
//! spins into `spin_free` at the start of the step, and the Jacobi, APGD and
//! coloured iterations and the gathers use their frictional pipelines (the
//! second of each [`super::Kernel::pair`]: tangential impulses, spins), and
//! `IntegrateAngle` the angles; the frictionless pipelines are untouched, so
//! mu = mu_wall = 0 runs the frictionless arithmetic alone. Uzawa refuses friction.
//! Split push-out (`overlap_iterations` > 0, as `cpu::CpuStepper::step`): the
//! solve runs with beta = 0 (main `Params`), then `PredictGap` copies this
//! step's lists with the predicted gap into the other lists (dead after warm
//! start), `Correct` runs `overlap_iterations` Jacobi iterations on the
//! pseudo-velocity `shift` with a second `Params` whose beta = overlap_relax,
//! and `Shift` moves pos += dt shift before `Integrate`. The CPU's early exit
//! (an iteration with no correction) changes nothing, so the GPU always runs
//! the full count.
//!
//! Convergence stays per step: the residual (largest |dP| W / omega of one
//! iteration, as on the CPU) is read back every `check_every` iterations
//! ([`CHECK_EVERY`] = 10 by default: one host round trip per 10 iterations, a
//! few µs of GPU work each on a large pile, against ~50 µs per sync), so the
//! GPU stops at the first multiple of `check_every` at which the CPU would
//! have stopped, or later; a step that reaches itmax reports converged = false.
//! A solver may end a batch sooner (`GpuSolver::before_batch`): coloured
//! NLGS also reads after a step's first iteration, where it decides its
//! over-relaxation (`model::solver::colored_sor`), and may stop there.
//!
//! Reorder: every [`REORDER_EVERY`] steps and after the walls change (the
//! gate opens), the per-grain arrays are permuted into the cell order of the
//! previous binning. Grain indices change, so warm start is simply skipped on
//! that step (cold start, as after the gate opens). [`GpuBackend::grains`] returns
//! the grains in id order, so callers never see the permutation.
//!
//! Bisection: [`GpuBackend::step_from`] runs only the plan's stages from a
//! given one on, after the `upload_*` methods put the CPU's output of the
//! stages before it on the device (`crate::backend::bisect` drives this).
//!
//! In 3D (`GpuBackend<Dim3>`) the same step runs the solvers of
//! `solver::SOLID_SOLVERS` (projected Jacobi, coloured NLGS and APGD, with
//! friction, and Uzawa), the cohesion, the forcing, restitution and the split push-out,
//! with vector spins and quaternion orientations; the spheres are uploaded
//! in id order and never reordered (the host's totals pair the lists read
//! back with the spheres in id order), and the totals are summed on the
//! host.

mod upload;

use super::pipeline::{ID, INV_MASS, POS, Pipeline, RADIUS, VEL};
use super::solver::{self, Batch, GpuSolver, Iteration, NscdSpace};
use super::state::{Buffers, Groups, Kernels, wide};
use super::step::{Recorder, StepStage, record, stages_of};
use super::view::DeviceGrains;
use super::{
    GpuContext, Params, STAT_CONTACTS, STAT_OVERFLOW, STAT_OVERLAP, STAT_RESIDUAL, STAT_SPEED_HIST, STAT_SPEED2, Stage,
    pass,
};
use crate::error::{Error, Result};
use crate::model::plan::{self, Stage as PlanStage};
use crate::model::{Contact, ContactLists, Dim2, Grains, Grid, Region, SolverKind, StepParams, StepStats, Totals};
use crate::model::{MAX_COLORS, SOLVERS, nscd_plan, speeds};

/// Jacobi iterations between two convergence checks (host readbacks).
pub const CHECK_EVERY: u32 = 10;
/// Steps between two reorders of the grain arrays into cell order.
pub const REORDER_EVERY: u64 = 100;

pub struct GpuBackend<S: NscdSpace = Dim2> {
    core: Pipeline<S>,
    kernels: Kernels,
    bufs: Buffers,
    groups: Groups,
    /// Host copy of the grains (id order), valid when `host_fresh`.
    host: Grains<S>,
    host_fresh: bool,
    /// The walls on the device (a 3D diagnostics row sums over them on the host).
    walls: S::Walls,
    /// Parity of the contact lists the next step writes.
    cur: usize,
    /// The other lists hold last step's impulses for the current indices.
    warm_valid: bool,
    /// `sorted` holds a binning of the current arrays (a reorder is possible).
    binned: bool,
    reorder_pending: bool,
    steps: u64,
    /// Jacobi iterations between convergence checks ([`CHECK_EVERY`]).
    pub check_every: u32,
    /// Steps between reorders ([`REORDER_EVERY`]; 0 = never).
    pub reorder_every: u64,
    /// The solvers of the steps so far (`solver::GPU_SOLVERS`), each built
    /// on its first step.
    solvers: Vec<(SolverKind, Box<dyn GpuSolver>)>,
    /// Colours of the last coloured step (0 for other solvers).
    pub colors: u32,
    /// Time the colouring of coloured steps (`StepStats::coloring_ms`). Costs one
    /// extra host wait per coloured step: the stages before the colouring are
    /// waited for first, so the time is the colouring's own. Off by default.
    pub profile: bool,
    /// When Some, every convergence check of a step appends the residual it
    /// read (m/s): one per iteration with `check_every = 1` (the study's cold step).
    pub residual_history: Option<Vec<f32>>,
    /// `check_every` before [`record_residuals`](GpuBackend::record_residuals) set it to 1.
    recorded_check_every: u32,
    /// The fastest grain's speed at the start of the next step, m/s, and
    /// the grains' speed histogram (`model::speeds`; the solve's tolerance,
    /// `StepParams::solve_tol`): the grains' at `new`, then the last
    /// convergence check's. `upload_grains` leaves them: the bisection
    /// uploads velocities already gathered from the warm start.
    speed: f32,
    speeds: [u32; speeds::BINS],
}

/// The step pushes overlaps out by moving the grains after the solve (the
/// split push-out of `cpu::correct`), not through the velocity solve's target.
/// As `cpu::correct::Correction::apply`, nothing to do when beta = 0.
fn split(p: &StepParams) -> bool {
    p.overlap_iterations > 0 && p.overlap_relax != 0.0
}

/// The step in progress: what its host stages read and write (one context
/// for every stage, as Box2D's step context).
struct StepRun<'a, S: NscdSpace> {
    be: &'a mut GpuBackend<S>,
    p: StepParams,
    stats: StepStats,
}

impl<S: NscdSpace> GpuBackend<S> {
    /// Upload the grains and walls; fails with [`Error::Gpu`] naming the adapter
    /// limit a buffer of this scene exceeds.
    pub fn new(
        ctx: GpuContext,
        grains: Grains<S>,
        walls: S::Walls,
        grid: Grid<S>,
        capacity: usize,
    ) -> Result<GpuBackend<S>> {
        // 3D keeps its spheres in id order on the device (no reorder).
        let grains = if S::DIM == 3 { grains.into_id_order() } else { grains };
        let core = Pipeline::new(ctx, "hourglass", &grains, &walls, grid, capacity, 2)?;
        let kernels = Kernels::new(&core.ctx, &core.cfg);
        let bufs = Buffers::new(&core.ctx, &grains);
        let groups = Groups::new(&core, &kernels, &bufs);
        let (speed, speeds) = (grains.max_speed(), speeds::histogram_in::<S>(&grains.vel));
        Ok(GpuBackend {
            core,
            kernels,
            bufs,
            groups,
            host: grains,
            host_fresh: true,
            walls,
            cur: 0,
            warm_valid: false,
            binned: false,
            reorder_pending: false,
            steps: 0,
            check_every: CHECK_EVERY,
            reorder_every: REORDER_EVERY,
            solvers: Vec::new(),
            colors: 0,
            profile: false,
            residual_history: None,
            recorded_check_every: CHECK_EVERY,
            speed,
            speeds,
        })
    }

    /// Record every iteration's residual into `residual_history` (`on`): the
    /// residual is then read back after every iteration (`check_every = 1`);
    /// turning it off restores the check cadence it had and drops the record.
    pub fn record_residuals(&mut self, on: bool) {
        match (on, self.residual_history.is_some()) {
            (true, false) => {
                self.recorded_check_every = self.check_every;
                (self.check_every, self.residual_history) = (1, Some(Vec::new()));
            }
            (false, true) => {
                (self.check_every, self.residual_history) = (self.recorded_check_every, None);
            }
            _ => {}
        }
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Count steps from `n` on (`Backend::set_step_count`).
    pub fn set_steps(&mut self, n: u64) {
        self.steps = n;
    }

    pub fn context(&self) -> &GpuContext {
        &self.core.ctx
    }
}

impl GpuBackend {
    /// The device buffers of the grains and of the last step's contact lists.
    pub fn device_grains(&self) -> DeviceGrains<'_> {
        let (g, last) = (&self.core.bufs.grains, 1 - self.cur);
        DeviceGrains {
            ctx: &self.core.ctx,
            len: self.core.n as u32,
            pos: &g[POS],
            vel: &g[VEL],
            radius: &g[RADIUS],
            inv_mass: &g[INV_MASS],
            id: &g[ID],
            count: &self.core.bufs.count[last],
            slots: &self.core.bufs.slots[last],
            capacity: self.core.capacity as u32,
            angle: Some(&self.bufs.spins.angle),
        }
    }
}

impl<S: NscdSpace> GpuBackend<S> {
    /// One NSCD step (see the module doc).
    pub fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        self.step_from(p, PlanStage::FreeVelocity)
    }

    /// The stages of the step's plan from `from` on (the whole step from
    /// `free_velocity`); the output of the stages before it must have been
    /// uploaded.
    pub fn step_from(&mut self, p: &StepParams, from: PlanStage) -> Result<StepStats> {
        let p = self.begin(p)?;
        let stages = self.plan(&p, from);
        let enc = self.core.encoder("hourglass.step");
        let mut run = StepRun {
            be: self,
            p,
            stats: StepStats::default(),
        };
        let enc = record(&mut run, &stages, enc)?;
        let stats = run.stats;
        self.core.ctx.submit(enc.finish());
        // This step's lists become the warm-start source of the next one.
        self.cur = 1 - self.cur;
        self.warm_valid = true;
        self.binned = true;
        self.host_fresh = false;
        self.steps += 1;
        Ok(stats)
    }

    /// Check the solver, upload the step's parameters and build the solver's
    /// state on its first step.
    fn begin(&mut self, p: &StepParams) -> Result<StepParams> {
        let p = p.resolved(true);
        let facts = p.solver.facts();
        let here = |kind| S::NSCD_SOLVERS.iter().any(|(k, _)| *k == kind);
        let gpu = |carry: fn(&crate::model::SolverFacts) -> bool| {
            let names: Vec<&str> = SOLVERS
                .iter()
                .filter(|f| f.nscd && f.gpu && here(f.kind) && carry(f))
                .map(|f| f.name)
                .collect();
            names.join(", ")
        };
        let space = if S::DIM == 3 { " in 3D" } else { "" };
        if p.friction() && !(facts.friction && facts.gpu) {
            return Err(Error::NotImplemented {
                what: format!(
                    "solver `{}` with friction on the GPU backend{space} ({} carry it there)",
                    facts.name,
                    gpu(|f| f.friction)
                ),
            });
        }
        if !(facts.nscd && facts.gpu && here(p.solver)) {
            return Err(Error::NotImplemented {
                what: format!(
                    "solver `{}` on the GPU backend{space} ({} run there)",
                    facts.name,
                    gpu(|_| true)
                ),
            });
        }
        let q = &mut self.core.params;
        q.gravity = p.gravity;
        q.dt = p.dt;
        q.inv_dt = 1.0 / p.dt;
        q.alert = p.alert;
        q.omega = p.omega;
        q.beta = if p.overlap_iterations > 0 { 0.0 } else { p.overlap_relax };
        q.slop = p.slop();
        q.mu = p.mu;
        q.mu_wall = p.mu_wall;
        q.restitution = p.restitution;
        q.kick = p.forcing.scale(p.dt);
        q.seed = p.forcing.seed;
        q.step = self.steps as u32;
        self.core.write_params();
        if p.cohesion.on() {
            let law = bytemuck::bytes_of(&p.cohesion);
            self.core.ctx.queue.write_buffer(&self.bufs.cohesion_law, 0, law);
        }
        if split(&p) {
            let c = Params {
                beta: p.overlap_relax,
                ..self.core.params
            };
            self.core
                .ctx
                .queue
                .write_buffer(&self.bufs.correct_params, 0, bytemuck::bytes_of(&c));
        }
        if !self.solvers.iter().any(|(k, _)| *k == p.solver) {
            let b = solver::Build {
                core: &self.core,
                bufs: &self.bufs,
            };
            let built = solver::build(p.solver, &b).ok_or_else(|| Error::NotImplemented {
                what: format!(
                    "solver `{}` on the GPU backend (no GPU solver is built for it)",
                    facts.name
                ),
            })?;
            self.solvers.push((p.solver, built));
        }
        self.solver(p.solver).begin_step(&self.core.ctx);
        Ok(p)
    }

    /// The solver of `kind`, built by [`Self::begin`].
    fn solver(&self, kind: SolverKind) -> &dyn GpuSolver {
        let found = self.solvers.iter().find(|(k, _)| *k == kind);
        found
            .map(|(_, s)| &**s)
            .expect("the step's solver is built when the step begins")
    }

    /// One iteration's context on the lists in use.
    fn iteration(&self, friction: bool) -> Iteration<'_> {
        Iteration {
            n: self.core.n as u32,
            cur: self.cur,
            friction,
            kernels: &self.kernels,
            groups: &self.groups,
        }
    }

    /// The GPU stages of the step's plan (`model::nscd_plan`) from plan stage
    /// `from` on (`model::plan::split`), each mapped by [`super::step::stages_of`];
    /// a step that starts at the plan's first stage opens with the counters'
    /// clear and the due reorder. Warm start needs last step's lists on the
    /// device, the push-out grains.
    fn plan(&mut self, p: &StepParams, from: PlanStage) -> Vec<StepStage> {
        let plan = nscd_plan(p);
        let start = plan::split(&plan, &plan::NSCD_STAGES, from);
        let mut stages = Vec::with_capacity(24);
        if start == 0 {
            stages.push(StepStage::ClearStats);
            let due = self.reorder_every > 0 && self.steps > 0 && self.steps.is_multiple_of(self.reorder_every);
            // The plane alone reorders (3D keeps its grains in id order).
            if self.binned && (self.reorder_pending || due) && self.kernels.plane.is_some() {
                stages.push(StepStage::Reorder);
                // Indices change: last step's impulses cannot be matched; cold start.
                self.warm_valid = false;
                self.reorder_pending = false;
            }
        }
        let colored = p.solver.facts().colors;
        for &stage in &plan[start..] {
            match stage {
                PlanStage::WarmStart if !self.warm_valid => {}
                PlanStage::PushOut if self.core.n == 0 => {}
                stage => stages.extend_from_slice(stages_of(stage, colored)),
            }
        }
        stages
    }

    /// Permute the grain arrays into the cell order of the last binning.
    fn record_reorder(&self, enc: &mut wgpu::CommandEncoder) {
        let n = self.core.n as u32;
        let Some(k) = &self.kernels.plane else {
            return;
        };
        {
            let mut p = pass(enc, &Stage::Reorder.label());
            for (w, group) in &self.groups.reorder {
                k.reorder[*w].dispatch(&mut p, group, n);
            }
        }
        for (a, (buf, tmp)) in self.core.bufs.grains.iter().zip(&self.bufs.tmp).enumerate() {
            let bytes = self.core.n as u64 * 4 * (1 + wide(a) as u64);
            if bytes > 0 {
                enc.copy_buffer_to_buffer(tmp, 0, buf, 0, bytes);
            }
        }
        // The spins and angles move with their grains (zeros without friction, cheap).
        {
            let mut p = pass(enc, &Stage::Reorder.label());
            for group in &self.groups.reorder_spins {
                k.reorder[0].dispatch(&mut p, group, n);
            }
        }
        let s = &self.bufs.spins;
        for (buf, tmp) in s.arrays().into_iter().zip(&s.tmp) {
            if n > 0 {
                enc.copy_buffer_to_buffer(tmp, 0, buf, 0, u64::from(n) * 4);
            }
        }
    }

    /// Colour this step's contacts and bucket them by colour (stage `Color`):
    /// batches of rounds until none is left uncoloured, then the bucket sizes
    /// (two kinds of readback); returns whether there is an overflow colour.
    fn color(
        &mut self,
        mut enc: wgpu::CommandEncoder,
        kind: SolverKind,
        stats: &mut StepStats,
    ) -> Result<wgpu::CommandEncoder> {
        let found = self.solvers.iter_mut().find(|(k, _)| *k == kind);
        let Some(s) = found.and_then(|(_, s)| s.colored()) else {
            return Ok(enc);
        };
        let (ctx, c, n) = (&self.core.ctx, self.cur, self.core.n as u32);
        let start = if self.profile {
            ctx.submit(enc.finish());
            ctx.wait()?;
            enc = self.core.encoder("hourglass.step.coloring");
            Some(std::time::Instant::now())
        } else {
            None
        };
        let slots = (self.core.n * self.core.capacity) as u64;
        s.record_init(&mut enc, c, n, slots);
        let mut batches = 0u32;
        let (used, overflow) = loop {
            s.record_rounds(&mut enc, c, n);
            ctx.submit(enc.finish());
            let [used, uncolored, overflow]: [u32; 3] = super::buffers::read::<u32>(ctx, &s.colors.stats, 3)?
                .try_into()
                .map_err(|_| Error::Gpu("reading the colour counters".to_string()))?;
            enc = self.core.encoder("hourglass.step.solve");
            batches += 1;
            if uncolored == 0 {
                break (used, overflow > 0);
            }
            // Every round colours at least the highest-priority uncoloured contact.
            if u64::from(batches) * u64::from(super::coloring::ROUNDS_PER_CHECK) > slots + 1 {
                return Err(Error::Gpu(format!(
                    "colouring did not finish: {uncolored} contacts left"
                )));
            }
        };
        s.record_bucket_count(&mut enc, c, n);
        ctx.submit(enc.finish());
        let mut sizes: Vec<u32> = super::buffers::read(ctx, &s.buckets.size, MAX_COLORS as usize)?;
        sizes.truncate(used as usize);
        enc = self.core.encoder("hourglass.step.solve");
        s.sizes = sizes;
        s.has_overflow = overflow;
        s.bucket(ctx, &mut enc, c, n);
        // The read of the bucket sizes waited for the last round; the scatter is
        // left to run with the first iterations (its queued dispatch is small).
        stats.coloring_ms = start.map_or(0.0, |t| (t.elapsed().as_secs_f64() * 1e3) as f32);
        stats.colors = used;
        self.colors = used;
        Ok(enc)
    }

    /// Solver iterations in batches of `check_every`, each batch submitted and
    /// its residual read, until converged or `itmax` (stage `Solve`); fills
    /// the step's stats and returns a fresh encoder for the stages after it.
    fn solve(
        &mut self,
        mut enc: wgpu::CommandEncoder,
        p: &StepParams,
        stats: &mut StepStats,
    ) -> Result<wgpu::CommandEncoder> {
        // As cpu::CpuStepper::step: converged further when the grains are slow.
        let followed = speeds::followed(
            &self.speeds,
            self.core.n as u32,
            self.speed,
            p.solver.facts().fast_share,
        );
        let threshold = p.solve_threshold(followed);
        let mut last = f32::INFINITY;
        let mut words;
        loop {
            let at = Batch {
                done: stats.iterations,
                last,
                threshold,
                p,
            };
            let most = self.solver(p.solver).before_batch(&self.core.ctx, &at);
            let batch = self.check_every.max(1).min(p.itmax - stats.iterations).min(most);
            self.record_iterations(&mut enc, batch, p);
            words = self.core.submit_and_read_stats(enc)?;
            stats.iterations += batch;
            if stats.iterations > 0 {
                stats.residual = f32::from_bits(words[STAT_RESIDUAL as usize]);
                last = stats.residual;
                if let Some(h) = &mut self.residual_history {
                    h.push(stats.residual);
                }
                if stats.residual < threshold {
                    stats.converged = true;
                    break;
                }
            }
            if stats.iterations >= p.itmax {
                break;
            }
            enc = self.core.encoder("hourglass.step.iterations");
        }
        if self.core.n * self.core.capacity == 0 {
            stats.converged = true;
        }
        let mut enc = self.core.encoder("hourglass.step.integrate");
        self.solver(p.solver).finish(&mut enc, &self.iteration(p.friction()));
        stats.overflow = u64::from(words[STAT_OVERFLOW as usize]);
        stats.contacts = u64::from(words[STAT_CONTACTS as usize]);
        self.speed = f32::from_bits(words[STAT_SPEED2 as usize]).sqrt();
        let hist = STAT_SPEED_HIST as usize;
        self.speeds.copy_from_slice(&words[hist..hist + speeds::BINS]);
        stats.max_displacement = self.speed * p.dt;
        stats.max_overlap = f32::from_bits(words[STAT_OVERLAP as usize]);
        Ok(enc)
    }

    /// Record `iterations` iterations of the step's solver, then the
    /// residual reduction.
    fn record_iterations(&self, enc: &mut wgpu::CommandEncoder, iterations: u32, sp: &StepParams) {
        let (s, it) = (self.solver(sp.solver), self.iteration(sp.friction()));
        // A solver whose passes max into the residual has it cleared before
        // the iteration that is read.
        let cleared = u32::from(s.maxes_residual()).min(iterations);
        {
            let mut p = pass(enc, &Stage::JacobiContact.label());
            for _ in cleared..iterations {
                s.iterate(&mut p, &it);
            }
        }
        if cleared == 1 {
            enc.clear_buffer(&self.bufs.residual, 0, None);
            let mut p = pass(enc, &Stage::JacobiContact.label());
            s.iterate(&mut p, &it);
        }
        // residual_max maxes into stats[STAT_RESIDUAL] and stats[STAT_SPEED2]
        // and counts into the speed histogram: zero them first.
        const _: () = assert!(STAT_SPEED2 == STAT_RESIDUAL + 1);
        enc.clear_buffer(&self.core.bufs.stats, u64::from(STAT_RESIDUAL) * 4, Some(8));
        enc.clear_buffer(
            &self.core.bufs.stats,
            u64::from(STAT_SPEED_HIST) * 4,
            Some(speeds::BINS as u64 * 4),
        );
        let mut p = pass(enc, &Stage::ResidualMax.label());
        self.kernels
            .residual_max
            .dispatch(&mut p, &self.groups.residual_max, it.n);
    }
}

impl<S: NscdSpace> Recorder for StepRun<'_, S> {
    fn dispatch(&self, stage: StepStage, ps: &mut wgpu::ComputePass) {
        let be = &*self.be;
        let (k, g, n, c) = (&be.kernels, &be.groups, be.core.n as u32, be.cur);
        match stage {
            StepStage::FreeVelocity => k.free_velocity.dispatch(ps, &g.free_velocity, n),
            StepStage::Cohesion => k.cohesion.dispatch(ps, &g.cohesion[c], n),
            StepStage::WarmStart => k.warm_start.dispatch(ps, &g.warm_start[c], n),
            StepStage::Bounce => k.bounce.dispatch(ps, &g.bounce[c], n),
            StepStage::Gather => {
                let f = usize::from(self.p.friction());
                k.jacobi_gather[f].dispatch(ps, &g.jacobi_gather[c][f], n)
            }
            StepStage::Mirror => be.solver(self.p.solver).mirror(ps, c, n),
            StepStage::PredictGap => k.predict_gap.dispatch(ps, &g.predict_gap[c], n),
            StepStage::Correct => {
                // Zero impulses: shift = 0 + im sum 0 n = 0 exactly (the CPU starts from 0).
                k.jacobi_gather[0].dispatch(ps, &g.correct_gather[c], n);
                for _ in 0..self.p.overlap_iterations {
                    k.jacobi_contact[0].dispatch(ps, &g.correct_contact[c], n);
                    k.jacobi_gather[0].dispatch(ps, &g.correct_gather[c], n);
                }
            }
            StepStage::Shift => k.shift.dispatch(ps, &g.shift, n),
            StepStage::Integrate => k.integrate.dispatch(ps, &g.integrate, n),
            StepStage::IntegrateAngle => k.integrate_angle.dispatch(ps, &g.integrate_angle, n),
            shared => be.core.dispatch(shared, c, ps),
        }
    }

    fn encode(&mut self, stage: StepStage, mut enc: wgpu::CommandEncoder) -> Result<wgpu::CommandEncoder> {
        match stage {
            StepStage::Reorder => self.be.record_reorder(&mut enc),
            StepStage::SpinFree => {
                let s = &self.be.bufs.spins;
                let bytes = (self.be.core.n * std::mem::size_of::<S::Spin>()) as u64;
                if bytes > 0 {
                    enc.copy_buffer_to_buffer(&s.spin, 0, &s.spin_free, 0, bytes);
                }
            }
            StepStage::Color => enc = self.be.color(enc, self.p.solver, &mut self.stats)?,
            StepStage::Solve => enc = self.be.solve(enc, &self.p, &mut self.stats)?,
            shared => self.be.core.encode(shared, &mut enc),
        }
        Ok(enc)
    }
}

/// What [`crate::backend::Backend`] needs besides the step.
impl<S: NscdSpace> GpuBackend<S> {
    pub fn set_walls(&mut self, walls: &S::Walls) {
        self.core.set_walls(walls);
        self.walls = walls.clone();
        // Old lists name old segments: forget them (as CpuStepper::reset_warm_start does).
        let mut enc = self.core.encoder("hourglass.set_walls");
        for count in &self.core.bufs.count {
            enc.clear_buffer(count, 0, None);
        }
        self.core.ctx.submit(enc.finish());
        self.warm_valid = false;
        self.reorder_pending = true;
    }

    /// The same walls at a new pose with their velocities
    /// (`Backend::move_walls`): written over the wall buffers; the contact
    /// lists, and with them the warm start, stay, and nothing is reordered.
    ///
    /// # Panics
    /// If `walls` has another number of segments or corners than the walls
    /// of the last [`GpuBackend::new`] or [`GpuBackend::set_walls`].
    pub fn move_walls(&mut self, walls: &S::Walls) {
        S::move_walls(&mut self.core, walls);
        self.walls.clone_from(walls);
    }

    pub fn grains(&mut self) -> Result<&Grains<S>> {
        if !self.host_fresh {
            let s = &self.bufs.spins;
            self.host = self.core.read_grains(Some(&s.spin), Some(&s.angle))?;
            self.host_fresh = true;
        }
        Ok(&self.host)
    }

    /// The grains (as [`Self::grains`]) with the walls on the device.
    pub fn grains_and_walls(&mut self) -> Result<(&Grains<S>, &S::Walls)> {
        self.grains()?;
        Ok((&self.host, &self.walls))
    }

    /// The last step's contact lists, with their final impulses (device order).
    pub fn read_lists(&self) -> Result<ContactLists<S>> {
        let (b, last, n, k) = (&self.core.bufs, 1 - self.cur, self.core.n, self.core.capacity);
        let count = super::buffers::read::<u32>(&self.core.ctx, &b.count[last], n)?;
        let bytes = super::buffers::read::<u8>(
            &self.core.ctx,
            &b.slots[last],
            n * k * std::mem::size_of::<Contact<S>>(),
        )?;
        Ok(ContactLists {
            capacity: k,
            count,
            slots: S::contacts(&bytes),
        })
    }
}

impl GpuBackend {
    /// One diagnostics reduction, on the device.
    pub fn totals(&mut self, region: &Region) -> Result<Totals> {
        // The last completed step's lists (1 - cur).
        self.core.totals(region, 1 - self.cur)
    }
}
