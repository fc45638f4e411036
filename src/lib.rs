//! hourglass: a 2D granular-flow simulator. Grains are disks, walls are line
//! segments; contacts are solved by non-smooth contact dynamics (docs/nscd.md).
//! The CPU path in [`cpu`] is the reference every GPU stage is held to.

pub mod analysis;
pub mod app;
pub mod backend;
pub mod cpu;
pub mod error;
pub mod gpu;
pub mod model;
pub mod output;
pub mod render;
pub mod scene;
pub mod sim;
pub mod sweep;

pub use error::{Error, Result};
