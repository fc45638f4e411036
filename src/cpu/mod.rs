//! The CPU reference path: one module per stage, each a function over typed
//! slices in the binding order of its WGSL twin.
//!
//! One NSCD step (docs/nscd.md) runs the stages of `model::nscd_plan` in order
//! through one [`StepContext`] ([`StepContext::run_stage`]):
//! ```text
//!   free_velocity [spin_free] detect (binning + detection) [cohesion] [warm_start] [bounce]
//!     solve (jacobi_contact + jacobi_gather | NLGS sweep | seed sweep | apgd | ...)
//!     [push_out] integrate [integrate_angle]
//! ```
//!
//! The stepper is written over the space (model::space): [`CpuSpace`] holds
//! what differs, the solvers each space has, how its cohesion and forcing
//! are applied, and its walls' motion.

pub mod apgd;
pub mod cohesion;
pub mod colored;
pub mod coloring;
pub mod correct;
pub mod dem;
pub mod detect;
pub mod grid;
pub mod impulse;
pub mod integrate;
pub mod jacobi;
pub mod nlgs;
pub mod reduce;
pub mod reorder;
pub mod residual_max;
pub mod solver;
pub mod sweep;
pub mod uzawa;
pub mod warm_start;

use crate::error::{Error, Result};
use crate::model::plan::{self, Stage};
use crate::model::speeds;
use crate::model::{ContactLists, Grains, SolverKind, StepParams, StepStats, nscd_plan};
use crate::model::{Dim2, Dim3, Grid, Walls, Walls3d};
use grid::Bins;

/// The iteration loop every NSCD solver shares: run `iteration` until its
/// residual (largest velocity correction of the iteration, m/s) is under
/// `threshold` = tol/dt or `itmax` iterations ran, recording each residual in
/// `history` when asked (the study's residual plot).
pub fn iterate(
    stats: &mut StepStats,
    itmax: u32,
    threshold: f32,
    mut history: Option<&mut Vec<f32>>,
    mut iteration: impl FnMut() -> f32,
) {
    while stats.iterations < itmax {
        let r = iteration();
        stats.iterations += 1;
        stats.residual = r;
        if let Some(h) = history.as_deref_mut() {
            h.push(r);
        }
        if r < threshold {
            stats.converged = true;
            break;
        }
    }
}

/// Grains per rayon task: below this a stage runs on one thread (thread
/// wake-ups cost more than the work for small piles).
pub const PAR_MIN: usize = 256;

/// Contact slots per grain that [`CpuStepper::growing`] starts with: the
/// bundled hourglass's lists, at the default alert distance, overflowed 16
/// slots in 8 of 1,300 steps and 12 slots 20,112 times.
pub const START_CAPACITY: usize = 16;

/// What the CPU stepper does differently in each space.
pub trait CpuSpace: detect::Detect {
    /// A new solver of `kind`, if the CPU path has one in this space.
    fn make_solver(kind: SolverKind) -> Option<Box<dyn solver::Solver<Self>>>;

    /// Stage `cohesion` (`cpu::cohesion`): the capillary bridges' impulses
    /// added to the free velocities.
    fn cohesion(
        p: &StepParams,
        lists: &ContactLists<Self>,
        grains: &Grains<Self>,
        vel_free: &mut [Self::Vec],
    ) -> Result<()>;

    /// The stochastic forcing of stage `free_velocity` (`integrate::forcing`).
    fn forcing(
        grains: &Grains<Self>,
        forcing: crate::model::Forcing,
        dt: f32,
        vel_free: &mut [Self::Vec],
    ) -> Result<()>;

    /// The walls move (`model::motion`).
    fn walls_moving(walls: &Self::Walls) -> bool;

    /// `walls` moved on by `dt` into `out`, their velocities kept
    /// (`model::walls::walls_ahead`).
    fn walls_ahead(walls: &Self::Walls, dt: f32, out: &mut Self::Walls);
}

impl CpuSpace for Dim2 {
    fn make_solver(kind: SolverKind) -> Option<Box<dyn solver::Solver>> {
        solver::make(kind)
    }

    fn cohesion(p: &StepParams, lists: &ContactLists, grains: &Grains, vel_free: &mut [[f32; 2]]) -> Result<()> {
        cohesion::cohesion(&p.cohesion, p.dt, lists, &grains.radius, &grains.inv_mass, vel_free);
        Ok(())
    }

    fn forcing(grains: &Grains, forcing: crate::model::Forcing, dt: f32, vel_free: &mut [[f32; 2]]) -> Result<()> {
        integrate::forcing(&grains.inv_mass, &grains.id, forcing, dt, vel_free);
        Ok(())
    }
    fn walls_moving(walls: &Walls) -> bool {
        walls.moving()
    }

    fn walls_ahead(walls: &Walls, dt: f32, out: &mut Walls) {
        crate::model::walls::walls_ahead(walls, dt, out);
    }
}

/// Three dimensions: projected Jacobi, APGD, Uzawa, NLGS sweeps and
/// coloured NLGS; the bridges along the normal of 3D contacts; the forcing
/// with three draws; the walls (planes) stand still.
impl CpuSpace for Dim3 {
    fn make_solver(kind: SolverKind) -> Option<Box<dyn solver::Solver<Dim3>>> {
        match kind {
            SolverKind::Jacobi => Some(Box::new(jacobi::Jacobi)),
            SolverKind::Apgd => Some(Box::<apgd::Apgd<Dim3>>::default()),
            SolverKind::Uzawa => Some(Box::new(uzawa::Uzawa)),
            SolverKind::Nlgs => Some(Box::new(sweep::Sweep)),
            SolverKind::Colored => Some(Box::new(colored::Colored)),
            _ => None,
        }
    }

    fn cohesion(
        p: &StepParams,
        lists: &ContactLists<Dim3>,
        grains: &Grains<Dim3>,
        vel_free: &mut [[f32; 3]],
    ) -> Result<()> {
        cohesion::cohesion(&p.cohesion, p.dt, lists, &grains.radius, &grains.inv_mass, vel_free);
        Ok(())
    }

    fn forcing(
        grains: &Grains<Dim3>,
        forcing: crate::model::Forcing,
        dt: f32,
        vel_free: &mut [[f32; 3]],
    ) -> Result<()> {
        integrate::forcing(&grains.inv_mass, &grains.id, forcing, dt, vel_free);
        Ok(())
    }
    /// Planes stand still.
    fn walls_moving(_: &Walls3d) -> bool {
        false
    }

    fn walls_ahead(walls: &Walls3d, _: f32, out: &mut Walls3d) {
        out.clone_from(walls);
    }
}

/// Scratch state of the CPU path, kept between steps (contact lists for the
/// warm start, bins, buffers), in the space `S` (the plane by default).
#[derive(Debug, Clone)]
pub struct CpuStepper<S: CpuSpace = Dim2> {
    pub grid: Grid<S>,
    pub bins: Bins,
    /// Scratch lists that `detect` writes.
    lists: ContactLists<S>,
    /// The lists of the last completed step (with their final impulses).
    prev: ContactLists<S>,
    /// The solver of the last solve and its state (`solver::CPU_SOLVERS`).
    solver: Option<(SolverKind, Box<dyn solver::Solver<S>>)>,
    /// Acting contacts from which an NLGS sweep runs on two threads
    /// (`nlgs::PAR_SWEEP_MIN`; `usize::MAX`: always one).
    pub sweep_par_min: usize,
    /// Sweeps of the hot contacts after each NLGS full sweep still over its
    /// threshold (`nlgs::HOT_SWEEPS`; 0: none).
    pub hot_sweeps: u32,
    /// The slots per grain the contact lists may grow to
    /// (`detect::detect_growing`); [`CpuStepper::new`] fixes them at its
    /// capacity, [`CpuStepper::growing`] starts lower.
    pub max_capacity: usize,
    /// Keep only the contacts that carry over (`Contact::carries_over`) as
    /// the last step's lists, in fewer slots ([`CpuStepper::growing`]);
    /// else the step's lists are kept whole.
    pub compact_prev: bool,
    vel_free: Vec<S::Vec>,
    /// The spins before the contacts act (rad/s; friction only: nothing
    /// else turns a grain, so they are last step's spins).
    spin_free: Vec<S::Spin>,
    correction: correct::Correction<S>,
    /// The tally of the last detection (`lists`).
    tally: detect::Tally,
    /// Contact colours of the last coloured step (0 for other solvers).
    pub colors: u32,
    /// When `Some`, every solver iteration of the following steps appends its
    /// residual (largest |dP| W, m/s) here (`hourglass study`). `None` by
    /// default: nothing is recorded and nothing is paid.
    pub residual_history: Option<Vec<f32>>,
    /// Steps taken (the stochastic forcing's step index, `model::noise`;
    /// a resumed run sets it).
    pub steps: u64,
}

impl<S: CpuSpace> CpuStepper<S> {
    pub fn new(grid: Grid<S>, capacity: usize) -> Self {
        CpuStepper {
            grid,
            bins: Bins::default(),
            lists: ContactLists::new(0, capacity),
            prev: ContactLists::new(0, capacity),
            solver: None,
            sweep_par_min: nlgs::PAR_SWEEP_MIN,
            hot_sweeps: nlgs::HOT_SWEEPS,
            max_capacity: capacity,
            compact_prev: false,
            vel_free: Vec::new(),
            spin_free: Vec::new(),
            correction: correct::Correction::default(),
            tally: detect::Tally::default(),
            colors: 0,
            residual_history: None,
            steps: 0,
        }
    }

    /// A stepper whose contact lists start at [`START_CAPACITY`] slots per
    /// grain (or `capacity`, if fewer) and grow up to `capacity` when a
    /// grain's contacts overflow them, and which keeps of a finished step
    /// only the contacts that carry over ([`CpuStepper::compact_prev`]):
    /// the same steps as [`CpuStepper::new`]`(grid, capacity)`, bit for
    /// bit, in less memory.
    pub fn growing(grid: Grid<S>, capacity: usize) -> Self {
        CpuStepper::growing_from(grid, START_CAPACITY, capacity)
    }

    /// [`CpuStepper::growing`] from `start` slots per grain.
    pub fn growing_from(grid: Grid<S>, start: usize, capacity: usize) -> Self {
        let mut s = CpuStepper::new(grid, capacity.min(start));
        s.max_capacity = capacity;
        s.compact_prev = true;
        s
    }

    /// Permute the grains into the cell order of the last binning (memory
    /// locality, and the lower and upper halves of the pile become the two
    /// halves of the arrays for the two-thread NLGS sweep), keeping last
    /// step's impulses: the warm-start lists move with their grains and
    /// their other-grain indices are renumbered. Nothing happens before the
    /// first step or when the grain count changed.
    pub fn reorder(&mut self, grains: &mut Grains<S>) {
        let n = grains.len();
        if self.bins.sorted.len() != n || self.prev.grains() != n || n == 0 {
            return;
        }
        let sorted = &self.bins.sorted;
        *grains = reorder::reorder(sorted, grains);
        let mut new_index = vec![0u32; n];
        for (new, &old) in sorted.iter().enumerate() {
            new_index[old as usize] = new as u32;
        }
        // The current lists are stale between steps (the next detection
        // overwrites them): the reordered ones are written there, then swapped.
        let (k, grown) = (self.prev.capacity, self.lists.capacity);
        let mut lists = std::mem::replace(&mut self.lists, ContactLists::new(0, 0));
        lists.capacity = k;
        lists.count.clear();
        lists.count.resize(n, 0);
        lists.slots.clear();
        lists.slots.resize(n * k, crate::model::Contact::default());
        for (new, &old) in sorted.iter().enumerate() {
            let old = old as usize;
            lists.count[new] = self.prev.count[old];
            for (s, c) in self.prev.of(old).iter().enumerate() {
                let mut c = *c;
                if let crate::model::Body::Grain(j) = c.body() {
                    c.other = crate::model::Body::Grain(new_index[j as usize]).encode();
                }
                lists.slots[new * k + s] = c;
            }
        }
        self.lists = std::mem::replace(&mut self.prev, lists);
        if self.lists.capacity != grown {
            self.lists = ContactLists::new(0, grown);
        }
    }

    /// Forget last step's impulses (the walls changed, or grains were reordered).
    pub fn reset_warm_start(&mut self) {
        self.prev = ContactLists::new(0, self.lists.capacity);
    }

    /// Contacts (with their impulses) of the last completed step.
    pub fn contacts(&self) -> &ContactLists<S> {
        &self.prev
    }

    /// Take `lists` as the last completed step's contacts (a resumed run:
    /// the next step warm-starts from their impulses).
    pub fn restore_contacts(&mut self, lists: ContactLists<S>) {
        self.prev = lists;
    }

    /// Binning and detection: the contact lists of the current positions
    /// (used by `step`, and on its own by tests).
    pub fn detect(&mut self, grains: &Grains<S>, walls: &S::Walls, alert: f32) -> &ContactLists<S> {
        let (grid, bins, max) = (&self.grid, &mut self.bins, self.max_capacity);
        self.tally = detect::detect_growing(grid, bins, grains, walls, alert, &mut self.lists, max);
        &self.lists
    }

    /// Advance the grains by one step: the stages of `model::nscd_plan`, in order.
    pub fn step(&mut self, grains: &mut Grains<S>, walls: &S::Walls, p: &StepParams) -> Result<StepStats> {
        let mut ctx = StepContext::begin(self, grains, walls, p);
        for stage in nscd_plan(&ctx.resolved) {
            ctx.run_stage(stage)?;
        }
        Ok(ctx.finish())
    }

    /// The stages of this step's plan before `from` (`model::plan::split`),
    /// then the step's close (its lists become [`CpuStepper::contacts`], the
    /// step count advances), as if the rest of the step ran elsewhere.
    /// Returns the stats (the solve's, when it ran) and the stages run.
    pub fn step_before(
        &mut self,
        grains: &mut Grains<S>,
        walls: &S::Walls,
        p: &StepParams,
        from: Stage,
    ) -> Result<(StepStats, Vec<Stage>)> {
        let mut ctx = StepContext::begin(self, grains, walls, p);
        let mut plan = nscd_plan(&ctx.resolved);
        plan.truncate(plan::split(&plan, &plan::NSCD_STAGES, from));
        for &stage in &plan {
            ctx.run_stage(stage)?;
        }
        Ok((ctx.finish(), plan))
    }

    /// The free velocities of the last step (with its forcing and cohesion).
    pub fn vel_free(&self) -> &[S::Vec] {
        &self.vel_free
    }

    /// The spins before the contacts acted in the last step (friction).
    pub fn spin_free(&self) -> &[S::Spin] {
        &self.spin_free
    }

    /// The contacts of the last detection ([`CpuStepper::detect_keeping_impulses`])
    /// solved for the free velocities `grains.vel` (the course's
    /// `solve_contacts_*`, python/): `grains.vel` becomes the velocity after
    /// the contacts; the positions do not move. The lists then become the
    /// warm-start source of the next detection.
    pub fn solve_detected(&mut self, grains: &mut Grains<S>, p: &StepParams) -> Result<StepStats> {
        let p = &p.resolved(false);
        if self.lists.grains() != grains.len() {
            return Err(Error::field(
                "contacts",
                "grains",
                format!(
                    "the last detection saw {} grains, the solve has {}: detect again",
                    self.lists.grains(),
                    grains.len()
                ),
            ));
        }
        self.vel_free.clear();
        self.vel_free.extend_from_slice(&grains.vel);
        let mut stats = self.solve_lists(grains, p)?;
        if self.lists.slots.is_empty() || grains.is_empty() {
            stats.converged = true;
        }
        self.prev = self.lists.clone();
        Ok(stats)
    }

    /// Detection as [`CpuStepper::detect`], each contact found by the last
    /// solve starting from its impulse (warm start).
    pub fn detect_keeping_impulses(&mut self, grains: &Grains<S>, walls: &S::Walls, alert: f32) -> &ContactLists<S> {
        self.tally = detect::bin_and_detect(&self.grid, &mut self.bins, grains, walls, alert, &mut self.lists);
        if self.prev.grains() == grains.len() {
            warm_start::warm_start(&self.prev, &mut self.lists);
        }
        &self.lists
    }

    /// The lists of the last detection (with the impulses of a solve since).
    pub fn detected(&self) -> &ContactLists<S> {
        &self.lists
    }

    /// The solve of docs/nscd.md#one-step on the detected (and warm-started) lists: the
    /// solver `p.solver` ([`solver::CPU_SOLVERS`]) takes the free velocities
    /// `vel_free` (and `spin_free` with friction) to `grains.vel` (and spins).
    fn solve_lists(&mut self, grains: &mut Grains<S>, p: &StepParams) -> Result<StepStats> {
        let tally = self.tally;
        let mut stats = StepStats {
            contacts: tally.contacts,
            overflow: tally.overflow,
            max_overlap: tally.max_overlap,
            ..StepStats::default()
        };
        if S::DIM == 3 && p.friction() && !p.solver.facts().friction {
            // The plane's scene checks refuse this before a run; a 3D step
            // is called from code, and refuses it here.
            return Err(Error::NotImplemented {
                what: format!("friction under solver `{}` (it is frictionless)", p.solver.name()),
            });
        }
        if self.solver.as_ref().is_none_or(|(kind, _)| *kind != p.solver) {
            let made = S::make_solver(p.solver).ok_or_else(|| Error::NotImplemented {
                what: if S::DIM == 2 {
                    format!("solver `{}` on the CPU backend", p.solver.name())
                } else {
                    format!("solver `{}` on the CPU backend in {}D", p.solver.name(), S::DIM)
                },
            })?;
            self.solver = Some((p.solver, made));
        }
        let Some((_, solver)) = self.solver.as_mut() else {
            unreachable!("made above")
        };
        let ctx = solver::SolveCtx {
            lists: &mut self.lists,
            free: jacobi::Free {
                vel: &self.vel_free,
                inv_mass: &grains.inv_mass,
                spin: &self.spin_free,
                radius: &grains.radius,
            },
            out: jacobi::Moving {
                vel: &mut grains.vel,
                spin: &mut grains.ang_vel,
            },
            p,
            history: self.residual_history.as_mut(),
            par_min: self.sweep_par_min,
            hot_sweeps: self.hot_sweeps,
        };
        solver.solve(ctx, &mut stats);
        if p.solver.facts().colors {
            self.colors = stats.colors;
        }
        Ok(stats)
    }
}

/// One NSCD step in progress on the CPU: everything its stages read and
/// write (the stepper's lists and scratch, the grains, the walls, the
/// parameters) and the step's stats.
pub struct StepContext<'a, S: CpuSpace = Dim2> {
    stepper: &'a mut CpuStepper<S>,
    grains: &'a mut Grains<S>,
    walls: &'a S::Walls,
    /// The parameters as resolved for the CPU (the plan's).
    resolved: StepParams,
    /// The solve's parameters: no push-out through the velocities when the
    /// push-out is split (`Stage::PushOut` moves the grains instead), and the
    /// tolerance of `StepParams::solve_tol` at the start-of-step speed.
    solve_p: StepParams,
    stats: StepStats,
}

impl<'a, S: CpuSpace> StepContext<'a, S> {
    /// The context of a step of `grains` from their current state.
    pub fn begin(
        stepper: &'a mut CpuStepper<S>,
        grains: &'a mut Grains<S>,
        walls: &'a S::Walls,
        p: &StepParams,
    ) -> Self {
        let resolved = p.resolved(false);
        let p = StepParams {
            overlap_relax: if resolved.overlap_iterations > 0 {
                0.0
            } else {
                resolved.overlap_relax
            },
            ..resolved
        };
        // The solve converges further when the grains are slow, so that its
        // error does not keep a pile moving (StepParams::solve_tol); the
        // speed it follows may ignore the fastest few grains (model::speeds).
        let share = p.solver.facts().fast_share;
        let fastest = grains.max_speed();
        let speed = if share > 0.0 {
            speeds::followed(
                &speeds::histogram_in::<S>(&grains.vel),
                grains.len() as u32,
                fastest,
                share,
            )
        } else {
            fastest
        };
        let solve_p = StepParams {
            tol: p.solve_tol(speed),
            ..p
        };
        StepContext {
            stepper,
            grains,
            walls,
            resolved,
            solve_p,
            stats: StepStats::default(),
        }
    }

    /// Run one stage of the NSCD plan (`model::plan::Stage` states what each
    /// reads and writes).
    pub fn run_stage(&mut self, stage: Stage) -> Result<()> {
        let (s, g, p) = (&mut *self.stepper, &mut *self.grains, &self.resolved);
        match stage {
            Stage::FreeVelocity => s.free_velocity(g, p)?,
            Stage::SpinFree => {
                let n = g.len();
                g.ang_vel.resize(n, S::Spin::default());
                g.angle.resize(n, S::UNTURNED);
                s.spin_free.clear();
                s.spin_free.extend_from_slice(&g.ang_vel);
            }
            Stage::Detect => {
                s.detect(g, self.walls, p.alert);
            }
            Stage::Cohesion => S::cohesion(p, &s.lists, g, &mut s.vel_free)?,
            Stage::WarmStart => warm_start::warm_start(&s.prev, &mut s.lists),
            Stage::Bounce => {
                let l = &mut s.lists;
                warm_start::bounce(&l.count, &mut l.slots, l.capacity, &g.vel, p.restitution, p.dt);
            }
            Stage::Solve => self.solve()?,
            Stage::PushOut => s.push_out(g, p),
            Stage::Integrate => {
                integrate::integrate::<S>(&mut g.pos, &g.vel, p.dt);
                integrate::wrap(&s.grid, &mut g.pos);
            }
            Stage::IntegrateAngle => integrate::integrate_angle::<S>(&mut g.angle, &g.ang_vel, p.dt),
            other => {
                return Err(Error::NotImplemented {
                    what: format!("stage `{}` in the NSCD step", other.name()),
                });
            }
        }
        Ok(())
    }

    /// Stage `Solve`: `solve_lists` with the solve's parameters, and the
    /// step's stats.
    fn solve(&mut self) -> Result<()> {
        let n = self.grains.len();
        let mut stats = self.stepper.solve_lists(self.grains, &self.solve_p)?;
        if self.stepper.lists.slots.is_empty() || n == 0 {
            stats.converged = true;
        }
        stats.max_displacement = self.grains.max_speed() * self.resolved.dt;
        self.stats = stats;
        Ok(())
    }

    /// Close the step: this step's lists become the warm-start source of the
    /// next one, the step count advances. Returns the step's stats.
    pub fn finish(self) -> StepStats {
        let s = self.stepper;
        if s.compact_prev {
            warm_start::carry_over(&s.lists, &mut s.prev);
        } else {
            std::mem::swap(&mut s.prev, &mut s.lists);
        }
        s.steps += 1;
        self.stats
    }
}

impl<S: CpuSpace> CpuStepper<S> {
    /// Stage `FreeVelocity`, with the stochastic forcing of this step.
    /// Gravity lies in the x-y plane in both spaces (y up).
    fn free_velocity(&mut self, grains: &Grains<S>, p: &StepParams) -> Result<()> {
        self.vel_free.resize(grains.len(), S::Vec::default());
        let g = S::in_plane(p.gravity);
        integrate::free_velocity::<S>(&grains.vel, &grains.inv_mass, g, p.dt, &mut self.vel_free);
        if p.forcing.sigma > 0.0 {
            let f = crate::model::Forcing {
                step: self.steps as u32,
                ..p.forcing
            };
            S::forcing(grains, f, p.dt, &mut self.vel_free)?;
        }
        Ok(())
    }

    /// Stage `PushOut`: the split push-out of `overlap_relax` (cpu::correct).
    fn push_out(&mut self, grains: &mut Grains<S>, p: &StepParams) {
        self.correction.apply(
            &self.lists,
            &grains.inv_mass,
            &grains.vel,
            &mut grains.pos,
            &correct::PushOut {
                dt: p.dt,
                beta: p.overlap_relax,
                slop: p.slop(),
                omega: p.omega,
                iterations: p.overlap_iterations,
            },
        );
    }
}
