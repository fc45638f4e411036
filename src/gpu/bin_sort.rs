//! Stage `bin_sort` (shaders/bin_sort.wgsl): after `bin_scatter`, the grains
//! of each cell in increasing index order, one invocation per cell sorting
//! its slice of `sorted` in place. The scatter fills a cell in atomic order,
//! which varies from run to run; after the sort the binning, and with it the
//! order of every contact list and of every per-grain sum, is the same in
//! every run on a given adapter, and the same as the CPU's.
//! CPU twin: `cpu::grid::bin_sort`.

use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct BinSort {
    kernel: Kernel,
}

impl BinSort {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        BinSort {
            kernel: Kernel::new(ctx, cfg, Stage::BinSort, "main"),
        }
    }

    /// Bindings: params, cell_start, sorted (sorted in place).
    pub fn bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        cell_start: &wgpu::Buffer,
        sorted: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.kernel.bind(ctx, &[params, cell_start, sorted])
    }

    /// One invocation per cell (`params.n_cells` = `cells`).
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, cells: u32) {
        self.kernel.dispatch(pass, group, cells);
    }
}
