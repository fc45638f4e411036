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

use crate::error::{Error, Result};
use crate::model::space::{Dim2, Dim3, Space};
use crate::model::{Walls, Walls3d};

/// `Segment::kind` of a plane and of a triangle (shaders/space/solid.wgsl).
pub const FACE_PLANE: u32 = 0;
pub const FACE_TRIANGLE: u32 = 1;
/// `Corner::kind` of an edge and of a vertex.
pub const RIDGE_EDGE: u32 = 0;
pub const RIDGE_VERTEX: u32 = 1;
/// Directions a 3D corner holds: an edge's into its faces, a vertex's along
/// its edges. A mesh with a vertex of more edges (or an edge of more faces)
/// has no GPU walls ([`ridges`]).
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
    pub pad: u32,
    pub n: [f32; 3],
    pub pad2: u32,
}

/// An edge or a vertex as the GPU reads it (`Corner` of shaders/space/solid.wgsl).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct Ridge {
    pub a: [f32; 3],
    /// [`RIDGE_EDGE`] or [`RIDGE_VERTEX`].
    pub kind: u32,
    /// An edge's second end; a vertex's position again.
    pub b: [f32; 3],
    /// Directions used of `dirs`.
    pub count: u32,
    /// `Edge::into` or `Vertex::dirs`, zeros past `count`.
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
        n: t.normal,
        ..Face::default()
    });
    planes.chain(triangles).collect()
}

/// The edges, then the vertices, of `walls`; refused (naming the body) when
/// one has more than [`SOLID_DIRS`] directions.
pub fn ridges(walls: &Walls3d) -> Result<Vec<Ridge>> {
    let ridge = |what: &str, k: usize, kind: u32, a: [f32; 3], b: [f32; 3], dirs: &[[f32; 3]]| {
        if dirs.len() > SOLID_DIRS as usize {
            return Err(Error::Gpu(format!(
                "wall {what} {k} meets {} faces or edges; the GPU's walls hold at most {SOLID_DIRS}",
                dirs.len()
            )));
        }
        let mut r = Ridge {
            a,
            kind,
            b,
            count: dirs.len() as u32,
            ..Ridge::default()
        };
        r.dirs[..dirs.len()].copy_from_slice(dirs);
        Ok(r)
    };
    let edges = walls
        .edges
        .iter()
        .enumerate()
        .map(|(k, e)| ridge("edge", k, RIDGE_EDGE, e.a, e.b, &e.into));
    let vertices = walls
        .vertices
        .iter()
        .enumerate()
        .map(|(k, v)| ridge("vertex", k, RIDGE_VERTEX, v.pos, v.pos, &v.dirs));
    edges.chain(vertices).collect()
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

    /// The walls' segments and corners as the stages read them; refused
    /// where the GPU cannot hold a body.
    fn wall_bodies(walls: &Self::Walls) -> Result<Bodies<Self>>;

    /// The velocities of the walls' segments and corners.
    fn wall_velocities(walls: &Self::Walls) -> (Vec<Self::FaceVel>, Vec<Self::RidgeVel>);
}

impl GpuSpace for Dim2 {
    type Face = crate::model::Segment;
    type Ridge = crate::model::Corner;
    type FaceVel = [[f32; 2]; 2];
    type RidgeVel = [f32; 2];

    fn wall_bodies(walls: &Walls) -> Result<Bodies<Dim2>> {
        Ok((walls.segments.clone(), walls.corners.clone()))
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
}

impl GpuSpace for Dim3 {
    type Face = Face;
    type Ridge = Ridge;
    type FaceVel = [f32; 3];
    type RidgeVel = [f32; 3];

    fn wall_bodies(walls: &Walls3d) -> Result<Bodies<Dim3>> {
        Ok((faces(walls), ridges(walls)?))
    }

    /// Zeros: the walls of 3D stand still.
    fn wall_velocities(walls: &Walls3d) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
        (vec![[0.0; 3]; walls.faces()], vec![[0.0; 3]; walls.corners()])
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
        let r = ridges(&mesh).unwrap();
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
}
