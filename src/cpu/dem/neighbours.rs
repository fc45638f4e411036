//! Neighbour lists with a skin: the bodies each grain may touch until a grain
//! has moved half the skin, so that binning and detection run only then
//! (docs/dem.md#performance). [`super::DemStepper::step_listed`] runs on
//! them; the per-stage reference ([`super::DemStepper::run_stage`]) detects
//! every step.
//!
//! ```text
//!   build:    list grain j of grain i when gap(i, j) < touch + skin  (touch: 0 for the DEM),
//!             wall body b of grain i when gap(i, b) < alert + skin  (positions x0, walls W0)
//!   rebuild:  when D_g = max_i |x_i - x0_i| > skin / 2,
//!             or D_g + D_w > skin, D_w = max over wall points |y - y0|,
//!             or the walls (other than moved) or the grain count changed
//!   skin    = SKIN_PER_RADIUS * mean radius (at the build)
//! ```
//! Two grains each moved by at most skin/2 close their gap by at most the
//! skin; a grain and a wall close theirs by at most D_g + D_w, so every
//! grain a grain touches, and every wall within the alert distance of a
//! grain (the walls the per-step detection would list), is in its list
//! until the next build. Grain pairs within the alert distance but apart do
//! not act on each other, and the lists leave them out: a list is a few
//! grains long whatever the alert distance, so the step's cost does not grow
//! with it. A wall is listed up to alert + skin because the detection's
//! rule for a one-sided segment compares the unsigned gap with the alert
//! distance (`wall`). A
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
//! The step's statistics are those of its forces: the deepest overlap. The
//! pairs within the alert distance (the contact count of a detection) are
//! not in these lists; a row counts them from the detection
//! [`super::DemStepper::contact_lists`] redoes, whose lists of K slots may
//! drop some (reported as the next step's overflow). These lists have no
//! slot limit: every contact acts.
//!
//! Half lists: a grain pair is listed once, by its lower-index grain, and
//! its force computed once (in parallel over blocks of grains, each block
//! keeping its touching pairs); a serial pass then adds each pair's force,
//! negated, to the higher-index grain, in grain order, and a parallel pass
//! takes each grain's total. No atomics; the sums' order does not depend on
//! the thread count.
//!
//! A law with history keeps it per listed entry (a grain pair's in its
//! lower-index grain's entry); a build carries it to the new lists by
//! (grain, other body), as the per-step detection's warm start does.

use rayon::prelude::*;

use super::force::{Ball, Sum, closed, contact_force};
use crate::cpu::PAR_MIN;
use crate::cpu::detect::{SURELY_BEYOND, Tally, corner_gap, grain_gap_in, segment_gap, wrapped_columns};
use crate::cpu::grid::Bins;
use crate::model::{Body, ContactLists, DemLaw, Dim2, Grains, Grid, Segment, Walls, dot, sub};

/// Skin as a multiple of the grains' mean radius: grain lists reach this
/// beyond contact and last until a grain has moved half of it.
pub const SKIN_PER_RADIUS: f32 = 0.25;

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
    /// Grains are listed within this distance plus the skin, m (0: the
    /// pairs that may touch; [`Neighbours::within`]).
    touch: f32,
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
    /// How many of each grain's entries are grains (they come first).
    grain_entries: Vec<u32>,
    /// [`force_listed`]'s scratch: each grain's force sums, and per block
    /// of [`PAR_MIN`] grains the touching pairs its grains computed.
    sums: Vec<Sum>,
    touching: Vec<Vec<PairForce>>,
}

impl Neighbours {
    /// Lists whose grain entries hold every pair closer than `touch` (m,
    /// >= 0), not only the touching ones, until the next build.
    pub fn within(touch: f32) -> Self {
        Neighbours {
            touch,
            ..Neighbours::default()
        }
    }

    /// The walls changed: build at the next step.
    pub fn invalidate(&mut self) {
        self.valid = false;
    }

    /// Whether the lists hold every grain within the touch distance and
    /// every wall within `alert` of every grain now, the walls being `walls`
    /// (the walls of the last build, moved or not).
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
        let n = grains.len();
        let mean_radius = grains.radius.iter().map(|&r| f64::from(r)).sum::<f64>() / n.max(1) as f64;
        let skin = SKIN_PER_RADIUS * mean_radius as f32;
        let coarse = grown(grid, skin);
        self.bins.build(&coarse, &grains.pos);
        std::mem::swap(&mut self.bodies, &mut self.spare_bodies);
        std::mem::swap(&mut self.history, &mut self.spare_history);
        std::mem::swap(&mut self.count, &mut self.spare_count);
        let old_stride = self.stride;
        self.stride = self.stride.max(8);
        loop {
            self.count.resize(n, 0);
            self.bodies.resize(n * self.stride, 0);
            let scan = Scan {
                grid: &coarse,
                bins: &self.bins,
                grains,
                walls,
                reach: self.touch + skin,
                wall_reach: alert + skin,
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
        // Grains keep their indices between builds; added ones come last.
        self.carry(old_stride);
        self.split(n);
        self.anchor.clone_from(&grains.pos);
        self.grid = coarse;
        self.wall_anchor.clear();
        self.wall_anchor.extend(wall_points(walls));
        (self.skin, self.alert, self.valid) = (skin, alert, true);
        self.builds += 1;
    }

    /// How many of each grain's entries are grains, found once a build so
    /// that no step searches its lists for where the walls begin.
    fn split(&mut self, n: usize) {
        let stride = self.stride;
        self.grain_entries.clear();
        self.grain_entries.extend((0..n).map(|i| {
            let listed = &self.bodies[i * stride..i * stride + self.count[i] as usize];
            listed
                .iter()
                .filter(|&&b| matches!(Body::decode(b), Body::Grain(_)))
                .count() as u32
        }));
    }

    /// Each new entry takes the history of the old entry of the same grain
    /// and body (0 when it was not listed, or the grain is new).
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
                let Some(&was) = old_count.get(i) else {
                    return;
                };
                let old = i * old_stride..i * old_stride + was as usize;
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
        nz: 1,
        period: grid.period,
    }
}

/// The inputs of a build.
struct Scan<'a> {
    grid: &'a Grid,
    bins: &'a Bins,
    grains: &'a Grains,
    walls: &'a Walls,
    /// List a grain whose gap is below this, m.
    reach: f32,
    /// List a segment or corner whose unsigned gap is below this, m.
    wall_reach: f32,
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
            if distance_to(s, x) - r < self.wall_reach {
                push(Body::Segment(k as u32));
            }
        }
        for (k, c) in self.walls.corners.iter().enumerate() {
            let d = sub(x, c.pos);
            if dot(d, d).sqrt() - r < self.wall_reach {
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
    pub grains: &'a Grains,
    pub walls: &'a Walls,
}

/// A touching grain pair, kept from the first pass of [`force_listed`] for
/// the second: the higher-index grain `j`, the force on the lower-index one
/// (the higher one's is its exact negative) and its (F_n, F_t).
#[derive(Debug, Clone, Copy)]
struct PairForce {
    j: u32,
    f: [f32; 2],
    f_n: f32,
    f_t: f32,
}

/// Stage `dem_force` on the lists: force and torque of every grain and each
/// entry's new history; returns the step's tally: its deepest overlap (the
/// contact count and overflow of a detection are a row's, see the module's
/// doc). Each grain pair is computed once, by its lower-index grain, in
/// parallel over blocks of grains; then the blocks' touching pairs, in
/// grain order, add their negated forces to the higher-index grains, and
/// each grain's total is taken (in parallel). A grain's sum thus runs over
/// its own entries, then its lower-index partners in ascending order,
/// whatever the thread count.
pub fn force_listed(inp: &Listed, nb: &mut Neighbours, force: &mut [[f32; 2]], torque: &mut [f32]) -> Tally {
    let (n, stride) = (inp.grains.len(), nb.stride);
    nb.sums.resize(n, Sum::default());
    nb.touching.resize_with(n.div_ceil(PAR_MIN), Vec::new);
    let (count, bodies, grain_entries) = (&nb.count, &nb.bodies, &nb.grain_entries);
    let tally = (
        nb.sums.par_chunks_mut(PAR_MIN),
        nb.history.par_chunks_mut(PAR_MIN * stride),
        nb.touching.par_iter_mut(),
    )
        .into_par_iter()
        .enumerate()
        .map(|(block, (sums, h, touching))| {
            let mut tally = Tally::default();
            touching.clear();
            for (k, (sum, h)) in sums.iter_mut().zip(h.chunks_mut(stride)).enumerate() {
                let i = block * PAR_MIN + k;
                let listed = &bodies[i * stride..i * stride + count[i] as usize];
                let split = grain_entries[i] as usize;
                let mut acc = Acc {
                    sum: Sum::default(),
                    tally: &mut tally,
                    touching,
                };
                own_entries(inp, i, (listed, split), h, &mut acc);
                *sum = acc.sum;
            }
            tally
        })
        .reduce(Tally::default, Tally::and);
    let (g, law) = (inp.grains, &inp.law);
    for p in nb.touching.iter().flatten() {
        let j = p.j as usize;
        nb.sums[j].add_force(law, [-p.f[0], -p.f[1]], p.f_n, p.f_t, g.radius[j]);
    }
    let sums = &nb.sums;
    (force, torque)
        .into_par_iter()
        .with_min_len(PAR_MIN)
        .enumerate()
        .for_each(|(i, (f, t))| {
            (*f, *t) = sums[i].total(law, g.inv_mass[i], g.radius[i], g.ang_vel[i]);
        });
    tally
}

/// Grain i's own entries (`listed`: `split` higher-index grains, then
/// walls, their history `h`) into `acc`.
#[inline]
fn own_entries(inp: &Listed, i: usize, (listed, split): (&[u32], usize), h: &mut [f32], acc: &mut Acc) {
    let g = inp.grains;
    let a: Ball = (g.radius[i], g.vel[i], g.ang_vel[i]);
    let (hist_g, hist_w) = h.split_at_mut(split);
    for (chunk, h) in listed[..split].chunks(64).zip(hist_g.chunks_mut(64)) {
        grain_chunk(inp, i, a, chunk, h, acc);
    }
    for (&code, h) in listed[split..].iter().zip(hist_w) {
        wall(inp, i, a, code, h, acc);
    }
}

/// What a grain gathers over its own entries: its force sum, the block's
/// tally and the block's touching grain pairs.
struct Acc<'a> {
    sum: Sum,
    tally: &'a mut Tally,
    touching: &'a mut Vec<PairForce>,
}

/// Bit t set for the t-th grain of `chunk` (at most 64) that grain i (at
/// `x`, radius `r`) may touch, with no branch: squared distances against
/// the contact distance widened by [`SURELY_BEYOND`], so that only those
/// candidates take the exact test of the detection.
#[inline]
fn screen(g: &Grains, grid: &Grid, (x, r): ([f32; 2], f32), chunk: &[u32]) -> u64 {
    let mut near = 0u64;
    for (t, &j) in chunk.iter().enumerate() {
        let j = j as usize;
        let d = grid.min_image(sub(x, g.pos[j]));
        let touch = (r + g.radius[j]) * SURELY_BEYOND;
        near |= u64::from(dot(d, d) <= touch * touch) << t;
    }
    near
}

/// A chunk of grain i's listed grains (`chunk`, all of higher index; their
/// history `h`) into `acc`.
#[inline]
fn grain_chunk(inp: &Listed, i: usize, a: Ball, chunk: &[u32], h: &mut [f32], acc: &mut Acc) {
    let (g, law) = (inp.grains, &inp.law);
    let x = g.pos[i];
    let (mut near, mut touched) = (screen(g, inp.grid, (x, a.0), chunk), 0u64);
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
        let (f_n, f_t) = closed::<Dim2>(law, n, -gap, g.inv_mass[i] + g.inv_mass[j], a, b, &mut h[t]);
        let f = contact_force::<Dim2>(n, (f_n, f_t));
        acc.touching.push(PairForce {
            j: j as u32,
            f,
            f_n,
            f_t,
        });
        acc.sum.add_force(law, f, f_n, f_t, a.0);
    }
    // An open contact keeps no history. Most chunks touch nothing: one fill.
    if touched == 0 {
        h.fill(0.0);
    } else {
        for (t, ht) in h.iter_mut().enumerate() {
            *ht = if touched >> t & 1 == 1 { *ht } else { 0.0 };
        }
    }
}

/// Grain i's listed wall `code` (its history `h`) into `acc`.
#[inline]
fn wall(inp: &Listed, i: usize, a: Ball, code: u32, h: &mut f32, acc: &mut Acc) {
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
    acc.tally.max_overlap = acc.tally.max_overlap.max(-gap);
    if gap >= 0.0 {
        *h = 0.0;
        return;
    }
    let forces = closed::<Dim2>(law, n, -gap, g.inv_mass[i], a, (0.0, v_wall, 0.0), h);
    acc.sum.add(law, n, forces, a.0);
}
