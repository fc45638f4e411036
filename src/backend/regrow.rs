//! A GPU backend whose grain count grows (emitters, docs/lab.md): the device
//! buffers are sized for the grains at hand, so adding grains reads the
//! state back, appends the new grains and builds the GPU stepper anew over
//! the same device, walls, grid and phase. Only scenes with `[[emitters]]`
//! run through it; an emission is rare next to the steps (one grain every
//! `interval`), so a rebuild per emission is the simplest correct way.
//!
//! What a rebuild forgets: the warm-start impulses (NSCD) and the cell
//! order of the grains, as after a change of walls. Before the first grain
//! arrives (a scene of emitters only) there is no stepper: steps do nothing.

use super::{Backend, BackendKind, GpuRun, GrainView, Start};
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::model::{DemParams, Dim2, Grains, Grid, Phase, Region, SolverKind, StepParams, StepStats, Totals};

/// A GPU backend rebuilt whenever grains are added, in the space `S`.
pub struct Regrown<S: GpuRun = Dim2> {
    ctx: GpuContext,
    walls: S::Walls,
    grid: Grid<S>,
    capacity: usize,
    solver: SolverKind,
    dem: DemParams,
    /// The last phase set (applied again to a rebuilt stepper).
    phase: Option<Phase>,
    profiling: bool,
    /// The stepper over the grains so far; `None` while there are none.
    inner: Option<Box<dyn Backend<S>>>,
    /// No grains (what `grains` returns before the first one).
    none: Grains<S>,
    /// Steps taken, with or without a stepper: a rebuilt stepper goes on
    /// counting from here (the stochastic forcing's draws follow the count).
    steps: u64,
}

impl<S: GpuRun> Regrown<S> {
    pub fn new(start: &Start<'_, S>, ctx: GpuContext) -> Result<Regrown<S>> {
        let mut r = Regrown {
            ctx,
            walls: start.walls.clone(),
            grid: start.grid,
            capacity: start.capacity,
            solver: start.solver,
            dem: start.dem,
            phase: None,
            profiling: false,
            inner: None,
            none: Grains::default(),
            steps: 0,
        };
        if !start.grains.is_empty() {
            r.rebuild(start.grains)?;
        }
        Ok(r)
    }

    fn rebuild(&mut self, grains: &Grains<S>) -> Result<()> {
        let start = Start {
            grains,
            walls: &self.walls,
            grid: self.grid,
            capacity: self.capacity,
            solver: self.solver,
            dem: self.dem,
            // The impulse model never runs on the GPU (refused at validation).
            impulse: Default::default(),
        };
        let mut inner = S::gpu_backend_from(&start, self.ctx.clone())?;
        if let Some(phase) = self.phase {
            inner.set_phase(phase);
        }
        inner.set_profiling(self.profiling);
        inner.set_step_count(self.steps);
        self.inner = Some(inner);
        Ok(())
    }
}

impl<S: GpuRun> Backend<S> for Regrown<S> {
    fn kind(&self) -> BackendKind {
        BackendKind::Gpu
    }
    fn adapter(&self) -> String {
        self.ctx.adapter_name()
    }
    fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        self.steps += 1;
        match &mut self.inner {
            Some(b) => b.step(p),
            None => Ok(StepStats {
                converged: true,
                ..StepStats::default()
            }),
        }
    }
    fn step_count(&self) -> u64 {
        self.steps
    }
    fn set_step_count(&mut self, n: u64) {
        self.steps = n;
        if let Some(b) = &mut self.inner {
            b.set_step_count(n);
        }
    }
    fn move_walls(&mut self, walls: &S::Walls) {
        self.walls.clone_from(walls);
        if let Some(b) = &mut self.inner {
            b.move_walls(walls);
        }
    }
    fn set_walls(&mut self, walls: &S::Walls) {
        self.walls = walls.clone();
        if let Some(b) = &mut self.inner {
            b.set_walls(walls);
        }
    }
    fn grains(&mut self) -> Result<&Grains<S>> {
        match &mut self.inner {
            Some(b) => b.grains(),
            None => Ok(&self.none),
        }
    }
    fn totals(&mut self, region: &Region<S>) -> Result<Totals> {
        match &mut self.inner {
            Some(b) => b.totals(region),
            None => Ok(Totals::default()),
        }
    }
    fn max_speed(&mut self, region: &Region<S>) -> Result<f64> {
        match &mut self.inner {
            Some(b) => b.max_speed(region),
            None => Ok(0.0),
        }
    }
    fn add_grains(&mut self, new: &Grains<S>) -> Result<()> {
        let mut all = match &mut self.inner {
            Some(b) => b.grains()?.clone(),
            None => Grains::default(),
        };
        all.extend(new);
        self.rebuild(&all)
    }
    fn set_phase(&mut self, phase: Phase) {
        self.phase = Some(phase);
        if let Some(b) = &mut self.inner {
            b.set_phase(phase);
        }
    }
    fn transfers(&self) -> Option<crate::gpu::context::Transfers> {
        self.inner.as_ref().and_then(|b| b.transfers())
    }
    fn max_angular_speed(&mut self) -> Result<f32> {
        match &mut self.inner {
            Some(b) => b.max_angular_speed(),
            None => Ok(0.0),
        }
    }
    fn view(&mut self) -> Result<GrainView<'_, S>> {
        match &mut self.inner {
            Some(b) => b.view(),
            None => Ok(GrainView::Host {
                grains: &self.none,
                contacts: None,
            }),
        }
    }
    fn set_profiling(&mut self, on: bool) {
        self.profiling = on;
        if let Some(b) = &mut self.inner {
            b.set_profiling(on);
        }
    }
}
