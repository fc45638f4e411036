//! Stage `reorder` (shaders/reorder.wgsl): permute the per-grain arrays into
//! cell order for memory locality, dst[k] = src[sorted[k]] with `sorted` from
//! the last binning, then copy dst back over src.
//!
//! ```text
//!   pos, vel (8 bytes: gather2)   radius, inv_mass, id (4 bytes: gather1)
//! ```
//! [`super::GpuBackend`] does it every [`super::backend::REORDER_EVERY`] steps
//! and when the walls change. CPU twin: `cpu::reorder::reorder`.

use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct Reorder {
    gather1: Kernel,
    gather2: Kernel,
}

impl Reorder {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        Reorder {
            gather1: Kernel::new(ctx, cfg, Stage::Reorder, "gather1"),
            gather2: Kernel::new(ctx, cfg, Stage::Reorder, "gather2"),
        }
    }

    /// Bindings of one array: params, sorted, src, dst (written); `wide` for 8-byte elements.
    pub fn bind(
        &self,
        ctx: &GpuContext,
        wide: bool,
        params: &wgpu::Buffer,
        sorted: &wgpu::Buffer,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
    ) -> (bool, wgpu::BindGroup) {
        let group = if wide {
            self.gather2
                .bind_at(ctx, &[(0, params), (1, sorted), (4, src), (5, dst)])
        } else {
            self.gather1
                .bind_at(ctx, &[(0, params), (1, sorted), (2, src), (3, dst)])
        };
        (wide, group)
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &(bool, wgpu::BindGroup), n_grains: u32) {
        let kernel = if group.0 { &self.gather2 } else { &self.gather1 };
        kernel.dispatch(pass, &group.1, n_grains);
    }
}
