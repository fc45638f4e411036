//! Stage `warm_start` (shaders/warm_start.wgsl): a listed contact found again
//! in last step's list of the same grain (same other body) starts from its
//! previous impulse, others from 0. CPU twin: `cpu::warm_start::warm_start`.
//! Entry point `bounce` (restitution, DESIGN §1e): each contact's bounce
//! velocity from the start-of-step velocities. CPU twin: `cpu::warm_start::bounce`.

use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct WarmStart {
    kernel: Kernel,
    bounce: Kernel,
}

impl WarmStart {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        WarmStart {
            kernel: Kernel::new(ctx, cfg, Stage::WarmStart, "main"),
            bounce: Kernel::new(ctx, cfg, Stage::WarmStart, "bounce"),
        }
    }

    /// Bindings: params, count, slots (impulses written), prev_count, prev_slots.
    pub fn bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        count: &wgpu::Buffer,
        slots: &wgpu::Buffer,
        prev_count: &wgpu::Buffer,
        prev_slots: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.kernel.bind(ctx, &[params, count, slots, prev_count, prev_slots])
    }

    /// Entry point `bounce`. Bindings: params, count, slots (bounce
    /// written), vel (at binding 5: the start-of-step velocities).
    pub fn bind_bounce(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        count: &wgpu::Buffer,
        slots: &wgpu::Buffer,
        vel: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.bounce
            .bind_at(ctx, &[(0, params), (1, count), (2, slots), (5, vel)])
    }

    pub fn dispatch_bounce(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.bounce.dispatch(pass, group, n_grains);
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}
