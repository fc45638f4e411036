//! Reading a result directory back (for `hourglass view`, `render`, `plot`):
//! the inverse of [`super::vtk`] and [`super::ResultDir`].
//!
//! ```text
//!   frames.pvd      <DataSet timestep="t" ... file="frames/frame_NNNNNN.vtp"/>   -> (t, path)
//!   frame_*.vtp     Points (x y 0), radius, velocity (vx vy 0), id,
//!                   angular_velocity, angle (optional: 0 when absent)         -> Grains
//!   frame_*.vtp     3D: Points (x y z), velocity, vector angular_velocity,
//!                   quaternion orientation                                    -> Grains<Dim3>
//!   walls.vtp       Points, Lines (connectivity, offsets)                     -> Walls
//!                   3D: Polys (connectivity, offsets)                         -> polygons
//!   walls.pvd       <DataSet timestep="t" ... file="walls/walls_NNNNNN.vtp"/>   -> frame k's walls
//!                   (only when the walls move; each file read as walls.vtp)
//!   diagnostics.csv header + rows (older versions: fewer columns)           -> Row
//!   scene.toml      walls.periodic_x = [xmin, xmax] (optional)                -> the period
//!                   dimension = 2 | 3 (optional, 2)                           -> the space
//! ```
//! Only what our writer produces is understood: one `<Piece>`, ASCII
//! DataArrays with the components and counts the piece announces. The XML is
//! parsed by a real parser (`output::xml`); anything else (truncated or
//! malformed XML, a non-numeric value, a count that disagrees with
//! `NumberOfPoints`, a missing array, binary or appended data) is one error
//! naming the file and what is wrong, never a panic or silently wrong data.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::diagnostics::{self, Record};
use super::xml::{self, Element, bad};
use super::{Row, Summary};
use crate::error::{Error, Result};
use crate::model::space::{Dim3, Space};
use crate::model::{Grains, Walls};

fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|source| Error::ResultIo {
        path: path.to_path_buf(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|e| {
        bad(
            path,
            format!(
                "not a text file (invalid UTF-8 at byte {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// The root `<VTKFile type="KIND">` of `path`.
fn vtk_file(path: &Path, kind: &str) -> Result<Element> {
    let root = xml::parse(path, &read_text(path)?)?;
    if root.name != "VTKFile" {
        return Err(bad(
            path,
            format!("the root element is `<{}>`, expected `<VTKFile>`", root.name),
        ));
    }
    match root.attr("type") {
        Some(t) if t == kind => Ok(root),
        Some(t) => Err(bad(path, format!("a VTKFile of type `{t}`, expected `{kind}`"))),
        None => Err(bad(path, format!("`<VTKFile>` has no type (expected `{kind}`)"))),
    }
}

/// The one child `name` of `el`.
fn only<'a>(path: &Path, el: &'a Element, name: &str) -> Result<&'a Element> {
    let mut it = el.children(name);
    match (it.next(), it.next()) {
        (Some(c), None) => Ok(c),
        (None, _) => Err(bad(
            path,
            format!("`<{}>` (line {}) has no `<{name}>`", el.name, el.line),
        )),
        (Some(_), Some(c)) => Err(bad(
            path,
            format!(
                "`<{}>` (line {}) has a second `<{name}>` (line {})",
                el.name, el.line, c.line
            ),
        )),
    }
}

/// Attribute `name` of `el`, parsed.
fn number<T: FromStr>(path: &Path, el: &Element, name: &str) -> Result<T> {
    let v = el
        .attr(name)
        .ok_or_else(|| bad(path, format!("`<{}>` (line {}) has no {name}", el.name, el.line)))?;
    v.trim().parse().map_err(|_| {
        bad(
            path,
            format!("`<{}>` (line {}): {name} `{v}` is not a valid number", el.name, el.line),
        )
    })
}

/// The one `<Piece>` of a `<VTKFile type="PolyData">`.
fn piece<'a>(path: &Path, root: &'a Element) -> Result<&'a Element> {
    only(path, only(path, root, "PolyData")?, "Piece")
}

/// The values of one ASCII DataArray: `components` per tuple and, when the
/// count is known, `tuples.0` tuples (`tuples.1` names one in errors: "point").
/// `label` names the array in errors.
fn values<T: FromStr>(
    path: &Path,
    array: &Element,
    label: &str,
    components: usize,
    tuples: Option<(usize, &str)>,
) -> Result<Vec<T>> {
    let here = format!("DataArray `{label}` (line {})", array.line);
    match array.attr("format") {
        Some("ascii") => {}
        Some(f) => {
            return Err(bad(
                path,
                format!("{here} is in `{f}` format; only ascii DataArrays are read"),
            ));
        }
        None => return Err(bad(path, format!("{here} has no format (ascii expected)"))),
    }
    let have: usize = match array.attr("NumberOfComponents") {
        None => 1,
        Some(_) => number(path, array, "NumberOfComponents")?,
    };
    if have != components {
        return Err(bad(
            path,
            format!("{here} has {have} components per point, expected {components}"),
        ));
    }
    let kind = array.attr("type").unwrap_or("number");
    let out = array
        .text
        .split_ascii_whitespace()
        .enumerate()
        .map(|(k, w)| {
            w.parse::<T>()
                .map_err(|_| bad(path, format!("{here}: value {} `{w}` is not a valid {kind}", k + 1)))
        })
        .collect::<Result<Vec<T>>>()?;
    if let Some((tuples, unit)) = tuples {
        let want = tuples.saturating_mul(components);
        if out.len() != want {
            return Err(bad(
                path,
                format!(
                    "{here} has {} values, expected {want} ({components} per {unit}, {tuples} {unit}s)",
                    out.len()
                ),
            ));
        }
    }
    Ok(out)
}

/// The DataArray named `name` among `parent`'s children (exactly one).
fn named<'a>(path: &Path, parent: &'a Element, name: &str) -> Result<&'a Element> {
    let mut it = parent.children("DataArray").filter(|a| a.attr("Name") == Some(name));
    match (it.next(), it.next()) {
        (Some(a), None) => Ok(a),
        (None, _) => Err(bad(
            path,
            format!("`<{}>` (line {}) has no DataArray `{name}`", parent.name, parent.line),
        )),
        (Some(_), Some(a)) => Err(bad(
            path,
            format!("a second DataArray `{name}` (line {}) in `<{}>`", a.line, parent.name),
        )),
    }
}

/// The DataArray named `name` among `parent`'s children, when there is one
/// (a second one is still an error).
fn named_opt<'a>(path: &Path, parent: &'a Element, name: &str) -> Result<Option<&'a Element>> {
    if parent.children("DataArray").any(|a| a.attr("Name") == Some(name)) {
        named(path, parent, name).map(Some)
    } else {
        Ok(None)
    }
}

/// The point coordinates of `piece` (x y z per point, `points` points).
fn points<T: FromStr>(path: &Path, piece: &Element, points: usize) -> Result<Vec<T>> {
    let el = only(path, piece, "Points")?;
    let array = only(path, el, "DataArray")?;
    values(path, array, "Points", 3, Some((points, "point")))
}

/// `dir` is a directory: a missing one is named as the result directory,
/// not as the first file looked for in it.
fn result_dir(dir: &Path) -> Result<()> {
    let problem = match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => return Ok(()),
        Ok(_) => "is not a directory (a result directory was expected)",
        Err(_) => "result directory does not exist",
    };
    Err(Error::ResultFile {
        path: dir.to_path_buf(),
        message: problem.to_string(),
    })
}

/// The frames of DIR/frames.pvd: (time in s, path of the .vtp), in order.
pub fn frames(dir: &Path) -> Result<Vec<(f64, PathBuf)>> {
    result_dir(dir)?;
    collection(dir, &dir.join("frames.pvd"))
}

/// The (time, path) pairs of the `.pvd` collection `path`, paths under `dir`.
fn collection(dir: &Path, path: &Path) -> Result<Vec<(f64, PathBuf)>> {
    let root = vtk_file(path, "Collection")?;
    only(path, &root, "Collection")?
        .children("DataSet")
        .map(|set| {
            let t: f64 = number(path, set, "timestep")?;
            match set.attr("file") {
                Some(f) if !f.is_empty() => Ok((t, dir.join(f))),
                _ => Err(bad(path, format!("`<DataSet>` (line {}) has no file", set.line))),
            }
        })
        .collect()
}

/// The walls of each frame of DIR/walls.pvd, written when the walls move:
/// (time in s, path of the .vtp), in frame order; `None` when the directory
/// has no walls.pvd (walls that never move: walls.vtp holds them).
pub fn wall_frames(dir: &Path) -> Result<Option<Vec<(f64, PathBuf)>>> {
    result_dir(dir)?;
    let path = dir.join(super::WALLS_PVD);
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        _ => collection(dir, &path).map(Some),
    }
}

/// The walls file of each of the first `count` frames: frame k's entry of
/// DIR/walls.pvd when it has one, else DIR/walls.vtp (every frame's, for
/// walls that never move). Read each with [`walls_file`].
pub fn frame_wall_files(dir: &Path, count: usize) -> Result<Vec<PathBuf>> {
    let listed = wall_frames(dir)?.unwrap_or_default();
    let fixed = dir.join("walls.vtp");
    Ok((0..count)
        .map(|k| listed.get(k).map_or_else(|| fixed.clone(), |(_, p)| p.clone()))
        .collect())
}

/// The box [xmin, ymin, xmax, ymax] (m) that holds the walls of every
/// file of `files` (each distinct file read once): where a view of moving
/// walls must look. None when there is no file or no wall.
pub fn walls_box(files: &[PathBuf]) -> Result<Option<[f32; 4]>> {
    let mut seen = std::collections::HashSet::new();
    let mut bb: Option<[f32; 4]> = None;
    for f in files {
        if !seen.insert(f) {
            continue;
        }
        let w = walls_file(f)?;
        if w.corners.is_empty() {
            continue;
        }
        let b = w.bounding_box();
        bb = Some(bb.map_or(b, |a| [a[0].min(b[0]), a[1].min(b[1]), a[2].max(b[2]), a[3].max(b[3])]));
    }
    Ok(bb)
}

/// The walls of frame `k` (from 0): its entry of DIR/walls.pvd when the
/// walls move and the frame has one, else DIR/walls.vtp ([`walls`]).
pub fn frame_walls(dir: &Path, k: usize) -> Result<Walls> {
    match wall_frames(dir)?.and_then(|mut listed| (k < listed.len()).then(|| listed.swap_remove(k))) {
        Some((_, path)) => walls_file(&path),
        None => walls(dir),
    }
}

/// The grains of one frame. Frames store no masses: `inv_mass` is 0.
/// `angular_velocity` and `angle` are read when present (frames written
/// before rotation have neither: 0 for every grain).
pub fn grains(path: &Path) -> Result<Grains> {
    let (root, f) = frame(path)?;
    let data = only(path, piece(path, &root)?, "PointData")?;
    let n = f.radius.len();
    let optional = |name: &str| -> Result<Vec<f32>> {
        match named_opt(path, data, name)? {
            Some(a) => values(path, a, name, 1, Some((n, "point"))),
            None => Ok(vec![0.0; n]),
        }
    };
    let ang_vel = optional("angular_velocity")?;
    let angle = optional("angle")?;
    Ok(Grains {
        pos: f.pos.chunks_exact(3).map(|p| [p[0], p[1]]).collect(),
        vel: f.vel.chunks_exact(3).map(|v| [v[0], v[1]]).collect(),
        radius: f.radius,
        inv_mass: vec![0.0; n],
        ang_vel,
        angle,
        id: f.id,
    })
}

/// The arrays every frame holds, in either space: points and velocities
/// (three numbers a point), radii and ids.
struct Frame {
    pos: Vec<f32>,
    vel: Vec<f32>,
    radius: Vec<f32>,
    id: Vec<u32>,
}

/// The frame file `path`: its root element (for the arrays of one space)
/// and the arrays every frame holds.
fn frame(path: &Path) -> Result<(Element, Frame)> {
    let root = vtk_file(path, "PolyData")?;
    let piece = piece(path, &root)?;
    let n: usize = number(path, piece, "NumberOfPoints")?;
    let pos: Vec<f32> = points(path, piece, n)?;
    let data = only(path, piece, "PointData")?;
    let radius: Vec<f32> = values(path, named(path, data, "radius")?, "radius", 1, Some((n, "point")))?;
    let vel: Vec<f32> = values(path, named(path, data, "velocity")?, "velocity", 3, Some((n, "point")))?;
    let id: Vec<u32> = values(path, named(path, data, "id")?, "id", 1, Some((n, "point")))?;
    let frame = Frame { pos, vel, radius, id };
    Ok((root, frame))
}

/// The walls of DIR/walls.vtp: the walls as built (where they stand at
/// the start); [`frame_walls`] for where they stand at a frame.
pub fn walls(dir: &Path) -> Result<Walls> {
    result_dir(dir)?;
    walls_file(&dir.join("walls.vtp"))
}

/// The walls of one walls file (walls.vtp, a frame's walls): one segment
/// per pair of consecutive points of each line cell (our writer's cells
/// are single segments), in file order.
pub fn walls_file(path: &Path) -> Result<Walls> {
    let path = path.to_path_buf();
    let root = vtk_file(&path, "PolyData")?;
    let piece = piece(&path, &root)?;
    let n: usize = number(&path, piece, "NumberOfPoints")?;
    let pts: Vec<f64> = points(&path, piece, n)?;
    let mut segments = Vec::new();
    for cell in cells(&path, piece, "Lines", "line", 2, n)? {
        let p = |i: usize| [pts[3 * i], pts[3 * i + 1]];
        segments.extend(cell.windows(2).map(|w| [p(w[0]), p(w[1])]));
    }
    Ok(Walls::new(&segments))
}

/// The cells of kind `tag` (`Lines` or `Polys`; `Number<tag>` of them) of
/// `piece`, each the point indices it joins (at least `least`, each below
/// `n`); `cell` names one in errors ("line", "polygon").
fn cells(path: &Path, piece: &Element, tag: &str, cell: &str, least: usize, n: usize) -> Result<Vec<Vec<usize>>> {
    let count: usize = number(path, piece, &format!("NumberOf{tag}"))?;
    if count == 0 {
        return Ok(Vec::new());
    }
    let el = only(path, piece, tag)?;
    let conn: Vec<usize> = values(path, named(path, el, "connectivity")?, "connectivity", 1, None)?;
    let offsets: Vec<usize> = values(path, named(path, el, "offsets")?, "offsets", 1, Some((count, cell)))?;
    let mut out = Vec::with_capacity(count);
    let mut start = 0;
    for (k, &end) in offsets.iter().enumerate() {
        if end > conn.len() {
            return Err(bad(
                path,
                format!(
                    "{cell} cell {} ends at offset {end}, but connectivity has {} values",
                    k + 1,
                    conn.len()
                ),
            ));
        }
        if end < start + least {
            return Err(bad(
                path,
                format!(
                    "{cell} cell {} has {} points (offsets {start}..{end}); a {cell} needs {least} or more",
                    k + 1,
                    end.saturating_sub(start)
                ),
            ));
        }
        let points = &conn[start..end];
        if let Some(&i) = points.iter().find(|&&i| i >= n) {
            return Err(bad(
                path,
                format!(
                    "{cell} cell {} refers to point {i}, but the piece has {n} points (numbered from 0)",
                    k + 1
                ),
            ));
        }
        out.push(points.to_vec());
        start = end;
    }
    if start != conn.len() {
        return Err(bad(
            path,
            format!("the last offset is {start} but connectivity has {} values", conn.len()),
        ));
    }
    Ok(out)
}

/// The spheres of one frame of a 3D run (`dimension = 3`): positions and
/// velocities in 3D, the vector `angular_velocity` and the quaternion
/// `orientation` when present (0 and unturned when absent). Frames store
/// no masses: `inv_mass` is 0.
pub fn spheres(path: &Path) -> Result<Grains<Dim3>> {
    let (root, f) = frame(path)?;
    let data = only(path, piece(path, &root)?, "PointData")?;
    let n = f.radius.len();
    let ang_vel: Vec<f32> = match named_opt(path, data, "angular_velocity")? {
        Some(a) => values(path, a, "angular_velocity", 3, Some((n, "point")))?,
        None => vec![0.0; 3 * n],
    };
    let angle: Vec<[f32; 4]> = match named_opt(path, data, "orientation")? {
        Some(a) => values::<f32>(path, a, "orientation", 4, Some((n, "point")))?
            .chunks_exact(4)
            .map(|q| [q[0], q[1], q[2], q[3]])
            .collect(),
        None => vec![Dim3::UNTURNED; n],
    };
    let triple = |v: &[f32]| -> Vec<[f32; 3]> { v.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect() };
    Ok(Grains {
        pos: triple(&f.pos),
        vel: triple(&f.vel),
        radius: f.radius,
        inv_mass: vec![0.0; n],
        ang_vel: triple(&ang_vel),
        angle,
        id: f.id,
    })
}

/// The polygons of the walls of a 3D run's walls file (walls.vtp: the
/// mesh triangles and the planes' polygons), each its corners in order, in
/// file order.
pub fn wall_polygons3d(path: &Path) -> Result<Vec<Vec<[f32; 3]>>> {
    let root = vtk_file(path, "PolyData")?;
    let piece = piece(path, &root)?;
    let n: usize = number(path, piece, "NumberOfPoints")?;
    let pts: Vec<f32> = points(path, piece, n)?;
    let p = |i: usize| [pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]];
    Ok(cells(path, piece, "Polys", "polygon", 3, n)?
        .into_iter()
        .map(|poly| poly.into_iter().map(p).collect())
        .collect())
}

/// The dimension of the run in `dir`: `dimension` of DIR/scene.toml (2
/// when the key or the file is absent: the plane). A value other than 2
/// or 3 is one error naming the file.
pub fn dimension(dir: &Path) -> Result<u32> {
    let Some((path, table)) = scene_table(dir)? else {
        return Ok(2);
    };
    match table.get("dimension") {
        None => Ok(2),
        Some(toml::Value::Integer(d)) if *d == 2 || *d == 3 => Ok(*d as u32),
        Some(v) => Err(bad(&path, format!("`dimension` is {v}; expected 2 or 3"))),
    }
}

/// The period [xmin, xmax] along x (m) of the run in `dir`: `walls.periodic_x`
/// of DIR/scene.toml, the scene the run wrote. `None` when the scene is not
/// periodic, and for a directory without scene.toml (written by hand or
/// by an older version): such a directory opens as before, without a
/// period. A scene.toml that is not TOML, or whose `walls.periodic_x` is not
/// two finite numbers with xmin < xmax, is one error naming the file.
pub fn period(dir: &Path) -> Result<Option<[f32; 2]>> {
    let Some((path, table)) = scene_table(dir)? else {
        return Ok(None);
    };
    let Some(walls) = table.get("walls") else {
        return Ok(None);
    };
    let Some(value) = walls.as_table().and_then(|w| w.get("periodic_x")) else {
        return Ok(None);
    };
    let number = |v: &toml::Value| match v {
        toml::Value::Float(x) => Some(*x),
        toml::Value::Integer(i) => Some(*i as f64),
        _ => None,
    };
    let pair = value
        .as_array()
        .filter(|a| a.len() == 2)
        .and_then(|a| Some([number(&a[0])? as f32, number(&a[1])? as f32]))
        .filter(|[a, b]| a.is_finite() && b.is_finite() && a < b);
    match pair {
        Some(p) => Ok(Some(p)),
        None => {
            let shown: String = value.to_string().replace('\n', " ").chars().take(60).collect();
            Err(bad(
                &path,
                format!("walls.periodic_x is `{shown}`, expected [xmin, xmax] in m (finite, xmin < xmax)"),
            ))
        }
    }
}

/// DIR/scene.toml, the scene the run wrote, as a TOML table with its path;
/// `None` for a directory without one (written by hand or by an older
/// version).
fn scene_table(dir: &Path) -> Result<Option<(PathBuf, toml::Table)>> {
    result_dir(dir)?;
    let path = dir.join("scene.toml");
    let text = match std::fs::read(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        _ => read_text(&path)?,
    };
    let table: toml::Table = toml::from_str(&text).map_err(|e| bad(&path, toml_error(&text, &e)))?;
    Ok(Some((path, table)))
}

/// One line, "line L, column C: message", from a TOML error in `text`.
fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let before = text.get(..span.start.min(text.len())).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1;
            format!("not a scene file: line {line}, column {column}: {message}")
        }
        None => format!("not a scene file: {message}"),
    }
}

/// The rows of DIR/diagnostics.csv, also of an older version's (without
/// `rotational_kinetic_energy` or without the lab's columns: read as 0; an
/// older file's `total_energy` is the sum of the parts it has) and of a
/// newer one's (the columns it appended are left out).
pub fn diagnostics(dir: &Path) -> Result<Vec<Row>> {
    result_dir(dir)?;
    let path = dir.join("diagnostics.csv");
    let text = read_text(&path)?;
    let mut reader = diagnostics::reader(text.as_bytes());
    let failed = |e: csv::Error| bad(&path, diagnostics::describe(&e));
    let header = reader.headers().map_err(failed)?;
    if !diagnostics::readable(header) {
        return Err(bad(&path, "the header is not the diagnostics header"));
    }
    reader
        .deserialize::<Record>()
        .map(|r| r.map(Row::from).map_err(failed))
        .collect()
}

/// DIR/summary.json (absent for an interrupted run).
pub fn summary(dir: &Path) -> Result<Summary> {
    result_dir(dir)?;
    let path = dir.join("summary.json");
    let text = read_text(&path)?;
    serde_json::from_str(&text).map_err(|e| bad(&path, e.to_string()))
}

/// The summaries of the finished segments of a resumed run
/// (`DIR/segments/summary_NNNNNN.json`, in order; none for a run never
/// resumed). summary.json, when present, is the segment after them.
pub fn segments(dir: &Path) -> Result<Vec<Summary>> {
    result_dir(dir)?;
    let folder = dir.join(super::SEGMENTS);
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(Error::ResultIo { path: folder, source }),
    };
    let mut found: Vec<(usize, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = format!("{}/{}", super::SEGMENTS, e.file_name().to_string_lossy());
            super::segment_index(&name).map(|k| (k, e.path()))
        })
        .collect();
    found.sort();
    found
        .into_iter()
        .map(|(_, path)| {
            let text = read_text(&path)?;
            serde_json::from_str(&text).map_err(|e| bad(&path, e.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grains_round_trip_through_vtp_with_spin_and_angle() {
        let mut g = Grains::new(
            vec![[0.5, -1.25], [3.0, 4.0]],
            vec![[1.0, 2.0], [-0.5, 0.0]],
            vec![0.25, 0.125],
            1000.0,
        );
        g.id = vec![7, 3];
        g.ang_vel = vec![-12.5, 0.75];
        g.angle = vec![std::f32::consts::FRAC_PI_2, -40.0625];
        let dir = std::env::temp_dir().join(format!("hourglass-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.vtp");
        std::fs::write(&path, super::super::vtk::grains_vtp(&g)).unwrap();
        let back = grains(&path).unwrap();
        assert_eq!(back.pos, g.pos);
        assert_eq!(back.vel, g.vel);
        assert_eq!(back.radius, g.radius);
        assert_eq!(back.id, g.id);
        assert_eq!(back.ang_vel, g.ang_vel);
        assert_eq!(back.angle, g.angle);
        std::fs::remove_dir_all(&dir).ok();
    }
}
