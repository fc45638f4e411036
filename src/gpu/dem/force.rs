//! Stage `dem_force` (shaders/dem_force.wgsl): force and torque of every grain
//! gathered from its own contact list. CPU twin: `cpu::dem::force::dem_force`.

use crate::gpu::{GpuContext, ShaderConfig};
use crate::gpu::{Kernel, Stage};

pub struct DemForce {
    kernel: Kernel,
}

/// Buffers of the stage, in binding order.
pub struct DemForceBindings<'a> {
    pub params: &'a wgpu::Buffer,
    /// `DemLaw` uniform.
    pub law: &'a wgpu::Buffer,
    pub count: &'a wgpu::Buffer,
    pub slots: &'a wgpu::Buffer,
    pub radius: &'a wgpu::Buffer,
    pub inv_mass: &'a wgpu::Buffer,
    pub vel: &'a wgpu::Buffer,
    pub ang_vel: &'a wgpu::Buffer,
    /// Written: vec2<f32> per grain, N/m.
    pub force: &'a wgpu::Buffer,
    /// Written: f32 per grain, N.
    pub torque: &'a wgpu::Buffer,
}

impl DemForce {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        DemForce {
            kernel: Kernel::new(ctx, cfg, Stage::DemForce, "main"),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, b: &DemForceBindings) -> wgpu::BindGroup {
        let list = [
            b.params, b.law, b.count, b.slots, b.radius, b.inv_mass, b.vel, b.ang_vel, b.force, b.torque,
        ];
        let numbered: Vec<(u32, &wgpu::Buffer)> = list.iter().enumerate().map(|(i, b)| (i as u32, *b)).collect();
        self.kernel.bind_at(ctx, &numbered)
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}
