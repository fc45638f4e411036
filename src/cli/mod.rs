//! The subcommands of the `hourglass` binary, one file each. No physics here.

pub mod run;
