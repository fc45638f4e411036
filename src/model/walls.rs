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

use std::collections::HashMap;

use bytemuck::{Pod, Zeroable};

/// Segment ends closer than this (m) are the same corner.
pub const MERGE_TOLERANCE: f64 = 1e-9;
/// Incident-segment directions kept per corner. A corner where more segments
/// meet keeps none and is always a candidate (a redundant contact, never a missed one).
pub const CORNER_DIRS: usize = 4;

/// A wall segment from `a` to `b`. Keep in sync with shaders/shared.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct Segment {
    pub a: [f32; 2],
    pub b: [f32; 2],
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
}

impl Walls {
    /// Build walls from segments given as [[x0, y0], [x1, y1]] in metres.
    /// Zero-length segments become lone corner points.
    pub fn new(lines: &[[[f64; 2]; 2]]) -> Walls {
        let key = |p: [f64; 2]| {
            (
                (p[0] / MERGE_TOLERANCE).round() as i64,
                (p[1] / MERGE_TOLERANCE).round() as i64,
            )
        };
        let mut index: HashMap<(i64, i64), usize> = HashMap::new();
        let mut points: Vec<[f64; 2]> = Vec::new();
        let mut dirs: Vec<Vec<[f64; 2]>> = Vec::new();
        let mut segments = Vec::with_capacity(lines.len());
        for &[p, q] in lines {
            let mut corner = |p: [f64; 2]| {
                *index.entry(key(p)).or_insert_with(|| {
                    points.push(p);
                    dirs.push(Vec::new());
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
            segments.push(Segment {
                a: [p[0] as f32, p[1] as f32],
                b: [q[0] as f32, q[1] as f32],
            });
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
        Walls { segments, corners }
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
}
