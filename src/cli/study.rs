//! `hourglass study`: the solvers compared on packed states (see `hourglass::app::study`).

use std::path::PathBuf;

use hourglass::app::study::{self, STUDY_SOLVERS, SettleConfig, StateKind, StateSource, StudyConfig, report};
use hourglass::gpu::{AdapterChoice, GpuContext};
use hourglass::model::SolverKind;
use hourglass::{Error, Result};

/// Which backends `--backend` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StudyBackend {
    Cpu,
    Gpu,
    Both,
}

#[derive(clap::Args)]
pub struct StudyArgs {
    /// Backends to measure; the GPU runs jacobi, colored, uzawa and apgd only.
    #[arg(long, value_enum, default_value = "both")]
    pub backend: StudyBackend,
    /// Packed states, each settled first (hourglass50k takes long on a few cores).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "hourglass5k,column")]
    pub states: Vec<StateKind>,
    /// Iterations after which the cold step's residual is reported.
    #[arg(long, default_value_t = 200)]
    pub budget: u32,
    /// Untimed warm steps after the cold one (the steady warm-started regime is timed).
    #[arg(long, default_value_t = 10)]
    pub warmup: u32,
    /// Timed warm steps per solver.
    #[arg(long, default_value_t = 5)]
    pub steps: u32,
    /// Iteration cap per step.
    #[arg(long, default_value_t = 5000)]
    pub itmax: u32,
    /// Jacobi relaxation factors.
    #[arg(long, value_delimiter = ',', default_value = "0.3,0.4,0.5,0.6")]
    pub omegas: Vec<f32>,
    /// Solvers to measure (nlgs, jacobi, colored, seed, uzawa, apgd).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "nlgs,jacobi,colored,seed,uzawa,apgd"
    )]
    pub solvers: Vec<SolverKind>,
    /// Largest number of settle steps per state.
    #[arg(long, default_value_t = 2000)]
    pub settle_steps: u64,
    /// Iteration cap of a settle step.
    #[arg(long, default_value_t = 300)]
    pub settle_itmax: u32,
    /// Directory of study.md and residuals.png.
    #[arg(long, default_value = "study")]
    pub out: PathBuf,
    /// Directory of the settled states, reused by later studies of the same
    /// state and settle options [default: OUT/states].
    #[arg(long)]
    pub state_dir: Option<PathBuf>,
}

pub fn run(args: StudyArgs) -> Result<()> {
    let flag = |field: &str, problem: String| Error::InvalidField {
        origin: "command line".into(),
        field: field.into(),
        problem,
    };
    if let Some(bad) = args.solvers.iter().find(|s| !STUDY_SOLVERS.contains(s)) {
        return Err(flag(
            "--solvers",
            format!(
                "`{}` is not an NSCD solver (nlgs, jacobi, colored, seed, uzawa, apgd)",
                bad.name()
            ),
        ));
    }
    for (name, v) in [("--itmax", args.itmax), ("--settle-itmax", args.settle_itmax)] {
        if v == 0 {
            return Err(flag(name, "must be at least 1".into()));
        }
    }
    if let Some(w) = args.omegas.iter().find(|w| !(w.is_finite() && **w > 0.0 && **w <= 1.0)) {
        return Err(flag("--omegas", format!("{w} is outside (0, 1]")));
    }
    let cfg = StudyConfig {
        omegas: args.omegas,
        solvers: args.solvers,
        budget: args.budget,
        warmup: args.warmup,
        steps: args.steps,
        itmax: args.itmax,
        cpu: args.backend != StudyBackend::Gpu,
        gpu: args.backend != StudyBackend::Cpu,
    };
    let settle_cfg = SettleConfig {
        max_steps: args.settle_steps,
        itmax: args.settle_itmax,
        ..SettleConfig::default()
    };
    let state_dir = args.state_dir.unwrap_or_else(|| args.out.join("states"));
    let ctx = if cfg.gpu {
        GpuContext::new(AdapterChoice::Any)?
    } else {
        None
    };
    if cfg.gpu && ctx.is_none() {
        eprintln!("study: no GPU adapter; measuring the CPU only");
    }
    let mut text = format!(
        "# hourglass study\n\nCPU: {} threads. GPU: {}. tol {} m (fixed), itmax {}, budget {} iterations, {} warm steps per solver.\n\n",
        rayon::current_num_threads(),
        ctx.as_ref().map_or("none".to_string(), |c| c.adapter_name()),
        hourglass::scene::DEFAULT_TOL,
        cfg.itmax,
        cfg.budget,
        cfg.steps,
    );
    let mut rows = Vec::new();
    let mut plot = None;
    let mut gpu_plot = None;
    for kind in args.states {
        let name = kind.name();
        let started = std::time::Instant::now();
        let (packed, source) = study::packed_state(kind, &settle_cfg, &state_dir, &mut |step, speed| {
            eprintln!(
                "study: settling {name}: step {step}/{}, max speed {speed:.3} m/s, {:.0} s",
                settle_cfg.max_steps,
                started.elapsed().as_secs_f64()
            )
        })?;
        let origin = match &source {
            StateSource::Loaded(path) => format!("; loaded from {}", path.display()),
            StateSource::Settled { saved, reason } => format!("; saved to {} ({reason} there)", saved.display()),
        };
        let line = format!(
            "- {}: {} grains, settled with NLGS (tol {} m, itmax {}) in {} steps ({:.1} s), max speed {:.3} m/s{origin}\n",
            packed.name,
            packed.grains.len(),
            settle_cfg.tol,
            settle_cfg.itmax,
            packed.settle_steps,
            packed.settle_seconds,
            packed.max_speed
        );
        eprint!("study: {line}");
        text.push_str(&line);
        let res = study::study_state(&packed, &cfg, ctx.as_ref(), &mut |s| eprintln!("study: {s}"))?;
        for r in &res.rows {
            eprintln!("{}", report::format_row(r, cfg.steps));
        }
        if plot.is_none() && !res.histories.is_empty() {
            let threshold = packed.params.tol / packed.params.dt;
            let title = format!("{}: residual, cold step", packed.name);
            plot = Some(report::residual_plot(&title, &res.histories, threshold, 800, 480));
        }
        if gpu_plot.is_none() && !res.gpu_histories.is_empty() {
            let threshold = packed.params.tol / packed.params.dt;
            let title = format!("{}: residual, cold step, GPU", packed.name);
            gpu_plot = Some(report::residual_plot(&title, &res.gpu_histories, threshold, 800, 480));
        }
        rows.extend(res.rows);
    }
    let table = report::markdown(&rows, cfg.steps);
    println!("{table}");
    text.push('\n');
    text.push_str(&table);
    let plot = plot.unwrap_or_else(|| report::residual_plot("no CPU measurement", &[], 0.0, 800, 480));
    for p in report::write(&args.out, &text, &plot, gpu_plot.as_ref())? {
        eprintln!("study: {}", p.display());
    }
    Ok(())
}
