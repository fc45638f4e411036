//! The soft-sphere DEM step on the GPU (docs/dem.md; the law in `model::law`, the CPU twin in `cpu::dem`).
//! Binning and detection are the NSCD path's kernels; the DEM stages are
//!
//! ```text
//!   shaders/dem_force.wgsl      per-grain gather of force and torque    (cpu::dem::force)
//!   shaders/dem_integrate.wgsl  velocity Verlet: kick_drift, kick       (cpu::dem::integrate)
//!   source = prelude + shaders/shared.wgsl + shaders/dem_shared.wgsl (DemLaw) + the stage
//!   dem_force also gets the contact laws between the two (model::law::wgsl)
//! ```
//! The DEM stages are [`super::Stage::DemForce`] and [`super::Stage::DemIntegrate`]
//! (their kernels are the backend's); their source adds shaders/dem_shared.wgsl
//! to the shared structs.

pub mod backend;

pub use backend::GpuDemBackend;

/// shaders/dem_shared.wgsl: the `DemLaw` uniform.
pub const DEM_SHARED_WGSL: &str = include_str!("../../../shaders/dem_shared.wgsl");
