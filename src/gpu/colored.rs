//! Stage `colored` (shaders/colored.wgsl): graph-coloured NLGS. After the
//! colouring, `bucket_count` and `bucket_scatter` group the owned contacts by
//! colour into one list of slot indices; each iteration then runs one dispatch
//! per colour over that colour's contacts only (a uniform `pass_color` holds
//! k, its start and its size), then the overflow colour in one invocation;
//! at the end of the step `mirror` copies the owners' impulses into the other
//! copies. CPU twin: `cpu::colored` (`ColoredSweep::build` for the
//! buckets, `colored_solve`, `colored_overflow`, `colored_mirror`).
//!
//! Bucketing costs one host read per step (the sizes, to size the dispatches
//! and the uniforms) but makes an iteration touch each contact once: with one
//! invocation per grain per colour, as before, an iteration scanned every
//! contact list once per colour (16 times on the 5,000-grain hourglass).

use super::buffers::{storage_zeroed, uniform};
use super::{GpuContext, Kernel, ShaderConfig, Stage, registry};
use crate::model::{MAX_COLORS, OVERFLOW};

pub struct Colored {
    bucket_count: Kernel,
    bucket_scatter: Kernel,
    solve: Kernel,
    overflow: Kernel,
    mirror: Kernel,
    solve_friction: Kernel,
    overflow_friction: Kernel,
}

/// The colour buckets: slot indices grouped by colour, the size of each
/// colour (MAX_COLORS words) and the scatter cursors.
pub struct Buckets {
    pub bucket: wgpu::Buffer,
    pub size: wgpu::Buffer,
    pub cursor: wgpu::Buffer,
}

impl Buckets {
    pub fn new(ctx: &GpuContext, slots: usize) -> Self {
        Buckets {
            bucket: storage_zeroed::<u32>(ctx, "hourglass.colored.bucket", slots),
            size: storage_zeroed::<u32>(ctx, "hourglass.colored.bucket_size", MAX_COLORS as usize),
            cursor: storage_zeroed::<u32>(ctx, "hourglass.colored.bucket_cursor", MAX_COLORS as usize),
        }
    }
}

/// Exclusive prefix sum of the colour sizes: where each colour starts in the bucket.
pub fn bucket_starts(sizes: &[u32]) -> Vec<u32> {
    sizes
        .iter()
        .scan(0u32, |acc, &n| {
            let start = *acc;
            *acc += n;
            Some(start)
        })
        .collect()
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
    pub buckets: &'a Buckets,
    /// Friction (DESIGN §1d): radii (m) and spins (rad/s, updated).
    pub radius: &'a wgpu::Buffer,
    pub spin: &'a wgpu::Buffer,
}

impl Colored {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        let kernel = |entry, friction| Kernel::with_friction(ctx, cfg, Stage::Colored, entry, friction);
        Colored {
            bucket_count: kernel("colored_bucket_count", false),
            bucket_scatter: kernel("colored_bucket_scatter", false),
            solve: kernel("colored_solve", false),
            overflow: kernel("colored_overflow", false),
            mirror: kernel("colored_mirror", false),
            solve_friction: kernel("colored_solve", true),
            overflow_friction: kernel("colored_overflow", true),
        }
    }

    pub fn bind_bucket_count(&self, ctx: &GpuContext, b: &ColoredBindings) -> wgpu::BindGroup {
        registry::group(
            ctx,
            &self.bucket_count,
            &[
                ("params", b.params),
                ("count", b.count),
                ("slots", b.slots),
                ("color", b.color),
                ("bucket_size", &b.buckets.size),
            ],
        )
    }

    pub fn bind_bucket_scatter(&self, ctx: &GpuContext, b: &ColoredBindings) -> wgpu::BindGroup {
        registry::group(
            ctx,
            &self.bucket_scatter,
            &[
                ("params", b.params),
                ("count", b.count),
                ("slots", b.slots),
                ("color", b.color),
                ("bucket", &b.buckets.bucket),
                ("bucket_cursor", &b.buckets.cursor),
            ],
        )
    }

    /// `colored_solve` for the colour in `pass_color` (see [`pass_colors`]).
    pub fn bind_solve(&self, ctx: &GpuContext, b: &ColoredBindings, pass_color: &wgpu::Buffer) -> wgpu::BindGroup {
        registry::group(ctx, &self.solve, &solve_entries(b, pass_color))
    }

    pub fn bind_overflow(&self, ctx: &GpuContext, b: &ColoredBindings) -> wgpu::BindGroup {
        registry::group(ctx, &self.overflow, &overflow_entries(b))
    }

    /// `colored_solve` with `FRICTION` for the colour in `pass_color`.
    pub fn bind_solve_friction(
        &self,
        ctx: &GpuContext,
        b: &ColoredBindings,
        pass_color: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        registry::group(ctx, &self.solve_friction, &solve_entries(b, pass_color))
    }

    /// `colored_overflow` with `FRICTION`.
    pub fn bind_overflow_friction(&self, ctx: &GpuContext, b: &ColoredBindings) -> wgpu::BindGroup {
        registry::group(ctx, &self.overflow_friction, &overflow_entries(b))
    }

    /// `colored_mirror` bindings: params, count, slots.
    pub fn bind_mirror(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        count: &wgpu::Buffer,
        slots: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        registry::group(
            ctx,
            &self.mirror,
            &[("params", params), ("count", count), ("slots", slots)],
        )
    }

    /// Count the contacts of each colour into `Buckets::size` (which must be zero).
    pub fn dispatch_bucket_count(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.bucket_count.dispatch(pass, group, n_grains);
    }
    /// Scatter slot indices into the bucket from `Buckets::cursor` (set to the starts).
    pub fn dispatch_bucket_scatter(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.bucket_scatter.dispatch(pass, group, n_grains);
    }
    /// One colour: `size` invocations, one per contact of the colour.
    pub fn dispatch_solve(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, size: u32) {
        self.solve.dispatch(pass, group, size);
    }
    /// One invocation walks every grain.
    pub fn dispatch_overflow(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup) {
        self.overflow.dispatch(pass, group, 1);
    }
    /// One colour with `FRICTION`: `size` invocations.
    pub fn dispatch_solve_friction(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, size: u32) {
        self.solve_friction.dispatch(pass, group, size);
    }
    /// The overflow colour with `FRICTION`: one invocation walks every grain.
    pub fn dispatch_overflow_friction(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup) {
        self.overflow_friction.dispatch(pass, group, 1);
    }
    pub fn dispatch_mirror(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.mirror.dispatch(pass, group, n_grains);
    }
}

/// The bindings of `colored_solve` (both pipelines: those read under
/// `FRICTION` are in the layout of each).
fn solve_entries<'a>(b: &ColoredBindings<'a>, pass_color: &'a wgpu::Buffer) -> [(&'static str, &'a wgpu::Buffer); 9] {
    [
        ("params", b.params),
        ("slots", b.slots),
        ("inv_mass", b.inv_mass),
        ("vel", b.vel),
        ("residual", b.residual),
        ("pass_color", pass_color),
        ("bucket", &b.buckets.bucket),
        ("radius", b.radius),
        ("spin", b.spin),
    ]
}

/// The bindings of `colored_overflow` (both pipelines).
fn overflow_entries<'a>(b: &ColoredBindings<'a>) -> [(&'static str, &'a wgpu::Buffer); 9] {
    [
        ("params", b.params),
        ("count", b.count),
        ("slots", b.slots),
        ("color", b.color),
        ("inv_mass", b.inv_mass),
        ("vel", b.vel),
        ("residual", b.residual),
        ("radius", b.radius),
        ("spin", b.spin),
    ]
}

/// One uniform per colour 0..MAX_COLORS (x = k, y = start, z = size; the
/// last two set each step by [`write_pass_colors`]): a pass's colour is its bind group.
pub fn pass_colors(ctx: &GpuContext) -> Vec<wgpu::Buffer> {
    (0..MAX_COLORS)
        .map(|k| uniform(ctx, &format!("hourglass.colored.pass_{k}"), &[k, 0u32, 0, 0]))
        .collect()
}

/// Point the first `sizes.len()` pass uniforms at their colours' buckets and
/// set the scatter cursors to the starts (queued writes, before the scatter).
pub fn write_pass_colors(ctx: &GpuContext, pass_colors: &[wgpu::Buffer], buckets: &Buckets, sizes: &[u32]) {
    let starts = bucket_starts(sizes);
    for (k, (buf, (&start, &size))) in pass_colors.iter().zip(starts.iter().zip(sizes)).enumerate() {
        ctx.queue
            .write_buffer(buf, 0, bytemuck::cast_slice(&[k as u32, start, size, 0]));
    }
    if !starts.is_empty() {
        ctx.queue
            .write_buffer(&buckets.cursor, 0, bytemuck::cast_slice(&starts));
    }
}

/// Keep the overflow colour outside the per-pass range.
const _: () = assert!(OVERFLOW >= MAX_COLORS);

/// Kernels, buffers and bind groups of the coloured, Uzawa and APGD solvers of a
/// [`super::GpuBackend`], built on the first step that needs them. `[p]`
/// entries work on contact lists p, like [`super::state::Groups`].
pub struct SolverState {
    pub coloring: super::coloring::Coloring,
    pub colored: Colored,
    pub uzawa: super::uzawa::Uzawa,
    pub colors: super::coloring::ColorBuffers,
    pub buckets: Buckets,
    pub pass_colors: Vec<wgpu::Buffer>,
    pub step_fraction: wgpu::Buffer,
    pub init: [wgpu::BindGroup; 2],
    /// [p][r]: round reading color[r], writing color[1 - r].
    pub round: [[wgpu::BindGroup; 2]; 2],
    pub count: [wgpu::BindGroup; 2],
    pub bucket_count: [wgpu::BindGroup; 2],
    pub bucket_scatter: [wgpu::BindGroup; 2],
    /// [p][k]: colour k.
    pub solve: [Vec<wgpu::BindGroup>; 2],
    pub overflow: [wgpu::BindGroup; 2],
    /// The frictional passes, as `solve` and `overflow`.
    pub solve_friction: [Vec<wgpu::BindGroup>; 2],
    pub overflow_friction: [wgpu::BindGroup; 2],
    pub mirror: [wgpu::BindGroup; 2],
    pub uzawa_groups: [wgpu::BindGroup; 2],
    pub apgd: super::apgd::Apgd,
    pub apgd_bufs: super::apgd::ApgdBuffers,
    pub apgd_groups: [super::apgd::ApgdGroups; 2],
}

impl SolverState {
    /// `residual`, `vel_free` and `spins` are the NSCD stepper's per-grain
    /// residual, free velocities and spin buffers.
    pub fn new(
        core: &super::pipeline::Pipeline,
        residual: &wgpu::Buffer,
        vel_free: &wgpu::Buffer,
        spins: &super::state::Spins,
    ) -> Self {
        use super::pipeline::{INV_MASS, RADIUS, VEL};
        let (ctx, cfg, b) = (&core.ctx, &core.cfg, &core.bufs);
        let slots = core.n * core.capacity;
        let coloring = super::coloring::Coloring::new(ctx, cfg);
        let colored = Colored::new(ctx, cfg);
        let uzawa = super::uzawa::Uzawa::new(ctx, cfg);
        let colors = super::coloring::ColorBuffers::new(ctx, slots);
        let pass_colors = pass_colors(ctx);
        let buckets = Buckets::new(ctx, slots);
        let step_fraction = super::uzawa::step_fraction(ctx, crate::model::UZAWA_STEP);
        let (vel, inv_mass) = (&b.grains[VEL], &b.grains[INV_MASS]);
        let bindings = |p: usize| ColoredBindings {
            params: &b.params,
            count: &b.count[p],
            slots: &b.slots[p],
            color: &colors.color[0],
            inv_mass,
            vel,
            residual,
            buckets: &buckets,
            radius: &b.grains[RADIUS],
            spin: &spins.spin,
        };
        let (init, round, count) = coloring_groups(core, &coloring, &colors);
        let solve = [0, 1].map(|p| {
            pass_colors
                .iter()
                .map(|k| colored.bind_solve(ctx, &bindings(p), k))
                .collect()
        });
        let overflow = [0, 1].map(|p| colored.bind_overflow(ctx, &bindings(p)));
        let solve_friction = [0, 1].map(|p| {
            pass_colors
                .iter()
                .map(|k| colored.bind_solve_friction(ctx, &bindings(p), k))
                .collect()
        });
        let overflow_friction = [0, 1].map(|p| colored.bind_overflow_friction(ctx, &bindings(p)));
        let bucket_count = [0, 1].map(|p| colored.bind_bucket_count(ctx, &bindings(p)));
        let bucket_scatter = [0, 1].map(|p| colored.bind_bucket_scatter(ctx, &bindings(p)));
        let mirror = [0, 1].map(|p| colored.bind_mirror(ctx, &b.params, &b.count[p], &b.slots[p]));
        let uzawa_groups = uzawa_groups(core, &uzawa, residual, &step_fraction);
        let apgd = super::apgd::Apgd::new(ctx, cfg);
        let apgd_bufs = super::apgd::ApgdBuffers::new(ctx, slots);
        let apgd_groups = apgd_groups(core, &apgd, &apgd_bufs, residual, vel_free, spins);
        SolverState {
            coloring,
            colored,
            uzawa,
            colors,
            buckets,
            pass_colors,
            step_fraction,
            init,
            round,
            count,
            bucket_count,
            bucket_scatter,
            solve,
            overflow,
            solve_friction,
            overflow_friction,
            mirror,
            uzawa_groups,
            apgd,
            apgd_bufs,
            apgd_groups,
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

    /// Record the count of each colour's contacts (read it back, then [`Self::bucket`]).
    pub fn record_bucket_count(&self, enc: &mut wgpu::CommandEncoder, p: usize, n: u32) {
        enc.clear_buffer(&self.buckets.size, 0, None);
        let mut ps = super::pass(enc, &Stage::Colored.label());
        self.colored.dispatch_bucket_count(&mut ps, &self.bucket_count[p], n);
    }

    /// Set the pass uniforms and cursors for colours of `sizes` (as read
    /// back), and record the scatter into the bucket.
    pub fn bucket(&self, ctx: &GpuContext, enc: &mut wgpu::CommandEncoder, p: usize, n: u32, sizes: &[u32]) {
        write_pass_colors(ctx, &self.pass_colors, &self.buckets, sizes);
        let mut ps = super::pass(enc, &Stage::Colored.label());
        self.colored
            .dispatch_bucket_scatter(&mut ps, &self.bucket_scatter[p], n);
    }

    /// Record one coloured iteration: each colour of `sizes` (its contact
    /// count), then the overflow colour when there is one; the frictional
    /// passes when `friction`.
    pub fn record_colored(&self, ps: &mut wgpu::ComputePass, p: usize, sizes: &[u32], overflow: bool, friction: bool) {
        let c = &self.colored;
        for (k, &size) in sizes.iter().enumerate() {
            if friction {
                c.dispatch_solve_friction(ps, &self.solve_friction[p][k], size);
            } else {
                c.dispatch_solve(ps, &self.solve[p][k], size);
            }
        }
        match (overflow, friction) {
            (true, true) => c.dispatch_overflow_friction(ps, &self.overflow_friction[p]),
            (true, false) => c.dispatch_overflow(ps, &self.overflow[p]),
            _ => {}
        }
    }
}

/// `uzawa_contact` groups on lists p, into `residual`.
fn uzawa_groups(
    core: &super::pipeline::Pipeline,
    uzawa: &super::uzawa::Uzawa,
    residual: &wgpu::Buffer,
    step_fraction: &wgpu::Buffer,
) -> [wgpu::BindGroup; 2] {
    use super::pipeline::{INV_MASS, VEL};
    let b = &core.bufs;
    [0, 1].map(|p| {
        let bindings = super::uzawa::UzawaBindings {
            params: &b.params,
            count: &b.count[p],
            slots: &b.slots[p],
            vel: &b.grains[VEL],
            inv_mass: &b.grains[INV_MASS],
            residual,
            step_fraction,
        };
        uzawa.bind(&core.ctx, &bindings)
    })
}

/// APGD groups on lists p, from `vel_free` (and `spins.spin_free`) into `residual`.
fn apgd_groups(
    core: &super::pipeline::Pipeline,
    apgd: &super::apgd::Apgd,
    bufs: &super::apgd::ApgdBuffers,
    residual: &wgpu::Buffer,
    vel_free: &wgpu::Buffer,
    spins: &super::state::Spins,
) -> [super::apgd::ApgdGroups; 2] {
    use super::pipeline::{INV_MASS, RADIUS, VEL};
    let b = &core.bufs;
    [0, 1].map(|p| {
        let bindings = super::apgd::ApgdBindings {
            params: &b.params,
            count: &b.count[p],
            slots: &b.slots[p],
            vel_free,
            inv_mass: &b.grains[INV_MASS],
            vel: &b.grains[VEL],
            residual,
            bufs,
            spin_free: &spins.spin_free,
            radius: &b.grains[RADIUS],
            spin: &spins.spin,
        };
        apgd.bind(&core.ctx, &bindings)
    })
}

/// Bind groups of the colouring rounds: (init, round, count) as in [`SolverState`].
#[allow(clippy::type_complexity)]
fn coloring_groups(
    core: &super::pipeline::Pipeline,
    coloring: &super::coloring::Coloring,
    colors: &super::coloring::ColorBuffers,
) -> ([wgpu::BindGroup; 2], [[wgpu::BindGroup; 2]; 2], [wgpu::BindGroup; 2]) {
    let (ctx, b) = (&core.ctx, &core.bufs);
    let inv_mass = &b.grains[super::pipeline::INV_MASS];
    let init = [0, 1].map(|p| coloring.bind_init(ctx, &b.params, &b.count[p], &b.slots[p], &colors.color[0]));
    let round = [0, 1].map(|p| {
        [0, 1].map(|r| {
            let round = super::coloring::RoundBindings {
                params: &b.params,
                count: &b.count[p],
                slots: &b.slots[p],
                inv_mass,
                color_in: &colors.color[r],
                color_out: &colors.color[1 - r],
            };
            coloring.bind_round(ctx, &round)
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
    (init, round, count)
}
