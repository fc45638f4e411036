//! The GPU-resident state of a simulation: per-grain arrays, binning scratch,
//! two contact lists (this step's and the previous one's, swapped by parity),
//! the step counters, and every bind group of the step, built once (again when
//! the walls change).
//!
//! ```text
//!   grains:   pos vel radius inv_mass id vel_free residual     (n each; tmp_* for reorder)
//!   bins:     cell_of (n) sorted (n) cell_count cursor (cells) cell_start (cells + 1)
//!   lists[p]: count (n) slots (n K Contact)                     p = 0, 1
//!   stats:    [residual bits, |v|^2 bits, overflow, contacts]   read back at each check
//! ```

use super::buffers::{storage, storage_zeroed, uniform};
use super::detect::DetectBindings;
use super::prefix_sum::ScanPlan;
use super::reduce::{ReduceBindings, partials};
use super::{
    GpuContext, Params, ReducePartial, STAT_WORDS, ShaderConfig, bin_count, bin_scatter, detect, free_velocity,
    integrate, jacobi_contact, jacobi_gather, prefix_sum, reduce, reorder, residual_max, warm_start,
};
use crate::model::{Contact, Grains, Walls};

/// Every pipeline of the step, built once.
pub struct Kernels {
    pub free_velocity: free_velocity::FreeVelocity,
    pub bin_count: bin_count::BinCount,
    pub prefix_sum: prefix_sum::PrefixSum,
    pub bin_scatter: bin_scatter::BinScatter,
    pub reorder: reorder::Reorder,
    pub detect: detect::Detect,
    pub warm_start: warm_start::WarmStart,
    pub jacobi_contact: jacobi_contact::JacobiContact,
    pub jacobi_gather: jacobi_gather::JacobiGather,
    pub residual_max: residual_max::ResidualMax,
    pub integrate: integrate::Integrate,
    pub reduce: reduce::Reduce,
}

impl Kernels {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Kernels {
        Kernels {
            free_velocity: free_velocity::FreeVelocity::new(ctx, cfg),
            bin_count: bin_count::BinCount::new(ctx, cfg),
            prefix_sum: prefix_sum::PrefixSum::new(ctx, cfg),
            bin_scatter: bin_scatter::BinScatter::new(ctx, cfg),
            reorder: reorder::Reorder::new(ctx, cfg),
            detect: detect::Detect::new(ctx, cfg),
            warm_start: warm_start::WarmStart::new(ctx, cfg),
            jacobi_contact: jacobi_contact::JacobiContact::new(ctx, cfg),
            jacobi_gather: jacobi_gather::JacobiGather::new(ctx, cfg),
            residual_max: residual_max::ResidualMax::new(ctx, cfg),
            integrate: integrate::Integrate::new(ctx, cfg),
            reduce: reduce::Reduce::new(ctx, cfg),
        }
    }
}

/// One per-grain array and its reorder scratch twin.
pub struct Permuted {
    pub buf: wgpu::Buffer,
    pub tmp: wgpu::Buffer,
    /// 8-byte elements (pos, vel) or 4-byte ones.
    pub wide: bool,
}

/// The data buffers, sized from N, K, the grid and the walls.
pub struct Buffers {
    pub params: wgpu::Buffer,
    /// pos, vel, radius, inv_mass, id (in this order).
    pub grains: [Permuted; 5],
    pub vel_free: wgpu::Buffer,
    pub residual: wgpu::Buffer,
    pub cell_of: wgpu::Buffer,
    pub sorted: wgpu::Buffer,
    pub cell_count: wgpu::Buffer,
    pub cursor: wgpu::Buffer,
    pub cell_start: wgpu::Buffer,
    pub count: [wgpu::Buffer; 2],
    pub slots: [wgpu::Buffer; 2],
    pub stats: wgpu::Buffer,
    pub stats_staging: wgpu::Buffer,
    pub partials: wgpu::Buffer,
    pub segments: wgpu::Buffer,
    pub corners: wgpu::Buffer,
}

pub const POS: usize = 0;
pub const VEL: usize = 1;
pub const RADIUS: usize = 2;
pub const INV_MASS: usize = 3;
pub const ID: usize = 4;

impl Buffers {
    pub fn new(ctx: &GpuContext, params: &Params, grains: &Grains, walls: &Walls, cells: usize, k: usize) -> Buffers {
        let n = grains.len();
        let l = |s: &str| format!("hourglass.{s}");
        let permuted = |name: &str, bytes: &[u8], wide: bool| Permuted {
            buf: storage(ctx, &l(name), bytes),
            tmp: storage_zeroed::<u8>(ctx, &l(&format!("{name}.reorder")), bytes.len()),
            wide,
        };
        Buffers {
            params: uniform(ctx, &l("params"), params),
            grains: [
                permuted("pos", bytemuck::cast_slice(&grains.pos), true),
                permuted("vel", bytemuck::cast_slice(&grains.vel), true),
                permuted("radius", bytemuck::cast_slice(&grains.radius), false),
                permuted("inv_mass", bytemuck::cast_slice(&grains.inv_mass), false),
                permuted("id", bytemuck::cast_slice(&grains.id), false),
            ],
            vel_free: storage_zeroed::<[f32; 2]>(ctx, &l("vel_free"), n),
            residual: storage_zeroed::<f32>(ctx, &l("residual"), n),
            cell_of: storage_zeroed::<u32>(ctx, &l("cell_of"), n),
            sorted: storage_zeroed::<u32>(ctx, &l("sorted"), n),
            cell_count: storage_zeroed::<u32>(ctx, &l("cell_count"), cells),
            cursor: storage_zeroed::<u32>(ctx, &l("cursor"), cells),
            cell_start: storage_zeroed::<u32>(ctx, &l("cell_start"), cells + 1),
            count: [0, 1].map(|_| storage_zeroed::<u32>(ctx, &l("count"), n)),
            slots: [0, 1].map(|_| storage_zeroed::<Contact>(ctx, &l("slots"), n * k)),
            stats: storage_zeroed::<u32>(ctx, &l("stats"), STAT_WORDS as usize),
            stats_staging: ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&l("stats.readback")),
                size: u64::from(STAT_WORDS) * 4,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            partials: storage_zeroed::<ReducePartial>(ctx, &l("partials"), partials(n)),
            segments: storage(ctx, &l("segments"), &walls.segments),
            corners: storage(ctx, &l("corners"), &walls.corners),
        }
    }

    /// Replace the wall buffers (the gate opens).
    pub fn set_walls(&mut self, ctx: &GpuContext, walls: &Walls) {
        self.segments = storage(ctx, "hourglass.segments", &walls.segments);
        self.corners = storage(ctx, "hourglass.corners", &walls.corners);
    }
}

/// Every bind group of the step; `[p]` entries work on lists p (this step's)
/// with lists 1 - p as the previous step's.
pub struct Groups {
    pub free_velocity: wgpu::BindGroup,
    pub bin_count: wgpu::BindGroup,
    pub scan: ScanPlan,
    pub bin_scatter: wgpu::BindGroup,
    pub reorder: Vec<(bool, wgpu::BindGroup)>,
    pub detect: [wgpu::BindGroup; 2],
    pub warm_start: [wgpu::BindGroup; 2],
    pub jacobi_contact: [wgpu::BindGroup; 2],
    pub jacobi_gather: [wgpu::BindGroup; 2],
    pub residual_max: wgpu::BindGroup,
    pub integrate: wgpu::BindGroup,
    pub reduce: [wgpu::BindGroup; 2],
}

impl Groups {
    pub fn new(ctx: &GpuContext, k: &Kernels, b: &Buffers, cells: u32) -> Groups {
        let g = |i: usize| &b.grains[i].buf;
        let detect = |p: usize| {
            k.detect.bind(
                ctx,
                &DetectBindings {
                    params: &b.params,
                    cell_start: &b.cell_start,
                    sorted: &b.sorted,
                    pos: g(POS),
                    radius: g(RADIUS),
                    inv_mass: g(INV_MASS),
                    segments: &b.segments,
                    corners: &b.corners,
                    count: &b.count[p],
                    slots: &b.slots[p],
                    stats: &b.stats,
                },
            )
        };
        let reduce = |p: usize| {
            k.reduce.bind(
                ctx,
                &ReduceBindings {
                    params: &b.params,
                    pos: g(POS),
                    vel: g(VEL),
                    radius: g(RADIUS),
                    inv_mass: g(INV_MASS),
                    count: &b.count[p],
                    slots: &b.slots[p],
                    segments: &b.segments,
                    corners: &b.corners,
                    partials: &b.partials,
                },
            )
        };
        Groups {
            free_velocity: k.free_velocity.bind(ctx, &b.params, g(VEL), g(INV_MASS), &b.vel_free),
            bin_count: k.bin_count.bind(ctx, &b.params, g(POS), &b.cell_of, &b.cell_count),
            scan: k.prefix_sum.plan(ctx, &b.cell_count, &b.cell_start, cells),
            bin_scatter: k.bin_scatter.bind(ctx, &b.params, &b.cell_of, &b.cursor, &b.sorted),
            reorder: b
                .grains
                .iter()
                .map(|a| k.reorder.bind(ctx, a.wide, &b.params, &b.sorted, &a.buf, &a.tmp))
                .collect(),
            detect: [detect(0), detect(1)],
            warm_start: [0, 1].map(|p| {
                k.warm_start.bind(
                    ctx,
                    &b.params,
                    &b.count[p],
                    &b.slots[p],
                    &b.count[1 - p],
                    &b.slots[1 - p],
                )
            }),
            jacobi_contact: [0, 1].map(|p| {
                k.jacobi_contact
                    .bind(ctx, &b.params, &b.count[p], &b.slots[p], g(VEL), &b.residual)
            }),
            jacobi_gather: [0, 1].map(|p| {
                k.jacobi_gather.bind(
                    ctx,
                    &b.params,
                    &b.count[p],
                    &b.slots[p],
                    &b.vel_free,
                    g(INV_MASS),
                    g(VEL),
                )
            }),
            residual_max: k.residual_max.bind(ctx, &b.params, &b.residual, g(VEL), &b.stats),
            integrate: k.integrate.bind(ctx, &b.params, g(POS), g(VEL)),
            reduce: [reduce(0), reduce(1)],
        }
    }
}
