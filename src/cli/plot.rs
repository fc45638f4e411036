//! `hourglass plot DIR`: PNG plots of a result directory's diagnostics.

use std::path::PathBuf;

use hourglass::Result;

#[derive(clap::Args)]
pub struct PlotArgs {
    /// A result directory written by `hourglass run`.
    pub dir: PathBuf,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(args: PlotArgs) -> Result<()> {
    let paths = hourglass::app::plot::plot_dir(&args.dir)?;
    if !args.quiet {
        for p in paths {
            eprintln!("plot: {}", p.display());
        }
    }
    super::render::incomplete_notice(&args.dir, args.quiet);
    Ok(())
}
