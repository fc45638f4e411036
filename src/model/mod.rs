//! Plain data shared by the CPU and GPU paths.
//!
//! Grains are a structure of arrays (one `Vec` per field, indexed by grain),
//! walls are line segments plus their corner points, and contacts live in
//! fixed-capacity per-grain lists (see [`contact`]). Everything the GPU sees is
//! `#[repr(C)]` + bytemuck and mirrored in `shaders/shared.wgsl`.

pub mod accuracy;
pub mod cohesion;
pub mod contact;
pub mod crowd;
pub mod grains;
pub mod grid;
pub mod inside;
pub mod law;
pub mod motion;
pub mod noise;
pub mod params;
pub mod plan;
pub mod solver;
pub mod space;
pub mod speeds;
pub mod totals;
pub mod walls;
pub mod walls3d;

pub use cohesion::Cohesion;
pub use contact::{Body, Contact, ContactLists, MAX_COLORS, OVERFLOW, UNCOLORED};
pub use crowd::Crowd;
pub use grains::Grains;
pub use grid::Grid;
pub use law::{DemLaw, law};
pub use noise::Forcing;
pub use params::{
    APGD_RESTART_AGE, APGD_START, ApgdMomentum, DemParams, ImpulseParams, Integrator, NormalLaw, Phase, SolverKind,
    StepParams, StepStats, UZAWA_STEP, UZAWA_THRESHOLD,
};
pub use plan::{Stage, dem_plan, nscd_plan};
pub use solver::{NSCD_SOLVERS, SOLVERS, SolverFacts};
pub use space::{Dim2, Dim3, Space};
pub use totals::{Region, Totals, rotational_kinetic_energy};
pub use walls::{Corner, Segment, Walls};
pub use walls3d::{Plane, Walls3d};

/// Add two 2-vectors.
#[inline]
pub fn add(a: [f32; 2], b: [f32; 2]) -> [f32; 2] {
    [a[0] + b[0], a[1] + b[1]]
}
/// Subtract two 2-vectors.
#[inline]
pub fn sub(a: [f32; 2], b: [f32; 2]) -> [f32; 2] {
    [a[0] - b[0], a[1] - b[1]]
}
/// Dot product.
#[inline]
pub fn dot(a: [f32; 2], b: [f32; 2]) -> f32 {
    a[0] * b[0] + a[1] * b[1]
}
/// Scale a 2-vector.
#[inline]
pub fn scale(a: [f32; 2], s: f32) -> [f32; 2] {
    [a[0] * s, a[1] * s]
}
