//! Stage `detect` (shaders/detect.wgsl): potential contacts into per-grain
//! lists of CAPACITY slots, the same layout and order as the CPU twin
//! `cpu::detect::detect`:
//!
//! ```text
//!   count: [c_0 .. c_{n-1}]   contacts FOUND per grain (may exceed K: overflow)
//!   slots: [grain 0: K][grain 1: K] ...   grains of the 3x3 cells, segments, corners
//!   stats[STAT_OVERFLOW] += sum max(0, c_i - K);  stats[STAT_CONTACTS] += distinct listed
//! ```

use super::{GpuContext, Kernel, ShaderConfig, Stage, registry};

pub struct Detect {
    kernel: Kernel,
}

/// Buffers of the detection stage, in binding order.
pub struct DetectBindings<'a> {
    pub params: &'a wgpu::Buffer,
    pub cell_start: &'a wgpu::Buffer,
    pub sorted: &'a wgpu::Buffer,
    pub pos: &'a wgpu::Buffer,
    pub radius: &'a wgpu::Buffer,
    pub inv_mass: &'a wgpu::Buffer,
    pub segments: &'a wgpu::Buffer,
    pub corners: &'a wgpu::Buffer,
    /// Written.
    pub count: &'a wgpu::Buffer,
    /// Written.
    pub slots: &'a wgpu::Buffer,
    /// Atomic counters (STAT_OVERFLOW, STAT_CONTACTS are added to).
    pub stats: &'a wgpu::Buffer,
}

impl Detect {
    /// Storage buffers the stage binds (the most of any stage; checked against the adapter).
    pub const STORAGE_BUFFERS: u32 = 10;

    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        Detect {
            kernel: Kernel::new(ctx, cfg, Stage::Detect, "main"),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, b: &DetectBindings) -> wgpu::BindGroup {
        let given = [
            ("params", b.params),
            ("cell_start", b.cell_start),
            ("sorted", b.sorted),
            ("pos", b.pos),
            ("radius", b.radius),
            ("inv_mass", b.inv_mass),
            ("segments", b.segments),
            ("corners", b.corners),
            ("count", b.count),
            ("slots", b.slots),
            ("stats", b.stats),
        ];
        registry::group(ctx, &self.kernel, &given)
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}
