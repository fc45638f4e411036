//! Stage `reduce`: the sums and extrema of one diagnostics row. CPU twin of
//! shaders/reduce.wgsl. Sums are in f64 here (and in per-workgroup partial
//! sums on the GPU), so they are compared within a relative tolerance.
//!
//! ```text
//!   kinetic   = sum 1/2 m |v|^2                 J (per unit thickness)
//!   potential = sum -m g . x                    J, zero at the origin
//!   momentum  = sum m v                         N s
//!   passed    = #{ i : y_i < neck_y, not lost }
//!   lost      = #{ i : x_i more than r_i outside the bounds (no part of the
//!                 grain inside them), or not finite }
//!   overlap   = max over listed contacts of -(gap at the current positions), >= 0
//!               (two grains through the minimum image of their offset when periodic along x)
//!               (signed past a segment with an inside: a crossed centre counts r + depth)
//! ```

use rayon::prelude::*;

use super::detect::Detect;
use crate::model::{Body, ContactLists, Grains, Region, Totals, Walls, dot, sub};

/// Overlap of one listed contact at the current positions in the plane, m
/// (negative = apart): [`Detect::overlap_now`] of `Dim2`.
pub(crate) fn overlap_now(grains: &Grains, walls: &Walls, period: f32, i: usize, other: Body) -> f32 {
    let x = grains.pos[i];
    let r = grains.radius[i];
    match other {
        Body::Grain(j) => {
            let mut d = sub(x, grains.pos[j as usize]);
            if period > 0.0 {
                d[0] -= period * (d[0] / period).round();
            }
            r + grains.radius[j as usize] - dot(d, d).sqrt()
        }
        Body::Segment(k) => {
            let s = walls.segments[k as usize];
            let t = sub(s.b, s.a);
            let st = (dot(sub(x, s.a), t) / dot(t, t)).clamp(0.0, 1.0);
            let p = [s.a[0] + st * t[0], s.a[1] + st * t[1]];
            let d = sub(x, p);
            r - super::detect::one_sided(&s, x, p, s.n, dot(d, d).sqrt()).1
        }
        Body::Corner(k) => {
            let d = sub(x, walls.corners[k as usize].pos);
            r - dot(d, d).sqrt()
        }
    }
}

/// Grains per partial sum of [`reduce`].
const CHUNK: usize = 1024;

/// Stage `reduce` over all grains. The sums are taken over fixed chunks of
/// `CHUNK` grains, each in grain order, and the chunks' partial sums are
/// added in chunk order, so a row is the same bit for bit whatever the
/// threads and their scheduling (a work-stealing reduction split the sums
/// differently from run to run: two identical 10,000-grain runs wrote
/// momenta differing in the last digits).
pub fn reduce<S: Detect>(grains: &Grains<S>, lists: &ContactLists<S>, walls: &S::Walls, region: &Region<S>) -> Totals {
    let n = grains.len();
    let parts: Vec<Totals> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|k| {
            (k * CHUNK..((k + 1) * CHUNK).min(n)).fold(Totals::default(), |t, i| {
                Totals::merge(t, one(grains, lists, walls, region, i))
            })
        })
        .collect();
    parts.into_iter().fold(Totals::default(), Totals::merge)
}

/// Grain `i`'s share of [`reduce`].
fn one<S: Detect>(
    grains: &Grains<S>,
    lists: &ContactLists<S>,
    walls: &S::Walls,
    region: &Region<S>,
    i: usize,
) -> Totals {
    let (g, x, v) = (S::xyz(region.gravity), S::xyz(grains.pos[i]), S::xyz(grains.vel[i]));
    let im = f64::from(grains.inv_mass[i]);
    let m = if im > 0.0 { 1.0 / im } else { 0.0 };
    let r = grains.radius[i];
    let inside = S::within(region.bbox, grains.pos[i], r);
    let mut overlap = 0.0f32;
    if i < lists.grains() {
        for c in lists.of(i) {
            overlap = overlap.max(S::overlap_now(grains, walls, region.period, i, c.body()));
        }
    }
    // Sums over the space's coordinates (z is 0 in the plane, adding 0).
    let dot = |a: [f64; 3], b: [f64; 3]| (0..S::DIM).fold(0.0, |s, k| s + a[k] * b[k]);
    let (x, v, g) = (x.map(f64::from), v.map(f64::from), g.map(f64::from));
    let v2 = dot(v, v);
    Totals {
        kinetic_energy: 0.5 * m * v2,
        potential_energy: -m * dot(g, x),
        momentum: v.map(|v| m * v),
        passed: u64::from(inside && x[1] < f64::from(region.neck_y)),
        lost: u64::from(!inside),
        max_overlap: f64::from(overlap),
        max_speed: v2.sqrt(),
        contacts: None,
    }
}
