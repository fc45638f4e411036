//! `hourglass plot` on a small run: four PNG plots of their stated size,
//! each series in its colour where its data lie and named in a legend, and
//! the same figures as SVG documents; a column run adds the column figure.

use std::process::Command;

use hourglass::app::plot::{BLACK, BLUE, GREEN, ORANGE, PANEL_HEIGHT, Panel, RED, Series, WIDTH, figure};
use image::RgbaImage;

/// The rows (px, from the top) of `img`'s pixels of exactly `color` in
/// column `x`, between rows `y0` and `y1`.
fn rows_of(img: &RgbaImage, color: [u8; 4], x: u32, (y0, y1): (u32, u32)) -> Vec<u32> {
    (y0..y1).filter(|&y| img.get_pixel(x, y).0 == color).collect()
}

/// Pixels of exactly `color` in the rectangle [x0, x1) x [y0, y1).
fn count_in(img: &RgbaImage, color: [u8; 4], (x0, x1): (u32, u32), (y0, y1): (u32, u32)) -> usize {
    (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| (x, y)))
        .filter(|&(x, y)| img.get_pixel(x, y).0 == color)
        .count()
}

/// A legend entry of `color` in the upper right of the panel starting at
/// row `top`: a row holding a run of at least 18 pixels of that colour (a
/// data line of 2 px crossing the region leaves shorter runs unless flat),
/// and grey text pixels just right of the run (its label).
fn has_legend_entry(img: &RgbaImage, color: [u8; 4], top: u32) -> bool {
    let (x0, y0, y1) = (WIDTH - 260, top + 8, top + 140);
    let text = |x: u32, y: u32| {
        let ys = y - 8..y + 8;
        let xs = x + 1..(x + 60).min(WIDTH);
        ys.flat_map(|y| xs.clone().map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let p = img.get_pixel(x, y).0;
                p[0] == p[1] && p[1] == p[2] && p[0] < 160
            })
            .count()
    };
    (y0..y1).any(|y| {
        let mut run = 0;
        (x0..WIDTH).any(|x| {
            run = if img.get_pixel(x, y).0 == color { run + 1 } else { 0 };
            run >= 18 && text(x, y) >= 5
        })
    })
}

#[test]
fn plot_command_writes_four_figures_as_png_and_svg() {
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
    let lab_colors: &[&[[u8; 4]]] = &[
        &[BLACK, ORANGE, BLUE, GREEN, RED],
        &[BLUE, ORANGE],
        &[GREEN],
        &[BLUE, RED],
    ];
    for (name, colors, legend) in [
        ("plot_passed", &[&[BLUE][..]][..], &["passed"][..]),
        (
            "plot_energy",
            &[&[ORANGE, BLUE][..], &[GREEN]],
            &["translational", "rotational", "potential"],
        ),
        ("plot_solver", &[&[BLUE][..], &[RED]], &["iterations", "residual"]),
        (
            "plot_lab",
            lab_colors,
            &["total", "kinetic", "elastic", "grain-grain", "grain-wall"],
        ),
    ] {
        let img = image::open(out.join(format!("{name}.png"))).unwrap().to_rgba8();
        assert_eq!(img.dimensions(), (WIDTH, PANEL_HEIGHT * colors.len() as u32), "{name}");
        let white = image::Rgba([255, 255, 255, 255]);
        let ink = img.pixels().filter(|p| **p != white).count();
        assert!(ink > 2000, "{name}: {ink} drawn pixels");
        // Each panel names each of its series in its colour.
        for (k, colors) in colors.iter().enumerate() {
            let top = k as u32 * PANEL_HEIGHT;
            for &c in colors.iter() {
                assert!(
                    has_legend_entry(&img, c, top),
                    "{name}, panel {k}: no legend entry in {c:?}"
                );
            }
        }
        let svg = std::fs::read_to_string(out.join(format!("{name}.svg"))).unwrap();
        assert!(svg.starts_with("<svg"), "{name}.svg");
        for label in legend {
            assert!(
                svg.contains(&format!("\n{label}\n</text>")),
                "{name}.svg names no `{label}`"
            );
        }
    }
}

/// Known data: a rising line, a falling one and a flat one low down. Each
/// is drawn in its colour across the plot, above or below the others where
/// the data say, and named in the legend.
#[test]
fn each_series_lies_where_its_data_put_it() {
    let xs = || (0..=20).map(|k| f64::from(k) / 2.0);
    let series = |label: &str, color, f: fn(f64) -> f64| Series {
        label: label.into(),
        color,
        points: xs().map(|x| (x, f(x))).collect(),
        wide: false,
    };
    let panel = Panel {
        title: "known lines".into(),
        x_label: "x".into(),
        y_label: "y".into(),
        series: vec![
            series("rising", BLUE, |x| x),
            series("falling", ORANGE, |x| 10.0 - x),
            series("flat", GREEN, |_| 2.5),
        ],
        log_y: false,
    };
    let img = figure(&[panel]);
    assert_eq!(img.dimensions(), (WIDTH, PANEL_HEIGHT));
    let all = (0, PANEL_HEIGHT);
    // Columns inside the plot, left of the legend.
    // (Where two lines cross, the later one hides the earlier.)
    for c in [BLUE, ORANGE, GREEN] {
        let missing: Vec<u32> = (130..640)
            .step_by(10)
            .filter(|&x| rows_of(&img, c, x, all).is_empty())
            .collect();
        assert!(missing.len() <= 1, "{c:?} missing from columns {missing:?}");
    }
    let (left, right) = (160, 620);
    let (b, o, g) = (
        rows_of(&img, BLUE, left, all),
        rows_of(&img, ORANGE, left, all),
        rows_of(&img, GREEN, left, all),
    );
    // On the left the rising line is lowest (largest row), the falling one highest.
    assert!(
        b.iter().min() > g.iter().max() && g.iter().min() > o.iter().max(),
        "{b:?} {g:?} {o:?}"
    );
    let (b, o, g) = (
        rows_of(&img, BLUE, right, all),
        rows_of(&img, ORANGE, right, all),
        rows_of(&img, GREEN, right, all),
    );
    // On the right the rising line is highest and the falling one under the flat one.
    assert!(
        b.iter().max() < g.iter().min() && g.iter().max() < o.iter().min(),
        "{b:?} {g:?} {o:?}"
    );
    // The flat line keeps its row from left to right.
    let flat = |x| rows_of(&img, GREEN, x, all);
    assert_eq!(flat(left), flat(right));
    for c in [BLUE, ORANGE, GREEN] {
        assert!(has_legend_entry(&img, c, 0), "no legend entry in {c:?}");
    }
    // Nothing of a series colour strays into the axes' margin on the left.
    for c in [BLUE, ORANGE, GREEN] {
        assert_eq!(count_in(&img, c, (0, 60), all), 0, "{c:?} left of the plot");
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
    assert_eq!(img.dimensions(), (WIDTH, PANEL_HEIGHT));
    for c in [RED, ORANGE, BLUE] {
        assert!(has_legend_entry(&img, c, 0), "column figure: no legend entry in {c:?}");
    }
    let svg = std::fs::read_to_string(col.join("plot_column.svg")).unwrap();
    assert!(svg.contains("\nfloor - 1st\n</text>"), "{svg}");
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
    assert!(!hg.join("plot_column.svg").exists(), "an hourglass is no column");
}

/// The total energy stays visible where a part equals it (a billiard's is
/// all kinetic): drawn 3 px wide under the parts, it shows in black above
/// and below the kinetic line, which shows too.
#[test]
fn total_energy_line_shows_around_an_equal_kinetic_line() {
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
