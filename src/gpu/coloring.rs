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
use super::{GpuContext, Kernel, ShaderConfig, Stage, registry};

/// Colouring rounds between two host checks (even). Measured: 19-26 rounds
/// colour a packed pile of 500-600 grains (tests/coloring.rs).
pub const ROUNDS_PER_CHECK: u32 = 8;
/// Words of `color_stats`.
pub const COLOR_STATS: usize = 3;

/// The buffers of `coloring::coloring_round` (its bindings of the same names).
pub struct RoundBindings<'a> {
    pub params: &'a wgpu::Buffer,
    pub count: &'a wgpu::Buffer,
    pub slots: &'a wgpu::Buffer,
    pub inv_mass: &'a wgpu::Buffer,
    /// The colours of the previous round.
    pub color_in: &'a wgpu::Buffer,
    /// Written: the colours of this round.
    pub color_out: &'a wgpu::Buffer,
}

pub struct Coloring {
    init: Kernel,
    round: Kernel,
    count: Kernel,
}

impl Coloring {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        Coloring {
            init: Kernel::new(ctx, cfg, Stage::Coloring, "coloring_init"),
            round: Kernel::new(ctx, cfg, Stage::Coloring, "coloring_round"),
            count: Kernel::new(ctx, cfg, Stage::Coloring, "coloring_count"),
        }
    }

    /// `coloring_init` bindings: params, count, slots, color_out (written).
    pub fn bind_init(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        count: &wgpu::Buffer,
        slots: &wgpu::Buffer,
        color_out: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        let given = [
            ("params", params),
            ("count", count),
            ("slots", slots),
            ("color_out", color_out),
        ];
        registry::group(ctx, &self.init, &given)
    }

    /// The `coloring_round` bind group of `b`, numbered by the registry.
    pub fn bind_round(&self, ctx: &GpuContext, b: &RoundBindings) -> wgpu::BindGroup {
        let given = [
            ("params", b.params),
            ("count", b.count),
            ("slots", b.slots),
            ("inv_mass", b.inv_mass),
            ("color_in", b.color_in),
            ("color_out", b.color_out),
        ];
        registry::group(ctx, &self.round, &given)
    }

    /// `coloring_count` bindings: params, count, slots, color_in, color_stats (atomic, cleared by the caller).
    pub fn bind_count(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        count: &wgpu::Buffer,
        slots: &wgpu::Buffer,
        color_in: &wgpu::Buffer,
        color_stats: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        let given = [
            ("params", params),
            ("count", count),
            ("slots", slots),
            ("color_in", color_in),
            ("color_stats", color_stats),
        ];
        registry::group(ctx, &self.count, &given)
    }

    pub fn dispatch_init(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.init.dispatch(pass, group, n_grains);
    }
    pub fn dispatch_round(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.round.dispatch(pass, group, n_grains);
    }
    pub fn dispatch_count(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.count.dispatch(pass, group, n_grains);
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
