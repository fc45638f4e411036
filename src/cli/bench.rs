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
    #[arg(long, value_enum, default_value = "jacobi")]
    pub solver: SolverKind,
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
}

pub fn run(args: BenchArgs) -> Result<()> {
    let flag = |field: &str, problem: String| hourglass::Error::InvalidField {
        origin: "command line".into(),
        field: field.into(),
        problem,
    };
    if args.sizes.contains(&0) {
        return Err(flag("--sizes", "each grain count must be >= 1, got 0".to_string()));
    }
    if args.steps == 0 {
        return Err(flag("--steps", "must be >= 1".to_string()));
    }
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
            solver: args.solver,
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
