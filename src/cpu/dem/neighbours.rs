//! Neighbour lists with a skin: the bodies each grain may touch until a grain
//! has moved half the skin, so that binning and detection run only then
//! (docs/dem.md#performance). [`super::DemStepper::step_listed`] runs on
//! them; the per-stage reference ([`super::DemStepper::run_stage`]) detects
//! every step.
//!
//! ```text
//!   build:    list body b of grain i when gap(i, b) < alert + skin  (positions x0, walls W0)
//!   rebuild:  when D_g = max_i |x_i - x0_i| > skin / 2,
//!             or D_g + D_w > skin, D_w = max over wall points |y - y0|,
//!             or the walls (other than moved) or the grain count changed
//! ```
//! Two grains each moved by at most skin/2 close their gap by at most the
//! skin; a grain and a wall close theirs by at most D_g + D_w, so every body
//! within the alert distance of a grain (every contact, every body the
//! per-step detection would list) is in its list until the next build. A
//! wall moves rigidly (`model::motion`), so no point of a segment moves
//! farther than the farther of its ends, and D_w is the largest of the
//! segment ends' and corners' displacements since the build; still walls have
//! D_w = 0 and the rule is the grains' alone. The segment listed is the one
//! whose distance to the grain (the nearest point of the segment, not only a
//! projection) is within reach; a corner, whatever its directions. Each step
//! the force stage ([`force_listed`]) computes gaps and normals from the
//! current positions with detection's own formulas (`cpu::detect`).
//!
//! On a grid periodic along x (`Grid::periodic_x`) the builds' search wraps
//! around in x, every offset between two grains (the gaps, the screens) is
//! its minimum image, and so is a grain's displacement since the build: a
//! grain wrapped from xmax to xmin has moved by its step, not by the period.
//!
//! Contact lists of K slots drop the contacts past K (the overflow the step
//! reports); these lists have no such limit, so under overflow every
//! contact still acts, and the overflow is reported the same.
//!
//! Half lists: a grain pair is listed once, by its lower-index grain, and
//! its force computed once; a reverse index (the entries that list each
//! grain) lets a second pass add that force, negated, to the higher-index
//! grain. Both passes run in parallel over grains with no atomics.
//!
//! A law with history keeps it per listed entry (a grain pair's in its
//! lower-index grain's entry); a build carries it to the new lists by
//! (grain, other body), as the per-step detection's warm start does.

use rayon::prelude::*;

use super::force::{Disk, Sum, closed, contact_force};
use crate::cpu::PAR_MIN;
use crate::cpu::detect::{SURELY_BEYOND, Tally, corner_gap, grain_gap_in, segment_gap, wrapped_columns};
use crate::cpu::grid::Bins;
use crate::model::{Body, ContactLists, DemLaw, Grains, Grid, Segment, Walls, dot, sub};

/// Skin as a multiple of the alert distance: lists reach 1.5 alert beyond
/// contact and last until a grain has moved a quarter of the alert distance.
pub const SKIN_PER_ALERT: f32 = 0.5;

/// The lists, the positions they were built at, and the history of each
/// listed entry.
#[derive(Debug, Clone, Default)]
pub struct Neighbours {
    /// Bins of the builds, on the detection grid's area with cells grown by the skin.
    bins: Bins,
    /// The grid of the last build (its period, for the displacements).
    grid: Grid,
    /// Skin and alert distance of the last build, m.
    skin: f32,
    alert: f32,
    /// Slots per grain.
    stride: usize,
    count: Vec<u32>,
    /// Listed bodies (`Body::encode`), `stride` per grain.
    bodies: Vec<u32>,
    /// Tangential history of each listed entry (a law with history).
    pub history: Vec<f32>,
    /// Positions at the last build.
    anchor: Vec<[f32; 2]>,
    /// The walls' points at the last build: each segment's ends a and b,
    /// then the corners.
    wall_anchor: Vec<[f32; 2]>,
    /// Builds so far.
    pub builds: u64,
    valid: bool,
    spare_bodies: Vec<u32>,
    spare_history: Vec<f32>,
    spare_count: Vec<u32>,
    /// The entries (slot indices, `stride` per grain) that list grain i,
    /// all of lower index: `rev[rev_start[i]..rev_start[i + 1]]`, in
    /// ascending order.
    rev_start: Vec<u32>,
    rev: Vec<u32>,
    /// How many of each grain's entries are grains (they come first).
    grain_entries: Vec<u32>,
    /// [`force_listed`]'s scratch: each grain's sums over its own entries,
    /// each entry's pair part and flags.
    own: Vec<Own>,
    pair: Vec<PairForce>,
    flags: Vec<u8>,
}

impl Neighbours {
    /// The walls changed: build at the next step.
    pub fn invalidate(&mut self) {
        self.valid = false;
    }

    /// Whether the lists hold every body within `alert` of every grain now,
    /// the walls being `walls` (the walls of the last build, moved or not).
    pub fn current(&self, grains: &Grains, walls: &Walls, alert: f32) -> bool {
        if !self.valid || self.anchor.len() != grains.len() || self.alert != alert {
            return false;
        }
        let Some(wall_moved) = self.wall_moved(walls) else {
            return false;
        };
        let half = 0.5 * self.skin;
        let grid = &self.grid;
        let moved = (&grains.pos, &self.anchor)
            .into_par_iter()
            .with_min_len(4 * PAR_MIN)
            .map(|(x, x0)| {
                let d = grid.min_image(sub(*x, *x0));
                dot(d, d)
            })
            .reduce(|| 0.0, f32::max);
        moved <= half * half && (wall_moved == 0.0 || moved.sqrt() + wall_moved <= self.skin)
    }

    /// D_w: the farthest a wall point has moved since the last build, m;
    /// None when the walls have other segments or corners than at the build.
    fn wall_moved(&self, walls: &Walls) -> Option<f32> {
        if self.wall_anchor.len() != 2 * walls.segments.len() + walls.corners.len() {
            return None;
        }
        let far = wall_points(walls)
            .zip(&self.wall_anchor)
            .map(|(y, y0)| {
                let d = sub(y, *y0);
                dot(d, d)
            })
            .fold(0.0, f32::max);
        Some(far.sqrt())
    }

    /// Build the lists when they are not [`Self::current`]; returns whether it built.
    pub fn update(&mut self, grid: &Grid, grains: &Grains, walls: &Walls, alert: f32) -> bool {
        if self.current(grains, walls, alert) {
            return false;
        }
        self.build(grid, grains, walls, alert);
        true
    }

    /// Bin and list at the current positions, carrying the history over.
    fn build(&mut self, grid: &Grid, grains: &Grains, walls: &Walls, alert: f32) {
        let skin = SKIN_PER_ALERT * alert;
        let coarse = grown(grid, skin);
        self.bins.build(&coarse, &grains.pos);
        std::mem::swap(&mut self.bodies, &mut self.spare_bodies);
        std::mem::swap(&mut self.history, &mut self.spare_history);
        std::mem::swap(&mut self.count, &mut self.spare_count);
        let old_stride = self.stride;
        let (n, reach) = (grains.len(), alert + skin);
        self.stride = self.stride.max(8);
        loop {
            self.count.resize(n, 0);
            self.bodies.resize(n * self.stride, 0);
            let scan = Scan {
                grid: &coarse,
                bins: &self.bins,
                grains,
                walls,
                reach,
            };
            let most = (self.count.par_iter_mut(), self.bodies.par_chunks_mut(self.stride))
                .into_par_iter()
                .with_min_len(PAR_MIN)
                .enumerate()
                .map(|(i, (c, out))| {
                    *c = scan.list(i, out);
                    *c as usize
                })
                .max()
                .unwrap_or(0);
            if most <= self.stride {
                break;
            }
            self.stride = most.next_multiple_of(8);
        }
        self.history.clear();
        self.history.resize(n * self.stride, 0.0);
        if self.spare_count.len() == n {
            self.carry(old_stride);
        }
        self.reverse(n);
        self.anchor.clone_from(&grains.pos);
        self.grid = coarse;
        self.wall_anchor.clear();
        self.wall_anchor.extend(wall_points(walls));
        (self.skin, self.alert, self.valid) = (skin, alert, true);
        self.builds += 1;
    }

    /// The reverse index: for each grain, the entries of lower-index grains
    /// that list it (a counting sort of the entries by the grain they list).
    fn reverse(&mut self, n: usize) {
        let stride = self.stride;
        let listed_grains = |i: usize| {
            let slots = i * stride..i * stride + self.count[i] as usize;
            self.bodies[slots.clone()]
                .iter()
                .zip(slots)
                .filter_map(|(&b, e)| match Body::decode(b) {
                    Body::Grain(j) => Some((j as usize, e as u32)),
                    _ => None,
                })
        };
        self.rev_start.clear();
        self.rev_start.resize(n + 1, 0);
        self.grain_entries.clear();
        for i in 0..n {
            let mut grains = 0;
            for (j, _) in listed_grains(i) {
                self.rev_start[j + 1] += 1;
                grains += 1;
            }
            self.grain_entries.push(grains);
        }
        for j in 0..n {
            self.rev_start[j + 1] += self.rev_start[j];
        }
        self.rev.resize(self.rev_start[n] as usize, 0);
        let mut next = self.rev_start.clone();
        for i in 0..n {
            for (j, e) in listed_grains(i) {
                self.rev[next[j] as usize] = e;
                next[j] += 1;
            }
        }
    }

    /// Each new entry takes the history of the old entry of the same grain
    /// and body (0 when it was not listed).
    fn carry(&mut self, old_stride: usize) {
        let (old_bodies, old_history, old_count) = (&self.spare_bodies, &self.spare_history, &self.spare_count);
        let stride = self.stride;
        (
            self.history.par_chunks_mut(stride),
            self.bodies.par_chunks(stride),
            &self.count,
        )
            .into_par_iter()
            .with_min_len(PAR_MIN)
            .enumerate()
            .for_each(|(i, (h, b, &c))| {
                let old = i * old_stride..i * old_stride + old_count[i] as usize;
                let (ob, oh) = (&old_bodies[old.clone()], &old_history[old]);
                for (hs, body) in h.iter_mut().zip(&b[..c as usize]) {
                    if let Some(k) = ob.iter().position(|o| o == body) {
                        *hs = oh[k];
                    }
                }
            });
    }

    /// Take the history of `lists` (each contact's `impulse_t`, a saved
    /// state) as the last build's: the next build, which this forces,
    /// carries it over entry by entry.
    pub fn restore_history(&mut self, lists: &ContactLists) {
        let k = lists.capacity.max(1);
        self.stride = k;
        self.count = lists.count.iter().map(|&c| c.min(k as u32)).collect();
        self.bodies = lists.slots.iter().map(|c| c.other).collect();
        self.history = lists.slots.iter().map(|c| c.impulse_t).collect();
        self.bodies.resize(self.count.len() * k, 0);
        self.history.resize(self.count.len() * k, 0.0);
        self.valid = false;
    }

    /// Alert distance of the last build, m.
    pub fn alert(&self) -> f32 {
        self.alert
    }

    /// Listed entries of grain i (encoded bodies).
    pub fn of(&self, i: usize) -> &[u32] {
        &self.bodies[i * self.stride..i * self.stride + self.count[i] as usize]
    }

    /// History of the pair of grain i and `body`, 0 when it is not listed (or
    /// grain i came after the last build). A grain pair's is kept in the
    /// entry of its lower-index grain.
    pub fn history_of(&self, i: usize, body: u32) -> f32 {
        let (i, body) = match Body::decode(body) {
            Body::Grain(j) if (j as usize) < i => (j as usize, Body::Grain(i as u32).encode()),
            _ => (i, body),
        };
        if i >= self.count.len() {
            return 0.0;
        }
        let at = self.of(i).iter().position(|&b| b == body);
        at.map_or(0.0, |k| self.history[i * self.stride + k])
    }
}

/// The points of `walls` the rebuild rule follows: each segment's ends, then the corners.
fn wall_points(walls: &Walls) -> impl Iterator<Item = [f32; 2]> + '_ {
    let ends = walls.segments.iter().flat_map(|s| [s.a, s.b]);
    ends.chain(walls.corners.iter().map(|c| c.pos))
}

/// `grid` with cells grown by `skin` over the same area; a periodic grid's
/// period keeps a whole number of cells (fewer than 3 when the grown cell
/// is that large: the search then visits every column once).
fn grown(grid: &Grid, skin: f32) -> Grid {
    let mut cell = grid.cell + skin;
    let mut nx = ((grid.nx as f32 * grid.cell / cell).ceil() as u32).max(1);
    if grid.is_periodic() {
        nx = ((grid.period / cell).floor() as u32).max(1);
        cell = grid.period / nx as f32;
    }
    let ny = ((grid.ny as f32 * grid.cell / cell).ceil() as u32).max(1);
    Grid {
        origin: grid.origin,
        cell,
        nx,
        ny,
        period: grid.period,
    }
}

/// The inputs of a build.
struct Scan<'a> {
    grid: &'a Grid,
    bins: &'a Bins,
    grains: &'a Grains,
    walls: &'a Walls,
    /// List a body whose gap is below this, m.
    reach: f32,
}

impl Scan<'_> {
    /// Grain i's bodies within reach into `out` (grains of higher index in
    /// bin order, then segments, then corners); returns how many there are
    /// (all counted, at most `out.len()` written).
    fn list(&self, i: usize, out: &mut [u32]) -> u32 {
        let g = self.grains;
        let (x, r) = (g.pos[i], g.radius[i]);
        let mut found = 0u32;
        let mut push = |b: Body| {
            if let Some(s) = out.get_mut(found as usize) {
                *s = b.encode();
            }
            found += 1;
        };
        let grid = self.grid;
        let (cx, cy) = grid.coords(x);
        let (start, sorted) = (&self.bins.cell_start, &self.bins.sorted);
        // A row's cells as ranges of `sorted`: one range, or one per wrapped column.
        let (x0, x1) = (cx.saturating_sub(1), (cx + 1).min(grid.nx - 1));
        let (cols, ncols) = if grid.is_periodic() {
            wrapped_columns(grid, cx)
        } else {
            ([x0, x1, 0], 1)
        };
        for ny in cy.saturating_sub(1)..=(cy + 1).min(grid.ny - 1) {
            for (k, &col) in cols[..ncols].iter().enumerate() {
                let (first, last) = if grid.is_periodic() {
                    ((ny * grid.nx + col) as usize, (ny * grid.nx + col) as usize)
                } else {
                    ((ny * grid.nx + cols[k]) as usize, (ny * grid.nx + cols[k + 1]) as usize)
                };
                for &j in &sorted[start[first] as usize..start[last + 1] as usize] {
                    let j = j as usize;
                    if j > i && grain_gap_in(grid, (x, r), (g.pos[j], g.radius[j]), i < j).1 < self.reach {
                        push(Body::Grain(j as u32));
                    }
                }
            }
        }
        for (k, s) in self.walls.segments.iter().enumerate() {
            if distance_to(s, x) - r < self.reach {
                push(Body::Segment(k as u32));
            }
        }
        for (k, c) in self.walls.corners.iter().enumerate() {
            let d = sub(x, c.pos);
            if dot(d, d).sqrt() - r < self.reach {
                push(Body::Corner(k as u32));
            }
        }
        found
    }
}

/// Distance from `x` to the nearest point of segment `s`, m.
fn distance_to(s: &Segment, x: [f32; 2]) -> f32 {
    let t = sub(s.b, s.a);
    let tt = dot(t, t);
    let st = if tt > 0.0 {
        (dot(sub(x, s.a), t) / tt).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let d = sub(x, [s.a[0] + st * t[0], s.a[1] + st * t[1]]);
    dot(d, d).sqrt()
}

/// The per-grain inputs of [`force_listed`].
pub struct Listed<'a> {
    pub law: DemLaw,
    pub alert: f32,
    /// The detection grid (its period along x, for the offsets).
    pub grid: &'a Grid,
    /// K, the contact lists' capacity (for the overflow count).
    pub capacity: usize,
    pub grains: &'a Grains,
    pub walls: &'a Walls,
}

/// A listed grain pair's part, kept from the first pass of
/// [`force_listed`] for the second: the force on the pair's lower-index
/// grain (the higher one's is its exact negative) and its (F_n, F_t).
#[derive(Debug, Clone, Copy, Default)]
struct PairForce {
    f: [f32; 2],
    f_n: f32,
    f_t: f32,
}

/// [`PairForce`] flags: the pair is within the alert distance; it touches
/// (its force is set).
const WITHIN: u8 = 1;
const TOUCHING: u8 = 2;

/// What grain i gathers in the first pass: the force sums over its own
/// entries (higher-index grains and the walls) and how many of them are
/// within the alert distance.
#[derive(Debug, Clone, Copy, Default)]
struct Own {
    sum: Sum,
    within: u32,
}

/// Stage `dem_force` on the lists: force and torque of every grain and each
/// entry's new history; returns the tally the per-step detection would
/// report. Each grain pair is computed once, by its lower-index grain
/// (parallel over grains); a second pass (parallel over grains) adds to each
/// grain the pairs listed by lower-index grains, with the sign flipped.
pub fn force_listed(inp: &Listed, nb: &mut Neighbours, force: &mut [[f32; 2]], torque: &mut [f32]) -> Tally {
    let (n, stride) = (inp.grains.len(), nb.stride);
    nb.own.resize(n, Own::default());
    nb.pair.resize(n * stride, PairForce::default());
    nb.flags.resize(n * stride, 0);
    let (count, bodies, grain_entries) = (&nb.count, &nb.bodies, &nb.grain_entries);
    // Blocks of PAR_MIN grains, each a rayon task with its own tally.
    let mut tally = (
        nb.own.par_chunks_mut(PAR_MIN),
        nb.history.par_chunks_mut(PAR_MIN * stride),
        nb.pair.par_chunks_mut(PAR_MIN * stride),
        nb.flags.par_chunks_mut(PAR_MIN * stride),
    )
        .into_par_iter()
        .enumerate()
        .map(|(block, (own, h, pair, flags))| {
            let mut tally = Tally::default();
            let slots = h
                .chunks_mut(stride)
                .zip(pair.chunks_mut(stride))
                .zip(flags.chunks_mut(stride));
            for (k, (o, ((h, pair), flags))) in own.iter_mut().zip(slots).enumerate() {
                let i = block * PAR_MIN + k;
                let listed = &bodies[i * stride..i * stride + count[i] as usize];
                let t;
                (*o, t) = own_entries(inp, i, (listed, grain_entries[i] as usize), Entries { h, pair, flags });
                tally = tally.and(t);
            }
            tally
        })
        .reduce(Tally::default, Tally::and);
    let (own, pair, flags) = (&nb.own, &nb.pair, &nb.flags);
    let (rev_start, rev) = (&nb.rev_start, &nb.rev);
    let g = inp.grains;
    tally.overflow = (force.par_chunks_mut(PAR_MIN), torque.par_chunks_mut(PAR_MIN))
        .into_par_iter()
        .enumerate()
        .map(|(block, (f, t))| {
            let mut overflow = 0u64;
            for (k, (f, t)) in f.iter_mut().zip(t).enumerate() {
                let i = block * PAR_MIN + k;
                let Own { mut sum, mut within } = own[i];
                let r = g.radius[i];
                for &e in &rev[rev_start[i] as usize..rev_start[i + 1] as usize] {
                    let e = e as usize;
                    within += u32::from(flags[e] & WITHIN);
                    if flags[e] & TOUCHING != 0 {
                        let p = pair[e];
                        sum.add_force(&inp.law, [-p.f[0], -p.f[1]], (p.f_n, p.f_t), r);
                    }
                }
                (*f, *t) = sum.total(&inp.law, g.inv_mass[i], r, g.ang_vel[i]);
                overflow += u64::from(within.saturating_sub(inp.capacity as u32));
            }
            overflow
        })
        .sum();
    tally
}

/// Grain i's own entries: the history, pair and flags of its slots.
struct Entries<'a> {
    h: &'a mut [f32],
    pair: &'a mut [PairForce],
    flags: &'a mut [u8],
}

/// Grain i's own entries (`listed`: `split` higher-index grains, then
/// walls): their sums, pair parts and flags, the new history, and grain i's
/// part of the tally (its pairs within the alert distance, each pair counted
/// here alone; its walls).
#[inline]
fn own_entries(inp: &Listed, i: usize, (listed, split): (&[u32], usize), e: Entries) -> (Own, Tally) {
    let g = inp.grains;
    let a: Disk = (g.radius[i], g.vel[i], g.ang_vel[i]);
    let mut acc = Acc::default();
    let (hist_g, hist_w) = e.h.split_at_mut(split);
    let chunks = listed[..split].chunks(64).zip(hist_g.chunks_mut(64));
    let parts = e.pair[..split].chunks_mut(64).zip(e.flags[..split].chunks_mut(64));
    for ((chunk, h), (pair, flags)) in chunks.zip(parts) {
        grain_chunk(inp, i, a, chunk, Entries { h, pair, flags }, &mut acc);
    }
    for (&code, h) in listed[split..].iter().zip(hist_w) {
        wall(inp, i, a, code, h, &mut acc);
    }
    let own = Own {
        sum: acc.sum,
        within: acc.within,
    };
    (own, acc.tally)
}

/// What a grain gathers over its own entries: the force sums, the tally,
/// and the bodies within the alert distance.
#[derive(Default)]
struct Acc {
    sum: Sum,
    tally: Tally,
    within: u32,
}

/// Bit t of each mask for the t-th grain of a chunk of at most 64.
#[derive(Default)]
struct Masks {
    /// Not surely apart: maybe touching.
    near: u64,
    /// Surely within the alert distance.
    within: u64,
    /// Neither surely within nor surely beyond the alert distance.
    band: u64,
}

/// The masks of grain i (at `x`, radius `r`) over the grains `chunk`, with
/// no branch: squared distances against the reaches widened or narrowed by
/// [`SURELY_BEYOND`], so that only the candidates near a boundary take the
/// exact test of the detection.
#[inline]
fn screen(g: &Grains, grid: &Grid, (x, r): ([f32; 2], f32), alert: f32, chunk: &[u32]) -> Masks {
    const SURELY_WITHIN: f32 = 2.0 - SURELY_BEYOND;
    let mut m = Masks::default();
    for (t, &j) in chunk.iter().enumerate() {
        let j = j as usize;
        let d = grid.min_image(sub(x, g.pos[j]));
        let d2 = dot(d, d);
        let s = r + g.radius[j];
        let touch = s * SURELY_BEYOND;
        let (lo, hi) = ((s + alert) * SURELY_WITHIN, (s + alert) * SURELY_BEYOND);
        m.near |= u64::from(d2 <= touch * touch) << t;
        m.within |= u64::from(d2 <= lo * lo) << t;
        // Within the wide reach; the band is what of it is not surely within.
        m.band |= u64::from(d2 <= hi * hi) << t;
    }
    m.band &= !m.within;
    m
}

/// A chunk of grain i's listed grains (`chunk`, all of higher index; their
/// history, pair parts and flags in `e`) into `acc`.
#[inline]
fn grain_chunk(inp: &Listed, i: usize, a: Disk, chunk: &[u32], e: Entries, acc: &mut Acc) {
    let (g, law, alert) = (inp.grains, &inp.law, inp.alert);
    let x = g.pos[i];
    let m = screen(g, inp.grid, (x, a.0), alert, chunk);
    let mut inside = m.within;
    let mut band = m.band;
    while band != 0 {
        let t = band.trailing_zeros() as usize;
        band &= band - 1;
        let j = chunk[t] as usize;
        if grain_gap_in(inp.grid, (x, a.0), (g.pos[j], g.radius[j]), i < j).1 < alert {
            inside |= 1 << t;
        }
    }
    acc.within += inside.count_ones();
    acc.tally.contacts += u64::from(inside.count_ones());
    let (mut near, mut touched) = (m.near, 0u64);
    while near != 0 {
        let t = near.trailing_zeros() as usize;
        near &= near - 1;
        let j = chunk[t] as usize;
        let (n, gap) = grain_gap_in(inp.grid, (x, a.0), (g.pos[j], g.radius[j]), i < j);
        if gap >= 0.0 {
            continue;
        }
        touched |= 1 << t;
        acc.tally.max_overlap = acc.tally.max_overlap.max(-gap);
        let b = (g.radius[j], g.vel[j], g.ang_vel[j]);
        let (f_n, f_t) = closed(law, n, -gap, g.inv_mass[i] + g.inv_mass[j], a, b, &mut e.h[t]);
        let f = contact_force(n, (f_n, f_t));
        e.pair[t] = PairForce { f, f_n, f_t };
        acc.sum.add_force(law, f, (f_n, f_t), a.0);
    }
    for (t, fl) in e.flags.iter_mut().enumerate() {
        *fl = ((inside >> t & 1) as u8 * WITHIN) | ((touched >> t & 1) as u8 * TOUCHING);
    }
    // An open contact keeps no history. Most chunks touch nothing: one fill.
    if touched == 0 {
        e.h.fill(0.0);
    } else {
        for (t, ht) in e.h.iter_mut().enumerate() {
            *ht = if touched >> t & 1 == 1 { *ht } else { 0.0 };
        }
    }
}

/// Grain i's listed wall `code` (its history `h`) into `acc`.
#[inline]
fn wall(inp: &Listed, i: usize, a: Disk, code: u32, h: &mut f32, acc: &mut Acc) {
    let (g, law) = (inp.grains, &inp.law);
    let x = g.pos[i];
    let walls = inp.walls;
    let found = match Body::decode(code) {
        Body::Segment(k) => {
            let k = k as usize;
            segment_gap(&walls.segments[k], x, a.0).map(|f| (f, walls.segment_velocity_at(k, x)))
        }
        Body::Corner(k) => {
            let k = k as usize;
            corner_gap(&walls.corners[k], x, a.0).map(|(n, gap)| ((n, gap, gap), walls.corner_velocity(k)))
        }
        Body::Grain(_) => None,
    };
    let Some(((n, gap, reach), v_wall)) = found else {
        *h = 0.0;
        return;
    };
    // Beyond the alert distance the detection does not list it, even when
    // a one-sided segment's gap is negative (a grain far behind it).
    if reach >= inp.alert {
        *h = 0.0;
        return;
    }
    acc.within += 1;
    acc.tally.contacts += 1;
    acc.tally.max_overlap = acc.tally.max_overlap.max(-gap);
    if gap >= 0.0 {
        *h = 0.0;
        return;
    }
    let forces = closed(law, n, -gap, g.inv_mass[i], a, (0.0, v_wall, 0.0), h);
    acc.sum.add(law, n, forces, a.0);
}
