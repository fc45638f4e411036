//! Stage `integrate` (shaders/integrate.wgsl): x += dt v after the contact
//! solve. CPU twin: `cpu::integrate::integrate`. Entry point
//! `integrate_angle` (friction): theta += dt w; twin `cpu::integrate::integrate_angle`.

use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct Integrate {
    kernel: Kernel,
    angle: Kernel,
}

impl Integrate {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        Integrate {
            kernel: Kernel::new(ctx, cfg, Stage::Integrate, "main"),
            angle: Kernel::new(ctx, cfg, Stage::Integrate, "integrate_angle"),
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

    /// Bindings of `integrate_angle`: params, angle (updated, rad), spin (rad/s).
    pub fn bind_angle(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        angle: &wgpu::Buffer,
        spin: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.angle.bind_at(ctx, &[(0, params), (3, angle), (4, spin)])
    }

    pub fn dispatch_angle(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.angle.dispatch(pass, group, n_grains);
    }
}
