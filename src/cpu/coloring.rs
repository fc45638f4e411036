//! Stage `coloring`: contacts coloured so that no two contacts of one colour
//! share a movable grain (CPU twin of shaders/coloring.wgsl).
//!
//! Jones-Plassmann rounds with first-fit colours, on the contact graph (two
//! contacts are adjacent when they share a grain with inv_mass > 0; walls,
//! corners and fixed grains never conflict):
//! ```text
//!   prio(c) = hash(key(c)), key = (lower grain, other body code): unique, so no ties
//!   round:  every uncoloured contact c whose priority beats every uncoloured
//!           neighbour takes the lowest colour no coloured neighbour has
//!           (first fit over a 64-bit mask); the others wait for a later round
//! ```
//! A round reads only `color_in` and writes only `color_out` (ping-pong), so
//! the result does not depend on the order in which contacts are visited: the
//! GPU (one invocation per grain) and this twin produce the same colouring.
//!
//! Colours live per slot, `color[i K + s]`, and both copies of a grain-grain
//! contact carry the same colour. The lower grain of a pair owns the contact
//! (the GPU invocation of the owner writes both copies). Bounds:
//! - a contact has at most 2 (K - 1) neighbours, so first fit needs at most
//!   2K - 1 colours: with K <= 32 every contact gets one of [`MAX_COLORS`] = 64;
//! - a contact whose colour would exceed 63 (K > 32 only), and a grain-grain
//!   contact whose mirror copy was dropped by a full list (its conflicts cannot
//!   be seen from both sides), get [`OVERFLOW`]: the coloured solver handles
//!   that colour last, serially (exact Gauss-Seidel, one invocation on the GPU).
//!
//! Colours are recomputed every step (not kept while a contact lasts, as Box2D
//! does): the rounds cost a few per cent of a step (docs/solvers.md) and a
//! fresh colouring needs no bookkeeping when contacts appear and vanish.

use crate::model::contact::{BODY_CORNER, BODY_SEGMENT};
use crate::model::{Contact, ContactLists, Space};
use crate::model::{MAX_COLORS, OVERFLOW, UNCOLORED};

/// Tag bits of a wall (segment or corner) other body.
const WALL: u32 = BODY_SEGMENT | BODY_CORNER;

/// 32-bit integer hash (Jarkko Kiiski's lowbias32): well mixed, cheap in WGSL.
#[inline]
pub fn hash(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// Key of the contact held by grain `i` with other body code `other`: the same
/// for both copies of a grain-grain contact, unique among contacts.
#[inline]
pub fn key(i: u32, other: u32) -> (u32, u32) {
    if other & WALL == 0 {
        (i.min(other), i.max(other))
    } else {
        (i, other)
    }
}

/// Priority of a key; larger wins, ties broken by the key itself.
#[inline]
pub fn priority(k: (u32, u32)) -> (u32, u32, u32) {
    (hash(k.0 ^ hash(k.1)), k.0, k.1)
}

/// Does grain `i` own its contact with body `other` (lower index of a pair, or a wall)?
#[inline]
pub fn owns(i: u32, other: u32) -> bool {
    other & WALL != 0 || other > i
}

/// Stage `coloring_init`: owned copies (and mirrors of owned copies) start
/// [`UNCOLORED`]; a non-owned copy whose owner's list dropped the contact (a
/// full list) gets [`OVERFLOW`] so that it never blocks a round.
pub fn coloring_init<S: Space>(count: &[u32], slots: &[Contact<S>], capacity: usize, color: &mut [u32]) {
    let k = capacity;
    for i in 0..count.len() {
        for s in 0..(count[i] as usize).min(k) {
            let o = slots[i * k + s].other;
            let orphan = !owns(i as u32, o) && {
                let j = o as usize;
                !slots[j * k..j * k + (count[j] as usize).min(k)]
                    .iter()
                    .any(|m| m.other == i as u32)
            };
            color[i * k + s] = if orphan { OVERFLOW } else { UNCOLORED };
        }
    }
}

/// One colouring round for all grains (the owner of each contact decides and
/// writes both copies). `color_out` must start as a copy of `color_in`.
pub fn coloring_round<S: Space>(
    count: &[u32],
    slots: &[Contact<S>],
    capacity: usize,
    inv_mass: &[f32],
    color_in: &[u32],
    color_out: &mut [u32],
) {
    let k = capacity;
    let list = |g: usize| 0..(count[g] as usize).min(k);
    for a in 0..count.len() {
        for s in list(a) {
            let c = &slots[a * k + s];
            if !owns(a as u32, c.other) || color_in[a * k + s] != UNCOLORED {
                continue;
            }
            let me = priority(key(a as u32, c.other));
            let mut mask = [0u32; 2];
            let mut wins = true;
            let mut mirror = None;
            // Neighbours through a movable grain g (a, and b if it is a grain).
            let mut scan = |g: usize, mirror: &mut Option<usize>| {
                if inv_mass[g] == 0.0 {
                    return;
                }
                for t in list(g) {
                    let o = slots[g * k + t].other;
                    let kt = key(g as u32, o);
                    if kt == key(a as u32, c.other) {
                        if g != a {
                            *mirror = Some(g * k + t);
                        }
                        continue;
                    }
                    let col = color_in[g * k + t];
                    if col == UNCOLORED {
                        wins &= priority(kt) < me;
                    } else if col < MAX_COLORS {
                        mask[(col / 32) as usize] |= 1 << (col % 32);
                    }
                }
            };
            scan(a, &mut mirror);
            let b = c.other;
            let pair = b & WALL == 0;
            if pair {
                scan(b as usize, &mut mirror);
                if mirror.is_none() && inv_mass[b as usize] == 0.0 {
                    // A fixed partner is not scanned; find the mirror anyway.
                    mirror = list(b as usize)
                        .find(|&t| slots[b as usize * k + t].other == a as u32)
                        .map(|t| b as usize * k + t);
                }
            }
            if !wins {
                continue;
            }
            let col = if pair && mirror.is_none() {
                OVERFLOW
            } else {
                first_free(mask)
            };
            color_out[a * k + s] = col;
            if let Some(m) = mirror {
                color_out[m] = col;
            }
        }
    }
}

/// Lowest colour not in `mask`, or [`OVERFLOW`].
#[inline]
pub fn first_free(mask: [u32; 2]) -> u32 {
    if mask[0] != u32::MAX {
        (!mask[0]).trailing_zeros()
    } else if mask[1] != u32::MAX {
        32 + (!mask[1]).trailing_zeros()
    } else {
        OVERFLOW
    }
}

/// True when slot `idx` of grain `a` is an orphan: a copy `a` does not own
/// whose owner's full list dropped the contact, so only `a` can solve it.
pub fn is_orphan<S: Space>(count: &[u32], slots: &[Contact<S>], capacity: usize, a: usize, idx: usize) -> bool {
    let other = slots[idx].other;
    if owns(a as u32, other) {
        return false;
    }
    let j = other as usize;
    !slots[j * capacity..j * capacity + (count[j] as usize).min(capacity)]
        .iter()
        .any(|m| m.other == a as u32)
}

/// Counters of stage `coloring_count` (keep in sync with shaders/coloring.wgsl):
/// [colours used (max colour + 1, overflow excluded), owned contacts still
/// uncoloured, contacts the overflow pass solves (owned copies in the
/// overflow colour, and orphans)].
pub fn coloring_count<S: Space>(count: &[u32], slots: &[Contact<S>], capacity: usize, color: &[u32]) -> [u32; 3] {
    let mut out = [0u32; 3];
    for a in 0..count.len() {
        for s in 0..(count[a] as usize).min(capacity) {
            let idx = a * capacity + s;
            if !owns(a as u32, slots[idx].other) {
                out[2] += u32::from(color[idx] == OVERFLOW && is_orphan(count, slots, capacity, a, idx));
                continue;
            }
            match color[idx] {
                UNCOLORED => out[1] += 1,
                OVERFLOW => out[2] += 1,
                col => out[0] = out[0].max(col + 1),
            }
        }
    }
    out
}

/// A finished colouring of a set of contact lists.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Coloring {
    /// Colour of every slot (`UNCOLORED` past a grain's count).
    pub color: Vec<u32>,
    /// Colours used, overflow excluded.
    pub colors: u32,
    /// Contacts the overflow pass solves: owned copies in the overflow
    /// colour, and orphans (see [`is_orphan`]).
    pub overflow: u32,
    /// Rounds until every contact had a colour.
    pub rounds: u32,
}

/// Colour `lists` by rounds until every contact has a colour.
pub fn color_contacts<S: Space>(lists: &ContactLists<S>, inv_mass: &[f32]) -> Coloring {
    let k = lists.capacity;
    let mut color = vec![UNCOLORED; lists.slots.len()];
    coloring_init(&lists.count, &lists.slots, k, &mut color);
    let mut next = color.clone();
    let mut rounds = 0;
    loop {
        let [colors, uncolored, overflow] = coloring_count(&lists.count, &lists.slots, k, &color);
        if uncolored == 0 {
            return Coloring {
                color,
                colors,
                overflow,
                rounds,
            };
        }
        next.copy_from_slice(&color);
        coloring_round(&lists.count, &lists.slots, k, inv_mass, &color, &mut next);
        std::mem::swap(&mut color, &mut next);
        rounds += 1;
    }
}
