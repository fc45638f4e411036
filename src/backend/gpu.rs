//! The GPU steppers as a [`Backend`]: NSCD ([`GpuBackend`]) and DEM
//! ([`GpuDemBackend`]), state resident on the device.

use super::{Backend, BackendKind, GrainView};
use crate::error::Result;
use crate::gpu::GpuBackend;
use crate::gpu::dem::GpuDemBackend;
use crate::gpu::space::GpuSpace;
use crate::model::{ContactLists, Dim2, Dim3, Grains, Phase, Region, StepParams, StepStats, Totals, Walls3d};

/// A space the GPU's NSCD stepper runs in as a [`Backend`]: how its
/// diagnostics row is found and how its grains are drawn.
pub trait NscdTotals: crate::gpu::solver::NscdSpace {
    fn totals(be: &mut GpuBackend<Self>, region: &Region<Self>) -> Result<Totals>;

    /// The fastest grain's speed, m/s: by default the totals'.
    fn max_speed(be: &mut GpuBackend<Self>, region: &Region<Self>) -> Result<f64> {
        Ok(Self::totals(be, region)?.max_speed)
    }

    /// The grains for drawing: by default the host copy.
    fn view(be: &mut GpuBackend<Self>) -> Result<GrainView<'_, Self>> {
        Ok(GrainView::Host {
            grains: be.grains()?,
            contacts: None,
        })
    }
}

/// The device's reduction, and the device buffers drawn in place.
impl NscdTotals for Dim2 {
    fn totals(be: &mut GpuBackend, region: &Region) -> Result<Totals> {
        be.totals(region)
    }

    fn view(be: &mut GpuBackend) -> Result<GrainView<'_>> {
        Ok(GrainView::Device(be.device_grains()))
    }
}

/// The diagnostics row of 3D's GPU backends: the spheres and `lists` (read
/// back from the device) summed on the host by the CPU's `reduce`; the
/// contacts are the lists' distinct pairs, as the CPU counts them. The
/// backends keep their spheres in id order on the device, so the lists
/// number them as the spheres read back (in id order) do.
fn host_totals(grains: &Grains<Dim3>, lists: &ContactLists<Dim3>, walls: &Walls3d, region: &Region<Dim3>) -> Totals {
    Totals {
        contacts: Some(lists.distinct()),
        ..crate::cpu::reduce::reduce(grains, lists, walls, region)
    }
}

/// Summed on the host (`host_totals`) over the last step's lists.
impl NscdTotals for Dim3 {
    fn totals(be: &mut GpuBackend<Dim3>, region: &Region<Dim3>) -> Result<Totals> {
        let lists = be.read_lists()?;
        let (grains, walls) = be.grains_and_walls()?;
        Ok(host_totals(grains, &lists, walls, region))
    }

    /// From the spheres alone (no lists read back, no reduction).
    fn max_speed(be: &mut GpuBackend<Dim3>, _region: &Region<Dim3>) -> Result<f64> {
        Ok(f64::from(be.grains()?.max_speed()))
    }
}

impl<S: NscdTotals> Backend<S> for GpuBackend<S> {
    fn transfers(&self) -> Option<crate::gpu::context::Transfers> {
        Some(self.context().transfers())
    }
    fn kind(&self) -> BackendKind {
        BackendKind::Gpu
    }
    fn adapter(&self) -> String {
        self.context().adapter_name()
    }
    fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        GpuBackend::step(self, p)
    }
    fn set_walls(&mut self, walls: &S::Walls) {
        GpuBackend::set_walls(self, walls)
    }
    fn move_walls(&mut self, walls: &S::Walls) {
        GpuBackend::move_walls(self, walls)
    }
    fn step_count(&self) -> u64 {
        self.steps()
    }
    /// Go on counting from `n` (a resumed run, a rebuilt stepper): the
    /// stochastic forcing's draws follow the count, and so do the reorders.
    fn set_step_count(&mut self, n: u64) {
        self.set_steps(n);
    }
    fn grains(&mut self) -> Result<&Grains<S>> {
        GpuBackend::grains(self)
    }
    fn totals(&mut self, region: &Region<S>) -> Result<Totals> {
        S::totals(self, region)
    }
    fn max_speed(&mut self, region: &Region<S>) -> Result<f64> {
        S::max_speed(self, region)
    }
    fn view(&mut self) -> Result<GrainView<'_, S>> {
        S::view(self)
    }
    fn record_residuals(&mut self, on: bool) {
        GpuBackend::record_residuals(self, on)
    }
    fn take_residuals(&mut self) -> Vec<f32> {
        self.residual_history.as_mut().map(std::mem::take).unwrap_or_default()
    }
    fn set_profiling(&mut self, on: bool) {
        self.profile = on;
    }
}

/// A space the GPU's DEM runs in as a [`Backend`]: how its diagnostics row
/// is found.
pub trait DemTotals: GpuSpace {
    fn totals(dem: &mut GpuDemBackend<Self>, region: &Region<Self>) -> Result<Totals>;

    /// The fastest grain's speed, m/s: by default the totals'.
    fn max_speed(dem: &mut GpuDemBackend<Self>, region: &Region<Self>) -> Result<f64> {
        Ok(Self::totals(dem, region)?.max_speed)
    }
}

/// The device's reduction.
impl DemTotals for Dim2 {
    fn totals(dem: &mut GpuDemBackend, region: &Region) -> Result<Totals> {
        dem.totals(region)
    }
}

/// Summed on the host (`host_totals`) over the last detection's lists.
impl DemTotals for Dim3 {
    fn totals(dem: &mut GpuDemBackend<Dim3>, region: &Region<Dim3>) -> Result<Totals> {
        let lists = dem.lists()?;
        let (grains, walls) = dem.grains_and_walls()?;
        Ok(host_totals(grains, &lists, walls, region))
    }

    /// From the spheres alone (no lists read back, no reduction): the
    /// settle phase asks every 50 steps.
    fn max_speed(dem: &mut GpuDemBackend<Dim3>, _region: &Region<Dim3>) -> Result<f64> {
        Ok(f64::from(dem.grains()?.max_speed()))
    }
}

impl<S: DemTotals> Backend<S> for GpuDemBackend<S> {
    fn transfers(&self) -> Option<crate::gpu::context::Transfers> {
        Some(self.context().transfers())
    }
    fn kind(&self) -> BackendKind {
        BackendKind::Gpu
    }
    fn adapter(&self) -> String {
        self.context().adapter_name()
    }
    fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        GpuDemBackend::step(self, p)
    }
    fn set_walls(&mut self, walls: &S::Walls) {
        GpuDemBackend::set_walls(self, walls)
    }
    fn move_walls(&mut self, walls: &S::Walls) {
        GpuDemBackend::move_walls(self, walls)
    }
    fn grains(&mut self) -> Result<&Grains<S>> {
        GpuDemBackend::grains(self)
    }
    fn totals(&mut self, region: &Region<S>) -> Result<Totals> {
        S::totals(self, region)
    }
    fn max_speed(&mut self, region: &Region<S>) -> Result<f64> {
        S::max_speed(self, region)
    }
    fn set_phase(&mut self, phase: Phase) {
        GpuDemBackend::set_phase(self, phase)
    }
    fn max_angular_speed(&mut self) -> Result<f32> {
        GpuDemBackend::max_angular_speed(self)
    }
}
