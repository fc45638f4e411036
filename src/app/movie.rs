//! `hourglass render DIR`: every K-th frame of a result directory as PNGs in
//! DIR/render/, an animated GIF DIR/render.gif, and DIR/render.mp4 when
//! `ffmpeg` is on PATH. No window: offscreen on any adapter. A periodic
//! run (`walls.periodic_x` in DIR/scene.toml) has its seams drawn; a 3D
//! run (`dimension = 3`) is drawn as shaded spheres and translucent walls
//! through an orbit camera, optionally cut away to show the inside.

use std::path::{Path, PathBuf};

use super::save_png;
use crate::error::{Error, Result};
use crate::gpu::{AdapterChoice, GpuContext};
use crate::output::{Outputs, read};
use crate::render::Ranges;
use crate::render::movie::MovieRenderer;
use crate::render::orbit::Orbit;
use crate::render::spheres::{SphereFrame, SphereMovie};
use crate::render::{ColorMode, encode_gif};

/// How to render a result directory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MovieOptions {
    /// Picture size, px (default 640 x 640).
    pub width: u32,
    pub height: u32,
    /// Frames per second of the GIF and MP4 (default 20).
    pub fps: f64,
    /// Render every K-th frame (default 1).
    pub every: usize,
    pub mode: ColorMode,
    /// 3D runs: the camera's turn about the vertical axis, degrees (0
    /// looks along -z; default 30) ...
    pub yaw: f32,
    /// ... its elevation, degrees (default 20) ...
    pub pitch: f32,
    /// ... and the cut-away: the half of the scene in front of its centre
    /// left out, so the inside shows (default off).
    pub cut: bool,
}

impl Default for MovieOptions {
    fn default() -> Self {
        MovieOptions {
            width: 640,
            height: 640,
            fps: 20.0,
            every: 1,
            mode: ColorMode::Height,
            yaw: 30.0,
            pitch: 20.0,
            cut: false,
        }
    }
}

/// What was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Movie {
    pub pngs: Vec<PathBuf>,
    pub gif: PathBuf,
    pub mp4: Option<PathBuf>,
    pub adapter: String,
}

/// Render `dir` into `dir/render/`, `dir/render.gif` (and `dir/render.mp4`).
pub fn render_dir(dir: &Path, opts: &MovieOptions) -> Result<Movie> {
    if opts.width == 0 || opts.height == 0 || opts.width > 8192 || opts.height > 8192 {
        return Err(Error::InvalidField {
            origin: "command line".into(),
            field: "--width/--height".into(),
            problem: format!("{}x{} px: each side must be 1..=8192", opts.width, opts.height),
        });
    }
    if opts.every == 0 {
        return Err(Error::InvalidField {
            origin: "command line".into(),
            field: "--every".into(),
            problem: "must be >= 1".into(),
        });
    }
    if !(opts.fps.is_finite() && opts.fps > 0.0) {
        return Err(Error::InvalidField {
            origin: "command line".into(),
            field: "--fps".into(),
            problem: format!("must be positive, got {}", opts.fps),
        });
    }
    if !(opts.yaw.is_finite() && opts.pitch.is_finite() && opts.pitch.abs() <= 89.0) {
        let (field, value) = if opts.yaw.is_finite() {
            ("--pitch", opts.pitch)
        } else {
            ("--yaw", opts.yaw)
        };
        return Err(Error::InvalidField {
            origin: "command line".into(),
            field: field.into(),
            problem: format!("{value} degrees: the yaw must be finite and the pitch within -89..=89"),
        });
    }
    let frames = read::frames(dir)?;
    if read::dimension(dir)? == 3 {
        let (ctx, mut movie) = spheres(dir, &frames, opts)?;
        return write(dir, &frames, opts, &ctx, |_, path| movie.draw(&read::spheres(path)?));
    }
    // Each frame's walls file: walls.vtp for all unless the walls move.
    let wall_files = read::frame_wall_files(dir, frames.len())?;
    let walls = match wall_files.first() {
        Some(path) => read::walls_file(path)?,
        None => read::walls(dir)?,
    };
    let first = match frames.first() {
        Some((_, p)) => read::grains(p)?,
        None => Default::default(),
    };
    // Emitters add grains during a run: the colour ranges come from the
    // last frame when it holds more grains than the first.
    let first = match frames.last() {
        Some((_, p)) if frames.len() > 1 => {
            let last = read::grains(p)?;
            if last.len() > first.len() { last } else { first }
        }
        _ => first,
    };
    // The periodic boundary, from the scene the run wrote (none in an
    // older directory or a scene that is not periodic).
    let period = read::period(dir)?;
    let ctx = adapter()?;
    let mut movie = MovieRenderer::new(&ctx, &walls, &first, period, [opts.width, opts.height], opts.mode);
    if wall_files.iter().any(|f| Some(f) != wall_files.first())
        && let Some(bb) = read::walls_box(&wall_files)?
    {
        // Walls that move: the camera holds them in every frame.
        movie.fit(bb);
    }
    let mut drawn_walls = wall_files.first();
    write(dir, &frames, opts, &ctx, |k, path| {
        if let Some(file) = wall_files.get(k)
            && drawn_walls != Some(file)
        {
            movie.set_walls(&read::walls_file(file)?);
            drawn_walls = Some(file);
        }
        movie.draw(&read::grains(path)?)
    })
}

/// Any adapter, lavapipe included.
fn adapter() -> Result<GpuContext> {
    GpuContext::new(AdapterChoice::Any)?.ok_or_else(|| Error::Gpu("no GPU adapter found".to_string()))
}

/// The pictures of a 3D run: [`sphere_frame`] drawn offscreen.
fn spheres(dir: &Path, frames: &[(f64, PathBuf)], opts: &MovieOptions) -> Result<(GpuContext, SphereMovie)> {
    let walls = read::wall_polygons3d(&dir.join("walls.vtp"))?;
    let frame = sphere_frame(frames, &walls, opts)?;
    let ctx = adapter()?;
    let movie = SphereMovie::new(&ctx, &walls, frame, [opts.width, opts.height]);
    Ok((ctx, movie))
}

/// The view of a 3D run whose walls are `walls` (walls.vtp's polygons): an
/// orbit camera at `opts`' yaw and pitch holding the walls and the spheres
/// of the first and the last of `frames`, colour scales over the height of
/// that box, `opts`' colour and cut-away.
pub fn sphere_frame(frames: &[(f64, PathBuf)], walls: &[Vec<[f32; 3]>], opts: &MovieOptions) -> Result<SphereFrame> {
    let first = match frames.first() {
        Some((_, p)) => read::spheres(p)?,
        None => Default::default(),
    };
    let last = match frames.last() {
        Some((_, p)) if frames.len() > 1 => read::spheres(p)?,
        _ => first.clone(),
    };
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    let points = walls.iter().flatten().map(|&p| (p, 0.0));
    let grains = [&first, &last]
        .into_iter()
        .flat_map(|g| g.pos.iter().zip(&g.radius).map(|(&p, &r)| (p, r)));
    for (p, r) in points
        .chain(grains)
        .filter(|(p, r)| p.iter().all(|x| x.is_finite()) && r.is_finite())
    {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k] - r);
            hi[k] = hi[k].max(p[k] + r);
        }
    }
    // Nothing finite to hold (no walls, no spheres): a unit box.
    if lo[0]
        .partial_cmp(&hi[0])
        .is_none_or(|o| o == std::cmp::Ordering::Greater)
    {
        (lo, hi) = ([-0.5; 3], [0.5; 3]);
    }
    let bounds = [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]];
    let more = if last.radius.len() > first.radius.len() {
        &last
    } else {
        &first
    };
    Ok(SphereFrame {
        orbit: Orbit::fit(
            bounds,
            opts.yaw.to_radians(),
            opts.pitch.to_radians(),
            opts.width as f32 / opts.height as f32,
        ),
        mode: opts.mode,
        ranges: Ranges::over(more, hi[1] - lo[1], 9.81, 1e-3),
        cut: opts.cut,
        legend: true,
    })
}

/// Draw every `opts.every`-th frame with `draw` (frame index, frame file)
/// into DIR/render/, DIR/render.gif and DIR/render.mp4 (when ffmpeg runs),
/// after removing the previous render.
fn write(
    dir: &Path,
    frames: &[(f64, PathBuf)],
    opts: &MovieOptions,
    ctx: &GpuContext,
    mut draw: impl FnMut(usize, &Path) -> Result<image::RgbaImage>,
) -> Result<Movie> {
    // The previous render, as far as the manifest lists it; nothing else.
    let mut outputs = Outputs::open(dir)?;
    outputs.remove(is_render)?;
    outputs.folder("render")?;
    let mut images = Vec::new();
    let mut pngs = Vec::new();
    for (k, (_, path)) in frames.iter().enumerate().step_by(opts.every.max(1)) {
        let img = draw(k, path)?;
        let png = outputs.file(&format!("render/frame_{k:06}.png"))?;
        save_png(&img, &png)?;
        pngs.push(png);
        images.push(img);
    }
    let gif = outputs.file("render.gif")?;
    let bytes = encode_gif(&images, opts.fps)?;
    crate::output::fresh::write(&gif, &bytes).map_err(|source| Error::Output {
        path: gif.clone(),
        source,
    })?;
    let mp4 = match (outputs.file("render/frames.txt"), outputs.file("render.mp4")) {
        (Ok(list), Ok(path)) => mp4(&list, &path, &pngs, opts.fps),
        _ => None,
    };
    Ok(Movie {
        pngs,
        gif,
        mp4,
        adapter: ctx.adapter_name(),
    })
}

/// What `render` writes: removed before it renders again.
fn is_render(entry: &str) -> bool {
    entry == "render/" || entry.starts_with("render/") || entry.starts_with("render.")
}

/// DIR/render.mp4 (`path`) through ffmpeg (H.264, even-sized), when ffmpeg
/// runs; `list` is its input list, removed after.
fn mp4(list: &Path, path: &Path, pngs: &[PathBuf], fps: f64) -> Option<PathBuf> {
    use std::process::{Command, Stdio};
    if pngs.is_empty() {
        return None;
    }
    let text: String = pngs
        .iter()
        .filter_map(|p| p.file_name())
        .map(|f| format!("file '{}'\nduration {}\n", f.to_string_lossy(), 1.0 / fps))
        .collect();
    crate::output::fresh::write(list, text.as_bytes()).ok()?;
    // ffmpeg writes the movie by name: whatever stands there (a link
    // included) is removed first, so it is never written through.
    let _ = std::fs::remove_file(path);
    let ok = Command::new("ffmpeg")
        .args(["-y", "-loglevel", "error", "-f", "concat", "-safe", "0", "-i"])
        .arg(list)
        .args([
            "-vf",
            "pad=ceil(iw/2)*2:ceil(ih/2)*2",
            "-pix_fmt",
            "yuv420p",
            "-r",
            &format!("{fps}"),
        ])
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let _ = std::fs::remove_file(list);
    ok.then(|| path.to_path_buf())
}
