//! MSH 4.1 sections, ASCII and binary alike (the reader decodes each value).
//!
//! ```text
//! $Entities  numPoints numCurves numSurfaces numVolumes            (size_t)
//!            point:  tag(int) x y z(f64) numPhysicals(size_t) physical(int)...
//!            other:  tag(int) min xyz max xyz(f64) numPhysicals(size_t) physical(int)...
//!                    numBounding(size_t) boundingTag(int)...
//! $Nodes     numBlocks numNodes minTag maxTag                      (size_t)
//!            block:  entityDim entityTag parametric(int) numNodes(size_t)
//!                    nodeTag(size_t)... then per node x y z [u [v [w]]](f64)
//! $Elements  numBlocks numElements minTag maxTag                   (size_t)
//!            block:  entityDim entityTag elementType(int) numElements(size_t)
//!                    per element: tag(size_t) nodeTag(size_t)...
//! ```

use super::reader::Reader;
use super::{Group, Location, MeshError, RawLine, RawMesh, RawTriangle};

/// The 2-node line element.
const LINE: i32 = 1;
/// The 3-node triangle element.
const TRIANGLE: i32 = 2;

pub(super) fn read_entities(r: &mut Reader<'_>, mesh: &mut RawMesh) -> Result<(), MeshError> {
    let mut counts = [0; 4];
    for count in &mut counts {
        *count = r.count("an entity count")?;
    }
    for (dim, count) in counts.into_iter().enumerate() {
        for _ in 0..count {
            let tag = r.int("an entity tag")?;
            let box_values = if dim == 0 { 3 } else { 6 };
            for _ in 0..box_values {
                r.float("a bounding-box coordinate")?;
            }
            let physicals = (0..r.count("a physical tag count")?)
                .map(|_| r.int("a physical tag"))
                .collect::<Result<Vec<_>, _>>()?;
            if dim > 0 {
                for _ in 0..r.count("a bounding entity count")? {
                    r.int("a bounding entity tag")?;
                }
            }
            if dim == 1 {
                mesh.curve_physicals.insert(tag, physicals);
            } else if dim == 2 {
                mesh.surface_physicals.insert(tag, physicals);
            }
        }
    }
    Ok(())
}

pub(super) fn read_nodes(r: &mut Reader<'_>, mesh: &mut RawMesh) -> Result<(), MeshError> {
    let header = r.here();
    let blocks = r.count("a node block count")?;
    let declared = r.size("a node count")?;
    for what in ["a minimum node tag", "a maximum node tag"] {
        r.size(what)?;
    }
    let mut held = 0u64;
    let mut tags = Vec::new();
    for _ in 0..blocks {
        let at = r.here();
        let dim = r.int("an entity dimension")?;
        r.int("an entity tag")?;
        let parametric = r.int("a parametric flag")?;
        let per_node = match (dim, parametric) {
            (0..=3, 0) => 0,
            (0..=3, 1) => dim.unsigned_abs(),
            _ => {
                let message = format!("bad node block: entity dimension {dim}, parametric flag {parametric}");
                return Err(r.error(at, message));
            }
        };
        let count = r.count("a node count")?;
        held = held.saturating_add(count as u64);
        tags.clear();
        for _ in 0..count {
            tags.push(r.size("a node tag")?);
        }
        for &tag in &tags {
            let at = r.here();
            let xyz = [r.coordinate()?, r.coordinate()?, r.float("a z coordinate")?];
            for _ in 0..per_node {
                r.float("a parametric coordinate")?;
            }
            mesh.add_node(r, tag, xyz, at)?;
        }
    }
    check_total(r, header, "$Nodes", "nodes", declared, held)
}

/// The section header's total against the sum of its blocks.
fn check_total(
    r: &Reader<'_>,
    header: Location,
    section: &str,
    what: &str,
    declared: u64,
    held: u64,
) -> Result<(), MeshError> {
    if declared == held {
        return Ok(());
    }
    let message = format!("the {section} header declares {declared} {what} but its blocks hold {held}");
    Err(r.error(header, message))
}

pub(super) fn read_elements(r: &mut Reader<'_>, mesh: &mut RawMesh) -> Result<(), MeshError> {
    let header = r.here();
    let blocks = r.count("an element block count")?;
    let declared = r.size("an element count")?;
    for what in ["a minimum element tag", "a maximum element tag"] {
        r.size(what)?;
    }
    let mut held = 0u64;
    for _ in 0..blocks {
        let dim = r.int("an entity dimension")?;
        let entity = r.int("an entity tag")?;
        let type_at = r.here();
        let element_type = r.int("an element type")?;
        let count = r.count("an element count")?;
        held = held.saturating_add(count as u64);
        let group = match dim {
            1 => Group::Curve(entity),
            2 => Group::Surface(entity),
            _ => Group::None,
        };
        match nodes_per_element(element_type) {
            Some(_) if element_type == TRIANGLE => {
                for _ in 0..count {
                    let at = r.here();
                    let element = r.size("an element tag")?;
                    let nodes = [r.size("a node tag")?, r.size("a node tag")?, r.size("a node tag")?];
                    mesh.triangles.push(RawTriangle {
                        element,
                        nodes,
                        group,
                        at,
                    });
                }
            }
            Some(_) if element_type == LINE => {
                for _ in 0..count {
                    let at = r.here();
                    let element = r.size("an element tag")?;
                    let nodes = [r.size("a node tag")?, r.size("a node tag")?];
                    mesh.lines.push(RawLine {
                        element,
                        nodes,
                        group,
                        at,
                    });
                }
            }
            Some(nodes) => {
                for _ in 0..count {
                    for _ in 0..=nodes {
                        r.size("an element or node tag")?;
                    }
                }
            }
            // ASCII files hold one element per line, whatever its type.
            None if !r.is_binary() => {
                for _ in 0..count {
                    r.line()?;
                }
            }
            None => {
                let message = format!("unknown element type {element_type}: cannot skip it");
                return Err(r.error(type_at, message));
            }
        }
    }
    check_total(r, header, "$Elements", "elements", declared, held)
}

/// Nodes per element of gmsh element type `element_type` (gmsh manual, "MSH file format").
fn nodes_per_element(element_type: i32) -> Option<usize> {
    Some(match element_type {
        15 => 1,
        1 => 2,
        2 | 8 => 3,
        3 | 4 | 26 => 4,
        7 | 27 => 5,
        6 | 9 | 28 => 6,
        5 | 16 => 8,
        10 | 20 => 9,
        11 | 21 => 10,
        22 => 12,
        19 => 13,
        14 => 14,
        18 | 23 | 24 => 15,
        13 => 18,
        17 | 29 => 20,
        25 => 21,
        12 => 27,
        30 => 35,
        31 => 56,
        92 => 64,
        93 => 125,
        _ => return None,
    })
}
