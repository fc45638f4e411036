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
//! and the uniforms) but makes an iteration touch each contact once, where
//! one invocation per grain per colour would scan every contact list once
//! per colour (16 times on the 5,000-grain hourglass).

use super::buffers::{storage_zeroed, uniform};
use super::solver::Batch;
use super::{GpuContext, Kernel, ShaderConfig, Stage};
use crate::model::{MAX_COLORS, OVERFLOW};

/// The coloured solver's pipelines; `[f]` pairs are [`Kernel::pair`]s (f = friction).
pub struct Colored {
    /// Count the contacts of each colour into `Buckets::size` (which must be zero).
    pub bucket_count: Kernel,
    /// Scatter slot indices into the bucket from `Buckets::cursor` (set to the starts).
    pub bucket_scatter: Kernel,
    /// One colour: one invocation per contact of the colour in `pass_color`.
    pub solve: [Kernel; 2],
    /// The overflow colour: one invocation walks every grain.
    pub overflow: [Kernel; 2],
    /// The owners' impulses into the other copies, one invocation per grain.
    pub mirror: Kernel,
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

/// The buffers the coloured passes bind, by binding name.
pub struct ColoredBindings<'a> {
    pub params: &'a wgpu::Buffer,
    pub count: &'a wgpu::Buffer,
    pub slots: &'a wgpu::Buffer,
    pub color: &'a wgpu::Buffer,
    pub inv_mass: &'a wgpu::Buffer,
    pub vel: &'a wgpu::Buffer,
    pub residual: &'a wgpu::Buffer,
    pub buckets: &'a Buckets,
    /// Friction (docs/nscd.md#coulomb-friction-and-rotation): radii (m) and spins (rad/s, updated).
    pub radius: &'a wgpu::Buffer,
    pub spin: &'a wgpu::Buffer,
    /// The uniform holding the normal rows' over-relaxation (x; see [`relax`]).
    pub relax: &'a wgpu::Buffer,
}

/// A list of buffers by binding name, as [`Kernel::group`] takes it.
type Named<'a, const N: usize> = [(&'static str, &'a wgpu::Buffer); N];

impl<'a> ColoredBindings<'a> {
    /// `params`, `count`, `slots`: what every pass but the solve's reads first.
    fn lists(&self) -> Named<'a, 3> {
        [("params", self.params), ("count", self.count), ("slots", self.slots)]
    }

    /// The bindings of `colored_bucket_count`.
    pub fn bucket_count(&self) -> Vec<(&'static str, &'a wgpu::Buffer)> {
        [
            &self.lists()[..],
            &[("color", self.color), ("bucket_size", &self.buckets.size)],
        ]
        .concat()
    }

    /// The bindings of `colored_bucket_scatter`.
    pub fn bucket_scatter(&self) -> Vec<(&'static str, &'a wgpu::Buffer)> {
        let b = self.buckets;
        let more = [
            ("color", self.color),
            ("bucket", &b.bucket),
            ("bucket_cursor", &b.cursor),
        ];
        [&self.lists()[..], &more[..]].concat()
    }

    /// The bindings of `colored_solve` for the colour in `pass_color` (see
    /// [`pass_colors`]; both pipelines: those read under `FRICTION` are in
    /// the layout of each).
    pub fn solve(&self, pass_color: &'a wgpu::Buffer) -> Named<'a, 10> {
        [
            ("params", self.params),
            ("slots", self.slots),
            ("inv_mass", self.inv_mass),
            ("vel", self.vel),
            ("residual", self.residual),
            ("pass_color", pass_color),
            ("bucket", &self.buckets.bucket),
            ("radius", self.radius),
            ("spin", self.spin),
            ("relax", self.relax),
        ]
    }

    /// The bindings of `colored_overflow` (both pipelines).
    pub fn overflow(&self) -> Vec<(&'static str, &'a wgpu::Buffer)> {
        let more = [
            ("color", self.color),
            ("inv_mass", self.inv_mass),
            ("vel", self.vel),
            ("residual", self.residual),
            ("radius", self.radius),
            ("spin", self.spin),
            ("relax", self.relax),
        ];
        [&self.lists()[..], &more[..]].concat()
    }

    /// The bindings of `colored_mirror`.
    pub fn mirror(&self) -> Named<'a, 3> {
        self.lists()
    }
}

impl Colored {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        let kernel = |entry| Kernel::new(ctx, cfg, Stage::Colored, entry);
        Colored {
            bucket_count: kernel("colored_bucket_count"),
            bucket_scatter: kernel("colored_bucket_scatter"),
            solve: Kernel::pair(ctx, cfg, Stage::Colored, "colored_solve"),
            overflow: Kernel::pair(ctx, cfg, Stage::Colored, "colored_overflow"),
            mirror: kernel("colored_mirror"),
        }
    }
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

/// The uniform holding the over-relaxation `sor` of the colour passes'
/// normal rows (x; y, z, w unused): 1 is plain Gauss-Seidel.
pub fn relax(ctx: &GpuContext, sor: f32) -> wgpu::Buffer {
    uniform(ctx, "hourglass.colored.relax", &[sor, 0.0, 0.0, 0.0])
}

/// Keep the overflow colour outside the per-pass range.
const _: () = assert!(OVERFLOW >= MAX_COLORS);

/// The coloured solver of a [`super::GpuBackend`] (built on its first
/// coloured step): the colouring and colour passes' kernels, buffers and
/// bind groups, and this step's colours. `[p]` entries work on contact lists
/// p, like [`super::state::Groups`]; `[f]` those of a [`Kernel::pair`]
/// (f = friction).
pub struct ColoredSolver {
    pub coloring: super::coloring::Coloring,
    pub colored: Colored,
    pub colors: super::coloring::ColorBuffers,
    pub buckets: Buckets,
    pub pass_colors: Vec<wgpu::Buffer>,
    pub init: [wgpu::BindGroup; 2],
    /// `[p][r]`: round reading `color[r]`, writing `color[1 - r]`.
    pub round: [[wgpu::BindGroup; 2]; 2],
    pub count: [wgpu::BindGroup; 2],
    pub bucket_count: [wgpu::BindGroup; 2],
    pub bucket_scatter: [wgpu::BindGroup; 2],
    /// `[p][f][k]`: colour k.
    pub solve: [[Vec<wgpu::BindGroup>; 2]; 2],
    /// `[p][f]`.
    pub overflow: [[wgpu::BindGroup; 2]; 2],
    pub mirror: [wgpu::BindGroup; 2],
    /// Contacts of each colour of this step (the bucket sizes, as read back).
    pub sizes: Vec<u32>,
    /// This step has an overflow colour.
    pub has_overflow: bool,
    /// [`relax`]'s buffer and the value last queued into it.
    pub relax: wgpu::Buffer,
    sor: std::cell::Cell<f32>,
}

impl ColoredSolver {
    /// `residual` and `spins` are the NSCD stepper's per-grain residual and spin buffers.
    pub fn new<S: super::space::GpuSpace>(
        core: &super::pipeline::Pipeline<S>,
        residual: &wgpu::Buffer,
        spins: &super::state::Spins,
    ) -> Self {
        use super::pipeline::{INV_MASS, RADIUS, VEL};
        let (ctx, cfg, b) = (&core.ctx, &core.cfg, &core.bufs);
        let slots = core.n * core.capacity;
        let coloring = super::coloring::Coloring::new(ctx, cfg);
        let colored = Colored::new(ctx, cfg);
        let colors = super::coloring::ColorBuffers::new(ctx, slots);
        let pass_colors = pass_colors(ctx);
        let buckets = Buckets::new(ctx, slots);
        let relax = relax(ctx, 1.0);
        let bindings = |p: usize| ColoredBindings {
            params: &b.params,
            count: &b.count[p],
            slots: &b.slots[p],
            color: &colors.color[0],
            inv_mass: &b.grains[INV_MASS],
            vel: &b.grains[VEL],
            residual,
            buckets: &buckets,
            radius: &b.grains[RADIUS],
            spin: &spins.spin,
            relax: &relax,
        };
        let (init, round, count) = coloring_groups(core, &coloring, &colors);
        let solve = [0, 1].map(|p| {
            let b = bindings(p);
            (colored.solve.each_ref()).map(|k| pass_colors.iter().map(|c| k.group(ctx, &b.solve(c))).collect())
        });
        let overflow = [0, 1].map(|p| {
            colored
                .overflow
                .each_ref()
                .map(|k| k.group(ctx, &bindings(p).overflow()))
        });
        let bucket_count = [0, 1].map(|p| colored.bucket_count.group(ctx, &bindings(p).bucket_count()));
        let bucket_scatter = [0, 1].map(|p| colored.bucket_scatter.group(ctx, &bindings(p).bucket_scatter()));
        let mirror = [0, 1].map(|p| colored.mirror.group(ctx, &bindings(p).mirror()));
        ColoredSolver {
            coloring,
            colored,
            colors,
            buckets,
            pass_colors,
            init,
            round,
            count,
            bucket_count,
            bucket_scatter,
            solve,
            overflow,
            mirror,
            sizes: Vec::new(),
            has_overflow: false,
            relax,
            sor: std::cell::Cell::new(1.0),
        }
    }

    /// Record `coloring_init` and the copy that makes both colour buffers start alike.
    pub fn record_init(&self, enc: &mut wgpu::CommandEncoder, p: usize, n: u32, slots: u64) {
        {
            let mut ps = super::pass(enc, &Stage::Coloring.label());
            self.coloring.init.dispatch(&mut ps, &self.init[p], n);
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
            (self.coloring.round).dispatch(&mut ps, &self.round[p][(r % 2) as usize], n);
        }
        self.coloring.count.dispatch(&mut ps, &self.count[p], n);
    }

    /// Record the count of each colour's contacts (read it back, then [`Self::bucket`]).
    pub fn record_bucket_count(&self, enc: &mut wgpu::CommandEncoder, p: usize, n: u32) {
        enc.clear_buffer(&self.buckets.size, 0, None);
        let mut ps = super::pass(enc, &Stage::Colored.label());
        self.colored.bucket_count.dispatch(&mut ps, &self.bucket_count[p], n);
    }

    /// Set the pass uniforms and cursors for the colours of [`Self::sizes`]
    /// (as read back), and record the scatter into the bucket.
    pub fn bucket(&self, ctx: &GpuContext, enc: &mut wgpu::CommandEncoder, p: usize, n: u32) {
        write_pass_colors(ctx, &self.pass_colors, &self.buckets, &self.sizes);
        let mut ps = super::pass(enc, &Stage::Colored.label());
        self.colored
            .bucket_scatter
            .dispatch(&mut ps, &self.bucket_scatter[p], n);
    }
}

/// One coloured iteration: each colour of [`ColoredSolver::sizes`] (its
/// contact count), then the overflow colour when there is one; the
/// frictional passes with friction. The passes max into the residual.
impl super::solver::GpuSolver for ColoredSolver {
    fn iterate(&self, ps: &mut wgpu::ComputePass, it: &super::solver::Iteration<'_>) {
        let (c, f, p) = (&self.colored, usize::from(it.friction), it.cur);
        for (k, &size) in self.sizes.iter().enumerate() {
            c.solve[f].dispatch(ps, &self.solve[p][f][k], size);
        }
        if self.has_overflow {
            c.overflow[f].dispatch(ps, &self.overflow[p][f], 1);
        }
    }
    fn maxes_residual(&self) -> bool {
        true
    }
    /// `model::solver::colored_sor` at its cadence: the batch ends at the
    /// next `colored_sor_due` iteration.
    fn before_batch(&self, ctx: &GpuContext, b: &Batch<'_>) -> u32 {
        use crate::model::solver::{colored_sor, colored_sor_above, colored_sor_due, colored_sor_span};
        if colored_sor_due(b.done) {
            let above = colored_sor_above(b.threshold, b.p.gravity, b.p.dt);
            let sor = colored_sor(b.done, b.last, above, b.p.friction());
            if sor != self.sor.get() {
                ctx.queue
                    .write_buffer(&self.relax, 0, bytemuck::cast_slice(&[sor, 0.0, 0.0, 0.0]));
                self.sor.set(sor);
            }
        }
        colored_sor_span(b.done)
    }
    fn colored(&mut self) -> Option<&mut ColoredSolver> {
        Some(self)
    }
    fn mirror(&self, ps: &mut wgpu::ComputePass, cur: usize, n: u32) {
        self.colored.mirror.dispatch(ps, &self.mirror[cur], n);
    }
}

/// Bind groups of the colouring rounds: (init, round, count) as in [`ColoredSolver`].
#[allow(clippy::type_complexity)]
fn coloring_groups<S: super::space::GpuSpace>(
    core: &super::pipeline::Pipeline<S>,
    coloring: &super::coloring::Coloring,
    colors: &super::coloring::ColorBuffers,
) -> ([wgpu::BindGroup; 2], [[wgpu::BindGroup; 2]; 2], [wgpu::BindGroup; 2]) {
    let (ctx, b) = (&core.ctx, &core.bufs);
    let inv_mass = &b.grains[super::pipeline::INV_MASS];
    let lists = |p: usize| [("params", &b.params), ("count", &b.count[p]), ("slots", &b.slots[p])];
    let [c0, c1] = &colors.color;
    let init = [0, 1].map(|p| {
        coloring
            .init
            .group(ctx, &[&lists(p)[..], &[("color_out", c0)]].concat())
    });
    let round = [0, 1].map(|p| {
        [(c0, c1), (c1, c0)].map(|(from, to)| {
            let more = [("inv_mass", inv_mass), ("color_in", from), ("color_out", to)];
            coloring.round.group(ctx, &[&lists(p)[..], &more[..]].concat())
        })
    });
    let count = [0, 1].map(|p| {
        let more = [("color_in", c0), ("color_stats", &colors.stats)];
        coloring.count.group(ctx, &[&lists(p)[..], &more[..]].concat())
    });
    (init, round, count)
}
