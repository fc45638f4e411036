//! The `hourglass` command line. No physics here: parse, build the scene,
//! hand it to the library, report in one line on failure.

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
    Run(cli::run::RunArgs),
    /// Measure steps/s at several grain counts on each backend (a Markdown table).
    Bench(cli::bench::BenchArgs),
    /// Replay a result directory in a window.
    View(cli::view::ViewArgs),
    /// Render a result directory to PNG frames and an animated GIF (no window).
    Render(cli::render::RenderArgs),
    /// Plot a result directory's diagnostics to PNG files.
    Plot(cli::plot::PlotArgs),
    /// Compare the NSCD solvers on packed states: iterations, residuals, time (study.md, residuals.png).
    Study(cli::study::StudyArgs),
    /// Run every point of a sweep file on local worker processes: a result directory each and results.csv.
    Sweep(cli::sweep::SweepArgs),
}

/// Point XDG_RUNTIME_DIR at a private folder when it is unset or unusable:
/// the graphics stack otherwise prints `error: XDG_RUNTIME_DIR is invalid or
/// not set in the environment.` on every GPU run and render, `--quiet` or not.
/// The folder is `$TMPDIR/hourglass-runtime-<uid>` (mode 0700, ours only);
/// when it cannot be made safe the environment is left as it is.
fn private_runtime_dir() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::path::Path;
    let usable = std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| {
        let d = Path::new(&d);
        d.is_absolute() && d.is_dir()
    });
    if usable {
        return;
    }
    let Ok(uid) = std::fs::metadata("/proc/self").map(|m| m.uid()) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("hourglass-runtime-{uid}"));
    let _ = std::fs::create_dir(&dir);
    // A folder another user made (or a link planted there) is not used.
    let Ok(meta) = std::fs::symlink_metadata(&dir) else {
        return;
    };
    if !meta.file_type().is_dir() || meta.uid() != uid {
        return;
    }
    if std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).is_err() {
        return;
    }
    // SAFETY: called first thing in main, before any thread exists.
    unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
}

/// Run `work` on a thread of rayon's global pool (built with the main
/// thread's 8 MiB stack). The CPU stages' parallel loops then start from
/// inside the pool; started from outside, every loop hands its work to a
/// worker and sleeps until it is done, a wake-up per loop (a one-thread DEM
/// discharge took 1.36x the wall time that way, BENCHMARKS.md).
fn on_pool<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    // Fails only when a pool exists already, which then serves as it is.
    let _ = rayon::ThreadPoolBuilder::new().stack_size(8 << 20).build_global();
    rayon::scope(|_| work())
}

fn main() -> ExitCode {
    private_runtime_dir();
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
        // A window's event loop belongs to the main thread.
        Command::Run(args) if args.window => cli::run::run(args),
        Command::Run(args) => on_pool(|| cli::run::run(args)),
        Command::Bench(args) => on_pool(|| cli::bench::run(args)),
        Command::View(args) => cli::view::run(args),
        Command::Render(args) => cli::render::run(args),
        Command::Plot(args) => cli::plot::run(args),
        Command::Study(args) => on_pool(|| cli::study::run(args)),
        // Its exit status counts the failed runs.
        Command::Sweep(args) => return cli::sweep::main(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hourglass: {}", e.to_string().replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}
