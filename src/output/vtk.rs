//! ParaView-readable frames: VTK XML PolyData (`.vtp`, ASCII) for grains and
//! walls, and a `.pvd` collection that makes the frames a time series.
//! Written by hand: the format is a few lines of XML and the vtk crates
//! available do not write PolyData point sets with our fields.

use std::fmt::Write as _;
use std::path::Path;

use crate::model::walls3d::clip_polygon;
use crate::model::{Grains, Space, Walls, Walls3d};

/// Grains as points (vertices) with point data radius (m), velocity (m/s),
/// id, angular_velocity (rad/s) and, in the plane, angle (rad), both
/// counter-clockwise positive; in 3D angular_velocity is a vector and
/// `orientation` the unit quaternion (w, x, y, z). Open with the "Point
/// Gaussian" representation scaled by `radius`.
pub fn grains_vtp<S: Space>(grains: &Grains<S>) -> String {
    let n = grains.len();
    let mut s = String::with_capacity(120 + n * 90);
    s.push_str("<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n<PolyData>\n");
    let _ = writeln!(
        s,
        "<Piece NumberOfPoints=\"{n}\" NumberOfVerts=\"{n}\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">"
    );
    s.push_str("<Points>\n<DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">\n");
    for &p in &grains.pos {
        let [x, y, z] = S::xyz(p);
        let _ = writeln!(s, "{x} {y} {z}");
    }
    s.push_str("</DataArray>\n</Points>\n<PointData Scalars=\"radius\" Vectors=\"velocity\">\n");
    s.push_str("<DataArray type=\"Float32\" Name=\"radius\" format=\"ascii\">\n");
    for r in &grains.radius {
        let _ = writeln!(s, "{r}");
    }
    s.push_str(
        "</DataArray>\n<DataArray type=\"Float32\" Name=\"velocity\" NumberOfComponents=\"3\" format=\"ascii\">\n",
    );
    for &v in &grains.vel {
        let [x, y, z] = S::xyz(v);
        let _ = writeln!(s, "{x} {y} {z}");
    }
    s.push_str("</DataArray>\n<DataArray type=\"UInt32\" Name=\"id\" format=\"ascii\">\n");
    for i in &grains.id {
        let _ = writeln!(s, "{i}");
    }
    s.push_str("</DataArray>\n");
    // Angular velocity, rad/s, and angle, rad (counter-clockwise positive;
    // 0 under frictionless NSCD). Appended after `id`: the older arrays keep
    // their places, and a reader of an older frame finds neither.
    let orientation = if S::DIM == 2 { "angle" } else { "orientation" };
    values(&mut s, "angular_velocity", &grains.ang_vel, n);
    values(&mut s, orientation, &grains.angle, n);
    s.push_str("</PointData>\n");
    verts(&mut s, n);
    s.push_str("</Piece>\n</PolyData>\n</VTKFile>\n");
    s
}

/// One Float32 point array `name` of one value of type `T` per point (a
/// number, or a vector of its components), written only when it has a
/// value per point.
fn values<T: bytemuck::Pod>(s: &mut String, name: &str, values: &[T], n: usize) {
    if values.len() != n {
        return;
    }
    let parts = std::mem::size_of::<T>() / 4;
    let flat: &[f32] = bytemuck::cast_slice(values);
    if parts == 1 {
        let _ = writeln!(s, "<DataArray type=\"Float32\" Name=\"{name}\" format=\"ascii\">");
    } else {
        let _ = writeln!(
            s,
            "<DataArray type=\"Float32\" Name=\"{name}\" NumberOfComponents=\"{parts}\" format=\"ascii\">"
        );
    }
    for v in flat.chunks_exact(parts.max(1)) {
        let line: Vec<String> = v.iter().map(f32::to_string).collect();
        let _ = writeln!(s, "{}", line.join(" "));
    }
    s.push_str("</DataArray>\n");
}

fn verts(s: &mut String, n: usize) {
    s.push_str("<Verts>\n<DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n");
    for i in 0..n {
        let _ = writeln!(s, "{i}");
    }
    s.push_str("</DataArray>\n<DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n");
    for i in 1..=n {
        let _ = writeln!(s, "{i}");
    }
    s.push_str("</DataArray>\n</Verts>\n");
}

/// Walls as lines (one per segment).
pub fn walls_vtp(walls: &Walls) -> String {
    let n = walls.segments.len();
    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n<PolyData>\n");
    let _ = writeln!(
        s,
        "<Piece NumberOfPoints=\"{}\" NumberOfVerts=\"0\" NumberOfLines=\"{n}\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">",
        2 * n
    );
    s.push_str("<Points>\n<DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">\n");
    for seg in &walls.segments {
        let _ = writeln!(s, "{} {} 0\n{} {} 0", seg.a[0], seg.a[1], seg.b[0], seg.b[1]);
    }
    s.push_str("</DataArray>\n</Points>\n<Lines>\n<DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n");
    for i in 0..n {
        let _ = writeln!(s, "{} {}", 2 * i, 2 * i + 1);
    }
    s.push_str("</DataArray>\n<DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n");
    for i in 1..=n {
        let _ = writeln!(s, "{}", 2 * i);
    }
    s.push_str("</DataArray>\n</Lines>\n</Piece>\n</PolyData>\n</VTKFile>\n");
    s
}

/// Walls as ParaView polydata: walls.vtp and the walls of a frame.
pub trait WallsVtp {
    fn vtp(&self) -> String;
}

impl WallsVtp for Walls {
    fn vtp(&self) -> String {
        walls_vtp(self)
    }
}

impl WallsVtp for Walls3d {
    /// [`triangles_vtp`].
    fn vtp(&self) -> String {
        triangles_vtp(self)
    }
}

/// The polygons that draw 3D walls: each mesh triangle, and each plane (which has no
/// edges) as the part of a square centred on its point, of half-side the
/// diagonal of the box around every plane's point and triangle corner (at
/// least 1 m: the square reaches across that box from any point in it), that lies inside every other plane and, beside a mesh,
/// within that box: a box's planes are drawn as its six faces, a bin of
/// planes under a mesh no higher than the mesh. A plane with no such part
/// is drawn as the square.
pub fn wall_polygons(walls: &Walls3d) -> Vec<Vec<[f32; 3]>> {
    let mut polys: Vec<Vec<[f32; 3]>> = walls.triangles.iter().map(|t| vec![t.a, t.b, t.c]).collect();
    let points = walls
        .planes
        .iter()
        .map(|p| p.point)
        .chain(polys.iter().flatten().copied());
    let (lo, hi) = points.fold(([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]), |(lo, hi), p| {
        ([0, 1, 2].map(|k| lo[k].min(p[k])), [0, 1, 2].map(|k| hi[k].max(p[k])))
    });
    let half = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f32>().sqrt();
    let half = if half.is_finite() { half.max(1.0) } else { 1.0 };
    // With a mesh, the faces of that box, widened by a thousandth of
    // `half`, along the axes where it is not flat.
    let meshed = !walls.triangles.is_empty();
    let bounds: Vec<([f32; 3], [f32; 3])> = (0..3)
        .filter(|&k| meshed && hi[k] - lo[k] > 1e-3 * half)
        .flat_map(|k| {
            let e = |v: f32| [0, 1, 2].map(|j| if j == k { v } else { 0.0 });
            let m = 1e-3 * half;
            [(e(lo[k] - m), e(1.0)), (e(hi[k] + m), e(-1.0))]
        })
        .collect();
    for (i, p) in walls.planes.iter().enumerate() {
        // Two unit vectors across the plane.
        let n = p.normal;
        let helper = if n[0].abs() < 0.9 {
            [1.0, 0.0, 0.0]
        } else {
            [0.0, 1.0, 0.0]
        };
        let u = crate::model::space::cross(n, helper);
        let len = u.iter().map(|x| x * x).sum::<f32>().sqrt();
        let u = u.map(|x| x / len * half);
        let v = crate::model::space::cross(n, u);
        let at = |a: f32, b: f32| [0, 1, 2].map(|k| p.point[k] + a * u[k] + b * v[k]);
        let square = vec![at(-1.0, -1.0), at(1.0, -1.0), at(1.0, 1.0), at(-1.0, 1.0)];
        let others = walls.planes.iter().enumerate().filter(|&(j, _)| j != i);
        let clipped = others
            .map(|(_, q)| (q.point, q.normal))
            .chain(bounds.iter().copied())
            .fold(square.clone(), |poly, (point, normal)| {
                clip_polygon(&poly, point, normal)
            });
        polys.push(if clipped.len() >= 3 { clipped } else { square });
    }
    polys
}

/// 3D walls as polygons ([`wall_polygons`]).
pub fn triangles_vtp(walls: &Walls3d) -> String {
    let polys = wall_polygons(walls);
    let points: usize = polys.iter().map(Vec::len).sum();
    let n = polys.len();
    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n<PolyData>\n");
    let _ = writeln!(
        s,
        "<Piece NumberOfPoints=\"{points}\" NumberOfVerts=\"0\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"{n}\">"
    );
    s.push_str("<Points>\n<DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">\n");
    for c in polys.iter().flatten() {
        let _ = writeln!(s, "{} {} {}", c[0], c[1], c[2]);
    }
    s.push_str("</DataArray>\n</Points>\n<Polys>\n<DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n");
    let mut next = 0;
    for poly in &polys {
        let line: Vec<String> = (next..next + poly.len()).map(|k| k.to_string()).collect();
        let _ = writeln!(s, "{}", line.join(" "));
        next += poly.len();
    }
    s.push_str("</DataArray>\n<DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n");
    let mut end = 0;
    for poly in &polys {
        end += poly.len();
        let _ = writeln!(s, "{end}");
    }
    s.push_str("</DataArray>\n</Polys>\n</Piece>\n</PolyData>\n</VTKFile>\n");
    s
}

/// A `.pvd` collection of (time, file) pairs; file names relative to the .pvd.
pub fn pvd(frames: &[(f64, String)]) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n<Collection>\n",
    );
    for (t, f) in frames {
        let _ = writeln!(s, "<DataSet timestep=\"{t}\" group=\"\" part=\"0\" file=\"{f}\"/>");
    }
    s.push_str("</Collection>\n</VTKFile>\n");
    s
}

/// Write `text` to `path` through a temporary file and a rename, so a reader
/// never sees half a file (and never through a link: [`super::fresh`]).
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    super::fresh::write_atomic(path, text.as_bytes())
}
