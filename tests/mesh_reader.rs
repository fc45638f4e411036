//! Contracts of the gmsh reader on the committed meshes (`meshes/`) and on
//! damaged or unsupported input.

use std::path::{Path, PathBuf};

use hourglass::scene::gmsh::{Location, MeshError, MeshLines, parse_msh, read_msh};

/// Hourglass outline from `meshes/hourglass.geo`, a closed loop (m).
const HOURGLASS_OUTLINE: [[f64; 2]; 10] = [
    [-0.012, 0.0],
    [-0.15, 0.170416],
    [-0.15, 0.40],
    [0.15, 0.40],
    [0.15, 0.170416],
    [0.012, 0.0],
    [0.15, -0.170416],
    [0.15, -0.40],
    [-0.15, -0.40],
    [-0.15, -0.170416],
];

fn mesh_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes").join(name)
}

fn read(name: &str) -> MeshLines {
    let path = mesh_path(name);
    read_msh(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn text(name: &str) -> String {
    std::fs::read_to_string(mesh_path(name)).expect("committed mesh")
}

fn length([a, b]: &[[f64; 2]; 2]) -> f64 {
    (b[0] - a[0]).hypot(b[1] - a[1])
}

fn close(a: [f64; 2], b: [f64; 2]) -> bool {
    (a[0] - b[0]).abs() <= 1e-12 && (a[1] - b[1]).abs() <= 1e-12
}

/// Same segment, either orientation, endpoints within 1e-12.
fn same_segment(a: &[[f64; 2]; 2], b: &[[f64; 2]; 2]) -> bool {
    (close(a[0], b[0]) && close(a[1], b[1])) || (close(a[0], b[1]) && close(a[1], b[0]))
}

/// `a` and `b` hold the same set of unordered segments with the same gate flags.
fn assert_same_lines(a: &MeshLines, b: &MeshLines) {
    assert_eq!(a.segments.len(), b.segments.len());
    assert_eq!(b.segments.len(), b.gate.len());
    let mut used = vec![false; b.segments.len()];
    for (segment, gate) in a.segments.iter().zip(&a.gate) {
        let matched = (0..b.segments.len())
            .find(|&j| !used[j] && same_segment(segment, &b.segments[j]))
            .unwrap_or_else(|| panic!("segment {segment:?} has no match"));
        used[matched] = true;
        assert_eq!(*gate, b.gate[matched], "gate flag of {segment:?}");
    }
}

/// The gate segments, joined left to right into one polyline along y = 0.
fn gate_chain(mesh: &MeshLines) -> Vec<[f64; 2]> {
    let mut gates: Vec<[[f64; 2]; 2]> = mesh
        .segments
        .iter()
        .zip(&mesh.gate)
        .filter(|(_, gate)| **gate)
        .map(|(&[a, b], _)| if a[0] <= b[0] { [a, b] } else { [b, a] })
        .collect();
    gates.sort_by(|a, b| a[0][0].total_cmp(&b[0][0]));
    let mut chain = vec![gates[0][0]];
    for [a, b] in gates {
        assert_eq!(*chain.last().unwrap(), a, "gate segments are not contiguous");
        chain.push(b);
    }
    chain
}

fn wall_length(mesh: &MeshLines) -> f64 {
    let walls = mesh.segments.iter().zip(&mesh.gate);
    walls.filter(|(_, gate)| !**gate).map(|(s, _)| length(s)).sum()
}

#[test]
fn hourglass_formats_agree() {
    let ascii = read("hourglass.msh");
    assert_same_lines(&ascii, &read("hourglass_binary.msh"));
    assert_same_lines(&ascii, &read("hourglass_v2.msh"));
    // lc = 0.05 splits the long walls: more elements than outline edges.
    assert!(ascii.segments.len() > 2 * HOURGLASS_OUTLINE.len());
}

#[test]
fn hourglass_gate_closes_the_neck() {
    for name in ["hourglass.msh", "hourglass_binary.msh", "hourglass_v2.msh"] {
        let chain = gate_chain(&read(name));
        assert!(chain.iter().all(|p| p[1] == 0.0), "{name}: gate off y = 0");
        assert_eq!(chain.first(), Some(&[-0.012, 0.0]), "{name}");
        assert_eq!(chain.last(), Some(&[0.012, 0.0]), "{name}");
    }
}

#[test]
fn hourglass_wall_length_matches_outline() {
    let outline: f64 = (0..HOURGLASS_OUTLINE.len())
        .map(|i| {
            let next = HOURGLASS_OUTLINE[(i + 1) % HOURGLASS_OUTLINE.len()];
            length(&[HOURGLASS_OUTLINE[i], next])
        })
        .sum();
    for name in ["hourglass.msh", "hourglass_binary.msh", "hourglass_v2.msh"] {
        let walls = wall_length(&read(name));
        assert!((walls - outline).abs() < 1e-9, "{name}: {walls} vs {outline}");
    }
}

#[test]
fn silo_gate_is_the_outlet() {
    let silo = read("silo.msh");
    assert_eq!(gate_chain(&silo), [[-0.015, 0.0], [0.015, 0.0]]);
    // Outer rectangle 0.2 x 0.7 plus the floor either side of the outlet.
    let analytic = 2.0 * (0.2 + 0.7) + 2.0 * (0.1 - 0.015);
    let walls = wall_length(&silo);
    assert!((walls - analytic).abs() < 1e-9, "{walls} vs {analytic}");
}

#[test]
fn silo_floor_shares_corner_nodes_with_the_sides() {
    let silo = read("silo.msh");
    for corner in [[-0.1, 0.0], [0.1, 0.0]] {
        let meeting = silo.segments.iter().flatten().filter(|&&p| p == corner);
        // Side above, side below and floor end on the same node.
        assert_eq!(meeting.count(), 3, "corner {corner:?}");
    }
}

#[test]
fn unknown_sections_are_skipped() {
    let original = text("hourglass.msh");
    let commented = original.replacen(
        "$EndMeshFormat\n",
        "$EndMeshFormat\n$Comments\nnot a $Nodes section\n$EndComments\n",
        1,
    ) + "$Periodic\n0\n$EndPeriodic\n";
    let lines = parse_msh(commented.as_bytes(), Path::new("commented.msh")).unwrap();
    assert_eq!(lines, read("hourglass.msh"));
}

#[test]
fn truncated_nodes_name_the_file_and_section() {
    let bytes = text("hourglass.msh").into_bytes();
    let cut = middle_of_nodes(&bytes);
    let err = parse_msh(&bytes[..cut], Path::new("cut.msh")).unwrap_err();
    let MeshError::Truncated { section, at, .. } = &err else {
        panic!("expected Truncated, got {err}");
    };
    assert_eq!(section, "Nodes");
    let last_line = bytes[..cut].iter().filter(|&&b| b == b'\n').count() + 1;
    assert_eq!(*at, Location::Line(last_line));
    assert_eq!(
        err.to_string(),
        format!("cut.msh, line {last_line}: file ends inside the $Nodes section")
    );
}

#[test]
fn truncated_binary_nodes_report_the_byte_offset() {
    let bytes = std::fs::read(mesh_path("hourglass_binary.msh")).unwrap();
    let cut = middle_of_nodes(&bytes);
    let err = parse_msh(&bytes[..cut], Path::new("cut_binary.msh")).unwrap_err();
    let MeshError::Truncated { section, at, .. } = &err else {
        panic!("expected Truncated, got {err}");
    };
    assert_eq!(section, "Nodes");
    // The read that failed is one value (at most 8 bytes) straddling the cut.
    let Location::Byte(offset) = *at else {
        panic!("binary errors give byte offsets, got {at}");
    };
    assert!(offset <= cut && offset + 8 > cut, "offset {offset}, cut {cut}");
    assert!(err.to_string().starts_with("cut_binary.msh, byte "), "{err}");
}

fn middle_of_nodes(bytes: &[u8]) -> usize {
    let find = |marker: &[u8]| bytes.windows(marker.len()).position(|w| w == marker).unwrap();
    (find(b"$Nodes") + find(b"$EndNodes")) / 2
}

#[test]
fn mesh_without_line_elements_is_rejected() {
    // One point element and one triangle, no 2-node lines.
    let mesh = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n\
        $Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 1 0\n$EndNodes\n\
        $Elements\n2 2 1 2\n0 1 15 1\n1 1\n2 1 2 1\n2 1 2 3\n$EndElements\n";
    let mut file = tempfile::Builder::new()
        .prefix("no_lines")
        .suffix(".msh")
        .tempfile()
        .unwrap();
    std::io::Write::write_all(&mut file, mesh.as_bytes()).unwrap();
    let err = read_msh(file.path()).unwrap_err();
    assert!(matches!(err, MeshError::NoLines { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        format!("{}: no 2-node line elements (type 1)", file.path().display())
    );
}

#[test]
fn version_3_is_unsupported() {
    let mesh = b"$MeshFormat\n3.0 0 8\n$EndMeshFormat\n";
    let err = parse_msh(mesh, Path::new("mesh.msh")).unwrap_err();
    assert!(matches!(err, MeshError::UnsupportedVersion { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "mesh.msh: unsupported MSH version 3.0 (supported: 4.1 ASCII/binary, 2.2 ASCII)"
    );
}

#[test]
fn binary_version_2_is_unsupported() {
    let mesh = b"$MeshFormat\n2.2 1 8\n\x01\x00\x00\x00\n$EndMeshFormat\n";
    let err = parse_msh(mesh, Path::new("v2_binary.msh")).unwrap_err();
    let MeshError::UnsupportedVersion { version, .. } = &err else {
        panic!("expected UnsupportedVersion, got {err}");
    };
    assert_eq!(version, "2.2 binary");
}

#[test]
fn bad_number_reports_its_line() {
    let good = "-0.06719999999985936 0.06816639999982634 0";
    let original = text("hourglass.msh");
    let line = 1 + original.lines().position(|l| l == good).unwrap();
    let bad = original.replacen(good, "-0.0671999999998x5936 0.06816639999982634 0", 1);
    let err = parse_msh(bad.as_bytes(), Path::new("bad.msh")).unwrap_err();
    assert!(
        matches!(err, MeshError::Parse { at: Location::Line(l), .. } if l == line),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        format!("bad.msh, line {line}: expected a coordinate, found `-0.0671999999998x5936`")
    );
}

#[test]
fn bad_number_in_v2_element_reports_its_line() {
    let original = text("hourglass_v2.msh");
    let line = 1 + original.lines().position(|l| l == "53 1 2 2 11 1 6").unwrap();
    let bad = original.replacen("53 1 2 2 11 1 6", "53 1 2 2 11 1 six", 1);
    let err = parse_msh(bad.as_bytes(), Path::new("bad_v2.msh")).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("bad_v2.msh, line {line}: expected a node tag, found `six`")
    );
}

#[test]
fn element_on_undefined_node_is_rejected() {
    let original = text("hourglass.msh");
    let line = 1 + original.lines().position(|l| l == "53 1 6 ").unwrap();
    let bad = original.replacen("53 1 6 ", "53 1 999 ", 1);
    let err = parse_msh(bad.as_bytes(), Path::new("dangling.msh")).unwrap_err();
    let MeshError::UnknownNode { at, element, node, .. } = &err else {
        panic!("expected UnknownNode, got {err}");
    };
    assert_eq!((*at, *element, *node), (Location::Line(line), 53, 999));
    assert!(err.to_string().starts_with("dangling.msh, line "), "{err}");
}

#[test]
fn missing_file_is_an_io_error() {
    let path = mesh_path("no_such_mesh.msh");
    let err = read_msh(&path).unwrap_err();
    assert!(matches!(err, MeshError::Io { .. }), "{err}");
    assert!(err.to_string().contains("no_such_mesh.msh"), "{err}");
}

/// The corpus `meshes/bad/`: each `NAME.msh` is refused with an error that
/// names the file and contains every line of `NAME.expected`.
#[test]
fn every_bad_mesh_gives_its_stated_error() {
    let dir = mesh_path("bad");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "msh"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "the corpus has only {} files", files.len());
    for file in &files {
        let name = file.file_name().unwrap().to_str().unwrap();
        let expected = std::fs::read_to_string(file.with_extension("expected"))
            .unwrap_or_else(|e| panic!("{name} has no .expected sidecar: {e}"));
        let message = match read_msh(file) {
            Ok(_) => panic!("{name} was read without an error"),
            Err(e) => e.to_string(),
        };
        assert!(
            message.contains(file.to_str().unwrap()),
            "{name}: the error does not name the file: {message}"
        );
        for wanted in expected.lines().filter(|l| !l.trim().is_empty()) {
            assert!(
                message.contains(wanted),
                "{name}: error\n  {message}\nlacks\n  {wanted}"
            );
        }
    }
}
