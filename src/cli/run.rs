//! `hourglass run`: build the scene, pick a backend, run, write the result directory.

use std::path::PathBuf;

use hourglass::model::SolverKind;
use hourglass::output::ResultDir;
use hourglass::scene::{BackendChoice, Scene};
use hourglass::sim::{self, RunOptions};
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
    /// Discharge duration after the gate opens, s.
    #[arg(long, allow_hyphen_values = true, conflicts_with = "steps")]
    pub duration: Option<f64>,
    /// Discharge length in steps.
    #[arg(long)]
    pub steps: Option<u64>,
    /// Result directory (default: result).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write a frame and a diagnostics row every K steps.
    #[arg(long)]
    pub every: Option<u64>,
    /// Watch the run in a window.
    #[arg(long)]
    pub window: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(args: RunArgs) -> Result<()> {
    let mut scene = match &args.scene {
        Some(path) => Scene::load(path)?,
        None => Scene::default(),
    };
    if let Some(mesh) = args.mesh {
        scene.walls = hourglass::scene::WallsSpec {
            mesh: Some(mesh),
            neck_y: scene.walls.neck_y,
            ..Default::default()
        };
    }
    if let Some(g) = &args.grains {
        let count: u64 = g
            .trim()
            .parse()
            .ok()
            .filter(|&n: &u64| n > 0)
            .ok_or_else(|| Error::InvalidField {
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
    if let Some(d) = args.duration {
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
        scene.run.every = e;
    }
    if args.window {
        return Err(Error::NotImplemented {
            what: "`--window` (the live view)".into(),
        });
    }
    if !scene.solver.kind.implemented() {
        return Err(Error::NotImplemented {
            what: format!("solver `{}`", scene.solver.kind.name()),
        });
    }
    let setup = hourglass::scene::build(&scene)?;
    let grid = sim::grid_for(&setup)?;
    sim::check_initial_state(&setup, &grid)?;
    let mut notices = setup.notices.clone();
    let mut backend = sim::make_backend(&setup, grid, setup.scene.run.backend, &mut notices)?;
    let quiet = args.quiet;
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
        setup.params.solver.name(),
        backend.name(),
        backend.adapter(),
        setup.scene.run.out.display()
    ));
    let mut out = ResultDir::create(&setup.scene.run.out, &setup.scene.to_toml())?;
    let opts = RunOptions { quiet, progress: true };
    let summary = sim::run(&setup, backend.as_mut(), &mut out, &opts)?;
    out.finish(&summary)?;
    say(&format!(
        "done: {} steps in {:.1} s ({:.0} steps/s, {:.3e} grain-steps/s), {} passed, {} lost, flow rate {}, mean iterations {:.1}",
        summary.steps,
        summary.wall_seconds,
        summary.steps_per_second,
        summary.grain_steps_per_second,
        summary.passed,
        summary.lost_grains,
        summary
            .flow_rate
            .map_or("n/a".to_string(), |r| format!("{r:.1} grains/s")),
        summary.mean_iterations
    ));
    Ok(())
}
