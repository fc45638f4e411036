//! Stage `cohesion` (shaders/cohesion.wgsl): capillary bridges (DESIGN §1e)
//! added to the free velocities, each grain over its own contact list.
//! CPU twin: `cpu::cohesion::cohesion`.

use super::buffers::uniform;
use super::{GpuContext, Kernel, ShaderConfig, Stage};
use crate::model::Cohesion;

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

    /// Bindings: params, (law), count, slots, radius, inv_mass, vel_free (written).
    #[allow(clippy::too_many_arguments)]
    pub fn bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        count: &wgpu::Buffer,
        slots: &wgpu::Buffer,
        radius: &wgpu::Buffer,
        inv_mass: &wgpu::Buffer,
        vel_free: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.kernel
            .bind(ctx, &[params, &self.law, count, slots, radius, inv_mass, vel_free])
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}
