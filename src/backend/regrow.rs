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

use super::{Backend, BackendKind, GrainView, Start, gpu_backend_from};
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::model::{DemParams, Grains, Grid, Phase, Region, SolverKind, StepParams, StepStats, Totals, Walls};

/// A GPU backend rebuilt whenever grains are added.
pub struct Regrown {
    ctx: GpuContext,
    walls: Walls,
    grid: Grid,
    capacity: usize,
    solver: SolverKind,
    dem: DemParams,
    /// The last phase set (applied again to a rebuilt stepper).
    phase: Option<Phase>,
    profiling: bool,
    /// The stepper over the grains so far; `None` while there are none.
    inner: Option<Box<dyn Backend>>,
    /// No grains (what `grains` returns before the first one).
    none: Grains,
    /// Steps taken, with or without a stepper: a rebuilt stepper goes on
    /// counting from here (the stochastic forcing's draws follow the count).
    steps: u64,
}

impl Regrown {
    pub fn new(start: &Start<'_>, ctx: GpuContext) -> Result<Regrown> {
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

    fn rebuild(&mut self, grains: &Grains) -> Result<()> {
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
        let mut inner = gpu_backend_from(&start, self.ctx.clone())?;
        if let Some(phase) = self.phase {
            inner.set_phase(phase);
        }
        inner.set_profiling(self.profiling);
        inner.set_step_count(self.steps);
        self.inner = Some(inner);
        Ok(())
    }
}

impl Backend for Regrown {
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
    fn move_walls(&mut self, walls: &Walls) {
        self.walls.clone_from(walls);
        if let Some(b) = &mut self.inner {
            b.move_walls(walls);
        }
    }
    fn set_walls(&mut self, walls: &Walls) {
        self.walls = walls.clone();
        if let Some(b) = &mut self.inner {
            b.set_walls(walls);
        }
    }
    fn grains(&mut self) -> Result<&Grains> {
        match &mut self.inner {
            Some(b) => b.grains(),
            None => Ok(&self.none),
        }
    }
    fn totals(&mut self, region: &Region) -> Result<Totals> {
        match &mut self.inner {
            Some(b) => b.totals(region),
            None => Ok(Totals::default()),
        }
    }
    fn max_speed(&mut self, region: &Region) -> Result<f64> {
        match &mut self.inner {
            Some(b) => b.max_speed(region),
            None => Ok(0.0),
        }
    }
    fn add_grains(&mut self, new: &Grains) -> Result<()> {
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
    fn view(&mut self) -> Result<GrainView<'_>> {
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
