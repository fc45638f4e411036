//! `hourglass bench --discharge`: the table's contract (one row per
//! backend, N, solver and tolerance, the figures in their columns, nothing
//! left behind) and the overlap figures of summary.json.

use std::path::Path;
use std::process::{Command, Output};

use tempfile::TempDir;

mod gpu_common;

fn hourglass(tmp: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .current_dir(tmp)
        // The scratch result directories go under TMPDIR.
        .env("TMPDIR", tmp)
        .args(args)
        .output()
        .expect("the binary starts")
}

fn cells(line: &str) -> Vec<String> {
    line.trim()
        .trim_matches('|')
        .split('|')
        .map(|c| c.trim().to_string())
        .collect()
}

#[test]
fn discharge_table_has_one_row_per_setting_and_leaves_nothing() {
    let tmp = TempDir::new().unwrap();
    let o = hourglass(
        tmp.path(),
        &[
            "bench",
            "--discharge",
            "--backend",
            "cpu",
            "--sizes",
            "300",
            "--solver",
            "nlgs,jacobi",
            "--tol",
            "1e-5",
            "--duration",
            "0.05",
        ],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}\n{stdout}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<_> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "header, rule and two rows: {stdout}");
    let header = cells(lines[0]);
    assert_eq!(header.len(), 13, "{header:?}");
    for (line, solver) in lines[2..].iter().zip(["nlgs", "jacobi"]) {
        let row = cells(line);
        assert_eq!(row.len(), header.len(), "{line}");
        let col = |name: &str| &row[header.iter().position(|h| h.starts_with(name)).unwrap()];
        let num = |name: &str| {
            col(name)
                .parse::<f64>()
                .unwrap_or_else(|e| panic!("{name}: {e} in {line}"))
        };
        assert_eq!(col("backend"), "cpu");
        assert_eq!(col("solver"), solver);
        assert_eq!(num("tol"), 1e-5);
        assert_eq!(num("N"), 300.0);
        assert!(num("wall s") > 0.0, "{line}");
        assert!(num("mean it.") >= 1.0, "{line}");
        let (max, p99) = (num("max overlap"), num("p99 overlap"));
        // p99 is a quantile of the row samples rounded up to 0.01 % bins; the
        // largest overlap is every step's.
        assert!(p99 <= max + 0.01 && max < 100.0, "{line}");
        assert_eq!(num("lost"), 0.0, "{line}");
    }
    // The scratch result directories were removed (the binary's private
    // runtime directory, hourglass-runtime-<uid>, is not one of them).
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("hourglass-bench"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn bad_discharge_flags_are_one_line_errors() {
    let tmp = TempDir::new().unwrap();
    for (args, flag) in [
        (&["bench", "--discharge", "--tol", "0"][..], "`--tol`"),
        (&["bench", "--discharge", "--duration", "-1"][..], "`--duration`"),
        (&["bench", "--discharge", "--sizes", "0"][..], "`--sizes`"),
    ] {
        let o = hourglass(tmp.path(), args);
        assert!(!o.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(flag), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?} printed a table");
    }
}

#[test]
fn summary_gives_the_overlap_percentiles_in_the_mean_radius() {
    let tmp = TempDir::new().unwrap();
    let o = hourglass(
        tmp.path(),
        &[
            "run",
            "--grains",
            "300",
            "--backend",
            "cpu",
            "--duration",
            "0.2",
            "--out",
            "out",
            "--quiet",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(tmp.path().join("out/summary.json")).unwrap();
    let s: serde_json::Value = serde_json::from_str(&text).unwrap();
    let f = |k: &str| s[k].as_f64().unwrap_or_else(|| panic!("{k} missing: {text}"));
    // The bundled fill: radii between 1.5 and 6 mm around a 3 mm mean.
    let r = f("radius_mean");
    assert!((0.0015..=0.006).contains(&r), "{r}");
    let (p50, p99, max) = (f("overlap_p50"), f("overlap_p99"), f("max_overlap"));
    // A settled pile touches: its overlaps are counted.
    assert!(p50 > 0.0, "{text}");
    assert!(p50 <= p99, "{text}");
    assert!(p99 <= max + 1e-4 * r, "{text}");
}

/// Settle off means the DEM's relaxation phase too: a DEM row whose scene
/// would relax for 10^8 steps opens the gate at once and times only the
/// discharge it asked for (0.5 ms: about a thousand steps of 50 grains).
#[test]
fn a_dem_row_skips_the_relaxation_phase() {
    let tmp = TempDir::new().unwrap();
    let scene = tmp.path().join("dem.toml");
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/hourglass_dem.toml"))
        .unwrap()
        .replace(
            "[solver]",
            "[dem]\nrelax_max_steps = 100000000\nrelax_v_tol = 1e-9\n\n[solver]",
        );
    std::fs::write(&scene, text).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .current_dir(tmp.path())
        .env("TMPDIR", tmp.path())
        .args([
            "bench",
            "--discharge",
            "--backend",
            "cpu",
            "--solver",
            "dem",
            "--sizes",
            "50",
        ])
        .args(["--duration", "0.0005", "--scene", scene.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed().as_secs() > 120 {
            child.kill().unwrap();
            panic!("the row did not finish in 120 s: it relaxes before the gate opens");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let o = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}");
    let row = cells(stdout.lines().nth(2).unwrap());
    assert_eq!(
        (row[2].as_str(), row[3].as_str(), row[5].as_str()),
        ("dem", "-", "50"),
        "{stdout}"
    );
    assert_eq!(row[11], "0", "nothing lost: {stdout}");
}

/// A 3D scene's rows: the scene's own solver where none is asked, its
/// figures in the plane's columns; the GPU backend, which runs no NLGS in
/// 3D, ends its rows of the NLGS silo with one line saying so.
#[test]
fn a_3d_scene_gives_cpu_rows_under_its_own_solver() {
    let tmp = TempDir::new().unwrap();
    let scene = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/3d/silo.toml");
    let o = hourglass(
        tmp.path(),
        &[
            "bench",
            "--discharge",
            "--scene",
            scene,
            "--backend",
            "cpu,gpu",
            "--sizes",
            "200",
            "--duration",
            "0.01",
        ],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}\n{stdout}");
    let lines: Vec<_> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "header, rule and the CPU row: {stdout}");
    let header = cells(lines[0]);
    let row = cells(lines[2]);
    let col = |name: &str| &row[header.iter().position(|h| h.starts_with(name)).unwrap()];
    assert_eq!((col("backend").as_str(), col("solver").as_str()), ("cpu", "nlgs"));
    assert_eq!(col("N"), "200");
    assert_eq!(col("dt (s)"), "5.0e-4", "the scene's solver.dt");
    assert_eq!(col("lost"), "0");
    assert!(col("mean it.").parse::<f64>().unwrap() >= 1.0, "{stdout}");
    assert!(
        stderr.lines().count() == 1 && stderr.contains(hourglass::scene::SOLID_ON_GPU),
        "{stderr}"
    );
}

/// A 3D DEM scene's rows on both backends: the GPU's (any adapter, lavapipe
/// in CI) under the scene's solver, with nothing lost.
#[test]
fn a_3d_dem_scene_gives_rows_on_the_gpu_too() {
    rows_on_both(
        "hourglass.toml",
        &["--sizes", "300", "--duration", "0.002"],
        "dem",
        "300",
    );
}

/// The NLGS silo under `--solver jacobi`: a CPU and a GPU row.
#[test]
fn a_3d_jacobi_bench_gives_rows_on_the_gpu_too() {
    let args = ["--solver", "jacobi", "--sizes", "200", "--duration", "0.005"];
    rows_on_both("silo.toml", &args, "jacobi", "200");
}

/// `bench --discharge` of scenes/3d/`scene` with `args` on the CPU and
/// the GPU (any adapter): one row each under `solver`, `n` spheres, none lost.
fn rows_on_both(scene: &str, args: &[&str], solver: &str, n: &str) {
    if gpu_common::context().is_none() {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let scene = format!("{}/scenes/3d/{scene}", env!("CARGO_MANIFEST_DIR"));
    let mut all = vec!["bench", "--discharge", "--scene", &scene, "--backend", "cpu,gpu"];
    all.extend_from_slice(args);
    let o = hourglass(tmp.path(), &all);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}\n{stdout}");
    let lines: Vec<_> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "header, rule, a CPU and a GPU row: {stdout}\n{stderr}");
    let header = cells(lines[0]);
    for (line, backend) in [(lines[2], "cpu"), (lines[3], "gpu")] {
        let row = cells(line);
        let col = |name: &str| row[header.iter().position(|h| h.starts_with(name)).unwrap()].clone();
        assert_eq!(
            (col("backend"), col("solver")),
            (backend.to_string(), solver.to_string())
        );
        assert_eq!((col("N"), col("lost")), (n.to_string(), "0".to_string()), "{stdout}");
        assert!(col("wall s").parse::<f64>().unwrap() > 0.0, "{stdout}");
    }
}
