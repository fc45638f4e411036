//! What a window shows: a live run ([`Live`], driven through [`sim::Run`])
//! or a result directory replayed frame by frame ([`Replay`]; a 3D run's:
//! [`Replay3`]).

use std::path::{Path, PathBuf};

use super::movie::{MovieOptions, sphere_frame};
use crate::backend::{self, Backend, Device};
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::model::Grid;
use crate::model::space::{Dim2, Dim3, Space};
use crate::model::{Grains, Walls};
use crate::output::{ResultDir, Summary, read};
use crate::render::orbit::Orbit;
use crate::render::spheres::SphereFrame;
use crate::render::{Ranges, Source};
use crate::scene::{BackendChoice, Setup};
use crate::sim::{self, Observer, Run};

/// What a live run does its own way per space: the backend it opens for
/// the window, and its colour scales.
pub trait LiveSpace: sim::RunSpace {
    /// The backend of a windowed run.
    fn open(
        setup: &Setup<Self>,
        grid: Grid<Self>,
        choice: BackendChoice,
        ctx: &GpuContext,
        notices: &mut Vec<String>,
    ) -> Result<Box<dyn Backend<Self>>>;

    /// The colour scales of the run's pictures.
    fn ranges(setup: &Setup<Self>) -> Ranges;
}

impl LiveSpace for Dim2 {
    /// [`backend::select`] with the window's own device, so a GPU run's
    /// buffers are drawn in place.
    fn open(
        setup: &Setup,
        grid: Grid,
        choice: BackendChoice,
        ctx: &GpuContext,
        notices: &mut Vec<String>,
    ) -> Result<Box<dyn Backend>> {
        backend::select(setup, grid, choice, Device::Shared(ctx), notices)
    }

    fn ranges(setup: &Setup) -> Ranges {
        Ranges::for_scene(&setup.grains, setup.walls(true), setup.params.gravity, setup.params.dt)
    }
}

impl LiveSpace for Dim3 {
    /// [`backend::select_solid`] with the window's own device.
    fn open(
        setup: &Setup<Dim3>,
        grid: Grid<Dim3>,
        choice: BackendChoice,
        ctx: &GpuContext,
        notices: &mut Vec<String>,
    ) -> Result<Box<dyn Backend<Dim3>>> {
        backend::select_solid(setup, grid, choice, Device::Shared(ctx), notices)
    }

    /// Over the height of the walls' box, the emitters' spheres counted in.
    fn ranges(setup: &Setup<Dim3>) -> Ranges {
        let (lo, hi) = Dim3::box_corners(setup.walls_box);
        let g = setup.params.gravity;
        let mut ranges = Ranges::over(&setup.grains, hi[1] - lo[1], g[0].hypot(g[1]), setup.params.dt);
        let emitted: u32 = setup.emitters.iter().map(|e| e.grains.radius.len() as u32).sum();
        ranges.ids = ranges.ids.max(setup.grains.radius.len() as u32 + emitted).max(1);
        ranges
    }
}

/// What a windowed run says besides its title: its notices on stderr,
/// unless quiet.
struct Notices {
    quiet: bool,
}

impl Observer for Notices {
    fn notice(&mut self, msg: &str) {
        if !self.quiet {
            eprintln!("{msg}");
        }
    }
}

/// A run in progress, restartable.
pub struct Live<S: LiveSpace = Dim2> {
    pub setup: Setup<S>,
    grid: Grid<S>,
    choice: BackendChoice,
    ctx: GpuContext,
    notices: Notices,
    pub backend: Box<dyn Backend<S>>,
    out: Option<ResultDir>,
    run: Option<Run<S>>,
    pub ranges: Ranges,
    /// The walls drawn ([`Live::set_walls`]): the open walls at the start.
    pub walls: S::Walls,
}

impl<S: LiveSpace> Live<S> {
    pub fn start(setup: Setup<S>, grid: Grid<S>, ctx: &GpuContext, quiet: bool) -> Result<Live<S>> {
        let choice = setup.scene.run.backend;
        let mut notices = Vec::new();
        let backend = S::open(&setup, grid, choice, ctx, &mut notices)?;
        if !quiet {
            for n in &notices {
                eprintln!("{n}");
            }
        }
        let walls = setup.walls(false).clone();
        let ranges = S::ranges(&setup);
        let mut live = Live {
            setup,
            grid,
            choice,
            ctx: ctx.clone(),
            notices: Notices { quiet },
            backend,
            out: None,
            run: None,
            ranges,
            walls,
        };
        live.begin()?;
        Ok(live)
    }

    fn begin(&mut self) -> Result<()> {
        let mut out = ResultDir::create(&self.setup.scene.run.out, &self.setup.scene.to_toml())?;
        self.run = Some(Run::start(
            &self.setup,
            self.backend.as_mut(),
            &mut out,
            &mut self.notices,
        )?);
        self.out = Some(out);
        Ok(())
    }

    /// Back to the initial state: a fresh backend and result directory.
    pub fn restart(&mut self) -> Result<()> {
        self.run = None;
        self.out = None;
        let mut notices = Vec::new();
        self.backend = S::open(&self.setup, self.grid, self.choice, &self.ctx, &mut notices)?;
        self.walls = self.setup.walls(false).clone();
        self.begin()
    }

    pub fn advance(&mut self, steps: u64) -> Result<u64> {
        match (&mut self.run, &mut self.out) {
            (Some(run), Some(out)) => {
                let taken = run.advance(self.backend.as_mut(), out, steps, &mut self.notices)?;
                if taken > 0 && run.moves_walls() {
                    self.walls.clone_from(run.walls());
                }
                Ok(taken)
            }
            _ => Ok(0),
        }
    }

    /// The walls drawn from the next picture on: those the backend steps
    /// with, for a run whose walls move (the same segments in the same order,
    /// where they stand now). The window draws whatever `walls` holds.
    pub fn set_walls(&mut self, walls: &S::Walls) {
        self.walls.clone_from(walls);
    }

    pub fn done(&self) -> bool {
        self.run.as_ref().is_none_or(Run::done)
    }

    pub fn progress(&self) -> Option<sim::Progress> {
        self.run.as_ref().map(Run::progress)
    }

    pub fn has_contacts(&mut self) -> bool {
        match self.backend.view() {
            Ok(Source::Host { contacts, .. }) => contacts.is_some(),
            Ok(Source::Device(_)) => true,
            Err(_) => false,
        }
    }

    /// Write the last frame and summary.json; the run ends here.
    pub fn finish(&mut self) -> Result<Option<Summary>> {
        let (Some(run), Some(mut out)) = (self.run.take(), self.out.take()) else {
            return Ok(None);
        };
        let summary = run.finish(self.backend.as_mut(), &mut out)?;
        out.finish(&summary)?;
        Ok(Some(summary))
    }

    pub fn out_dir(&self) -> PathBuf {
        self.setup.scene.run.out.clone()
    }
}

/// A result directory, one frame at a time.
pub struct Replay {
    pub dir: PathBuf,
    pub frames: Vec<(f64, PathBuf)>,
    pub index: usize,
    pub grains: Grains,
    /// The walls of the frame shown (read from `wall_files`).
    pub walls: Walls,
    /// The walls file of each frame ([`read::frame_wall_files`]): walls.vtp
    /// for every frame unless the walls move.
    wall_files: Vec<PathBuf>,
    /// The box the walls of every frame lie in, when they move (the view holds it).
    pub walls_box: Option<[f32; 4]>,
    /// The period [xmin, xmax] along x of a periodic run, m ([`read::period`]):
    /// its seams are drawn. None: not periodic (or a directory without scene.toml).
    pub period: Option<[f32; 2]>,
    pub ranges: Ranges,
    /// `passed` of each diagnostics row (one per frame), when readable.
    passed: Vec<u64>,
}

impl Replay {
    pub fn open(dir: &Path) -> Result<Replay> {
        let frames = read::frames(dir)?;
        let wall_files = read::frame_wall_files(dir, frames.len())?;
        let walls = match wall_files.first() {
            Some(path) => read::walls_file(path)?,
            None => read::walls(dir)?,
        };
        let grains = match frames.first() {
            Some((_, path)) => read::grains(path)?,
            None => Grains::default(),
        };
        // Emitters add grains during a run: the colour ranges (ids, radii)
        // come from the last frame when it holds more grains than the first.
        let ranges = match frames.last() {
            Some((_, path)) if frames.len() > 1 => {
                let last = read::grains(path)?;
                let most = if last.len() > grains.len() { &last } else { &grains };
                Ranges::for_scene(most, &walls, [0.0, -9.81], 1e-3)
            }
            _ => Ranges::for_scene(&grains, &walls, [0.0, -9.81], 1e-3),
        };
        let passed = read::diagnostics(dir)
            .map(|rows| rows.iter().map(|r| r.passed).collect())
            .unwrap_or_default();
        let period = read::period(dir)?;
        let walls_box = if wall_files.iter().any(|f| Some(f) != wall_files.first()) {
            read::walls_box(&wall_files)?
        } else {
            None
        };
        Ok(Replay {
            dir: dir.to_path_buf(),
            frames,
            index: 0,
            grains,
            walls,
            wall_files,
            walls_box,
            period,
            ranges,
            passed,
        })
    }

    /// Show frame `i` (clamped), with its walls.
    pub fn seek(&mut self, i: usize) -> Result<()> {
        let i = i.min(self.frames.len().saturating_sub(1));
        if i != self.index || self.grains.is_empty() {
            if let Some((_, path)) = self.frames.get(i) {
                self.grains = read::grains(path)?;
            }
            let (from, to) = (self.wall_files.get(self.index), self.wall_files.get(i));
            if let Some(to) = to
                && from != Some(to)
            {
                self.walls = read::walls_file(to)?;
            }
            self.index = i;
        }
        Ok(())
    }

    pub fn time(&self) -> f64 {
        self.frames.get(self.index).map_or(0.0, |f| f.0)
    }

    pub fn passed(&self) -> Option<u64> {
        self.passed.get(self.index).copied()
    }
}

/// The view of a 3D window: what it shows ([`SphereFrame`]: camera, colour
/// scales, cut-away) and the camera it was fitted with.
#[derive(Debug, Clone, Copy)]
pub struct Orbiting {
    pub frame: SphereFrame,
    /// The camera the view fitted at the start (the `f` key goes back to it).
    pub fitted: Orbit,
}

impl Orbiting {
    pub fn new(frame: SphereFrame) -> Orbiting {
        Orbiting {
            fitted: frame.orbit,
            frame,
        }
    }

    /// Turn the camera by `dx`, `dy` px of a drag: 0.4 degrees a pixel
    /// about the vertical (yaw) and up or down (pitch, held within +-89
    /// degrees).
    pub fn orbit_by(&mut self, dx: f32, dy: f32) {
        let o = &mut self.frame.orbit;
        let limit = 89f32.to_radians();
        o.yaw -= (0.4 * dx).to_radians();
        o.pitch = (o.pitch + (0.4 * dy).to_radians()).clamp(-limit, limit);
    }

    /// Move the camera `lines` wheel lines closer (negative: away), 15 % a
    /// line, within a twentieth and twenty times the fitted distance.
    pub fn zoom_by(&mut self, lines: f32) {
        let d = self.frame.orbit.distance / 1.15f32.powf(lines);
        let fitted = self.fitted.distance;
        self.frame.orbit.distance = d.clamp(0.05 * fitted, 20.0 * fitted);
    }
}

/// A live 3D run in a window: the run and its view.
pub struct Live3 {
    pub live: Live<Dim3>,
    pub view: Orbiting,
    /// The walls drawn: their polygons as walls.vtp holds them.
    pub polygons: Vec<Vec<[f32; 3]>>,
}

impl Live3 {
    /// Start `setup` for a `width` x `height` px window: the camera at the
    /// pictures' default yaw and pitch, holding the walls' box.
    pub fn start(setup: Setup<Dim3>, grid: Grid<Dim3>, ctx: &GpuContext, quiet: bool, size: [u32; 2]) -> Result<Live3> {
        let polygons = crate::output::vtk::wall_polygons(setup.walls(false));
        let live = Live::start(setup, grid, ctx, quiet)?;
        let opts = MovieOptions::default();
        // The walls as drawn and the run's box, as `render` holds them.
        let (mut lo, mut hi) = Dim3::box_corners(live.setup.walls_box);
        for p in polygons.iter().flatten().filter(|p| p.iter().all(|x| x.is_finite())) {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        let frame = SphereFrame {
            orbit: Orbit::fit(
                Dim3::box_of(lo, hi),
                opts.yaw.to_radians(),
                opts.pitch.to_radians(),
                size[0].max(1) as f32 / size[1].max(1) as f32,
            ),
            mode: opts.mode,
            ranges: live.ranges,
            cut: false,
            legend: true,
        };
        Ok(Live3 {
            live,
            view: Orbiting::new(frame),
            polygons,
        })
    }
}

/// A 3D result directory replayed (`hourglass view` of a run with
/// `dimension = 3`): its frames read one at a time, its walls' polygons,
/// and the orbit view the window starts from and turns.
pub struct Replay3 {
    pub dir: PathBuf,
    pub frames: Vec<(f64, PathBuf)>,
    pub index: usize,
    pub grains: Grains<Dim3>,
    /// walls.vtp's polygons (3D walls do not move).
    pub walls: Vec<Vec<[f32; 3]>>,
    /// The view: camera, colour scales, cut-away ([`sphere_frame`]).
    pub view: Orbiting,
    passed: Vec<u64>,
}

impl Replay3 {
    /// Open `dir` for a `width` x `height` px window.
    pub fn open(dir: &Path, width: u32, height: u32) -> Result<Replay3> {
        let frames = read::frames(dir)?;
        let walls = read::wall_polygons3d(&dir.join("walls.vtp"))?;
        let opts = MovieOptions {
            width: width.max(1),
            height: height.max(1),
            ..MovieOptions::default()
        };
        let frame = sphere_frame(&frames, &walls, &opts)?;
        let grains = match frames.first() {
            Some((_, path)) => read::spheres(path)?,
            None => Grains::default(),
        };
        let passed = read::diagnostics(dir)
            .map(|rows| rows.iter().map(|r| r.passed).collect())
            .unwrap_or_default();
        Ok(Replay3 {
            dir: dir.to_path_buf(),
            frames,
            index: 0,
            grains,
            walls,
            view: Orbiting::new(frame),
            passed,
        })
    }

    /// Show frame `i` (clamped).
    pub fn seek(&mut self, i: usize) -> Result<()> {
        let i = i.min(self.frames.len().saturating_sub(1));
        if i != self.index
            && let Some((_, path)) = self.frames.get(i)
        {
            self.grains = read::spheres(path)?;
            self.index = i;
        }
        Ok(())
    }

    pub fn time(&self) -> f64 {
        self.frames.get(self.index).map_or(0.0, |f| f.0)
    }

    pub fn passed(&self) -> Option<u64> {
        self.passed.get(self.index).copied()
    }
}
