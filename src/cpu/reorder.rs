//! Stage `reorder`: permute every per-grain array into cell order for memory
//! locality, a pure gather by the binning's `sorted` permutation. CPU twin of
//! shaders/reorder.wgsl.
//!
//! ```text
//!   dst[k] = src[sorted[k]]   for pos, vel, radius, inv_mass, id (and ang_vel, DEM)
//! ```
//! Grain indices change, so contact lists (and warm-start impulses, matched by
//! index) of the previous step no longer apply.

use crate::model::{Grains, Space};

/// Gather one array by the permutation `sorted`.
pub fn gather<T: Copy>(sorted: &[u32], src: &[T]) -> Vec<T> {
    sorted.iter().map(|&i| src[i as usize]).collect()
}

/// Stage `reorder`: all per-grain arrays of `grains` in the order `sorted`.
pub fn reorder<S: Space>(sorted: &[u32], grains: &Grains<S>) -> Grains<S> {
    assert_eq!(sorted.len(), grains.len());
    Grains {
        pos: gather(sorted, &grains.pos),
        vel: gather(sorted, &grains.vel),
        radius: gather(sorted, &grains.radius),
        inv_mass: gather(sorted, &grains.inv_mass),
        id: gather(sorted, &grains.id),
        ang_vel: gather(sorted, &grains.ang_vel),
        angle: gather(sorted, &grains.angle),
    }
}
