//! Stage `bin_count` (shaders/bin_count.wgsl): cell_of[i] = cell(x_i) and
//! cell_count[c] += 1 by atomicAdd. The caller clears cell_count first.
//! CPU twin: `cpu::grid::bin_count`.

use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct BinCount {
    kernel: Kernel,
}

impl BinCount {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        BinCount {
            kernel: Kernel::new(ctx, cfg, Stage::BinCount, "main"),
        }
    }

    /// Bindings: params, pos, cell_of (written), cell_count (atomic, zeroed by the caller).
    pub fn bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        pos: &wgpu::Buffer,
        cell_of: &wgpu::Buffer,
        cell_count: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.kernel.bind(ctx, &[params, pos, cell_of, cell_count])
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}
