//! `hourglass plot DIR`: plots of a result directory, each as a PNG picture
//! and an SVG document of the same name, drawn by plotters ([`chart`]).
//!
//! ```text
//!   DIR/plot_passed.png   grains passed vs time, and the fitted flow-rate line
//!                         over summary.json's flow_fit_window
//!   DIR/plot_energy.png   kinetic (translational and rotational) and potential
//!                         energy vs time (two panels)
//!   DIR/plot_solver.png   mean solver iterations and residual (log) vs time
//!   DIR/plot_lab.png      the lab's figures, four panels: total energy and
//!                         its parts; momentum x and y; barycentre height;
//!                         new grain-grain and grain-wall collisions per row
//!   DIR/plot_column.png   a column of grains only: the compression of its
//!                         lowest contacts vs time
//!   DIR/plot_*.svg        the same figures as SVG
//! ```

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::output::read;
use crate::render::font::short_number;

pub mod chart;

pub use chart::{BLACK, BLUE, GREEN, ORANGE, PANEL_HEIGHT, Panel, RED, Series, WIDTH, figure, figure_sized};

/// Write the plots of `dir` (PNG and SVG) and return their paths.
pub fn plot_dir(dir: &Path) -> Result<Vec<PathBuf>> {
    let rows = read::diagnostics(dir)?;
    // An interrupted run has no summary: plot without the fit.
    let summary = read::summary(dir).ok();
    let pts = |f: &dyn Fn(&crate::output::Row) -> f64| rows.iter().map(|r| (r.time, f(r))).collect::<Vec<_>>();
    let mut passed = vec![Series {
        label: "passed".into(),
        color: BLUE,
        points: pts(&|r| r.passed as f64),
        wide: false,
    }];
    if let Some(s) = &summary
        && s.flow_rates.len() > 1
    {
        // One fitted line per discharge (the walls turned the grains back).
        let (t, p): (Vec<f64>, Vec<u64>) = rows.iter().map(|r| (r.time, r.passed)).unzip();
        for (k, fit) in crate::analysis::fit_flow_rates(&t, &p).into_iter().enumerate() {
            let Some(fit) = fit else { continue };
            let [t0, t1] = fit.window;
            let inside: Vec<_> = rows.iter().filter(|r| r.time >= t0 && r.time <= t1).collect();
            let b = inside.iter().map(|r| r.passed as f64 - fit.rate * r.time).sum::<f64>() / inside.len() as f64;
            passed.push(Series {
                label: format!("fit {} grains/s (discharge {})", short_number(fit.rate), k + 1),
                color: RED,
                points: vec![(t0, b + fit.rate * t0), (t1, b + fit.rate * t1)],
                wide: false,
            });
        }
    } else if let Some(s) = &summary
        && let (Some(rate), Some([t0, t1])) = (s.flow_rate, s.flow_fit_window)
    {
        // The fitted line through the rows of the window: intercept = mean(passed - rate t).
        let inside: Vec<_> = rows.iter().filter(|r| r.time >= t0 && r.time <= t1).collect();
        if !inside.is_empty() {
            let b = inside.iter().map(|r| r.passed as f64 - rate * r.time).sum::<f64>() / inside.len() as f64;
            passed.push(Series {
                label: format!("fit {} grains/s", short_number(rate)),
                color: RED,
                points: vec![(t0, b + rate * t0), (t1, b + rate * t1)],
                wide: false,
            });
        }
    }
    let series = |label: &str, color, f: &dyn Fn(&crate::output::Row) -> f64| Series {
        label: label.into(),
        color,
        points: pts(f),
        wide: false,
    };
    let energy = |title: &str, series: Vec<Series>| Panel {
        title: format!("{title} energy"),
        x_label: "time (s)".into(),
        y_label: "J per m thickness".into(),
        series,
        log_y: false,
    };
    let plots = [
        (
            "plot_passed",
            vec![Panel {
                title: "grains through the neck".into(),
                x_label: "time (s)".into(),
                y_label: "grains".into(),
                series: passed,
                log_y: false,
            }],
        ),
        (
            "plot_energy",
            vec![
                energy(
                    "kinetic",
                    vec![
                        series("translational", ORANGE, &|r| r.kinetic_energy),
                        series("rotational", BLUE, &|r| r.rotational_kinetic_energy),
                    ],
                ),
                energy("potential", vec![series("potential", GREEN, &|r| r.potential_energy)]),
            ],
        ),
        (
            "plot_lab",
            vec![
                energy(
                    "total",
                    vec![
                        Series {
                            wide: true,
                            ..series("total", BLACK, &|r| r.total_energy)
                        },
                        series("kinetic", ORANGE, &|r| r.kinetic_energy),
                        series("rotational", BLUE, &|r| r.rotational_kinetic_energy),
                        series("potential", GREEN, &|r| r.potential_energy),
                        series("elastic", RED, &|r| r.elastic_energy),
                    ],
                ),
                Panel {
                    title: "momentum".into(),
                    x_label: "time (s)".into(),
                    y_label: "N s per m thickness".into(),
                    series: vec![
                        series("x", BLUE, &|r| r.momentum[0]),
                        series("y", ORANGE, &|r| r.momentum[1]),
                    ],
                    log_y: false,
                },
                Panel {
                    title: "barycentre height".into(),
                    x_label: "time (s)".into(),
                    y_label: "m".into(),
                    series: vec![series("y", GREEN, &|r| r.barycentre[1])],
                    log_y: false,
                },
                Panel {
                    title: "new collisions per row".into(),
                    x_label: "time (s)".into(),
                    y_label: "collisions".into(),
                    series: vec![
                        series("grain-grain", BLUE, &|r| r.grain_collisions as f64),
                        series("grain-wall", RED, &|r| r.wall_collisions as f64),
                    ],
                    log_y: false,
                },
            ],
        ),
        (
            "plot_solver",
            vec![
                Panel {
                    title: "solver iterations".into(),
                    x_label: "time (s)".into(),
                    y_label: "mean iterations per step".into(),
                    series: vec![Series {
                        label: "iterations".into(),
                        color: BLUE,
                        points: pts(&|r| r.iterations),
                        wide: false,
                    }],
                    log_y: false,
                },
                Panel {
                    title: "residual".into(),
                    x_label: "time (s)".into(),
                    y_label: "m/s (log)".into(),
                    series: vec![Series {
                        label: "residual".into(),
                        color: RED,
                        points: pts(&|r| r.residual),
                        wide: false,
                    }],
                    log_y: true,
                },
            ],
        ),
    ];
    let column = column_panel(dir)?;
    // Written through the manifest (when the directory has one), so a later run removes them.
    let mut outputs = crate::output::Outputs::open(dir)?;
    let mut out = Vec::new();
    for (name, panels) in plots.into_iter().chain(column.map(|p| ("plot_column", vec![p]))) {
        let png_path = outputs.file(&format!("{name}.png"))?;
        let failed = |path: &Path| {
            let path = path.to_path_buf();
            move |e: chart::DrawError| Error::Output {
                path,
                source: std::io::Error::other(e.0),
            }
        };
        let png = chart::png(&panels, WIDTH, PANEL_HEIGHT).map_err(failed(&png_path))?;
        super::save_png(&png, &png_path)?;
        let svg_path = outputs.file(&format!("{name}.svg"))?;
        let svg = chart::svg(&panels, WIDTH, PANEL_HEIGHT).map_err(failed(&svg_path))?;
        crate::output::fresh::write(&svg_path, svg.as_bytes()).map_err(|source| Error::Output {
            path: svg_path.clone(),
            source,
        })?;
        out.extend([png_path, svg_path]);
    }
    Ok(out)
}

/// The lab's column figure: the compression of the lowest contacts over
/// time (floor - first grain, first - second, second - third), when every
/// frame's grains stand in one column (their centres within half a mean
/// radius of one vertical line); `None` for any other run.
fn column_panel(dir: &Path) -> Result<Option<Panel>> {
    let frames = read::frames(dir)?;
    // Each frame against its own walls (they may move).
    let Ok(wall_files) = read::frame_wall_files(dir, frames.len()) else {
        return Ok(None);
    };
    let mut walls = None;
    let mut series: Vec<Series> = ["floor - 1st", "1st - 2nd", "2nd - 3rd"]
        .iter()
        .zip([RED, ORANGE, BLUE])
        .map(|(l, c)| Series {
            label: (*l).into(),
            color: c,
            points: Vec::new(),
            wide: false,
        })
        .collect();
    for ((t, path), file) in frames.iter().zip(&wall_files) {
        let g = read::grains(path)?;
        if walls.as_ref().is_none_or(|(f, _)| *f != file) {
            let Ok(w) = read::walls_file(file) else { return Ok(None) };
            walls = Some((file, w));
        }
        let Some((_, w)) = &walls else { return Ok(None) };
        let Some(c) = column_compressions(&g, w) else {
            return Ok(None);
        };
        for (s, v) in series.iter_mut().zip(c) {
            s.points.push((*t, v));
        }
    }
    // A single grain is no column.
    if series[1].points.is_empty() {
        return Ok(None);
    }
    series.retain(|s| !s.points.is_empty());
    Ok(Some(Panel {
        title: "compression of the lowest contacts".into(),
        x_label: "time (s)".into(),
        y_label: "overlap (m)".into(),
        series,
        log_y: false,
    }))
}

/// The overlaps (m, 0 when apart) of the lowest contacts of a column of
/// grains: the lowest grain with the wall segment under it, then each of
/// the next two pairs up; `None` when the grains do not stand in one column.
pub fn column_compressions(g: &crate::model::Grains, walls: &crate::model::Walls) -> Option<Vec<f64>> {
    let n = g.len();
    if n == 0 {
        // A fed column before its first grain.
        return Some(Vec::new());
    }
    let r_mean = g.radius.iter().map(|&r| f64::from(r)).sum::<f64>() / n as f64;
    let xs = g.pos.iter().map(|p| f64::from(p[0]));
    let (lo, hi) = xs.clone().fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    if hi - lo > 0.5 * r_mean {
        return None;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| g.pos[a][1].total_cmp(&g.pos[b][1]));
    let p = |i: usize| [f64::from(g.pos[i][0]), f64::from(g.pos[i][1])];
    let r = |i: usize| f64::from(g.radius[i]);
    // The floor: the nearest segment below the lowest centre.
    let first = order[0];
    let floor = walls
        .segments
        .iter()
        .map(|s| point_segment(p(first), s))
        .fold(f64::MAX, f64::min);
    let mut out = vec![(r(first) - floor).max(0.0)];
    for w in order.windows(2).take(2) {
        let (a, b) = (p(w[0]), p(w[1]));
        let d = (a[0] - b[0]).hypot(a[1] - b[1]);
        out.push((r(w[0]) + r(w[1]) - d).max(0.0));
    }
    Some(out)
}

/// Distance from `x` to segment `s`, m.
fn point_segment(x: [f64; 2], s: &crate::model::Segment) -> f64 {
    let (a, b) = (
        [f64::from(s.a[0]), f64::from(s.a[1])],
        [f64::from(s.b[0]), f64::from(s.b[1])],
    );
    let (ab, ax) = ([b[0] - a[0], b[1] - a[1]], [x[0] - a[0], x[1] - a[1]]);
    let len2 = ab[0] * ab[0] + ab[1] * ab[1];
    let t = if len2 > 0.0 {
        ((ax[0] * ab[0] + ax[1] * ab[1]) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (x[0] - a[0] - t * ab[0]).hypot(x[1] - a[1] - t * ab[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_gives_its_lowest_overlaps_and_a_pile_none() {
        use crate::model::{Grains, Walls};
        let walls = Walls::new(&[[[-1.0, 0.0], [1.0, 0.0]]]);
        // Radius 0.3: the lowest 0.01 into the floor, the next pairs 0.02 and 0.03.
        let ys = [0.29f32, 0.29 + 0.58, 0.29 + 0.58 + 0.57, 0.29 + 0.58 + 0.57 + 0.6];
        let g = Grains::new(
            ys.iter().map(|&y| [0.0, y]).collect(),
            vec![[0.0; 2]; 4],
            vec![0.3; 4],
            1.0,
        );
        let c = column_compressions(&g, &walls).unwrap();
        for (got, want) in c.iter().zip([0.01, 0.02, 0.03]) {
            assert!((got - want).abs() < 1e-6, "{c:?}");
        }
        assert_eq!(c.len(), 3);
        let spread = Grains::new(vec![[0.0, 0.3], [0.5, 0.3]], vec![[0.0; 2]; 2], vec![0.3; 2], 1.0);
        assert_eq!(column_compressions(&spread, &walls), None);
    }
}
