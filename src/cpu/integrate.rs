//! Stages `free_velocity` and `integrate`: CPU twins of
//! shaders/free_velocity.wgsl and shaders/integrate.wgsl.
//!
//! ```text
//!   free_velocity: v_free = v + dt g        (fixed grains, im = 0, keep v)
//!                  v_free += sqrt(dt) sigma w  (stochastic forcing, sigma > 0: `forcing`)
//!   integrate:     x     += dt v             (after the contact solve)
//!                  orientation turned by w dt (`integrate_angle`: theta += dt w
//!                  in the plane, the quaternion in 3D, `Space::turn`)
//!                  x_x wrapped into [xmin, xmax) on a grid periodic along x (`wrap`)
//! ```

use rayon::prelude::*;

use crate::model::{Forcing, Grid, Space};

/// Stage `free_velocity`: gravity over one step (either space).
pub fn free_velocity<S: Space>(vel: &[S::Vec], inv_mass: &[f32], gravity: S::Vec, dt: f32, vel_free: &mut [S::Vec]) {
    vel_free
        .par_iter_mut()
        .zip(vel.par_iter().zip(inv_mass))
        .with_min_len(super::PAR_MIN)
        .for_each(|(vf, (v, &im))| {
            *vf = if im > 0.0 {
                S::zip(*v, gravity, |v, g| v + dt * g)
            } else {
                *v
            };
        });
}

/// The stochastic forcing of stage `free_velocity` (docs/nscd.md#stochastic-forcing,
/// `model::noise`): each movable grain's free velocity gets sqrt(dt) sigma w,
/// w drawn from (seed, step, the grain's id). Runs after [`free_velocity`]
/// when sigma > 0; together they are the twin of shaders/free_velocity.wgsl.
/// `D` draws per grain: 2 in the plane, 3 in 3D (`model::noise::normal`).
pub fn forcing<const D: usize>(inv_mass: &[f32], id: &[u32], forcing: Forcing, dt: f32, vel_free: &mut [[f32; D]]) {
    let scale = forcing.scale(dt);
    vel_free
        .par_iter_mut()
        .zip(inv_mass.par_iter().zip(id))
        .with_min_len(super::PAR_MIN)
        .for_each(|(vf, (&im, &id))| {
            if im > 0.0 {
                let k = forcing.kick_in::<D>(id, scale);
                for (v, k) in vf.iter_mut().zip(k) {
                    *v += k;
                }
            }
        });
}

/// Stage `integrate`: explicit position update with the solved velocity
/// (either space).
pub fn integrate<S: Space>(pos: &mut [S::Vec], vel: &[S::Vec], dt: f32) {
    pos.par_iter_mut()
        .zip(vel)
        .with_min_len(super::PAR_MIN)
        .for_each(|(x, v)| *x = S::zip(*x, *v, |x, v| x + dt * v));
}

/// The orientation of every grain after a step, turned at its spin for dt
/// (`Space::turn`: theta += dt w in the plane; NSCD with friction). Twin of
/// the angle update of shaders/integrate.wgsl.
pub fn integrate_angle<S: Space>(angle: &mut [S::Orientation], ang_vel: &[S::Spin], dt: f32) {
    angle
        .par_iter_mut()
        .zip(ang_vel)
        .with_min_len(super::PAR_MIN)
        .for_each(|(a, &w)| *a = S::turn(*a, w, dt));
}

/// Every grain's x wrapped into the period [xmin, xmax) of a grid periodic
/// along x (`Grid::wrap_x`), after every position update of every model;
/// nothing when the grid is not periodic.
pub fn wrap<S: Space>(grid: &Grid<S>, pos: &mut [S::Vec]) {
    if !grid.is_periodic() {
        return;
    }
    pos.par_iter_mut()
        .with_min_len(super::PAR_MIN)
        .for_each(|x| x[0] = grid.wrap_x(x[0]));
}
