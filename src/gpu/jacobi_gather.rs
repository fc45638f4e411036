//! Stage `jacobi_gather` (shaders/jacobi_gather.wgsl): v_i = v_free_i + im_i
//! sum_c P_c n_c over grain i's own contact copies (no atomics).
//! CPU twin: `cpu::jacobi::jacobi_gather`. The pipeline with `FRICTION` set
//! (DESIGN §1d) adds the tangential impulses and writes the spins.

use super::{GpuContext, Kernel, ShaderConfig, Stage, registry};

/// The buffers of `jacobi_gather::main` (its bindings of the same names);
/// `spin_free`, `radius` and `spin` are read and written with friction only,
/// but both pipelines take them.
pub struct JacobiGatherBindings<'a> {
    pub params: &'a wgpu::Buffer,
    pub count: &'a wgpu::Buffer,
    pub slots: &'a wgpu::Buffer,
    pub vel_free: &'a wgpu::Buffer,
    pub inv_mass: &'a wgpu::Buffer,
    /// Written.
    pub vel: &'a wgpu::Buffer,
    pub spin_free: &'a wgpu::Buffer,
    pub radius: &'a wgpu::Buffer,
    /// Written.
    pub spin: &'a wgpu::Buffer,
}

impl<'a> JacobiGatherBindings<'a> {
    fn named(&self) -> [(&'static str, &'a wgpu::Buffer); 9] {
        [
            ("params", self.params),
            ("count", self.count),
            ("slots", self.slots),
            ("vel_free", self.vel_free),
            ("inv_mass", self.inv_mass),
            ("vel", self.vel),
            ("spin_free", self.spin_free),
            ("radius", self.radius),
            ("spin", self.spin),
        ]
    }
}

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

    /// The bind group of `b`, numbered by the registry.
    pub fn bind(&self, ctx: &GpuContext, b: &JacobiGatherBindings) -> wgpu::BindGroup {
        registry::group(ctx, &self.kernel, &b.named())
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }

    /// The bindings of [`bind`](Self::bind), for the frictional pipeline.
    pub fn bind_friction(&self, ctx: &GpuContext, b: &JacobiGatherBindings) -> wgpu::BindGroup {
        registry::group(ctx, &self.friction, &b.named())
    }

    pub fn dispatch_friction(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.friction.dispatch(pass, group, n_grains);
    }
}
