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

#[test]
fn a_column_run_gets_the_compression_figure_and_an_hourglass_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_hourglass");
    let scene = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/column.toml");
    let col = dir.path().join("column");
    let st = Command::new(bin)
        .args(["run", scene, "--duration", "0.5", "--every", "50", "-q", "--out"])
        .arg(&col)
        .status()
        .unwrap();
    assert!(st.success());
    assert!(
        Command::new(bin)
            .args(["plot", "-q"])
            .arg(&col)
            .status()
            .unwrap()
            .success()
    );
    let img = image::open(col.join("plot_column.png")).unwrap().to_rgba8();
    assert_eq!(
        img.dimensions(),
        (hourglass::app::plot::WIDTH, hourglass::app::plot::PANEL_HEIGHT)
    );
    let hg = dir.path().join("hourglass");
    let st = Command::new(bin)
        .args([
            "run",
            "--grains",
            "60",
            "--steps",
            "10",
            "--every",
            "5",
            "--backend",
            "cpu",
            "-q",
            "--out",
        ])
        .arg(&hg)
        .status()
        .unwrap();
    assert!(st.success());
    assert!(
        Command::new(bin)
            .args(["plot", "-q"])
            .arg(&hg)
            .status()
            .unwrap()
            .success()
    );
    assert!(!hg.join("plot_column.png").exists(), "an hourglass is no column");
}

/// The total energy stays visible where a part equals it (a billiard's is
/// all kinetic): drawn 3 px wide under the parts, it shows in black above
/// and below the kinetic line, which shows too.
#[test]
fn total_energy_line_shows_around_an_equal_kinetic_line() {
    use hourglass::app::plot::{BLACK, ORANGE, PANEL_HEIGHT, Panel, Series, WIDTH, figure};
    let flat: Vec<(f64, f64)> = (0..=20).map(|k| (f64::from(k), 7.79)).collect();
    let line = |label: &str, color, wide| Series {
        label: label.into(),
        color,
        points: flat.clone(),
        wide,
    };
    let panel = Panel {
        title: "total energy".into(),
        x_label: "time (s)".into(),
        y_label: "J".into(),
        series: vec![line("total", BLACK, true), line("kinetic", ORANGE, false)],
        log_y: false,
    };
    let img = figure(&[panel]);
    assert_eq!(img.dimensions(), (WIDTH, PANEL_HEIGHT));
    let count = |c: [u8; 4]| img.pixels().filter(|p| p.0 == c).count();
    // The plot area is about 700 px wide: two black rows and one orange row
    // along it (the legend adds a few dozen of each).
    let (black, orange) = (count(BLACK), count(ORANGE));
    assert!(black > 1000, "{black} black pixels: the total is hidden");
    assert!(orange > 500, "{orange} orange pixels: the kinetic line is hidden");
}
