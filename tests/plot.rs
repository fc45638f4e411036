//! `hourglass plot` on a small run: four PNG plots of their stated size, not blank.

use std::process::Command;

#[test]
fn plot_command_writes_four_non_blank_pngs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let bin = env!("CARGO_BIN_EXE_hourglass");
    let st = Command::new(bin)
        .args([
            "run",
            "--grains",
            "60",
            "--steps",
            "30",
            "--every",
            "5",
            "--backend",
            "cpu",
            "-q",
            "--out",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    let st = Command::new(bin).args(["plot", "-q"]).arg(&out).status().unwrap();
    assert!(st.success());
    for (name, panels) in [
        ("plot_passed.png", 1),
        ("plot_energy.png", 2),
        ("plot_solver.png", 2),
        ("plot_lab.png", 4),
    ] {
        let img = image::open(out.join(name)).unwrap().to_rgba8();
        assert_eq!(
            img.dimensions(),
            (hourglass::app::plot::WIDTH, hourglass::app::plot::PANEL_HEIGHT * panels),
            "{name}"
        );
        let white = image::Rgba([255, 255, 255, 255]);
        let ink = img.pixels().filter(|p| **p != white).count();
        assert!(ink > 2000, "{name}: {ink} drawn pixels");
        // A data line in a series colour, not only axes and text.
        let coloured = img.pixels().filter(|p| p[0] != p[1] || p[1] != p[2]).count();
        assert!(coloured > 200, "{name}: {coloured} coloured pixels");
    }
}

#[test]
fn plot_of_a_missing_directory_fails_in_one_line() {
    let out = Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args(["plot", "/nonexistent/hourglass-run"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("/nonexistent/hourglass-run: result directory does not exist"),
        "{err}"
    );
}
