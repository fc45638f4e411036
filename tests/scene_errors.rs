//! Bad input through the binary (docs/cli.md): a non-zero exit, exactly one
//! line on stderr naming the file, the field or key and the problem, no
//! panic, and no result directory.
//!
//! The scene corpus is `scenes/bad/*.toml`; each file states the error it
//! must produce in `# expect: <substring>` lines (see scenes/bad/README.md).
//! The command-line cases below run against one tiny valid scene, so only
//! validation is exercised.

use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

/// A valid scene: four grains in a 10 cm box, one step on the CPU.
const TINY: &str = r#"version = 1
[walls]
segments = [[0.0, 0.0, 0.1, 0.0], [0.1, 0.0, 0.1, 0.1], [0.1, 0.1, 0.0, 0.1], [0.0, 0.1, 0.0, 0.0]]
[grains]
count = 4
radius_std = 0.0
[run]
steps = 1
backend = "cpu"
"#;

fn crate_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The one stderr line of a rejected run.
struct Failure {
    line: String,
}

/// Run `hourglass run ARGS --out TMP/out` from the crate root and check the
/// common contract of a rejected input; returns the one stderr line.
fn reject(args: &[&str]) -> Failure {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .current_dir(crate_root())
        .arg("run")
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("the binary starts");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let what = format!("`hourglass run {}`", args.join(" "));
    assert!(
        !output.status.success(),
        "{what} should fail, but exited 0; stderr:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{what} panicked:\n{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "{what} should print exactly one line on stderr, got:\n{stderr}"
    );
    assert!(
        output.stdout.is_empty(),
        "{what} printed on stdout: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(!out.exists(), "{what} was rejected but created its result directory");
    Failure {
        line: lines[0].to_string(),
    }
}

fn assert_contains(line: &str, wanted: &[&str]) {
    for w in wanted {
        assert!(line.contains(w), "error line\n  {line}\nlacks\n  {w}");
    }
}

/// The `# expect:` substrings at the head of a corpus file.
fn expectations(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# expect:"))
        .map(|e| e.trim().to_string())
        .collect()
}

#[test]
fn every_bad_scene_gives_its_stated_error() {
    let dir = crate_root().join("scenes/bad");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the corpus has only {} files", files.len());
    for file in &files {
        let name = file.file_name().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(file).unwrap();
        let expect = expectations(&text);
        assert!(!expect.is_empty(), "{name} has no `# expect:` line");
        let rel = format!("scenes/bad/{name}");
        let f = reject(&[&rel]);
        // The scene file, or the mesh it names (resolved next to it).
        assert!(
            f.line.contains("scenes/bad/"),
            "{name}: the error does not name the file: {}",
            f.line
        );
        let wanted: Vec<&str> = expect.iter().map(String::as_str).collect();
        assert_contains(&f.line, &wanted);
        assert!(f.line.starts_with("hourglass: "), "{}", f.line);
    }
}

/// Runs `hourglass run <tiny scene> EXTRA...`.
fn reject_with_tiny(extra: &[&str]) -> Failure {
    let tmp = TempDir::new().unwrap();
    let scene = tmp.path().join("tiny.toml");
    std::fs::write(&scene, TINY).unwrap();
    let mut args = vec![scene.to_str().unwrap()];
    args.extend_from_slice(extra);
    reject(&args)
}

#[test]
fn tiny_scene_is_valid() {
    // The command-line cases below must fail because of their flag alone.
    let tmp = TempDir::new().unwrap();
    let scene = tmp.path().join("tiny.toml");
    std::fs::write(&scene, TINY).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args(["run", "--quiet", "--out"])
        .arg(tmp.path().join("out"))
        .arg(&scene)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn negative_grain_count_flag() {
    let f = reject_with_tiny(&["--grains", "-5"]);
    assert_contains(
        &f.line,
        &["command line", "`--grains`", "positive whole number", "`-5`"],
    );
}

#[test]
fn non_numeric_grain_count_flag() {
    let f = reject_with_tiny(&["--grains", "abc"]);
    assert_contains(&f.line, &["command line", "`--grains`", "`abc`"]);
}

#[test]
fn zero_grain_count_flag() {
    let f = reject_with_tiny(&["--grains", "0"]);
    assert_contains(&f.line, &["`--grains`", "`0`"]);
}

#[test]
fn unknown_solver_flag() {
    let f = reject_with_tiny(&["--solver", "foo"]);
    assert_contains(&f.line, &["'foo'", "--solver"]);
}

#[test]
fn unknown_backend_flag() {
    let f = reject_with_tiny(&["--backend", "tpu"]);
    assert_contains(&f.line, &["'tpu'", "--backend"]);
}

#[test]
fn zero_every_flag() {
    let f = reject_with_tiny(&["--every", "0"]);
    // The flag, not the scene file, is named.
    assert_contains(&f.line, &["command line", "`--every`", ">= 1"]);
}

#[test]
fn nan_duration_flag() {
    let f = reject_with_tiny(&["--duration", "nan"]);
    assert_contains(&f.line, &["command line", "`--duration`", "finite", "NaN"]);
}

#[test]
fn unknown_flag() {
    let f = reject_with_tiny(&["--grians", "5"]);
    assert_contains(&f.line, &["--grians"]);
}

#[test]
fn missing_scene_file() {
    let f = reject(&["scenes/bad/no_such_scene.toml"]);
    assert_contains(&f.line, &["scenes/bad/no_such_scene.toml", "cannot read scene file"]);
}

#[test]
fn missing_mesh_flag() {
    let f = reject_with_tiny(&["--mesh", "meshes/no_such_mesh.msh"]);
    assert_contains(&f.line, &["meshes/no_such_mesh.msh", "cannot read"]);
}

#[test]
fn truncated_mesh_flag() {
    let full = std::fs::read_to_string(crate_root().join("meshes/hourglass.msh")).unwrap();
    // Cut inside $Elements, after the header and the nodes.
    let cut = full.find("$Elements").expect("the mesh has elements") + "$Elements\n".len() + 20;
    let tmp = TempDir::new().unwrap();
    let mesh = tmp.path().join("truncated.msh");
    std::fs::write(&mesh, &full[..cut]).unwrap();
    let f = reject_with_tiny(&["--mesh", mesh.to_str().unwrap()]);
    assert_contains(
        &f.line,
        &[
            mesh.to_str().unwrap(),
            "line ",
            "file ends inside the $Elements section",
        ],
    );
}

#[test]
fn empty_mesh_flag() {
    let tmp = TempDir::new().unwrap();
    let mesh = tmp.path().join("empty.msh");
    std::fs::write(&mesh, "").unwrap();
    let f = reject_with_tiny(&["--mesh", mesh.to_str().unwrap()]);
    assert_contains(&f.line, &[mesh.to_str().unwrap(), "$MeshFormat"]);
}

#[test]
fn ks_flag_without_the_spring_solver() {
    let f = reject_with_tiny(&["--ks", "5000", "--solver", "nlgs"]);
    assert_contains(&f.line, &["command line", "`--ks`", "`nlgs`", "--solver spring"]);
    // The tiny scene leaves the solver to `auto`: --ks alone is refused too.
    let f = reject_with_tiny(&["--ks", "5000"]);
    assert_contains(&f.line, &["command line", "`--ks`", "`auto`"]);
}

/// A gmsh box `side` m wide, without a gate.
fn box_mesh(side: f64) -> String {
    format!(
        "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 {side} 0 0\n3 {side} {side} 0\n4 0 {side} 0\n$EndNodes\n\
         $Elements\n4\n1 1 2 0 1 1 2\n2 1 2 0 1 2 3\n3 1 2 0 1 3 4\n4 1 2 0 1 4 1\n$EndElements\n"
    )
}

#[test]
fn grains_flag_beyond_what_a_mesh_holds() {
    let tmp = TempDir::new().unwrap();
    let mesh = tmp.path().join("tinybox.msh");
    std::fs::write(&mesh, box_mesh(0.01)).unwrap();
    let f = reject(&["--mesh", mesh.to_str().unwrap(), "--grains", "50"]);
    assert_contains(
        &f.line,
        &[
            "command line: field `--grains`: 50 grains requested but only",
            &format!("fit in the walls of {}", mesh.display()),
        ],
    );
}

/// The advice on grains lost through the walls names the keys of the
/// solver that ran: a grain moved outside the box before the first step is
/// lost at once.
#[test]
fn lost_grains_advice_fits_the_solver() {
    use hourglass::backend::{self, Device};
    use hourglass::model::SolverKind;
    use hourglass::scene::{BackendChoice, Scene};
    for (solver, advice) in [
        (SolverKind::Nlgs, "(lower solver.dt, or raise solver.alert)"),
        (SolverKind::Jacobi, "(lower solver.dt, or raise solver.alert)"),
        (SolverKind::Dem, "(lower solver.dt, or stiffen dem.kn)"),
        (SolverKind::Spring, "(lower solver.dt, or stiffen spring.ks)"),
        (SolverKind::Impulse, "(lower solver.dt, or raise impulse.kp)"),
    ] {
        let mut scene = Scene::parse(TINY, Path::new("tiny.toml")).unwrap();
        scene.solver.kind = solver;
        scene.run.backend = BackendChoice::Cpu;
        let tmp = TempDir::new().unwrap();
        scene.run.out = tmp.path().join("out");
        let mut setup = hourglass::scene::build(&scene).unwrap();
        let grid = backend::grid_for(&setup).unwrap();
        setup.grains.pos[0] = [5.0, 5.0];
        let mut notices = Vec::new();
        let mut be = backend::select(&setup, grid, BackendChoice::Cpu, Device::Open, &mut notices).unwrap();
        let mut out = hourglass::output::ResultDir::create(&setup.scene.run.out, &setup.scene.to_toml()).unwrap();
        let e = hourglass::sim::run(&setup, be.as_mut(), &mut out, &mut hourglass::sim::Silent).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("step 0: 1 of 4 grains lost through the walls {advice}"),
            "{}",
            solver.name()
        );
    }
}
