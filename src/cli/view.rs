//! `hourglass view DIR`: replay a result directory in a window.

use std::path::PathBuf;

use hourglass::Result;
use hourglass::app::window::{WindowOptions, view};

#[derive(clap::Args)]
pub struct ViewArgs {
    /// A result directory written by `hourglass run`.
    pub dir: PathBuf,
    /// Take a screenshot after K frames, then close (for tests).
    #[arg(long, hide = true)]
    pub screenshot_after: Option<u64>,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(args: ViewArgs) -> Result<()> {
    view(
        &args.dir,
        WindowOptions {
            quiet: args.quiet,
            screenshot_after: args.screenshot_after,
        },
    )?;
    Ok(())
}
