//! The subcommands of the `hourglass` binary, one file each. No physics here.

pub mod bench;
pub mod plot;
pub mod render;
pub mod run;
pub mod study;
pub mod sweep;
pub mod view;
