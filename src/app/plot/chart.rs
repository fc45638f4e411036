//! Panels of line series drawn by plotters into a PNG picture or an SVG
//! document, one drawing for both; text in DejaVu Sans, embedded in the
//! binary (assets/fonts, Bitstream Vera licence), so no system font is used.

use std::ops::Range;
use std::sync::OnceLock;

use image::RgbaImage;
use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::render::font::short_number;

/// Picture size of one plot, px.
pub const WIDTH: u32 = 800;
pub const PANEL_HEIGHT: u32 = 360;

/// Axes, ticks and text.
const AXIS: [u8; 4] = [40, 40, 40, 255];
const GRID: [u8; 4] = [228, 228, 228, 255];
/// The total energy's line (darker than the axes and text).
pub const BLACK: [u8; 4] = [0, 0, 0, 255];
pub const BLUE: [u8; 4] = [31, 119, 180, 255];
pub const ORANGE: [u8; 4] = [255, 127, 14, 255];
pub const GREEN: [u8; 4] = [44, 160, 44, 255];
pub const RED: [u8; 4] = [214, 39, 40, 255];

/// Width of a data line, px.
pub const LINE_WIDTH: u32 = 2;
/// Width of a [`Series::wide`] line, px: 3 px show above and below a
/// [`LINE_WIDTH`] line drawn over it.
pub const WIDE_LINE_WIDTH: u32 = 5;

/// The family name the embedded font is registered under (also the SVG
/// documents' `font-family`, so a viewer without it falls back to its own
/// sans-serif face).
const FAMILY: &str = "sans-serif";
static DEJAVU_SANS: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// One line of a panel.
#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub color: [u8; 4],
    /// Non-finite points (and non-positive ones on a log axis) are left
    /// out, breaking the line there.
    pub points: Vec<(f64, f64)>,
    /// Drawn [`WIDE_LINE_WIDTH`] px wide, under the series after it: a sum
    /// whose part may equal it (the total energy of a billiard is all
    /// kinetic) stays visible around the part.
    pub wide: bool,
}

/// One set of axes, its series named in a legend at its upper right.
#[derive(Debug, Clone)]
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Logarithmic y axis (non-positive values are left out).
    pub log_y: bool,
}

/// Why a figure could not be drawn (plotters' message).
#[derive(Debug, Clone, PartialEq)]
pub struct DrawError(pub String);

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for DrawError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        DrawError(e.to_string())
    }
}

/// Register the embedded font with plotters (once per process).
fn register_font() -> Result<(), DrawError> {
    static REGISTERED: OnceLock<Result<(), DrawError>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            plotters::style::register_font(FAMILY, FontStyle::Normal, DEJAVU_SANS)
                .map_err(|_| DrawError("the embedded DejaVu Sans is not a readable font".into()))
        })
        .clone()
}

/// Panels stacked top to bottom, `WIDTH` x `PANEL_HEIGHT` each.
pub fn figure(panels: &[Panel]) -> RgbaImage {
    figure_sized(panels, WIDTH, PANEL_HEIGHT)
}

/// Panels stacked top to bottom, `width` x `panel_height` px each (a picture
/// of `width` x `panel_height` times the panel count).
///
/// Drawing into memory with the embedded font has no failure left once
/// non-finite values are left out ([`png`] reports one all the same).
pub fn figure_sized(panels: &[Panel], width: u32, panel_height: u32) -> RgbaImage {
    png(panels, width, panel_height).unwrap_or_else(|e| panic!("drawing a figure in memory: {}", e.0))
}

/// [`figure_sized`] as a picture, or what stopped plotters.
pub fn png(panels: &[Panel], width: u32, panel_height: u32) -> Result<RgbaImage, DrawError> {
    let height = panel_height * panels.len().max(1) as u32;
    let mut rgb = vec![0u8; 3 * width as usize * height as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
        draw(&root, panels)?;
        root.present()?;
    }
    let rgb = image::RgbImage::from_raw(width, height, rgb)
        .ok_or_else(|| DrawError("the picture buffer does not match its size".into()))?;
    Ok(image::DynamicImage::ImageRgb8(rgb).to_rgba8())
}

/// The same figure as [`figure_sized`], as an SVG document.
pub fn svg(panels: &[Panel], width: u32, panel_height: u32) -> Result<String, DrawError> {
    let height = panel_height * panels.len().max(1) as u32;
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (width, height)).into_drawing_area();
        draw(&root, panels)?;
        root.present()?;
    }
    Ok(text)
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, panels: &[Panel]) -> Result<(), DrawError>
where
    DB::ErrorType: 'static,
{
    register_font()?;
    root.fill(&WHITE)?;
    for (area, panel) in root.split_evenly((panels.len().max(1), 1)).iter().zip(panels) {
        let runs: Vec<Vec<Vec<(f64, f64)>>> = panel.series.iter().map(|s| runs(s, panel.log_y)).collect();
        let x = span(runs.iter().flatten().flatten().map(|p| p.0), false);
        let y = span(runs.iter().flatten().flatten().map(|p| p.1), panel.log_y);
        let scale = |r: &Range<f64>| r.start.abs().max(r.end.abs());
        let (x_scale, y_scale) = (scale(&x), scale(&y));
        let x_label = move |v: &f64| tick_label(*v, x_scale);
        if panel.log_y {
            let labels: Labels = (&x_label, &|v: &f64| format!("{v:.0e}"));
            draw_panel(
                area,
                panel,
                &runs,
                (x, LogCoord::from((y.start..y.end).log_scale())),
                labels,
            )?;
        } else {
            let labels: Labels = (&x_label, &move |v: &f64| tick_label(*v, y_scale));
            draw_panel(area, panel, &runs, (x, RangedCoordf64::from(y)), labels)?;
        }
    }
    Ok(())
}

/// The drawable stretches of `s`: runs of finite points (positive `y` on a
/// log axis).
fn runs(s: &Series, log_y: bool) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for &(x, y) in &s.points {
        if x.is_finite() && y.is_finite() && (!log_y || y > 0.0) {
            if let Some(run) = out.last_mut() {
                run.push((x, y));
            }
        } else if out.last().is_some_and(|r| !r.is_empty()) {
            out.push(Vec::new());
        }
    }
    out.retain(|r| !r.is_empty());
    out
}

/// The axis range over `values`, padded by 5 % (by a factor on a log axis);
/// a single value gets a range around it, no value [0, 1] ([1, 10] on a log
/// axis).
fn span(values: impl Iterator<Item = f64>, log: bool) -> Range<f64> {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    let (lo, hi) = if log { (lo.log10(), hi.log10()) } else { (lo, hi) };
    let (lo, hi) = if !lo.is_finite() {
        (0.0, 1.0)
    } else if hi <= lo {
        let pad = if lo == 0.0 { 1.0 } else { 0.1 * lo.abs() };
        (lo - pad, hi + pad)
    } else {
        let pad = 0.05 * (hi - lo);
        (lo - pad, hi + pad)
    };
    if log { 10f64.powf(lo)..10f64.powf(hi) } else { lo..hi }
}

/// A tick's label on a linear axis reaching `scale` from 0: at most about 8
/// characters, and 0 for a value that is 0 but for rounding.
fn tick_label(v: f64, scale: f64) -> String {
    if v.abs() <= 1e-9 * scale {
        "0".into()
    } else {
        short_number(v)
    }
}

/// The tick labels of a panel's x and y axes.
type Labels<'a> = (&'a dyn Fn(&f64) -> String, &'a dyn Fn(&f64) -> String);

fn rgb(c: [u8; 4]) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}

fn draw_panel<DB, Y>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
    runs: &[Vec<Vec<(f64, f64)>>],
    (x, y): (Range<f64>, Y),
    labels: Labels,
) -> Result<(), DrawError>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let axis = rgb(AXIS);
    let font = |size: u32| (FAMILY, size).into_font().color(&axis);
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, font(20))
        .margin(10)
        .margin_right(24)
        .x_label_area_size(46)
        .y_label_area_size(76)
        .build_cartesian_2d(x, y)?;
    chart
        .configure_mesh()
        .x_desc(&panel.x_label)
        .y_desc(&panel.y_label)
        .axis_desc_style(font(15))
        .label_style(font(13))
        .axis_style(axis)
        .bold_line_style(rgb(GRID))
        .light_line_style(TRANSPARENT)
        .x_labels(8)
        .y_labels(6)
        .x_label_formatter(labels.0)
        .y_label_formatter(labels.1)
        .draw()?;
    for (s, runs) in panel.series.iter().zip(runs) {
        let width = if s.wide { WIDE_LINE_WIDTH } else { LINE_WIDTH };
        let style = rgb(s.color).stroke_width(width);
        // The legend names every series, drawn or not (an empty run when none).
        let first = runs.first().cloned().unwrap_or_default();
        let single = |r: &Vec<(f64, f64)>| if r.len() == 1 { width + 1 } else { 0 };
        chart
            .draw_series(LineSeries::new(first.iter().copied(), style).point_size(single(&first)))?
            .label(s.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        for r in runs.iter().skip(1) {
            chart.draw_series(LineSeries::new(r.iter().copied(), style).point_size(single(r)))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font(font(13))
        .background_style(WHITE.mix(0.9))
        .border_style(rgb(GRID))
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(points: Vec<(f64, f64)>) -> Series {
        Series {
            label: "s".into(),
            color: RED,
            points,
            wide: false,
        }
    }

    #[test]
    fn a_line_breaks_at_values_it_cannot_draw() {
        let s = series(vec![(0.0, 1.0), (1.0, f64::NAN), (2.0, 3.0), (3.0, -1.0), (4.0, 5.0)]);
        assert_eq!(
            runs(&s, false),
            vec![vec![(0.0, 1.0)], vec![(2.0, 3.0), (3.0, -1.0), (4.0, 5.0)]]
        );
        // On a log axis a non-positive value breaks it too.
        assert_eq!(
            runs(&s, true),
            vec![vec![(0.0, 1.0)], vec![(2.0, 3.0)], vec![(4.0, 5.0)]]
        );
    }

    #[test]
    fn ranges_pad_the_data_and_never_collapse() {
        assert_eq!(span([0.0, 10.0].into_iter(), false), -0.5..10.5);
        assert_eq!(span([2.0].into_iter(), false), 1.8..2.2);
        assert_eq!(span([0.0].into_iter(), false), -1.0..1.0);
        assert_eq!(span(std::iter::empty(), false), 0.0..1.0);
        let log = span([1e-4, 1e-2].into_iter(), true);
        assert!(
            (log.start.log10() + 4.1).abs() < 1e-12 && (log.end.log10() + 1.9).abs() < 1e-12,
            "{log:?}"
        );
        assert_eq!(tick_label(-1e-17, 40.0), "0");
        assert_eq!(tick_label(-20.0, 40.0), "-20");
    }

    #[test]
    fn a_lone_point_is_drawn() {
        let panel = Panel {
            title: "one row".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            series: vec![series(vec![(1.0, 1.0)])],
            log_y: false,
        };
        let img = figure_sized(&[panel], 400, 200);
        // The point's disk mid-plot, left of the legend at the upper right.
        let red = img
            .enumerate_pixels()
            .filter(|(x, _, p)| *x < 280 && p.0 == RED)
            .count();
        assert!(red >= 9, "{red} red pixels");
    }
}
