//! Stage `reduce` (shaders/reduce.wgsl, the kernel `pipeline::CoreKernels::reduce`):
//! one f32 [`ReducePartial`] per workgroup of grains (a tree in workgroup
//! memory); [`sum_partials`] adds them on the host in f64 into a [`Totals`] row. Relative error of the sums
//! is about log2(WORKGROUP_SIZE) f32 roundings, ~1e-6. CPU twin: `cpu::reduce::reduce`.

use super::{ReducePartial, WORKGROUP_SIZE};
use crate::model::Totals;

/// Number of partials for `n` grains.
pub fn partials(n: usize) -> usize {
    n.div_ceil(WORKGROUP_SIZE as usize)
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
