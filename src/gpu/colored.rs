//! Stage `colored` (shaders/colored.wgsl): graph-coloured NLGS, one dispatch
//! per colour (each a uniform `pass_color` holding k), then the overflow colour
//! in one invocation, and at the end of the step the mirror of the owners'
//! impulses into the other copies. CPU twin: [`crate::cpu::colored`]
//! (`colored_solve`, `update` for the overflow, `colored_mirror`).

use super::buffers::uniform;
use super::{GpuContext, Kernel, ShaderConfig, Stage};
use crate::cpu::coloring::{MAX_COLORS, OVERFLOW};

pub struct Colored {
    solve: Kernel,
    overflow: Kernel,
    mirror: Kernel,
}

/// The buffers a coloured pass binds, in binding order.
pub struct ColoredBindings<'a> {
    pub params: &'a wgpu::Buffer,
    pub count: &'a wgpu::Buffer,
    pub slots: &'a wgpu::Buffer,
    pub color: &'a wgpu::Buffer,
    pub inv_mass: &'a wgpu::Buffer,
    pub vel: &'a wgpu::Buffer,
    pub residual: &'a wgpu::Buffer,
}

impl Colored {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        Colored {
            solve: Kernel::new(ctx, cfg, Stage::Colored, "colored_solve"),
            overflow: Kernel::new(ctx, cfg, Stage::Colored, "colored_overflow"),
            mirror: Kernel::new(ctx, cfg, Stage::Colored, "colored_mirror"),
        }
    }

    /// `colored_solve` for the colour in `pass_color` (see [`pass_colors`]).
    pub fn bind_solve(&self, ctx: &GpuContext, b: &ColoredBindings, pass_color: &wgpu::Buffer) -> wgpu::BindGroup {
        self.solve.bind(
            ctx,
            &[
                b.params, b.count, b.slots, b.color, b.inv_mass, b.vel, b.residual, pass_color,
            ],
        )
    }

    pub fn bind_overflow(&self, ctx: &GpuContext, b: &ColoredBindings) -> wgpu::BindGroup {
        self.overflow.bind(
            ctx,
            &[b.params, b.count, b.slots, b.color, b.inv_mass, b.vel, b.residual],
        )
    }

    /// `colored_mirror` bindings: params, count, slots.
    pub fn bind_mirror(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        count: &wgpu::Buffer,
        slots: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.mirror.bind(ctx, &[params, count, slots])
    }

    pub fn dispatch_solve(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.solve.dispatch(pass, group, n_grains);
    }
    /// One invocation walks every grain.
    pub fn dispatch_overflow(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup) {
        self.overflow.dispatch(pass, group, 1);
    }
    pub fn dispatch_mirror(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.mirror.dispatch(pass, group, n_grains);
    }
}

/// One uniform per colour 0..MAX_COLORS (x = k): a pass's colour is its bind group.
pub fn pass_colors(ctx: &GpuContext) -> Vec<wgpu::Buffer> {
    (0..MAX_COLORS)
        .map(|k| uniform(ctx, &format!("hourglass.colored.pass_{k}"), &[k, 0u32, 0, 0]))
        .collect()
}

/// Keep the overflow colour outside the per-pass range.
const _: () = assert!(OVERFLOW >= MAX_COLORS);

/// Kernels, buffers and bind groups of the coloured and Uzawa solvers of a
/// [`super::GpuBackend`], built on the first step that needs them. `[p]`
/// entries work on contact lists p, like [`super::state::Groups`].
pub struct SolverState {
    pub coloring: super::coloring::Coloring,
    pub colored: Colored,
    pub uzawa: super::uzawa::Uzawa,
    pub colors: super::coloring::ColorBuffers,
    pub pass_colors: Vec<wgpu::Buffer>,
    pub step_fraction: wgpu::Buffer,
    pub init: [wgpu::BindGroup; 2],
    /// [p][r]: round reading color[r], writing color[1 - r].
    pub round: [[wgpu::BindGroup; 2]; 2],
    pub count: [wgpu::BindGroup; 2],
    /// [p][k]: colour k.
    pub solve: [Vec<wgpu::BindGroup>; 2],
    pub overflow: [wgpu::BindGroup; 2],
    pub mirror: [wgpu::BindGroup; 2],
    pub uzawa_groups: [wgpu::BindGroup; 2],
}

impl SolverState {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig, b: &super::state::Buffers, slots: usize) -> Self {
        use super::state::{INV_MASS, VEL};
        let coloring = super::coloring::Coloring::new(ctx, cfg);
        let colored = Colored::new(ctx, cfg);
        let uzawa = super::uzawa::Uzawa::new(ctx, cfg);
        let colors = super::coloring::ColorBuffers::new(ctx, slots);
        let pass_colors = pass_colors(ctx);
        let step_fraction = super::uzawa::step_fraction(ctx, crate::cpu::uzawa::UZAWA_STEP);
        let (vel, inv_mass) = (&b.grains[VEL].buf, &b.grains[INV_MASS].buf);
        let bindings = |p: usize| ColoredBindings {
            params: &b.params,
            count: &b.count[p],
            slots: &b.slots[p],
            color: &colors.color[0],
            inv_mass,
            vel,
            residual: &b.residual,
        };
        let init = [0, 1].map(|p| coloring.bind_init(ctx, &b.params, &b.count[p], &b.slots[p], &colors.color[0]));
        let round = [0, 1].map(|p| {
            [0, 1].map(|r| {
                coloring.bind_round(
                    ctx,
                    &b.params,
                    &b.count[p],
                    &b.slots[p],
                    inv_mass,
                    &colors.color[r],
                    &colors.color[1 - r],
                )
            })
        });
        let count = [0, 1].map(|p| {
            coloring.bind_count(
                ctx,
                &b.params,
                &b.count[p],
                &b.slots[p],
                &colors.color[0],
                &colors.stats,
            )
        });
        let solve = [0, 1].map(|p| {
            pass_colors
                .iter()
                .map(|k| colored.bind_solve(ctx, &bindings(p), k))
                .collect()
        });
        let overflow = [0, 1].map(|p| colored.bind_overflow(ctx, &bindings(p)));
        let mirror = [0, 1].map(|p| colored.bind_mirror(ctx, &b.params, &b.count[p], &b.slots[p]));
        let uzawa_groups = [0, 1].map(|p| {
            uzawa.bind(
                ctx,
                &b.params,
                &b.count[p],
                &b.slots[p],
                vel,
                inv_mass,
                &b.residual,
                &step_fraction,
            )
        });
        SolverState {
            coloring,
            colored,
            uzawa,
            colors,
            pass_colors,
            step_fraction,
            init,
            round,
            count,
            solve,
            overflow,
            mirror,
            uzawa_groups,
        }
    }

    /// Record `coloring_init` and the copy that makes both colour buffers start alike.
    pub fn record_init(&self, enc: &mut wgpu::CommandEncoder, p: usize, n: u32, slots: u64) {
        {
            let mut ps = super::pass(enc, &Stage::Coloring.label());
            self.coloring.dispatch_init(&mut ps, &self.init[p], n);
        }
        if slots > 0 {
            enc.copy_buffer_to_buffer(&self.colors.color[0], 0, &self.colors.color[1], 0, slots * 4);
        }
    }

    /// Record one batch of rounds and the counters (cleared first).
    pub fn record_rounds(&self, enc: &mut wgpu::CommandEncoder, p: usize, n: u32) {
        enc.clear_buffer(&self.colors.stats, 0, None);
        let mut ps = super::pass(enc, &Stage::Coloring.label());
        for r in 0..super::coloring::ROUNDS_PER_CHECK {
            self.coloring
                .dispatch_round(&mut ps, &self.round[p][(r % 2) as usize], n);
        }
        self.coloring.dispatch_count(&mut ps, &self.count[p], n);
    }

    /// Record `iterations` coloured iterations over `colors` colours (+ the overflow).
    pub fn record_colored(&self, ps: &mut wgpu::ComputePass, p: usize, n: u32, colors: u32, overflow: bool) {
        for k in 0..colors as usize {
            self.colored.dispatch_solve(ps, &self.solve[p][k], n);
        }
        if overflow {
            self.colored.dispatch_overflow(ps, &self.overflow[p]);
        }
    }
}
