//! Stage `warm_start`: a contact that persists from the previous step starts
//! from its previous impulse (matched by grain and other body, as LMGC90 and
//! Box2D do). CPU twin of shaders/warm_start.wgsl.

use rayon::prelude::*;

use crate::model::{Contact, ContactLists};

/// Copy last step's impulses (normal and tangential) into every contact of
/// `lists` found again in `prev` (same grain, same other body); others start
/// at 0. The tangential impulse is kept as a number along the new tangent.
pub fn warm_start(prev: &ContactLists, lists: &mut ContactLists) {
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
            for c in list.iter_mut().take(n as usize) {
                (c.impulse, c.impulse_t) = old
                    .iter()
                    .find(|o: &&Contact| o.other == c.other)
                    .map_or((0.0, 0.0), |o| (o.impulse, o.impulse_t));
            }
        });
}
