//! The GPU path: one WGSL compute stage per module, each held to its CPU twin
//! in `cpu` by a `<stage>_matches_cpu` test.
//!
//! ```text
//!   shaders/<stage>.wgsl  =  prelude (generated here: WORKGROUP_SIZE, CAPACITY, tags)
//!                          + group-0 bindings (generated from gpu::registry)
//!                          + shaders/shared.wgsl (structs, keep in sync with Rust)
//!                          + the space: shaders/space/plane.wgsl or solid.wgsl
//!                            (Vec, Spin, Tangent and their operations, the walls)
//!                          + the stage's entry points
//! ```
//! Every kernel runs one invocation per element: `len.div_ceil(WORKGROUP_SIZE)`
//! workgroups, laid out in 2D when there are more than the adapter allows per
//! dimension; WGSL recovers the flat index as (wid.y * nwg.x + wid.x) * WG + lid.
//! Bind group layouts are the pipelines' automatic ones; every bind group is
//! made by binding name ([`Kernel::group`], numbered by [`registry`]).
//!
//! A stage is a [`Kernel`] per entry point (`Kernel::new(ctx, cfg, Stage::X,
//! "entry")`), held by the stepper that runs it and documented there with its
//! contract and CPU twin: `pipeline::CoreKernels` (binning, detection,
//! reduction), `state::Kernels` (the NSCD stages), `dem::backend` (the DEM
//! stages). A stage keeps its own module only where it carries more than its
//! kernels: `prefix_sum` (multi-level scan), `coloring` and `colored` (rounds,
//! buckets, per-colour passes), `apgd` (the iteration's three passes and
//! their buffers), `reduce` (the host sum of the partials).
//!
//! The steppers ([`GpuBackend`] for NSCD, [`dem::GpuDemBackend`]) share one
//! [`pipeline::Pipeline`] (grains, binning, detection, counters, reduction)
//! and add their solve or force stages; each maps its step plan
//! (`model::plan`) to a list of [`step::StepStage`]s and runs it through
//! [`step::record`]. A step can start at any plan stage after the CPU's
//! output of the stages before it is uploaded (bisection, `crate::backend::bisect`).

pub mod apgd;
pub mod backend;
pub mod buffers;
pub mod colored;
pub mod coloring;
pub mod context;
pub mod dem;
pub mod pipeline;
pub mod prefix_sum;
pub mod reduce;
pub mod registry;
pub mod solver;
pub mod space;
pub mod state;
pub mod step;
pub mod view;

use bytemuck::{Pod, Zeroable};

pub use backend::GpuBackend;
pub use context::{AdapterChoice, GpuContext};
pub use view::{DeviceGrains, GrainView};

use crate::model::Grid;
use crate::model::contact::{BODY_CORNER, BODY_INDEX_MASK, BODY_SEGMENT, SURELY_BEYOND};
use crate::model::noise::{BITS as NOISE_BITS, SALT as NOISE_SALT, SALT_Z as NOISE_SALT_Z, TERMS as NOISE_TERMS};
use crate::model::space::{Dim2, Space};
use crate::model::speeds::{BINS as SPEED_BINS, LOW as SPEED_LOW};
use crate::model::walls::CORNER_DIRS;
use crate::model::{APGD_RESTART_AGE, MAX_COLORS, OVERFLOW, UNCOLORED};
use space::{FACE_PLANE, FACE_TRIANGLE, RIDGE_EDGE, RIDGE_VERTEX, SOLID_DIRS};

/// Invocations per workgroup for every stage. 256 is a multiple of every
/// vendor's wave/warp size and the workgroup-memory scan tile of prefix_sum.
pub const WORKGROUP_SIZE: u32 = 256;

/// Word indices in the step-counter buffer (`stats`), read back at each convergence check.
pub const STAT_RESIDUAL: u32 = 0;
pub const STAT_SPEED2: u32 = 1;
pub const STAT_OVERFLOW: u32 = 2;
pub const STAT_CONTACTS: u32 = 3;
/// Deepest overlap of the detected contacts, f32 bits (max of non-negative floats).
pub const STAT_OVERLAP: u32 = 4;
/// First of the `model::speeds::BINS` words of the grains' speed histogram
/// (`model::speeds`), counted by residual_max with the largest speed.
pub const STAT_SPEED_HIST: u32 = 5;
pub const STAT_WORDS: u32 = STAT_SPEED_HIST + SPEED_BINS as u32;

/// The stages of the GPU step, named like their shader files and CPU twins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    FreeVelocity,
    BinCount,
    PrefixSum,
    BinScatter,
    BinSort,
    Reorder,
    Detect,
    WarmStart,
    JacobiContact,
    JacobiGather,
    ResidualMax,
    Integrate,
    PredictGap,
    Reduce,
    Coloring,
    Colored,
    Uzawa,
    Apgd,
    DemForce,
    DemIntegrate,
    Cohesion,
}

/// One stage's row of [`STAGES`]: its name (the shader file's and the CPU
/// twin's), its WGSL and the shared WGSL it needs besides shaders/shared.wgsl.
struct StageRow {
    stage: Stage,
    name: &'static str,
    wgsl: &'static str,
    extra_shared: &'static str,
}

const fn row(stage: Stage, name: &'static str, wgsl: &'static str, extra_shared: &'static str) -> StageRow {
    StageRow {
        stage,
        name,
        wgsl,
        extra_shared,
    }
}

/// Every stage, in declaration order: a new stage is its variant and one row.
#[rustfmt::skip]
const STAGES: [StageRow; STAGE_COUNT] = [
    row(Stage::FreeVelocity, "free_velocity", include_str!("../../shaders/free_velocity.wgsl"), ""),
    row(Stage::BinCount, "bin_count", include_str!("../../shaders/bin_count.wgsl"), ""),
    row(Stage::PrefixSum, "prefix_sum", include_str!("../../shaders/prefix_sum.wgsl"), ""),
    row(Stage::BinScatter, "bin_scatter", include_str!("../../shaders/bin_scatter.wgsl"), ""),
    row(Stage::BinSort, "bin_sort", include_str!("../../shaders/bin_sort.wgsl"), ""),
    row(Stage::Reorder, "reorder", include_str!("../../shaders/reorder.wgsl"), ""),
    row(Stage::Detect, "detect", include_str!("../../shaders/detect.wgsl"), ""),
    row(Stage::WarmStart, "warm_start", include_str!("../../shaders/warm_start.wgsl"), ""),
    row(Stage::JacobiContact, "jacobi_contact", include_str!("../../shaders/jacobi_contact.wgsl"), ""),
    row(Stage::JacobiGather, "jacobi_gather", include_str!("../../shaders/jacobi_gather.wgsl"), ""),
    row(Stage::ResidualMax, "residual_max", include_str!("../../shaders/residual_max.wgsl"), ""),
    row(Stage::Integrate, "integrate", include_str!("../../shaders/integrate.wgsl"), ""),
    row(Stage::PredictGap, "predict_gap", include_str!("../../shaders/predict_gap.wgsl"), ""),
    row(Stage::Reduce, "reduce", include_str!("../../shaders/reduce.wgsl"), ""),
    row(Stage::Coloring, "coloring", include_str!("../../shaders/coloring.wgsl"), ""),
    row(Stage::Colored, "colored", include_str!("../../shaders/colored.wgsl"), ""),
    row(Stage::Uzawa, "uzawa", include_str!("../../shaders/uzawa.wgsl"), ""),
    row(Stage::Apgd, "apgd", include_str!("../../shaders/apgd.wgsl"), ""),
    row(Stage::DemForce, "dem_force", include_str!("../../shaders/dem_force.wgsl"), dem::DEM_SHARED_WGSL),
    row(Stage::DemIntegrate, "dem_integrate", include_str!("../../shaders/dem_integrate.wgsl"), dem::DEM_SHARED_WGSL),
    row(Stage::Cohesion, "cohesion", include_str!("../../shaders/cohesion.wgsl"), ""),
];

const STAGE_COUNT: usize = 21;

/// Each row sits at its stage's index, so a lookup is `STAGES[stage as usize]`.
const _: () = {
    let mut i = 0;
    while i < STAGE_COUNT {
        assert!(STAGES[i].stage as usize == i);
        i += 1;
    }
};

impl Stage {
    pub const ALL: [Stage; STAGE_COUNT] = {
        let mut all = [Stage::FreeVelocity; STAGE_COUNT];
        let mut i = 0;
        while i < STAGE_COUNT {
            all[i] = STAGES[i].stage;
            i += 1;
        }
        all
    };

    pub fn name(self) -> &'static str {
        STAGES[self as usize].name
    }

    /// `"hourglass.<stage>"`, the label of everything the stage creates.
    pub fn label(self) -> String {
        format!("hourglass.{}", self.name())
    }

    /// The stage's own WGSL (without prelude and shared structs).
    pub fn wgsl(self) -> &'static str {
        STAGES[self as usize].wgsl
    }

    /// Shared WGSL a stage needs besides shaders/shared.wgsl.
    /// The DEM force's also holds every contact law's WGSL and their
    /// dispatch (`model::law::wgsl`).
    /// The detection's also holds the space's walls (`space::walls_wgsl`).
    fn extra_shared(self, dim: u32) -> String {
        let row = STAGES[self as usize].extra_shared;
        match self {
            Stage::DemForce => format!("{row}\n{}", crate::model::law::wgsl()),
            Stage::Detect => format!("{row}\n{}", space::walls_wgsl(dim)),
            _ => row.to_string(),
        }
    }
}

/// The stages written over the space, which run in 3D as in the plane:
/// binning, detection, the DEM's (the warm start carries a law's history)
/// and the NSCD's of projected Jacobi, coloured NLGS (its colouring), Uzawa
/// and APGD (free velocities, cohesion, bounce, solve, push-out,
/// integration).
pub const SOLID_STAGES: [Stage; 19] = [
    Stage::FreeVelocity,
    Stage::BinCount,
    Stage::PrefixSum,
    Stage::BinScatter,
    Stage::BinSort,
    Stage::Detect,
    Stage::WarmStart,
    Stage::JacobiContact,
    Stage::JacobiGather,
    Stage::Coloring,
    Stage::Colored,
    Stage::ResidualMax,
    Stage::Integrate,
    Stage::PredictGap,
    Stage::Uzawa,
    Stage::Apgd,
    Stage::Cohesion,
    Stage::DemForce,
    Stage::DemIntegrate,
];

/// shaders/shared.wgsl, the struct definitions every stage sees.
pub const SHARED_WGSL: &str = include_str!("../../shaders/shared.wgsl");

/// Compile-time configuration injected into every shader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShaderConfig {
    /// K, contact slots per grain (`solver.contact_capacity`).
    pub capacity: u32,
    /// The space's dimension, 2 or 3: which of shaders/space/ the stages see.
    pub dim: u32,
}

impl ShaderConfig {
    /// The plane's stages with `capacity` contact slots per grain.
    pub fn new(capacity: u32) -> ShaderConfig {
        ShaderConfig::of::<Dim2>(capacity)
    }

    /// The stages of space `S` with `capacity` contact slots per grain.
    pub fn of<S: Space>(capacity: u32) -> ShaderConfig {
        ShaderConfig {
            capacity,
            dim: S::DIM as u32,
        }
    }

    /// The generated prelude: constants defined once in Rust.
    pub fn prelude(&self) -> String {
        format!(
            "// Generated by src/gpu/mod.rs (ShaderConfig::prelude); do not edit.\n\
             const WORKGROUP_SIZE: u32 = {WORKGROUP_SIZE}u;\n\
             const CAPACITY: u32 = {}u;\n\
             const CORNER_DIRS: u32 = {CORNER_DIRS}u;\n\
             const BODY_SEGMENT: u32 = {BODY_SEGMENT:#x}u;\n\
             const BODY_CORNER: u32 = {BODY_CORNER:#x}u;\n\
             const BODY_INDEX_MASK: u32 = {BODY_INDEX_MASK:#x}u;\n\
             const STAT_RESIDUAL: u32 = {STAT_RESIDUAL}u;\n\
             const STAT_SPEED2: u32 = {STAT_SPEED2}u;\n\
             const STAT_OVERFLOW: u32 = {STAT_OVERFLOW}u;\n\
             const STAT_CONTACTS: u32 = {STAT_CONTACTS}u;\n\
             const STAT_OVERLAP: u32 = {STAT_OVERLAP}u;\n\
             const STAT_SPEED_HIST: u32 = {STAT_SPEED_HIST}u;\n\
             const SPEED_BINS: u32 = {SPEED_BINS}u;\n\
             const SPEED_LOW: i32 = {SPEED_LOW}i;\n\
             const MAX_COLORS: u32 = {MAX_COLORS}u;\n\
             const OVERFLOW_COLOR: u32 = {OVERFLOW}u;\n\
             const UNCOLORED: u32 = {UNCOLORED:#x}u;\n\
             const TANGENT_MASS_RATIO: f32 = {:?};\n\
             const SOLID_DIRS: u32 = {SOLID_DIRS}u;\n\
             const FACE_PLANE: u32 = {FACE_PLANE}u;\n\
             const FACE_TRIANGLE: u32 = {FACE_TRIANGLE}u;\n\
             const RIDGE_EDGE: u32 = {RIDGE_EDGE}u;\n\
             const RIDGE_VERTEX: u32 = {RIDGE_VERTEX}u;\n\
             const NOISE_SALT: u32 = {NOISE_SALT:#x}u;\n\
             const NOISE_SALT_Z: u32 = {NOISE_SALT_Z:#x}u;\n\
             const NOISE_TERMS: u32 = {NOISE_TERMS}u;\n\
             const NOISE_BITS: u32 = {NOISE_BITS}u;\n\
             const APGD_RESTART_AGE: f32 = {APGD_RESTART_AGE:?};\n\
             const SURELY_BEYOND: f32 = {SURELY_BEYOND:?};\n",
            self.capacity,
            space::tangent_mass_ratio(self.dim),
        )
    }

    /// The full source the pipeline of `stage` compiles: the prelude, the
    /// group-0 declarations from the registry, the shared structs, the
    /// space's definitions, the stage.
    pub fn source(&self, stage: Stage) -> String {
        format!(
            "{}{}\n{}\n{}\n{}\n{}",
            self.prelude(),
            registry::declarations(stage),
            SHARED_WGSL,
            space::wgsl(self.dim),
            stage.extra_shared(self.dim),
            stage.wgsl()
        )
    }
}

/// Per-step uniform of every stage. Keep in sync with `Params` in shaders/shared.wgsl
/// (vec2 fields first, so every offset is the same under WGSL's 8-byte vec2 alignment).
/// In 3D gravity stays in the x-y plane (`Space::in_plane`), the grid's
/// origin adds `origin_z` and its size `nz`; the bounding box and the neck
/// are the plane's (`reduce`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct Params {
    /// Gravity, m/s^2.
    pub gravity: [f32; 2],
    /// Lower-left corner of the grid, m.
    pub origin: [f32; 2],
    /// Walls' bounding box (lost-grain test of `reduce`), m.
    pub bbox_lo: [f32; 2],
    pub bbox_hi: [f32; 2],
    /// Grid cell side, m.
    pub cell: f32,
    /// Time step, s, and its inverse (computed once on the host as on the CPU path).
    pub dt: f32,
    pub inv_dt: f32,
    /// Alert distance, m.
    pub alert: f32,
    /// Jacobi relaxation factor.
    pub omega: f32,
    /// Overlap push-out fraction per step (`overlap_relax`).
    pub beta: f32,
    /// Overlap left alone by the push-out, m (`StepParams::slop`).
    pub slop: f32,
    /// Height of the neck, m (`reduce`: grains below it have passed).
    pub neck_y: f32,
    pub n_grains: u32,
    pub nx: u32,
    pub ny: u32,
    pub n_segments: u32,
    pub n_corners: u32,
    /// nx * ny.
    pub n_cells: u32,
    /// Coulomb friction coefficients of grain-grain and wall contacts
    /// (`StepParams::mu`, `mu_wall`; 0 = frictionless, docs/nscd.md#coulomb-friction-and-rotation).
    pub mu: f32,
    pub mu_wall: f32,
    /// Restitution e of the NSCD projection (`StepParams::restitution`;
    /// entry point `bounce` of shaders/warm_start.wgsl).
    pub restitution: f32,
    /// Stochastic forcing (`model::Forcing`, shaders/free_velocity.wgsl):
    /// the kick's scale sqrt(dt) sigma (m/s, 0 = off, `Forcing::scale`,
    /// computed on the host as on the CPU), the folded seed and the step index.
    pub kick: f32,
    pub seed: u32,
    pub step: u32,
    /// Period along x of a grid periodic along x (`Grid::period`, m; xmin
    /// is `origin[0]`), 0 for a grid that is not: binning wraps the column,
    /// detection the 3 x 3 block's columns and the offsets between grains
    /// (the minimum image), the integration the positions.
    pub period: f32,
    /// Cells along z (1 in the plane; `n_cells` = nx ny nz).
    pub nz: u32,
    /// The grid's lowest z, m (0 in the plane).
    pub origin_z: f32,
    /// Padding to WGSL's 8-byte struct alignment; always 0.
    pub pad: u32,
}

impl Params {
    /// Grid and counts; the step and region fields are set by their users.
    pub fn new(grid: &Grid, n_grains: usize, n_segments: usize, n_corners: usize) -> Params {
        Params::of(grid, n_grains, n_segments, n_corners)
    }

    /// [`Params::new`] of a grid of either space.
    pub fn of<S: Space>(grid: &Grid<S>, n_grains: usize, n_segments: usize, n_corners: usize) -> Params {
        let origin = S::xyz(grid.origin);
        Params {
            origin: [origin[0], origin[1]],
            origin_z: origin[2],
            cell: grid.cell,
            nx: grid.nx,
            ny: grid.ny,
            nz: grid.nz,
            n_cells: grid.nx * grid.ny * grid.nz,
            period: grid.period,
            n_grains: n_grains as u32,
            n_segments: n_segments as u32,
            n_corners: n_corners as u32,
            ..Params::default()
        }
    }

    /// The fields `reduce` reads: gravity, neck height and bounding box of `region`.
    pub fn set_region(&mut self, region: &crate::model::Region) {
        self.gravity = region.gravity;
        self.neck_y = region.neck_y;
        self.bbox_lo = [region.bbox[0], region.bbox[1]];
        self.bbox_hi = [region.bbox[2], region.bbox[3]];
    }
}

/// Per-workgroup partial of `reduce`. Keep in sync with `ReducePartial` in shaders/shared.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct ReducePartial {
    /// J, J, N s (f32 partial sums over one workgroup's grains).
    pub kinetic: f32,
    pub potential: f32,
    pub momentum: [f32; 2],
    pub passed: u32,
    pub lost: u32,
    /// m, m/s.
    pub max_overlap: f32,
    pub max_speed: f32,
}

/// The name of the solver stages' pipeline-overridable constant that
/// chooses friction (`override FRICTION: bool = false;`, docs/nscd.md#coulomb-friction-and-rotation).
pub const FRICTION_CONSTANT: &str = "FRICTION";

/// A compute pipeline (built once) and its automatic bind group layout.
pub struct Kernel {
    pub stage: Stage,
    /// The entry point's name (`registry::find(stage, entry)` declares its bindings).
    pub entry: String,
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    max_per_dim: u32,
}

impl Kernel {
    /// Compile entry point `entry` of `stage`'s shader.
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig, stage: Stage, entry: &str) -> Kernel {
        Kernel::with_constants(ctx, cfg, stage, entry, &[])
    }

    /// Compile entry point `entry` of `stage`'s shader with its
    /// `override FRICTION: bool` set to `friction` (the solver stages: one
    /// entry point, a frictionless and a frictional pipeline). The automatic
    /// layout holds every binding the entry point names, those read under
    /// `FRICTION` included, so both pipelines take the same bindings.
    pub fn with_friction(ctx: &GpuContext, cfg: &ShaderConfig, stage: Stage, entry: &str, friction: bool) -> Kernel {
        let value = if friction { 1.0 } else { 0.0 };
        Kernel::with_constants(ctx, cfg, stage, entry, &[(FRICTION_CONSTANT, value)])
    }

    /// Both pipelines of a solver entry point, `[frictionless, frictional]`
    /// (index `usize::from(friction)`, see [`Kernel::with_friction`]): they
    /// take the same bindings.
    pub fn pair(ctx: &GpuContext, cfg: &ShaderConfig, stage: Stage, entry: &str) -> [Kernel; 2] {
        [false, true].map(|friction| Kernel::with_friction(ctx, cfg, stage, entry, friction))
    }

    /// Compile entry point `entry` of `stage`'s shader with the
    /// pipeline-overridable constants `constants` (name, value).
    pub fn with_constants(
        ctx: &GpuContext,
        cfg: &ShaderConfig,
        stage: Stage,
        entry: &str,
        constants: &[(&str, f64)],
    ) -> Kernel {
        let label = stage.label();
        let module = ctx.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(&label),
            source: wgpu::ShaderSource::Wgsl(cfg.source(stage).into()),
        });
        let pipeline = ctx.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&format!("{label}.{entry}")),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants,
                ..Default::default()
            },
            cache: None,
        });
        let layout = pipeline.get_bind_group_layout(0);
        Kernel {
            stage,
            entry: entry.to_string(),
            pipeline,
            layout,
            max_per_dim: ctx.limits.max_compute_workgroups_per_dimension,
        }
    }

    /// The bind group of this kernel's entry point from whole buffers given by
    /// binding name (`("count", &count)`, in any order), numbered as the
    /// registry declares them ([`registry::numbered`]).
    ///
    /// # Panics
    /// Naming the entry point (`"<stage>::<entry>"`): if it is not in the
    /// registry, if a name is not one of its bindings or is given twice, or
    /// if a binding it declares is not given.
    pub fn group(&self, ctx: &GpuContext, given: &[(&str, &wgpu::Buffer)]) -> wgpu::BindGroup {
        let entry = registry::find(self.stage, &self.entry)
            .unwrap_or_else(|| panic!("{}::{}: not in the registry", self.stage.name(), self.entry));
        let entries: Vec<wgpu::BindGroupEntry> = registry::numbered(entry, given)
            .into_iter()
            .map(|(binding, b)| wgpu::BindGroupEntry {
                binding,
                resource: b.as_entire_binding(),
            })
            .collect();
        ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&self.stage.label()),
            layout: &self.layout,
            entries: &entries,
        })
    }

    /// Run one invocation per element of `len` (nothing when `len` is 0).
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, len: u32) {
        let (x, y) = workgroups(len, self.max_per_dim);
        if x == 0 {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, group, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }
}

/// Workgroup grid (x, y) covering `len` invocations with at most `max_per_dim` per dimension.
pub fn workgroups(len: u32, max_per_dim: u32) -> (u32, u32) {
    let groups = len.div_ceil(WORKGROUP_SIZE);
    if groups <= max_per_dim {
        (groups, 1)
    } else {
        let y = groups.div_ceil(max_per_dim);
        (groups.div_ceil(y), y)
    }
}

/// A compute pass labelled after its stage.
pub fn pass<'e>(encoder: &'e mut wgpu::CommandEncoder, label: &str) -> wgpu::ComputePass<'e> {
    encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(label),
        timestamp_writes: None,
    })
}
