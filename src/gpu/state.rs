//! What the NSCD stepper adds to the shared [`Pipeline`]: the free velocities,
//! the per-grain residual, the reorder scratch, and the kernels and bind
//! groups of its own stages, built once.
//!
//! ```text
//!   vel_free (n)  residual (n)  tmp[a] (n, like grain array a: reorder scratch)
//!   lists p = 0, 1 of the pipeline: this step's and the previous one's, swapped by parity
//! ```

use super::buffers::storage_zeroed;
use super::pipeline::{GRAIN_ARRAYS, INV_MASS, POS, Pipeline, VEL};
use super::{
    GpuContext, ShaderConfig, free_velocity, integrate, jacobi_contact, jacobi_gather, reorder, residual_max,
    warm_start,
};

/// Pipelines of the NSCD stages, built once.
pub struct Kernels {
    pub free_velocity: free_velocity::FreeVelocity,
    pub reorder: reorder::Reorder,
    pub warm_start: warm_start::WarmStart,
    pub jacobi_contact: jacobi_contact::JacobiContact,
    pub jacobi_gather: jacobi_gather::JacobiGather,
    pub residual_max: residual_max::ResidualMax,
    pub integrate: integrate::Integrate,
}

impl Kernels {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Kernels {
        Kernels {
            free_velocity: free_velocity::FreeVelocity::new(ctx, cfg),
            reorder: reorder::Reorder::new(ctx, cfg),
            warm_start: warm_start::WarmStart::new(ctx, cfg),
            jacobi_contact: jacobi_contact::JacobiContact::new(ctx, cfg),
            jacobi_gather: jacobi_gather::JacobiGather::new(ctx, cfg),
            residual_max: residual_max::ResidualMax::new(ctx, cfg),
            integrate: integrate::Integrate::new(ctx, cfg),
        }
    }
}

/// 8-byte elements (pos, vel) or 4-byte ones, for grain array `a`.
pub fn wide(a: usize) -> bool {
    a == POS || a == VEL
}

/// The NSCD buffers beside the pipeline's.
pub struct Buffers {
    pub vel_free: wgpu::Buffer,
    pub residual: wgpu::Buffer,
    /// Reorder scratch of each grain array.
    pub tmp: [wgpu::Buffer; 5],
}

impl Buffers {
    pub fn new(ctx: &GpuContext, n: usize) -> Buffers {
        let l = |s: &str| format!("hourglass.{s}");
        Buffers {
            vel_free: storage_zeroed::<[f32; 2]>(ctx, &l("vel_free"), n),
            residual: storage_zeroed::<f32>(ctx, &l("residual"), n),
            tmp: std::array::from_fn(|a| {
                let bytes = n * if wide(a) { 8 } else { 4 };
                storage_zeroed::<u8>(ctx, &l(&format!("{}.reorder", GRAIN_ARRAYS[a])), bytes)
            }),
        }
    }
}

/// Bind groups of the NSCD stages; `[p]` entries work on lists p (this
/// step's) with lists 1 - p as the previous step's.
pub struct Groups {
    pub free_velocity: wgpu::BindGroup,
    pub reorder: Vec<(bool, wgpu::BindGroup)>,
    pub warm_start: [wgpu::BindGroup; 2],
    pub jacobi_contact: [wgpu::BindGroup; 2],
    pub jacobi_gather: [wgpu::BindGroup; 2],
    pub residual_max: wgpu::BindGroup,
    pub integrate: wgpu::BindGroup,
}

impl Groups {
    pub fn new(core: &Pipeline, k: &Kernels, own: &Buffers) -> Groups {
        let (ctx, b) = (&core.ctx, &core.bufs);
        let g = &b.grains;
        Groups {
            free_velocity: k
                .free_velocity
                .bind(ctx, &b.params, &g[VEL], &g[INV_MASS], &own.vel_free),
            reorder: (0..g.len())
                .map(|a| k.reorder.bind(ctx, wide(a), &b.params, &b.sorted, &g[a], &own.tmp[a]))
                .collect(),
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
                    .bind(ctx, &b.params, &b.count[p], &b.slots[p], &g[VEL], &own.residual)
            }),
            jacobi_gather: [0, 1].map(|p| {
                k.jacobi_gather.bind(
                    ctx,
                    &b.params,
                    &b.count[p],
                    &b.slots[p],
                    &own.vel_free,
                    &g[INV_MASS],
                    &g[VEL],
                )
            }),
            residual_max: k.residual_max.bind(ctx, &b.params, &own.residual, &g[VEL], &b.stats),
            integrate: k.integrate.bind(ctx, &b.params, &g[POS], &g[VEL]),
        }
    }
}
