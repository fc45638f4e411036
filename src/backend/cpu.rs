//! The CPU reference as a [`Backend`]: the NSCD stepper ([`CpuBackend`]), and
//! the explicit models' steppers ([`CpuHostBackend`]: the DEM and spring
//! stepper, [`CpuDemBackend`], and the impulse model, [`CpuImpulseBackend`])
//! over host arrays.

use super::{Backend, BackendKind, GrainView};
use crate::cpu::dem::{DemStepper, max_angular_speed};
use crate::cpu::detect::Detect;
use crate::cpu::impulse::ImpulseStepper;
use crate::cpu::reduce::reduce;
use crate::cpu::{CpuSpace, CpuStepper};
use crate::error::Result;
use crate::model::{
    ContactLists, DemParams, Dim2, Dim3, Grains, Grid, ImpulseParams, Phase, Region, Space, StepParams, StepStats,
    Totals, Walls,
};

fn threads() -> String {
    format!("CPU ({} threads)", rayon::current_num_threads())
}

/// The CPU NSCD reference as a backend.
pub struct CpuBackend<S: CpuSpace = Dim2> {
    pub grains: Grains<S>,
    pub walls: S::Walls,
    pub stepper: CpuStepper<S>,
    /// Steps between two reorders of the grains into cell order (0: never).
    pub reorder_every: u64,
    steps: u64,
}

/// Acting contacts from which the backend's NLGS sweeps run on two threads
/// (`nlgs::PAR_SWEEP_MIN` for a bare `CpuStepper`). The two halves of the
/// arrays are the lower and upper pile only because the backend keeps its
/// grains in cell order ([`REORDER_EVERY`]), and the step runs on a pool
/// thread, where a hand-off is cheap: two-thread sweeps pay off from 2,048
/// acting contacts there. A stepper whose grains are not reordered keeps
/// 16,384, its halves being mixed through the heap
/// (docs/solvers.md#why-the-cpu-constants).
pub const SPLIT_SWEEP_MIN: usize = 2_048;

/// Steps between two reorders of the CPU backend's grains into cell order
/// (as the GPU backend does). Warm starts survive a reorder on the CPU.
pub const REORDER_EVERY: u64 = 100;

impl<S: CpuSpace> CpuBackend<S> {
    pub fn new(grains: Grains<S>, walls: S::Walls, grid: Grid<S>, capacity: usize) -> Self {
        let mut stepper = CpuStepper::growing(grid, capacity);
        stepper.sweep_par_min = SPLIT_SWEEP_MIN;
        CpuBackend {
            grains,
            walls,
            stepper,
            reorder_every: REORDER_EVERY,
            steps: 0,
        }
    }
}

impl<S: CpuSpace> Backend<S> for CpuBackend<S> {
    fn kind(&self) -> BackendKind {
        BackendKind::Cpu
    }
    fn adapter(&self) -> String {
        threads()
    }
    fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        if self.reorder_every > 0 && self.steps > 0 && self.steps.is_multiple_of(self.reorder_every) {
            self.stepper.reorder(&mut self.grains);
        }
        self.steps += 1;
        // The step runs on a pool thread, so that the two-thread sweeps'
        // joins (several per iteration) hand work to the other pool thread
        // directly instead of waking the pool from outside and blocking on it.
        let (stepper, grains, walls) = (&mut self.stepper, &mut self.grains, &self.walls);
        rayon::scope(|_| stepper.step(grains, walls, p))
    }
    fn set_walls(&mut self, walls: &S::Walls) {
        self.walls = walls.clone();
        self.stepper.reset_warm_start();
    }
    fn move_walls(&mut self, walls: &S::Walls) {
        self.walls.clone_from(walls);
    }
    fn step_count(&self) -> u64 {
        self.steps
    }
    fn saved_contacts(&mut self) -> Option<(&ContactLists<S>, &[u32])> {
        Some((self.stepper.contacts(), &self.stepper.bins.sorted))
    }
    fn restore_contacts(&mut self, lists: ContactLists<S>, order: &[u32]) {
        self.stepper.restore_contacts(lists);
        self.stepper.bins.sorted = order.to_vec();
    }
    fn set_step_count(&mut self, n: u64) {
        self.steps = n;
        self.stepper.steps = n;
    }
    fn grains(&mut self) -> Result<&Grains<S>> {
        Ok(&self.grains)
    }
    fn totals(&mut self, region: &Region<S>) -> Result<Totals> {
        Ok(reduce(&self.grains, self.stepper.contacts(), &self.walls, region))
    }
    fn max_speed(&mut self, _region: &Region<S>) -> Result<f64> {
        Ok(f64::from(self.grains.max_speed()))
    }
    /// The arrays grow; the next step warm-starts nothing (the lists no
    /// longer match the grains) and the next reorder waits for it.
    fn add_grains(&mut self, new: &Grains<S>) -> Result<()> {
        self.grains.extend(new);
        Ok(())
    }
    fn view(&mut self) -> Result<GrainView<'_, S>> {
        Ok(GrainView::Host {
            grains: &self.grains,
            contacts: Some(self.stepper.contacts()),
        })
    }
    fn record_residuals(&mut self, on: bool) {
        self.stepper.residual_history = on.then(Vec::new);
    }
    fn take_residuals(&mut self) -> Vec<f32> {
        self.stepper
            .residual_history
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }
}

/// A CPU stepper of an explicit model (the DEM and spring stepper, the
/// impulse model) as its backend sees it.
pub trait HostStepper<S: Space = Dim2> {
    fn step(&mut self, grains: &mut Grains<S>, walls: &S::Walls, p: &StepParams) -> StepStats;
    /// This step's contact lists (for the totals).
    fn lists(&mut self, grains: &Grains<S>, walls: &S::Walls) -> &ContactLists<S>;
    /// The walls changed: forget what was computed against the old ones.
    fn walls_changed(&mut self) {}
    fn set_phase(&mut self, _phase: Phase) {}
    /// Whether the grains turn (the backend then reports their angular speed).
    const TURNS: bool = false;
    /// Whether a step's stats count its contacts; when not, the totals do.
    const COUNTS_CONTACTS: bool = true;
    /// What a resumed run needs of the contacts to go on as this one would
    /// (a law with history: each contact's spring in `impulse_t`); None:
    /// nothing.
    fn saved(&mut self, _grains: &Grains<S>, _walls: &S::Walls) -> Option<&ContactLists<S>> {
        None
    }
    /// Go on from [`HostStepper::saved`] of a saved state.
    fn restore(&mut self, _lists: &ContactLists<S>) {}
}

impl HostStepper for DemStepper {
    fn step(&mut self, grains: &mut Grains, walls: &Walls, p: &StepParams) -> StepStats {
        DemStepper::step_listed(self, grains, walls, p)
    }
    fn lists(&mut self, grains: &Grains, walls: &Walls) -> &ContactLists {
        self.contact_lists(grains, walls)
    }
    fn walls_changed(&mut self) {
        self.invalidate();
    }
    fn set_phase(&mut self, phase: Phase) {
        self.phase = phase;
    }
    const TURNS: bool = true;
    const COUNTS_CONTACTS: bool = false;
    fn saved(&mut self, grains: &Grains, walls: &Walls) -> Option<&ContactLists> {
        self.keeps_history().then(|| self.contact_lists(grains, walls))
    }
    fn restore(&mut self, lists: &ContactLists) {
        self.restore_history(lists);
    }
}

/// The DEM in 3D: the step detects every step (the plane's lists with a
/// skin are not yet over the space), the totals read that step's lists.
impl HostStepper<Dim3> for DemStepper<Dim3> {
    fn step(&mut self, grains: &mut Grains<Dim3>, walls: &crate::model::Walls3d, p: &StepParams) -> StepStats {
        DemStepper::step(self, grains, walls, p)
    }
    fn lists(&mut self, _grains: &Grains<Dim3>, _walls: &crate::model::Walls3d) -> &ContactLists<Dim3> {
        &self.lists
    }
    fn walls_changed(&mut self) {
        self.invalidate();
    }
    fn set_phase(&mut self, phase: Phase) {
        self.phase = phase;
    }
    const TURNS: bool = true;
    const COUNTS_CONTACTS: bool = false;
    /// The springs of a law with history (Hertz-Mindlin's), as the last
    /// step left them.
    /// Spheres emitted since the last force have no springs yet: the
    /// lists are padded to every sphere, so a state saved on such a step
    /// keeps the others'.
    fn saved(&mut self, grains: &Grains<Dim3>, _walls: &crate::model::Walls3d) -> Option<&ContactLists<Dim3>> {
        if !self.keeps_history() {
            return None;
        }
        self.pad_history(grains.len());
        Some(self.history())
    }
    fn restore(&mut self, lists: &ContactLists<Dim3>) {
        self.set_history(lists);
    }
}

impl<S: Detect> HostStepper<S> for ImpulseStepper<S> {
    fn step(&mut self, grains: &mut Grains<S>, walls: &S::Walls, p: &StepParams) -> StepStats {
        ImpulseStepper::step(self, grains, walls, p)
    }
    fn lists(&mut self, _grains: &Grains<S>, _walls: &S::Walls) -> &ContactLists<S> {
        &self.lists
    }
}

/// An explicit model's CPU stepper as a backend over host arrays.
pub struct CpuHostBackend<St, S: Space = Dim2> {
    pub grains: Grains<S>,
    pub walls: S::Walls,
    pub stepper: St,
}

/// The CPU DEM and spring reference as a backend.
pub type CpuDemBackend<S = Dim2> = CpuHostBackend<DemStepper<S>, S>;

/// The CPU impulse model (docs/lab.md) as a backend.
pub type CpuImpulseBackend<S = Dim2> = CpuHostBackend<ImpulseStepper<S>, S>;

impl<S: CpuSpace> CpuDemBackend<S> {
    pub fn new(grains: Grains<S>, walls: S::Walls, grid: Grid<S>, capacity: usize, dem: DemParams) -> Self {
        let stepper = DemStepper::new(grid, capacity, dem);
        CpuHostBackend { grains, walls, stepper }
    }
}

impl<S: Detect> CpuImpulseBackend<S> {
    pub fn new(grains: Grains<S>, walls: S::Walls, grid: Grid<S>, capacity: usize, params: ImpulseParams) -> Self {
        let stepper = ImpulseStepper::new(grid, capacity, params);
        CpuHostBackend { grains, walls, stepper }
    }
}

impl<St: HostStepper<S> + Send, S: Detect> Backend<S> for CpuHostBackend<St, S> {
    fn kind(&self) -> BackendKind {
        BackendKind::Cpu
    }
    fn adapter(&self) -> String {
        threads()
    }
    /// The step runs on a pool thread (inline when called from one), so
    /// that its parallel stages start there rather than each waking the pool
    /// from outside and waiting for it (a caller off the pool: the Python
    /// module, a test).
    fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        let (stepper, grains, walls) = (&mut self.stepper, &mut self.grains, &self.walls);
        Ok(rayon::scope(|_| stepper.step(grains, walls, p)))
    }
    fn set_walls(&mut self, walls: &S::Walls) {
        self.walls = walls.clone();
        self.stepper.walls_changed();
    }
    /// The same walls at a new pose: the stepper keeps what it carries
    /// between steps (the DEM's force, springs and neighbour lists, which
    /// rebuild when the walls' motion asks for it).
    fn move_walls(&mut self, walls: &S::Walls) {
        self.walls.clone_from(walls);
    }
    fn grains(&mut self) -> Result<&Grains<S>> {
        Ok(&self.grains)
    }
    /// The totals over the stepper's contact lists at this instant, whose
    /// distinct contacts they count where the steps do not (the DEM's).
    fn totals(&mut self, region: &Region<S>) -> Result<Totals> {
        let lists = self.stepper.lists(&self.grains, &self.walls);
        Ok(Totals {
            contacts: (!St::COUNTS_CONTACTS).then(|| lists.distinct()),
            ..reduce(&self.grains, lists, &self.walls, region)
        })
    }
    fn max_speed(&mut self, _region: &Region<S>) -> Result<f64> {
        Ok(f64::from(self.grains.max_speed()))
    }
    /// The arrays grow; the steppers keep nothing per grain between steps
    /// that a new grain could miss (the DEM finds the count changed and
    /// computes the forces of the new state before its next step; the
    /// impulse model detects afresh every step).
    fn add_grains(&mut self, new: &Grains<S>) -> Result<()> {
        self.grains.extend(new);
        Ok(())
    }
    fn set_phase(&mut self, phase: Phase) {
        self.stepper.set_phase(phase);
    }
    /// The springs of a law with history (the DEM's Hertz-Mindlin); the
    /// grains are never reordered, so the order is empty.
    fn saved_contacts(&mut self) -> Option<(&ContactLists<S>, &[u32])> {
        self.stepper.saved(&self.grains, &self.walls).map(|l| (l, &[][..]))
    }
    fn restore_contacts(&mut self, lists: ContactLists<S>, _order: &[u32]) {
        self.stepper.restore(&lists);
    }
    fn max_angular_speed(&mut self) -> Result<f32> {
        Ok(if St::TURNS {
            max_angular_speed(&self.grains)
        } else {
            0.0
        })
    }
}
