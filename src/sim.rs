//! The simulation loop: settle with the gate closed, open the gate, discharge;
//! a diagnostics row and a frame every `every` steps. The only loop; the
//! stepping itself is delegated to a [`Backend`]. It knows no window and no
//! terminal: progress and warnings go to an [`Observer`].

use std::time::Instant;

use crate::analysis::fit_flow_rates;
use crate::backend::census::{Elastic, Look, Touching};
use crate::backend::{Backend, BackendKind, OverlapHistogram, substep};
use crate::error::{Error, Result};
use crate::model::accuracy::OverlapTarget;
use crate::model::motion::Moves;
use crate::model::{Dim2, Phase, SolverKind, StepParams};
use crate::model::{Region, Totals};
use crate::output::{ResultDir, Summary};
use crate::scene::Setup;
use crate::scene::emit::Emitter;

mod emit;
mod output;
mod space;
mod state;
mod tally;
pub use space::RunSpace;
pub use state::{STATE_VERSION, State};
use tally::Tally;

/// Hears how a run goes: a progress bar on a terminal, a window's title, a
/// test. Every method has a silent default, so an observer says only what
/// it cares about.
pub trait Observer {
    /// Where the run stands: once at the start, then after every step.
    fn progress(&mut self, _p: &Progress) {}
    /// A line for the person running it, as it happens: the first step that
    /// hit itmax, the first contact overflow, the first step past the alert
    /// distance (each a `warning: ...`), and the gate opening.
    fn notice(&mut self, _msg: &str) {}
}

/// Hears nothing.
pub struct Silent;

impl Observer for Silent {}

/// Run a whole simulation into a result directory and return its summary.
pub fn run<S: RunSpace>(
    setup: &Setup<S>,
    backend: &mut dyn Backend<S>,
    out: &mut ResultDir,
    obs: &mut dyn Observer,
) -> Result<Summary> {
    let mut r = Run::start(setup, backend, out, obs)?;
    while !r.done() {
        r.advance(backend, out, u64::MAX, obs)?;
    }
    r.finish(backend, out)
}

/// [`run`] from a saved state ([`Run::resume`]) into the result directory
/// `dir` checked for it: nothing in it changes until the run is set up (a
/// run that cannot start leaves it as it was); summary.json is written at
/// the end.
pub fn resume<S: RunSpace>(
    setup: &Setup<S>,
    state: &State<S>,
    backend: &mut dyn Backend<S>,
    dir: crate::output::Resumable,
    obs: &mut dyn Observer,
) -> Result<Summary> {
    let mut r = Run::resume(setup, state, backend, obs)?;
    let mut out = dir.open(&setup.scene.to_toml(), state.frames.clone())?;
    while !r.done() {
        r.advance(backend, &mut out, u64::MAX, obs)?;
    }
    let summary = r.finish(backend, &mut out)?;
    out.finish(&summary)?;
    Ok(summary)
}

/// Where a run stands, for a window's title or a live colour scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Steps taken (settle phase included).
    pub steps: u64,
    /// Simulated time, s.
    pub time: f64,
    /// Still settling (gate closed).
    pub settling: bool,
    /// Steps the run will take in all, as planned now: the settle phase
    /// counts its largest length until the gate opens, then its own.
    pub planned: u64,
    /// Grains of the run.
    pub grains: u64,
    /// The totals of the last diagnostics row.
    pub totals: Totals,
}

/// A run in progress: the loop of [`run`] cut into [`Run::advance`] calls so
/// that a window can drive it a few steps per frame. The backend, the result
/// directory and the observer are passed to every call (not held), so the
/// caller can render from the backend between calls.
pub struct Run<S: RunSpace = Dim2> {
    p: StepParams,
    /// Adapts `p.tol` after every step (`solver.max_overlap`); None: `p.tol` holds.
    target: Option<OverlapTarget>,
    every: u64,
    settle_max: u64,
    discharge: u64,
    settle_speed: f64,
    /// The settle phase also waits for every grain to turn slower than this, rad/s (DEM).
    settle_spin: f32,
    contact_capacity: u32,
    open_walls: S::Walls,
    closed_walls: S::Walls,
    /// The walls' `[[motion]]`, on a clock that starts when the gate opens.
    motion: Option<S::Motion>,
    /// The walls as they are now: closed while settling, then open, where
    /// their motion has taken them.
    walls_now: S::Walls,
    /// Overlaps of the touching pairs at every row.
    overlaps: OverlapHistogram,
    /// The step of the census's last look, whose lists the overlap
    /// histogram samples at a row.
    looked: Option<u64>,
    region: Region<S>,
    n: u64,
    tally: Tally,
    times: Vec<f64>,
    passed: Vec<u64>,
    /// When this invocation started, and the steps taken before it (a
    /// resumed run's): the rates are of the steps since.
    start: Instant,
    start_steps: u64,
    settling: bool,
    settle_steps: u64,
    discharge_start: f64,
    discharge_steps: u64,
    last_totals: Totals,
    /// The fastest grain at the end of the last step, m/s (the substeps' v_max).
    speed: f32,
    /// New contacts counted every step, and the elastic energy of a row.
    census: S::Census,
    /// What touched after the last step.
    touching: Touching,
    /// Count new contacts at every step (`run.collisions`); None: the
    /// default of the model and backend ([`Run::counts_collisions`]).
    collisions: Option<bool>,
    /// The scene's emitters, the grains each has added so far, whether its
    /// next grain is waiting for its spot, and the emissions that waited.
    emitters: Vec<Emitter<S>>,
    emitted: Vec<usize>,
    waiting: Vec<bool>,
    emissions_waited: u64,
    /// Crowd motion: the time the last person left the room, s.
    evacuation_time: Option<f64>,
}

/// Frames a run may write before [`many_frames`] says so.
pub const MANY_FRAMES: u64 = 10_000;

/// The notice of a run whose `discharge` steps of `dt` seconds write more
/// than [`MANY_FRAMES`] frames at one every `every` steps (an explicit
/// model's step is about a thousandth of NSCD's, and the bundled scene's
/// cadence is NSCD's); None for fewer.
pub fn many_frames(discharge: u64, every: u64, dt: f32) -> Option<String> {
    let frames = discharge / every.max(1);
    (frames > MANY_FRAMES).then(|| {
        format!(
            "run.every = {every} writes a frame and a row every {:.2e} s of simulated time: {frames} frames in the discharge (dt = {dt:.2e} s); raise run.every (--every) for fewer",
            f64::from(dt) * every as f64
        )
    })
}

/// Steps between two checks of the settle phase's end when rows
/// (`run.every`) are rarer: the check reads every grain's speed (a
/// read-back on the GPU), a small share of 50 steps.
pub const SETTLE_CHECK_EVERY: u64 = 50;

/// How long each phase of a run lasts.
struct Plan {
    /// Settle steps at most (0: no gate, no settle phase).
    settle_max: u64,
    discharge: u64,
    /// The settle phase ends once every grain is slower than this, m/s ...
    settle_speed: f64,
    /// ... and turns slower than this, rad/s (DEM; infinite otherwise).
    settle_spin: f32,
}

impl Plan {
    fn of<S: RunSpace>(setup: &Setup<S>) -> Plan {
        let (p, scene) = (&setup.params, &setup.scene);
        let dt = f64::from(p.dt);
        let dem = p.solver == SolverKind::Dem;
        let settle_max = if !setup.has_gate() {
            0
        } else if dem {
            setup.dem.relax_max_steps
        } else {
            (scene.run.settle / dt).round() as u64
        };
        // DEM relaxes (gamma_relax) until max |v| < relax_v_tol and max |w| < relax_w_tol.
        let (settle_speed, settle_spin) = if dem {
            (f64::from(setup.dem.relax_v_tol), setup.dem.relax_w_tol)
        } else {
            (scene.run.settle_speed, f32::INFINITY)
        };
        let discharge = match (scene.run.steps, scene.run.duration) {
            (Some(n), _) => n,
            (None, Some(d)) => (d / dt).round() as u64,
            (None, None) => (crate::scene::DEFAULT_DURATION / dt).round() as u64,
        };
        Plan {
            settle_max,
            discharge,
            settle_speed,
            settle_spin,
        }
    }
}

impl<S: RunSpace> Run<S> {
    /// Check the solver, open the gate if there is none, write the walls
    /// (and the seams of a periodic run) and the first frame.
    pub fn start(
        setup: &Setup<S>,
        backend: &mut dyn Backend<S>,
        out: &mut ResultDir,
        obs: &mut dyn Observer,
    ) -> Result<Run<S>> {
        let mut r = Run::new(setup)?;
        if let Some(n) = many_frames(r.discharge, r.every, setup.params.dt) {
            obs.notice(&n);
        }
        if !r.settling {
            backend.set_walls(&r.open_walls);
            r.move_walls(backend);
        }
        backend.set_phase(if r.settling { Phase::Relax } else { Phase::Discharge });
        out.walls(&r.open_walls)?;
        if let Some(period) = setup.periodic_x() {
            // The seams over the domain's height: the bounds in y.
            let (lo, hi) = S::box_corners(setup.bounds.rect);
            out.periodic(period, [lo[1], hi[1]])?;
        }
        r.emit(backend, 0.0)?;
        r.look(backend, true)?;
        r.last_totals = r.output(backend, out, 0, 0.0)?;
        r.speed = r.last_totals.max_speed as f32;
        obs.progress(&r.progress());
        Ok(r)
    }

    /// Go on from `state` (state.json of the result directory it goes on
    /// writing, whose grains `backend` was built from) with `setup`'s parameters, for `setup`'s duration (or
    /// steps) more: `setup` is the scene built as at the start (its fill
    /// places the grid as the first run's), only its grains are not used.
    /// On the CPU the steps that follow are the very steps the first run
    /// would have taken, when nothing changed but the duration (see
    /// [`State`] for what is kept).
    pub fn resume(
        setup: &Setup<S>,
        state: &State<S>,
        backend: &mut dyn Backend<S>,
        obs: &mut dyn Observer,
    ) -> Result<Run<S>> {
        let mut r = Run::new(setup)?;
        if state.emitted.len() != r.emitters.len() || state.waiting.len() != r.emitters.len() {
            return Err(Error::field(
                &setup.scene.origin,
                "emitters",
                format!(
                    "the saved run had {} emitters, this scene has {}",
                    state.emitted.len(),
                    r.emitters.len()
                ),
            ));
        }
        // Every step count of the run must stay below 2^64.
        let settle_left = if state.settling {
            r.settle_max.saturating_sub(state.settle_steps)
        } else {
            0
        };
        let room = r
            .discharge
            .checked_add(settle_left)
            .and_then(|k| k.checked_add(state.step));
        r.discharge = match (state.discharge_steps.checked_add(r.discharge), room) {
            (Some(d), Some(_)) => d,
            _ => {
                return Err(Error::ResultFile {
                    path: setup.scene.run.out.join(crate::output::STATE),
                    message: format!(
                        "field `step`: {} leaves no room for {} more steps (a step count must stay below 2^64)",
                        state.step,
                        r.discharge.saturating_add(settle_left)
                    ),
                });
            }
        };
        r.n = state.grains.len() as u64;
        r.tally = state.tally.clone();
        r.start_steps = r.tally.steps;
        // The adapted tolerance goes on only where this run adapts one, and
        // within its range: a scene that fixes `solver.tol`, or states
        // another `max_overlap`, is solved as it says.
        match (r.target, r.tally.tol) {
            (Some(target), Some(tol)) => {
                r.p.tol = tol.clamp(target.tol_lo(), target.tol_hi());
                r.tally.tol = Some(r.p.tol);
            }
            (None, _) => {
                r.tally.tol = None;
                r.tally.tightening = Default::default();
            }
            (Some(_), None) => {}
        }
        r.times = state.times.clone();
        r.passed = state.passed.clone();
        r.overlaps.add_bins(&state.overlaps);
        r.settling = state.settling;
        r.walls_now = if r.settling { &r.closed_walls } else { &r.open_walls }.clone();
        r.settle_steps = state.settle_steps;
        r.discharge_steps = state.discharge_steps;
        r.discharge_start = state.discharge_start;
        r.emitted = state.emitted.clone();
        r.waiting = state.waiting.clone();
        r.emissions_waited = state.emissions_waited;
        backend.set_step_count(state.backend_steps);
        if !r.settling {
            backend.set_walls(&r.open_walls);
        }
        backend.set_phase(if r.settling { Phase::Relax } else { Phase::Discharge });
        // After the walls: setting them forgets the warm start.
        if let Some(saved) = &state.contacts
            && let Some(lists) = S::saved_lists(saved, state.grains.len(), r.contact_capacity as usize)
        {
            backend.restore_contacts(lists, saved.order());
        }
        if !r.settling {
            r.move_walls(backend);
        }
        r.look(backend, true)?;
        r.last_totals = backend.totals(&r.region)?;
        r.speed = if state.step == 0 {
            r.last_totals.max_speed as f32
        } else {
            state.speed
        };
        obs.progress(&r.progress());
        Ok(r)
    }

    /// The run of `setup` before its first step.
    fn new(setup: &Setup<S>) -> Result<Run<S>> {
        let p = setup.params;
        if !p.solver.implemented() {
            return Err(Error::NotImplemented {
                what: format!("solver `{}`", p.solver.name()),
            });
        }
        let plan = Plan::of(setup);
        let radius_mean = setup.radius_mean;
        let capacity = setup.scene.solver.contact_capacity as usize;
        let region = setup.region();
        let grid = S::grid(setup)?;
        // A soft contact is an overlap; a rigid one closes to gap 0 within solver.tol.
        let (elastic, touch) = match p.solver {
            SolverKind::Dem => (
                Elastic::Hertz {
                    kn: f64::from(setup.dem.kn),
                },
                0.0,
            ),
            // The spring model's stiffness rides in DemParams::kn (scene::build).
            SolverKind::Spring => (
                Elastic::Spring {
                    ks: f64::from(setup.dem.kn),
                },
                0.0,
            ),
            // The impulse model stores no energy in its overlaps (the projection moves grains).
            SolverKind::Impulse => (Elastic::Rigid, 0.0),
            _ => (Elastic::Rigid, p.tol),
        };
        let r = Run {
            p,
            target: setup.overlap_target,
            every: setup.scene.run.every,
            settle_max: plan.settle_max,
            discharge: plan.discharge,
            settle_speed: plan.settle_speed,
            settle_spin: plan.settle_spin,
            contact_capacity: setup.scene.solver.contact_capacity,
            open_walls: setup.walls(false).clone(),
            closed_walls: setup.walls(true).clone(),
            motion: setup.motion.clone(),
            walls_now: setup.walls(plan.settle_max > 0).clone(),
            overlaps: OverlapHistogram::new(radius_mean),
            looked: None,
            census: S::census(grid, capacity, elastic, touch),
            touching: Touching::default(),
            collisions: setup.scene.run.collisions,
            emitters: setup.emitters.clone(),
            emitted: vec![0; setup.emitters.len()],
            waiting: vec![false; setup.emitters.len()],
            emissions_waited: 0,
            evacuation_time: None,
            region,
            n: setup.grains.len() as u64,
            tally: Tally::default(),
            times: Vec::new(),
            passed: Vec::new(),
            start: Instant::now(),
            start_steps: 0,
            settling: plan.settle_max > 0,
            settle_steps: 0,
            discharge_start: 0.0,
            discharge_steps: 0,
            last_totals: Totals::default(),
            speed: 0.0,
        };
        Ok(r)
    }

    /// Every step of the run has been taken.
    pub fn done(&self) -> bool {
        self.discharge_steps >= self.discharge
    }

    pub fn progress(&self) -> Progress {
        Progress {
            steps: self.tally.steps,
            time: self.tally.steps as f64 * f64::from(self.p.dt),
            settling: self.settling,
            planned: if self.settling {
                self.settle_max + self.discharge
            } else {
                self.settle_steps + self.discharge
            },
            grains: self.n,
            totals: self.last_totals,
        }
    }

    /// Take up to `max_steps` steps (fewer when the run ends first); returns the steps taken.
    pub fn advance(
        &mut self,
        backend: &mut dyn Backend<S>,
        out: &mut ResultDir,
        max_steps: u64,
        obs: &mut dyn Observer,
    ) -> Result<u64> {
        let mut taken = 0;
        while !self.done() && taken < max_steps {
            self.step(backend, out, obs)?;
            taken += 1;
            obs.progress(&self.progress());
        }
        Ok(taken)
    }

    /// One step: count it, warn, write a row and a frame every `every`
    /// steps, open the gate once the pile has settled.
    fn step(&mut self, backend: &mut dyn Backend<S>, out: &mut ResultDir, obs: &mut dyn Observer) -> Result<()> {
        let dt = f64::from(self.p.dt);
        let moving = match &self.motion {
            Some(motion) if !self.settling => Some(substep::Moving {
                motion,
                t0: self.tally.steps as f64 * dt - self.discharge_start,
            }),
            _ => None,
        };
        let moved = moving.is_some();
        let stats = substep::step_moving(backend, &self.p, self.speed, moving)?;
        self.speed = stats.next_speed(self.speed);
        self.count(&stats, obs);
        self.adapt_tol(&stats.stats);
        if self.settling {
            self.settle_steps += 1;
        } else {
            self.discharge_steps += 1;
        }
        let steps = self.tally.steps;
        let time = steps as f64 * dt;
        if moved {
            self.move_walls(backend);
        }
        self.emit(backend, time)?;
        if self.evacuation_time.is_none()
            && let Some(out_count) = backend.evacuated()
            && out_count >= self.n
            && (0..self.emitters.len()).all(|e| self.emitted[e] >= self.emitters[e].grains.len())
        {
            // The room is empty: the run ends with this step (and its row).
            self.evacuation_time = Some(time);
            self.discharge = self.discharge_steps;
            obs.notice(&format!("the room is empty at t = {time:.3} s"));
        }
        let row = steps.is_multiple_of(self.every);
        if self.counts_collisions(backend.kind()) {
            self.look(backend, false)?;
        } else if row {
            // Only what touches at the row (its elastic energy): nothing counted as new.
            self.look(backend, true)?;
        }
        if row {
            self.last_totals = self.output(backend, out, steps, time)?;
        }
        if self.settling && self.settled(backend, row, steps)? {
            self.settling = false;
            self.discharge_start = time;
            backend.set_walls(&self.open_walls);
            self.walls_now = self.open_walls.clone();
            self.move_walls(backend);
            backend.set_phase(Phase::Discharge);
            // The open walls number their segments anew: start the census
            // over from what touches them now (nothing counted as new).
            self.look(backend, true)?;
            obs.notice(&format!(
                "gate opened at t = {time:.3} s after {} settle steps",
                self.settle_steps
            ));
        }
        Ok(())
    }

    /// The walls as they are now (where their motion has taken them).
    pub fn walls(&self) -> &S::Walls {
        &self.walls_now
    }

    /// The walls move now (`[[motion]]`, the gate opened).
    pub fn moves_walls(&self) -> bool {
        self.motion.is_some() && !self.settling
    }

    /// Move the walls to where their motion has them after the last step
    /// (the start of the next), with their velocities over the next step:
    /// `walls_now` and the backend's. Nothing when they stay still.
    fn move_walls(&mut self, backend: &mut dyn Backend<S>) {
        if let Some(motion) = &self.motion {
            let dt = f64::from(self.p.dt);
            let t = self.tally.steps as f64 * dt - self.discharge_start;
            self.walls_now = motion.walls(t, t + dt);
            backend.move_walls(&self.walls_now);
        }
    }

    /// Whether every step counts its new contacts: `run.collisions`, by
    /// default on the CPU for the lab's explicit models (`dem`, `spring`,
    /// `impulse`) and off for NSCD and on the GPU, where it would read every
    /// grain back every step.
    fn counts_collisions(&self, on: BackendKind) -> bool {
        let explicit = matches!(
            self.p.solver,
            SolverKind::Dem | SolverKind::Spring | SolverKind::Impulse
        );
        self.collisions.unwrap_or(explicit && on == BackendKind::Cpu)
    }

    /// Count the contacts new since the last step ([`Census`]) and keep what touches now.
    fn look(&mut self, backend: &mut dyn Backend<S>, first: bool) -> Result<()> {
        self.touching = self.census.look(backend.grains()?, &self.walls_now, first);
        self.looked = Some(self.tally.steps);
        Ok(())
    }

    /// The settle phase is over: its steps are spent, or every grain is
    /// slower than the settle speed and spin. The speeds are checked on each
    /// row step (from the row's totals) and, when rows are rarer than
    /// [`SETTLE_CHECK_EVERY`] steps, also every [`SETTLE_CHECK_EVERY`] steps
    /// (from `Backend::max_speed`: the host grains, or the device's
    /// totals), so a large `run.every` does not hold the gate shut past the
    /// grains' rest; with rows at least that frequent only row steps check.
    fn settled(&self, backend: &mut dyn Backend<S>, row: bool, step: u64) -> Result<bool> {
        if self.settle_steps >= self.settle_max {
            return Ok(true);
        }
        let max_speed = if row {
            self.last_totals.max_speed
        } else if self.every > SETTLE_CHECK_EVERY && step.is_multiple_of(SETTLE_CHECK_EVERY) {
            backend.max_speed(&self.region)?
        } else {
            return Ok(false);
        };
        Ok(max_speed < self.settle_speed
            && (self.settle_spin.is_infinite() || backend.max_angular_speed()? < self.settle_spin))
    }

    /// Write the last row and frame (unless the last step wrote them) and
    /// return the summary of the steps taken, whether or not the run is
    /// [`done`](Run::done) (a window closed early ends the run here).
    pub fn finish(mut self, backend: &mut dyn Backend<S>, out: &mut ResultDir) -> Result<Summary> {
        let dt = f64::from(self.p.dt);
        if !self.tally.steps.is_multiple_of(self.every) {
            let step = self.tally.steps;
            self.last_totals = self.output(backend, out, step, step as f64 * dt)?;
        }
        let tally = &self.tally;
        let n = self.n;
        let wall = self.start.elapsed().as_secs_f64();
        // The first discharge's (the only one unless the walls turned the
        // grains back above the neck).
        let fits = fit_flow_rates(&self.times, &self.passed);
        let fit = fits.first().copied().flatten();
        Ok(Summary {
            grains: n,
            steps: tally.steps,
            settle_steps: self.settle_steps,
            sim_time: tally.steps as f64 * dt,
            discharge_start: self.discharge_start,
            wall_seconds: wall,
            steps_per_second: (tally.steps - self.start_steps) as f64 / wall.max(1e-9),
            grain_steps_per_second: ((tally.steps - self.start_steps) * n) as f64 / wall.max(1e-9),
            backend: backend.kind().name().to_string(),
            adapter: backend.adapter(),
            // What ran: `auto` resolved for this backend.
            solver: backend.solver(self.p.solver).name().to_string(),
            mean_iterations: tally.iterations as f64 / tally.steps.max(1) as f64,
            itmax_steps: tally.itmax_steps,
            contact_overflow: tally.overflow,
            alert_exceeded_steps: tally.alert_steps,
            lost_grains: self.last_totals.lost,
            passed: self.last_totals.passed,
            flow_rate: fit.map(|f| f.rate),
            flow_fit_window: fit.map(|f| f.window),
            flow_rates: if fits.len() > 1 {
                fits.iter().map(|f| f.map(|f| f.rate)).collect()
            } else {
                Vec::new()
            },
            max_overlap: tally.max_overlap,
            overlap_p50: self.overlaps.quantile(0.5),
            overlap_p99: self.overlaps.quantile(0.99),
            radius_mean: self.overlaps.radius_mean(),
            max_overlap_target: self.target.map(|t| t.share),
            tol_range: tally
                .tol_range
                .map_or([0.0; 2], |[lo, hi]| [f64::from(lo), f64::from(hi)]),
            frames: out.frame_count() as u64,
            colors: tally.colors,
            completed: self.done(),
            subdivided_steps: tally.subdivided_steps,
            max_substeps: tally.max_substeps,
            emitted: self.emitted.iter().map(|&k| k as u64).sum(),
            emissions_waited: self.emissions_waited,
            evacuation_time: self.evacuation_time,
        })
    }
}
