//! `hourglass render DIR`: PNG frames, an animated GIF (and an MP4 with
//! ffmpeg) of a result directory, offscreen.

use std::path::PathBuf;

use hourglass::Result;
use hourglass::app::movie::{MovieOptions, render_dir};
use hourglass::render::ColorMode;

/// Colour modes a result directory can show (frames hold no contact loads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    Height,
    Speed,
    Radius,
}

impl From<ModeArg> for ColorMode {
    fn from(m: ModeArg) -> ColorMode {
        match m {
            ModeArg::Height => ColorMode::Height,
            ModeArg::Speed => ColorMode::Speed,
            ModeArg::Radius => ColorMode::Radius,
        }
    }
}

#[derive(clap::Args)]
pub struct RenderArgs {
    /// A result directory written by `hourglass run`.
    pub dir: PathBuf,
    #[command(flatten)]
    pub movie: MovieArgs,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The picture options (`hourglass run --render` uses their defaults).
#[derive(clap::Args, Clone, Copy)]
pub struct MovieArgs {
    /// Picture width, px.
    #[arg(long, default_value_t = 640)]
    pub width: u32,
    /// Picture height, px.
    #[arg(long, default_value_t = 640)]
    pub height: u32,
    /// Frames per second of the GIF / MP4.
    #[arg(long, default_value_t = 20.0)]
    pub fps: f64,
    /// Render every K-th frame.
    #[arg(long = "every", default_value_t = 1)]
    pub frame_every: usize,
    /// Colour of the grains.
    #[arg(long, value_enum, default_value_t = ModeArg::Height)]
    pub color: ModeArg,
    /// 3D runs: the camera's turn about the vertical axis, degrees (0 looks along -z) [default: 30].
    #[arg(long, allow_negative_numbers = true)]
    pub yaw: Option<f32>,
    /// 3D runs: the camera's elevation, degrees, -89..=89 [default: 20].
    #[arg(long, allow_negative_numbers = true)]
    pub pitch: Option<f32>,
    /// 3D runs: leave out the half in front of the scene's centre, so the inside shows.
    #[arg(long)]
    pub cut: bool,
}

impl MovieArgs {
    pub fn options(&self) -> MovieOptions {
        let defaults = MovieOptions::default();
        MovieOptions {
            width: self.width,
            height: self.height,
            fps: self.fps,
            every: self.frame_every,
            mode: self.color.into(),
            yaw: self.yaw.unwrap_or(defaults.yaw),
            pitch: self.pitch.unwrap_or(defaults.pitch),
            cut: self.cut,
        }
    }

    /// The first of the 3D options given (`--yaw`, `--pitch`, `--cut`), if any.
    pub fn view3d_flag(&self) -> Option<&'static str> {
        [
            (self.yaw.is_some(), "--yaw"),
            (self.pitch.is_some(), "--pitch"),
            (self.cut, "--cut"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }
}

/// The one-line notice for a result directory without summary.json.
pub fn incomplete_notice(dir: &std::path::Path, quiet: bool) {
    if !quiet && !dir.join("summary.json").is_file() && dir.join("diagnostics.csv").is_file() {
        eprintln!(
            "notice: {} has no summary.json: the run is incomplete (interrupted or failed); showing what it wrote",
            dir.display()
        );
    }
}

pub fn render(dir: &std::path::Path, opts: &MovieOptions, quiet: bool) -> Result<()> {
    let m = render_dir(dir, opts)?;
    if !quiet {
        eprintln!(
            "render: {} frames ({}x{}, {}) -> {}/, {}{}",
            m.pngs.len(),
            opts.width,
            opts.height,
            m.adapter,
            dir.join("render").display(),
            m.gif.display(),
            m.mp4.as_ref().map_or(String::new(), |p| format!(", {}", p.display()))
        );
    }
    Ok(())
}

pub fn run(args: RenderArgs) -> Result<()> {
    if let Some(flag) = args.movie.view3d_flag()
        && hourglass::output::read::dimension(&args.dir)? != 3
    {
        return Err(hourglass::Error::InvalidField {
            origin: "command line".into(),
            field: flag.into(),
            problem: format!(
                "sets the camera of a 3D run; {} is a run in the plane",
                args.dir.display()
            ),
        });
    }
    render(&args.dir, &args.movie.options(), args.quiet)?;
    incomplete_notice(&args.dir, args.quiet);
    Ok(())
}
