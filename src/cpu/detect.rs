//! Stage `detect`: potential contacts within the alert distance, into
//! per-grain lists. CPU twin of shaders/detect.wgsl.
//!
//! For grain i (centre x, radius r):
//! - grain j in the 3x3 neighbouring cells: d = |x - x_j| - (r + r_j),
//!   n = (x - x_j)/|x - x_j|;
//! - segment [a, b]: t = b - a, s_t = (x - a).t/|t|^2, only for 0 <= s_t <= 1;
//!   p = a + s_t t, d = |x - p| - r, n = (x - p)/|x - p|; a segment with an
//!   inside (inward normal n_s != 0, see model::walls) measures the distance
//!   with a sign, d = sigma |x - p| - r with sigma = -1 where (x - p).n_s < 0,
//!   and n = n_s: a grain whose centre crossed the line gets d < -r and is
//!   pushed back in. Candidates are the same either way (|x - p| - r < alert);
//! - corner c (radius 0): only when (x - c).e_k <= 0 for every incident
//!   direction e_k (see model::walls); d = |x - c| - r.
//!
//! A contact enters the list when d < alert. Order in a list: grains (cells in
//! row order, grains in bin order), then segments, then corners.
//!
//! The stage is written once over the space (model::space): in 3D the
//! block is 3 x 3 x 3 cells, the grains are spheres and the walls planes
//! (model::walls3d: d = (x - p).n - r, n the plane's inward normal).
//!
//! On a grid periodic along x (`Grid::periodic_x`) the 3 x 3 block wraps
//! around in x and x - x_j is its minimum image (`Grid::min_image`), so a
//! grain near xmax touches one near xmin; the two copies of such a pair
//! still see exactly negated offsets. Walls are not wrapped.

use rayon::prelude::*;

use super::grid::Bins;
use crate::model::{Body, Contact, ContactLists, Corner, Grains, Segment, dot, sub};
use crate::model::{Dim2, Dim3, Grid, Space, Walls, Walls3d};

/// Inputs of the detection stage, in binding order.
pub struct DetectInput<'a, S: Space = Dim2> {
    pub grid: &'a Grid<S>,
    pub cell_start: &'a [u32],
    pub sorted: &'a [u32],
    pub pos: &'a [S::Vec],
    pub radius: &'a [f32],
    pub inv_mass: &'a [f32],
    pub walls: &'a S::Walls,
    /// Alert distance, m.
    pub alert: f32,
}

/// A space whose walls the detection stage lists contacts with.
pub trait Detect: Space {
    /// Grain i's contacts with the walls, in wall order, each given to `push`.
    fn wall_contacts(inp: &DetectInput<Self>, i: usize, push: &mut impl FnMut(Contact<Self>));

    /// The overlap of grain `i` with body `other` (of its listed contact)
    /// at the current positions, m (negative = apart; 0 where a wall body
    /// no longer acts): stage `reduce`'s deepest overlap. `period`: along x,
    /// 0 when not periodic.
    fn overlap_now(grains: &Grains<Self>, walls: &Self::Walls, period: f32, i: usize, other: Body) -> f32;
}

impl Detect for Dim2 {
    #[inline]
    fn wall_contacts(inp: &DetectInput<Dim2>, i: usize, push: &mut impl FnMut(Contact)) {
        wall_contacts(inp, i, push)
    }

    #[inline]
    fn overlap_now(grains: &Grains, walls: &Walls, period: f32, i: usize, other: Body) -> f32 {
        super::reduce::overlap_now(grains, walls, period, i, other)
    }
}

impl Detect for Dim3 {
    /// The walls (model::walls3d), in body order: planes (d = (x - p).n - r),
    /// triangles, edges, vertices; a body farther than the contact reach
    /// from its bounding box along an axis is skipped unread, and with a
    /// `WallIndex` for this reach only the bodies of the sphere's cell are
    /// screened (the same contacts, in the same order).
    #[inline]
    fn wall_contacts(inp: &DetectInput<Dim3>, i: usize, push: &mut impl FnMut(Contact<Dim3>)) {
        let walls: &Walls3d = inp.walls;
        let (x, r, im) = (inp.pos[i], inp.radius[i], inp.inv_mass[i]);
        let reach = (r + inp.alert) * SURELY_BEYOND;
        for (k, plane) in walls.planes.iter().enumerate() {
            let gap = plane.distance(x) - r;
            if gap < inp.alert {
                push(fresh(Body::Segment(k as u32), gap, im, plane.normal));
            }
        }
        walls.near_mesh(x, reach, |b| {
            if let Some((body, n, gap)) = walls.mesh_gap(b, x, r, reach)
                && gap < inp.alert
            {
                push(fresh(body, gap, im, n));
            }
        });
    }

    fn overlap_now(grains: &Grains<Dim3>, walls: &Walls3d, _period: f32, i: usize, other: Body) -> f32 {
        let (x, r) = (grains.pos[i], grains.radius[i]);
        let (planes, triangles) = (walls.planes.len(), walls.triangles.len());
        let mesh = |b: usize| walls.mesh_gap(b, x, r, f32::INFINITY).map_or(0.0, |(_, _, gap)| -gap);
        match other {
            Body::Grain(j) => {
                let d = Dim3::sub(x, grains.pos[j as usize]);
                r + grains.radius[j as usize] - Dim3::dot(d, d).sqrt()
            }
            Body::Segment(k) if (k as usize) < planes => r - walls.planes[k as usize].distance(x),
            Body::Segment(k) => mesh(k as usize - planes),
            Body::Corner(k) => mesh(triangles + k as usize),
        }
    }
}

pub use crate::model::contact::SURELY_BEYOND;

/// Normal and distance from `from` to `x`; a coincident pair gets a fixed
/// axis normal whose sign depends on `flip`, so the two copies stay opposite.
#[inline]
fn normal_between(x: [f32; 2], from: [f32; 2], flip: bool) -> ([f32; 2], f32) {
    normal_along::<Dim2>(sub(x, from), flip)
}

/// [`normal_between`] of the offset `d` = x - from.
#[inline]
fn normal_along<S: Space>(d: S::Vec, flip: bool) -> (S::Vec, f32) {
    let len = S::dot(d, d).sqrt();
    if len > 0.0 {
        (S::zip(d, d, |x, _| x / len), len)
    } else {
        let mut axis = S::splat(0.0);
        axis[0] = if flip { -1.0 } else { 1.0 };
        (axis, 0.0)
    }
}

/// Normal and signed distance from a segment's closest point `p` to `x`: the
/// inward normal and -|x - p| where `x` has crossed a segment with an inside,
/// else `n` and `dist` unchanged. Shared with the `reduce` stage.
#[inline]
pub fn one_sided(s: &Segment, x: [f32; 2], p: [f32; 2], n: [f32; 2], dist: f32) -> ([f32; 2], f32) {
    if s.n == [0.0; 2] {
        return (n, dist);
    }
    let behind = dot(sub(x, p), s.n) < 0.0;
    (s.n, if behind { -dist } else { dist })
}

/// Candidates screened at once by [`Near::screen`].
const LANES: usize = 16;

/// The grains' centres and radii in bin order (`sorted`), one array per
/// coordinate and padded with [`LANES`] far-away grains, so that the
/// candidates of a row of cells are screened [`LANES`] at a time, without a
/// branch, before any is looked at. Bin order makes a row's candidates
/// contiguous; each screened candidate then cost a branch that mispredicted
/// on the one in ten that is near (the branch was the largest share of
/// detection's samples).
#[derive(Debug, Default)]
struct Near {
    /// x, y and (in 3D) z; the unused arrays of the plane stay empty.
    c: [Vec<f32>; 3],
    r: Vec<f32>,
}

impl Near {
    fn gather<S: Space>(sorted: &[u32], pos: &[S::Vec], radius: &[f32]) -> Near {
        let n = sorted.len();
        let coord = |k: usize| {
            if k < S::DIM {
                vec![f32::INFINITY; n + LANES]
            } else {
                Vec::new()
            }
        };
        let mut near = Near {
            c: [coord(0), coord(1), coord(2)],
            r: vec![0.0; n + LANES],
        };
        // One pass on the pool, not chained iterators on one thread
        // (docs/solvers.md#why-the-cpu-constants).
        let [cx, cy, cz] = &mut near.c;
        let put = |j: u32, x: &mut f32, y: &mut f32, r: &mut f32| {
            let j = j as usize;
            (*x, *y, *r) = (pos[j][0], pos[j][1], radius[j]);
        };
        if S::DIM == 2 {
            (&mut cx[..n], &mut cy[..n], &mut near.r[..n])
                .into_par_iter()
                .zip(sorted)
                .with_min_len(4 * super::PAR_MIN)
                .for_each(|((x, y, r), &j)| put(j, x, y, r));
        } else {
            (&mut cx[..n], &mut cy[..n], &mut near.r[..n], &mut cz[..n])
                .into_par_iter()
                .zip(sorted)
                .with_min_len(4 * super::PAR_MIN)
                .for_each(|((x, y, r, z), &j)| {
                    put(j, x, y, r);
                    *z = pos[j as usize][2];
                });
        }
        near
    }

    /// Bit t set: the grain at `base + t` in bin order is not surely beyond
    /// the reach of a grain of radius `r` at `x`: its squared distance is
    /// at most ([`SURELY_BEYOND`] (r + r_j + alert))^2 (a padding grain is
    /// always beyond).
    #[inline]
    fn screen<S: Space>(&self, base: usize, x: S::Vec, r: f32, alert: f32) -> u32 {
        let lanes = base..base + LANES;
        let (xs, ys, rs) = (
            &self.c[0][lanes.clone()],
            &self.c[1][lanes.clone()],
            &self.r[lanes.clone()],
        );
        let zs = if S::DIM == 3 { &self.c[2][lanes] } else { rs };
        let mut bits = 0u32;
        for t in 0..LANES {
            let reach = (r + rs[t] + alert) * SURELY_BEYOND;
            let (dx, dy) = (x[0] - xs[t], x[1] - ys[t]);
            let mut d2 = dx * dx + dy * dy;
            if S::DIM == 3 {
                let dz = x[2] - zs[t];
                d2 += dz * dz;
            }
            bits |= u32::from(d2 <= reach * reach) << t;
        }
        bits
    }
}

/// Contacts of grain i, written into `out` (capacity K); returns how many
/// were found. `near` is the bin-ordered copy of the grains.
fn detect_grain<S: Detect>(inp: &DetectInput<S>, near: &Near, i: usize, out: &mut [Contact<S>]) -> u32 {
    let mut found = 0u32;
    let mut push = |c: Contact<S>| {
        if let Some(slot) = out.get_mut(found as usize) {
            *slot = c;
        }
        found += 1;
    };
    grain_contacts(inp, near, i, &mut push);
    S::wall_contacts(inp, i, &mut push);
    found
}

/// A new contact with `other` (no impulse, no bounce yet).
#[inline]
fn fresh<S: Space>(other: Body, gap: f32, inv_mass_sum: f32, normal: S::Vec) -> Contact<S> {
    Contact {
        other: other.encode(),
        gap,
        inv_mass_sum,
        impulse: 0.0,
        normal,
        impulse_t: S::Tangent::default(),
        bounce: 0.0,
        wall_vel: S::Vec::default(),
    }
}

/// The layers (z, 1 in the plane) and rows (y) of the 3 x 3 (x 3) block of
/// cells around `c`, clamped to the grid, each with the first cell of its row.
#[inline]
fn block_rows<S: Space>(g: &Grid<S>, c: [u32; 3]) -> impl Iterator<Item = u32> {
    let rows = c[1].saturating_sub(1)..=(c[1] + 1).min(g.ny - 1);
    let layers = c[2].saturating_sub(1)..=(c[2] + 1).min(g.nz - 1);
    let (nx, ny) = (g.nx, g.ny);
    layers.flat_map(move |z| rows.clone().map(move |y| (z * ny + y) * nx))
}

/// Grain i's contacts with the grains of its 3 x 3 (x 3) block of cells, in
/// bin order, each given to `push` ([`detect_grain`]).
#[inline]
fn grain_contacts<S: Space>(inp: &DetectInput<S>, near: &Near, i: usize, push: &mut impl FnMut(Contact<S>)) {
    let x = inp.pos[i];
    let r = inp.radius[i];
    let im = inp.inv_mass[i];
    let g = inp.grid;
    if g.is_periodic() {
        return grain_contacts_periodic(inp, i, push);
    }
    let c = g.cell_coords(x);
    // The cells of one row of the block are consecutive, and so are their
    // grains in `sorted`: one range per row, in the same order.
    let (x0, x1) = (c[0].saturating_sub(1), (c[0] + 1).min(g.nx - 1));
    for row in block_rows(g, c) {
        let (first, last) = ((row + x0) as usize, (row + x1) as usize);
        let (start, end) = (inp.cell_start[first] as usize, inp.cell_start[last + 1] as usize);
        let mut base = start;
        while base < end {
            let mut near = near.screen::<S>(base, x, r, inp.alert);
            if end - base < LANES {
                near &= (1 << (end - base)) - 1;
            }
            while near != 0 {
                let j = inp.sorted[base + near.trailing_zeros() as usize] as usize;
                near &= near - 1;
                if j == i {
                    continue;
                }
                let (n, gap) = gap_between::<S>((x, r), (inp.pos[j], inp.radius[j]), i < j);
                if gap < inp.alert {
                    push(fresh(Body::Grain(j as u32), gap, im + inp.inv_mass[j], n));
                }
            }
            base += LANES;
        }
    }
}

/// The distinct columns of the 3 x 3 block around column `cx` of a grid
/// periodic along x, wrapped (ascending when the grid has 3 columns or fewer).
#[inline]
pub fn wrapped_columns<S: Space>(g: &Grid<S>, cx: u32) -> ([u32; 3], usize) {
    if g.nx <= 3 {
        return ([0, 1, 2], g.nx as usize);
    }
    ([(cx + g.nx - 1) % g.nx, cx, (cx + 1) % g.nx], 3)
}

/// [`grain_contacts`] on a grid periodic along x: the block's columns wrap
/// and each pair's offset is its minimum image (no screen).
fn grain_contacts_periodic<S: Space>(inp: &DetectInput<S>, i: usize, push: &mut impl FnMut(Contact<S>)) {
    let (x, r, im) = (inp.pos[i], inp.radius[i], inp.inv_mass[i]);
    let g = inp.grid;
    let c = g.cell_coords(x);
    let (cols, ncols) = wrapped_columns(g, c[0]);
    for row in block_rows(g, c) {
        for &col in &cols[..ncols] {
            let c = (row + col) as usize;
            for &j in &inp.sorted[inp.cell_start[c] as usize..inp.cell_start[c + 1] as usize] {
                let j = j as usize;
                if j == i {
                    continue;
                }
                let (n, dist) = normal_along::<S>(g.min_image(S::sub(x, inp.pos[j])), i < j);
                let gap = dist - (r + inp.radius[j]);
                if gap < inp.alert {
                    push(fresh(Body::Grain(j as u32), gap, im + inp.inv_mass[j], n));
                }
            }
        }
    }
}

/// Grain i's contacts with the segments, then the corners, in wall order,
/// each given to `push` ([`detect_grain`]).
#[inline]
fn wall_contacts(inp: &DetectInput<Dim2>, i: usize, push: &mut impl FnMut(Contact)) {
    let x = inp.pos[i];
    let r = inp.radius[i];
    let im = inp.inv_mass[i];
    let reach = (r + inp.alert) * SURELY_BEYOND;
    for (k, s) in inp.walls.segments.iter().enumerate() {
        // Farther than `reach` from the segment's bounding box along an axis:
        // farther from the segment.
        let out = |c: usize| x[c] < s.a[c].min(s.b[c]) - reach || x[c] > s.a[c].max(s.b[c]) + reach;
        if out(0) || out(1) {
            continue;
        }
        if let Some((n, gap, reach)) = segment_gap(s, x, r)
            && reach < inp.alert
        {
            let mut c = fresh(Body::Segment(k as u32), gap, im, n);
            c.wall_vel = inp.walls.segment_velocity_at(k, x);
            push(c);
        }
    }
    for (k, c) in inp.walls.corners.iter().enumerate() {
        if let Some((n, gap)) = corner_gap(c, x, r)
            && gap < inp.alert
        {
            let mut c = fresh(Body::Corner(k as u32), gap, im, n);
            c.wall_vel = inp.walls.corner_velocity(k);
            push(c);
        }
    }
}

/// Normal (from the other grain towards this one) and gap of a grain
/// `(centre, radius)` against another, `flip` as for the pair's two copies
/// (this grain's index below the other's): the figures [`detect`] lists.
#[inline]
pub fn grain_gap(this: ([f32; 2], f32), other: ([f32; 2], f32), flip: bool) -> ([f32; 2], f32) {
    gap_between::<Dim2>(this, other, flip)
}

/// [`grain_gap`] in either space.
#[inline]
fn gap_between<S: Space>(this: (S::Vec, f32), other: (S::Vec, f32), flip: bool) -> (S::Vec, f32) {
    let (n, dist) = normal_along::<S>(S::sub(this.0, other.0), flip);
    (n, dist - (this.1 + other.1))
}

/// [`grain_gap`] on `grid`: the offset between the centres is its minimum
/// image when the grid is periodic along x.
#[inline]
pub fn grain_gap_in(grid: &Grid, this: ([f32; 2], f32), other: ([f32; 2], f32), flip: bool) -> ([f32; 2], f32) {
    let (n, dist) = normal_along::<Dim2>(grid.min_image(sub(this.0, other.0)), flip);
    (n, dist - (this.1 + other.1))
}

/// Normal, signed gap and unsigned gap (the one compared with the alert
/// distance) of a grain at `x` of radius `r` against segment `s`; None when
/// its centre does not project onto the segment.
#[inline]
pub fn segment_gap(s: &Segment, x: [f32; 2], r: f32) -> Option<([f32; 2], f32, f32)> {
    let t = sub(s.b, s.a);
    let st = dot(sub(x, s.a), t) / dot(t, t);
    if !(0.0..=1.0).contains(&st) {
        return None;
    }
    let p = [s.a[0] + st * t[0], s.a[1] + st * t[1]];
    let (mut n, dist) = normal_between(x, p, false);
    if dist == 0.0 {
        let len = dot(t, t).sqrt();
        n = [-t[1] / len, t[0] / len];
    }
    let (n, signed) = one_sided(s, x, p, n, dist);
    Some((n, signed - r, dist - r))
}

/// Normal and gap of a grain at `x` of radius `r` against corner `c`; None
/// when `x` lies on the far side of one of its incident directions.
#[inline]
pub fn corner_gap(c: &Corner, x: [f32; 2], r: f32) -> Option<([f32; 2], f32)> {
    let rel = sub(x, c.pos);
    if c.dirs.iter().any(|&e| dot(rel, e) > 0.0) {
        return None;
    }
    let (n, dist) = normal_between(x, c.pos, false);
    Some((n, dist - r))
}

/// Stage `detect` over all grains (parallel over grains); returns the
/// [`Tally`] of the lists it wrote, taken while each grain's list is still
/// in cache, saving a separate pass over the lists.
pub fn detect<S: Detect>(inp: &DetectInput<S>, lists: &mut ContactLists<S>) -> Tally {
    let k = lists.capacity;
    let n = inp.pos.len();
    lists.count.resize(n, 0);
    lists.slots.resize(n * k, Contact::default());
    let near = Near::gather::<S>(inp.sorted, inp.pos, inp.radius);
    if k == 0 {
        lists
            .count
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, c)| *c = detect_grain(inp, &near, i, &mut []));
        return tally(lists);
    }
    lists
        .count
        .par_iter_mut()
        .zip(lists.slots.par_chunks_mut(k))
        .with_min_len(super::PAR_MIN)
        .enumerate()
        .map(|(i, (count, out))| {
            *count = detect_grain(inp, &near, i, out);
            Tally::of(i, *count, out, k)
        })
        .reduce(Tally::default, Tally::and)
}

/// What a step reports of its lists: distinct contacts (a grain-grain pair
/// once, [`ContactLists::distinct`]), contacts dropped by full lists
/// ([`ContactLists::overflow`]) and the deepest overlap, m
/// ([`ContactLists::max_overlap`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tally {
    pub contacts: u64,
    pub overflow: u64,
    pub max_overlap: f32,
}

impl Tally {
    /// Grain i's part: `count` contacts found, `list` its slots (capacity `k`).
    fn of<S: Space>(i: usize, count: u32, list: &[Contact<S>], k: usize) -> Tally {
        let mut t = Tally {
            overflow: u64::from(count.saturating_sub(k as u32)),
            ..Tally::default()
        };
        for c in &list[..(count as usize).min(k)] {
            t.max_overlap = t.max_overlap.max(-c.gap);
            t.contacts += u64::from(!matches!(c.body(), Body::Grain(j) if (j as usize) < i));
        }
        t
    }

    /// Two parts together (integer sums and a maximum: the order does not matter).
    pub fn and(self, b: Tally) -> Tally {
        Tally {
            contacts: self.contacts + b.contacts,
            overflow: self.overflow + b.overflow,
            max_overlap: self.max_overlap.max(b.max_overlap),
        }
    }
}

/// [`Tally`] of `lists` in one pass on the rayon pool: the same numbers as
/// the three `ContactLists` methods, which would scan the lists three times
/// on one thread (docs/solvers.md#why-the-cpu-constants).
fn tally<S: Space>(lists: &ContactLists<S>) -> Tally {
    let k = lists.capacity;
    (0..lists.grains())
        .into_par_iter()
        .with_min_len(super::PAR_MIN)
        .map(|i| Tally::of(i, lists.count[i], &lists.slots[i * k..(i + 1) * k], k))
        .reduce(Tally::default, Tally::and)
}

/// Slots per grain that lists of touching pairs only (alert 0 or about the
/// tolerance: the census, the overlap histogram) start with before
/// [`detect_growing`] grows them: a disk touches about six others of its
/// size.
pub const TOUCHING_START_CAPACITY: usize = 8;

/// [`bin_and_detect`] into lists that grow: while a grain found more
/// contacts than `lists.capacity` slots and the capacity is under
/// `max_capacity`, the capacity grows to the fullest list and
/// [`GROW_SLOTS`] more (at most `max_capacity`) and the detection (not the
/// binning) runs again. Below `max_capacity` no contact is dropped, and the
/// lists hold what a fixed capacity of `max_capacity` would, grain by grain
/// in the same order, in fewer slots: the slots are most of a run's memory
/// (BENCHMARKS.md, "Memory per grain"). Returns the tally of the last
/// detection.
pub fn detect_growing<S: Detect>(
    grid: &Grid<S>,
    bins: &mut Bins,
    grains: &Grains<S>,
    walls: &S::Walls,
    alert: f32,
    lists: &mut ContactLists<S>,
    max_capacity: usize,
) -> Tally {
    bins.build(grid, &grains.pos);
    let inp = DetectInput {
        grid,
        cell_start: &bins.cell_start,
        sorted: &bins.sorted,
        pos: &grains.pos,
        radius: &grains.radius,
        inv_mass: &grains.inv_mass,
        walls,
        alert,
    };
    let mut tally = detect(&inp, lists);
    while tally.overflow > 0 && lists.capacity < max_capacity {
        let fullest = lists.count.iter().max().map_or(0, |&c| c as usize);
        let next = (fullest + GROW_SLOTS).min(max_capacity);
        *lists = ContactLists::new(0, next);
        tally = detect(&inp, lists);
    }
    tally
}

/// Slots per grain that [`detect_growing`] leaves beyond the fullest list
/// when it grows the lists: every grain pays for each slot, and the fullest
/// lists are a few grains' (at a million grains, 18 had more than 16
/// contacts within the alert distance, none more than 19).
pub const GROW_SLOTS: usize = 2;

/// Binning (`bin_count`, `prefix_sum`, `bin_scatter`) then `detect` at the
/// grains' current positions: the first stages of every step, NSCD or DEM.
/// The lists keep their capacity ([`detect_growing`] up to it).
pub fn bin_and_detect<S: Detect>(
    grid: &Grid<S>,
    bins: &mut Bins,
    grains: &Grains<S>,
    walls: &S::Walls,
    alert: f32,
    lists: &mut ContactLists<S>,
) -> Tally {
    let fixed = lists.capacity;
    detect_growing(grid, bins, grains, walls, alert, lists, fixed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Walls3d;
    use rand::{RngExt, SeedableRng, rngs::StdRng};

    /// Spheres in a box of planes: the lists hold exactly the pairs and
    /// planes closer than the alert distance, each pair in both grains'
    /// lists with opposite normals and the same gap, as a search over every
    /// pair finds them.
    #[test]
    fn spheres_find_every_sphere_and_plane_within_the_alert_distance() {
        let mut rng = StdRng::seed_from_u64(11);
        let (lo, hi) = ([0.0f32; 3], [0.12f32, 0.1, 0.08]);
        let (r_max, alert) = (0.005f32, 0.001f32);
        let n = 1500;
        let pos: Vec<[f32; 3]> = (0..n)
            .map(|_| std::array::from_fn(|k| rng.random_range(lo[k]..hi[k])))
            .collect();
        let radius: Vec<f32> = (0..n).map(|_| rng.random_range(0.6 * r_max..r_max)).collect();
        let grains = Grains::<Dim3>::of_density(pos.clone(), vec![[0.0; 3]; n], radius.clone(), 2500.0);
        let walls = Walls3d::boxed(lo, hi).unwrap();
        let grid = Grid::<Dim3>::covering_box(lo, hi, 2.0 * r_max + alert).unwrap();
        let (mut bins, mut lists) = (Bins::default(), ContactLists::<Dim3>::new(n, 48));
        let tally = bin_and_detect(&grid, &mut bins, &grains, &walls, alert, &mut lists);
        assert_eq!(tally.overflow, 0);
        let (mut pairs, mut on_walls, mut deepest) = (0u64, 0u64, 0.0f32);
        for i in 0..n {
            let mut want = Vec::new();
            for j in (0..n).filter(|&j| j != i) {
                let d = Dim3::sub(pos[i], pos[j]);
                let len = Dim3::dot(d, d).sqrt();
                let gap = len - (radius[i] + radius[j]);
                if gap < alert {
                    want.push((Body::Grain(j as u32), gap.to_bits(), d.map(|x| (x / len).to_bits())));
                    pairs += u64::from(i < j);
                    deepest = deepest.max(-gap);
                }
            }
            for (k, p) in walls.planes.iter().enumerate() {
                let gap = p.distance(pos[i]) - radius[i];
                if gap < alert {
                    want.push((Body::Segment(k as u32), gap.to_bits(), p.normal.map(f32::to_bits)));
                    on_walls += 1;
                    deepest = deepest.max(-gap);
                }
            }
            let mut got: Vec<_> = lists
                .of(i)
                .iter()
                .map(|c| (c.body(), c.gap.to_bits(), c.normal.map(f32::to_bits)))
                .collect();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "grain {i}");
            for c in lists.of(i) {
                assert_eq!((c.impulse, c.impulse_t, c.wall_vel), (0.0, [0.0; 3], [0.0; 3]));
                if let Body::Grain(j) = c.body() {
                    let mirror = lists.of(j as usize).iter().find(|m| m.body() == Body::Grain(i as u32));
                    let mirror = mirror.expect("both copies of a pair are listed");
                    assert_eq!(mirror.gap.to_bits(), c.gap.to_bits());
                    assert_eq!(mirror.normal, c.normal.map(|x| -x));
                    assert_eq!(mirror.inv_mass_sum, c.inv_mass_sum);
                }
            }
        }
        assert!(pairs > 500 && on_walls > 50, "{pairs} pairs, {on_walls} wall contacts");
        assert_eq!(tally.contacts, pairs + on_walls);
        assert_eq!(tally.max_overlap, deepest);
    }

    /// Spheres over a bumpy triangulated floor: with a `WallIndex` the
    /// lists are those of the screen over every body, bit for bit and in
    /// the same order, and both hold exactly the faces, edges and vertices a
    /// search over every body without screens finds within the alert distance.
    #[test]
    fn an_indexed_mesh_finds_the_contacts_of_a_search_over_every_body() {
        let mut rng = StdRng::seed_from_u64(5);
        let cells = 24;
        let side = 0.1f64 / cells as f64;
        let height = |i: usize, k: usize| 0.004 * ((i as f64 * 0.9).sin() + (k as f64 * 0.7).cos());
        let at = |i: usize, k: usize| [i as f64 * side, height(i, k), k as f64 * side];
        let mut triangles = Vec::new();
        for i in 0..cells {
            for k in 0..cells {
                triangles.push([at(i, k), at(i + 1, k), at(i + 1, k + 1)]);
                triangles.push([at(i, k), at(i + 1, k + 1), at(i, k + 1)]);
            }
        }
        let (r_max, alert) = (0.004f32, 0.001f32);
        let plain = Walls3d::mesh(&triangles).unwrap();
        let indexed = plain.clone().indexed(2.0 * r_max + alert);
        assert!(indexed.index.is_some());
        let (lo, hi) = ([0.0f32, -0.012, 0.0], [0.1f32, 0.02, 0.1]);
        let n = 1200;
        let pos: Vec<[f32; 3]> = (0..n)
            .map(|_| std::array::from_fn(|k| rng.random_range(lo[k] - 0.01..hi[k] + 0.01)))
            .collect();
        let radius: Vec<f32> = (0..n).map(|_| rng.random_range(0.5 * r_max..r_max)).collect();
        let grains = Grains::<Dim3>::of_density(pos.clone(), vec![[0.0; 3]; n], radius.clone(), 2500.0);
        let grid = Grid::<Dim3>::covering_box(lo, hi, 2.0 * r_max + alert).unwrap();
        let detect = |walls: &Walls3d| {
            let (mut bins, mut lists) = (Bins::default(), ContactLists::<Dim3>::new(n, 64));
            let tally = bin_and_detect(&grid, &mut bins, &grains, walls, alert, &mut lists);
            assert_eq!(tally.overflow, 0);
            lists
        };
        let (a, b) = (detect(&plain), detect(&indexed));
        assert_eq!(a.count, b.count);
        assert!(
            a.slots
                .iter()
                .zip(&b.slots)
                .all(|(x, y)| bytemuck::bytes_of(x) == bytemuck::bytes_of(y))
        );
        let (mut faces, mut corners) = (0, 0);
        for i in 0..n {
            let (x, r) = (pos[i], radius[i]);
            let mut want = Vec::new();
            let mut keep = |body: Body, found: Option<([f32; 3], f32)>| {
                if let Some((nrm, gap)) = found
                    && gap < alert
                {
                    want.push((body, gap.to_bits(), nrm.map(f32::to_bits)));
                }
            };
            for (k, t) in plain.triangles.iter().enumerate() {
                keep(Body::Segment(k as u32), t.gap(x, r));
            }
            for (k, e) in plain.edges.iter().enumerate() {
                keep(Body::Corner(k as u32), e.gap(x, r));
            }
            for (k, v) in plain.vertices.iter().enumerate() {
                keep(Body::Corner((plain.edges.len() + k) as u32), v.gap(x, r));
            }
            let got: Vec<_> = b
                .of(i)
                .iter()
                .filter(|c| !matches!(c.body(), Body::Grain(_)))
                .map(|c| (c.body(), c.gap.to_bits(), c.normal.map(f32::to_bits)))
                .collect();
            faces += got.iter().filter(|c| matches!(c.0, Body::Segment(_))).count();
            corners += got.iter().filter(|c| matches!(c.0, Body::Corner(_))).count();
            assert_eq!(got, want, "sphere {i} at {x:?}");
        }
        assert!(
            faces > 100 && corners > 10,
            "{faces} faces, {corners} edges and vertices"
        );
        // An index for a shorter reach than the spheres' is not used.
        let short = plain.clone().indexed(0.5 * r_max);
        let c = detect(&short);
        assert!(
            a.slots
                .iter()
                .zip(&c.slots)
                .all(|(x, y)| bytemuck::bytes_of(x) == bytemuck::bytes_of(y))
        );
    }
}
