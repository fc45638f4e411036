//! [`GpuBackend`]: the NSCD step (Jacobi solver) on the GPU, state resident
//! between steps.
//!
//! One step, recorded into few submits:
//! ```text
//!   submit 1: [reorder] free_velocity bin_count prefix_sum bin_scatter detect [warm_start]
//!             jacobi_gather, then CHECK iterations of (jacobi_contact, jacobi_gather),
//!             residual_max, copy stats -> staging            (wait, read 16 bytes)
//!   submit 2..: CHECK more iterations + residual_max, while residual >= tol/dt and < itmax
//!   last:     integrate                                       (no wait)
//! ```
//! Convergence stays per step: the residual (largest |dP| W / omega of one
//! iteration, as on the CPU) is read back every `check_every` iterations
//! ([`CHECK_EVERY`] = 10 by default: one host round trip per 10 iterations, a
//! few µs of GPU work each on a large pile, against ~50 µs per sync), so the
//! GPU stops at the first multiple of `check_every` at which the CPU would
//! have stopped, or later; a step that reaches itmax reports converged = false.
//!
//! Reorder: every [`REORDER_EVERY`] steps and after the walls change (the
//! gate opens), the per-grain arrays are permuted into the cell order of the
//! previous binning. Grain indices change, so warm start is simply skipped on
//! that step (cold start, as after the gate opens). [`Backend::grains`] returns
//! the grains in id order, so callers never see the permutation.

use super::state::{Buffers, Groups, ID, INV_MASS, Kernels, POS, RADIUS, VEL};
use super::view::DeviceGrains;
use super::{
    GpuContext, Params, ReducePartial, STAT_CONTACTS, STAT_OVERFLOW, STAT_RESIDUAL, STAT_SPEED2, STAT_WORDS,
    ShaderConfig, Stage, bin_scatter, detect, pass, reduce, residual_max,
};
use crate::error::{Error, Result};
use crate::model::Grid;
use crate::model::MAX_COLORS;
use crate::model::{Contact, Grains, SolverKind, StepParams, StepStats, Walls};
use crate::model::{Region, Totals};

/// Jacobi iterations between two convergence checks (host readbacks).
pub const CHECK_EVERY: u32 = 10;
/// Steps between two reorders of the grain arrays into cell order.
pub const REORDER_EVERY: u64 = 100;

pub struct GpuBackend {
    ctx: GpuContext,
    kernels: Kernels,
    bufs: Buffers,
    groups: Groups,
    params: Params,
    grid: Grid,
    capacity: usize,
    n: usize,
    /// Host copy of the grains (id order), valid when `host_fresh`.
    host: Grains,
    host_fresh: bool,
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
    /// Coloured and Uzawa solvers, built on their first step.
    solvers: Option<super::colored::SolverState>,
    /// Colours of the last coloured step (0 for other solvers).
    pub colors: u32,
    /// Contacts of each colour of the current coloured step (the bucket sizes).
    color_sizes: Vec<u32>,
    /// Time the colouring of coloured steps (`StepStats::coloring_ms`). Costs one
    /// extra host wait per coloured step: the stages before the colouring are
    /// waited for first, so the time is the colouring's own. Off by default.
    pub profile: bool,
    /// When Some, every convergence check of a step appends the residual it
    /// read (m/s): one per iteration with `check_every = 1` (the study's cold step).
    pub residual_history: Option<Vec<f32>>,
    /// `check_every` before [`record_residuals`](GpuBackend::record_residuals) set it to 1.
    recorded_check_every: u32,
}

impl GpuBackend {
    /// Upload the grains and walls; fails with [`Error::Gpu`] naming the adapter
    /// limit a buffer of this scene exceeds.
    pub fn new(ctx: GpuContext, grains: Grains, walls: Walls, grid: Grid, capacity: usize) -> Result<GpuBackend> {
        let n = grains.len();
        let cells = grid.cells();
        let slots = (n as u64) * (capacity as u64) * std::mem::size_of::<Contact>() as u64;
        ctx.check(
            &[
                (&format!("the contact lists ({n} grains x {capacity} slots)"), slots),
                (&format!("the positions of {n} grains"), n as u64 * 8),
                (&format!("the grid ({cells} cells)"), (cells as u64 + 1) * 4),
                (
                    "the wall corners",
                    std::mem::size_of_val(walls.corners.as_slice()) as u64,
                ),
            ],
            detect::Detect::STORAGE_BUFFERS,
        )?;
        if cells as u64 + 1 > u64::from(u32::MAX) || n as u64 * capacity as u64 > u64::from(u32::MAX) {
            return Err(Error::Gpu(format!(
                "{n} grains x {capacity} slots or {cells} cells exceed 32-bit indexing"
            )));
        }
        let cfg = ShaderConfig {
            capacity: capacity as u32,
        };
        let kernels = Kernels::new(&ctx, &cfg);
        let params = Params::new(&grid, n, walls.segments.len(), walls.corners.len());
        let bufs = Buffers::new(&ctx, &params, &grains, &walls, cells, capacity);
        let groups = Groups::new(&ctx, &kernels, &bufs, cells as u32);
        Ok(GpuBackend {
            ctx,
            kernels,
            bufs,
            groups,
            params,
            grid,
            capacity,
            n,
            host: grains,
            host_fresh: true,
            cur: 0,
            warm_valid: false,
            binned: false,
            reorder_pending: false,
            steps: 0,
            check_every: CHECK_EVERY,
            reorder_every: REORDER_EVERY,
            solvers: None,
            colors: 0,
            color_sizes: Vec::new(),
            profile: false,
            residual_history: None,
            recorded_check_every: CHECK_EVERY,
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

    pub fn context(&self) -> &GpuContext {
        &self.ctx
    }

    fn encoder(&self, label: &str) -> wgpu::CommandEncoder {
        self.ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) })
    }

    fn write_params(&self) {
        self.ctx
            .queue
            .write_buffer(&self.bufs.params, 0, bytemuck::bytes_of(&self.params));
    }

    /// Permute the grain arrays into the cell order of the last binning.
    fn record_reorder(&self, enc: &mut wgpu::CommandEncoder) {
        let n = self.n as u32;
        {
            let mut p = pass(enc, &Stage::Reorder.label());
            for group in &self.groups.reorder {
                self.kernels.reorder.dispatch(&mut p, group, n);
            }
        }
        for a in &self.bufs.grains {
            let bytes = self.n as u64 * if a.wide { 8 } else { 4 };
            if bytes > 0 {
                enc.copy_buffer_to_buffer(&a.tmp, 0, &a.buf, 0, bytes);
            }
        }
    }

    /// Record `iterations` iterations of `solver` (`overflow`: a coloured
    /// step has an overflow colour), then the residual reduction and the stats copy.
    fn record_iterations(&self, enc: &mut wgpu::CommandEncoder, iterations: u32, solver: SolverKind, overflow: bool) {
        let (n, c) = (self.n as u32, self.cur);
        let one = |p: &mut wgpu::ComputePass| match (solver, &self.solvers) {
            (SolverKind::Colored, Some(s)) => s.record_colored(p, c, &self.color_sizes, overflow),
            (SolverKind::Uzawa, Some(s)) => {
                s.uzawa.dispatch(p, &s.uzawa_groups[c], n);
                self.kernels.jacobi_gather.dispatch(p, &self.groups.jacobi_gather[c], n);
            }
            _ => {
                self.kernels
                    .jacobi_contact
                    .dispatch(p, &self.groups.jacobi_contact[c], n);
                self.kernels.jacobi_gather.dispatch(p, &self.groups.jacobi_gather[c], n);
            }
        };
        // Coloured passes max into the residual (a grain's contacts are spread
        // over colours), so it is cleared before the iteration that is read.
        let cleared = u32::from(solver == SolverKind::Colored).min(iterations);
        {
            let mut p = pass(enc, &Stage::JacobiContact.label());
            for _ in cleared..iterations {
                one(&mut p);
            }
        }
        if cleared == 1 {
            enc.clear_buffer(&self.bufs.residual, 0, None);
            let mut p = pass(enc, &Stage::Colored.label());
            one(&mut p);
        }
        residual_max::record_clear(enc, &self.bufs.stats);
        {
            let mut p = pass(enc, &Stage::ResidualMax.label());
            self.kernels.residual_max.dispatch(&mut p, &self.groups.residual_max, n);
        }
        enc.copy_buffer_to_buffer(
            &self.bufs.stats,
            0,
            &self.bufs.stats_staging,
            0,
            u64::from(STAT_WORDS) * 4,
        );
    }

    /// Submit `enc` and read the step counters.
    fn submit_and_read_stats(&self, enc: wgpu::CommandEncoder) -> Result<[u32; STAT_WORDS as usize]> {
        self.ctx.queue.submit([enc.finish()]);
        let slice = self.bufs.stats_staging.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        self.ctx.wait()?;
        let mut out = [0u32; STAT_WORDS as usize];
        {
            let view = slice
                .get_mapped_range()
                .map_err(|e| Error::Gpu(format!("reading the step counters: {e}")))?;
            out.copy_from_slice(bytemuck::cast_slice(&view));
        }
        self.bufs.stats_staging.unmap();
        Ok(out)
    }
}

impl GpuBackend {
    /// The device buffers of the grains and of the last step's contact lists.
    pub fn device_grains(&self) -> DeviceGrains<'_> {
        let g = &self.bufs.grains;
        let last = 1 - self.cur;
        DeviceGrains {
            ctx: &self.ctx,
            len: self.n as u32,
            pos: &g[POS].buf,
            vel: &g[VEL].buf,
            radius: &g[RADIUS].buf,
            inv_mass: &g[INV_MASS].buf,
            id: &g[ID].buf,
            count: &self.bufs.count[last],
            slots: &self.bufs.slots[last],
            capacity: self.capacity as u32,
        }
    }
}

/// The step itself and what [`crate::backend::Backend`] needs of it.
impl GpuBackend {
    /// One NSCD step (see the module doc).
    pub fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        let p = &StepParams {
            solver: p.solver.resolve(true),
            ..*p
        };
        if !matches!(p.solver, SolverKind::Jacobi | SolverKind::Colored | SolverKind::Uzawa) {
            return Err(Error::NotImplemented {
                what: format!(
                    "solver `{}` on the GPU backend (jacobi, colored and uzawa run there)",
                    p.solver.name()
                ),
            });
        }
        self.params.gravity = p.gravity;
        self.params.dt = p.dt;
        self.params.inv_dt = 1.0 / p.dt;
        self.params.alert = p.alert;
        self.params.omega = p.omega;
        self.params.beta = p.overlap_relax;
        self.params.slop = p.slop();
        self.write_params();
        let (n, c) = (self.n as u32, self.cur);
        let k = &self.kernels;
        let g = &self.groups;
        let mut enc = self.encoder("hourglass.step");
        enc.clear_buffer(&self.bufs.stats, 0, None);
        let due = self.reorder_every > 0 && self.steps > 0 && self.steps.is_multiple_of(self.reorder_every);
        if self.binned && (self.reorder_pending || due) {
            self.record_reorder(&mut enc);
            // Indices changed: last step's impulses cannot be matched; cold start.
            self.warm_valid = false;
            self.reorder_pending = false;
        }
        enc.clear_buffer(&self.bufs.cell_count, 0, None);
        {
            let mut ps = pass(&mut enc, &Stage::BinCount.label());
            k.free_velocity.dispatch(&mut ps, &g.free_velocity, n);
            k.bin_count.dispatch(&mut ps, &g.bin_count, n);
            k.prefix_sum.dispatch(&mut ps, &g.scan);
        }
        bin_scatter::record_cursor_copy(
            &mut enc,
            &self.bufs.cell_start,
            &self.bufs.cursor,
            self.grid.cells() as u32,
        );
        {
            let mut ps = pass(&mut enc, &Stage::Detect.label());
            k.bin_scatter.dispatch(&mut ps, &g.bin_scatter, n);
            k.detect.dispatch(&mut ps, &g.detect[c], n);
            if p.warm_start && self.warm_valid {
                k.warm_start.dispatch(&mut ps, &g.warm_start[c], n);
            }
            k.jacobi_gather.dispatch(&mut ps, &g.jacobi_gather[c], n);
        }
        if p.solver != SolverKind::Jacobi && self.solvers.is_none() {
            let cfg = ShaderConfig {
                capacity: self.capacity as u32,
            };
            self.solvers = Some(super::colored::SolverState::new(
                &self.ctx,
                &cfg,
                &self.bufs,
                self.n * self.capacity,
            ));
        }
        let mut colors = (0, false);
        let mut coloring_ms = 0.0;
        if let (SolverKind::Colored, Some(s)) = (p.solver, &self.solvers) {
            let start = if self.profile {
                self.ctx.queue.submit([enc.finish()]);
                self.ctx.wait()?;
                enc = self.encoder("hourglass.step.coloring");
                Some(std::time::Instant::now())
            } else {
                None
            };
            let slots = (self.n * self.capacity) as u64;
            s.record_init(&mut enc, c, n, slots);
            let mut batches = 0u32;
            loop {
                s.record_rounds(&mut enc, c, n);
                self.ctx.queue.submit([enc.finish()]);
                let [used, uncolored, overflow]: [u32; 3] = super::buffers::read::<u32>(&self.ctx, &s.colors.stats, 3)?
                    .try_into()
                    .map_err(|_| Error::Gpu("reading the colour counters".to_string()))?;
                enc = self.encoder("hourglass.step.solve");
                batches += 1;
                if uncolored == 0 {
                    colors = (used, overflow > 0);
                    break;
                }
                // Every round colours at least the highest-priority uncoloured contact.
                if u64::from(batches) * u64::from(super::coloring::ROUNDS_PER_CHECK) > slots + 1 {
                    return Err(Error::Gpu(format!(
                        "colouring did not finish: {uncolored} contacts left"
                    )));
                }
            }
            self.colors = colors.0;
            s.record_bucket_count(&mut enc, c, n);
            self.ctx.queue.submit([enc.finish()]);
            let mut sizes: Vec<u32> = super::buffers::read(&self.ctx, &s.buckets.size, MAX_COLORS as usize)?;
            sizes.truncate(colors.0 as usize);
            enc = self.encoder("hourglass.step.solve");
            s.bucket(&self.ctx, &mut enc, c, n, &sizes);
            self.color_sizes = sizes;
            // The read of the bucket sizes waited for the last round; the scatter is
            // left to run with the first iterations (its queued dispatch is small).
            coloring_ms = start.map_or(0.0, |t| (t.elapsed().as_secs_f64() * 1e3) as f32);
        }
        let threshold = p.tol / p.dt;
        let mut stats = StepStats {
            colors: colors.0,
            coloring_ms,
            ..StepStats::default()
        };
        let mut words;
        loop {
            let batch = self.check_every.max(1).min(p.itmax - stats.iterations);
            self.record_iterations(&mut enc, batch, p.solver, colors.1);
            words = self.submit_and_read_stats(enc)?;
            stats.iterations += batch;
            if stats.iterations > 0 {
                stats.residual = f32::from_bits(words[STAT_RESIDUAL as usize]);
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
            enc = self.encoder("hourglass.step.iterations");
        }
        if self.n * self.capacity == 0 {
            stats.converged = true;
        }
        stats.overflow = u64::from(words[STAT_OVERFLOW as usize]);
        stats.contacts = u64::from(words[STAT_CONTACTS as usize]);
        stats.max_displacement = f32::from_bits(words[STAT_SPEED2 as usize]).sqrt() * p.dt;
        let mut enc = self.encoder("hourglass.step.integrate");
        {
            let mut ps = pass(&mut enc, &Stage::Integrate.label());
            if let (SolverKind::Colored, Some(s)) = (p.solver, &self.solvers) {
                s.colored.dispatch_mirror(&mut ps, &s.mirror[c], n);
            }
            self.kernels.integrate.dispatch(&mut ps, &self.groups.integrate, n);
        }
        self.ctx.queue.submit([enc.finish()]);
        // This step's lists become the warm-start source of the next one.
        self.cur = 1 - self.cur;
        self.warm_valid = true;
        self.binned = true;
        self.host_fresh = false;
        self.steps += 1;
        Ok(stats)
    }

    pub fn set_walls(&mut self, walls: &Walls) {
        self.bufs.set_walls(&self.ctx, walls);
        self.params.n_segments = walls.segments.len() as u32;
        self.params.n_corners = walls.corners.len() as u32;
        self.write_params();
        self.groups = Groups::new(&self.ctx, &self.kernels, &self.bufs, self.grid.cells() as u32);
        // Old lists name old segments: forget them (as CpuStepper::reset_warm_start does).
        let mut enc = self.encoder("hourglass.set_walls");
        for count in &self.bufs.count {
            enc.clear_buffer(count, 0, None);
        }
        self.ctx.queue.submit([enc.finish()]);
        self.warm_valid = false;
        self.reorder_pending = true;
    }

    pub fn grains(&mut self) -> Result<&Grains> {
        if !self.host_fresh {
            let b = &self.bufs.grains;
            let bufs = super::buffers::GrainBuffers {
                pos: &b[POS].buf,
                vel: &b[VEL].buf,
                radius: &b[RADIUS].buf,
                inv_mass: &b[INV_MASS].buf,
                id: &b[ID].buf,
                ang_vel: None,
            };
            self.host = super::buffers::read_grains(&self.ctx, &bufs, self.n)?;
            self.host_fresh = true;
        }
        Ok(&self.host)
    }

    pub fn totals(&mut self, region: &Region) -> Result<Totals> {
        self.params.set_region(region);
        self.write_params();
        let mut enc = self.encoder(&Stage::Reduce.label());
        {
            let mut ps = pass(&mut enc, &Stage::Reduce.label());
            // The last completed step's lists (1 - cur).
            self.kernels
                .reduce
                .dispatch(&mut ps, &self.groups.reduce[1 - self.cur], self.n as u32);
        }
        self.ctx.queue.submit([enc.finish()]);
        let parts: Vec<ReducePartial> = super::buffers::read(&self.ctx, &self.bufs.partials, reduce::partials(self.n))?;
        Ok(reduce::sum_partials(&parts))
    }
}
