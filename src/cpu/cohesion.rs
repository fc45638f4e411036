//! Stage `cohesion`: CPU twin of shaders/cohesion.wgsl. Capillary bridges
//! (docs/cohesion.md, `model::cohesion`) added to the free velocity before the
//! NSCD projection, in either space:
//! ```text
//!   for each grain i (im_i > 0), for each contact c of i's list with gap d < D_rupt:
//!     r   = 2 r_i r_j / (r_i + r_j)    (other body a grain j)
//!         = r_i                        (a wall body, only when `walls` is on)
//!     v_free_i -= dt im_i F(r, d) n_c   (n_c points from the other body to i: -n_c pulls i towards it)
//! ```
//! Each grain sums the bridges of its own list; a grain-grain contact is
//! listed in both grains' lists with opposite normals and the same gap, so
//! the pair gets equal and opposite impulses with no atomics (F_ji = -F_ij).

use rayon::prelude::*;

use crate::model::cohesion::effective_radius;
use crate::model::{Body, Cohesion, ContactLists, Space};

/// Stage `cohesion`: `vel_free` += dt F / m of every bridge of each grain's
/// list in `lists`.
pub fn cohesion<S: Space>(
    law: &Cohesion,
    dt: f32,
    lists: &ContactLists<S>,
    radius: &[f32],
    inv_mass: &[f32],
    vel_free: &mut [S::Vec],
) {
    let (count, slots, capacity) = (&lists.count, &lists.slots, lists.capacity);
    vel_free
        .par_iter_mut()
        .enumerate()
        .with_min_len(super::PAR_MIN)
        .for_each(|(i, vf)| {
            let im = inv_mass[i];
            if im <= 0.0 {
                return;
            }
            let n = (count[i] as usize).min(capacity);
            let mut pull = S::splat(0.0);
            for c in &slots[i * capacity..i * capacity + n] {
                let r = match c.body() {
                    Body::Grain(j) => effective_radius(radius[i], radius[j as usize]),
                    _ if law.walls != 0 => radius[i],
                    _ => continue,
                };
                let f = law.force(r, c.gap);
                pull = S::zip(pull, c.normal, |p, n| p - f * n);
            }
            *vf = S::zip(*vf, pull, |v, p| v + dt * im * p);
        });
}
