//! The soft-sphere DEM step on the GPU (DESIGN §1b; the law in [`crate::cpu::dem`]).
//! Binning and detection are the NSCD path's kernels; the DEM stages are
//!
//! ```text
//!   shaders/dem_force.wgsl      per-grain gather of force and torque    (cpu::dem::force)
//!   shaders/dem_integrate.wgsl  velocity Verlet: kick_drift, kick       (cpu::dem::integrate)
//!   source = prelude + shaders/shared.wgsl + shaders/dem_shared.wgsl (DemLaw) + the stage
//! ```
//! Kept apart from [`super::Stage`] so that the DEM and NSCD paths can change
//! independently; [`DemKernel`] is [`super::Kernel`] for these stages.

pub mod backend;
pub mod force;
pub mod integrate;

pub use backend::GpuDemBackend;

use super::{GpuContext, SHARED_WGSL, ShaderConfig, workgroups};

/// shaders/dem_shared.wgsl: the `DemLaw` uniform.
pub const DEM_SHARED_WGSL: &str = include_str!("../../../shaders/dem_shared.wgsl");

/// The DEM stages, named like their shader files and CPU twins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DemStage {
    DemForce,
    DemIntegrate,
}

impl DemStage {
    pub const ALL: [DemStage; 2] = [DemStage::DemForce, DemStage::DemIntegrate];

    pub fn name(self) -> &'static str {
        match self {
            DemStage::DemForce => "dem_force",
            DemStage::DemIntegrate => "dem_integrate",
        }
    }

    /// `"hourglass.<stage>"`.
    pub fn label(self) -> String {
        format!("hourglass.{}", self.name())
    }

    pub fn wgsl(self) -> &'static str {
        match self {
            DemStage::DemForce => include_str!("../../../shaders/dem_force.wgsl"),
            DemStage::DemIntegrate => include_str!("../../../shaders/dem_integrate.wgsl"),
        }
    }

    /// The full source the stage's pipelines compile.
    pub fn source(self, cfg: &ShaderConfig) -> String {
        format!(
            "{}\n{}\n{}\n{}",
            cfg.prelude(),
            SHARED_WGSL,
            DEM_SHARED_WGSL,
            self.wgsl()
        )
    }
}

/// A compute pipeline of a DEM stage and its automatic bind group layout.
pub struct DemKernel {
    stage: DemStage,
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    max_per_dim: u32,
}

impl DemKernel {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig, stage: DemStage, entry: &str) -> DemKernel {
        let label = stage.label();
        let module = ctx.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(&label),
            source: wgpu::ShaderSource::Wgsl(stage.source(cfg).into()),
        });
        let pipeline = ctx.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&format!("{label}.{entry}")),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        });
        let layout = pipeline.get_bind_group_layout(0);
        DemKernel {
            stage,
            pipeline,
            layout,
            max_per_dim: ctx.limits.max_compute_workgroups_per_dimension,
        }
    }

    /// A bind group of whole buffers at the given binding numbers.
    pub fn bind_at(&self, ctx: &GpuContext, buffers: &[(u32, &wgpu::Buffer)]) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .map(|&(binding, b)| wgpu::BindGroupEntry {
                binding,
                resource: b.as_entire_binding(),
            })
            .collect();
        ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&self.stage.label()),
            layout: &self.layout,
            entries: &entries,
        })
    }

    /// One invocation per element of `len` (nothing when `len` is 0).
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, len: u32) {
        let (x, y) = workgroups(len, self.max_per_dim);
        if x == 0 {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, group, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }
}
