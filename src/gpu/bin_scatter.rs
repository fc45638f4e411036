//! Stage `bin_scatter` (shaders/bin_scatter.wgsl): sorted[cursor[cell_of[i]]++] = i
//! with an atomic cursor per cell, which the caller initialises as a copy of
//! cell_start ([`record_cursor_copy`]). The order inside a cell is that of
//! the atomics, which varies from run to run; `bin_sort` puts it in index order.
//! CPU twin: `cpu::grid::bin_scatter`.

use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct BinScatter {
    kernel: Kernel,
}

impl BinScatter {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        BinScatter {
            kernel: Kernel::new(ctx, cfg, Stage::BinScatter, "main"),
        }
    }

    /// Bindings: params, cell_of, cursor (atomic), sorted (written).
    pub fn bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        cell_of: &wgpu::Buffer,
        cursor: &wgpu::Buffer,
        sorted: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.kernel.bind(ctx, &[params, cell_of, cursor, sorted])
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}

/// cursor[c] = cell_start[c] for the `cells` cells (outside any compute pass).
pub fn record_cursor_copy(
    encoder: &mut wgpu::CommandEncoder,
    cell_start: &wgpu::Buffer,
    cursor: &wgpu::Buffer,
    cells: u32,
) {
    if cells > 0 {
        encoder.copy_buffer_to_buffer(cell_start, 0, cursor, 0, u64::from(cells) * 4);
    }
}
