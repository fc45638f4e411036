//! Projected Jacobi: CPU twin of shaders/jacobi_contact.wgsl and
//! shaders/jacobi_gather.wgsl.
//!
//! One iteration, all contacts from the same velocity snapshot:
//! ```text
//!   jacobi_contact: u  = (v_a - v_b) . n
//!                   P' = max(0, P - omega (u + max(d, 0)/dt + beta min(d, 0)/dt) / W)
//!   jacobi_gather:  v_a = v_free_a + im_a sum_c P_c n_c
//! ```
//! Each grain owns a copy of each of its contacts (model::contact), so both
//! passes are per-grain loops with no atomics; the gather recomputes v from
//! the accumulated impulses, so rounding does not accumulate across iterations.

use rayon::prelude::*;

use super::PAR_MIN;
use crate::model::{Body, Contact, dot, sub};

/// Velocity of the other body of a contact (walls are fixed).
#[inline]
pub fn other_velocity(c: &Contact, vel: &[[f32; 2]]) -> [f32; 2] {
    match c.body() {
        Body::Grain(j) => vel[j as usize],
        _ => [0.0, 0.0],
    }
}

/// Update every valid contact of every grain in parallel with `update(grain,
/// contact)`, which returns that contact's velocity correction; returns the
/// largest (the per-contact projection of Jacobi).
pub fn update_contacts(
    count: &[u32],
    slots: &mut [Contact],
    capacity: usize,
    update: impl Fn(usize, &mut Contact) -> f32 + Sync + Send,
) -> f32 {
    if capacity == 0 {
        return 0.0;
    }
    slots
        .par_chunks_mut(capacity)
        .zip(count)
        .with_min_len(PAR_MIN)
        .enumerate()
        .map(|(i, (list, &n))| {
            list.iter_mut()
                .take(n as usize)
                .map(|c| update(i, c))
                .fold(0.0f32, f32::max)
        })
        .reduce(|| 0.0, f32::max)
}

/// Stage `jacobi_contact`: new impulses for every contact; returns the largest
/// unrelaxed velocity correction |P' - P| W / omega of the pass, m/s (dividing
/// by omega keeps a small relaxation factor from passing for convergence).
pub fn jacobi_contact(
    count: &[u32],
    slots: &mut [Contact],
    capacity: usize,
    vel: &[[f32; 2]],
    inv_dt: f32,
    beta: f32,
    slop: f32,
    omega: f32,
) -> f32 {
    update_contacts(count, slots, capacity, |i, c| {
        let u = dot(sub(vel[i], other_velocity(c, vel)), c.normal);
        let target = c.target(u, inv_dt, beta, slop);
        let p = (c.impulse - omega * target / c.inv_mass_sum).max(0.0);
        let correction = (p - c.impulse).abs() * c.inv_mass_sum / omega;
        c.impulse = p;
        correction
    })
}

/// Stage `jacobi_gather`: each grain's velocity from its free velocity and the
/// impulses of its own contacts.
pub fn jacobi_gather(
    count: &[u32],
    slots: &[Contact],
    capacity: usize,
    vel_free: &[[f32; 2]],
    inv_mass: &[f32],
    vel: &mut [[f32; 2]],
) {
    vel.par_iter_mut().with_min_len(PAR_MIN).enumerate().for_each(|(i, v)| {
        let mut acc = [0.0f32; 2];
        let n = (count[i] as usize).min(capacity);
        for c in &slots[i * capacity..i * capacity + n] {
            acc[0] += c.impulse * c.normal[0];
            acc[1] += c.impulse * c.normal[1];
        }
        *v = [
            vel_free[i][0] + inv_mass[i] * acc[0],
            vel_free[i][1] + inv_mass[i] * acc[1],
        ];
    });
}
