//! Crowd motion (Maury-Venel, docs/crowd.md): where a person wants to go.
//!
//! People are disks in a room; each wants to walk at the desired speed `s`
//! towards the door, and actually walks at that wish projected onto the
//! feasible velocities (no overlap), the NSCD projection with no inertia:
//! ```text
//!   dq/dt = P_{C_q} U(q),        U(x) = s e(x),   |e(x)| = 1
//!   e(x) = (a(x) - x) / |a(x) - x|   where the aim a(x) is in sight (no wall
//!                                    segment crosses [x, a(x)])
//!        = -grad D(x) / |grad D(x)|  otherwise
//! ```
//! The aim is the closest point of the door's *clear* part (the door minus
//! `clearance` at each jamb, so that nobody aims at a jamb's corner and
//! stalls on it): straight out through the door for a person in front of the
//! clear part, else its nearer end. Where the aim is in sight, the geodesic
//! to the door is that straight line, so `e` is the exact gradient of the
//! distance. Elsewhere `D` is the distance to the clear part going around
//! walls, computed once per scene by fast marching (first-order upwind
//! eikonal |grad D| = 1, Sethian) on square cells of side `cell` over the
//! walls' box; cells whose centre lies within `clearance` of a wall are
//! blocked (a person's centre cannot be there), and the gradient is the
//! gradient of the bilinear interpolation of `D` between the four nearest
//! cell centres (a blocked corner counts as the largest free one plus a cell).
//!
//! A person has left (is evacuated) once their centre is past the door line,
//! on the outside, by more than their radius, in front of the door.
//! The outside is the side of the door away from the people's centroid at the
//! start.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::{Segment, Walls, dot, sub};

/// Most cells of a distance field (2,000 x 2,000): a finer field is a unit
/// mistake (`crowd.cell` in mm for a room in m).
pub const MAX_FIELD_CELLS: usize = 4_000_000;

/// Fraction of a cell by which the field's grid is shifted off the walls' box.
const RIDGE_SHIFT: f32 = 0.381_966;

/// Crowd motion's parameters and the distance field of its door, built once per scene.
#[derive(Debug, Clone, PartialEq)]
pub struct Crowd {
    /// Desired walking speed, m/s.
    pub speed: f32,
    /// Door ends, m.
    pub door: [[f32; 2]; 2],
    /// Unit normal of the door pointing out of the room.
    pub out: [f32; 2],
    /// The clear part of the door (the door minus `clearance` at each end;
    /// its midpoint twice when the door is narrower than 2 clearance), m.
    pub clear: [[f32; 2]; 2],
    /// Cells within this of a wall are blocked (the largest radius), m.
    pub clearance: f32,
    /// The wall segments, for the sight test.
    segments: Vec<Segment>,
    /// The field's grid: lower-left corner, cell side (m), cells per row and column.
    origin: [f32; 2],
    cell: f32,
    nx: usize,
    ny: usize,
    /// Distance to the door's clear part around walls at each cell centre, m
    /// (row-major, x fastest); infinite where blocked or unreachable.
    dist: Vec<f32>,
}

/// Closest point of segment [a, b] to x.
fn closest(a: [f32; 2], b: [f32; 2], x: [f32; 2]) -> [f32; 2] {
    let t = sub(b, a);
    let tt = dot(t, t);
    let s = if tt > 0.0 {
        (dot(sub(x, a), t) / tt).clamp(0.0, 1.0)
    } else {
        0.0
    };
    [a[0] + s * t[0], a[1] + s * t[1]]
}

fn distance(a: [f32; 2], b: [f32; 2]) -> f32 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

fn cross(a: [f32; 2], b: [f32; 2]) -> f32 {
    a[0] * b[1] - a[1] * b[0]
}

/// Segments [p, q] and [a, b] cross (touching counts).
fn crosses(p: [f32; 2], q: [f32; 2], a: [f32; 2], b: [f32; 2]) -> bool {
    let d = sub(q, p);
    let e = sub(b, a);
    let (o1, o2) = (cross(d, sub(a, p)), cross(d, sub(b, p)));
    let (o3, o4) = (cross(e, sub(p, a)), cross(e, sub(q, a)));
    o1 * o2 <= 0.0 && o3 * o4 <= 0.0 && (o1 != 0.0 || o2 != 0.0)
}

/// A cell waiting in the fast-marching heap, smallest distance first.
#[derive(PartialEq)]
struct Tentative(f32, usize);

impl Eq for Tentative {}
impl PartialOrd for Tentative {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Tentative {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

impl Crowd {
    /// The crowd of a room with `walls`, a door from `door[0]` to `door[1]`
    /// whose outside is away from `inside` (a point of the room: the
    /// people's centroid), people of radius at most `clearance`, and a
    /// distance field of cells of side `cell`. `None` when `inside` lies on
    /// the door's line.
    pub fn new(
        walls: &Walls,
        door: [[f32; 2]; 2],
        inside: [f32; 2],
        speed: f32,
        clearance: f32,
        cell: f32,
    ) -> Option<Crowd> {
        let t = sub(door[1], door[0]);
        let len = dot(t, t).sqrt();
        let mut out = [t[1] / len, -t[0] / len];
        let side = dot(sub(inside, door[0]), out);
        if side == 0.0 || !side.is_finite() {
            return None;
        }
        if side > 0.0 {
            out = [-out[0], -out[1]];
        }
        let u = [t[0] / len, t[1] / len];
        let clear = if len > 2.0 * clearance {
            [
                [door[0][0] + clearance * u[0], door[0][1] + clearance * u[1]],
                [door[1][0] - clearance * u[0], door[1][1] - clearance * u[1]],
            ]
        } else {
            let m = [0.5 * (door[0][0] + door[1][0]), 0.5 * (door[0][1] + door[1][1])];
            [m, m]
        };
        let bb = walls.bounding_box();
        let (bb, cell) = (bb, cell.max(f32::MIN_POSITIVE));
        let margin = 2.0 * cell;
        // Offset by an odd fraction of a cell: a grid symmetric about an
        // obstacle would make its ridge exact, where a lone person stalls.
        let origin = [bb[0] - margin - RIDGE_SHIFT * cell, bb[1] - margin - RIDGE_SHIFT * cell];
        let nx = (((bb[2] - bb[0] + 2.0 * margin) / cell).ceil() as usize).max(1);
        let ny = (((bb[3] - bb[1] + 2.0 * margin) / cell).ceil() as usize).max(1);
        let mut crowd = Crowd {
            speed,
            door,
            out,
            clear,
            clearance,
            segments: walls.segments.clone(),
            origin,
            cell,
            nx,
            ny,
            dist: Vec::new(),
        };
        crowd.dist = crowd.march();
        Some(crowd)
    }

    /// Cells of the field along x and y.
    pub fn cells(&self) -> (usize, usize) {
        (self.nx, self.ny)
    }

    fn centre(&self, i: usize, j: usize) -> [f32; 2] {
        [
            self.origin[0] + (i as f32 + 0.5) * self.cell,
            self.origin[1] + (j as f32 + 0.5) * self.cell,
        ]
    }

    /// Fast marching from the cells at the door's clear part.
    fn march(&self) -> Vec<f32> {
        let (nx, ny, h) = (self.nx, self.ny, self.cell);
        // Each segment blocks the cells of its box grown by the clearance
        // whose centre is within the clearance of it.
        let mut blocked = vec![false; nx * ny];
        let c = self.clearance;
        let index = |v: f32, o: f32, n: usize| (((v - o) / h).floor().max(0.0) as usize).min(n - 1);
        for s in &self.segments {
            let (i0, i1) = (
                index(s.a[0].min(s.b[0]) - c, self.origin[0], nx),
                index(s.a[0].max(s.b[0]) + c, self.origin[0], nx),
            );
            let (j0, j1) = (
                index(s.a[1].min(s.b[1]) - c, self.origin[1], ny),
                index(s.a[1].max(s.b[1]) + c, self.origin[1], ny),
            );
            for j in j0..=j1 {
                for i in i0..=i1 {
                    let x = self.centre(i, j);
                    if distance(x, closest(s.a, s.b, x)) < c {
                        blocked[j * nx + i] = true;
                    }
                }
            }
        }
        let mut dist = vec![f32::INFINITY; nx * ny];
        let mut done = vec![false; nx * ny];
        let mut heap = BinaryHeap::new();
        // Seeds: every cell whose centre is within a cell of the clear part
        // (free or not: a door narrower than the blocking still lets its middle through).
        for (k, d) in dist.iter_mut().enumerate() {
            let x = self.centre(k % nx, k / nx);
            let e = distance(x, closest(self.clear[0], self.clear[1], x));
            if e <= h {
                *d = e;
                heap.push(Tentative(e, k));
            }
        }
        let known = |dist: &[f32], done: &[bool], k: usize| if done[k] { dist[k] } else { f32::INFINITY };
        while let Some(Tentative(d, k)) = heap.pop() {
            if done[k] || d > dist[k] {
                continue;
            }
            done[k] = true;
            let (i, j) = (k % nx, k / nx);
            let mut next = Vec::with_capacity(4);
            if i > 0 {
                next.push(k - 1);
            }
            if i + 1 < nx {
                next.push(k + 1);
            }
            if j > 0 {
                next.push(k - nx);
            }
            if j + 1 < ny {
                next.push(k + nx);
            }
            for m in next {
                if done[m] || blocked[m] {
                    continue;
                }
                let (mi, mj) = (m % nx, m / nx);
                let mut a = f32::INFINITY;
                if mi > 0 {
                    a = a.min(known(&dist, &done, m - 1));
                }
                if mi + 1 < nx {
                    a = a.min(known(&dist, &done, m + 1));
                }
                let mut b = f32::INFINITY;
                if mj > 0 {
                    b = b.min(known(&dist, &done, m - nx));
                }
                if mj + 1 < ny {
                    b = b.min(known(&dist, &done, m + nx));
                }
                // The upwind update of |grad D| = 1 from the known neighbours.
                let d = if (a - b).abs() >= h || !a.is_finite() || !b.is_finite() {
                    a.min(b) + h
                } else {
                    0.5 * (a + b + (2.0 * h * h - (a - b) * (a - b)).sqrt())
                };
                if d < dist[m] {
                    dist[m] = d;
                    heap.push(Tentative(d, m));
                }
            }
        }
        dist
    }

    /// Distance to the door's clear part going around walls, bilinear between
    /// cell centres, m; infinite where no free cell is near.
    pub fn distance(&self, x: [f32; 2]) -> f32 {
        match self.corners(x) {
            Some((d, tx, ty)) => (1.0 - ty) * ((1.0 - tx) * d[0] + tx * d[1]) + ty * ((1.0 - tx) * d[2] + tx * d[3]),
            None => f32::INFINITY,
        }
    }

    /// The four cell centres around x: their distances (blocked ones as the
    /// largest free one plus a cell), ordered (i, j), (i+1, j), (i, j+1),
    /// (i+1, j+1), and x's place between them; `None` when none is free.
    fn corners(&self, x: [f32; 2]) -> Option<([f32; 4], f32, f32)> {
        let fx = (x[0] - self.origin[0]) / self.cell - 0.5;
        let fy = (x[1] - self.origin[1]) / self.cell - 0.5;
        if !(fx.is_finite() && fy.is_finite()) {
            return None;
        }
        let i = (fx.floor().max(0.0) as usize).min(self.nx.saturating_sub(2));
        let j = (fy.floor().max(0.0) as usize).min(self.ny.saturating_sub(2));
        let at = |i: usize, j: usize| {
            if i < self.nx && j < self.ny {
                self.dist[j * self.nx + i]
            } else {
                f32::INFINITY
            }
        };
        let mut d = [at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1)];
        let top = d
            .iter()
            .copied()
            .filter(|v| v.is_finite())
            .fold(f32::NEG_INFINITY, f32::max);
        if !top.is_finite() {
            return None;
        }
        for v in &mut d {
            if !v.is_finite() {
                *v = top + self.cell;
            }
        }
        let tx = (fx - i as f32).clamp(0.0, 1.0);
        let ty = (fy - j as f32).clamp(0.0, 1.0);
        Some((d, tx, ty))
    }

    /// Where a person at x aims: straight out through the door in front of
    /// the clear part, else the clear part's nearer end.
    pub fn aim(&self, x: [f32; 2]) -> [f32; 2] {
        let [a, b] = self.clear;
        if self.in_front(x) {
            let h = dot(sub(x, a), self.out);
            [x[0] - h * self.out[0], x[1] - h * self.out[1]]
        } else {
            closest(a, b, x)
        }
    }

    /// x projects onto the door's clear part (a door narrower than two
    /// clearances: onto its midpoint, within a cell).
    fn in_front(&self, x: [f32; 2]) -> bool {
        let [a, b] = self.clear;
        let t = sub(b, a);
        let tt = dot(t, t);
        if tt > 0.0 {
            (0.0..=1.0).contains(&(dot(sub(x, a), t) / tt))
        } else {
            let u = [self.out[1], -self.out[0]];
            dot(sub(x, a), u).abs() <= 0.5 * self.cell
        }
    }

    /// No wall segment crosses [x, y].
    pub fn in_sight(&self, x: [f32; 2], y: [f32; 2]) -> bool {
        !self.segments.iter().any(|s| crosses(x, y, s.a, s.b))
    }

    /// Unit direction a person at x wants to walk in (module doc); `None`
    /// where the aim is out of sight and no free cell of the field is near.
    pub fn direction(&self, x: [f32; 2]) -> Option<[f32; 2]> {
        // On the door line or past it (only through the door): on, out.
        if dot(sub(x, self.door[0]), self.out) >= 0.0 {
            return Some(self.out);
        }
        let aim = self.aim(x);
        let to = sub(aim, x);
        let len = dot(to, to).sqrt();
        if len > 0.0 && self.in_sight(x, aim) {
            return Some([to[0] / len, to[1] / len]);
        }
        let (d, tx, ty) = self.corners(x)?;
        let gx = (1.0 - ty) * (d[1] - d[0]) + ty * (d[3] - d[2]);
        let gy = (1.0 - tx) * (d[2] - d[0]) + tx * (d[3] - d[1]);
        let g = gx.hypot(gy);
        (g > 0.0 && g.is_finite()).then(|| [-gx / g, -gy / g])
    }

    /// Desired velocity at x, m/s: the desired speed along [`Crowd::direction`]
    /// (straight at the aim where the field has no direction).
    pub fn desired(&self, x: [f32; 2]) -> [f32; 2] {
        let e = self.direction(x).unwrap_or_else(|| {
            let to = sub(self.aim(x), x);
            let len = dot(to, to).sqrt();
            if len > 0.0 {
                [to[0] / len, to[1] / len]
            } else {
                self.out
            }
        });
        [self.speed * e[0], self.speed * e[1]]
    }

    /// Whether a person can reach the door from x: the aim is in sight, or
    /// the field there is finite.
    pub fn reachable(&self, x: [f32; 2]) -> bool {
        self.in_sight(x, self.aim(x)) || self.corners(x).is_some()
    }

    /// A person of radius r at x has left: their centre is more than r
    /// outside the door line, in front of the door.
    pub fn left(&self, x: [f32; 2], r: f32) -> bool {
        let [a, b] = self.door;
        let t = sub(b, a);
        let s = dot(sub(x, a), t) / dot(t, t);
        dot(sub(x, a), self.out) > r && (0.0..=1.0).contains(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4 m x 4 m room with a 1 m door in the middle of its floor.
    fn room() -> Walls {
        let lines = [
            [[0.0, 0.0], [1.5, 0.0]],
            [[2.5, 0.0], [4.0, 0.0]],
            [[4.0, 0.0], [4.0, 4.0]],
            [[4.0, 4.0], [0.0, 4.0]],
            [[0.0, 4.0], [0.0, 0.0]],
        ];
        Walls::new(&lines)
    }

    #[test]
    fn field_is_the_straight_distance_in_open_space_to_a_cell() {
        let c = Crowd::new(&room(), [[1.5, 0.0], [2.5, 0.0]], [2.0, 2.0], 1.0, 0.2, 0.05).unwrap();
        assert_eq!(c.out, [0.0, -1.0]);
        // Straight above the clear part: the height, within a few cells of fast-marching error.
        let d = c.distance([2.0, 3.0]);
        assert!((d - 3.0).abs() < 0.1, "{d}");
        // Off to the side: the distance to the clear part's end (1.7, 0).
        let d = c.distance([0.5, 2.0]);
        let exact = (1.2f32).hypot(2.0);
        assert!((d - exact).abs() < 0.1 * exact, "{d} vs {exact}");
    }

    #[test]
    fn out_points_away_from_the_room() {
        let c = Crowd::new(&room(), [[2.5, 0.0], [1.5, 0.0]], [2.0, 2.0], 1.0, 0.2, 0.1).unwrap();
        assert_eq!(c.out, [0.0, -1.0]);
        assert!(c.left([2.0, -0.31], 0.3));
        assert!(!c.left([2.0, -0.29], 0.3));
        assert!(!c.left([0.5, -0.5], 0.3));
    }
}
