//! The study's outputs: a Markdown table (DIR/study.md) and the residual
//! after each iteration of one cold step, one line per solver, on a log axis
//! (DIR/residuals.png).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use image::RgbaImage;

use super::{Measured, StudyRow, Variant};
use crate::app::plot::{BLUE, GREEN, ORANGE, Panel, RED, Series, figure_sized};
use crate::error::{Error, Result};
use crate::model::SolverKind;

/// Line colours of the Jacobi relaxations, in the order they appear.
const JACOBI_PALETTE: [[u8; 4]; 5] = [
    [140, 86, 75, 255],
    [148, 103, 189, 255],
    ORANGE,
    [188, 189, 34, 255],
    [227, 119, 194, 255],
];

/// The line colour of a solver: the same on every plot (CPU and GPU);
/// `jacobi_rank` numbers the Jacobi relaxations of one plot.
fn line_color(v: &Variant, jacobi_rank: usize) -> [u8; 4] {
    match v.solver {
        SolverKind::Nlgs => BLUE,
        SolverKind::Colored => GREEN,
        SolverKind::Seed => [23, 190, 207, 255],
        SolverKind::Uzawa => RED,
        SolverKind::Apgd => [140, 86, 75, 255],
        _ => JACOBI_PALETTE[jacobi_rank % JACOBI_PALETTE.len()],
    }
}

/// The table header (two lines, Markdown).
pub const HEADER: &str = "| state | N | solver | colours | cold iterations | residual after budget, CPU / GPU (m/s) | CPU iterations/step | CPU ms/step | GPU iterations/step | GPU ms/step | colouring share CPU / GPU |\n|---|---|---|---|---|---|---|---|---|---|---|";

/// "itmax" for a step that did not converge, else the count.
fn cold_its(m: &Measured) -> String {
    m.cold_iterations.map_or("itmax".to_string(), |n| n.to_string())
}

/// Mean warm iterations, with how many steps hit itmax ("4245 (3/5 itmax)").
fn warm_its(m: &Measured, steps: u32) -> String {
    if m.itmax_steps == 0 {
        format!("{:.0}", m.iterations)
    } else {
        format!("{:.0} ({}/{steps} itmax)", m.iterations, m.itmax_steps)
    }
}

/// Colouring time as a share of the step time ("17%"), "—" where there is none.
fn coloring_share(m: Option<&Measured>) -> String {
    match m {
        Some(m) if m.coloring_ms > 0.0 && m.ms_per_step > 0.0 => {
            format!("{:.0}%", 100.0 * m.coloring_ms / m.ms_per_step)
        }
        _ => "—".to_string(),
    }
}

/// One table row; `steps` is the number of warm steps per solver.
pub fn format_row(r: &StudyRow, steps: u32) -> String {
    let dash = || "—".to_string();
    let colors = r.cpu.or(r.gpu).map_or(0, |m| m.colors);
    let cpu = r.cpu.as_ref();
    let gpu = r.gpu.as_ref();
    format!(
        "| {} | {} | {} | {} | {} | {} / {} | {} | {} | {} | {} | {} |",
        r.state,
        r.grains,
        r.variant.label(),
        if colors > 0 { colors.to_string() } else { dash() },
        cpu.map_or_else(dash, cold_its),
        cpu.map_or_else(dash, |m| format!("{:.2e}", m.residual_budget)),
        gpu.map_or_else(dash, |m| format!("{:.2e}", m.residual_budget)),
        cpu.map_or_else(dash, |m| warm_its(m, steps)),
        cpu.map_or_else(dash, |m| format!("{:.1}", m.ms_per_step)),
        gpu.map_or_else(dash, |m| warm_its(m, steps)),
        gpu.map_or_else(dash, |m| format!("{:.1}", m.ms_per_step)),
        if colors > 0 {
            format!("{} / {}", coloring_share(cpu), coloring_share(gpu))
        } else {
            dash()
        },
    )
}

/// The whole table.
pub fn markdown(rows: &[StudyRow], steps: u32) -> String {
    let mut s = String::from(HEADER);
    s.push('\n');
    for r in rows {
        let _ = writeln!(s, "{}", format_row(r, steps));
    }
    s
}

/// Residual (m/s, log axis) against iteration, one line per solver, and the
/// threshold tol/dt as a flat line; `width` x `height` px.
pub fn residual_plot(
    title: &str,
    histories: &[(Variant, Vec<f32>)],
    threshold: f32,
    width: u32,
    height: u32,
) -> RgbaImage {
    let mut jacobi = 0;
    let mut series: Vec<Series> = histories
        .iter()
        .map(|(v, h)| Series {
            label: v.label(),
            color: line_color(v, {
                jacobi += usize::from(v.solver == SolverKind::Jacobi);
                jacobi.saturating_sub(1)
            }),
            points: h
                .iter()
                .enumerate()
                .map(|(i, r)| ((i + 1) as f64, f64::from(*r)))
                .collect(),
            wide: false,
        })
        .collect();
    let longest = histories.iter().map(|(_, h)| h.len()).max().unwrap_or(1).max(1);
    series.push(Series {
        label: "tol/dt".into(),
        color: [120, 120, 120, 255],
        points: vec![(1.0, f64::from(threshold)), (longest as f64, f64::from(threshold))],
        wide: false,
    });
    let panel = Panel {
        title: title.to_string(),
        x_label: "iteration".into(),
        y_label: "residual max |dP| W, m/s (log)".into(),
        series,
        log_y: true,
    };
    figure_sized(&[panel], width, height)
}

/// Write `dir`/study.md (`text`), `dir`/residuals.png (`plot`) and, when
/// there is one, `dir`/residuals_gpu.png (`gpu_plot`), creating `dir`;
/// returns the paths written.
pub fn write(dir: &Path, text: &str, plot: &RgbaImage, gpu_plot: Option<&RgbaImage>) -> Result<Vec<PathBuf>> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Output { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let md = dir.join("study.md");
    crate::output::fresh::write(&md, text.as_bytes()).map_err(io(&md))?;
    let png = dir.join("residuals.png");
    crate::app::save_png(plot, &png)?;
    let mut written = vec![md, png];
    let gpu_png = dir.join("residuals_gpu.png");
    if let Some(gpu_plot) = gpu_plot {
        crate::app::save_png(gpu_plot, &gpu_png)?;
        written.push(gpu_png);
    } else if gpu_png.exists() {
        // An earlier study's GPU plot would pass for this one's.
        std::fs::remove_file(&gpu_png).map_err(io(&gpu_png))?;
    }
    Ok(written)
}
