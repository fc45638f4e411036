//! Crowd motion (Maury-Venel, docs/crowd.md) on the CPU: the NSCD stepper with
//! the desired velocity as its free velocity, and a door people leave by.
//!
//! One step of size h:
//! ```text
//!   v_i   = U(x_i) = s e(x_i)           the wish (model::crowd), no inertia
//!   v     = P_C(v)                      the NLGS projection of NSCD (gravity 0:
//!                                       the free velocity is the wish)
//!   x_i  += h v_i
//!   people whose centre is past the door by their radius leave the arrays
//! ```
//! The grains the backend holds are the people still in the room; the run
//! counts the people who left as `passed` (diagnostics.csv, summary.json), so
//! the room's count plus `passed` is the scene's count at every row.

use std::sync::Arc;

use super::{Backend, BackendKind, CpuBackend, GrainView};
use crate::error::Result;
use crate::model::{ContactLists, Crowd, Grains, Grid, Region, SolverKind, StepParams, StepStats, Totals, Walls};

/// The CPU crowd as a backend.
pub struct CpuCrowdBackend {
    pub inner: CpuBackend,
    pub crowd: Arc<Crowd>,
    /// People who have left through the door.
    pub evacuated: u64,
}

impl CpuCrowdBackend {
    pub fn new(grains: Grains, walls: Walls, grid: Grid, capacity: usize, crowd: Arc<Crowd>) -> Self {
        CpuCrowdBackend {
            inner: CpuBackend::new(grains, walls, grid, capacity),
            crowd,
            evacuated: 0,
        }
    }

    /// Remove the people who have left; true when anyone did.
    fn leave(&mut self) -> bool {
        let g = &mut self.inner.grains;
        // Most steps nobody leaves: look before building the mask.
        if !(0..g.len()).any(|i| self.crowd.left(g.pos[i], g.radius[i])) {
            return false;
        }
        let stay: Vec<bool> = (0..g.len()).map(|i| !self.crowd.left(g.pos[i], g.radius[i])).collect();
        let gone = stay.iter().filter(|&&s| !s).count();
        if gone == 0 {
            return false;
        }
        fn keep<T: Copy>(v: &mut Vec<T>, stay: &[bool]) {
            if v.len() == stay.len() {
                let mut k = stay.iter();
                v.retain(|_| *k.next().unwrap_or(&true));
            }
        }
        keep(&mut g.pos, &stay);
        keep(&mut g.vel, &stay);
        keep(&mut g.radius, &stay);
        keep(&mut g.inv_mass, &stay);
        keep(&mut g.id, &stay);
        keep(&mut g.ang_vel, &stay);
        keep(&mut g.angle, &stay);
        self.evacuated += gone as u64;
        true
    }
}

impl Backend for CpuCrowdBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Cpu
    }
    fn adapter(&self) -> String {
        self.inner.adapter()
    }
    fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        let g = &mut self.inner.grains;
        for i in 0..g.len() {
            g.vel[i] = self.crowd.desired(g.pos[i]);
        }
        // The projection of NSCD with the wish as free velocity (gravity is
        // refused for crowd scenes; zero here whatever the caller says).
        let q = StepParams {
            solver: SolverKind::Nlgs,
            gravity: [0.0, 0.0],
            ..*p
        };
        let stats = self.inner.step(&q)?;
        if self.leave() {
            // The lists name grains by index: the next step starts cold.
            self.inner.stepper.reset_warm_start();
        }
        Ok(stats)
    }
    fn set_walls(&mut self, walls: &Walls) {
        self.inner.set_walls(walls);
    }
    fn step_count(&self) -> u64 {
        self.inner.step_count()
    }
    fn grains(&mut self) -> Result<&Grains> {
        self.inner.grains()
    }
    /// The room's totals, with the people who left as `passed` (none of
    /// them is lost: they left by the door).
    fn totals(&mut self, region: &Region) -> Result<Totals> {
        let mut t = self.inner.totals(region)?;
        t.passed = self.evacuated;
        Ok(t)
    }
    fn max_speed(&mut self, region: &Region) -> Result<f64> {
        self.inner.max_speed(region)
    }
    fn view(&mut self) -> Result<GrainView<'_>> {
        self.inner.view()
    }
    /// People an emitter lets in (an entrance) join the room.
    fn add_grains(&mut self, new: &Grains) -> Result<()> {
        self.inner.add_grains(new)
    }
    fn evacuated(&self) -> Option<u64> {
        Some(self.evacuated)
    }
    fn solver(&self, _asked: SolverKind) -> SolverKind {
        SolverKind::Crowd
    }
    fn saved_contacts(&mut self) -> Option<(&ContactLists, &[u32])> {
        None
    }
}
