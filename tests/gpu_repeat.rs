//! A GPU run repeats: the binary run twice with `--backend gpu` on one scene
//! writes the same state.json and diagnostics.csv, byte for byte, for every
//! GPU solver (APGD, the default, then Jacobi, coloured, Uzawa and DEM).
//!
//! The scene is the bundled hourglass with few grains, run until grains pass
//! the neck (the test checks they did), so the runs go through settling, the
//! gate opening, reorders and a flowing discharge. What makes a GPU run
//! differ from the last is an order fixed by thread timing that reaches an
//! f32 sum: `bin_scatter` fills a cell in atomic order, and the contact lists
//! and every per-grain sum over them follow the binning; `bin_sort` puts each
//! cell back in index order. The other atomics are order-free: integer
//! counts, maxima of non-negative floats on their bits, and the coloured
//! buckets, whose order inside a colour does not matter (no two contacts of
//! a colour share a movable grain, so their updates commute exactly).

mod gpu_common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The bundled hourglass with 300 grains and solver `kind`: settle 0.03 s,
/// then 0.07 s of discharge, a row every 10 steps (grains pass the neck
/// from about 0.05 s on). The DEM takes the course's soft contacts (k_n =
/// 1e5, dt about 4e-5 s) and at most 500 relaxation steps, so its run is
/// a few thousand steps, not a hundred thousand.
fn scene(kind: &str) -> String {
    let dem = if kind == "dem" {
        "[dem]\npreset = \"course\"\nrelax_max_steps = 500\n"
    } else {
        ""
    };
    format!(
        r#"version = 1
[walls.hourglass]
fit = true
[grains]
count = 300
[solver]
kind = "{kind}"
{dem}[run]
settle = 0.03
duration = 0.07
every = 10
"#
    )
}

/// Runs `scene.toml` in `dir` on the GPU into `dir/<out>`.
fn run(dir: &Path, out: &str) -> PathBuf {
    let o = Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .current_dir(dir)
        .args(["run", "scene.toml", "--out", out, "--quiet", "--backend", "gpu"])
        .output()
        .expect("the binary starts");
    assert!(
        o.status.success(),
        "the GPU run failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    dir.join(out)
}

/// Grains passed in the last row of diagnostics.csv.
fn passed(csv: &str) -> u64 {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let col = header.iter().position(|h| *h == "passed").expect("a passed column");
    let last = lines.last().expect("a row");
    last.split(',').nth(col).unwrap().parse().unwrap()
}

#[test]
fn two_gpu_runs_write_the_same_files() {
    if gpu_common::context().is_none() {
        return;
    }
    for kind in ["apgd", "jacobi", "colored", "uzawa", "dem"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("scene.toml"), scene(kind)).unwrap();
        let (a, b) = (run(dir.path(), "a"), run(dir.path(), "b"));
        for file in ["diagnostics.csv", "state.json"] {
            let (x, y) = (
                std::fs::read(a.join(file)).unwrap(),
                std::fs::read(b.join(file)).unwrap(),
            );
            assert!(x == y, "{kind}: the two runs wrote different {file}");
        }
        let csv = std::fs::read_to_string(a.join("diagnostics.csv")).unwrap();
        let n = passed(&csv);
        println!("{kind}: identical files, {n} grains passed");
        assert!(n > 0, "{kind}: no grain passed the neck; the discharge did not start");
    }
}
