//! Stage `jacobi_contact` (shaders/jacobi_contact.wgsl): new impulses of every
//! contact from one velocity snapshot,
//! P' = max(0, P - omega (u + (max(d,0) + beta min(d + slop,0))/dt) / W), and per grain
//! the largest |P' - P| W / omega (reduced by [`super::residual_max`]).
//! CPU twin: `cpu::jacobi::jacobi_contact`. The pipeline with `FRICTION` set
//! (DESIGN §1d) also updates the tangential impulse from the spins.

use super::{GpuContext, Kernel, ShaderConfig, Stage, registry};

/// The buffers of `jacobi_contact::main` (its bindings of the same names);
/// `spin` and `radius` are read with friction only, but both pipelines take them.
pub struct JacobiContactBindings<'a> {
    pub params: &'a wgpu::Buffer,
    pub count: &'a wgpu::Buffer,
    /// Impulses updated.
    pub slots: &'a wgpu::Buffer,
    pub vel: &'a wgpu::Buffer,
    /// Written: m/s per grain.
    pub residual: &'a wgpu::Buffer,
    /// rad/s.
    pub spin: &'a wgpu::Buffer,
    /// m.
    pub radius: &'a wgpu::Buffer,
}

impl<'a> JacobiContactBindings<'a> {
    fn named(&self) -> [(&'static str, &'a wgpu::Buffer); 7] {
        [
            ("params", self.params),
            ("count", self.count),
            ("slots", self.slots),
            ("vel", self.vel),
            ("residual", self.residual),
            ("spin", self.spin),
            ("radius", self.radius),
        ]
    }
}

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

    /// The bind group of `b`, numbered by the registry.
    pub fn bind(&self, ctx: &GpuContext, b: &JacobiContactBindings) -> wgpu::BindGroup {
        registry::group(ctx, &self.kernel, &b.named())
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }

    /// The bindings of [`bind`](Self::bind), for the frictional pipeline.
    pub fn bind_friction(&self, ctx: &GpuContext, b: &JacobiContactBindings) -> wgpu::BindGroup {
        registry::group(ctx, &self.friction, &b.named())
    }

    pub fn dispatch_friction(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.friction.dispatch(pass, group, n_grains);
    }
}
