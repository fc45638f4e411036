//! Wall meshes from gmsh `.msh` files: every 2-node line element (type 1) as a
//! segment, flagged when it belongs to the physical curve named `gate`
//! ([`parse_msh`], the plane's walls); or every 3-node triangle (type 2)
//! with its three coordinates, flagged when it belongs to the physical
//! surface named `gate` ([`parse_msh_surface`], walls in 3D).
//!
//! Formats read:
//! - MSH 4.1 ASCII and binary. Binary files honour the `$MeshFormat` data size
//!   (`sizeof(size_t)`, 4 or 8) and the endianness check int `1` written after
//!   it; node and element tags are `size_t`, entity tags `int`, coordinates
//!   `f64`. Node blocks may carry parametric coordinates (`entityDim` extra
//!   values per node), and node tags may be sparse.
//! - MSH 2.2 ASCII.
//!
//! Sections read: `$MeshFormat`, `$PhysicalNames` (ASCII in every format),
//! `$Entities` (4.1), `$Nodes`, `$Elements`. Any other section (`$Comments`,
//! `$Periodic`, ...) is skipped up to its `$End...` marker; elements of any
//! type but 1 and 2 are skipped.
//!
//! Which elements are the gate:
//!
//! ```text
//! 4.1: element block (entityDim 1, entityTag c) -> $Entities curve c -> physical tags p
//!      (triangles: entityDim 2, a surface s -> $Entities surface s -> p)
//! 2.2: element -> first tag p
//! gate  <=>  some p has $PhysicalNames entry (dimension 1, p, "gate")
//!            (triangles: dimension 2)
//! ```
//!
//! Errors name the file and, where there is one, the 1-based line (ASCII) or
//! byte offset (binary) of the offending token. No input panics.

mod reader;
#[cfg(test)]
mod tests;
mod v2;
mod v4;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use reader::{Binary, Endian, Reader, SizeT, show};

/// Wall lines read from a gmsh mesh, in the file's units (metres).
#[derive(Debug, Clone, PartialEq)]
pub struct MeshLines {
    /// One entry per 2-node line element: [[x0, y0], [x1, y1]] (z dropped).
    pub segments: Vec<[[f64; 2]; 2]>,
    /// Parallel to `segments`: true when the element belongs to a physical group named "gate".
    pub gate: Vec<bool>,
    /// Parallel to `segments`: the names of the physical groups of dimension
    /// 1 the element belongs to ("gate" included), in tag order.
    pub groups: Vec<Vec<String>>,
}

/// Wall triangles read from a gmsh mesh, in the file's units (metres).
#[derive(Debug, Clone, PartialEq)]
pub struct MeshSurface {
    /// One entry per 3-node triangle element: its corners [x, y, z] in node order.
    pub triangles: Vec<[[f64; 3]; 3]>,
    /// Parallel to `triangles`: true when the element belongs to a physical
    /// surface named "gate".
    pub gate: Vec<bool>,
    /// Parallel to `triangles`: the names of the physical groups of
    /// dimension 2 the element belongs to ("gate" included), in tag order.
    pub groups: Vec<Vec<String>>,
}

pub use crate::error::{Location, MeshError};

/// Largest mesh file read, bytes (64 MiB): ten times a million-line wall
/// mesh in ASCII. The read stops there, so `/dev/zero` or a wrong path to a
/// huge file is an error, not an exhausted memory.
pub const MAX_MESH_BYTES: u64 = 64 << 20;

/// Reads the wall lines of the mesh at `path` (at most [`MAX_MESH_BYTES`]).
pub fn read_msh(path: &Path) -> Result<MeshLines, MeshError> {
    parse_msh(&read_bytes(path)?, path)
}

/// Reads the wall triangles of the mesh at `path` (at most [`MAX_MESH_BYTES`]).
pub fn read_msh_surface(path: &Path) -> Result<MeshSurface, MeshError> {
    parse_msh_surface(&read_bytes(path)?, path)
}

/// The bytes of the file at `path`, at most [`MAX_MESH_BYTES`] of them.
fn read_bytes(path: &Path) -> Result<Vec<u8>, MeshError> {
    use std::io::Read;
    let io = |source| MeshError::Io {
        path: path.to_owned(),
        source,
    };
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_MESH_BYTES + 1).read_to_end(&mut bytes))
        .map_err(io)?;
    if bytes.len() as u64 > MAX_MESH_BYTES {
        return Err(MeshError::TooLarge {
            path: path.to_owned(),
            limit: MAX_MESH_BYTES,
        });
    }
    Ok(bytes)
}

/// [`read_msh`] from bytes already in memory; `path` is only used in error messages.
pub fn parse_msh(bytes: &[u8], path: &Path) -> Result<MeshLines, MeshError> {
    read_raw(bytes, path)?.resolve(path)
}

/// [`read_msh_surface`] from bytes already in memory; `path` is only used
/// in error messages.
pub fn parse_msh_surface(bytes: &[u8], path: &Path) -> Result<MeshSurface, MeshError> {
    read_raw(bytes, path)?.resolve_surface(path)
}

/// Every section the mesh's walls come from, read.
fn read_raw(bytes: &[u8], path: &Path) -> Result<RawMesh, MeshError> {
    let mut r = Reader::new(bytes, path);
    let version = read_mesh_format(&mut r)?;
    let mut mesh = RawMesh::default();
    while let Some(section) = r.next_section()? {
        match (version, section) {
            (_, "PhysicalNames") => read_physical_names(&mut r, &mut mesh)?,
            (Version::V41, "Entities") => v4::read_entities(&mut r, &mut mesh)?,
            (Version::V41, "Nodes") => v4::read_nodes(&mut r, &mut mesh)?,
            (Version::V41, "Elements") => v4::read_elements(&mut r, &mut mesh)?,
            (Version::V22, "Nodes") => v2::read_nodes(&mut r, &mut mesh)?,
            (Version::V22, "Elements") => v2::read_elements(&mut r, &mut mesh)?,
            _ => {
                r.skip_section()?;
                continue;
            }
        }
        r.end_section()?;
    }
    Ok(mesh)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Version {
    V41,
    V22,
}

/// `$MeshFormat` / `version file-type data-size` / [binary: int 1] / `$EndMeshFormat`.
fn read_mesh_format(r: &mut Reader<'_>) -> Result<Version, MeshError> {
    let header = r.try_token();
    match header {
        Some((b"$MeshFormat", _)) => {}
        Some((token, at)) => {
            let found = show(token);
            return Err(r.error(at, format!("expected `$MeshFormat`, found `{found}`")));
        }
        None => {
            let at = r.here();
            return Err(r.error(at, "empty file, expected `$MeshFormat`"));
        }
    }
    r.begin_section("MeshFormat")?;
    let (version, _) = r.token()?;
    let file_type = r.here();
    let binary = match r.ascii::<u8>("a file type (0 = ASCII, 1 = binary)")? {
        0 => false,
        1 => true,
        other => return Err(r.error(file_type, format!("unknown file type {other}"))),
    };
    let data_size_at = r.here();
    let data_size = r.ascii::<usize>("a data size")?;
    let version = match (version, binary) {
        (b"4.1", _) => Version::V41,
        (b"2.2", false) => Version::V22,
        (other, _) => {
            let kind = if binary { " binary" } else { "" };
            return Err(MeshError::UnsupportedVersion {
                path: r.path().to_owned(),
                version: format!("{}{kind}", show(other)),
            });
        }
    };
    if binary {
        let size_t = match data_size {
            4 => SizeT::Four,
            8 => SizeT::Eight,
            other => {
                let message = format!("unsupported data size {other} (need 4 or 8)");
                return Err(r.error(data_size_at, message));
            }
        };
        r.end_line()?;
        // Read the check as little-endian bytes, then settle the byte order.
        let mut format = Binary {
            endian: Endian::Little,
            size_t,
        };
        r.set_binary(format);
        let at = r.here();
        let check = r.raw::<4>()?;
        format.endian = if u32::from_le_bytes(check) == 1 {
            Endian::Little
        } else if u32::from_be_bytes(check) == 1 {
            Endian::Big
        } else {
            return Err(r.error(at, "binary endianness check is not the int 1"));
        };
        r.set_binary(format);
    }
    r.end_section()?;
    Ok(version)
}

/// `numPhysicalNames`, then `dimension tag "name"` per line (ASCII in every format).
fn read_physical_names(r: &mut Reader<'_>, mesh: &mut RawMesh) -> Result<(), MeshError> {
    let count = r.ascii::<usize>("a physical name count")?;
    for _ in 0..count {
        let dim = r.ascii::<i32>("a physical dimension")?;
        let tag = r.ascii::<i32>("a physical tag")?;
        let (name, at) = r.rest_of_line()?;
        let Some(name) = name.strip_prefix(b"\"").and_then(|n| n.strip_suffix(b"\"")) else {
            let found = show(name);
            return Err(r.error(at, format!("expected a quoted physical name, found `{found}`")));
        };
        if dim == 1 && name == b"gate" {
            mesh.gate_physicals.insert(tag);
        }
        if dim == 2 && name == b"gate" {
            mesh.surface_gate_physicals.insert(tag);
        }
        if dim == 1 {
            mesh.physical_names
                .insert(tag, String::from_utf8_lossy(name).into_owned());
        }
        if dim == 2 {
            mesh.surface_names
                .insert(tag, String::from_utf8_lossy(name).into_owned());
        }
    }
    Ok(())
}

/// What decides a line element's gate flag.
#[derive(Clone, Copy, Debug)]
enum Group {
    /// 4.1: the dim-1 entity (curve) whose element block holds the element.
    Curve(i32),
    /// 4.1: the dim-2 entity (surface) whose element block holds the element.
    Surface(i32),
    /// 2.2: the element's first tag.
    Physical(i32),
    /// No physical information (2.2 element without tags, 4.1 block of another dimension).
    None,
}

/// A line element as read, before node tags are looked up.
#[derive(Debug)]
struct RawLine {
    element: u64,
    nodes: [u64; 2],
    group: Group,
    at: Location,
}

/// A triangle element as read, before node tags are looked up.
#[derive(Debug)]
struct RawTriangle {
    element: u64,
    nodes: [u64; 3],
    group: Group,
    at: Location,
}

/// Everything the sections contribute; sections may come in any order, so
/// names, entities and nodes are only looked up once the file is read.
#[derive(Default)]
struct RawMesh {
    /// Physical tags of dimension 1 named "gate".
    gate_physicals: HashSet<i32>,
    /// Physical tags of dimension 1 -> their names.
    physical_names: HashMap<i32, String>,
    /// 4.1 `$Entities`: curve tag -> its physical tags.
    curve_physicals: HashMap<i32, Vec<i32>>,
    /// Physical tags of dimension 2 named "gate".
    surface_gate_physicals: HashSet<i32>,
    /// Physical tags of dimension 2 -> their names.
    surface_names: HashMap<i32, String>,
    /// 4.1 `$Entities`: surface tag -> its physical tags.
    surface_physicals: HashMap<i32, Vec<i32>>,
    /// Node tag -> (x, y, z); z is read as it is (the plane's walls drop it).
    nodes: HashMap<u64, [f64; 3]>,
    lines: Vec<RawLine>,
    triangles: Vec<RawTriangle>,
}

impl RawMesh {
    /// Defines node `tag` at `xy`, read at `at`; a tag defined again with
    /// other coordinates is an error (which of the two would be the wall?).
    fn add_node(&mut self, r: &Reader<'_>, tag: u64, xyz: [f64; 3], at: Location) -> Result<(), MeshError> {
        let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
        match self.nodes.insert(tag, xyz) {
            Some(old) if !(0..3).all(|k| same(old[k], xyz[k])) => {
                // The plane's meshes differ in x or y: their z is left out.
                let show = |p: [f64; 3]| match same(old[2], xyz[2]) {
                    true => format!("({}, {})", p[0], p[1]),
                    false => format!("({}, {}, {})", p[0], p[1], p[2]),
                };
                let message = format!(
                    "node {tag} is defined twice with different coordinates: {} and {}",
                    show(old),
                    show(xyz)
                );
                Err(r.error(at, message))
            }
            _ => Ok(()),
        }
    }

    /// The physical tags of an element of `group`, curves' or surfaces'.
    fn tags_of(&self, group: &Group) -> Vec<i32> {
        match *group {
            Group::Curve(curve) => self.curve_physicals.get(&curve).cloned().unwrap_or_default(),
            Group::Surface(surface) => self.surface_physicals.get(&surface).cloned().unwrap_or_default(),
            Group::Physical(p) => vec![p],
            Group::None => Vec::new(),
        }
    }

    fn resolve_surface(self, path: &Path) -> Result<MeshSurface, MeshError> {
        if self.triangles.is_empty() {
            return Err(MeshError::NoTriangles { path: path.to_owned() });
        }
        let n = self.triangles.len();
        let mut out = MeshSurface {
            triangles: Vec::with_capacity(n),
            gate: Vec::with_capacity(n),
            groups: Vec::with_capacity(n),
        };
        for t in &self.triangles {
            let mut corners = [[0.0; 3]; 3];
            for (corner, &tag) in corners.iter_mut().zip(&t.nodes) {
                let xyz = self.nodes.get(&tag).copied().ok_or_else(|| MeshError::UnknownNode {
                    path: path.to_owned(),
                    at: t.at,
                    element: t.element,
                    node: tag,
                })?;
                if !xyz[2].is_finite() {
                    return Err(MeshError::Walls {
                        path: path.to_owned(),
                        problem: format!(
                            "node {tag} of triangle element {} has a z coordinate that is not finite ({})",
                            t.element, xyz[2]
                        ),
                    });
                }
                *corner = xyz;
            }
            let tags = self.tags_of(&t.group);
            out.triangles.push(corners);
            out.gate
                .push(tags.iter().any(|p| self.surface_gate_physicals.contains(p)));
            let mut names: Vec<String> = tags.iter().filter_map(|p| self.surface_names.get(p).cloned()).collect();
            names.dedup();
            out.groups.push(names);
        }
        Ok(out)
    }

    fn resolve(self, path: &Path) -> Result<MeshLines, MeshError> {
        if self.lines.is_empty() {
            return Err(MeshError::NoLines { path: path.to_owned() });
        }
        let mut segments = Vec::with_capacity(self.lines.len());
        let mut gate = Vec::with_capacity(self.lines.len());
        let mut groups = Vec::with_capacity(self.lines.len());
        for line in &self.lines {
            let node = |tag: u64| {
                self.nodes.get(&tag).copied().ok_or_else(|| MeshError::UnknownNode {
                    path: path.to_owned(),
                    at: line.at,
                    element: line.element,
                    node: tag,
                })
            };
            let xy = |p: [f64; 3]| [p[0], p[1]];
            segments.push([xy(node(line.nodes[0])?), xy(node(line.nodes[1])?)]);
            let is_gate = |p: &i32| self.gate_physicals.contains(p);
            gate.push(match line.group {
                Group::Curve(curve) => self
                    .curve_physicals
                    .get(&curve)
                    .is_some_and(|physicals| physicals.iter().any(is_gate)),
                Group::Physical(p) => is_gate(&p),
                Group::Surface(_) | Group::None => false,
            });
            let tags = self.tags_of(&line.group);
            let mut names: Vec<String> = tags
                .iter()
                .filter_map(|t| self.physical_names.get(t).cloned())
                .collect();
            names.dedup();
            groups.push(names);
        }
        Ok(MeshLines { segments, gate, groups })
    }
}
