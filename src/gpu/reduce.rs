//! Stage `reduce` (shaders/reduce.wgsl): one f32 [`ReducePartial`] per
//! workgroup of grains (a tree in workgroup memory); [`sum_partials`] adds
//! them on the host in f64 into a [`Totals`] row. Relative error of the sums
//! is about log2(WORKGROUP_SIZE) f32 roundings, ~1e-6. CPU twin: `cpu::reduce::reduce`.

use super::{GpuContext, Kernel, ReducePartial, ShaderConfig, Stage, WORKGROUP_SIZE, registry};
use crate::model::Totals;

pub struct Reduce {
    kernel: Kernel,
}

/// Buffers of the reduction, in binding order.
pub struct ReduceBindings<'a> {
    pub params: &'a wgpu::Buffer,
    pub pos: &'a wgpu::Buffer,
    pub vel: &'a wgpu::Buffer,
    pub radius: &'a wgpu::Buffer,
    pub inv_mass: &'a wgpu::Buffer,
    pub count: &'a wgpu::Buffer,
    pub slots: &'a wgpu::Buffer,
    pub segments: &'a wgpu::Buffer,
    pub corners: &'a wgpu::Buffer,
    /// Written: [`partials`] entries.
    pub partials: &'a wgpu::Buffer,
}

/// Number of partials for `n` grains.
pub fn partials(n: usize) -> usize {
    n.div_ceil(WORKGROUP_SIZE as usize)
}

impl Reduce {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        Reduce {
            kernel: Kernel::new(ctx, cfg, Stage::Reduce, "main"),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, b: &ReduceBindings) -> wgpu::BindGroup {
        let given = [
            ("params", b.params),
            ("pos", b.pos),
            ("vel", b.vel),
            ("radius", b.radius),
            ("inv_mass", b.inv_mass),
            ("count", b.count),
            ("slots", b.slots),
            ("segments", b.segments),
            ("corners", b.corners),
            ("partials", b.partials),
        ];
        registry::group(ctx, &self.kernel, &given)
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}

/// The diagnostics row from the per-workgroup partials (f64 sums on the host).
pub fn sum_partials(parts: &[ReducePartial]) -> Totals {
    let mut t = Totals::default();
    for p in parts {
        t.kinetic_energy += f64::from(p.kinetic);
        t.potential_energy += f64::from(p.potential);
        t.momentum[0] += f64::from(p.momentum[0]);
        t.momentum[1] += f64::from(p.momentum[1]);
        t.passed += u64::from(p.passed);
        t.lost += u64::from(p.lost);
        t.max_overlap = t.max_overlap.max(f64::from(p.max_overlap));
        t.max_speed = t.max_speed.max(f64::from(p.max_speed));
    }
    t
}
