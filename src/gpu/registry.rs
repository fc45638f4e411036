//! The stage registry: every WGSL compute entry point, declared once with its
//! bindings and its CPU twin (vello's `add_shader!` table).
//!
//! ```text
//!   entry!(Stage :: "entry", [binding: Kind name, ...], twin)
//!   entry!(BinCount :: "main", [0: Uniform params, 1: ReadOnly pos, ...],
//!          cpu("cpu::grid::bin_count", "bin_count_matches_cpu"))
//! ```
//! One line per entry point, in step order. `Kind` is the address space and
//! access of the WGSL declaration (`var<uniform>`, `var<storage, read>`,
//! `var<storage, read_write>`), the type comes from the binding's name
//! (`wgsl_type!`) or is given (`name as "type"`); the bindings are those the
//! entry point uses, so a bind group of exactly these entries is valid for
//! its pipeline. The stage files declare no binding: [`declarations`] writes
//! them from this table into every stage's source, so a binding's number,
//! access and type are written once.
//! A twin names its CPU function (a path under `cpu/`) and the test that
//! feeds both the same input (`<test>` in tests/*.rs); an entry point without
//! one says why. tests/gpu_registry.rs parses every stage's source with naga
//! and holds this table to the entry points and to the bindings each one
//! really uses, to the CPU sources and to the tests, so none of them can
//! drift. Every bind group is made by this table: [`super::Kernel::group`]
//! numbers the buffers given by binding name ([`numbered`]), so none is
//! bound at a number the WGSL does not read it from.
//!
//! Strings, not paths: `gpu/` does not import `cpu/` outside tests.

use super::Stage;

/// How an entry point sees a binding (the WGSL declaration's address space and access).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `var<uniform>`
    Uniform,
    /// `var<storage, read>`
    ReadOnly,
    /// `var<storage, read_write>` (atomics included)
    ReadWrite,
}

/// One binding of group 0: its number, how it is declared, its WGSL name and type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    pub slot: u32,
    pub kind: Kind,
    pub name: &'static str,
    /// The WGSL store type (`array<u32>`, `Params`, ...).
    pub ty: &'static str,
}

impl Binding {
    /// The WGSL declaration: `@group(0) @binding(3) var<storage, read> vel: array<vec2<f32>>;`.
    pub fn declaration(&self) -> String {
        let space = match self.kind {
            Kind::Uniform => "uniform",
            Kind::ReadOnly => "storage, read",
            Kind::ReadWrite => "storage, read_write",
        };
        format!(
            "@group(0) @binding({}) var<{space}> {}: {};",
            self.slot, self.name, self.ty
        )
    }
}

/// The CPU twin of an entry point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Twin {
    /// `cpu`: a function path under `cpu/` (`cpu::grid::bin_count`, or
    /// `cpu::colored::ColoredSweep::build` for a method); `test`: the
    /// `<stage>_matches_cpu` test in tests/*.rs that compares the two.
    Present { cpu: &'static str, test: &'static str },
    /// No twin, and why.
    None { reason: &'static str },
}

/// One WGSL compute entry point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryPoint {
    /// The shader file (`shaders/<stage>.wgsl`).
    pub stage: Stage,
    /// The `@compute fn` name.
    pub entry: &'static str,
    /// The bindings it uses, by increasing number.
    pub bindings: &'static [Binding],
    pub twin: Twin,
}

impl EntryPoint {
    /// `"<stage>::<entry>"`, as in the table and the pipeline labels.
    pub fn name(&self) -> String {
        format!("{}::{}", self.stage.name(), self.entry)
    }
}

/// The WGSL type of a binding by its name: one type per name across the
/// stages; a binding whose type differs from its name's (or whose name has
/// none) gives it in the table (`6: ReadWrite residual as "array<atomic<u32>>"`).
/// An unknown name without a type does not compile.
#[rustfmt::skip]
macro_rules! wgsl_type {
    ($name:ident, $ty:literal) => { $ty };
    (params) => { "Params" };
    (level) => { "ScanLevel" };
    (pass_color) => { "vec4<u32>" };
    (step_fraction) => { "vec4<f32>" };
    (relax) => { "vec4<f32>" };
    (state) => { "ApgdState" };
    (pos) => { "array<VecS>" };
    (vel) => { "array<VecS>" };
    (vel_free) => { "array<VecS>" };
    (force) => { "array<VecS>" };
    (radius) => { "array<f32>" };
    (inv_mass) => { "array<f32>" };
    (spin) => { "array<SpinS>" };
    (spin_free) => { "array<SpinS>" };
    (angle) => { "array<OrientS>" };
    (ang_vel) => { "array<SpinS>" };
    (torque) => { "array<SpinS>" };
    (residual) => { "array<f32>" };
    (prev) => { "array<f32>" };
    (prev_t) => { "array<TangentS>" };
    (count) => { "array<u32>" };
    (prev_count) => { "array<u32>" };
    (id) => { "array<u32>" };
    (cell_of) => { "array<u32>" };
    (cell_start) => { "array<u32>" };
    (sorted) => { "array<u32>" };
    (color) => { "array<u32>" };
    (color_in) => { "array<u32>" };
    (color_out) => { "array<u32>" };
    (offsets) => { "array<u32>" };
    (src) => { "array<u32>" };
    (dst) => { "array<u32>" };
    (src1) => { "array<u32>" };
    (dst1) => { "array<u32>" };
    (block_sums) => { "array<u32>" };
    (bucket) => { "array<u32>" };
    (src2) => { "array<vec2<u32>>" };
    (dst2) => { "array<vec2<u32>>" };
    (slots) => { "array<Contact>" };
    (prev_slots) => { "array<Contact>" };
    (out) => { "array<Contact>" };
    (segments) => { "array<Segment>" };
    (corners) => { "array<Corner>" };
    (segment_vel) => { "array<SegmentVel>" };
    (corner_vel) => { "array<CornerVel>" };
    (wall_index) => { "array<u32>" };
    (partials) => { "array<ReducePartial>" };
    (cell_count) => { "array<atomic<u32>>" };
    (cursor) => { "array<atomic<u32>>" };
    (stats) => { "array<atomic<u32>>" };
    (color_stats) => { "array<atomic<u32>>" };
    (bucket_size) => { "array<atomic<u32>, MAX_COLORS>" };
    (bucket_cursor) => { "array<atomic<u32>, MAX_COLORS>" };
}

/// `entry!(Stage :: "entry", [slot: Kind name [as "type"], ...], twin)`.
macro_rules! entry {
    ($stage:ident :: $entry:literal, [$($slot:literal : $kind:ident $name:ident $(as $ty:literal)?),* $(,)?], $twin:expr) => {
        EntryPoint {
            stage: Stage::$stage,
            entry: $entry,
            bindings: &[$(Binding {
                slot: $slot,
                kind: Kind::$kind,
                name: stringify!($name),
                ty: wgsl_type!($name $(, $ty)?),
            }),*],
            twin: $twin,
        }
    };
}

/// `cpu(path, test)`: the twin is the function `path`, held to the GPU by `test`.
const fn cpu(cpu: &'static str, test: &'static str) -> Twin {
    Twin::Present { cpu, test }
}

/// Every compute entry point of shaders/, in step order.
#[rustfmt::skip]
pub const ENTRY_POINTS: &[EntryPoint] = &[
    entry!(FreeVelocity :: "main", [0: Uniform params, 1: ReadOnly vel, 2: ReadOnly inv_mass, 3: ReadWrite vel_free, 4: ReadOnly id], cpu("cpu::integrate::free_velocity", "free_velocity_matches_cpu")),
    entry!(BinCount :: "main", [0: Uniform params, 1: ReadOnly pos, 2: ReadWrite cell_of, 3: ReadWrite cell_count], cpu("cpu::grid::bin_count", "bin_count_matches_cpu")),
    // The two passes of one multi-level scan; the test compares the whole scan.
    entry!(PrefixSum :: "scan", [0: Uniform level, 1: ReadOnly src, 2: ReadWrite dst, 3: ReadWrite block_sums], cpu("cpu::grid::prefix_sum", "prefix_sum_matches_cpu")),
    entry!(PrefixSum :: "add", [0: Uniform level, 2: ReadWrite dst, 4: ReadOnly offsets], cpu("cpu::grid::prefix_sum", "prefix_sum_matches_cpu")),
    entry!(BinScatter :: "main", [0: Uniform params, 1: ReadOnly cell_of, 2: ReadWrite cursor, 3: ReadWrite sorted], cpu("cpu::grid::bin_scatter", "bin_scatter_matches_cpu")),
    // Each cell's grains in index order after the atomic scatter (the binning repeats from run to run).
    entry!(BinSort :: "main", [0: Uniform params, 1: ReadOnly cell_start, 2: ReadWrite sorted], cpu("cpu::grid::bin_sort", "bin_sort_matches_cpu")),
    entry!(Reorder :: "gather1", [0: Uniform params, 1: ReadOnly sorted, 2: ReadOnly src1, 3: ReadWrite dst1], cpu("cpu::reorder::gather", "reorder_matches_cpu")),
    entry!(Reorder :: "gather2", [0: Uniform params, 1: ReadOnly sorted, 4: ReadOnly src2, 5: ReadWrite dst2], cpu("cpu::reorder::gather", "reorder_matches_cpu")),
    // segment_vel, corner_vel: the walls' velocities (Walls::segment_vel, corner_vel; zeros for still walls), into Contact::wall_vel;
    // wall_index: which wall bodies lie near each cell (gpu::space::wall_index).
    entry!(Detect :: "main", [0: Uniform params, 1: ReadOnly cell_start, 2: ReadOnly sorted, 3: ReadOnly pos, 4: ReadOnly radius, 5: ReadOnly inv_mass, 6: ReadOnly segments, 7: ReadOnly corners, 8: ReadWrite count, 9: ReadWrite slots, 10: ReadWrite stats, 11: ReadOnly segment_vel, 12: ReadOnly corner_vel, 13: ReadOnly wall_index], cpu("cpu::detect::detect", "detect_matches_cpu")),
    // Capillary cohesion (docs/cohesion.md), after detection, into the free velocities.
    entry!(Cohesion :: "main", [0: Uniform params, 1: Uniform law as "Cohesion", 2: ReadOnly count, 3: ReadOnly slots, 4: ReadOnly radius, 5: ReadOnly inv_mass, 6: ReadWrite vel_free], cpu("cpu::cohesion::cohesion", "cohesion_matches_cpu")),
    entry!(WarmStart :: "main", [0: Uniform params, 1: ReadOnly count, 2: ReadWrite slots, 3: ReadOnly prev_count, 4: ReadOnly prev_slots], cpu("cpu::warm_start::warm_start", "warm_start_matches_cpu")),
    entry!(WarmStart :: "bounce", [0: Uniform params, 1: ReadOnly count, 2: ReadWrite slots, 5: ReadOnly vel], cpu("cpu::warm_start::bounce", "bounce_matches_cpu")),
    // FRICTION (a pipeline constant, StepParams::friction, docs/nscd.md#coulomb-friction-and-rotation) adds the tangential impulses and the spins
    // (jacobi_contact reads spin and radius, jacobi_gather reads spin_free and radius and writes spin, with FRICTION only).
    entry!(JacobiContact :: "main", [0: Uniform params, 1: ReadOnly count, 2: ReadWrite slots, 3: ReadOnly vel, 4: ReadWrite residual, 5: ReadOnly spin, 6: ReadOnly radius], cpu("cpu::jacobi::jacobi_contact", "jacobi_contact_matches_cpu")),
    entry!(JacobiGather :: "main", [0: Uniform params, 1: ReadOnly count, 2: ReadOnly slots, 3: ReadOnly vel_free, 4: ReadOnly inv_mass, 5: ReadWrite vel, 6: ReadOnly spin_free, 7: ReadOnly radius, 8: ReadWrite spin], cpu("cpu::jacobi::jacobi_gather", "jacobi_gather_matches_cpu")),
    entry!(ResidualMax :: "main", [0: Uniform params, 1: ReadOnly residual, 2: ReadOnly vel, 3: ReadWrite stats], cpu("cpu::residual_max::residual_max", "residual_max_matches_cpu")),
    // On a grid periodic along x, then x wrapped into the period (cpu::integrate::wrap, test integrate_wraps_like_cpu).
    entry!(Integrate :: "main", [0: Uniform params, 1: ReadWrite pos, 2: ReadOnly vel], cpu("cpu::integrate::integrate", "integrate_matches_cpu")),
    // The split push-out's pos += dt shift, never wrapped (the integration after it wraps).
    entry!(Integrate :: "shift", [0: Uniform params, 1: ReadWrite pos, 2: ReadOnly vel], cpu("cpu::integrate::integrate", "integrate_matches_cpu")),
    entry!(Integrate :: "integrate_angle", [0: Uniform params, 3: ReadWrite angle, 4: ReadOnly spin], cpu("cpu::integrate::integrate_angle", "integrate_angle_matches_cpu")),
    // The split push-out's copy of the lists (then jacobi_contact / jacobi_gather on it, and integrate of the shift).
    entry!(PredictGap :: "main", [0: Uniform params, 1: ReadOnly count, 2: ReadOnly slots, 3: ReadOnly vel, 4: ReadWrite out], cpu("cpu::correct::predict_gap", "predict_gap_matches_cpu")),
    entry!(Reduce :: "main", [0: Uniform params, 1: ReadOnly pos, 2: ReadOnly vel, 3: ReadOnly radius, 4: ReadOnly inv_mass, 5: ReadOnly count, 6: ReadOnly slots, 7: ReadOnly segments, 8: ReadOnly corners, 9: ReadWrite partials], cpu("cpu::reduce::reduce", "reduce_matches_cpu")),
    // Colouring: three entry points compared together (the rounds run until none is left uncoloured).
    entry!(Coloring :: "coloring_init", [0: Uniform params, 1: ReadOnly count, 2: ReadOnly slots, 5: ReadWrite color_out], cpu("cpu::coloring::coloring_init", "coloring_matches_cpu")),
    entry!(Coloring :: "coloring_round", [0: Uniform params, 1: ReadOnly count, 2: ReadOnly slots, 3: ReadOnly inv_mass, 4: ReadOnly color_in, 5: ReadWrite color_out], cpu("cpu::coloring::coloring_round", "coloring_matches_cpu")),
    entry!(Coloring :: "coloring_count", [0: Uniform params, 1: ReadOnly count, 2: ReadOnly slots, 4: ReadOnly color_in, 6: ReadWrite color_stats], cpu("cpu::coloring::coloring_count", "coloring_matches_cpu")),
    entry!(Colored :: "colored_bucket_count", [0: Uniform params, 1: ReadOnly count, 2: ReadWrite slots, 3: ReadOnly color, 9: ReadWrite bucket_size], cpu("cpu::colored::ColoredSweep::build", "colored_buckets_match_cpu")),
    entry!(Colored :: "colored_bucket_scatter", [0: Uniform params, 1: ReadOnly count, 2: ReadWrite slots, 3: ReadOnly color, 8: ReadWrite bucket, 10: ReadWrite bucket_cursor], cpu("cpu::colored::ColoredSweep::build", "colored_buckets_match_cpu")),
    // FRICTION (a pipeline constant, docs/nscd.md#coulomb-friction-and-rotation) adds the tangential impulses and the spins (bindings 11, 12).
    // pass_color: x = colour k, y = start_k, z = size_k of the pass's bucket; relax: x = the normal rows' over-relaxation (model::solver::colored_sor).
    entry!(Colored :: "colored_solve", [0: Uniform params, 2: ReadWrite slots, 4: ReadOnly inv_mass, 5: ReadWrite vel, 6: ReadWrite residual as "array<atomic<u32>>", 7: Uniform pass_color, 8: ReadWrite bucket, 11: ReadOnly radius, 12: ReadWrite spin, 13: Uniform relax], cpu("cpu::colored::colored_solve", "colored_solve_matches_cpu")),
    entry!(Colored :: "colored_overflow", [0: Uniform params, 1: ReadOnly count, 2: ReadWrite slots, 3: ReadOnly color, 4: ReadOnly inv_mass, 5: ReadWrite vel, 6: ReadWrite residual as "array<atomic<u32>>", 11: ReadOnly radius, 12: ReadWrite spin, 13: Uniform relax], cpu("cpu::colored::colored_overflow", "colored_overflow_matches_cpu")),
    entry!(Colored :: "colored_mirror", [0: Uniform params, 1: ReadOnly count, 2: ReadWrite slots], cpu("cpu::colored::colored_mirror", "colored_mirror_matches_cpu")),
    entry!(Uzawa :: "uzawa_contact", [0: Uniform params, 1: ReadOnly count, 2: ReadWrite slots, 3: ReadOnly vel, 4: ReadOnly inv_mass, 5: ReadWrite residual, 6: Uniform step_fraction], cpu("cpu::uzawa::uzawa_contact", "uzawa_contact_matches_cpu")),
    // APGD: one iteration is apgd_gather, apgd_contact, apgd_momentum (then jacobi_gather of the final impulses after the solve).
    // FRICTION (a pipeline constant) adds the tangential impulses and the spins (bindings 9-12).
    entry!(Apgd :: "apgd_gather", [0: Uniform params, 1: ReadOnly count, 2: ReadWrite slots, 3: ReadWrite prev, 4: ReadOnly vel_free, 5: ReadOnly inv_mass, 6: ReadWrite vel, 8: ReadWrite state, 9: ReadWrite prev_t, 10: ReadOnly spin_free, 11: ReadOnly radius, 12: ReadWrite spin], cpu("cpu::apgd::apgd_gather", "apgd_gather_matches_cpu")),
    entry!(Apgd :: "apgd_contact", [0: Uniform params, 1: ReadOnly count, 2: ReadWrite slots, 3: ReadWrite prev, 6: ReadWrite vel, 7: ReadWrite residual, 8: ReadWrite state, 9: ReadWrite prev_t, 11: ReadOnly radius, 12: ReadWrite spin], cpu("cpu::apgd::apgd_contact", "apgd_contact_matches_cpu")),
    entry!(Apgd :: "apgd_momentum", [8: ReadWrite state], cpu("cpu::apgd::apgd_momentum", "apgd_momentum_matches_cpu")),
    // A contact law with history (model::law) reads and writes it in slots' impulse_t; warm_start::main carries it between steps.
    entry!(DemForce :: "main", [0: Uniform params, 1: Uniform law as "DemLaw", 2: ReadOnly count, 3: ReadWrite slots, 4: ReadOnly radius, 5: ReadOnly inv_mass, 6: ReadOnly vel, 7: ReadOnly ang_vel, 8: ReadWrite force, 9: ReadWrite torque], cpu("cpu::dem::force::dem_force", "dem_force_matches_cpu")),
    entry!(DemIntegrate :: "kick_drift", [0: Uniform params, 1: ReadWrite pos, 2: ReadWrite vel, 3: ReadWrite ang_vel, 4: ReadOnly force, 5: ReadOnly torque, 6: ReadOnly radius, 7: ReadOnly inv_mass], cpu("cpu::dem::integrate::kick_drift", "dem_integrate_matches_cpu")),
    entry!(DemIntegrate :: "kick", [0: Uniform params, 2: ReadWrite vel, 3: ReadWrite ang_vel, 4: ReadOnly force, 5: ReadOnly torque, 6: ReadOnly radius, 7: ReadOnly inv_mass, 8: ReadWrite stats], cpu("cpu::dem::integrate::kick", "dem_integrate_matches_cpu")),
];

/// Files of shaders/ that are not compute stages, and what they are.
pub const NOT_STAGES: &[(&str, &str)] = &[
    (
        "shared.wgsl",
        "structs and helpers prepended to every stage (ShaderConfig::source)",
    ),
    ("dem_shared.wgsl", "the DemLaw struct prepended to the DEM stages"),
    (
        "scene_render.wgsl",
        "render shader (vertex + fragment) of src/render, no compute entry point",
    ),
    (
        "sphere_render.wgsl",
        "render shader (vertex + fragment) of 3D pictures, src/render/spheres.rs, no compute entry point",
    ),
];

/// The entry points of `stage`, in table order.
pub fn entry_points(stage: Stage) -> impl Iterator<Item = &'static EntryPoint> {
    ENTRY_POINTS.iter().filter(move |e| e.stage == stage)
}

/// The group-0 declarations of `stage`'s shader, generated from its entry
/// points' bindings (one line per binding number, by increasing number):
/// the stage files declare no binding of their own, so a binding's number,
/// access and type are written once, here.
///
/// # Panics
/// If two entry points of `stage` declare one binding number differently
/// (tests/gpu_registry.rs builds every stage's source).
pub fn declarations(stage: Stage) -> String {
    let mut by_slot: Vec<&Binding> = Vec::new();
    for b in entry_points(stage).flat_map(|e| e.bindings) {
        match by_slot.iter().find(|d| d.slot == b.slot) {
            Some(d) if *d != b => panic!("{}: binding {} declared as {d:?} and as {b:?}", stage.name(), b.slot),
            Some(_) => {}
            None => by_slot.push(b),
        }
    }
    by_slot.sort_by_key(|b| b.slot);
    by_slot.iter().map(|b| b.declaration() + "\n").collect()
}

/// The registry entry of `stage`'s entry point `entry`.
pub fn find(stage: Stage, entry: &str) -> Option<&'static EntryPoint> {
    entry_points(stage).find(|e| e.entry == entry)
}

/// `given` (binding name, resource) with the binding numbers `entry` declares
/// for those names, by increasing number.
///
/// # Panics
/// If a name is not one of `entry`'s bindings, is given twice, or a declared
/// binding is not given: a bind group must hold exactly the declared bindings.
pub fn numbered<T: Copy>(entry: &EntryPoint, given: &[(&str, T)]) -> Vec<(u32, T)> {
    let mut out: Vec<(u32, T)> = given
        .iter()
        .map(|&(name, value)| {
            let binding = entry.bindings.iter().find(|b| b.name == name);
            let binding = binding.unwrap_or_else(|| panic!("{}: no binding named `{name}`", entry.name()));
            (binding.slot, value)
        })
        .collect();
    out.sort_by_key(|&(slot, _)| slot);
    let slots: Vec<u32> = out.iter().map(|&(slot, _)| slot).collect();
    let declared: Vec<u32> = entry.bindings.iter().map(|b| b.slot).collect();
    if slots != declared {
        let names = |s: &[u32]| -> Vec<&str> {
            s.iter()
                .filter_map(|n| entry.bindings.iter().find(|b| b.slot == *n).map(|b| b.name))
                .collect()
        };
        panic!(
            "{}: bindings given {:?}, declared {:?}",
            entry.name(),
            names(&slots),
            names(&declared)
        );
    }
    out
}
