//! Stage `warm_start`: a contact that persists from the previous step starts
//! from its previous impulse (matched by grain and other body, as LMGC90 and
//! Box2D do). CPU twin of shaders/warm_start.wgsl.

use rayon::prelude::*;

use crate::model::contact::bounce as bounce_of;
use crate::model::{Body, Contact, ContactLists, Space};

/// Copy last step's impulses (normal and tangential) into every contact of
/// `lists` found again in `prev` (same grain, same other body); others start
/// at 0. The tangential impulse is kept as a number along the new tangent
/// in the plane; in 3D its vector is laid into the new contact plane
/// (`Space::carry_tangent`). The DEM calls it too, for a contact law with
/// history (`model::law`), which it keeps in `impulse_t`.
pub fn warm_start<S: Space>(prev: &ContactLists<S>, lists: &mut ContactLists<S>) {
    let k = lists.capacity;
    if k == 0 || prev.capacity == 0 || prev.grains() != lists.grains() {
        return;
    }
    lists
        .slots
        .par_chunks_mut(k)
        .zip(&lists.count)
        .with_min_len(super::PAR_MIN)
        .enumerate()
        .for_each(|(i, (list, &n))| {
            let old = prev.of(i);
            // A body appears at most once in a list, so the slot after the
            // last match, when it matches, is the one a scan finds; most
            // lists keep their order between steps (and a list of the
            // contacts that carried over keeps it too), so it is tried first
            // (docs/solvers.md#why-the-cpu-constants).
            let mut next = 0;
            for c in list.iter_mut().take(n as usize) {
                let at = if old.get(next).is_some_and(|o| o.other == c.other) {
                    Some(next)
                } else {
                    old.iter().position(|o| o.other == c.other)
                };
                (c.impulse, c.impulse_t) = at.map_or((0.0, S::Tangent::default()), |p| {
                    next = p + 1;
                    (old[p].impulse, S::carry_tangent(old[p].impulse_t, c.normal))
                });
            }
        });
}

/// `prev` becomes the contacts of `lists` that carry over to the next step
/// ([`Contact::carries_over`]), each grain's in their order, in as many
/// slots per grain as the fullest of them needs (its allocation reused):
/// what [`warm_start`] reads of them, in fewer slots than `lists`.
pub fn carry_over<S: Space>(lists: &ContactLists<S>, prev: &mut ContactLists<S>) {
    let n = lists.grains();
    prev.count.clear();
    prev.count.resize(n, 0);
    prev.count
        .par_iter_mut()
        .with_min_len(super::PAR_MIN)
        .enumerate()
        .for_each(|(i, c)| *c = lists.of(i).iter().filter(|c| c.carries_over()).count() as u32);
    let k = prev.count.iter().max().map_or(0, |&c| c as usize).max(1);
    prev.capacity = k;
    prev.slots.clear();
    prev.slots.resize(n * k, Contact::default());
    prev.slots
        .par_chunks_mut(k)
        .with_min_len(super::PAR_MIN)
        .enumerate()
        .for_each(|(i, list)| {
            for (slot, c) in list.iter_mut().zip(lists.of(i).iter().filter(|c| c.carries_over())) {
                *slot = *c;
            }
        });
}

/// Entry point `bounce` of shaders/warm_start.wgsl (restitution e > 0,
/// docs/nscd.md#restitution): every listed contact of grain i gets its bounce velocity
/// `model::contact::bounce` from the start-of-step velocities `vel` (v^n,
/// before gravity and the contacts), so both copies of a grain-grain contact
/// get the same value; contacts that do not close within the step keep 0.
pub fn bounce<S: Space>(count: &[u32], slots: &mut [Contact<S>], k: usize, vel: &[S::Vec], e: f32, dt: f32) {
    if k == 0 {
        return;
    }
    slots
        .par_chunks_mut(k)
        .zip(count)
        .with_min_len(super::PAR_MIN)
        .enumerate()
        .for_each(|(i, (list, &n))| {
            for c in list.iter_mut().take((n as usize).min(k)) {
                let vo = match c.body() {
                    Body::Grain(j) => vel[j as usize],
                    _ => c.wall_vel,
                };
                let u = S::dot(S::sub(vel[i], vo), c.normal);
                c.bounce = bounce_of(e, c.gap, u, dt);
            }
        });
}
