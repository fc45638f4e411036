//! Stage `jacobi_gather` (shaders/jacobi_gather.wgsl): v_i = v_free_i + im_i
//! sum_c P_c n_c over grain i's own contact copies (no atomics).
//! CPU twin: `cpu::jacobi::jacobi_gather`. Entry point `friction` (DESIGN
//! §1d) adds the tangential impulses and writes the spins; twin
//! `cpu::jacobi::jacobi_gather_friction`.

use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct JacobiGather {
    kernel: Kernel,
    friction: Kernel,
}

impl JacobiGather {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        JacobiGather {
            kernel: Kernel::new(ctx, cfg, Stage::JacobiGather, "main"),
            friction: Kernel::new(ctx, cfg, Stage::JacobiGather, "friction"),
        }
    }

    /// Bindings: params, count, slots, vel_free, inv_mass, vel (written).
    #[allow(clippy::too_many_arguments)]
    pub fn bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        count: &wgpu::Buffer,
        slots: &wgpu::Buffer,
        vel_free: &wgpu::Buffer,
        inv_mass: &wgpu::Buffer,
        vel: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.kernel.bind(ctx, &[params, count, slots, vel_free, inv_mass, vel])
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }

    /// Bindings of `friction`: those of [`bind`](Self::bind), then spin_free, radius, spin (written).
    pub fn bind_friction(&self, ctx: &GpuContext, b: &[&wgpu::Buffer; 9]) -> wgpu::BindGroup {
        self.friction.bind(ctx, b)
    }

    pub fn dispatch_friction(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.friction.dispatch(pass, group, n_grains);
    }
}
