//! Sequential deposition into the lowest pocket (see the module doc of
//! `fill` for the algorithm; its fill fraction and cost: BENCHMARKS.md).
//!
//! A pocket is a pair of supports and a branch; for a grain of radius r its
//! centre x lies at distance R + r + c from a circle support (a placed grain
//! of radius R, or a wall end point with R = 0) and at r + c from a line
//! support (a wall line or a fill box edge, on one side):
//!
//! ```text
//!   circle-circle: |x - p1| = R1 + r + c, |x - p2| = R2 + r + c   (branch: left or right of p1 -> p2)
//!   circle-line:   |x - p| = R + r + c, x on the line offset by r + c   (branch: -/+ along the line)
//!   line-line:     x on both offset lines
//! ```
//! A pocket is kept only where the grain rests under gravity (-y): the
//! downward direction lies in the cone of the two contact directions,
//! `(0, -1) = a u1 + b u2` with `a, b >= 0`.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rand::{RngExt, rngs::StdRng};

use super::{FillRegion, point_in_polygon, segment_distance};

/// Times a pocket may be skipped (it has no resting position for the
/// grain's radius, or is taken for it but not for the smallest of its
/// class) before it is dropped from a class; bounds the work per pocket.
const MAX_MISSES: u8 = 8;

/// Radius classes: grains are split at quantiles of their radii into this
/// many classes, each with its own queue of pockets keyed by the height of a
/// grain of the class's largest radius. A pocket too narrow or taken for
/// one class stays open for the others.
const CLASSES: usize = 4;

/// Slack of the resting test on the cone coefficients.
const REST_SLACK: f64 = 1e-9;

#[derive(Clone, Copy, PartialEq)]
enum Support {
    /// Placed grain i.
    Disk(u32),
    /// End point k of the support lines (line k / 2): a circle of radius 0.
    Point(u32),
    /// Support line k, on the side of its normal (true) or the other.
    Line(u32, bool),
}

#[derive(Clone, Copy)]
struct Pocket {
    a: Support,
    b: Support,
    /// Which of the two solutions (unused for line-line).
    branch: bool,
    misses: u8,
}

/// A pocket in the queue, lowest key first; ties go by a seeded draw.
struct Entry {
    /// Height of the pocket's centre for the key radius, m.
    key: f64,
    tie: u64,
    pocket: Pocket,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the lowest pocket.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.total_cmp(&self.key).then(other.tie.cmp(&self.tie))
    }
}

/// A support made concrete for one radius: a circle the centre lies on, or
/// the offset line it lies on (origin, unit tangent, length, unit normal
/// pointing from the wall to the centre).
enum Shape {
    Circle([f64; 2], f64),
    Line([f64; 2], [f64; 2], f64, [f64; 2]),
}

fn sub(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}
fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}
fn axpy(s: f64, a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [b[0] + s * a[0], b[1] + s * a[1]]
}

/// Uniform grid over the fill box: placed grains as linked lists per cell,
/// and per cell the support lines that pass within reach (CSR).
struct Grid {
    origin: [f64; 2],
    h: f64,
    nx: usize,
    ny: usize,
    head: Vec<u32>,
    next: Vec<u32>,
    line_start: Vec<u32>,
    line_ids: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl Grid {
    fn cell(&self, p: [f64; 2]) -> (usize, usize) {
        let f = |v: f64, n: usize| (v.max(0.0) as usize).min(n - 1);
        (
            f((p[0] - self.origin[0]) / self.h, self.nx),
            f((p[1] - self.origin[1]) / self.h, self.ny),
        )
    }

    /// Cells within `k` of the one holding p.
    fn around(&self, p: [f64; 2], k: usize) -> impl Iterator<Item = usize> + '_ {
        let (cx, cy) = self.cell(p);
        let (x0, x1) = (cx.saturating_sub(k), (cx + k).min(self.nx - 1));
        let (y0, y1) = (cy.saturating_sub(k), (cy + k).min(self.ny - 1));
        (y0..=y1).flat_map(move |y| (x0..=x1).map(move |x| y * self.nx + x))
    }

    fn disks(&self, cell: usize) -> impl Iterator<Item = u32> + '_ {
        let some = |i: u32| (i != NONE).then_some(i);
        std::iter::successors(some(self.head[cell]), move |&i| some(self.next[i as usize]))
    }

    fn lines(&self, p: [f64; 2]) -> &[u32] {
        let (x, y) = self.cell(p);
        let c = y * self.nx + x;
        &self.line_ids[self.line_start[c] as usize..self.line_start[c + 1] as usize]
    }
}

/// The deposition state.
pub(super) struct Deposit<'a> {
    region: &'a FillRegion<'a>,
    /// Obstacles and the four edges of the fill box.
    lines: Vec<[[f64; 2]; 2]>,
    /// Clearance c between a new grain and its supports, m.
    clearance: f64,
    /// Largest and smallest radius to place, m.
    r_max: f64,
    r_min: f64,
    radii: &'a [f64],
    pos: Vec<[f64; 2]>,
    grid: Grid,
    /// Largest radius of each class, ascending, m.
    class_max: Vec<f64>,
    /// One queue per class.
    heaps: Vec<BinaryHeap<Entry>>,
}

impl<'a> Deposit<'a> {
    pub(super) fn new(radii: &'a [f64], region: &'a FillRegion<'a>, clearance: f64) -> Deposit<'a> {
        let r_max = radii.iter().copied().fold(0.0, f64::max);
        let r_min = radii.iter().copied().fold(f64::INFINITY, f64::min);
        let [x0, y0, x1, y1] = region.bbox;
        let mut lines: Vec<_> = region.obstacles.iter().copied().filter(|l| l[0] != l[1]).collect();
        lines.extend([
            [[x0, y0], [x1, y0]],
            [[x1, y0], [x1, y1]],
            [[x1, y1], [x0, y1]],
            [[x0, y1], [x0, y0]],
        ]);
        // Cells at least one largest diameter wide (neighbours of a disk are
        // in the 3x3 block around it), and no more than ~16 per grain.
        let (w, hgt) = ((x1 - x0).max(0.0), (y1 - y0).max(0.0));
        let max_cells = (16 * radii.len()).max(1 << 12) as f64;
        let h = (2.0 * r_max + clearance).max((w * hgt / max_cells).sqrt()).max(1e-300);
        let nx = ((w / h).ceil() as usize).clamp(1, 1 << 24);
        let ny = ((hgt / h).ceil() as usize).clamp(1, 1 << 24);
        let mut grid = Grid {
            origin: [x0, y0],
            h,
            nx,
            ny,
            head: vec![NONE; nx * ny],
            next: Vec::with_capacity(radii.len()),
            line_start: Vec::new(),
            line_ids: Vec::new(),
        };
        // A line is listed in every cell whose points may lie within
        // 3 r_max + 2c of it: a new grain's pockets with it, and the check
        // that a grain of radius r clears it, look no further.
        let reach = std::f64::consts::FRAC_1_SQRT_2 * h + 3.0 * r_max + 2.0 * clearance;
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for (k, &[a, b]) in lines.iter().enumerate() {
            let lo = grid.cell([a[0].min(b[0]) - reach, a[1].min(b[1]) - reach]);
            let hi = grid.cell([a[0].max(b[0]) + reach, a[1].max(b[1]) + reach]);
            for y in lo.1..=hi.1 {
                for x in lo.0..=hi.0 {
                    let centre = [x0 + (x as f64 + 0.5) * h, y0 + (y as f64 + 0.5) * h];
                    if segment_distance(centre, [a, b]) <= reach {
                        pairs.push(((y * nx + x) as u32, k as u32));
                    }
                }
            }
        }
        pairs.sort_unstable();
        grid.line_start = vec![0; nx * ny + 1];
        for &(c, _) in &pairs {
            grid.line_start[c as usize + 1] += 1;
        }
        for c in 0..nx * ny {
            grid.line_start[c + 1] += grid.line_start[c];
        }
        grid.line_ids = pairs.into_iter().map(|(_, k)| k).collect();
        Deposit {
            region,
            lines,
            clearance,
            r_max,
            r_min,
            radii,
            pos: Vec::with_capacity(radii.len()),
            grid,
            class_max: class_bounds(radii),
            heaps: Vec::new(),
        }
    }

    /// Place the grains in order; returns the centres of those placed (a
    /// prefix of the radii: placement stops at the first grain with no
    /// pocket left).
    pub(super) fn run(mut self, rng: &mut StdRng) -> Vec<[f64; 2]> {
        self.heaps = self.class_max.iter().map(|_| BinaryHeap::new()).collect();
        self.seed_wall_pockets(rng);
        let mut skipped = Vec::new();
        for &r in self.radii {
            let class = self.class_max.partition_point(|&m| m < r);
            let class_min = if class == 0 {
                self.r_min
            } else {
                self.class_max[class - 1]
            };
            let spot = loop {
                let Some(mut e) = self.heaps[class].pop() else {
                    break None;
                };
                let overlap = self.rest(&e.pocket, r).map(|x| (x, self.overlap(x, r, &e.pocket)));
                match overlap {
                    Some((x, d)) if d <= 0.0 => break Some(x),
                    // Taken for this radius, too deep even for the smallest of its class.
                    Some((_, d)) if r - d < class_min => {}
                    // No resting position for this radius, or taken for it
                    // but perhaps not for a smaller grain: kept a while.
                    _ => {
                        e.pocket.misses += 1;
                        if e.pocket.misses < MAX_MISSES {
                            skipped.push(e);
                        }
                    }
                }
            };
            let Some(x) = spot else { break };
            self.heaps[class].extend(skipped.drain(..));
            self.add(x, r, rng);
        }
        self.pos
    }

    /// Pockets on walls alone: every pair of lines and line end points no
    /// further apart than a largest diameter.
    fn seed_wall_pockets(&mut self, rng: &mut StdRng) {
        let reach = 2.0 * self.r_max + 2.0 * self.clearance;
        let n = self.lines.len() as u32;
        for i in 0..n {
            for j in i + 1..n {
                let (l1, l2) = (self.lines[i as usize], self.lines[j as usize]);
                let near = l1.iter().any(|&p| segment_distance(p, l2) <= reach)
                    || l2.iter().any(|&p| segment_distance(p, l1) <= reach)
                    || segments_cross(l1, l2);
                if !near {
                    continue;
                }
                let sups = |k: u32| {
                    [
                        Support::Line(k, true),
                        Support::Line(k, false),
                        Support::Point(2 * k),
                        Support::Point(2 * k + 1),
                    ]
                };
                let (s1, s2) = (sups(i), sups(j));
                for a in s1 {
                    for b in s2 {
                        for branch in [false, true] {
                            self.push(
                                Pocket {
                                    a,
                                    b,
                                    branch,
                                    misses: 0,
                                },
                                rng,
                            );
                        }
                    }
                }
            }
        }
    }

    /// Record grain `pos.len()` at x and queue its pockets with the grains
    /// and lines near it.
    fn add(&mut self, x: [f64; 2], r: f64, rng: &mut StdRng) {
        let i = self.pos.len() as u32;
        self.pos.push(x);
        let (cx, cy) = self.grid.cell(x);
        let cell = cy * self.grid.nx + cx;
        self.grid.next.push(self.grid.head[cell]);
        self.grid.head[cell] = i;
        let c = self.clearance;
        let mut near = Vec::new();
        for cell in self.grid.around(x, 2) {
            for j in self.grid.disks(cell) {
                let d = sub(self.pos[j as usize], x);
                let reach = r + self.radii[j as usize] + 2.0 * self.r_max + 2.0 * c;
                if j != i && dot(d, d) <= reach * reach {
                    near.push(Support::Disk(j));
                }
            }
        }
        for &k in self.grid.lines(x) {
            let [a, b] = self.lines[k as usize];
            if segment_distance(x, [a, b]) > r + 2.0 * self.r_max + 2.0 * c {
                continue;
            }
            let n = normal([a, b]);
            near.push(Support::Line(k, dot(n, sub(x, a)) >= 0.0));
            near.extend([Support::Point(2 * k), Support::Point(2 * k + 1)]);
        }
        for b in near {
            for branch in [false, true] {
                self.push(
                    Pocket {
                        a: Support::Disk(i),
                        b,
                        branch,
                        misses: 0,
                    },
                    rng,
                );
            }
        }
    }

    /// Queue a pocket in every class where a grain of the class's largest
    /// radius rests in it, under the height of that grain.
    fn push(&mut self, pocket: Pocket, rng: &mut StdRng) {
        let tie = rng.random::<u64>();
        for k in 0..self.class_max.len() {
            if let Some(x) = self.rest(&pocket, self.class_max[k]) {
                self.heaps[k].push(Entry { key: x[1], tie, pocket });
            }
        }
    }

    fn shape(&self, s: Support, r: f64) -> Shape {
        let c = self.clearance;
        match s {
            Support::Disk(i) => Shape::Circle(self.pos[i as usize], self.radii[i as usize] + r + c),
            Support::Point(k) => Shape::Circle(self.lines[k as usize / 2][k as usize % 2], r + c),
            Support::Line(k, side) => {
                let [a, b] = self.lines[k as usize];
                let t = sub(b, a);
                let len = dot(t, t).sqrt();
                let t = [t[0] / len, t[1] / len];
                let n = normal([a, b]);
                let n = if side { n } else { [-n[0], -n[1]] };
                Shape::Line(axpy(r + c, n, a), t, len, n)
            }
        }
    }

    /// Where a grain of radius r rests in the pocket, if it has a resting
    /// position there (touching both supports, held up against -y).
    fn rest(&self, p: &Pocket, r: f64) -> Option<[f64; 2]> {
        use Shape::*;
        let (s1, s2) = (self.shape(p.a, r), self.shape(p.b, r));
        let x = match (&s1, &s2) {
            (&Circle(p1, r1), &Circle(p2, r2)) => {
                let e = sub(p2, p1);
                let d = dot(e, e).sqrt();
                if d == 0.0 || d > r1 + r2 || d < (r1 - r2).abs() {
                    return None;
                }
                let along = (r1 * r1 - r2 * r2 + d * d) / (2.0 * d);
                let h = (r1 * r1 - along * along).max(0.0).sqrt();
                let h = if p.branch { h } else { -h };
                let e = [e[0] / d, e[1] / d];
                [p1[0] + along * e[0] - h * e[1], p1[1] + along * e[1] + h * e[0]]
            }
            (&Circle(p1, r1), &Line(a, t, len, n)) | (&Line(a, t, len, n), &Circle(p1, r1)) => {
                let d = sub(p1, a);
                let off = dot(d, n);
                if off.abs() > r1 {
                    return None;
                }
                let h = (r1 * r1 - off * off).sqrt();
                let s = dot(d, t) + if p.branch { h } else { -h };
                if !(0.0..=len).contains(&s) {
                    return None;
                }
                axpy(s, t, a)
            }
            (&Line(a1, t1, len1, _), &Line(a2, t2, len2, _)) => {
                if p.branch {
                    return None;
                }
                // a1 + s1 t1 = a2 + s2 t2
                let det = t1[0] * (-t2[1]) - t1[1] * (-t2[0]);
                if det.abs() < 1e-12 {
                    return None;
                }
                let d = sub(a2, a1);
                let s1 = (d[0] * (-t2[1]) - d[1] * (-t2[0])) / det;
                let s2 = (t1[0] * d[1] - t1[1] * d[0]) / det;
                if !(0.0..=len1).contains(&s1) || !(0.0..=len2).contains(&s2) {
                    return None;
                }
                axpy(s1, t1, a1)
            }
        };
        let towards = |s: &Shape| match *s {
            Circle(q, _) => {
                let u = sub(q, x);
                let l = dot(u, u).sqrt();
                [u[0] / l, u[1] / l]
            }
            Line(_, _, _, n) => [-n[0], -n[1]],
        };
        let (u1, u2) = (towards(&s1), towards(&s2));
        let det = u1[0] * u2[1] - u1[1] * u2[0];
        if det.is_nan() || det.abs() <= 1e-12 {
            return None;
        }
        // (0, -1) = a u1 + b u2
        let (a, b) = (u2[0] / det, -u1[0] / det);
        (a >= -REST_SLACK && b >= -REST_SLACK).then_some(x)
    }

    /// How far a grain of radius r at x overlaps the walls and the placed
    /// grains, clearance c/2 included, m: at most 0 when it is clear of them
    /// all; infinite outside the fill region.
    fn overlap(&self, x: [f64; 2], r: f64, p: &Pocket) -> f64 {
        let m = 0.5 * self.clearance;
        let [x0, y0, x1, y1] = self.region.bbox;
        if x[0] - r - m < x0 || x[0] + r + m > x1 || x[1] - r - m < y0 || x[1] + r + m > y1 {
            return f64::INFINITY;
        }
        // A grain touching a placed grain is on that grain's side of every
        // wall (the segment between their centres is covered by the two
        // disks and their clearance, which no wall crosses); only grains on
        // walls alone need the polygon test.
        let on_grain = matches!(p.a, Support::Disk(_)) || matches!(p.b, Support::Disk(_));
        if let Some(poly) = self.region.polygon
            && !on_grain
            && !point_in_polygon(x, poly)
        {
            return f64::INFINITY;
        }
        let mut depth = f64::NEG_INFINITY;
        for &k in self.grid.lines(x) {
            depth = depth.max(r + m - segment_distance(x, self.lines[k as usize]));
        }
        for cell in self.grid.around(x, 1) {
            for j in self.grid.disks(cell) {
                let d = sub(self.pos[j as usize], x);
                let s = r + self.radii[j as usize] + m;
                if dot(d, d) < s * s {
                    depth = depth.max(s - dot(d, d).sqrt());
                }
            }
        }
        depth
    }
}

/// Largest radius of each class: quantiles of the radii, distinct, ascending.
fn class_bounds(radii: &[f64]) -> Vec<f64> {
    let mut sorted = radii.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut bounds: Vec<f64> = (1..=CLASSES)
        .map(|k| sorted[(k * sorted.len()).div_ceil(CLASSES) - 1])
        .collect();
    bounds.dedup();
    bounds
}

/// Unit normal of a line (its direction turned +90 degrees).
fn normal([a, b]: [[f64; 2]; 2]) -> [f64; 2] {
    let t = sub(b, a);
    let len = dot(t, t).sqrt();
    [-t[1] / len, t[0] / len]
}

/// The two segments intersect (proper crossing).
fn segments_cross([a, b]: [[f64; 2]; 2], [c, d]: [[f64; 2]; 2]) -> bool {
    let side = |p: [f64; 2], q: [f64; 2], r: [f64; 2]| {
        let (u, v) = (sub(q, p), sub(r, p));
        u[0] * v[1] - u[1] * v[0]
    };
    side(a, b, c) * side(a, b, d) < 0.0 && side(c, d, a) * side(c, d, b) < 0.0
}
