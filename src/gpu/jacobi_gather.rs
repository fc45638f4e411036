//! Stage `jacobi_gather` (shaders/jacobi_gather.wgsl): v_i = v_free_i + im_i
//! sum_c P_c n_c over grain i's own contact copies (no atomics).
//! CPU twin: `cpu::jacobi::jacobi_gather`. The pipeline with `FRICTION` set
//! (DESIGN §1d) adds the tangential impulses and writes the spins.

use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct JacobiGather {
    kernel: Kernel,
    friction: Kernel,
}

impl JacobiGather {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        JacobiGather {
            kernel: Kernel::with_friction(ctx, cfg, Stage::JacobiGather, "main", false),
            friction: Kernel::with_friction(ctx, cfg, Stage::JacobiGather, "main", true),
        }
    }

    /// Bindings, in order: params, count, slots, vel_free, inv_mass, vel
    /// (written), spin_free, radius, spin (written); the last three are read
    /// and written with friction only, but both pipelines take them.
    pub fn bind(&self, ctx: &GpuContext, b: &[&wgpu::Buffer; 9]) -> wgpu::BindGroup {
        self.kernel.bind(ctx, b)
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }

    /// The bindings of [`bind`](Self::bind), for the frictional pipeline.
    pub fn bind_friction(&self, ctx: &GpuContext, b: &[&wgpu::Buffer; 9]) -> wgpu::BindGroup {
        self.friction.bind(ctx, b)
    }

    pub fn dispatch_friction(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.friction.dispatch(pass, group, n_grains);
    }
}
