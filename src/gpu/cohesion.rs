//! Stage `cohesion` (shaders/cohesion.wgsl): capillary bridges (DESIGN §1e)
//! added to the free velocities, each grain over its own contact list.
//! CPU twin: `cpu::cohesion::cohesion`.

use super::buffers::uniform;
use super::{GpuContext, Kernel, ShaderConfig, Stage, registry};
use crate::model::Cohesion;

/// The buffers of `cohesion::main` (its bindings of the same names), but the law.
pub struct CohesionBindings<'a> {
    pub params: &'a wgpu::Buffer,
    pub count: &'a wgpu::Buffer,
    pub slots: &'a wgpu::Buffer,
    pub radius: &'a wgpu::Buffer,
    pub inv_mass: &'a wgpu::Buffer,
    /// Written: the bridges' impulses added.
    pub vel_free: &'a wgpu::Buffer,
}

pub struct CohesionStage {
    kernel: Kernel,
    /// The `Cohesion` uniform (`write` updates it).
    pub law: wgpu::Buffer,
}

impl CohesionStage {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        CohesionStage {
            kernel: Kernel::new(ctx, cfg, Stage::Cohesion, "main"),
            law: uniform(ctx, "hourglass.cohesion.law", &Cohesion::default()),
        }
    }

    /// Upload the law of the next steps.
    pub fn write(&self, ctx: &GpuContext, law: &Cohesion) {
        ctx.queue.write_buffer(&self.law, 0, bytemuck::bytes_of(law));
    }

    /// The bind group of `b` and the stage's own `law`, numbered by the registry.
    pub fn bind(&self, ctx: &GpuContext, b: &CohesionBindings) -> wgpu::BindGroup {
        let given = [
            ("params", b.params),
            ("law", &self.law),
            ("count", b.count),
            ("slots", b.slots),
            ("radius", b.radius),
            ("inv_mass", b.inv_mass),
            ("vel_free", b.vel_free),
        ];
        registry::group(ctx, &self.kernel, &given)
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}
