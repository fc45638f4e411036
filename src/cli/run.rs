//! `hourglass run`: build the scene, pick a backend, run, write the result directory.

use std::path::PathBuf;

use hourglass::backend::Backend;
use hourglass::model::{Dim3, Integrator, SolverKind};
use hourglass::output::{ResultDir, Summary};
use hourglass::scene::{BackendChoice, Scene};
use hourglass::sim::{self, Observer, Progress};
use hourglass::{Error, Result};

#[derive(clap::Args)]
pub struct RunArgs {
    /// Scene file (TOML); flags below override it.
    pub scene: Option<PathBuf>,
    /// Walls from this gmsh mesh instead of the scene's.
    #[arg(long)]
    pub mesh: Option<PathBuf>,
    /// Number of grains of the fill.
    #[arg(long, allow_hyphen_values = true)]
    pub grains: Option<String>,
    #[arg(long, value_enum)]
    pub backend: Option<BackendChoice>,
    #[arg(long, value_enum)]
    pub solver: Option<SolverKind>,
    /// Integrator of the explicit models (dem, spring, impulse): `[solver] integrator`; velocity_verlet is another name for leapfrog (the same kick-drift-kick scheme).
    #[arg(long, value_enum)]
    pub integrator: Option<Integrator>,
    /// Normal stiffness of the spring model, N/m: `[spring] ks`.
    #[arg(long, allow_hyphen_values = true)]
    pub ks: Option<f64>,
    /// Discharge duration after the gate opens, s.
    #[arg(long, allow_hyphen_values = true, conflicts_with = "steps")]
    pub duration: Option<f64>,
    /// Discharge length in steps.
    #[arg(long, allow_hyphen_values = true)]
    pub steps: Option<u64>,
    /// Result directory (default: result). A non-empty directory that no run
    /// wrote is refused; a run removes only what an earlier run wrote there.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write into a non-empty --out that no run wrote (nothing in it is
    /// removed or overwritten).
    #[arg(long)]
    pub force: bool,
    /// Write a frame and a diagnostics row every K steps.
    #[arg(long, allow_hyphen_values = true)]
    pub every: Option<u64>,
    /// Watch the run in a window (closing it ends the run, results written).
    #[arg(long)]
    pub window: bool,
    /// Render the result directory to PNG frames and a GIF at the end (as `hourglass render`).
    #[arg(long)]
    pub render: bool,
    /// With --window: take a screenshot after K frames, then close (for tests).
    #[arg(long, hide = true, requires = "window")]
    pub screenshot_after: Option<u64>,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// Go on from the last saved state of the result directory DIR (a
    /// finished or interrupted run) for --steps/--duration more, with the
    /// scene given (else DIR/scene.toml) and the flags: solver, dt and the
    /// contact law may change; walls, fill and emitters may not. Rows, frames
    /// and summary.json are written to DIR; a finished run's summary.json is
    /// kept as DIR/segments/summary_NNNNNN.json. A refused resume changes nothing.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["out", "force", "window", "grains", "mesh"])]
    pub resume: Option<PathBuf>,
}

pub fn run(args: RunArgs) -> Result<()> {
    // A resumed run reads its state first; everything that can refuse it is
    // checked (see `resumed`) before anything in DIR is written.
    // A 3D run's state holds spheres: read as such when the scene is 3D.
    let mut state3 = None;
    let state = match &args.resume {
        Some(dir) => {
            let scene = args.scene.clone().unwrap_or_else(|| dir.join("scene.toml"));
            if Scene::load(&scene).is_ok_and(|s| s.dimension == 3) {
                state3 = Some(hourglass::sim::State::<Dim3>::load(dir)?);
                None
            } else {
                Some(hourglass::sim::State::load(dir)?)
            }
        }
        None => None,
    };
    let mut scene = match (&args.scene, &args.resume) {
        (Some(path), _) => Scene::load(path)?,
        (None, Some(dir)) => Scene::load(&dir.join("scene.toml"))?,
        (None, None) => Scene::default(),
    };
    if let Some(dir) = &args.resume {
        scene.run.out = dir.clone();
    }
    if let Some(mesh) = args.mesh {
        scene.walls = hourglass::scene::WallsSpec {
            mesh: Some(mesh),
            neck_y: scene.walls.neck_y,
            closed_side: scene.walls.closed_side,
            ..Default::default()
        };
    }
    if let Some(g) = &args.grains {
        let count = grain_count(g).ok_or_else(|| Error::InvalidField {
            origin: "command line".into(),
            field: "--grains".into(),
            problem: format!("must be a positive whole number, got `{g}`"),
        })?;
        scene.grains.count = count;
        scene.grains.list = None;
    }
    if let Some(b) = args.backend {
        scene.run.backend = b;
    }
    if let Some(s) = args.solver {
        scene.solver.kind = s;
    }
    if let Some(i) = args.integrator {
        scene.solver.integrator = Some(i);
    }
    if let Some(ks) = args.ks {
        scene.spring.ks = ks;
    }
    let flag = |field: &str, problem: String| Error::InvalidField {
        origin: "command line".into(),
        field: field.into(),
        problem,
    };
    if let Some(d) = args.duration {
        if !(d.is_finite() && d >= 0.0) {
            return Err(flag(
                "--duration",
                format!("must be a finite number of seconds >= 0, got {d}"),
            ));
        }
        scene.run.duration = Some(d);
        scene.run.steps = None;
    }
    if let Some(s) = args.steps {
        scene.run.steps = Some(s);
        scene.run.duration = None;
    }
    if let Some(o) = args.out {
        scene.run.out = o;
    }
    if let Some(e) = args.every {
        if e == 0 {
            return Err(flag("--every", "must be >= 1".to_string()));
        }
        scene.run.every = e;
    }
    if args.ks.is_some() && scene.solver.kind != SolverKind::Spring {
        return Err(flag(
            "--ks",
            format!(
                "sets the spring model's stiffness ([spring] ks), which solver `{}` does not read: add --solver spring, or drop --ks",
                scene.solver.kind.name()
            ),
        ));
    }
    if !scene.solver.kind.implemented() {
        return Err(Error::NotImplemented {
            what: format!("solver `{}`", scene.solver.kind.name()),
        });
    }
    // A value out of range that a flag gave is the flag's fault, not the scene field's.
    let given = [
        ("grains.count", "--grains", args.grains.is_some()),
        ("run.duration", "--duration", args.duration.is_some()),
        ("run.steps", "--steps", args.steps.is_some()),
        ("run.every", "--every", args.every.is_some()),
        ("spring.ks", "--ks", args.ks.is_some()),
        ("solver.integrator", "--integrator", args.integrator.is_some()),
        ("run.backend", "--backend", args.backend.is_some()),
    ];
    let blame_flag = |e| match e {
        Error::InvalidField { field, problem, origin } => match given.iter().find(|(f, _, on)| *on && *f == field) {
            Some((_, flag, _)) => Error::InvalidField {
                origin: "command line".into(),
                field: flag.to_string(),
                problem,
            },
            None => Error::InvalidField { origin, field, problem },
        },
        e => e,
    };
    if scene.dimension == 3 {
        let setup = hourglass::scene::build3d(&scene).map_err(blame_flag)?;
        let grid = <Dim3 as sim::RunSpace>::grid(&setup)?;
        // What the backend cannot run is refused before the directory is claimed.
        hourglass::backend::refuse_unrunnable_solid(&setup, setup.scene.run.backend)?;
        if args.window {
            // Claimed before any window opens: a directory that is not ours is refused here.
            hourglass::output::claim_for_run(&setup.scene.run.out, args.force)?;
            let opts = hourglass::app::window::WindowOptions {
                quiet: args.quiet,
                screenshot_after: args.screenshot_after,
            };
            let out = setup.scene.run.out.clone();
            let summary = hourglass::app::window::run_live3(setup, grid, opts)?;
            report(&summary, 0, args.quiet);
            if args.render {
                super::render::render(&out, &hourglass::app::movie::MovieOptions::default(), args.quiet)?;
            }
            return Ok(());
        }
        let open = |from: &hourglass::scene::Setup<Dim3>, notices: &mut Vec<String>| {
            let device = hourglass::backend::Device::Open;
            hourglass::backend::select_solid(from, grid, from.scene.run.backend, device, notices)
        };
        if let Some(state) = state3 {
            let summary = resumed(&setup, &state, args.quiet, open)?;
            report(&summary, state.step, args.quiet);
            return Ok(());
        }
        let summary = headless(&setup, args.force, args.quiet, open)?;
        report(&summary, 0, args.quiet);
        if args.render {
            let opts = hourglass::app::movie::MovieOptions::default();
            super::render::render(&setup.scene.run.out, &opts, args.quiet)?;
        }
        return Ok(());
    }
    let setup = hourglass::scene::build(&scene).map_err(blame_flag)?;
    let grid = hourglass::backend::grid_for(&setup)?;
    // The backend of a headless or resumed run: the one policy's choice.
    let open = |from: &hourglass::scene::Setup, notices: &mut Vec<String>| {
        hourglass::backend::select(
            from,
            grid,
            from.scene.run.backend,
            hourglass::backend::Device::Open,
            notices,
        )
    };
    if let Some(state) = state {
        let summary = resumed(&setup, &state, args.quiet, open)?;
        report(&summary, state.step, args.quiet);
        return Ok(());
    }
    hourglass::backend::check_initial_state(&setup, &grid)?;
    // A solver the backend cannot run is refused before the directory is claimed.
    hourglass::backend::refuse_unrunnable(&setup, setup.scene.run.backend)?;
    let out_dir = setup.scene.run.out.clone();
    let summary = if args.window {
        // Claimed before any window opens: a directory that is not ours is refused here.
        hourglass::output::claim_for_run(&out_dir, args.force)?;
        if !args.quiet {
            for n in &setup.notices {
                eprintln!("{n}");
            }
        }
        let opts = hourglass::app::window::WindowOptions {
            quiet: args.quiet,
            screenshot_after: args.screenshot_after,
        };
        hourglass::app::window::run_live(setup, grid, opts)?
    } else {
        headless(&setup, args.force, args.quiet, open)?
    };
    report(&summary, 0, args.quiet);
    if args.render {
        super::render::render(&out_dir, &hourglass::app::movie::MovieOptions::default(), args.quiet)?;
    }
    Ok(())
}

/// `--grains`: a positive whole number, also written as `2e4`.
fn grain_count(text: &str) -> Option<u64> {
    let text = text.trim();
    if let Ok(n) = text.parse::<u64>() {
        return (n > 0).then_some(n);
    }
    let x: f64 = text.parse().ok()?;
    // Whole and below 2^64 (u64::MAX as f64 rounds up to 2^64).
    (x.is_finite() && x >= 1.0 && x.fract() == 0.0 && x < u64::MAX as f64).then_some(x as u64)
}

/// The run without a window: progress bar, result directory, summary.json.
/// The backend is opened (a missing adapter refused) before the directory
/// is claimed, so a refused run writes nothing.
fn headless<S: sim::RunSpace>(
    setup: &hourglass::scene::Setup<S>,
    force: bool,
    quiet: bool,
    open: impl FnOnce(&hourglass::scene::Setup<S>, &mut Vec<String>) -> Result<Box<dyn Backend<S>>>,
) -> Result<Summary> {
    let mut notices = setup.notices.clone();
    let mut backend = open(setup, &mut notices)?;
    hourglass::output::claim_for_run(&setup.scene.run.out, force)?;
    let say = |m: &str| {
        if !quiet {
            eprintln!("{m}");
        }
    };
    for n in &notices {
        say(n);
    }
    say(&format!(
        "hourglass: {} grains, solver {}, backend {} ({}), writing {}",
        setup.grains.len(),
        backend.solver(setup.params.solver).name(),
        backend.kind().name(),
        backend.adapter(),
        setup.scene.run.out.display()
    ));
    let mut out = ResultDir::create_with(&setup.scene.run.out, &setup.scene.to_toml(), force)?;
    let mut terminal = Terminal::new(quiet);
    let summary = sim::run(setup, backend.as_mut(), &mut out, &mut terminal);
    terminal.clear();
    let summary = summary?;
    out.finish(&summary)?;
    Ok(summary)
}

/// A run that goes on from `state` in its result directory (`--resume`):
/// the backend starts from the state's grains on the grid of the scene's
/// own start (as the first run's), rows and frames are appended. Everything
/// that can refuse the resume (the solver, the scene against the saved
/// run's, the directory's files, the backend) is checked before anything in
/// the directory changes, so a refused resume leaves it as it was.
fn resumed<S: sim::RunSpace>(
    setup: &hourglass::scene::Setup<S>,
    state: &hourglass::sim::State<S>,
    quiet: bool,
    open: impl FnOnce(&hourglass::scene::Setup<S>, &mut Vec<String>) -> Result<Box<dyn Backend<S>>>,
) -> Result<Summary> {
    if setup.params.solver == SolverKind::Crowd {
        // The saved grains are the people still in the room; who left is not saved.
        return Err(Error::NotImplemented {
            what: "resuming a crowd run (`--resume` with solver.kind = \"crowd\")".to_string(),
        });
    }
    let dir = &setup.scene.run.out;
    state.validate(dir)?;
    let saved_path = dir.join("scene.toml");
    let saved = Scene::load(&saved_path)?;
    state.fits(setup, &saved, &saved_path, &dir.join(hourglass::output::STATE))?;
    let target = ResultDir::check_resume(dir, state.step, state.frames.len())?;
    let mut from = setup.clone();
    from.grains = state.grains.clone();
    let mut notices = setup.notices.clone();
    let mut backend = open(&from, &mut notices)?;
    if !quiet {
        for n in &notices {
            eprintln!("{n}");
        }
        eprintln!(
            "hourglass: resuming {} at step {} ({} grains), solver {}, backend {}",
            dir.display(),
            state.step,
            state.grains.len(),
            backend.solver(setup.params.solver).name(),
            backend.kind().name()
        );
    }
    let mut terminal = Terminal::new(quiet);
    let summary = sim::resume(setup, state, backend.as_mut(), target, &mut terminal);
    terminal.clear();
    summary
}

/// What a headless run shows: its notices on stderr (none with --quiet),
/// above a progress bar when stderr is a terminal.
struct Terminal {
    quiet: bool,
    bar: Option<indicatif::ProgressBar>,
    /// (settling, passed) of the bar's message.
    shown: Option<(bool, u64)>,
}

impl Terminal {
    fn new(quiet: bool) -> Terminal {
        use std::io::IsTerminal;
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} steps {per_sec} eta {eta} {msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar
        });
        Terminal {
            quiet,
            bar,
            shown: None,
        }
    }

    fn clear(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Observer for Terminal {
    fn progress(&mut self, p: &Progress) {
        let Some(b) = &self.bar else { return };
        if b.length() != Some(p.planned) {
            b.set_length(p.planned);
        }
        b.set_position(p.steps);
        let shown = (p.settling, p.totals.passed);
        // The message follows the diagnostics rows, which the first step may not write.
        if p.steps > 0 && self.shown != Some(shown) {
            self.shown = Some(shown);
            let phase = if p.settling { "settling" } else { "discharge" };
            b.set_message(format!("{phase} passed {}/{}", p.totals.passed, p.grains));
        }
    }

    fn notice(&mut self, msg: &str) {
        if self.quiet {
            return;
        }
        match &self.bar {
            Some(b) => b.println(msg),
            None => eprintln!("{msg}"),
        }
    }
}

/// The last line of a run that started at step `from` (0, or where a
/// resumed run went on): the steps it took, their wall time and rates.
fn report(summary: &Summary, from: u64, quiet: bool) {
    if quiet {
        return;
    }
    let steps = match from {
        0 => format!("{} steps", summary.steps),
        _ => format!("steps {} to {}", from, summary.steps),
    };
    eprintln!(
        "done: {steps} in {:.1} s ({:.0} steps/s, {:.3e} grain-steps/s), {} passed, {} lost, flow rate {}, mean iterations {:.1}",
        summary.wall_seconds,
        summary.steps_per_second,
        summary.grain_steps_per_second,
        summary.passed,
        summary.lost_grains,
        summary
            .flow_rate
            .map_or("n/a".to_string(), |r| format!("{r:.1} grains/s")),
        summary.mean_iterations
    );
}
