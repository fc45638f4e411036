//! Stage `jacobi_contact` (shaders/jacobi_contact.wgsl): new impulses of every
//! contact from one velocity snapshot,
//! P' = max(0, P - omega (u + (max(d,0) + beta min(d + slop,0))/dt) / W), and per grain
//! the largest |P' - P| W / omega (reduced by [`super::residual_max`]).
//! CPU twin: `cpu::jacobi::jacobi_contact`. The pipeline with `FRICTION` set
//! (DESIGN §1d) also updates the tangential impulse from the spins.

use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct JacobiContact {
    kernel: Kernel,
    friction: Kernel,
}

impl JacobiContact {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        JacobiContact {
            kernel: Kernel::with_friction(ctx, cfg, Stage::JacobiContact, "main", false),
            friction: Kernel::with_friction(ctx, cfg, Stage::JacobiContact, "main", true),
        }
    }

    /// Bindings, in order: params, count, slots (impulses updated), vel,
    /// residual (written, m/s per grain), spin (rad/s) and radius (m); the
    /// last two are read with friction only, but both pipelines take them.
    pub fn bind(&self, ctx: &GpuContext, b: &[&wgpu::Buffer; 7]) -> wgpu::BindGroup {
        self.kernel.bind(ctx, b)
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }

    /// The bindings of [`bind`](Self::bind), for the frictional pipeline.
    pub fn bind_friction(&self, ctx: &GpuContext, b: &[&wgpu::Buffer; 7]) -> wgpu::BindGroup {
        self.friction.bind(ctx, b)
    }

    pub fn dispatch_friction(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.friction.dispatch(pass, group, n_grains);
    }
}
