//! `hourglass plot DIR`: PNG plots of a result directory, drawn with a tiny
//! rasteriser and the bitmap font of [`crate::render::font`] (no system fonts).
//!
//! ```text
//!   DIR/plot_passed.png   grains passed vs time, and the fitted flow-rate line
//!                         over summary.json's flow_fit_window
//!   DIR/plot_energy.png   kinetic (translational and rotational) and potential
//!                         energy vs time (two panels)
//!   DIR/plot_solver.png   mean solver iterations and residual (log) vs time
//!   DIR/plot_lab.png      the lab's figures (DESIGN §1c), four panels: total
//!                         energy and its parts; momentum x and y; barycentre
//!                         height; new grain-grain and grain-wall collisions
//!                         per row
//! ```

use std::path::{Path, PathBuf};

use image::{Rgba, RgbaImage};

use crate::error::Result;
use crate::output::read;
use crate::render::font::{GLYPH, draw_text, short_number, text_width};

/// Picture size of one plot, px.
pub const WIDTH: u32 = 800;
pub const PANEL_HEIGHT: u32 = 360;

const BG: [u8; 4] = [255, 255, 255, 255];
const AXIS: [u8; 4] = [40, 40, 40, 255];
const GRID: [u8; 4] = [228, 228, 228, 255];
/// The total energy's line (darker than the axes and text).
pub const BLACK: [u8; 4] = [0, 0, 0, 255];
pub const BLUE: [u8; 4] = [31, 119, 180, 255];
pub const ORANGE: [u8; 4] = [255, 127, 14, 255];
pub const GREEN: [u8; 4] = [44, 160, 44, 255];
pub const RED: [u8; 4] = [214, 39, 40, 255];

/// One line of a panel.
#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub color: [u8; 4],
    pub points: Vec<(f64, f64)>,
    /// Drawn 3 px wide, under the series after it: a sum whose part may
    /// equal it (the total energy of a billiard is all kinetic) stays visible
    /// around the part.
    pub wide: bool,
}

/// One set of axes.
#[derive(Debug, Clone)]
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Logarithmic y axis (non-positive values are left out).
    pub log_y: bool,
}

/// Tick positions covering [lo, hi]: steps of 1, 2 or 5 x 10^k, about five of them.
pub fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return vec![lo];
    }
    let raw = (hi - lo) / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    out
}

fn line(img: &mut RgbaImage, a: (f64, f64), b: (f64, f64), color: [u8; 4], clip: [i64; 4]) {
    let steps = ((b.0 - a.0).abs().max((b.1 - a.1).abs()).ceil() as usize).clamp(1, 100_000);
    for k in 0..=steps {
        let t = k as f64 / steps as f64;
        let x = (a.0 + (b.0 - a.0) * t).round() as i64;
        let y = (a.1 + (b.1 - a.1) * t).round() as i64;
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let (px, py) = (x + dx, y + dy);
            if px >= clip[0] && px <= clip[2] && py >= clip[1] && py <= clip[3] {
                img.put_pixel(px as u32, py as u32, Rgba(color));
            }
        }
    }
}

fn rect(img: &mut RgbaImage, x0: i64, y0: i64, x1: i64, y1: i64, color: [u8; 4]) {
    for y in y0.max(0)..=y1.min(img.height() as i64 - 1) {
        for x in x0.max(0)..=x1.min(img.width() as i64 - 1) {
            img.put_pixel(x as u32, y as u32, Rgba(color));
        }
    }
}

/// Draw `panel` into the box [x0, y0, x0 + w, y0 + h] of `img`.
fn draw_panel(img: &mut RgbaImage, panel: &Panel, x0: u32, y0: u32, w: u32, h: u32) {
    let (left, right, top, bottom) = (84i64, 24i64, 50i64, 46i64);
    let (px0, py0) = (x0 as i64 + left, y0 as i64 + top);
    let (px1, py1) = (x0 as i64 + w as i64 - right, y0 as i64 + h as i64 - bottom);
    let fy = |v: f64| if panel.log_y { v.log10() } else { v };
    let pts = || {
        panel
            .series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|p| p.0.is_finite() && p.1.is_finite() && (!panel.log_y || p.1 > 0.0))
    };
    let (mut xl, mut xh, mut yl, mut yh) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in pts() {
        xl = xl.min(x);
        xh = xh.max(x);
        yl = yl.min(fy(y));
        yh = yh.max(fy(y));
    }
    if !xl.is_finite() {
        (xl, xh, yl, yh) = (0.0, 1.0, 0.0, 1.0);
    }
    if xh <= xl {
        xh = xl + 1.0;
    }
    if yh <= yl {
        let pad = if yl == 0.0 { 1.0 } else { 0.1 * yl.abs() };
        (yl, yh) = (yl - pad, yh + pad);
    } else {
        let pad = 0.05 * (yh - yl);
        (yl, yh) = (yl - pad, yh + pad);
    }
    let sx = |x: f64| px0 as f64 + (x - xl) / (xh - xl) * (px1 - px0) as f64;
    let sy = |y: f64| py1 as f64 - (y - yl) / (yh - yl) * (py1 - py0) as f64;
    let x_ticks = ticks(xl, xh);
    let y_ticks: Vec<f64> = if panel.log_y {
        // Decades, and 2 and 5 between them when the axis spans fewer than three.
        let marks: &[f64] = if yh - yl < 3.0 { &[1.0, 2.0, 5.0] } else { &[1.0] };
        (yl.floor() as i64..=yh.ceil() as i64)
            .flat_map(|e| marks.iter().map(move |m| (m * 10f64.powi(e as i32)).log10()))
            .filter(|t| *t >= yl && *t <= yh)
            .collect()
    } else {
        ticks(yl, yh)
    };
    for &t in &x_ticks {
        let x = sx(t).round() as i64;
        rect(img, x, py0, x, py1, GRID);
        rect(img, x, py1, x, py1 + 4, AXIS);
        let s = short_number(t);
        draw_text(
            img,
            x as i32 - text_width(&s, 1) as i32 / 2,
            py1 as i32 + 8,
            &s,
            AXIS,
            1,
        );
    }
    for &t in &y_ticks {
        let y = sy(t).round() as i64;
        rect(img, px0, y, px1, y, GRID);
        rect(img, px0 - 4, y, px0, y, AXIS);
        let s = if panel.log_y {
            format!("{:.0e}", 10f64.powf(t))
        } else {
            short_number(t)
        };
        draw_text(
            img,
            px0 as i32 - 8 - text_width(&s, 1) as i32,
            y as i32 - GLYPH as i32 / 2,
            &s,
            AXIS,
            1,
        );
    }
    rect(img, px0, py1, px1, py1, AXIS);
    rect(img, px0, py0, px0, py1, AXIS);
    draw_text(img, px0 as i32, y0 as i32 + 6, &panel.title, AXIS, 2);
    let xl_w = text_width(&panel.x_label, 1) as i32;
    draw_text(
        img,
        ((px0 + px1) / 2) as i32 - xl_w / 2,
        py1 as i32 + 24,
        &panel.x_label,
        AXIS,
        1,
    );
    // The y label sits above the axis (no rotated text in a bitmap font).
    draw_text(img, x0 as i32 + 6, py0 as i32 - 12, &panel.y_label, AXIS, 1);
    let clip = [px0, py0, px1, py1];
    let mut legend_y = py0 as i32 + 6;
    for s in &panel.series {
        let mut prev: Option<(f64, f64)> = None;
        for &(x, y) in &s.points {
            if !(x.is_finite() && y.is_finite()) || (panel.log_y && y <= 0.0) {
                prev = None;
                continue;
            }
            let p = (sx(x), sy(fy(y)));
            let offsets: &[f64] = if s.wide { &[-1.0, 0.0, 1.0] } else { &[0.0] };
            for &d in offsets {
                let (p, q) = ((p.0, p.1 + d), prev.map(|q: (f64, f64)| (q.0, q.1 + d)));
                if let Some(q) = q {
                    line(img, q, p, s.color, clip);
                } else if s.points.len() == 1 {
                    line(img, p, p, s.color, clip);
                }
            }
            prev = Some(p);
        }
        let lw = text_width(&s.label, 1) as i32;
        let lx = px1 as i32 - lw - 8;
        rect(
            img,
            i64::from(lx - 22),
            i64::from(legend_y + 3),
            i64::from(lx - 6),
            i64::from(legend_y + 4),
            s.color,
        );
        draw_text(img, lx, legend_y, &s.label, s.color, 1);
        legend_y += 14;
    }
}

/// Panels stacked top to bottom, `WIDTH` x `PANEL_HEIGHT` each.
pub fn figure(panels: &[Panel]) -> RgbaImage {
    figure_sized(panels, WIDTH, PANEL_HEIGHT)
}

/// Panels stacked top to bottom, `width` x `panel_height` px each (a picture
/// of `width` x `panel_height` times the panel count).
pub fn figure_sized(panels: &[Panel], width: u32, panel_height: u32) -> RgbaImage {
    let mut img = RgbaImage::from_pixel(width, panel_height * panels.len().max(1) as u32, Rgba(BG));
    for (k, p) in panels.iter().enumerate() {
        draw_panel(&mut img, p, 0, k as u32 * panel_height, width, panel_height);
    }
    img
}

/// Write the four plots of `dir` and return their paths.
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
            "plot_passed.png",
            vec![Panel {
                title: "grains through the neck".into(),
                x_label: "time (s)".into(),
                y_label: "grains".into(),
                series: passed,
                log_y: false,
            }],
        ),
        (
            "plot_energy.png",
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
            "plot_lab.png",
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
            "plot_solver.png",
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
    for (name, panels) in plots.into_iter().chain(column.map(|p| ("plot_column.png", vec![p]))) {
        let path = outputs.file(name)?;
        super::save_png(&figure(&panels), &path)?;
        out.push(path);
    }
    Ok(out)
}

/// The lab's column figure: the compression of the lowest contacts over
/// time (floor - first grain, first - second, second - third), when every
/// frame's grains stand in one column (their centres within half a mean
/// radius of one vertical line); `None` for any other run.
fn column_panel(dir: &Path) -> Result<Option<Panel>> {
    let frames = read::frames(dir)?;
    let Ok(walls) = read::walls(dir) else { return Ok(None) };
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
    for (t, path) in &frames {
        let g = read::grains(path)?;
        let Some(c) = column_compressions(&g, &walls) else {
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

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        let t = ticks(0.0, 1.0);
        assert_eq!(t.len(), 6);
        assert!(t.iter().enumerate().all(|(k, v)| (v - 0.2 * k as f64).abs() < 1e-12));
        let t = ticks(-3.0, 47.0);
        assert_eq!(t.first(), Some(&0.0));
        assert!(t.windows(2).all(|w| (w[1] - w[0] - 10.0).abs() < 1e-9));
        assert_eq!(ticks(1.0, 1.0), vec![1.0]);
    }
}
