//! Stage `coloring` (shaders/coloring.wgsl): Jones-Plassmann rounds with
//! first-fit colours, one invocation per grain over the contacts it owns.
//! CPU twin: `cpu::coloring` (entry points `coloring_init`,
//! `coloring_round`, `coloring_count` have the same names there).
//!
//! ```text
//!   color[0], color[1]: n K u32 each (ping-pong; a round reads one, writes the other)
//!   color_stats:        [colours, uncoloured, overflow]   read back after each batch
//! ```
//! Rounds run in batches of [`ROUNDS_PER_CHECK`] (even, so the result is
//! always in `color[0]`); the host reads the counters after each batch and
//! stops at the first batch that leaves nothing uncoloured. Extra rounds after
//! the last contact got its colour change nothing, so the colouring is exactly
//! the CPU twin's.

use super::buffers::storage_zeroed;
use super::{GpuContext, Kernel, ShaderConfig, Stage};

/// Colouring rounds between two host checks (even): a few checks colour a
/// packed pile (docs/solvers.md#colouring-cpucoloring-shaderscoloringwgsl).
pub const ROUNDS_PER_CHECK: u32 = 8;
/// Words of `color_stats`.
pub const COLOR_STATS: usize = 3;

/// The colouring's pipelines.
pub struct Coloring {
    /// `coloring_init`: every listed contact uncoloured, or the overflow colour
    /// where the other grain does not list it back (into `color_out`).
    pub init: Kernel,
    /// `coloring_round`: one Jones-Plassmann round, `color_in` into `color_out`.
    pub round: Kernel,
    /// `coloring_count`: the counters into `color_stats` (atomic, cleared by the caller).
    pub count: Kernel,
}

impl Coloring {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        let kernel = |entry| Kernel::new(ctx, cfg, Stage::Coloring, entry);
        Coloring {
            init: kernel("coloring_init"),
            round: kernel("coloring_round"),
            count: kernel("coloring_count"),
        }
    }
}

/// The colour buffers of a backend: two per-slot colour arrays and the counters.
pub struct ColorBuffers {
    pub color: [wgpu::Buffer; 2],
    pub stats: wgpu::Buffer,
}

impl ColorBuffers {
    pub fn new(ctx: &GpuContext, slots: usize) -> Self {
        ColorBuffers {
            color: [0, 1].map(|p| storage_zeroed::<u32>(ctx, &format!("hourglass.color.{p}"), slots)),
            stats: storage_zeroed::<u32>(ctx, "hourglass.color_stats", COLOR_STATS),
        }
    }
}
