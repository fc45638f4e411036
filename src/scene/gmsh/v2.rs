//! MSH 2.2 ASCII sections.
//!
//! ```text
//! $Nodes     numNodes, then per line: tag x y z
//! $Elements  numElements, then per line: tag type numTags tag... nodeTag...
//!            (first tag = physical tag)
//! ```

use std::str::FromStr;

use super::reader::{Reader, show};
use super::{Group, Location, MeshError, RawLine, RawMesh, RawTriangle};

/// The 2-node line element.
const LINE: i64 = 1;
/// The 3-node triangle element.
const TRIANGLE: i64 = 2;

pub(super) fn read_nodes(r: &mut Reader<'_>, mesh: &mut RawMesh) -> Result<(), MeshError> {
    let count = r.ascii::<usize>("a node count")?;
    for _ in 0..count {
        let at = r.here();
        let tag = r.ascii::<u64>("a node tag")?;
        let xyz = [r.coordinate()?, r.coordinate()?, r.float("a z coordinate")?];
        mesh.add_node(r, tag, xyz, at)?;
    }
    Ok(())
}

/// One element per line, so that types of unknown size are skipped whole.
pub(super) fn read_elements(r: &mut Reader<'_>, mesh: &mut RawMesh) -> Result<(), MeshError> {
    let count = r.ascii::<usize>("an element count")?;
    for _ in 0..count {
        let (line, at) = r.line()?;
        let mut fields = line.split(u8::is_ascii_whitespace).filter(|field| !field.is_empty());
        let element = field::<u64>(r, at, fields.next(), "an element tag")?;
        let mut next = |what: &str| field::<i64>(r, at, fields.next(), what);
        let kind = next("an element type")?;
        if kind != LINE && kind != TRIANGLE {
            continue;
        }
        let tags = next("a tag count")?;
        let mut group = Group::None;
        for i in 0..tags {
            let tag = next("a tag")?;
            if i == 0 {
                let physical =
                    i32::try_from(tag).map_err(|_| r.error(at, format!("physical tag {tag} is out of range")))?;
                group = Group::Physical(physical);
            }
        }
        let (name, count) = if kind == LINE { ("line", 2) } else { ("triangle", 3) };
        let mut nodes = [0u64; 3];
        for node in &mut nodes[..count] {
            *node = field::<u64>(r, at, fields.next(), "a node tag")?;
        }
        if let Some(extra) = fields.next() {
            let message = format!(
                "{name} element {element} has more than {count} nodes (extra `{}`)",
                show(extra)
            );
            return Err(r.error(at, message));
        }
        if kind == LINE {
            mesh.lines.push(RawLine {
                element,
                nodes: [nodes[0], nodes[1]],
                group,
                at,
            });
        } else {
            mesh.triangles.push(RawTriangle {
                element,
                nodes,
                group,
                at,
            });
        }
    }
    Ok(())
}

/// One whitespace-separated field of an element line, parsed as `T`.
fn field<T: FromStr>(r: &Reader<'_>, at: Location, field: Option<&[u8]>, what: &str) -> Result<T, MeshError> {
    let Some(field) = field else {
        return Err(r.error(at, format!("expected {what}, found the end of the line")));
    };
    std::str::from_utf8(field)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| r.error(at, format!("expected {what}, found `{}`", show(field))))
}
