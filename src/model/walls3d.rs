//! Walls in three dimensions: planes, each bounding a half-space the grains
//! keep to (a box is six of them), and triangle meshes with their edges and
//! vertices, as the plane's segments have corner points (model::walls).
//!
//! ```text
//!   plane (point p, unit inward normal n):  d = (x - p).n - r,  normal n
//!   triangle (a, b, c; unit normal m = (b - a) x (c - a) / |..|):
//!       when x projects inside it:  d = |(x - a).m| - r,  normal +-m towards x
//!   edge (a, b) of the mesh:
//!       when x projects inside [a, b] and lies behind every incident face
//!       ((x - a).u < 0 for each face's in-plane direction u from the edge
//!       into the face):  d = |x - p| - r,  p the nearest point, normal (x - p)/|x - p|
//!   vertex v of the mesh:
//!       when x lies behind every incident edge ((x - v).e < 0 for each unit
//!       direction e from v along an edge):  d = |x - v| - r
//! ```
//! As for a corner in the plane: a flat joint of two triangles has
//! opposite directions into its faces, so its edge never acts (the faces
//! hold the sphere); a convex edge or vertex acts where no face does; in a
//! concave joint the faces already hold the sphere and the edge stays out.
//!
//! Walls have an inside. A triangle of a closed surface (model::inside:
//! every edge between two faces; nested surfaces even-odd, as the plane's
//! outlines) holds the spheres on its inside, `side` (+-1) of its normal m:
//! there d = (x - a).m side - r with the normal m side, so a sphere whose
//! centre crossed the face gets d < -r and is pushed back, never out the
//! far side. A triangle of an open surface (or of a gate) is two-sided: a
//! sphere is pushed away from the side its centre is on. A plane is
//! one-sided, as a disk is held by a segment with an inside.
//!
//! Contacts name their wall body as in the plane (`model::Body`): faces are
//! `Body::Segment(k)`, the planes first, then the triangles (k - planes);
//! `Body::Corner(k)` are the edges, then the vertices (k - edges).

use crate::error::{Error, Result};
use crate::model::Body;
use crate::model::inside::Hold;
use crate::model::space::{Dim3, Space, cross};

/// A plane wall: the grains stay on the side its normal points to.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Plane {
    /// A point of the plane, m.
    pub point: [f32; 3],
    /// The unit normal, pointing to the grains' side.
    pub normal: [f32; 3],
}

impl Plane {
    /// The plane through `point` facing `towards` (any length but zero;
    /// it is normalised). Refused when `towards` has no direction or a
    /// coordinate is not finite.
    pub fn new(point: [f32; 3], towards: [f32; 3]) -> Result<Plane> {
        let len = towards.iter().map(|x| x * x).sum::<f32>().sqrt();
        let finite = point.iter().chain(&towards).all(|x| x.is_finite());
        if !(finite && len > 0.0 && len.is_finite()) {
            return Err(Error::field(
                "walls",
                "plane",
                format!("a plane through {point:?} facing {towards:?} has no direction"),
            ));
        }
        Ok(Plane {
            point,
            normal: towards.map(|x| x / len),
        })
    }

    /// The signed distance of `x` from the plane, m: positive on the grains' side.
    #[inline]
    pub fn distance(&self, x: [f32; 3]) -> f32 {
        Dim3::dot(Dim3::sub(x, self.point), self.normal)
    }
}

/// A triangle of a wall mesh.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Triangle {
    pub a: [f32; 3],
    pub b: [f32; 3],
    pub c: [f32; 3],
    /// Unit normal (b - a) x (c - a) / |(b - a) x (c - a)|.
    pub normal: [f32; 3],
    /// Bit k set: the triangle owns its edge k (ab, bc, ca), and takes the
    /// points that project onto it. A mesh edge is owned by one of its
    /// triangles (the first in the mesh), so that a sphere right above an
    /// edge or vertex shared by coplanar triangles meets one face, not two.
    pub owns: u32,
    /// The side of `normal` holding the inside of its closed surface (1
    /// along it, -1 against it); 0: two-sided (model::inside).
    #[serde(default)]
    pub side: f32,
}

/// An edge of a wall mesh with the directions, in each incident face's
/// plane and perpendicular to the edge, from the edge into the face.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Edge {
    pub a: [f32; 3],
    pub b: [f32; 3],
    pub into: Vec<[f32; 3]>,
}

/// A vertex of a wall mesh with the unit directions of its incident edges
/// (from the vertex along each).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Vertex {
    pub pos: [f32; 3],
    pub dirs: Vec<[f32; 3]>,
}

/// Mesh vertices closer than this (m) are one vertex.
pub const MERGE_TOLERANCE: f64 = 1e-9;

/// A triangle whose area is below this fraction of its longest edge squared
/// is degenerate (its normal would be rounding).
pub const FLAT_TRIANGLE: f64 = 1e-9;

/// The walls of a 3D scene.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Walls3d {
    pub planes: Vec<Plane>,
    #[serde(default)]
    pub triangles: Vec<Triangle>,
    #[serde(default)]
    pub edges: Vec<Edge>,
    #[serde(default)]
    pub vertices: Vec<Vertex>,
    /// Which mesh bodies lie near each cell of a grid over the mesh
    /// ([`Walls3d::indexed`]); None: the detection screens them all.
    #[serde(skip)]
    pub index: Option<WallIndex>,
    /// The closed surfaces hold the spheres within them (`Hold::Inside`
    /// with a closed surface): a point far from the mesh lies outside the
    /// space they hold ([`Walls3d::mesh_holds`]).
    #[serde(default)]
    pub bounded: bool,
}

/// A uniform grid over the mesh's bounding box grown by `reach`, listing
/// per cell the triangles, edges and vertices whose bounding box grown by
/// `reach` meets the cell, in body order (triangles, edges, vertices, each
/// ascending). A sphere at x whose contacts reach no farther than `reach`
/// can touch only the bodies of x's cell, and none when x lies outside the
/// grid: the detection then reads one short list instead of every body,
/// and finds the same contacts in the same order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WallIndex {
    /// The grid's lower corner, m, its cell side, m, and its cells along x, y, z.
    pub lo: [f32; 3],
    pub cell: f32,
    pub dims: [u32; 3],
    /// The reach the lists hold for, m.
    pub reach: f32,
    /// Cell c's bodies are `bodies[start[c]..start[c + 1]]`, cells x fastest.
    pub start: Vec<u32>,
    /// Mesh bodies: k < triangles for triangle k, then edges, then vertices.
    pub bodies: Vec<u32>,
}

impl WallIndex {
    /// The bodies x's cell lists; empty outside the grid.
    #[inline]
    pub fn near(&self, x: [f32; 3]) -> &[u32] {
        let mut c = [0u32; 3];
        for k in 0..3 {
            let f = (x[k] - self.lo[k]) / self.cell;
            if !(f >= 0.0 && f < self.dims[k] as f32) {
                return &[];
            }
            c[k] = (f as u32).min(self.dims[k] - 1);
        }
        let cell = ((c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]) as usize;
        &self.bodies[self.start[cell] as usize..self.start[cell + 1] as usize]
    }
}

/// Cells a [`WallIndex`] holds at most; past it the cells grow.
pub const MAX_INDEX_CELLS: u64 = 1 << 21;

/// The unit vector along `d` and its length; along +x for a zero `d`.
#[inline]
fn unit(d: [f32; 3]) -> ([f32; 3], f32) {
    let len = Dim3::dot(d, d).sqrt();
    if len > 0.0 {
        (d.map(|x| x / len), len)
    } else {
        ([1.0, 0.0, 0.0], 0.0)
    }
}

impl Triangle {
    /// Unit normal and gap of a sphere at `x` of radius `r`: the normal
    /// towards the inside and the signed distance along it of a one-sided
    /// triangle, the normal towards `x`'s side of a two-sided one; None
    /// when `x` does not project inside the triangle.
    #[inline]
    pub fn gap(&self, x: [f32; 3], r: f32) -> Option<([f32; 3], f32)> {
        self.gap_within(x, r, f32::INFINITY)
    }

    /// [`Triangle::gap`], None also where `x` lies farther than `reach`
    /// from the triangle's plane (a sphere far behind a one-sided face is
    /// not its contact, as a disk far behind a segment is not in the plane).
    #[inline]
    pub fn gap_within(&self, x: [f32; 3], r: f32, reach: f32) -> Option<([f32; 3], f32)> {
        let m = self.normal;
        let inside = |p: [f32; 3], q: [f32; 3], k: u32| {
            let side = Dim3::dot(cross(Dim3::sub(q, p), Dim3::sub(x, p)), m);
            side > 0.0 || (side == 0.0 && self.owns >> k & 1 == 1)
        };
        if !(inside(self.a, self.b, 0) && inside(self.b, self.c, 1) && inside(self.c, self.a, 2)) {
            return None;
        }
        let d = Dim3::dot(Dim3::sub(x, self.a), m);
        if d.abs() > reach {
            return None;
        }
        if self.side != 0.0 {
            return Some((m.map(|v| v * self.side), d * self.side - r));
        }
        let n = if d < 0.0 { m.map(|v| -v) } else { m };
        Some((n, d.abs() - r))
    }

    /// Farther than `reach` from the triangle's bounding box along an axis.
    #[inline]
    pub fn beyond(&self, x: [f32; 3], reach: f32) -> bool {
        (0..3).any(|k| {
            let lo = self.a[k].min(self.b[k]).min(self.c[k]);
            let hi = self.a[k].max(self.b[k]).max(self.c[k]);
            x[k] < lo - reach || x[k] > hi + reach
        })
    }
}

impl Edge {
    /// Unit normal (from the edge to `x`) and gap of a sphere at `x` of
    /// radius `r`; None when `x` projects outside the edge or does not lie
    /// strictly behind each of its faces (a point level with a face is the
    /// face's: right above a flat joint the two directions are opposite and
    /// both level).
    #[inline]
    pub fn gap(&self, x: [f32; 3], r: f32) -> Option<([f32; 3], f32)> {
        let t = Dim3::sub(self.b, self.a);
        let rel = Dim3::sub(x, self.a);
        let st = Dim3::dot(rel, t) / Dim3::dot(t, t);
        if !(0.0..=1.0).contains(&st) || self.into.iter().any(|&u| Dim3::dot(rel, u) >= 0.0) {
            return None;
        }
        let p = [self.a[0] + st * t[0], self.a[1] + st * t[1], self.a[2] + st * t[2]];
        let (n, dist) = unit(Dim3::sub(x, p));
        Some((n, dist - r))
    }

    /// Farther than `reach` from the edge's bounding box along an axis.
    #[inline]
    pub fn beyond(&self, x: [f32; 3], reach: f32) -> bool {
        (0..3).any(|k| x[k] < self.a[k].min(self.b[k]) - reach || x[k] > self.a[k].max(self.b[k]) + reach)
    }
}

impl Vertex {
    /// Unit normal (from the vertex to `x`) and gap of a sphere at `x` of
    /// radius `r`; None unless `x` lies strictly behind each of its edges.
    #[inline]
    pub fn gap(&self, x: [f32; 3], r: f32) -> Option<([f32; 3], f32)> {
        let rel = Dim3::sub(x, self.pos);
        if self.dirs.iter().any(|&e| Dim3::dot(rel, e) >= 0.0) {
            return None;
        }
        let (n, dist) = unit(rel);
        Some((n, dist - r))
    }
}

impl Walls3d {
    /// The six planes of the box from `lo` to `hi` facing inwards.
    pub fn boxed(lo: [f32; 3], hi: [f32; 3]) -> Result<Walls3d> {
        if !(0..3).all(|k| lo[k] < hi[k]) {
            return Err(Error::field(
                "walls",
                "box",
                format!("the box from {lo:?} to {hi:?} is empty"),
            ));
        }
        let mut planes = Vec::with_capacity(6);
        for k in 0..3 {
            let mut n = [0.0; 3];
            n[k] = 1.0;
            planes.push(Plane::new(lo, n)?);
            n[k] = -1.0;
            planes.push(Plane::new(hi, n)?);
        }
        Ok(Walls3d {
            planes,
            ..Walls3d::default()
        })
    }

    /// These walls with a [`WallIndex`] for spheres whose contacts reach
    /// at most `reach` m (their radius plus the alert distance, or more):
    /// cells of twice `reach`, grown until there are at most
    /// [`MAX_INDEX_CELLS`]. Without
    /// mesh bodies, or for a `reach` that is not a positive number, there is
    /// no index.
    pub fn indexed(mut self, reach: f32) -> Walls3d {
        self.index = None;
        let bodies = self.triangles.len() + self.edges.len() + self.vertices.len();
        if bodies == 0 || !(reach > 0.0 && reach.is_finite()) {
            return self;
        }
        let boxes: Vec<([f32; 3], [f32; 3])> = self
            .triangles
            .iter()
            .map(|t| {
                let lo = [0, 1, 2].map(|k| t.a[k].min(t.b[k]).min(t.c[k]));
                let hi = [0, 1, 2].map(|k| t.a[k].max(t.b[k]).max(t.c[k]));
                (lo, hi)
            })
            .chain(self.edges.iter().map(|e| {
                let lo = [0, 1, 2].map(|k| e.a[k].min(e.b[k]));
                let hi = [0, 1, 2].map(|k| e.a[k].max(e.b[k]));
                (lo, hi)
            }))
            .chain(self.vertices.iter().map(|v| (v.pos, v.pos)))
            .map(|(lo, hi)| (lo.map(|x| x - reach), hi.map(|x| x + reach)))
            .collect();
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for (a, b) in &boxes {
            for k in 0..3 {
                lo[k] = lo[k].min(a[k]);
                hi[k] = hi[k].max(b[k]);
            }
        }
        let mut cell = 2.0 * reach;
        let dims = loop {
            let d = [0, 1, 2].map(|k| (((hi[k] - lo[k]) / cell).ceil() as u64).max(1));
            if d[0] * d[1] * d[2] <= MAX_INDEX_CELLS {
                break d.map(|n| n as u32);
            }
            cell *= 1.25;
        };
        let cells = (dims[0] * dims[1] * dims[2]) as usize;
        let range = |a: f32, b: f32, k: usize| {
            let c = |x: f32| (((x - lo[k]) / cell).floor().max(0.0) as u32).min(dims[k] - 1);
            c(a)..=c(b)
        };
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); cells];
        for (body, (a, b)) in boxes.iter().enumerate() {
            for z in range(a[2], b[2], 2) {
                for y in range(a[1], b[1], 1) {
                    for x in range(a[0], b[0], 0) {
                        lists[((z * dims[1] + y) * dims[0] + x) as usize].push(body as u32);
                    }
                }
            }
        }
        let mut start = Vec::with_capacity(cells + 1);
        let mut bodies = Vec::new();
        for l in &lists {
            start.push(bodies.len() as u32);
            bodies.extend_from_slice(l);
        }
        start.push(bodies.len() as u32);
        self.index = Some(WallIndex {
            lo,
            cell,
            dims,
            reach,
            start,
            bodies,
        });
        self
    }

    /// The walls of a triangle mesh (each triangle its three corners, m),
    /// with its edges and vertices: corners closer than
    /// [`MERGE_TOLERANCE`] are one vertex, and two triangles sharing two
    /// vertices share that edge; the triangles of a closed surface hold
    /// the spheres on its inside (model::inside). Refused, naming the
    /// triangle, when a coordinate is not finite or a triangle has no area.
    pub fn mesh(triangles: &[[[f64; 3]; 3]]) -> Result<Walls3d> {
        Walls3d::mesh_with_gate(triangles, &[])
    }

    /// As [`Walls3d::mesh`] for `walls` and a `gate` across their opening
    /// (numbered after them): the inside is found from `walls` alone and the
    /// gate's triangles stay two-sided, as gate lines do in the plane.
    pub fn mesh_with_gate(walls: &[[[f64; 3]; 3]], gate: &[[[f64; 3]; 3]]) -> Result<Walls3d> {
        Walls3d::mesh_holding(walls, gate, Hold::Inside)
    }

    /// As [`Walls3d::mesh_with_gate`], the closed surfaces of `walls`
    /// holding the spheres on the side `hold` says (`inside::sides_holding`).
    pub fn mesh_holding(walls: &[[[f64; 3]; 3]], gate: &[[[f64; 3]; 3]], hold: Hold) -> Result<Walls3d> {
        use std::collections::HashMap;
        let triangles = &[walls, gate].concat();
        let key = |p: [f64; 3]| p.map(|x| (x / MERGE_TOLERANCE).round() as i64);
        let mut index: HashMap<[i64; 3], u32> = HashMap::new();
        let mut points: Vec<[f64; 3]> = Vec::new();
        let mut faces: Vec<[u32; 3]> = Vec::with_capacity(triangles.len());
        for (k, t) in triangles.iter().enumerate() {
            if !t.iter().flatten().all(|x| x.is_finite()) {
                return Err(Error::field(
                    "walls",
                    "triangles",
                    format!("triangle {k} has a coordinate that is not a finite number: {t:?}"),
                ));
            }
            let d = |p: [f64; 3], q: [f64; 3]| [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
            let (u, v) = (d(t[0], t[1]), d(t[0], t[2]));
            let w = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            let area2 = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
            let len2 = |e: [f64; 3]| e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
            let longest = len2(u).max(len2(v)).max(len2(d(t[1], t[2])));
            if area2 <= FLAT_TRIANGLE * longest || area2 == 0.0 {
                return Err(Error::field(
                    "walls",
                    "triangles",
                    format!("triangle {k} has no area (corners {:?}, {:?}, {:?})", t[0], t[1], t[2]),
                ));
            }
            let mut f = [0u32; 3];
            for (slot, &p) in f.iter_mut().zip(t) {
                *slot = *index.entry(key(p)).or_insert_with(|| {
                    points.push(p);
                    (points.len() - 1) as u32
                });
            }
            if f[0] == f[1] || f[1] == f[2] || f[0] == f[2] {
                return Err(Error::field(
                    "walls",
                    "triangles",
                    format!("triangle {k} has two corners closer than {MERGE_TOLERANCE} m"),
                ));
            }
            faces.push(f);
        }
        let at = |i: u32| points[i as usize].map(|x| x as f32);
        let mut out = Walls3d::default();
        let mut edge_of: HashMap<(u32, u32), usize> = HashMap::new();
        let mut vertex_dirs: Vec<Vec<[f32; 3]>> = vec![Vec::new(); points.len()];
        for f in &faces {
            let (a, b, c) = (at(f[0]), at(f[1]), at(f[2]));
            let (normal, _) = unit(cross(Dim3::sub(b, a), Dim3::sub(c, a)));
            let mut owns = 0;
            for (k, (p, q, opposite)) in [(f[0], f[1], f[2]), (f[1], f[2], f[0]), (f[2], f[0], f[1])]
                .into_iter()
                .enumerate()
            {
                let lo_hi = (p.min(q), p.max(q));
                let e = *edge_of.entry(lo_hi).or_insert_with(|| {
                    owns |= 1 << k;
                    let (ea, eb) = (at(lo_hi.0), at(lo_hi.1));
                    out.edges.push(Edge {
                        a: ea,
                        b: eb,
                        into: Vec::new(),
                    });
                    let (along, _) = unit(Dim3::sub(eb, ea));
                    vertex_dirs[lo_hi.0 as usize].push(along);
                    vertex_dirs[lo_hi.1 as usize].push(along.map(|x| -x));
                    out.edges.len() - 1
                });
                // The direction into the face: the opposite corner's offset
                // with its part along the edge removed.
                let edge = &mut out.edges[e];
                let (t, _) = unit(Dim3::sub(edge.b, edge.a));
                let o = Dim3::sub(at(opposite), edge.a);
                let s = Dim3::dot(o, t);
                let (u, _) = unit([o[0] - s * t[0], o[1] - s * t[1], o[2] - s * t[2]]);
                edge.into.push(u);
            }
            out.triangles.push(Triangle {
                a,
                b,
                c,
                normal,
                owns,
                side: 0.0,
            });
        }
        let sides = super::inside::sides_holding(&faces[..walls.len()], &points, hold);
        out.bounded = hold == Hold::Inside && sides.iter().any(|&s| s != 0.0);
        for (t, side) in out.triangles.iter_mut().zip(sides) {
            t.side = side;
        }
        out.vertices = points
            .iter()
            .zip(vertex_dirs)
            .map(|(p, dirs)| Vertex {
                pos: p.map(|x| x as f32),
                dirs,
            })
            .collect();
        Ok(out)
    }

    /// Mesh bodies: triangles, then edges, then vertices (as the index
    /// numbers them).
    pub fn mesh_bodies(&self) -> usize {
        self.triangles.len() + self.edges.len() + self.vertices.len()
    }

    /// The contact's body, normal and gap of a sphere at `x` of radius `r`
    /// against mesh body `b` ([`Walls3d::mesh_bodies`]); None where the body
    /// does not act, or where `x` lies farther than `reach` from its
    /// bounding box along an axis (then it is not read further).
    #[inline]
    pub fn mesh_gap(&self, b: usize, x: [f32; 3], r: f32, reach: f32) -> Option<(Body, [f32; 3], f32)> {
        let (triangles, edges) = (self.triangles.len(), self.edges.len());
        if b < triangles {
            let t = &self.triangles[b];
            let (n, gap) = (!t.beyond(x, reach)).then(|| t.gap_within(x, r, reach))??;
            Some((Body::Segment((self.planes.len() + b) as u32), n, gap))
        } else if b < triangles + edges {
            let e = &self.edges[b - triangles];
            let (n, gap) = (!e.beyond(x, reach)).then(|| e.gap(x, r))??;
            Some((Body::Corner((b - triangles) as u32), n, gap))
        } else {
            let v = &self.vertices[b - triangles - edges];
            let near = (0..3).all(|k| (x[k] - v.pos[k]).abs() <= reach);
            let (n, gap) = near.then(|| v.gap(x, r))??;
            Some((Body::Corner((b - triangles) as u32), n, gap))
        }
    }

    /// Each mesh body that may lie within `reach` of `x`, in body order,
    /// given to `f`: those of `x`'s cell when there is an index for this
    /// reach, else every one.
    #[inline]
    pub fn near_mesh(&self, x: [f32; 3], reach: f32, mut f: impl FnMut(usize)) {
        match &self.index {
            Some(index) if index.reach >= reach => index.near(x).iter().for_each(|&b| f(b as usize)),
            _ => (0..self.mesh_bodies()).for_each(f),
        }
    }

    /// A sphere of radius `r` at `x` overlaps a wall body, or lies behind a
    /// plane, or behind a one-sided face within `r` of its plane (a
    /// two-sided face: only its overlaps count).
    pub fn overlaps_sphere(&self, x: [f32; 3], r: f32) -> bool {
        self.planes.iter().any(|p| p.distance(x) < r)
            || (0..self.mesh_bodies()).any(|b| self.mesh_gap(b, x, r, r).is_some_and(|(_, _, gap)| gap < 0.0))
    }

    /// `x` lies in the space the mesh's closed surfaces hold: on the held
    /// side of its one-sided faces, counted by their winding number about
    /// `x` (each face turned to face the space it holds). Every point when
    /// no face is one-sided; planes are not counted. For points off the
    /// faces (a sphere's centre clear of them).
    pub fn mesh_holds(&self, x: [f64; 3]) -> bool {
        let held = (self.triangles.iter().filter(|t| t.side != 0.0)).map(|t| {
            let [a, b, c] = [t.a, t.b, t.c].map(|p| p.map(f64::from));
            if t.side > 0.0 { [a, b, c] } else { [a, c, b] }
        });
        // Faces facing the space they hold wind -1 about a point within a
        // container and +1 about one within an obstacle.
        let far = if self.bounded { 0.0 } else { 1.0 };
        far - super::inside::winding(held, x) > 0.5
    }

    /// Bodies a contact names as `Body::Segment`: planes, then triangles.
    pub fn faces(&self) -> usize {
        self.planes.len() + self.triangles.len()
    }

    /// Bodies a contact names as `Body::Corner`: edges, then vertices.
    pub fn corners(&self) -> usize {
        self.edges.len() + self.vertices.len()
    }

    /// These walls and `other`'s, as one set (`other`'s bodies numbered
    /// after these in each kind), without an index.
    pub fn with(mut self, other: &Walls3d) -> Walls3d {
        self.index = None;
        self.planes.extend_from_slice(&other.planes);
        self.triangles.extend_from_slice(&other.triangles);
        self.edges.extend_from_slice(&other.edges);
        self.vertices.extend_from_slice(&other.vertices);
        self.bounded |= other.bounded;
        self
    }
}

/// The part of the convex polygon `poly` on the inner side of the plane
/// through `point` with normal `normal`, where n . (x - p) is not negative
/// (Sutherland-Hodgman, one plane).
pub fn clip_polygon(poly: &[[f32; 3]], point: [f32; 3], normal: [f32; 3]) -> Vec<[f32; 3]> {
    let side = |x: [f32; 3]| (0..3).map(|k| normal[k] * (x[k] - point[k])).sum::<f32>();
    let mut out = Vec::with_capacity(poly.len() + 1);
    for (k, &a) in poly.iter().enumerate() {
        let b = poly[(k + 1) % poly.len()];
        let (da, db) = (side(a), side(b));
        if da >= 0.0 {
            out.push(a);
        }
        if (da >= 0.0) != (db >= 0.0) {
            let t = da / (da - db);
            out.push([0, 1, 2].map(|k| a[k] + t * (b[k] - a[k])));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_keeps_its_inside_on_the_positive_side_of_every_plane() {
        let walls = Walls3d::boxed([0.0, 0.0, 0.0], [1.0, 2.0, 3.0]).unwrap();
        assert_eq!(walls.planes.len(), 6);
        let inside = [0.25, 1.5, 0.5];
        let dists: Vec<f32> = walls.planes.iter().map(|p| p.distance(inside)).collect();
        assert_eq!(dists, vec![0.25, 0.75, 1.5, 0.5, 0.5, 2.5]);
        assert!(walls.planes[3].distance([0.5, 2.5, 1.0]) < 0.0);
        let e = Walls3d::boxed([0.0; 3], [1.0, 0.0, 1.0]).unwrap_err().to_string();
        assert!(e.contains("is empty"), "{e}");
        let e = Plane::new([0.0; 3], [0.0; 3]).unwrap_err().to_string();
        assert!(e.contains("no direction"), "{e}");
        assert!(Plane::new([f32::NAN, 0.0, 0.0], [0.0, 0.0, 1.0]).is_err());
        assert_eq!(Plane::new([0.0; 3], [0.0, 0.0, 2.0]).unwrap().normal, [0.0, 0.0, 1.0]);
    }

    /// What the walls' triangles, edges and vertices say of a sphere at `x`
    /// of radius `r` within `alert`: (kind, index, normal, gap).
    fn touching(w: &Walls3d, x: [f32; 3], r: f32, alert: f32) -> Vec<(char, usize, [f32; 3], f32)> {
        let mut out = Vec::new();
        let mut keep = |kind, k, found: Option<([f32; 3], f32)>| {
            if let Some((n, gap)) = found
                && gap < alert
            {
                out.push((kind, k, n, gap));
            }
        };
        for (k, t) in w.triangles.iter().enumerate() {
            keep('f', k, t.gap(x, r));
        }
        for (k, e) in w.edges.iter().enumerate() {
            keep('e', k, e.gap(x, r));
        }
        for (k, v) in w.vertices.iter().enumerate() {
            keep('v', k, v.gap(x, r));
        }
        out
    }

    /// The unit square of the x-z plane at y = 0, as two triangles.
    fn square() -> Walls3d {
        Walls3d::mesh(&[
            [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 1.0]],
            [[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 0.0, 1.0]],
        ])
        .unwrap()
    }

    /// The unit cube's twelve triangles.
    fn cube() -> Walls3d {
        let c = |i: usize| [(i & 1) as f64, (i >> 1 & 1) as f64, (i >> 2 & 1) as f64];
        let quads = [
            [0, 1, 3, 2],
            [4, 6, 7, 5],
            [0, 4, 5, 1],
            [2, 3, 7, 6],
            [0, 2, 6, 4],
            [1, 5, 7, 3],
        ];
        let mut t = Vec::new();
        for q in quads {
            t.push([c(q[0]), c(q[1]), c(q[2])]);
            t.push([c(q[0]), c(q[2]), c(q[3])]);
        }
        Walls3d::mesh(&t).unwrap()
    }

    /// A unit cube and a cube of side 1/3 at its centre, its triangles
    /// listed half turned: the space held is inside the outer cube and
    /// outside the inner one, and the other way round as obstacles; a
    /// square sheet holds every point.
    #[test]
    fn the_space_held_is_the_inside_or_outside_of_the_closed_surfaces() {
        let scale = |w: &Walls3d, s: f64, o: f64, turn: bool| -> Vec<[[f64; 3]; 3]> {
            (w.triangles.iter())
                .map(|t| {
                    let [a, b, c] = [t.a, t.b, t.c].map(|p| p.map(|x| o + s * f64::from(x)));
                    if turn { [a, c, b] } else { [a, b, c] }
                })
                .collect()
        };
        let unit = cube();
        let mut t = scale(&unit, 1.0, 0.0, false);
        for (k, f) in scale(&unit, 1.0 / 3.0, 1.0 / 3.0, true).into_iter().enumerate() {
            t.push(if k % 2 == 0 { f } else { [f[0], f[2], f[1]] });
        }
        let (between, core, far) = ([0.1, 0.5, 0.5], [0.5, 0.5, 0.5], [2.0, 0.3, 0.5]);
        let held = |hold| {
            let w = Walls3d::mesh_holding(&t, &[], hold).unwrap();
            [between, core, far].map(|x| w.mesh_holds(x))
        };
        assert_eq!(held(Hold::Inside), [true, false, false]);
        assert_eq!(held(Hold::Outside), [false, true, true]);
        assert_eq!(held(Hold::Both), [true, true, true]);
        assert!([between, far].iter().all(|&x| square().mesh_holds(x)));
    }

    #[test]
    fn a_mesh_shares_its_edges_and_vertices() {
        let w = square();
        assert_eq!((w.triangles.len(), w.edges.len(), w.vertices.len()), (2, 5, 4));
        assert_eq!((w.faces(), w.corners()), (2, 9));
        let shared: Vec<&Edge> = w.edges.iter().filter(|e| e.into.len() == 2).collect();
        assert_eq!(shared.len(), 1);
        let u = &shared[0].into;
        // A flat joint: opposite directions into its two faces.
        assert!((0..3).all(|k| (u[0][k] + u[1][k]).abs() < 1e-6), "{u:?}");
        assert!(w.edges.iter().all(|e| !e.into.is_empty()));
        // Corners (0,0,0) and (1,0,1) have three edges, the other two have two.
        let mut degrees: Vec<usize> = w.vertices.iter().map(|v| v.dirs.len()).collect();
        degrees.sort();
        assert_eq!(degrees, vec![2, 2, 3, 3]);
        // Each shared edge is owned by one triangle.
        let owned: u32 = w.triangles.iter().map(|t| t.owns.count_ones()).sum();
        assert_eq!(owned as usize, w.edges.len());
        let cube = cube();
        assert_eq!(
            (cube.triangles.len(), cube.edges.len(), cube.vertices.len()),
            (12, 18, 8)
        );
        assert!(cube.edges.iter().all(|e| e.into.len() == 2));
    }

    #[test]
    fn a_sphere_above_a_flat_mesh_meets_one_face_wherever_it_is() {
        let w = square();
        // Inside a face, right above the shared diagonal, above the corners
        // where the two triangles meet, and above a boundary edge.
        for x in [
            [0.7, 0.1, 0.2],
            [0.2, 0.1, 0.7],
            [0.5, 0.1, 0.5],
            [0.25, 0.1, 0.25],
            [0.0, 0.1, 0.0],
            [1.0, 0.1, 1.0],
            [0.5, 0.1, 0.0],
            [0.5, -0.1, 0.5],
        ] {
            let found = touching(&w, x, 0.12, 0.01);
            assert_eq!(found.len(), 1, "{x:?}: {found:?}");
            let (kind, _, n, gap) = found[0];
            assert_eq!(kind, 'f', "{x:?}: {found:?}");
            assert_eq!(n, [0.0, x[1].signum(), 0.0]);
            assert!((gap + 0.02).abs() < 1e-6, "{gap}");
        }
        // Past a boundary edge: the edge, with the normal from it.
        let found = touching(&w, [1.05, 0.05, 0.5], 0.1, 0.0);
        assert_eq!(found.len(), 1, "{found:?}");
        let (kind, _, n, gap) = found[0];
        assert_eq!(kind, 'e');
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert!(
            (n[0] - h).abs() < 1e-6 && (n[1] - h).abs() < 1e-6 && n[2] == 0.0,
            "{n:?}"
        );
        assert!((gap - (0.05f32 * 2f32.sqrt() - 0.1)).abs() < 1e-6, "{gap}");
    }

    #[test]
    fn a_cube_holds_a_sphere_by_its_faces_inside_and_its_edges_and_vertices_outside() {
        let w = cube();
        // Inside, near a corner: three faces (a concave corner), no edge or vertex.
        let found = touching(&w, [0.1, 0.1, 0.1], 0.12, 0.0);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(
            found.iter().all(|f| f.0 == 'f' && (f.3 + 0.02).abs() < 1e-6),
            "{found:?}"
        );
        // Closed: a sphere whose centre crossed a face is pushed back in.
        let found = touching(&w, [0.5, 1.05, 0.5], 0.1, 0.0);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].0, found[0].2), ('f', [0.0, -1.0, 0.0]));
        assert!((found[0].3 + 0.15).abs() < 1e-6, "{found:?}");
        // Open (the face at z = 0 taken away): two-sided. Outside a face, an
        // edge and a vertex: that feature alone, pushing outwards.
        let open: Vec<[[f64; 3]; 3]> = (w.triangles.iter().skip(2))
            .map(|t| [t.a, t.b, t.c].map(|p| p.map(f64::from)))
            .collect();
        let w = Walls3d::mesh(&open).unwrap();
        assert!(w.triangles.iter().all(|t| t.side == 0.0));
        let (r, d) = (0.2f32, 0.1f32);
        let cases = [
            ([0.5, 1.0 + d, 0.5], 'f', d - r),
            ([1.0 + d, 1.0 + d, 0.5], 'e', d * 2f32.sqrt() - r),
            ([1.0 + d, 1.0 + d, 1.0 + d], 'v', d * 3f32.sqrt() - r),
        ];
        for (x, kind, gap) in cases {
            let found = touching(&w, x, r, 0.0);
            assert_eq!(found.len(), 1, "{x:?}: {found:?}");
            assert_eq!(found[0].0, kind, "{x:?}: {found:?}");
            assert!((found[0].3 - gap).abs() < 1e-6, "{x:?}: {found:?}");
            let n = found[0].2;
            let along: f32 = (0..3).map(|k| n[k] * (x[k] - 0.5)).sum();
            assert!(along > 0.0, "{x:?}: normal {n:?} points inwards");
        }
    }

    #[test]
    fn a_mesh_refuses_flat_and_broken_triangles_naming_them() {
        let ok = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
        let flat = [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [2.0, 2.0, 2.0]];
        let e = Walls3d::mesh(&[ok, flat]).unwrap_err().to_string();
        assert!(e.contains("triangle 1 has no area"), "{e}");
        let nan = [[0.0, 0.0, 0.0], [f64::NAN, 0.0, 0.0], [0.0, 0.0, 1.0]];
        let e = Walls3d::mesh(&[nan]).unwrap_err().to_string();
        assert!(e.contains("triangle 0") && e.contains("finite"), "{e}");
        let pinched = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1e-12, 0.0, 1.0]];
        assert!(Walls3d::mesh(&[pinched]).is_ok());
        let twice = [[0.0, 0.0, 0.0], [1e-12, 0.0, 0.0], [0.0, 0.0, 1.0]];
        let e = Walls3d::mesh(&[twice]).unwrap_err().to_string();
        assert!(e.contains("triangle 0"), "{e}");
    }
}
