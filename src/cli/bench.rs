//! `hourglass bench`: the performance table (see `hourglass::app::bench`).

use hourglass::Result;
use hourglass::app::bench::{self, BenchConfig};
use hourglass::model::SolverKind;
use hourglass::scene::BackendChoice;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Backends to measure (default: cpu and gpu, when an adapter exists).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub backend: Vec<BackendChoice>,
    /// Solver (default jacobi; with --discharge a list, default auto).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub solver: Vec<SolverKind>,
    /// Grain counts (default 10000,100000,1000000 on the GPU; 10000,100000 on the CPU).
    #[arg(long, value_delimiter = ',')]
    pub sizes: Vec<u64>,
    /// Timed steps per row.
    #[arg(long, default_value_t = 10)]
    pub steps: u64,
    /// Untimed steps first.
    #[arg(long, default_value_t = 3)]
    pub warmup: u64,
    /// Solver iterations per step (fixed work).
    #[arg(long, default_value_t = 20)]
    pub iterations: u32,
    /// Iterate to the scene's tolerance instead of a fixed count.
    #[arg(long)]
    pub converged: bool,
    /// The discharge table instead: whole runs (settle off, gate open) of
    /// the bundled hourglass (or --scene) for --duration simulated seconds,
    /// wall seconds per simulated second with the overlap reached, per
    /// solver, tolerance and N (default N: 2000,10000,50000; backend: cpu).
    #[arg(long)]
    pub discharge: bool,
    /// With --discharge: the scene to run (default: the bundled hourglass).
    #[arg(long, requires = "discharge")]
    pub scene: Option<std::path::PathBuf>,
    /// With --discharge: solver tolerances to run, m (default: the scene's).
    #[arg(long, value_delimiter = ',', requires = "discharge", allow_hyphen_values = true)]
    pub tol: Vec<f64>,
    /// With --discharge: simulated seconds per row.
    #[arg(long, default_value_t = 1.0, requires = "discharge", allow_hyphen_values = true)]
    pub duration: f64,
    /// The GPU suite instead: apgd, jacobi, colored and dem at each N
    /// (default 10000,100000,1000000,10000000) within --budget, as the
    /// table BENCHMARKS.md holds (backend: gpu, any adapter; no adapter is an error).
    #[arg(long, conflicts_with_all = ["discharge", "solver", "steps", "warmup", "iterations", "converged"])]
    pub suite: bool,
    /// With --suite: wall seconds the whole suite may take [default: 540].
    #[arg(long, value_name = "SECONDS", requires = "suite", allow_hyphen_values = true)]
    pub budget: Option<f64>,
    /// With --suite: also write the table to this file (a new file unless --force).
    #[arg(long, value_name = "FILE.md", requires = "suite")]
    pub out: Option<std::path::PathBuf>,
    /// With --suite: replace the file at --out (a link there is replaced, never written through).
    #[arg(long, requires = "out")]
    pub force: bool,
}

pub fn run(args: BenchArgs) -> Result<()> {
    if args.sizes.contains(&0) {
        return Err(flag("--sizes", "each grain count must be >= 1, got 0".to_string()));
    }
    if args.steps == 0 {
        return Err(flag("--steps", "must be >= 1".to_string()));
    }
    if args.suite {
        return suite(args);
    }
    if !args.discharge {
        check_sizes(&args.sizes, hourglass::scene::Scene::default().solver.contact_capacity)?;
    }
    if args.discharge {
        return discharge(args);
    }
    let solver = match args.solver[..] {
        [] => SolverKind::Jacobi,
        [one] => one,
        _ => return Err(flag("--solver", "takes one solver without --discharge".to_string())),
    };
    let backends = if args.backend.is_empty() {
        vec![BackendChoice::Cpu, BackendChoice::Gpu]
    } else {
        args.backend
    };
    println!("{}", bench::HEADER);
    println!("|---|---|---|---|---|---|---|---|");
    for choice in backends {
        let sizes = if !args.sizes.is_empty() {
            args.sizes.clone()
        } else if choice == BackendChoice::Cpu {
            vec![10_000, 100_000]
        } else {
            vec![10_000, 100_000, 1_000_000]
        };
        let cfg = BenchConfig {
            backends: vec![choice],
            solver,
            sizes: sizes.clone(),
            steps: args.steps,
            warmup: args.warmup,
            iterations: args.iterations,
            converged: args.converged,
        };
        for n in sizes {
            match bench::measure(choice, n, &cfg) {
                Ok(row) => println!("{}", bench::format_row(&row)),
                // No adapter, or a size beyond the adapter's limits, ends this backend's rows, not the table.
                Err(e @ hourglass::Error::Gpu(_)) => {
                    eprintln!("bench: N = {n}: {e}");
                    break;
                }
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}

/// A refused command-line flag.
fn flag(field: &str, problem: String) -> hourglass::Error {
    hourglass::Error::InvalidField {
        origin: "command line".into(),
        field: field.into(),
        problem,
    }
}

/// `bench --discharge`: one row per (backend, solver, tol, N).
fn discharge(args: BenchArgs) -> Result<()> {
    if !(args.duration.is_finite() && args.duration > 0.0) {
        return Err(flag(
            "--duration",
            format!("must be a positive number of seconds, got {}", args.duration),
        ));
    }
    if let Some(t) = args.tol.iter().find(|t| !(t.is_finite() && **t > 0.0)) {
        return Err(flag(
            "--tol",
            format!("each tolerance must be a positive length in m, got {t}"),
        ));
    }
    let scene = match &args.scene {
        Some(path) => hourglass::scene::Scene::load(path)?,
        None => hourglass::scene::Scene::default(),
    };
    check_sizes(&args.sizes, scene.solver.contact_capacity)?;
    let cfg = bench::DischargeConfig {
        scene,
        solvers: if args.solver.is_empty() {
            vec![SolverKind::Auto]
        } else {
            args.solver
        },
        tols: args.tol,
        sizes: if args.sizes.is_empty() {
            vec![2_000, 10_000, 50_000]
        } else {
            args.sizes
        },
        duration: args.duration,
    };
    let backends = if args.backend.is_empty() {
        vec![BackendChoice::Cpu]
    } else {
        args.backend
    };
    let tols: Vec<Option<f64>> = if cfg.tols.is_empty() {
        vec![None]
    } else {
        cfg.tols.iter().map(|&t| Some(t)).collect()
    };
    println!("{}", bench::DISCHARGE_HEADER);
    'backend: for choice in backends {
        for &n in &cfg.sizes {
            for &solver in &cfg.solvers {
                for &tol in &tols {
                    match bench::discharge(choice, solver, tol, n, &cfg) {
                        Ok(row) => println!("{}", bench::format_discharge(&row)),
                        // No adapter, or a size beyond its limits, ends this backend's rows.
                        Err(e @ hourglass::Error::Gpu(_)) => {
                            eprintln!("bench: N = {n}: {e}");
                            continue 'backend;
                        }
                        Err(e) => return Err(e),
                    }
                }
            }
        }
    }
    Ok(())
}

/// `--sizes`: each grain count within what this build handles and what
/// memory holds (with `capacity` contact slots a grain), refused before
/// the first row rather than by an allocation failing mid-table.
fn check_sizes(sizes: &[u64], capacity: u32) -> Result<()> {
    use hourglass::scene::{build::MAX_GRAINS, limits};
    let available = limits::available_memory();
    for &n in sizes {
        if n > MAX_GRAINS {
            return Err(hourglass::Error::InvalidField {
                origin: "command line".into(),
                field: "--sizes".into(),
                problem: format!("{n} grains is more than this build handles ({MAX_GRAINS})"),
            });
        }
        limits::check_memory(n, capacity, available, "command line", "--sizes")?;
    }
    Ok(())
}

/// `bench --suite`: refuse bad flags and an existing `--out` before
/// measuring anything, then print the table and write it to `--out`.
fn suite(args: BenchArgs) -> Result<()> {
    use bench::suite::{self, SuiteConfig};
    let budget = args.budget.unwrap_or(suite::DEFAULT_BUDGET);
    if !(budget.is_finite() && budget > 0.0) {
        return Err(flag(
            "--budget",
            format!("must be a positive number of seconds, got {budget}"),
        ));
    }
    let backend = match args.backend[..] {
        [] => BackendChoice::Gpu,
        [one] => one,
        _ => return Err(flag("--backend", "takes one backend with --suite".to_string())),
    };
    if let Some(out) = &args.out {
        check_out(out, args.force)?;
    }
    let cfg = SuiteConfig {
        backend,
        sizes: if args.sizes.is_empty() {
            suite::DEFAULT_SIZES.to_vec()
        } else {
            args.sizes
        },
        budget,
        command: command_line(),
    };
    let table = suite::run(&cfg, &mut |line| eprintln!("{line}"))?;
    let text = suite::format_suite(&table);
    print!("{text}");
    match &args.out {
        Some(out) => suite::write_table(out, &text, args.force),
        None => Ok(()),
    }
}

/// `--out`: refused when something (a file, a link, even a dangling one)
/// is there without `--force`, or when its folder does not exist.
fn check_out(out: &std::path::Path, force: bool) -> Result<()> {
    if std::fs::symlink_metadata(out).is_ok() && !force {
        return Err(flag(
            "--out",
            format!(
                "{} exists; choose another file or pass --force to replace it",
                out.display()
            ),
        ));
    }
    if out.is_dir() {
        return Err(flag("--out", format!("{} is a folder, not a file", out.display())));
    }
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty());
    if parent.is_some_and(|p| !p.is_dir()) {
        return Err(flag("--out", format!("{}: its folder does not exist", out.display())));
    }
    Ok(())
}

/// The command line as typed, `hourglass` first, arguments quoted where a shell needs it.
fn command_line() -> String {
    let plain = |a: &str| !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_.,/=:+@%".contains(c));
    let args = std::env::args_os().skip(1).map(|a| {
        let a = a.to_string_lossy().into_owned();
        if plain(&a) {
            a
        } else {
            format!("'{}'", a.replace('\'', "'\\''"))
        }
    });
    std::iter::once("hourglass".to_string())
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ")
}
