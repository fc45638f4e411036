//! Format variants the committed meshes do not exercise (parametric and sparse
//! nodes, big-endian and 4-byte `size_t` binaries) and robustness on damaged
//! input. The contracts on the committed meshes are in `tests/mesh_reader.rs`.

use std::path::Path;

use super::{MeshError, MeshLines, MeshSurface, parse_msh, parse_msh_surface};

const COMMITTED: [(&str, &[u8]); 4] = [
    ("hourglass.msh", include_bytes!("../../../meshes/hourglass.msh")),
    (
        "hourglass_binary.msh",
        include_bytes!("../../../meshes/hourglass_binary.msh"),
    ),
    ("hourglass_v2.msh", include_bytes!("../../../meshes/hourglass_v2.msh")),
    ("silo.msh", include_bytes!("../../../meshes/silo.msh")),
];

/// Two curves: "gate" (physical 7) of two elements, "wall" (physical 9) of one;
/// nodes 100, 7 and 5000 in parametric blocks; a point element to skip.
const SMALL_ASCII: &str = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n\
$PhysicalNames\n2\n1 7 \"gate\"\n1 9 \"wall\"\n$EndPhysicalNames\n\
$Entities\n2 2 0 0\n1 0 0 0 0\n2 1 0 0 0\n\
10 0 0 0 1 0 0 1 7 2 1 -2\n11 0 0 0 1 0 0 1 9 2 2 -1\n$EndEntities\n\
$Nodes\n3 3 7 5000\n0 1 1 1\n100\n0 0 0\n0 2 1 1\n7\n1 0 0\n1 10 1 1\n5000\n0.5 0 0 0.5\n$EndNodes\n\
$Elements\n3 4 1 4\n0 1 15 1\n4 100\n1 10 1 2\n1 100 5000\n2 5000 7\n1 11 1 1\n3 7 100\n$EndElements\n";

fn small_expected() -> MeshLines {
    MeshLines {
        segments: vec![
            [[0.0, 0.0], [0.5, 0.0]],
            [[0.5, 0.0], [1.0, 0.0]],
            [[1.0, 0.0], [0.0, 0.0]],
        ],
        gate: vec![true, true, false],
        groups: vec![
            vec!["gate".to_string()],
            vec!["gate".to_string()],
            vec!["wall".to_string()],
        ],
    }
}

/// Writes MSH binary values with a chosen `size_t` width and byte order.
struct BinaryWriter {
    out: Vec<u8>,
    size_t: usize,
    big_endian: bool,
}

impl BinaryWriter {
    fn text(&mut self, text: &[u8]) {
        self.out.extend_from_slice(text);
    }

    fn value(&mut self, little_endian: &[u8]) {
        let start = self.out.len();
        self.out.extend_from_slice(little_endian);
        if self.big_endian {
            self.out[start..].reverse();
        }
    }

    fn sizes(&mut self, values: &[u64]) {
        for v in values {
            self.value(&v.to_le_bytes()[..self.size_t]);
        }
    }

    fn ints(&mut self, values: &[i32]) {
        for v in values {
            self.value(&v.to_le_bytes());
        }
    }

    fn floats(&mut self, values: &[f64]) {
        for v in values {
            self.value(&v.to_le_bytes());
        }
    }
}

/// `SMALL_ASCII` as a 4.1 binary file with the given `size_t` width and byte
/// order, plus a `$Comments` section holding binary junk.
fn small_binary(size_t: usize, big_endian: bool) -> Vec<u8> {
    let mut w = BinaryWriter {
        out: Vec::new(),
        size_t,
        big_endian,
    };
    w.text(format!("$MeshFormat\n4.1 1 {size_t}\n").as_bytes());
    w.ints(&[1]);
    w.text(b"\n$EndMeshFormat\n$Comments\n\x00\xff binary junk\n$EndComments\n");
    w.text(b"$PhysicalNames\n2\n1 7 \"gate\"\n1 9 \"wall\"\n$EndPhysicalNames\n");

    w.text(b"$Entities\n");
    w.sizes(&[2, 2, 0, 0]);
    for (tag, x) in [(1, 0.0), (2, 1.0)] {
        w.ints(&[tag]);
        w.floats(&[x, 0.0, 0.0]);
        w.sizes(&[0]);
    }
    for (tag, physical, bounds) in [(10, 7, [1, -2]), (11, 9, [2, -1])] {
        w.ints(&[tag]);
        w.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
        w.sizes(&[1]);
        w.ints(&[physical]);
        w.sizes(&[2]);
        w.ints(&bounds);
    }

    w.text(b"\n$EndEntities\n$Nodes\n");
    w.sizes(&[3, 3, 7, 5000]);
    let blocks: [(i32, i32, u64, &[f64]); 3] = [
        (0, 1, 100, &[0.0, 0.0, 0.0]),
        (0, 2, 7, &[1.0, 0.0, 0.0]),
        (1, 10, 5000, &[0.5, 0.0, 0.0, 0.5]),
    ];
    for (dim, entity, tag, coordinates) in blocks {
        w.ints(&[dim, entity, 1]);
        w.sizes(&[1, tag]);
        w.floats(coordinates);
    }

    w.text(b"\n$EndNodes\n$Elements\n");
    w.sizes(&[3, 4, 1, 4]);
    let blocks: [(i32, i32, i32, &[&[u64]]); 3] = [
        (0, 1, 15, &[&[4, 100]]),
        (1, 10, 1, &[&[1, 100, 5000], &[2, 5000, 7]]),
        (1, 11, 1, &[&[3, 7, 100]]),
    ];
    for (dim, entity, element_type, elements) in blocks {
        w.ints(&[dim, entity, element_type]);
        w.sizes(&[elements.len() as u64]);
        for element in elements {
            w.sizes(element);
        }
    }
    w.text(b"\n$EndElements\n");
    w.out
}

#[test]
fn parametric_blocks_and_sparse_tags_ascii() {
    let lines = parse_msh(SMALL_ASCII.as_bytes(), Path::new("small.msh")).unwrap();
    assert_eq!(lines, small_expected());
}

#[test]
fn binary_honours_size_t_width_and_byte_order() {
    for size_t in [4, 8] {
        for big_endian in [false, true] {
            let bytes = small_binary(size_t, big_endian);
            let lines = parse_msh(&bytes, Path::new("small_binary.msh"))
                .unwrap_or_else(|e| panic!("size_t {size_t}, big endian {big_endian}: {e}"));
            assert_eq!(lines, small_expected(), "size_t {size_t}, big {big_endian}");
        }
    }
}

#[test]
fn huge_counts_fail_without_allocating() {
    let ascii = SMALL_ASCII.replacen("3 3 7 5000", "18446744073709551615 3 7 5000", 1);
    let err = parse_msh(ascii.as_bytes(), Path::new("huge.msh")).unwrap_err();
    assert!(matches!(err, MeshError::Parse { .. }), "{err}");

    // The first block's node count: after the 4 header size_t and 3 block ints.
    let mut binary = small_binary(8, false);
    let nodes = binary.windows(7).position(|w| w == b"$Nodes\n").unwrap() + 7;
    let count = nodes + 4 * 8 + 3 * 4;
    binary[count..count + 8].fill(0xff);
    let err = parse_msh(&binary, Path::new("huge_binary.msh")).unwrap_err();
    assert!(matches!(err, MeshError::Truncated { .. }), "{err}");
}

/// splitmix64: a fixed, dependency-free stream for the byte flips.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Every prefix that stops before `$EndElements` is complete is an error,
/// and no prefix panics.
#[test]
fn truncations_never_panic() {
    let small = small_binary(4, true);
    let corpus = COMMITTED.into_iter().chain([("small_binary.msh", &small[..])]);
    for (name, bytes) in corpus {
        let end = bytes.windows(12).position(|w| w == b"$EndElements").unwrap() + 12;
        for cut in 0..=bytes.len() {
            let result = parse_msh(&bytes[..cut], Path::new(name));
            if cut < end {
                assert!(result.is_err(), "{name} cut at {cut} parsed");
            } else {
                assert!(result.is_ok(), "{name} cut at {cut}: {}", result.unwrap_err());
            }
        }
    }
}

/// Random byte replacements, biased towards bytes that change the structure
/// (digits, signs, whitespace, `$`, all-ones), return `Ok` or `Err`.
#[test]
fn byte_flips_never_panic() {
    const INTERESTING: &[u8] = b"0123456789-.e $\n\"\xff\x00";
    let mut rng = SplitMix(0x5eed);
    let small = small_binary(8, false);
    let corpus = COMMITTED.into_iter().chain([("small_binary.msh", &small[..])]);
    for (name, original) in corpus {
        for _ in 0..3000 {
            let mut bytes = original.to_vec();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len());
                bytes[at] = if rng.below(2) == 0 {
                    INTERESTING[rng.below(INTERESTING.len())]
                } else {
                    rng.next() as u8
                };
            }
            if let Ok(lines) = parse_msh(&bytes, Path::new(name)) {
                assert_eq!(lines.segments.len(), lines.gate.len());
            }
        }
    }
}

/// A tetrahedron's surface: the face opposite the origin is the physical
/// surface "gate" (1), the other three "wall" (2).
const TETRA_ASCII: &str = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n\
$PhysicalNames\n2\n2 1 \"gate\"\n2 2 \"wall\"\n$EndPhysicalNames\n\
$Entities\n0 0 2 0\n1 0 0 0 1 1 1 1 1 0\n2 0 0 0 1 1 1 1 2 0\n$EndEntities\n\
$Nodes\n1 4 1 4\n2 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n$EndNodes\n\
$Elements\n2 4 1 4\n2 1 2 1\n1 2 3 4\n2 2 2 3\n2 1 2 4\n3 1 4 3\n4 1 3 2\n$EndElements\n";

/// The same surface in MSH 2.2 (first tag: the physical surface).
const TETRA_V2: &str = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n\
$PhysicalNames\n2\n2 1 \"gate\"\n2 2 \"wall\"\n$EndPhysicalNames\n\
$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n\
$Elements\n5\n9 15 2 0 1 1\n1 2 2 1 1 2 3 4\n2 2 2 2 2 1 2 4\n3 2 2 2 2 1 4 3\n4 2 2 2 2 1 3 2\n$EndElements\n";

fn tetra_expected() -> MeshSurface {
    let p = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let gate = vec!["gate".to_string()];
    let wall = vec!["wall".to_string()];
    MeshSurface {
        triangles: vec![
            [p[1], p[2], p[3]],
            [p[0], p[1], p[3]],
            [p[0], p[3], p[2]],
            [p[0], p[2], p[1]],
        ],
        gate: vec![true, false, false, false],
        groups: vec![gate, wall.clone(), wall.clone(), wall],
    }
}

/// `TETRA_ASCII` as a 4.1 binary file.
fn tetra_binary(size_t: usize, big_endian: bool) -> Vec<u8> {
    let mut w = BinaryWriter {
        out: Vec::new(),
        size_t,
        big_endian,
    };
    w.text(format!("$MeshFormat\n4.1 1 {size_t}\n").as_bytes());
    w.ints(&[1]);
    w.text(b"\n$EndMeshFormat\n$PhysicalNames\n2\n2 1 \"gate\"\n2 2 \"wall\"\n$EndPhysicalNames\n");
    w.text(b"$Entities\n");
    w.sizes(&[0, 0, 2, 0]);
    for tag in [1, 2] {
        w.ints(&[tag]);
        w.floats(&[0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
        w.sizes(&[1]);
        w.ints(&[tag]);
        w.sizes(&[0]);
    }
    w.text(b"\n$EndEntities\n$Nodes\n");
    w.sizes(&[1, 4, 1, 4]);
    w.ints(&[2, 1, 0]);
    w.sizes(&[4, 1, 2, 3, 4]);
    w.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    w.text(b"\n$EndNodes\n$Elements\n");
    w.sizes(&[2, 4, 1, 4]);
    w.ints(&[2, 1, 2]);
    w.sizes(&[1, 1, 2, 3, 4]);
    w.ints(&[2, 2, 2]);
    w.sizes(&[3, 2, 1, 2, 4, 3, 1, 4, 3, 4, 1, 3, 2]);
    w.text(b"\n$EndElements\n");
    w.out
}

#[test]
fn triangles_and_their_gate_surface_in_every_format() {
    let ascii = parse_msh_surface(TETRA_ASCII.as_bytes(), Path::new("tetra.msh")).unwrap();
    assert_eq!(ascii, tetra_expected());
    let v2 = parse_msh_surface(TETRA_V2.as_bytes(), Path::new("tetra_v2.msh")).unwrap();
    assert_eq!(v2, tetra_expected());
    for size_t in [4, 8] {
        for big_endian in [false, true] {
            let bytes = tetra_binary(size_t, big_endian);
            let s = parse_msh_surface(&bytes, Path::new("tetra_binary.msh"))
                .unwrap_or_else(|e| panic!("size_t {size_t}, big endian {big_endian}: {e}"));
            assert_eq!(s, tetra_expected(), "size_t {size_t}, big {big_endian}");
        }
    }
    // A closed surface: every edge between two triangles.
    let walls = crate::model::Walls3d::mesh(&ascii.triangles).unwrap();
    assert_eq!(
        (walls.triangles.len(), walls.edges.len(), walls.vertices.len()),
        (4, 6, 4)
    );
    assert!(walls.edges.iter().all(|e| e.into.len() == 2));
}

#[test]
fn a_surface_read_wants_triangles_and_a_line_read_wants_lines() {
    let e = parse_msh_surface(COMMITTED[0].1, Path::new("hourglass.msh")).unwrap_err();
    assert!(matches!(e, MeshError::NoTriangles { .. }), "{e}");
    assert!(
        e.to_string().contains("hourglass.msh: no 3-node triangle elements"),
        "{e}"
    );
    let e = parse_msh(TETRA_ASCII.as_bytes(), Path::new("tetra.msh")).unwrap_err();
    assert!(matches!(e, MeshError::NoLines { .. }), "{e}");
    // A triangle naming a node that is not there names its element.
    let broken = TETRA_V2.replace("4 2 2 2 2 1 3 2", "4 2 2 2 2 1 3 9");
    let e = parse_msh_surface(broken.as_bytes(), Path::new("broken.msh")).unwrap_err();
    assert!(
        matches!(
            e,
            MeshError::UnknownNode {
                element: 4,
                node: 9,
                ..
            }
        ),
        "{e}"
    );
    // A triangle with a fourth node.
    let long = TETRA_V2.replace("4 2 2 2 2 1 3 2", "4 2 2 2 2 1 3 2 4");
    let e = parse_msh_surface(long.as_bytes(), Path::new("long.msh"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("triangle element 4 has more than 3 nodes") && e.contains("long.msh"),
        "{e}"
    );
    // A z coordinate that is not a number, where z counts.
    let nan = TETRA_V2.replace("4 0 0 1\n", "4 0 0 nan\n");
    let e = parse_msh_surface(nan.as_bytes(), Path::new("nan.msh"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("nan.msh") && e.contains("node 4") && e.contains("not finite"),
        "{e}"
    );
}
