//! The `hourglass` command line. No physics here: parse, build the scene,
//! hand it to the library, report in one line on failure.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use hourglass::model::SolverKind;
use hourglass::output::ResultDir;
use hourglass::scene::{BackendChoice, Scene};
use hourglass::sim::{self, RunOptions};
use hourglass::{Error, Result};

#[derive(Parser)]
#[command(
    name = "hourglass",
    version,
    about = "2D granular-flow simulator (disks, segment walls, NSCD)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scene (default: the bundled hourglass) and write a result directory.
    Run(RunArgs),
}

#[derive(clap::Args)]
struct RunArgs {
    /// Scene file (TOML); flags below override it.
    scene: Option<PathBuf>,
    /// Walls from this gmsh mesh instead of the scene's.
    #[arg(long)]
    mesh: Option<PathBuf>,
    /// Number of grains of the fill.
    #[arg(long, allow_hyphen_values = true)]
    grains: Option<String>,
    #[arg(long, value_enum)]
    backend: Option<BackendChoice>,
    #[arg(long, value_enum)]
    solver: Option<SolverKind>,
    /// Discharge duration after the gate opens, s.
    #[arg(long, allow_hyphen_values = true, conflicts_with = "steps")]
    duration: Option<f64>,
    /// Discharge length in steps.
    #[arg(long)]
    steps: Option<u64>,
    /// Result directory (default: result).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write a frame and a diagnostics row every K steps.
    #[arg(long)]
    every: Option<u64>,
    /// Watch the run in a window.
    #[arg(long)]
    window: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                eprintln!("hourglass: no command given; try `hourglass run` or `hourglass --help`");
                return ExitCode::from(2);
            }
            // clap's message is several lines (usage, tip); keep the first.
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            eprintln!("hourglass: {}", first.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Run(args) => run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hourglass: {}", e.to_string().replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}

fn run(args: RunArgs) -> Result<()> {
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
