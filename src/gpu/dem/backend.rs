//! [`GpuDemBackend`]: the soft-sphere DEM step on the GPU, state resident.
//!
//! ```text
//!   grains:  pos vel ang_vel radius inv_mass id force torque      (n each)
//!   bins:    cell_of sorted (n), cell_count cursor (cells), cell_start (cells + 1)
//!   lists:   count (n), slots (n K Contact)   rebuilt every step, no history
//!   stats:   [-, max |v|^2 bits, overflow, contacts] summed over a check window
//!
//!   one step, one submit, no wait:
//!     dem_integrate.kick_drift | clear cell_count | bin_count prefix_sum | cursor copy
//!     | bin_scatter detect | dem_force dem_integrate.kick
//! ```
//! Nothing is read back per step: every [`CHECK_EVERY`] steps the counters of
//! the window are read (overflow summed, contacts averaged, the largest speed),
//! and steps in between report no overflow and the last known contact count.
//! The force of the previous step is kept on the device (velocity Verlet needs
//! it for the first half kick); a change of walls recomputes it before the next
//! drift, as on the CPU ([`crate::cpu::dem::DemStepper`]).

use super::force::{DemForce, DemForceBindings};
use super::integrate::{DemIntegrate, DemIntegrateBindings};
use crate::error::{Error, Result};
use crate::gpu::buffers::{GrainBuffers, read, read_grains, storage, storage_zeroed, uniform};
use crate::gpu::detect::{Detect, DetectBindings};
use crate::gpu::prefix_sum::{PrefixSum, ScanPlan};
use crate::gpu::reduce::{Reduce, ReduceBindings, partials, sum_partials};
use crate::gpu::{
    GpuContext, Params, ReducePartial, STAT_CONTACTS, STAT_OVERFLOW, STAT_SPEED2, STAT_WORDS, ShaderConfig, bin_count,
    bin_scatter, pass,
};
use crate::model::DemLaw;
use crate::model::Grid;
use crate::model::law;
use crate::model::{Contact, DemParams, Grains, Phase, StepParams, StepStats, Walls};
use crate::model::{Region, Totals};

/// Steps between two reads of the step counters.
pub const CHECK_EVERY: u32 = 50;

struct Kernels {
    bin_count: bin_count::BinCount,
    prefix_sum: PrefixSum,
    bin_scatter: bin_scatter::BinScatter,
    detect: Detect,
    force: DemForce,
    integrate: DemIntegrate,
    reduce: Reduce,
}

/// The device buffers (see the module doc).
pub struct DemBuffers {
    pub params: wgpu::Buffer,
    pub law: wgpu::Buffer,
    pub pos: wgpu::Buffer,
    pub vel: wgpu::Buffer,
    pub ang_vel: wgpu::Buffer,
    pub radius: wgpu::Buffer,
    pub inv_mass: wgpu::Buffer,
    pub id: wgpu::Buffer,
    pub force: wgpu::Buffer,
    pub torque: wgpu::Buffer,
    pub cell_of: wgpu::Buffer,
    pub sorted: wgpu::Buffer,
    pub cell_count: wgpu::Buffer,
    pub cursor: wgpu::Buffer,
    pub cell_start: wgpu::Buffer,
    pub count: wgpu::Buffer,
    pub slots: wgpu::Buffer,
    pub stats: wgpu::Buffer,
    pub partials: wgpu::Buffer,
    pub segments: wgpu::Buffer,
    pub corners: wgpu::Buffer,
}

struct Groups {
    bin_count: wgpu::BindGroup,
    scan: ScanPlan,
    bin_scatter: wgpu::BindGroup,
    detect: wgpu::BindGroup,
    force: wgpu::BindGroup,
    kick_drift: wgpu::BindGroup,
    kick: wgpu::BindGroup,
    reduce: wgpu::BindGroup,
}

pub struct GpuDemBackend {
    ctx: GpuContext,
    kernels: Kernels,
    pub bufs: DemBuffers,
    groups: Groups,
    params: Params,
    dem: DemParams,
    phase: Phase,
    law: DemLaw,
    grid: Grid,
    n: usize,
    host: Grains,
    host_fresh: bool,
    /// `force`, `torque` belong to the current positions and walls.
    primed: bool,
    /// Steps since the counters were last read.
    window: u32,
    contacts: u64,
    steps: u64,
    /// Steps between reads of the counters ([`CHECK_EVERY`]; 1 = every step).
    pub check_every: u32,
}

impl GpuDemBackend {
    /// Upload grains and walls; fails with [`Error::Gpu`] naming the adapter limit a buffer exceeds.
    pub fn new(
        ctx: GpuContext,
        grains: Grains,
        walls: Walls,
        grid: Grid,
        capacity: usize,
        dem: DemParams,
    ) -> Result<GpuDemBackend> {
        let n = grains.len();
        let cells = grid.cells();
        let slots = (n as u64) * (capacity as u64) * std::mem::size_of::<Contact>() as u64;
        ctx.check(
            &[
                (&format!("the contact lists ({n} grains x {capacity} slots)"), slots),
                (&format!("the positions of {n} grains"), n as u64 * 8),
                (&format!("the grid ({cells} cells)"), (cells as u64 + 1) * 4),
            ],
            Detect::STORAGE_BUFFERS,
        )?;
        if cells as u64 + 1 > u64::from(u32::MAX) || n as u64 * capacity as u64 > u64::from(u32::MAX) {
            return Err(Error::Gpu(format!(
                "{n} grains x {capacity} slots or {cells} cells exceed 32-bit indexing"
            )));
        }
        let cfg = ShaderConfig {
            capacity: capacity as u32,
        };
        let kernels = Kernels {
            bin_count: bin_count::BinCount::new(&ctx, &cfg),
            prefix_sum: PrefixSum::new(&ctx, &cfg),
            bin_scatter: bin_scatter::BinScatter::new(&ctx, &cfg),
            detect: Detect::new(&ctx, &cfg),
            force: DemForce::new(&ctx, &cfg),
            integrate: DemIntegrate::new(&ctx, &cfg),
            reduce: Reduce::new(&ctx, &cfg),
        };
        let params = Params::new(&grid, n, walls.segments.len(), walls.corners.len());
        let phase = Phase::Discharge;
        let law = law(&dem, phase, 0.0);
        let l = |s: &str| format!("hourglass.dem.{s}");
        let bufs = DemBuffers {
            params: uniform(&ctx, &l("params"), &params),
            law: uniform(&ctx, &l("law"), &law),
            pos: storage(&ctx, &l("pos"), &grains.pos),
            vel: storage(&ctx, &l("vel"), &grains.vel),
            ang_vel: storage(&ctx, &l("ang_vel"), &grains.ang_vel),
            radius: storage(&ctx, &l("radius"), &grains.radius),
            inv_mass: storage(&ctx, &l("inv_mass"), &grains.inv_mass),
            id: storage(&ctx, &l("id"), &grains.id),
            force: storage_zeroed::<[f32; 2]>(&ctx, &l("force"), n),
            torque: storage_zeroed::<f32>(&ctx, &l("torque"), n),
            cell_of: storage_zeroed::<u32>(&ctx, &l("cell_of"), n),
            sorted: storage_zeroed::<u32>(&ctx, &l("sorted"), n),
            cell_count: storage_zeroed::<u32>(&ctx, &l("cell_count"), cells),
            cursor: storage_zeroed::<u32>(&ctx, &l("cursor"), cells),
            cell_start: storage_zeroed::<u32>(&ctx, &l("cell_start"), cells + 1),
            count: storage_zeroed::<u32>(&ctx, &l("count"), n),
            slots: storage_zeroed::<Contact>(&ctx, &l("slots"), n * capacity),
            stats: storage_zeroed::<u32>(&ctx, &l("stats"), STAT_WORDS as usize),
            partials: storage_zeroed::<ReducePartial>(&ctx, &l("partials"), partials(n)),
            segments: storage(&ctx, &l("segments"), &walls.segments),
            corners: storage(&ctx, &l("corners"), &walls.corners),
        };
        let groups = Self::groups(&ctx, &kernels, &bufs, cells as u32);
        Ok(GpuDemBackend {
            ctx,
            kernels,
            bufs,
            groups,
            params,
            dem,
            phase,
            law,
            grid,
            n,
            host: grains,
            host_fresh: true,
            primed: false,
            window: 0,
            contacts: 0,
            steps: 0,
            check_every: CHECK_EVERY,
        })
    }

    fn groups(ctx: &GpuContext, k: &Kernels, b: &DemBuffers, cells: u32) -> Groups {
        let (kick_drift, kick) = k.integrate.bind(
            ctx,
            &DemIntegrateBindings {
                params: &b.params,
                pos: &b.pos,
                vel: &b.vel,
                ang_vel: &b.ang_vel,
                force: &b.force,
                torque: &b.torque,
                radius: &b.radius,
                inv_mass: &b.inv_mass,
                stats: &b.stats,
            },
        );
        Groups {
            bin_count: k.bin_count.bind(ctx, &b.params, &b.pos, &b.cell_of, &b.cell_count),
            scan: k.prefix_sum.plan(ctx, &b.cell_count, &b.cell_start, cells),
            bin_scatter: k.bin_scatter.bind(ctx, &b.params, &b.cell_of, &b.cursor, &b.sorted),
            detect: k.detect.bind(
                ctx,
                &DetectBindings {
                    params: &b.params,
                    cell_start: &b.cell_start,
                    sorted: &b.sorted,
                    pos: &b.pos,
                    radius: &b.radius,
                    inv_mass: &b.inv_mass,
                    segments: &b.segments,
                    corners: &b.corners,
                    count: &b.count,
                    slots: &b.slots,
                    stats: &b.stats,
                },
            ),
            force: k.force.bind(
                ctx,
                &DemForceBindings {
                    params: &b.params,
                    law: &b.law,
                    count: &b.count,
                    slots: &b.slots,
                    radius: &b.radius,
                    inv_mass: &b.inv_mass,
                    vel: &b.vel,
                    ang_vel: &b.ang_vel,
                    force: &b.force,
                    torque: &b.torque,
                },
            ),
            kick_drift,
            kick,
            reduce: k.reduce.bind(
                ctx,
                &ReduceBindings {
                    params: &b.params,
                    pos: &b.pos,
                    vel: &b.vel,
                    radius: &b.radius,
                    inv_mass: &b.inv_mass,
                    count: &b.count,
                    slots: &b.slots,
                    segments: &b.segments,
                    corners: &b.corners,
                    partials: &b.partials,
                },
            ),
        }
    }

    pub fn context(&self) -> &GpuContext {
        &self.ctx
    }

    fn encoder(&self, label: &str) -> wgpu::CommandEncoder {
        self.ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) })
    }

    /// Binning and detection at the current positions, then the force.
    fn record_detect_force(&self, enc: &mut wgpu::CommandEncoder) {
        let (k, g, n) = (&self.kernels, &self.groups, self.n as u32);
        enc.clear_buffer(&self.bufs.cell_count, 0, None);
        {
            let mut ps = pass(enc, "hourglass.bin_count");
            k.bin_count.dispatch(&mut ps, &g.bin_count, n);
            k.prefix_sum.dispatch(&mut ps, &g.scan);
        }
        bin_scatter::record_cursor_copy(enc, &self.bufs.cell_start, &self.bufs.cursor, self.grid.cells() as u32);
        let mut ps = pass(enc, "hourglass.detect");
        k.bin_scatter.dispatch(&mut ps, &g.bin_scatter, n);
        k.detect.dispatch(&mut ps, &g.detect, n);
        k.force.dispatch(&mut ps, &g.force, n);
    }

    /// Read and clear the counters of the window.
    fn read_stats(&mut self) -> Result<[u32; STAT_WORDS as usize]> {
        let words: Vec<u32> = read(&self.ctx, &self.bufs.stats, STAT_WORDS as usize)?;
        let mut enc = self.encoder("hourglass.dem.stats");
        enc.clear_buffer(&self.bufs.stats, 0, None);
        self.ctx.queue.submit([enc.finish()]);
        let mut out = [0u32; STAT_WORDS as usize];
        out.copy_from_slice(&words);
        Ok(out)
    }
}

/// The step itself and what [`crate::backend::Backend`] needs of it.
impl GpuDemBackend {
    /// One DEM step (see the module doc).
    pub fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        let law = law(&self.dem, self.phase, p.dt);
        if law != self.law {
            self.law = law;
            self.ctx.queue.write_buffer(&self.bufs.law, 0, bytemuck::bytes_of(&law));
        }
        if (self.params.gravity, self.params.dt, self.params.alert) != (p.gravity, p.dt, p.alert) {
            self.params.gravity = p.gravity;
            self.params.dt = p.dt;
            self.params.inv_dt = 1.0 / p.dt;
            self.params.alert = p.alert;
            self.ctx
                .queue
                .write_buffer(&self.bufs.params, 0, bytemuck::bytes_of(&self.params));
        }
        let n = self.n as u32;
        let mut enc = self.encoder("hourglass.dem.step");
        if !self.primed {
            self.record_detect_force(&mut enc);
            // The priming detection's counters are not a step's.
            enc.clear_buffer(&self.bufs.stats, 0, None);
            self.primed = true;
        }
        {
            let mut ps = pass(&mut enc, "hourglass.dem_integrate.kick_drift");
            self.kernels
                .integrate
                .dispatch_kick_drift(&mut ps, &self.groups.kick_drift, n);
        }
        self.record_detect_force(&mut enc);
        {
            let mut ps = pass(&mut enc, "hourglass.dem_integrate.kick");
            self.kernels.integrate.dispatch_kick(&mut ps, &self.groups.kick, n);
        }
        self.ctx.queue.submit([enc.finish()]);
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
            self.window = 0;
        }
        Ok(stats)
    }

    pub fn set_walls(&mut self, walls: &Walls) {
        self.bufs.segments = storage(&self.ctx, "hourglass.dem.segments", &walls.segments);
        self.bufs.corners = storage(&self.ctx, "hourglass.dem.corners", &walls.corners);
        self.params.n_segments = walls.segments.len() as u32;
        self.params.n_corners = walls.corners.len() as u32;
        self.ctx
            .queue
            .write_buffer(&self.bufs.params, 0, bytemuck::bytes_of(&self.params));
        self.groups = Self::groups(&self.ctx, &self.kernels, &self.bufs, self.grid.cells() as u32);
        self.primed = false;
    }

    pub fn grains(&mut self) -> Result<&Grains> {
        if !self.host_fresh {
            let b = &self.bufs;
            let bufs = GrainBuffers {
                pos: &b.pos,
                vel: &b.vel,
                radius: &b.radius,
                inv_mass: &b.inv_mass,
                id: &b.id,
                ang_vel: Some(&b.ang_vel),
            };
            self.host = read_grains(&self.ctx, &bufs, self.n)?;
            self.host_fresh = true;
        }
        Ok(&self.host)
    }

    pub fn totals(&mut self, region: &Region) -> Result<Totals> {
        self.params.set_region(region);
        self.ctx
            .queue
            .write_buffer(&self.bufs.params, 0, bytemuck::bytes_of(&self.params));
        let mut enc = self.encoder("hourglass.reduce");
        {
            let mut ps = pass(&mut enc, "hourglass.reduce");
            self.kernels
                .reduce
                .dispatch(&mut ps, &self.groups.reduce, self.n as u32);
        }
        self.ctx.queue.submit([enc.finish()]);
        let parts: Vec<ReducePartial> = read(&self.ctx, &self.bufs.partials, partials(self.n))?;
        Ok(sum_partials(&parts))
    }

    pub fn set_phase(&mut self, phase: Phase) {
        self.phase = phase;
    }

    pub fn max_angular_speed(&mut self) -> Result<f32> {
        let w: Vec<f32> = read(&self.ctx, &self.bufs.ang_vel, self.n)?;
        Ok(w.iter().fold(0.0f32, |m, w| m.max(w.abs())))
    }
}
