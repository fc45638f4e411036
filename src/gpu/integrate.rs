//! Stage `integrate` (shaders/integrate.wgsl): x += dt v after the contact
//! solve. CPU twin: `cpu::integrate::integrate`.

use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct Integrate {
    kernel: Kernel,
}

impl Integrate {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        Integrate {
            kernel: Kernel::new(ctx, cfg, Stage::Integrate, "main"),
        }
    }

    /// Bindings: params, pos (updated), vel.
    pub fn bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        pos: &wgpu::Buffer,
        vel: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.kernel.bind(ctx, &[params, pos, vel])
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}
