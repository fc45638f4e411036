//! Stage `free_velocity` (shaders/free_velocity.wgsl): v_free = v + dt g for
//! movable grains, plus the stochastic forcing sqrt(dt) sigma w when sigma >
//! 0. CPU twin: `cpu::integrate::free_velocity`, then `cpu::integrate::forcing`.

use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct FreeVelocity {
    kernel: Kernel,
}

impl FreeVelocity {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        FreeVelocity {
            kernel: Kernel::new(ctx, cfg, Stage::FreeVelocity, "main"),
        }
    }

    /// Bindings: params, vel, inv_mass, vel_free (written), id (the grains'
    /// original ids, which the forcing's draws follow).
    pub fn bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        vel: &wgpu::Buffer,
        inv_mass: &wgpu::Buffer,
        vel_free: &wgpu::Buffer,
        id: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.kernel.bind(ctx, &[params, vel, inv_mass, vel_free, id])
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}
