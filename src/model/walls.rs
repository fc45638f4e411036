//! Walls: line segments and the corner points at their ends.
//!
//! A grain touches a segment only where its centre projects inside it
//! (0 <= s_t <= 1). Past the ends, the corner point takes over. A corner is a
//! contact for a grain only when the grain lies beyond *every* segment that
//! meets there, i.e. (x - c) . e_k <= 0 for each unit direction e_k pointing
//! from the corner along an incident segment. Inside a concave joint the
//! segments already hold the grain and the corner stays out; at a convex joint
//! or a free end the corner is the closest feature.
//!
//! Shared segment ends are merged once (coordinates equal to within
//! [`MERGE_TOLERANCE`]).
//!
//! Walls have an inside. A segment of a closed outline stores its inward unit
//! normal `n`, found once here by the even-odd rule: the points just beside the
//! segment's midpoint are tested along [`INSIDE_RAYS`] rays, and the side that
//! every ray finds inside the outline is the inside. Detection and reduction
//! then measure a grain's gap along `n` with a sign: a grain whose centre has
//! crossed the segment line gets a negative distance (gap < -r) and the
//! inward normal, so it is pushed back to the side it came from, never out the
//! far side. A segment where the rays disagree (a gate across the neck, an
//! open line) keeps `n = 0` and stays two-sided.
//!
//! An open line (on no closed loop) may be given a solid [`Side`]: its `n`
//! is then the unit normal on that side, and it holds grains on that side
//! the way an outline holds them inside (a floor, a plate, a funnel). Gate
//! lines stay two-sided.

use std::collections::HashMap;

use bytemuck::{Pod, Zeroable};
use serde::{Deserialize, Serialize};

/// Segment ends closer than this (m) are the same corner.
pub const MERGE_TOLERANCE: f64 = 1e-9;
/// Incident-segment directions kept per corner. A corner where more segments
/// meet keeps none and is always a candidate (a redundant contact, never a missed one).
pub const CORNER_DIRS: usize = 4;

/// Ray directions of the inside test (generic angles, so that no ray runs
/// along an axis-aligned wall or through a corner of a regular outline).
pub const INSIDE_RAYS: [[f64; 2]; 4] = [
    [0.958_457_5, 0.285_235_8],
    [-0.374_606_6, 0.927_183_9],
    [-0.882_947_6, -0.469_471_6],
    [0.173_648_2, -0.984_807_8],
];

/// The side of an open segment that holds the grains, as the segment is
/// walked from its first end to its second; `Both` = two-sided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    #[default]
    Both,
    Left,
    Right,
}

impl Side {
    /// The unit normal of the segment [p, q] on this side (zero for `Both`).
    fn normal(self, p: [f64; 2], q: [f64; 2]) -> [f64; 2] {
        let e = [q[0] - p[0], q[1] - p[1]];
        let len = (e[0] * e[0] + e[1] * e[1]).sqrt();
        match self {
            Side::Both => [0.0; 2],
            Side::Left => [-e[1] / len, e[0] / len],
            Side::Right => [e[1] / len, -e[0] / len],
        }
    }
}

/// A wall segment from `a` to `b` with its inward unit normal `n` (zero =
/// two-sided). Keep in sync with shaders/shared.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct Segment {
    pub a: [f32; 2],
    pub b: [f32; 2],
    pub n: [f32; 2],
}

/// A corner point with the unit directions of its incident segments (zero = unused).
/// Keep in sync with shaders/shared.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct Corner {
    pub pos: [f32; 2],
    pub dirs: [[f32; 2]; CORNER_DIRS],
}

/// The walls a simulation runs with (gate included or not).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Walls {
    pub segments: Vec<Segment>,
    pub corners: Vec<Corner>,
    /// The velocity of each segment's ends a and b over the step, m/s; empty:
    /// every wall is still (`model::motion`). Along a segment the velocity
    /// runs linearly between its ends' (exact for a rigid motion).
    pub segment_vel: Vec<[[f32; 2]; 2]>,
    /// The velocity of each corner over the step, m/s; empty: still.
    pub corner_vel: Vec<[f32; 2]>,
}

impl Walls {
    /// Build walls from segments given as [[x0, y0], [x1, y1]] in metres.
    /// Zero-length segments become lone corner points. The inside of every
    /// segment is found from all the lines (see the module doc).
    pub fn new(lines: &[[[f64; 2]; 2]]) -> Walls {
        Walls::with_gate(lines, &[])
    }

    /// Walls from an outline `lines` and `gate` lines across it: the inside of
    /// the outline's segments is found from the outline alone, and the gate
    /// segments stay two-sided.
    pub fn with_gate(outline: &[[[f64; 2]; 2]], gate: &[[[f64; 2]; 2]]) -> Walls {
        Walls::with_sides(outline, &[], gate)
    }

    /// As [`Walls::with_gate`], with the solid side `sides[k]` of outline
    /// line `k` where that line is on no closed loop (a line past the end
    /// of `sides` is two-sided). A line of a closed loop keeps its inside.
    pub fn with_sides(outline: &[[[f64; 2]; 2]], sides: &[Side], gate: &[[[f64; 2]; 2]]) -> Walls {
        Walls::grouped(outline, sides, gate, &[]).0
    }

    /// As [`Walls::with_sides`], with outline line `k` in group `groups[k]`
    /// (a line past the end of `groups`, and every gate line, in group 0):
    /// segment ends merge into one corner only within a group, so that
    /// groups can move apart (`model::motion`). Also returns the group of
    /// each segment and of each corner.
    pub fn grouped(
        outline: &[[[f64; 2]; 2]],
        sides: &[Side],
        gate: &[[[f64; 2]; 2]],
        groups: &[u16],
    ) -> (Walls, Vec<u16>, Vec<u16>) {
        let lines = [outline, gate].concat();
        let lines = lines.as_slice();
        // Only segments on closed loops have an inside: an open polyline (a
        // box without a lid, a funnel's wall) stays two-sided, and it does not
        // count in the inside test (an open funnel wall made one-sided could
        // face the wrong way and let grains through).
        let looped = on_loops(outline, merge_key);
        let closed: Vec<[[f64; 2]; 2]> = outline
            .iter()
            .zip(&looped)
            .filter(|(_, l)| **l)
            .map(|(s, _)| *s)
            .collect();
        let mut index: HashMap<(u16, (i64, i64)), usize> = HashMap::new();
        let mut segment_group = Vec::with_capacity(lines.len());
        let mut corner_group: Vec<u16> = Vec::new();
        let mut points: Vec<[f64; 2]> = Vec::new();
        let mut dirs: Vec<Vec<[f64; 2]>> = Vec::new();
        let mut segments = Vec::with_capacity(lines.len());
        for (line, &[p, q]) in lines.iter().enumerate() {
            let group = if line < outline.len() {
                groups.get(line).copied().unwrap_or(0)
            } else {
                0
            };
            let mut corner = |p: [f64; 2]| {
                *index.entry((group, merge_key(p))).or_insert_with(|| {
                    points.push(p);
                    dirs.push(Vec::new());
                    corner_group.push(group);
                    points.len() - 1
                })
            };
            let (ip, iq) = (corner(p), corner(q));
            let len = ((q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2)).sqrt();
            if len <= MERGE_TOLERANCE {
                continue;
            }
            let e = [(q[0] - p[0]) / len, (q[1] - p[1]) / len];
            dirs[ip].push(e);
            dirs[iq].push([-e[0], -e[1]]);
            let n = if line >= outline.len() {
                [0.0; 2]
            } else if looped[line] {
                inward_normal(p, q, &closed)
            } else {
                sides.get(line).copied().unwrap_or_default().normal(p, q)
            };
            segments.push(Segment {
                a: [p[0] as f32, p[1] as f32],
                b: [q[0] as f32, q[1] as f32],
                n: [n[0] as f32, n[1] as f32],
            });
            segment_group.push(group);
        }
        let corners = points
            .iter()
            .zip(&dirs)
            .map(|(p, d)| {
                let mut c = Corner {
                    pos: [p[0] as f32, p[1] as f32],
                    dirs: [[0.0; 2]; CORNER_DIRS],
                };
                if d.len() <= CORNER_DIRS {
                    for (slot, e) in c.dirs.iter_mut().zip(d) {
                        *slot = [e[0] as f32, e[1] as f32];
                    }
                }
                c
            })
            .collect();
        let walls = Walls {
            segments,
            corners,
            ..Walls::default()
        };
        (walls, segment_group, corner_group)
    }

    /// Whether some wall moves in this step (its velocities are set).
    pub fn moving(&self) -> bool {
        !self.segment_vel.is_empty() || !self.corner_vel.is_empty()
    }

    /// The velocity of segment `k` at parameter `s` in [0, 1] along it
    /// (0 at a, 1 at b), m/s; zero for still walls.
    #[inline]
    pub fn segment_velocity(&self, k: usize, s: f32) -> [f32; 2] {
        match self.segment_vel.get(k) {
            Some([va, vb]) => [va[0] + s * (vb[0] - va[0]), va[1] + s * (vb[1] - va[1])],
            None => [0.0; 2],
        }
    }

    /// The velocity of segment `k` where the point `x` projects onto it
    /// (clamped to its ends), m/s; zero for still walls.
    #[inline]
    pub fn segment_velocity_at(&self, k: usize, x: [f32; 2]) -> [f32; 2] {
        if self.segment_vel.is_empty() {
            return [0.0; 2];
        }
        let s = &self.segments[k];
        let e = [s.b[0] - s.a[0], s.b[1] - s.a[1]];
        let len2 = e[0] * e[0] + e[1] * e[1];
        let t = if len2 > 0.0 {
            (((x[0] - s.a[0]) * e[0] + (x[1] - s.a[1]) * e[1]) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.segment_velocity(k, t)
    }

    /// The velocity of corner `k`, m/s; zero for still walls.
    #[inline]
    pub fn corner_velocity(&self, k: usize) -> [f32; 2] {
        self.corner_vel.get(k).copied().unwrap_or([0.0; 2])
    }

    /// Axis-aligned bounding box [xmin, ymin, xmax, ymax] of all wall points.
    pub fn bounding_box(&self) -> [f32; 4] {
        let mut bb = [f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY];
        for c in &self.corners {
            bb[0] = bb[0].min(c.pos[0]);
            bb[1] = bb[1].min(c.pos[1]);
            bb[2] = bb[2].max(c.pos[0]);
            bb[3] = bb[3].max(c.pos[1]);
        }
        bb
    }
}

/// The corner a point merges into.
fn merge_key(p: [f64; 2]) -> (i64, i64) {
    (
        (p[0] / MERGE_TOLERANCE).round() as i64,
        (p[1] / MERGE_TOLERANCE).round() as i64,
    )
}

/// Whether `outline` is made of closed loops alone: every line of it (but
/// those of zero length) lies on a loop, and some line does.
pub fn is_closed(outline: &[[[f64; 2]; 2]]) -> bool {
    let looped = on_loops(outline, merge_key);
    let lines = outline
        .iter()
        .zip(&looped)
        .filter(|(l, _)| merge_key(l[0]) != merge_key(l[1]));
    let mut any = false;
    for (_, on) in lines {
        if !on {
            return false;
        }
        any = true;
    }
    any
}

/// Whether the ray from `x` along `d` crosses the segment [p, q] (the end q
/// excluded, so a ray through a shared end counts once).
fn ray_crosses(x: [f64; 2], d: [f64; 2], p: [f64; 2], q: [f64; 2]) -> bool {
    let e = [q[0] - p[0], q[1] - p[1]];
    let denom = d[0] * e[1] - d[1] * e[0];
    if denom == 0.0 {
        return false;
    }
    let w = [p[0] - x[0], p[1] - x[1]];
    let t = (w[0] * e[1] - w[1] * e[0]) / denom;
    let u = (w[0] * d[1] - w[1] * d[0]) / denom;
    t > 0.0 && (0.0..1.0).contains(&u)
}

/// Which `lines` lie on closed loops: lines with an end that no other line
/// shares are removed until none is left (what remains are loops and the
/// lines between them). Degenerate lines never count.
fn on_loops(lines: &[[[f64; 2]; 2]], key: impl Fn([f64; 2]) -> (i64, i64)) -> Vec<bool> {
    let ends: Vec<[(i64, i64); 2]> = lines.iter().map(|&[p, q]| [key(p), key(q)]).collect();
    let mut keep: Vec<bool> = ends.iter().map(|e| e[0] != e[1]).collect();
    let mut degree: HashMap<(i64, i64), usize> = HashMap::new();
    for (e, _) in ends.iter().zip(&keep).filter(|(_, k)| **k) {
        *degree.entry(e[0]).or_default() += 1;
        *degree.entry(e[1]).or_default() += 1;
    }
    loop {
        let mut changed = false;
        for (e, k) in ends.iter().zip(keep.iter_mut()) {
            if *k && (degree[&e[0]] < 2 || degree[&e[1]] < 2) {
                *k = false;
                changed = true;
                for v in e {
                    *degree.get_mut(v).unwrap() -= 1;
                }
            }
        }
        if !changed {
            return keep;
        }
    }
}

/// Even-odd inside test of `x` against `lines` along every ray of
/// [`INSIDE_RAYS`]; None where the rays disagree (no closed outline there).
fn inside(x: [f64; 2], lines: &[[[f64; 2]; 2]]) -> Option<bool> {
    let mut verdict = None;
    for d in INSIDE_RAYS {
        let odd = lines.iter().filter(|&&[p, q]| ray_crosses(x, d, p, q)).count() % 2 == 1;
        match verdict {
            None => verdict = Some(odd),
            Some(v) if v != odd => return None,
            _ => {}
        }
    }
    verdict
}

/// Inward unit normal of the segment [p, q] of `outline`, or zero where its
/// two sides are not one inside and one outside along every ray.
fn inward_normal(p: [f64; 2], q: [f64; 2], outline: &[[[f64; 2]; 2]]) -> [f64; 2] {
    let e = [q[0] - p[0], q[1] - p[1]];
    let len = (e[0] * e[0] + e[1] * e[1]).sqrt();
    let left = [-e[1] / len, e[0] / len];
    let mid = [0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1])];
    let eps = 1e-4 * len;
    let side = |s: f64| inside([mid[0] + s * eps * left[0], mid[1] + s * eps * left[1]], outline);
    match (side(1.0), side(-1.0)) {
        (Some(true), Some(false)) => left,
        (Some(false), Some(true)) => [-left[0], -left[1]],
        _ => [0.0; 2],
    }
}

/// `walls` (at the start of a step, with their velocities over it) moved on
/// by `h` seconds into `out`: every segment end and corner moved by h times
/// its velocity, which puts it where the wall's motion has it at the step's
/// end for h = dt (up to rounding), a one-sided segment's normal turned as
/// its direction turned, a corner's directions kept (they turn by the
/// group's angle over one step, which the walls do not carry; a corner's
/// directions only choose between it and its segments). The velocities are
/// kept.
pub fn walls_ahead(walls: &Walls, h: f32, out: &mut Walls) {
    out.clone_from(walls);
    let on = |x: [f32; 2], v: [f32; 2]| [x[0] + h * v[0], x[1] + h * v[1]];
    for (s, v) in out.segments.iter_mut().zip(&walls.segment_vel) {
        let e = super::sub(s.b, s.a);
        let de = [h * (v[1][0] - v[0][0]), h * (v[1][1] - v[0][1])];
        (s.a, s.b) = (on(s.a, v[0]), on(s.b, v[1]));
        if s.n != [0.0; 2] && de != [0.0; 2] {
            // The turn from e to e + de: cos, sin times |e| |e + de|.
            let (c, sn) = (super::dot(e, e) + super::dot(e, de), e[0] * de[1] - e[1] * de[0]);
            let len = c.hypot(sn);
            if len > 0.0 {
                let n = s.n;
                s.n = [(c * n[0] - sn * n[1]) / len, (sn * n[0] + c * n[1]) / len];
            }
        }
    }
    for (c, &v) in out.corners.iter_mut().zip(&walls.corner_vel) {
        c.pos = on(c.pos, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_ends_merge_once() {
        let w = Walls::new(&[
            [[0.0, 0.0], [1.0, 0.0]],
            [[1.0, 0.0], [1.0, 1.0]],
            [[1.0, 1.0], [0.0, 0.0]],
        ]);
        assert_eq!(w.segments.len(), 3);
        assert_eq!(w.corners.len(), 3);
        // Every corner of the triangle has exactly two incident directions.
        for c in &w.corners {
            let used = c.dirs.iter().filter(|d| d[0] != 0.0 || d[1] != 0.0).count();
            assert_eq!(used, 2);
        }
    }

    #[test]
    fn outline_segments_point_inwards_and_gates_stay_two_sided() {
        // A square drawn with mixed segment directions, and a gate across it.
        let outline = [
            [[0.0, 0.0], [1.0, 0.0]],
            [[1.0, 1.0], [1.0, 0.0]],
            [[1.0, 1.0], [0.0, 1.0]],
            [[0.0, 0.0], [0.0, 1.0]],
        ];
        let w = Walls::with_gate(&outline, &[[[0.0, 0.5], [1.0, 0.5]]]);
        let n: Vec<[f32; 2]> = w.segments.iter().map(|s| s.n).collect();
        assert_eq!(n, vec![[0.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [1.0, 0.0], [0.0, 0.0]]);
        // A lone floor has no inside.
        let floor = Walls::new(&[[[-1.0, 0.0], [1.0, 0.0]]]);
        assert_eq!(floor.segments[0].n, [0.0, 0.0]);
    }

    #[test]
    fn open_polylines_stay_two_sided_beside_a_closed_loop() {
        // A box without a lid and a funnel's two walls above its floor: no
        // loop, so no inside (a funnel wall made one-sided, facing down,
        // would let grains fall through it).
        let open = [
            [[-0.5, 0.0], [0.5, 0.0]],
            [[-0.5, 0.0], [-0.5, 1.5]],
            [[0.5, 0.0], [0.5, 1.5]],
            [[-0.525, 0.82], [-0.025, 0.2]],
            [[0.025, 0.2], [0.525, 0.82]],
        ];
        let w = Walls::new(&open);
        assert!(w.segments.iter().all(|s| s.n == [0.0, 0.0]), "{:?}", w.segments);
        assert!(!is_closed(&open));
        // The same with a lid: the box is a loop with an inside, the funnel
        // walls inside it stay two-sided.
        let mut lid = open.to_vec();
        lid.push([[-0.5, 1.5], [0.5, 1.5]]);
        let w = Walls::new(&lid);
        let n: Vec<[f32; 2]> = w.segments.iter().map(|s| s.n).collect();
        assert_eq!(
            n,
            vec![[0.0, 1.0], [1.0, 0.0], [-1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, -1.0]]
        );
        // The box is closed, the funnel walls in it are not.
        assert!(!is_closed(&lid));
        assert!(is_closed(&[lid[0], lid[1], lid[2], lid[5]]));
    }

    #[test]
    fn open_lines_take_their_solid_side_and_loops_and_gates_keep_theirs() {
        // A floor walked to +x and a wall walked up, held on their left
        // (above the floor, left of the wall) and right; a triangle whose
        // inside the sides do not change; a gate.
        let lines = [
            [[-1.0, 0.0], [3.0, 0.0]],
            [[4.0, 0.0], [4.0, 2.0]],
            [[10.0, 0.0], [11.0, 0.0]],
            [[11.0, 0.0], [10.0, 1.0]],
            [[10.0, 1.0], [10.0, 0.0]],
        ];
        let sides = [Side::Left, Side::Right, Side::Right, Side::Right, Side::Right];
        let w = Walls::with_sides(&lines, &sides, &[[[0.0, 1.0], [1.0, 1.0]]]);
        let n: Vec<[f32; 2]> = w.segments.iter().map(|s| s.n).collect();
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert_eq!(
            n,
            vec![[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [-h, -h], [1.0, 0.0], [0.0, 0.0]]
        );
        // Fewer sides than lines: the rest are two-sided.
        let w = Walls::with_sides(&lines[..2], &[Side::Right], &[]);
        assert_eq!(w.segments[0].n, [0.0, -1.0]);
        assert_eq!(w.segments[1].n, [0.0, 0.0]);
    }
}
