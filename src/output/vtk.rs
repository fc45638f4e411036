//! ParaView-readable frames: VTK XML PolyData (`.vtp`, ASCII) for grains and
//! walls, and a `.pvd` collection that makes the frames a time series.
//! Written by hand: the format is a few lines of XML and the vtk crates
//! available do not write PolyData point sets with our fields.

use std::fmt::Write as _;
use std::path::Path;

use crate::model::{Grains, Walls};

/// Grains as points (vertices) with point data radius (m), velocity (m/s),
/// id, angular_velocity (rad/s) and angle (rad), both counter-clockwise
/// positive. Open with the "Point Gaussian" representation scaled by `radius`.
pub fn grains_vtp(grains: &Grains) -> String {
    let n = grains.len();
    let mut s = String::with_capacity(120 + n * 90);
    s.push_str("<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n<PolyData>\n");
    let _ = writeln!(
        s,
        "<Piece NumberOfPoints=\"{n}\" NumberOfVerts=\"{n}\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">"
    );
    s.push_str("<Points>\n<DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">\n");
    for p in &grains.pos {
        let _ = writeln!(s, "{} {} 0", p[0], p[1]);
    }
    s.push_str("</DataArray>\n</Points>\n<PointData Scalars=\"radius\" Vectors=\"velocity\">\n");
    s.push_str("<DataArray type=\"Float32\" Name=\"radius\" format=\"ascii\">\n");
    for r in &grains.radius {
        let _ = writeln!(s, "{r}");
    }
    s.push_str(
        "</DataArray>\n<DataArray type=\"Float32\" Name=\"velocity\" NumberOfComponents=\"3\" format=\"ascii\">\n",
    );
    for v in &grains.vel {
        let _ = writeln!(s, "{} {} 0", v[0], v[1]);
    }
    s.push_str("</DataArray>\n<DataArray type=\"UInt32\" Name=\"id\" format=\"ascii\">\n");
    for i in &grains.id {
        let _ = writeln!(s, "{i}");
    }
    s.push_str("</DataArray>\n");
    // Angular velocity, rad/s, and angle, rad (counter-clockwise positive;
    // 0 under frictionless NSCD). Appended after `id`: the older arrays keep
    // their places, and a reader of an older frame finds neither.
    scalars(&mut s, "angular_velocity", &grains.ang_vel, n);
    scalars(&mut s, "angle", &grains.angle, n);
    s.push_str("</PointData>\n");
    verts(&mut s, n);
    s.push_str("</Piece>\n</PolyData>\n</VTKFile>\n");
    s
}

/// One Float32 point array `name`, written only when it has a value per point.
fn scalars(s: &mut String, name: &str, values: &[f32], n: usize) {
    if values.len() != n {
        return;
    }
    let _ = writeln!(s, "<DataArray type=\"Float32\" Name=\"{name}\" format=\"ascii\">");
    for v in values {
        let _ = writeln!(s, "{v}");
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
