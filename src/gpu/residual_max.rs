//! Stage `residual_max` (shaders/residual_max.wgsl): max_i residual[i] and
//! max_i |v_i|^2 into stats[STAT_RESIDUAL], stats[STAT_SPEED2] by atomicMax on
//! the f32 bit patterns (order-preserving for non-negative floats), one atomic
//! per workgroup. The caller zeroes those two words first ([`record_clear`]).
//! CPU twin: `cpu::residual_max::residual_max`.

use super::{GpuContext, Kernel, STAT_RESIDUAL, STAT_SPEED2, ShaderConfig, Stage};

pub struct ResidualMax {
    kernel: Kernel,
}

impl ResidualMax {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        ResidualMax {
            kernel: Kernel::new(ctx, cfg, Stage::ResidualMax, "main"),
        }
    }

    /// Bindings: params, residual, vel, stats (atomic).
    pub fn bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        residual: &wgpu::Buffer,
        vel: &wgpu::Buffer,
        stats: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.kernel.bind(ctx, &[params, residual, vel, stats])
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}

/// Zero stats[STAT_RESIDUAL] and stats[STAT_SPEED2] (outside any compute pass).
pub fn record_clear(encoder: &mut wgpu::CommandEncoder, stats: &wgpu::Buffer) {
    debug_assert_eq!(STAT_SPEED2, STAT_RESIDUAL + 1);
    encoder.clear_buffer(stats, u64::from(STAT_RESIDUAL) * 4, Some(8));
}
