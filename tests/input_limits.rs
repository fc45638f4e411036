//! Inputs that once ran without end or without bound, refused at once with
//! one error naming the file and the cause: coincident grains, a scene file
//! or mesh larger than its cap (`/dev/zero` as a mesh), and a mesh without a
//! gate group (a notice, not an error).

use std::path::Path;
use std::time::{Duration, Instant};

use hourglass::backend::{check_initial_state, first_grain_overlap, grid_for};
use hourglass::model::Grains;
use hourglass::scene::gmsh::{MAX_MESH_BYTES, read_msh};
use hourglass::scene::{GrainsSpec, MAX_SCENE_BYTES, RunSpec, Scene, WallsSpec, build};
use tempfile::TempDir;

/// A 10 cm box of four wall segments, m.
const BOX: [[f64; 4]; 4] = [
    [0.0, 0.0, 0.1, 0.0],
    [0.1, 0.0, 0.1, 0.1],
    [0.1, 0.1, 0.0, 0.1],
    [0.0, 0.1, 0.0, 0.0],
];

/// Regression: 200,000 grains at one point ran the initial-overlap check
/// past 30 s (every grain in one cell, a contact list of every other grain).
#[test]
fn coincident_grains_are_refused_at_once() {
    let scene = Scene {
        origin: "coincident.toml".to_string(),
        walls: WallsSpec {
            segments: Some(BOX.to_vec()),
            ..WallsSpec::default()
        },
        grains: GrainsSpec {
            list: Some(vec![vec![0.05, 0.05, 0.0, 0.0, 0.001]; 200_000]),
            ..GrainsSpec::default()
        },
        run: RunSpec {
            steps: Some(1),
            ..RunSpec::default()
        },
        ..Scene::default()
    };
    let start = Instant::now();
    let setup = build(&scene).unwrap();
    let grid = grid_for(&setup).unwrap();
    let message = check_initial_state(&setup, &grid).unwrap_err().to_string();
    let took = start.elapsed();
    assert_eq!(
        message,
        "coincident.toml: field `grains.list[0]`: overlaps grain 1 by 2.000e-3 m at the start"
    );
    assert!(took < Duration::from_secs(5), "took {took:?}");
}

/// The overlap pass on adversarial layouts: one grain, all in one cell,
/// a dense lattice with no overlap, and one overlap at the end of the list.
#[test]
fn first_grain_overlap_finds_the_pair_or_none() {
    let grains = |pos: Vec<[f32; 2]>, r: f32| {
        let n = pos.len();
        Grains::new(pos, vec![[0.0; 2]; n], vec![r; n], 2500.0)
    };
    assert_eq!(first_grain_overlap(&grains(vec![[0.0, 0.0]], 1.0)), None);
    // 300 x 300 touching grains (gap 0): none overlap, near-linear.
    let lattice: Vec<[f32; 2]> = (0..90_000)
        .map(|k| [(k % 300) as f32 * 2.0, (k / 300) as f32 * 2.0])
        .collect();
    let start = Instant::now();
    assert_eq!(first_grain_overlap(&grains(lattice.clone(), 1.0)), None);
    assert!(start.elapsed() < Duration::from_secs(2), "took {:?}", start.elapsed());
    // The last grain overlaps grain 5 by 0.5.
    let mut late = lattice;
    late.push([10.0 + 1.5, 0.0]);
    let (i, j, gap) = first_grain_overlap(&grains(late, 1.0)).unwrap();
    assert_eq!((i, j), (5, 90_000));
    assert!((gap + 0.5).abs() < 1e-6, "gap {gap}");
}

#[test]
fn scene_file_over_the_cap_is_refused_before_parsing() {
    let tmp = TempDir::new().unwrap();
    let path = tmp.path().join("huge.toml");
    let line = format!("# {}\n", "x".repeat(1021));
    std::fs::write(&path, line.repeat((MAX_SCENE_BYTES / 1024 + 1) as usize)).unwrap();
    let message = Scene::load(&path).unwrap_err().to_string();
    assert_eq!(
        message,
        format!(
            "{}: scene file is larger than the limit of 16 MiB for scene files",
            path.display()
        )
    );
}

/// Regression: a mesh path of `/dev/zero` read until memory ran out.
#[cfg(unix)]
#[test]
fn endless_mesh_file_is_cut_at_the_cap() {
    let start = Instant::now();
    let message = read_msh(Path::new("/dev/zero")).unwrap_err().to_string();
    assert_eq!(
        message,
        "/dev/zero: mesh file is larger than the limit of 64 MiB for mesh files"
    );
    assert_eq!(MAX_MESH_BYTES, 64 << 20);
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
}

/// Regression: a mesh without a `gate` group skipped the settle phase
/// without a word.
#[test]
fn mesh_without_gate_is_a_notice() {
    let tmp = TempDir::new().unwrap();
    let mesh = tmp.path().join("no_gate.msh");
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/bad/elements_total_mismatch.msh"))
            .unwrap()
            .replace("\n1 3 1 4\n", "\n1 4 1 4\n");
    std::fs::write(&mesh, text).unwrap();
    let mut scene = Scene::default();
    scene.walls.mesh = Some(mesh.clone());
    scene.grains.count = 4;
    scene.grains.radius_std = 0.0;
    let setup = build(&scene).unwrap();
    assert!(!setup.has_gate());
    assert_eq!(
        setup.notices,
        [format!(
            "{}: no line is in the physical group `gate`, so there is no settle phase: the grains fall from where they are placed",
            mesh.display()
        )]
    );
}

/// Regression: `[[emitters]] count = 1000000000` drew every grain up front
/// (7.9 GB after a minute, then an allocation abort). Refused at once,
/// before a grain is drawn, naming the emitter.
#[test]
fn emitter_count_beyond_the_build_is_refused_before_drawing() {
    let text = "version = 1\n[walls]\nsegments = [[0.0, 0.0, 0.1, 0.0], [0.1, 0.0, 0.1, 0.1], [0.1, 0.1, 0.0, 0.1], [0.0, 0.1, 0.0, 0.0]]\n\
                [grains]\ncount = 5\nradius_std = 0.0\n\
                [[emitters]]\nposition = [0.05, 0.05]\nradius = 0.003\ninterval = 0.01\ncount = 10\n\
                [[emitters]]\nposition = [0.05, 0.05]\nradius = 0.003\ninterval = 0.01\ncount = 1000000000\n\
                [run]\nsteps = 2\nbackend = \"cpu\"\n";
    let scene = Scene::parse(text, Path::new("emitters.toml")).unwrap();
    let start = Instant::now();
    let message = build(&scene).unwrap_err().to_string();
    assert_eq!(
        message,
        "emitters.toml: field `emitters[1].count`: 1000000015 grains (1000000000 emitted here, 15 before) is more than this build handles (20000000)"
    );
    assert!(start.elapsed() < Duration::from_secs(2), "took {:?}", start.elapsed());
}

/// `bench --sizes` beyond what the build handles: one line naming the flag,
/// before the table's header.
#[test]
fn bench_sizes_beyond_the_build_are_refused() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args(["bench", "--backend", "cpu", "--sizes", "100,1000000000"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert_eq!(
        stderr.trim_end(),
        "hourglass: command line: field `--sizes`: 1000000000 grains is more than this build handles (20000000)"
    );
    assert!(output.stdout.is_empty(), "{}", String::from_utf8_lossy(&output.stdout));
}

/// Every length of a scene is bounded: a list radius of 3.4e38 m reached
/// the contact grid as an infinite cell ("grid: field `cell`").
#[test]
fn huge_lengths_name_their_key() {
    let with = |extra: &str| {
        let text = format!(
            "version = 1\n[walls]\nsegments = [[0.0, 0.0, 0.1, 0.0], [0.1, 0.0, 0.1, 0.1], [0.1, 0.1, 0.0, 0.1], [0.0, 0.1, 0.0, 0.0]]\n{extra}"
        );
        let scene = Scene::parse(&text, Path::new("long.toml")).unwrap();
        build(&scene)
            .and_then(|s| hourglass::backend::grid_for(&s).map(|_| ()))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        with("[grains]\nlist = [[0.05, 0.05, 0.0, 0.0, 3.4e38]]\n"),
        "long.toml: field `grains.list[0]`: 3.4e38 m is beyond 1e9 m, the largest coordinate or radius a scene may use (its square or the contact grid would overflow): check the units"
    );
    assert!(
        with(
            "[grains]\ncount = 0\n[[emitters]]\nposition = [0.05, 0.05]\nradius = 3.4e38\ninterval = 0.01\ncount = 1\n"
        )
        .starts_with("long.toml: field `emitters[0].radius`: 3.4e38 m is beyond 1e9 m")
    );
    // Within the bound but far outside the walls: the grid names the grain.
    assert_eq!(
        with("[grains]\nlist = [[0.05, 0.05, 0.0, 0.0, 0.003], [1e8, 0.05, 0.0, 0.0, 0.003]]\n"),
        "long.toml: field `grains.list[1]`: grains outside the walls stretch the contact grid to 1.000e8 x 1.000e-1 m, more than 268435456 cells: place them inside the walls"
    );
}
