//! The shared core of the GPU steppers: the grain arrays, binning, contact
//! detection, step counters and the diagnostics reduction, with their kernels
//! and bind groups. NSCD ([`super::GpuBackend`]) and DEM
//! ([`super::dem::GpuDemBackend`]) both own one [`Pipeline`] and add only
//! their solve or force stages (and their own buffers) on top.
//!
//! ```text
//!   grains:   pos vel radius inv_mass id                         (n each)
//!   bins:     cell_of (n) sorted (n) cell_count cursor (cells) cell_start (cells + 1)
//!   lists[p]: count (n) slots (n K Contact)   p < lists (NSCD 2: this step's and last; DEM 1)
//!   stats:    [residual bits, |v|^2 bits, overflow, contacts]  (+ a MAP_READ staging copy)
//!   partials: one ReducePartial per workgroup; walls: segments, corners,
//!     segment_vel (2 vec2 per segment: its ends' velocities), corner_vel (1 vec2 per corner),
//!     wall_index (which bodies lie near each cell; 3D's planes, triangles, edges and vertices:
//!     gpu::space)
//! ```
//! Every buffer is labelled `<prefix>.<name>` (`hourglass.pos`, `hourglass.dem.pos`).

use super::buffers::{GrainBuffers, read, read_grains, storage, storage_zeroed, uniform};
use super::prefix_sum::{PrefixSum, ScanPlan};
use super::reduce::{partials, sum_partials};
use super::space::GpuSpace;
use super::step::StepStage;
use super::{GpuContext, Kernel, Params, ReducePartial, STAT_WORDS, ShaderConfig, Stage, pass};
use crate::error::{Error, Result};
use crate::model::{Contact, Dim2, Grains, Grid, Region, Space, Totals, Walls};

/// Indices of [`CoreBuffers::grains`].
pub const POS: usize = 0;
pub const VEL: usize = 1;
pub const RADIUS: usize = 2;
pub const INV_MASS: usize = 3;
pub const ID: usize = 4;
/// Names of the grain arrays, in [`CoreBuffers::grains`] order.
pub const GRAIN_ARRAYS: [&str; 5] = ["pos", "vel", "radius", "inv_mass", "id"];

/// Storage buffers `detect::main` binds (the most of any entry point; checked against the adapter).
pub const DETECT_STORAGE_BUFFERS: u32 = 13;

/// Kernels of the shared stages, built once: each entry point's contract and CPU twin.
pub struct CoreKernels {
    /// `bin_count::main`: `cell_of[i] = cell(x_i)` and `cell_count[c] += 1` by
    /// atomicAdd (`ClearCells` zeroes cell_count first). Twin `cpu::grid::bin_count`.
    pub bin_count: Kernel,
    pub prefix_sum: PrefixSum,
    /// `bin_scatter::main`: `sorted[cursor[cell_of[i]]++] = i` with an atomic
    /// cursor per cell (`CursorCopy` starts it as cell_start); the order
    /// inside a cell is that of the atomics, which varies from run to run.
    /// Twin `cpu::grid::bin_scatter`.
    pub bin_scatter: Kernel,
    /// `bin_sort::main`: the grains of each cell in increasing index order,
    /// one invocation per cell sorting its slice of `sorted` in place; after
    /// it the binning, and with it the order of every contact list and of
    /// every per-grain sum, is the same in every run on a given adapter, and
    /// the same as the CPU's. Twin `cpu::grid::bin_sort`.
    pub bin_sort: Kernel,
    /// `detect::main`: potential contacts into per-grain lists of CAPACITY
    /// slots, the layout and order of the CPU twin `cpu::detect::detect`:
    /// ```text
    ///   count: [c_0 .. c_{n-1}]   contacts FOUND per grain (may exceed K: overflow)
    ///   slots: [grain 0: K][grain 1: K] ...   grains of the 3x3 cells, segments, corners
    ///   stats[STAT_OVERFLOW] += sum max(0, c_i - K);  stats[STAT_CONTACTS] += distinct listed
    /// ```
    pub detect: Kernel,
    /// `reduce::main`: the diagnostics, one f32 `ReducePartial` per workgroup
    /// of grains, summed on the host by [`sum_partials`]. Twin `cpu::reduce::reduce`.
    /// The plane's (None in 3D, whose totals are found on the host).
    pub reduce: Option<Kernel>,
}

/// Buffers of the shared stages (see the module doc).
pub struct CoreBuffers {
    pub params: wgpu::Buffer,
    /// pos, vel, radius, inv_mass, id ([`POS`] ..).
    pub grains: [wgpu::Buffer; 5],
    pub cell_of: wgpu::Buffer,
    pub sorted: wgpu::Buffer,
    pub cell_count: wgpu::Buffer,
    pub cursor: wgpu::Buffer,
    pub cell_start: wgpu::Buffer,
    pub count: Vec<wgpu::Buffer>,
    pub slots: Vec<wgpu::Buffer>,
    pub stats: wgpu::Buffer,
    pub stats_staging: wgpu::Buffer,
    pub partials: wgpu::Buffer,
    pub segments: wgpu::Buffer,
    pub corners: wgpu::Buffer,
    /// The velocity of each segment's ends a and b, m/s (`Walls::segment_vel`;
    /// zeros for still walls), read by detection into `Contact::wall_vel`.
    pub segment_vel: wgpu::Buffer,
    /// The velocity of each corner, m/s (`Walls::corner_vel`; zeros for still walls).
    pub corner_vel: wgpu::Buffer,
    /// Which wall bodies lie near each cell (`GpuSpace::wall_index`).
    pub wall_index: wgpu::Buffer,
}

/// Bind groups of the shared stages; `[p]` entries work on lists p.
pub struct CoreGroups {
    pub bin_count: wgpu::BindGroup,
    pub scan: ScanPlan,
    pub bin_scatter: wgpu::BindGroup,
    pub bin_sort: wgpu::BindGroup,
    pub detect: Vec<wgpu::BindGroup>,
    pub reduce: Vec<wgpu::BindGroup>,
}

/// The shared core of a GPU stepper (see the module doc), in the space `S`.
pub struct Pipeline<S: GpuSpace = Dim2> {
    pub ctx: GpuContext,
    pub cfg: ShaderConfig,
    pub kernels: CoreKernels,
    pub bufs: CoreBuffers,
    pub groups: CoreGroups,
    /// Host copy of the `Params` uniform; [`Pipeline::write_params`] uploads it.
    pub params: Params,
    pub grid: Grid<S>,
    /// Grains, and contact slots per grain (K).
    pub n: usize,
    pub capacity: usize,
    prefix: &'static str,
}

impl<S: GpuSpace> Pipeline<S> {
    /// Upload `grains` and `walls` with `lists` contact lists; fails with
    /// [`Error::Gpu`] naming the adapter limit a buffer of this scene
    /// exceeds, or a wall body the GPU cannot hold.
    pub fn new(
        ctx: GpuContext,
        prefix: &'static str,
        grains: &Grains<S>,
        walls: &S::Walls,
        grid: Grid<S>,
        capacity: usize,
        lists: usize,
    ) -> Result<Pipeline<S>> {
        let bodies = S::wall_bodies(walls);
        let wall_bytes = [
            std::mem::size_of_val(bodies.0.as_slice()),
            std::mem::size_of_val(bodies.1.as_slice()),
            S::wall_index(walls).len() * 4,
        ];
        check_limits::<S>(&ctx, grains.len(), wall_bytes, grid.cells(), capacity)?;
        let cfg = ShaderConfig::of::<S>(capacity as u32);
        let kernels = CoreKernels {
            bin_count: Kernel::new(&ctx, &cfg, Stage::BinCount, "main"),
            prefix_sum: PrefixSum::new(&ctx, &cfg),
            bin_scatter: Kernel::new(&ctx, &cfg, Stage::BinScatter, "main"),
            bin_sort: Kernel::new(&ctx, &cfg, Stage::BinSort, "main"),
            detect: Kernel::new(&ctx, &cfg, Stage::Detect, "main"),
            reduce: (S::DIM == 2).then(|| Kernel::new(&ctx, &cfg, Stage::Reduce, "main")),
        };
        let (n_segments, n_corners) = S::body_counts(walls);
        let params = Params::of(&grid, grains.len(), n_segments, n_corners);
        let bufs = CoreBuffers::new::<S>(&ctx, prefix, &params, grains, (&bodies, walls), capacity, lists);
        let groups = CoreGroups::new(&ctx, &kernels, &bufs, grid.cells() as u32);
        Ok(Pipeline {
            ctx,
            cfg,
            kernels,
            bufs,
            groups,
            params,
            grid,
            n: grains.len(),
            capacity,
            prefix,
        })
    }

    /// `<prefix>.<name>`.
    pub fn label(&self, name: &str) -> String {
        format!("{}.{name}", self.prefix)
    }

    pub fn encoder(&self, label: &str) -> wgpu::CommandEncoder {
        self.ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) })
    }

    pub fn write_params(&self) {
        self.ctx
            .queue
            .write_buffer(&self.bufs.params, 0, bytemuck::bytes_of(&self.params));
    }

    /// Replace the wall buffers (the gate opens) and the bind groups that
    /// read them.
    pub fn set_walls(&mut self, walls: &S::Walls) {
        let (faces, ridges) = S::wall_bodies(walls);
        let (face_vel, ridge_vel) = S::wall_velocities(walls);
        self.bufs.segments = storage(&self.ctx, &self.label("segments"), &faces);
        self.bufs.corners = storage(&self.ctx, &self.label("corners"), &ridges);
        self.bufs.segment_vel = storage(&self.ctx, &self.label("segment_vel"), &face_vel);
        self.bufs.corner_vel = storage(&self.ctx, &self.label("corner_vel"), &ridge_vel);
        self.bufs.wall_index = storage(&self.ctx, &self.label("wall_index"), &S::wall_index(walls));
        let (n_segments, n_corners) = S::body_counts(walls);
        self.params.n_segments = n_segments as u32;
        self.params.n_corners = n_corners as u32;
        self.write_params();
        self.groups = CoreGroups::new(&self.ctx, &self.kernels, &self.bufs, self.grid.cells() as u32);
    }

    /// A bind group of the detection writing lists `list` against other
    /// walls than the pipeline's: `segments` and `corners`, as many as the
    /// walls uploaded last, moving at their velocities (`segment_vel`,
    /// `corner_vel`). Made again after [`Self::set_walls`].
    pub fn detect_group(&self, list: usize, segments: &wgpu::Buffer, corners: &wgpu::Buffer) -> wgpu::BindGroup {
        detect_group(&self.ctx, &self.kernels, &self.bufs, list, segments, corners)
    }

    /// Record a shared dispatch stage; `list` is the contact lists it writes.
    pub fn dispatch(&self, stage: StepStage, list: usize, ps: &mut wgpu::ComputePass) {
        let (k, g, n) = (&self.kernels, &self.groups, self.n as u32);
        match stage {
            StepStage::BinCount => k.bin_count.dispatch(ps, &g.bin_count, n),
            StepStage::PrefixSum => k.prefix_sum.dispatch(ps, &g.scan),
            StepStage::BinScatter => k.bin_scatter.dispatch(ps, &g.bin_scatter, n),
            StepStage::BinSort => k.bin_sort.dispatch(ps, &g.bin_sort, self.params.n_cells),
            StepStage::Detect => k.detect.dispatch(ps, &g.detect[list], n),
            other => unreachable!("{other:?} is not a shared dispatch stage"),
        }
    }

    /// Record a shared host stage.
    pub fn encode(&self, stage: StepStage, enc: &mut wgpu::CommandEncoder) {
        match stage {
            StepStage::ClearStats => enc.clear_buffer(&self.bufs.stats, 0, None),
            StepStage::ClearCells => enc.clear_buffer(&self.bufs.cell_count, 0, None),
            // The scatter's cursors start as cell_start.
            StepStage::CursorCopy if self.grid.cells() > 0 => {
                let bytes = self.grid.cells() as u64 * 4;
                enc.copy_buffer_to_buffer(&self.bufs.cell_start, 0, &self.bufs.cursor, 0, bytes)
            }
            StepStage::CursorCopy => {}
            other => unreachable!("{other:?} is not a shared host stage"),
        }
    }

    /// Copy the counters into the staging buffer at the end of `enc`, submit,
    /// wait and read them.
    pub fn submit_and_read_stats(&self, mut enc: wgpu::CommandEncoder) -> Result<[u32; STAT_WORDS as usize]> {
        let bytes = u64::from(STAT_WORDS) * 4;
        enc.copy_buffer_to_buffer(&self.bufs.stats, 0, &self.bufs.stats_staging, 0, bytes);
        self.ctx.submit(enc.finish());
        let slice = self.bufs.stats_staging.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        self.ctx.count_readback();
        self.ctx.wait()?;
        let mut out = [0u32; STAT_WORDS as usize];
        {
            let view = slice
                .get_mapped_range()
                .map_err(|e| Error::Gpu(format!("reading the step counters: {e}")))?;
            out.copy_from_slice(bytemuck::cast_slice(&view));
        }
        self.bufs.stats_staging.unmap();
        Ok(out)
    }

    /// The grains in id order (`ang_vel` and `angle` where the model has them).
    pub fn read_grains(&self, ang_vel: Option<&wgpu::Buffer>, angle: Option<&wgpu::Buffer>) -> Result<Grains<S>> {
        let g = &self.bufs.grains;
        let bufs = GrainBuffers {
            pos: &g[POS],
            vel: &g[VEL],
            radius: &g[RADIUS],
            inv_mass: &g[INV_MASS],
            id: &g[ID],
            ang_vel,
            angle,
        };
        read_grains(&self.ctx, &bufs, self.n)
    }
}

/// What the plane alone has: moving walls and the reduction on the device.
impl Pipeline<Dim2> {
    /// The same walls at a new pose with their velocities (`Backend::move_walls`):
    /// the positions, normals, directions and velocities written over the
    /// wall buffers in place, so the bind groups and the contact lists stay.
    ///
    /// # Panics
    /// If `walls` does not have as many segments and corners as the walls
    /// uploaded last (moving walls are the same walls).
    pub fn move_walls(&mut self, walls: &Walls) {
        let (n_segments, n_corners) = (walls.segments.len() as u32, walls.corners.len() as u32);
        assert!(
            (n_segments, n_corners) == (self.params.n_segments, self.params.n_corners),
            "moved walls have {n_segments} segments and {n_corners} corners, the walls {} and {}",
            self.params.n_segments,
            self.params.n_corners
        );
        let write = |buffer: &wgpu::Buffer, bytes: &[u8]| {
            if !bytes.is_empty() {
                self.ctx.queue.write_buffer(buffer, 0, bytes);
            }
        };
        let b = &self.bufs;
        write(&b.segments, bytemuck::cast_slice(&walls.segments));
        write(&b.corners, bytemuck::cast_slice(&walls.corners));
        let (segment_vel, corner_vel) = Dim2::wall_velocities(walls);
        write(&b.segment_vel, bytemuck::cast_slice(&segment_vel));
        write(&b.corner_vel, bytemuck::cast_slice(&corner_vel));
    }

    /// The diagnostics row of the grains with contact lists `list`.
    pub fn totals(&mut self, region: &Region, list: usize) -> Result<Totals> {
        self.params.set_region(region);
        self.write_params();
        let mut enc = self.encoder(&Stage::Reduce.label());
        {
            let mut ps = pass(&mut enc, &Stage::Reduce.label());
            let reduce = self.kernels.reduce.as_ref().expect("the plane's reduction");
            reduce.dispatch(&mut ps, &self.groups.reduce[list], self.n as u32);
        }
        self.ctx.submit(enc.finish());
        let parts: Vec<ReducePartial> = read(&self.ctx, &self.bufs.partials, partials(self.n))?;
        Ok(sum_partials(&parts))
    }
}

/// The adapter limits and 32-bit indexing against the buffers of a scene
/// (`walls`: the bytes of the wall segments, corners and index).
fn check_limits<S: Space>(ctx: &GpuContext, n: usize, walls: [usize; 3], cells: usize, capacity: usize) -> Result<()> {
    let slots = (n as u64) * (capacity as u64) * std::mem::size_of::<Contact<S>>() as u64;
    let vector = std::mem::size_of::<S::Vec>() as u64;
    ctx.check(
        &[
            (&format!("the contact lists ({n} grains x {capacity} slots)"), slots),
            (&format!("the positions of {n} grains"), n as u64 * vector),
            (&format!("the grid ({cells} cells)"), (cells as u64 + 1) * 4),
            ("the wall segments", walls[0] as u64),
            ("the wall corners", walls[1] as u64),
            ("the walls' index", walls[2] as u64),
        ],
        DETECT_STORAGE_BUFFERS,
    )?;
    if cells as u64 + 1 > u64::from(u32::MAX) || n as u64 * capacity as u64 > u64::from(u32::MAX) {
        return Err(Error::Gpu(format!(
            "{n} grains x {capacity} slots or {cells} cells exceed 32-bit indexing"
        )));
    }
    Ok(())
}

impl CoreBuffers {
    /// The buffers of `lists` contact lists of `k` slots per grain, over
    /// `params.n_cells` cells (within 32-bit indexing: `check_limits`).
    fn new<S: GpuSpace>(
        ctx: &GpuContext,
        prefix: &str,
        params: &Params,
        grains: &Grains<S>,
        (bodies, walls): (&super::space::Bodies<S>, &S::Walls),
        k: usize,
        lists: usize,
    ) -> CoreBuffers {
        let (face_vel, ridge_vel) = S::wall_velocities(walls);
        let (n, cells) = (grains.len(), params.n_cells as usize);
        let l = |s: &str| format!("{prefix}.{s}");
        let arrays: [&[u8]; 5] = [
            bytemuck::cast_slice(&grains.pos),
            bytemuck::cast_slice(&grains.vel),
            bytemuck::cast_slice(&grains.radius),
            bytemuck::cast_slice(&grains.inv_mass),
            bytemuck::cast_slice(&grains.id),
        ];
        CoreBuffers {
            params: uniform(ctx, &l("params"), params),
            grains: std::array::from_fn(|i| storage(ctx, &l(GRAIN_ARRAYS[i]), arrays[i])),
            cell_of: storage_zeroed::<u32>(ctx, &l("cell_of"), n),
            sorted: storage_zeroed::<u32>(ctx, &l("sorted"), n),
            cell_count: storage_zeroed::<u32>(ctx, &l("cell_count"), cells),
            cursor: storage_zeroed::<u32>(ctx, &l("cursor"), cells),
            cell_start: storage_zeroed::<u32>(ctx, &l("cell_start"), cells + 1),
            count: (0..lists).map(|_| storage_zeroed::<u32>(ctx, &l("count"), n)).collect(),
            slots: (0..lists)
                .map(|_| storage_zeroed::<u8>(ctx, &l("slots"), n * k * std::mem::size_of::<Contact<S>>()))
                .collect(),
            stats: storage_zeroed::<u32>(ctx, &l("stats"), STAT_WORDS as usize),
            stats_staging: ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&l("stats.readback")),
                size: u64::from(STAT_WORDS) * 4,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            partials: storage_zeroed::<ReducePartial>(ctx, &l("partials"), partials(n)),
            segments: storage(ctx, &l("segments"), &bodies.0),
            corners: storage(ctx, &l("corners"), &bodies.1),
            segment_vel: storage(ctx, &l("segment_vel"), &face_vel),
            corner_vel: storage(ctx, &l("corner_vel"), &ridge_vel),
            wall_index: storage(ctx, &l("wall_index"), &S::wall_index(walls)),
        }
    }
}

impl CoreGroups {
    fn new(ctx: &GpuContext, k: &CoreKernels, b: &CoreBuffers, cells: u32) -> CoreGroups {
        let (g, params) = (&b.grains, &b.params);
        let lists = 0..b.count.len();
        // What detection and the reduction read besides their own buffers.
        let shared = |p: usize| {
            [
                ("params", params),
                ("pos", &g[POS]),
                ("radius", &g[RADIUS]),
                ("inv_mass", &g[INV_MASS]),
                ("segments", &b.segments),
                ("corners", &b.corners),
                ("count", &b.count[p]),
                ("slots", &b.slots[p]),
            ]
        };
        let reduce = [("vel", &g[VEL]), ("partials", &b.partials)];
        CoreGroups {
            bin_count: k.bin_count.group(
                ctx,
                &[
                    ("params", params),
                    ("pos", &g[POS]),
                    ("cell_of", &b.cell_of),
                    ("cell_count", &b.cell_count),
                ],
            ),
            scan: k.prefix_sum.plan(ctx, &b.cell_count, &b.cell_start, cells),
            bin_scatter: k.bin_scatter.group(
                ctx,
                &[
                    ("params", params),
                    ("cell_of", &b.cell_of),
                    ("cursor", &b.cursor),
                    ("sorted", &b.sorted),
                ],
            ),
            bin_sort: k.bin_sort.group(
                ctx,
                &[("params", params), ("cell_start", &b.cell_start), ("sorted", &b.sorted)],
            ),
            detect: (lists.clone())
                .map(|p| detect_group(ctx, k, b, p, &b.segments, &b.corners))
                .collect(),
            reduce: match &k.reduce {
                Some(kernel) => lists
                    .map(|p| kernel.group(ctx, &[&shared(p)[..], &reduce[..]].concat()))
                    .collect(),
                None => Vec::new(),
            },
        }
    }
}

/// The bind group of `detect::main` writing lists `p` against the walls in
/// `segments` and `corners` (as many as the pipeline's), with the pipeline's
/// grains, bins, counters and wall velocities.
fn detect_group(
    ctx: &GpuContext,
    k: &CoreKernels,
    b: &CoreBuffers,
    p: usize,
    segments: &wgpu::Buffer,
    corners: &wgpu::Buffer,
) -> wgpu::BindGroup {
    let g = &b.grains;
    let entries = [
        ("params", &b.params),
        ("pos", &g[POS]),
        ("radius", &g[RADIUS]),
        ("inv_mass", &g[INV_MASS]),
        ("segments", segments),
        ("corners", corners),
        ("count", &b.count[p]),
        ("slots", &b.slots[p]),
        ("cell_start", &b.cell_start),
        ("sorted", &b.sorted),
        ("stats", &b.stats),
        ("segment_vel", &b.segment_vel),
        ("corner_vel", &b.corner_vel),
        ("wall_index", &b.wall_index),
    ];
    k.detect.group(ctx, &entries)
}
