//! Stage `dem_integrate` (shaders/dem_integrate.wgsl): velocity Verlet's first
//! half kick and drift (`kick_drift`), and second half kick (`kick`, which also
//! folds max |v|^2 into stats[STAT_SPEED2]). CPU twin: `cpu::dem::integrate`.

use crate::gpu::{GpuContext, ShaderConfig};
use crate::gpu::{Kernel, Stage};

pub struct DemIntegrate {
    kick_drift: Kernel,
    kick: Kernel,
}

/// Buffers of the stage, in binding order.
pub struct DemIntegrateBindings<'a> {
    pub params: &'a wgpu::Buffer,
    /// Updated by `kick_drift` only.
    pub pos: &'a wgpu::Buffer,
    pub vel: &'a wgpu::Buffer,
    pub ang_vel: &'a wgpu::Buffer,
    pub force: &'a wgpu::Buffer,
    pub torque: &'a wgpu::Buffer,
    pub radius: &'a wgpu::Buffer,
    pub inv_mass: &'a wgpu::Buffer,
    /// Atomic counters (`kick` maxes STAT_SPEED2).
    pub stats: &'a wgpu::Buffer,
}

impl DemIntegrate {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        DemIntegrate {
            kick_drift: Kernel::new(ctx, cfg, Stage::DemIntegrate, "kick_drift"),
            kick: Kernel::new(ctx, cfg, Stage::DemIntegrate, "kick"),
        }
    }

    /// Bind groups of (kick_drift, kick).
    pub fn bind(&self, ctx: &GpuContext, b: &DemIntegrateBindings) -> (wgpu::BindGroup, wgpu::BindGroup) {
        let common = [
            (0, b.params),
            (2, b.vel),
            (3, b.ang_vel),
            (4, b.force),
            (5, b.torque),
            (6, b.radius),
            (7, b.inv_mass),
        ];
        let mut drift = common.to_vec();
        drift.push((1, b.pos));
        let mut kick = common.to_vec();
        kick.push((8, b.stats));
        (self.kick_drift.bind_at(ctx, &drift), self.kick.bind_at(ctx, &kick))
    }

    pub fn dispatch_kick_drift(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kick_drift.dispatch(pass, group, n_grains);
    }

    pub fn dispatch_kick(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kick.dispatch(pass, group, n_grains);
    }
}
