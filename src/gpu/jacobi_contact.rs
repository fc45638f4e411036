//! Stage `jacobi_contact` (shaders/jacobi_contact.wgsl): new impulses of every
//! contact from one velocity snapshot,
//! P' = max(0, P - omega (u + (max(d,0) + beta min(d + slop,0))/dt) / W), and per grain
//! the largest |P' - P| W / omega (reduced by [`super::residual_max`]).
//! CPU twin: `cpu::jacobi::jacobi_contact`. Entry point `friction` (DESIGN
//! §1d) also updates the tangential impulse from the spins; twin
//! `cpu::jacobi::jacobi_contact_friction`.

use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct JacobiContact {
    kernel: Kernel,
    friction: Kernel,
}

impl JacobiContact {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        JacobiContact {
            kernel: Kernel::new(ctx, cfg, Stage::JacobiContact, "main"),
            friction: Kernel::new(ctx, cfg, Stage::JacobiContact, "friction"),
        }
    }

    /// Bindings: params, count, slots (impulses updated), vel, residual (written, m/s per grain).
    pub fn bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        count: &wgpu::Buffer,
        slots: &wgpu::Buffer,
        vel: &wgpu::Buffer,
        residual: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.kernel.bind(ctx, &[params, count, slots, vel, residual])
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }

    /// Bindings of `friction`: those of [`bind`](Self::bind), then spin (rad/s) and radius (m).
    #[allow(clippy::too_many_arguments)]
    pub fn bind_friction(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        count: &wgpu::Buffer,
        slots: &wgpu::Buffer,
        vel: &wgpu::Buffer,
        residual: &wgpu::Buffer,
        spin: &wgpu::Buffer,
        radius: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.friction
            .bind(ctx, &[params, count, slots, vel, residual, spin, radius])
    }

    pub fn dispatch_friction(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.friction.dispatch(pass, group, n_grains);
    }
}
