//! The space the stages run in: the WGSL each space defines (shaders/space/),
//! and the walls of 3D as the GPU reads them.
//!
//! ```text
//!   shaders/space/plane.wgsl   Vec = vec2, Spin = Tangent = f32, Segment, Corner,
//!                              and the plane's own helpers (the NSCD solvers')
//!   shaders/space/solid.wgsl   Vec = vec3 stored as 3 f32, Spin = Tangent = vec3,
//!                              Segment = a plane or triangle (Face), Corner = an edge or vertex (Ridge)
//!   segments (3D): planes, then triangles   corners (3D): edges, then vertices
//! ```
//! A stage written with the shared names (`Vec`, `vec_in`, `dot_exact`,
//! `slip`, `cell_coords`, ...) runs in either space ([`super::SOLID_STAGES`]);
//! 3D bodies keep the numbering of `model::Body` (`Segment(k)`: planes then
//! triangles; `Corner(k)`: edges then vertices), so a 3D contact list reads
//! the same on both backends.

use bytemuck::{Pod, Zeroable};

use super::pipeline::Pipeline;
use crate::model::space::{Dim2, Dim3, Space};
use crate::model::walls3d::WallIndex;
use crate::model::{Contact, Walls, Walls3d};

/// `Segment::kind` of a plane and of a triangle (shaders/space/solid.wgsl).
pub const FACE_PLANE: u32 = 0;
pub const FACE_TRIANGLE: u32 = 1;
/// `Corner::kind` of an edge and of a vertex, and of a record that only
/// holds more directions of one of them.
pub const RIDGE_EDGE: u32 = 0;
pub const RIDGE_VERTEX: u32 = 1;
pub const RIDGE_MORE: u32 = 2;
/// Directions one 3D corner record holds (an edge's into its faces, a
/// vertex's along its edges); a vertex of more edges goes on in records
/// after every body ([`ridges`]).
pub const SOLID_DIRS: u32 = 12;

/// shaders/space/plane.wgsl or solid.wgsl for dimension `dim`.
pub fn wgsl(dim: u32) -> &'static str {
    if dim == 3 {
        include_str!("../../shaders/space/solid.wgsl")
    } else {
        include_str!("../../shaders/space/plane.wgsl")
    }
}

/// The walls' part of the detection (`wall_contacts`) for dimension `dim`.
pub fn walls_wgsl(dim: u32) -> &'static str {
    if dim == 3 {
        include_str!("../../shaders/space/solid_walls.wgsl")
    } else {
        include_str!("../../shaders/space/plane_walls.wgsl")
    }
}

/// `Space::TANGENT_MASS_RATIO` of dimension `dim`.
pub fn tangent_mass_ratio(dim: u32) -> f32 {
    if dim == 3 {
        Dim3::TANGENT_MASS_RATIO
    } else {
        Dim2::TANGENT_MASS_RATIO
    }
}

/// Words of [`wall_index`]'s header (`INDEX_*` in shaders/detect.wgsl).
pub const INDEX_HEADER: usize = 16;

/// The walls' index as the detection reads it (shaders/detect.wgsl,
/// `wall_contacts`): a header of [`INDEX_HEADER`] words (the index grid's
/// cells along x, y, z, its lower corner and cell side, the reach it holds
/// for (f32 bits), the walls tried before the indexed bodies (`first`: 3D's
/// planes), the bodies of the segment kind among the indexed ones
/// (`split`: the triangles, or the plane's segments), the bodies indexed),
/// then `WallIndex::start` and `WallIndex::bodies`. Without an index the
/// grid has no cell and every body is tried.
pub fn wall_index(index: Option<&WallIndex>, first: usize, split: usize, others: usize) -> Vec<u32> {
    let mut out = vec![0u32; INDEX_HEADER];
    out[8] = first as u32;
    out[9] = split as u32;
    out[10] = (split + others) as u32;
    if let Some(ix) = index {
        out[..3].copy_from_slice(&ix.dims);
        for k in 0..3 {
            out[3 + k] = ix.lo[k].to_bits();
        }
        out[6] = ix.cell.to_bits();
        out[7] = ix.reach.to_bits();
        out.extend_from_slice(&ix.start);
        out.extend_from_slice(&ix.bodies);
    }
    out
}

/// A plane or a triangle as the GPU reads it (`Segment` of
/// shaders/space/solid.wgsl; a plane keeps its point in `a` and its normal).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct Face {
    pub a: [f32; 3],
    /// [`FACE_PLANE`] or [`FACE_TRIANGLE`].
    pub kind: u32,
    pub b: [f32; 3],
    /// `Triangle::owns`.
    pub owns: u32,
    pub c: [f32; 3],
    /// `Triangle::side`: the side of `n` holding the inside (0: two-sided;
    /// 0 for a plane, which holds its side by `n`).
    pub side: f32,
    pub n: [f32; 3],
    pub pad2: u32,
}

/// An edge or a vertex as the GPU reads it (`Corner` of shaders/space/solid.wgsl).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct Ridge {
    pub a: [f32; 3],
    /// [`RIDGE_EDGE`], [`RIDGE_VERTEX`] or [`RIDGE_MORE`].
    pub kind: u32,
    /// An edge's second end; a vertex's position again.
    pub b: [f32; 3],
    /// The body's directions in all (`Edge::into` or `Vertex::dirs`).
    pub count: u32,
    /// The record holding its directions past the first [`SOLID_DIRS`]
    /// (0: none).
    pub more: u32,
    pub pad: [u32; 3],
    /// The first [`SOLID_DIRS`] of them, zeros past `count`.
    pub dirs: [[f32; 3]; SOLID_DIRS as usize],
}

/// The planes, then the triangles, of `walls`.
pub fn faces(walls: &Walls3d) -> Vec<Face> {
    let planes = walls.planes.iter().map(|p| Face {
        a: p.point,
        kind: FACE_PLANE,
        n: p.normal,
        ..Face::default()
    });
    let triangles = walls.triangles.iter().map(|t| Face {
        a: t.a,
        kind: FACE_TRIANGLE,
        b: t.b,
        owns: t.owns,
        c: t.c,
        side: t.side,
        n: t.normal,
        ..Face::default()
    });
    planes.chain(triangles).collect()
}

/// The edges, then the vertices, of `walls` (record k is body
/// `Corner(k)`), then the records of the directions past the first
/// [`SOLID_DIRS`] of a body, each chained to the next by `more`.
pub fn ridges(walls: &Walls3d) -> Vec<Ridge> {
    let edges = walls.edges.iter().map(|e| (RIDGE_EDGE, e.a, e.b, &e.into[..]));
    let vertices = walls.vertices.iter().map(|v| (RIDGE_VERTEX, v.pos, v.pos, &v.dirs[..]));
    let bodies: Vec<_> = edges.chain(vertices).collect();
    let mut out = Vec::with_capacity(bodies.len());
    let mut tail = Vec::new();
    let per = SOLID_DIRS as usize;
    for &(kind, a, b, dirs) in &bodies {
        let mut chunks = dirs.chunks(per);
        let mut record = Ridge {
            a,
            kind,
            b,
            count: dirs.len() as u32,
            ..Ridge::default()
        };
        let first = chunks.next().unwrap_or_default();
        record.dirs[..first.len()].copy_from_slice(first);
        let mut last: Option<usize> = None;
        for chunk in chunks {
            let at = (bodies.len() + tail.len()) as u32;
            match last {
                None => record.more = at,
                Some(t) => tail[t] = Ridge { more: at, ..tail[t] },
            }
            let mut more = Ridge {
                kind: RIDGE_MORE,
                ..Ridge::default()
            };
            more.dirs[..chunk.len()].copy_from_slice(chunk);
            last = Some(tail.len());
            tail.push(more);
        }
        out.push(record);
    }
    out.extend(tail);
    out
}

/// The walls' segments and corners as the GPU reads them.
pub type Bodies<S> = (Vec<<S as GpuSpace>::Face>, Vec<<S as GpuSpace>::Ridge>);

/// A space whose walls the GPU reads: the buffers of its segments and
/// corners, and their velocities (zero for still walls).
pub trait GpuSpace: Space {
    /// Element of the `segments` buffer.
    type Face: Pod;
    /// Element of the `corners` buffer.
    type Ridge: Pod;
    /// Element of `segment_vel` and of `corner_vel`.
    type FaceVel: Pod;
    type RidgeVel: Pod;

    /// The walls' segments and corners as the stages read them.
    fn wall_bodies(walls: &Self::Walls) -> Bodies<Self>;

    /// The bodies a contact names as segments and as corners (`n_segments`,
    /// `n_corners`: the records past them only hold directions).
    fn body_counts(walls: &Self::Walls) -> (usize, usize);

    /// The walls' index as the detection reads it ([`wall_index`]).
    fn wall_index(walls: &Self::Walls) -> Vec<u32>;

    /// The velocities of the walls' segments and corners.
    fn wall_velocities(walls: &Self::Walls) -> (Vec<Self::FaceVel>, Vec<Self::RidgeVel>);

    /// Whether the walls move (`Walls::moving`; the walls of 3D stand still).
    fn moving(walls: &Self::Walls) -> bool;

    /// `walls` moved on by `dt` into `out` (`model::walls::walls_ahead`).
    fn walls_ahead(walls: &Self::Walls, dt: f32, out: &mut Self::Walls);

    /// The same walls at a new pose written over `core`'s wall buffers.
    fn move_walls(core: &mut Pipeline<Self>, walls: &Self::Walls);

    /// Contacts from the bytes of a contact buffer.
    fn contacts(bytes: &[u8]) -> Vec<Contact<Self>>;
}

impl GpuSpace for Dim2 {
    type Face = crate::model::Segment;
    type Ridge = crate::model::Corner;
    type FaceVel = [[f32; 2]; 2];
    type RidgeVel = [f32; 2];

    fn wall_bodies(walls: &Walls) -> Bodies<Dim2> {
        (walls.segments.clone(), walls.corners.clone())
    }

    fn body_counts(walls: &Walls) -> (usize, usize) {
        (walls.segments.len(), walls.corners.len())
    }

    /// No index: every segment, then every corner.
    fn wall_index(walls: &Walls) -> Vec<u32> {
        wall_index(None, 0, walls.segments.len(), walls.corners.len())
    }

    /// Each segment's ends' velocities and each corner's (`Walls::segment_vel`,
    /// `Walls::corner_velocity`): zeros for still walls.
    fn wall_velocities(walls: &Walls) -> (Vec<[[f32; 2]; 2]>, Vec<[f32; 2]>) {
        let segments = (0..walls.segments.len())
            .map(|k| walls.segment_vel.get(k).copied().unwrap_or_default())
            .collect();
        let corners = (0..walls.corners.len()).map(|k| walls.corner_velocity(k)).collect();
        (segments, corners)
    }

    fn moving(walls: &Walls) -> bool {
        walls.moving()
    }

    fn walls_ahead(walls: &Walls, dt: f32, out: &mut Walls) {
        crate::model::walls::walls_ahead(walls, dt, out);
    }

    fn move_walls(core: &mut Pipeline, walls: &Walls) {
        core.move_walls(walls);
    }

    fn contacts(bytes: &[u8]) -> Vec<Contact> {
        bytemuck::pod_collect_to_vec(bytes)
    }
}

impl GpuSpace for Dim3 {
    type Face = Face;
    type Ridge = Ridge;
    type FaceVel = [f32; 3];
    type RidgeVel = [f32; 3];

    fn wall_bodies(walls: &Walls3d) -> Bodies<Dim3> {
        (faces(walls), ridges(walls))
    }

    fn body_counts(walls: &Walls3d) -> (usize, usize) {
        (walls.faces(), walls.corners())
    }

    /// Every plane, then the mesh's bodies through `Walls3d::index` when it has one.
    fn wall_index(walls: &Walls3d) -> Vec<u32> {
        let (planes, triangles) = (walls.planes.len(), walls.triangles.len());
        wall_index(walls.index.as_ref(), planes, triangles, walls.corners())
    }

    /// Zeros: the walls of 3D stand still.
    fn wall_velocities(walls: &Walls3d) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
        (vec![[0.0; 3]; walls.faces()], vec![[0.0; 3]; walls.corners()])
    }

    fn moving(_walls: &Walls3d) -> bool {
        false
    }

    fn walls_ahead(walls: &Walls3d, _dt: f32, out: &mut Walls3d) {
        out.clone_from(walls);
    }

    /// Still walls: uploaded again.
    fn move_walls(core: &mut Pipeline<Dim3>, walls: &Walls3d) {
        core.set_walls(walls);
    }

    fn contacts(bytes: &[u8]) -> Vec<Contact<Dim3>> {
        bytemuck::pod_collect_to_vec(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_is_six_planes_and_a_mesh_its_triangles_edges_and_vertices() {
        let boxed = Walls3d::boxed([0.0; 3], [1.0; 3]).unwrap();
        let f = faces(&boxed);
        assert_eq!(f.len(), 6);
        assert!(f.iter().all(|f| f.kind == FACE_PLANE));
        assert_eq!(f[0].n, boxed.planes[0].normal);
        let tetra = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let tri = |a: usize, b: usize, c: usize| [tetra[a], tetra[b], tetra[c]];
        let mesh = Walls3d::mesh(&[tri(0, 2, 1), tri(0, 1, 3), tri(0, 3, 2), tri(1, 2, 3)]).unwrap();
        let r = ridges(&mesh);
        assert_eq!(faces(&mesh).len(), 4);
        assert_eq!(r.len(), mesh.edges.len() + mesh.vertices.len());
        assert_eq!((r[0].kind, r[0].count as usize), (RIDGE_EDGE, mesh.edges[0].into.len()));
        let v = &r[mesh.edges.len()];
        assert_eq!(
            (v.kind, v.a, v.b),
            (RIDGE_VERTEX, mesh.vertices[0].pos, mesh.vertices[0].pos)
        );
        assert_eq!(&v.dirs[..v.count as usize], &mesh.vertices[0].dirs[..]);
    }

    /// A vertex of 30 edges: its first record holds 12 directions, and two
    /// records after every body hold the next 12 and the last 6, chained.
    #[test]
    fn a_vertex_of_many_edges_goes_on_in_chained_records() {
        let fan: Vec<[[f64; 3]; 3]> = (0..30)
            .map(|k| {
                let at = |k: usize| {
                    let t = k as f64 * std::f64::consts::TAU / 30.0;
                    [t.cos(), -0.2, t.sin()]
                };
                [[0.0, 0.0, 0.0], at(k + 1), at(k)]
            })
            .collect();
        let mesh = Walls3d::mesh(&fan).unwrap();
        let r = ridges(&mesh);
        let bodies = mesh.edges.len() + mesh.vertices.len();
        let (k, apex) = mesh
            .vertices
            .iter()
            .enumerate()
            .find(|(_, v)| v.dirs.len() == 30)
            .unwrap();
        let first = r[mesh.edges.len() + k];
        assert_eq!((first.kind, first.count), (RIDGE_VERTEX, 30));
        let second = r[first.more as usize];
        let third = r[second.more as usize];
        assert!(first.more as usize >= bodies && second.more as usize >= bodies);
        assert_eq!((second.kind, third.kind, third.more), (RIDGE_MORE, RIDGE_MORE, 0));
        let all: Vec<[f32; 3]> = [first.dirs, second.dirs, third.dirs].concat();
        assert_eq!(&all[..30], &apex.dirs[..]);
        assert_eq!(r.len(), bodies + 2);
    }
}
