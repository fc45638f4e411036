//! Soft-sphere DEM (docs/dem.md): Hertz contacts with viscous damping, viscous
//! friction capped by Coulomb, rolling resistance, velocity Verlet. The CPU
//! reference of the GPU path in `gpu::dem`.
//!
//! # Contact law
//! A contact of grain a (centre x_a, radius r_a, velocity v_a, angular velocity
//! w_a, counter-clockwise positive) with body b (a grain, or a wall segment or
//! corner with w_b = 0, r_b = 0 and v_b the wall's velocity at the contact:
//! `Walls::segment_velocity_at` the grain's centre for a segment,
//! `Walls::corner_velocity` for a corner; zero for a still wall). From the
//! detection: n, the unit normal from b towards a, and the gap d; overlap
//! delta = -d. Tangent
//! t = perp(n) = (-n_y, n_x). Contact points: a's surface at x_a - r_a n, b's
//! at x_b + r_b n. A point at offset p from a centre turning at w moves at
//! w perp(p), so the relative velocity of a's contact point to b's is
//!
//! ```text
//!   v_rel = (v_a - v_b) - (r_a w_a + r_b w_b) t
//!   v_n   = (v_a - v_b) . n                          (< 0: approaching)
//!   v_t   = (v_a - v_b) . t - (r_a w_a + r_b w_b)
//!   F_n   = max(0, k_n delta^1.5 - gamma v_n)        (never attractive)
//!   F_t   = clamp(-k_t v_t / (1 + k_t W_t dt), -mu F_n, mu F_n),   W_t = 3 (im_a + im_b)
//!   force on a  = F_n n + F_t t
//!   torque on a = (-r_a n) x (F_n n + F_t t) = -r_a F_t
//! ```
//! gamma is gamma_relax while the gate is closed, gamma_n after ([`Phase`]).
//! In b's own list n and t flip sign and v_n, v_t (hence F_n, F_t) come out
//! bit-identical, so the force on b is exactly minus the force on a (its
//! torque -r_b F_t): each grain gathers its own list with no atomics.
//!
//! The tangential trial force is the viscous -k_t v_t of docs/dem.md taken
//! implicitly (backward Euler over one step): W_t = im + r^2/I summed over both
//! disks (= 3 im each for I = m r^2/2) is the inverse mass the slip sees, and
//! the explicit form is only stable for dt < 2/(k_t W_t) (6e-7 s for the
//! smallest reference grain against a wall, 70x below the CFL step). Where
//! dt k_t W_t << 1 the two are the same force; where not, the implicit one stops
//! the slip within a step instead of reversing it.
//!
//! Rolling resistance: torque -mu_r F_n r_a sign(w_a) per contact. Its sign
//! jumps at w = 0, so, as for Coulomb friction, the torque of a grain that
//! would stop turning within the step is the one that stops it:
//!
//! ```text
//!   M_r = sum_contacts mu_r F_n r_a,   T_r = clamp(-(T + I w_a/dt), -M_r, M_r)
//! ```
//! (T the contact torques above). While the grain turns, T_r = -M_r sign(w);
//! at rest it holds any torque up to M_r (static rolling resistance).
//!
//! Units, per unit thickness (2D): forces N/m, masses kg/m (m = rho pi r^2),
//! k_n N/m^2.5 (N/m^1.5 per unit thickness), k_t and gamma N s/m^2, torques N.
//!
//! # In three dimensions
//! The same stages over `Dim3` (`model::space`): t is no longer fixed by n,
//! v_t = tangential part of (v_a - v_b) - (r_a w_a + r_b w_b) x n is a
//! vector in the contact plane, the law's F_t a vector opposing it, capped
//! to the disk of radius mu F_n (`space::Coords::cap`), the torque on a
//! -r_a n x F_t, W_t = 7/2 (im_a + im_b) for spheres, and the rolling
//! resistance's stopping torque is capped to the ball of radius M_r. Both
//! copies of a grain pair see opposite slips, hence opposite F_t and the
//! same moment n x F_t. Hertz-Mindlin's history is the spring's vector,
//! laid into the new contact plane by the warm start
//! (`Space::carry_tangent`). Units: forces N, masses kg (rho 4/3 pi r^3),
//! k_n N/m^1.5, k_s N/m, k_t and gamma N s/m, torques N m. The lists with a
//! skin ([`neighbours`], [`DemStepper::step_listed`]) are the plane's
//! alone; in 3D [`DemStepper::step`] detects every step.
//!
//! The linear spring-dashpot model (docs/lab.md, `--solver spring`) is this
//! stepper with [`crate::model::NormalLaw::Linear`]: F_n = max(0, k_s delta - k_d v_n).
//!
//! # One step (velocity Verlet = leapfrog kick-drift-kick; or semi-implicit Euler)
//! The stages of `model::dem_plan`, run by [`DemStepper::run_stage`]:
//! ```text
//!   KDK:   [dem_prime] dem_kick_drift -> detect (binning + detection) -> dem_force -> dem_kick
//!   Euler: detect -> dem_force -> dem_kick -> dem_kick_drift
//! ```
//! The force of the previous step is kept, so each step evaluates the law once
//! (with the half-step velocities). dt = cfl min_i sqrt(m_i/k_n) unless given
//! (`scene::laws::dem_dt`).
//!
//! Moving walls (`model::motion`): a step is handed the walls where they are
//! at its start t0, with their velocities over the step. The stages before
//! the drift see them there; the detection and force after the drift, at the
//! positions of t0 + dt, see them at t0 + dt ([`walls_ahead`]), so that the
//! force the next step starts from belongs to one instant, grains and walls.
//!
//! [`DemStepper::step`] runs these stages (the GPU's twin);
//! [`DemStepper::step_listed`], the CPU backend's step, runs the same plan on
//! the lists with a skin of [`neighbours`], binning and detecting only when
//! a grain has moved half the skin (or grains and moving walls together the
//! skin).

pub mod force;
pub mod integrate;
pub mod neighbours;

use force::ForceInput;
use integrate::Integrand;
use neighbours::{Listed, Neighbours};

use super::CpuSpace;
use super::detect;
use super::grid::Bins;
use crate::model::plan::{self, Stage};
use crate::model::space::{Coords, Dim2, Space};
pub use crate::model::walls::walls_ahead;
use crate::model::{Body, ContactLists, DemParams, Grains, Grid, Phase, StepParams, StepStats, Walls, dem_plan, law};

/// Scratch state of the CPU DEM path: bins, contact lists, the last force.
/// Written over the space `S`; the lists with a skin ([`Self::step_listed`])
/// are the plane's alone.
#[derive(Debug, Clone)]
pub struct DemStepper<S: CpuSpace = Dim2> {
    pub grid: Grid<S>,
    pub bins: Bins,
    pub lists: ContactLists<S>,
    /// Force (N/m; N in 3D) and torque (N; N m in 3D) of the last `dem_force`.
    pub force: Vec<S::Vec>,
    pub torque: Vec<S::Spin>,
    /// `force` belongs to the current positions and walls.
    primed: bool,
    pub dem: DemParams,
    pub phase: Phase,
    /// The tally of the last detection (the step's contact statistics).
    tally: detect::Tally,
    /// A law with history: the lists of the last step's force, whose
    /// history the next force starts from (`model::law`, History).
    history: ContactLists<S>,
    /// The lists with a skin [`Self::step_listed`] runs on.
    pub neighbours: Neighbours,
    /// `lists` predates the last [`Self::step_listed`] ([`Self::contact_lists`] redoes them).
    lists_stale: bool,
    /// Contacts the last [`Self::contact_lists`] detection dropped (a list
    /// of K slots full), which the next listed step reports as its overflow.
    dropped: u64,
    /// The last step's walls moved on to its end ([`walls_ahead`]), which its
    /// final force saw; valid while `ahead_used`.
    ahead: S::Walls,
    ahead_used: bool,
}

impl<S: CpuSpace> DemStepper<S> {
    pub fn new(grid: Grid<S>, capacity: usize, dem: DemParams) -> Self {
        DemStepper {
            grid,
            bins: Bins::default(),
            lists: ContactLists::new(0, capacity),
            force: Vec::new(),
            torque: Vec::new(),
            primed: false,
            dem,
            phase: Phase::Discharge,
            tally: detect::Tally::default(),
            history: ContactLists::new(0, capacity),
            neighbours: Neighbours::default(),
            lists_stale: false,
            dropped: 0,
            ahead: S::Walls::default(),
            ahead_used: false,
        }
    }

    /// The law keeps a history (`model::law`): the tangential springs.
    pub fn keeps_history(&self) -> bool {
        crate::model::law::spec(self.dem.law).history > 0
    }

    /// The walls changed: recompute the force before the next drift.
    pub fn invalidate(&mut self) {
        self.primed = false;
        self.ahead_used = false;
        self.neighbours.invalidate();
    }

    /// Binning and detection at the current positions.
    pub fn detect(&mut self, grains: &Grains<S>, walls: &S::Walls, alert: f32) {
        self.tally = detect::bin_and_detect(&self.grid, &mut self.bins, grains, walls, alert, &mut self.lists);
    }

    /// Stage `dem_force` on the current lists.
    pub fn force(&mut self, grains: &Grains<S>, dt: f32) {
        let n = grains.len();
        self.force.resize(n, S::Vec::default());
        self.torque.resize(n, S::Spin::default());
        let keeps_history = self.keeps_history();
        if keeps_history {
            self.pad_history(n);
            super::warm_start::warm_start(&self.history, &mut self.lists);
        }
        let inp = ForceInput {
            law: law(&self.dem, self.phase, dt),
            capacity: self.lists.capacity,
            count: &self.lists.count,
            slots: &self.lists.slots,
            radius: &grains.radius,
            inv_mass: &grains.inv_mass,
            vel: &grains.vel,
            ang_vel: &grains.ang_vel,
        };
        if keeps_history {
            let mut next: Vec<S::Tangent> = self.lists.slots.iter().map(|c| c.impulse_t).collect();
            force::dem_force_history(&inp, &mut self.force, &mut self.torque, &mut next);
            for (c, h) in self.lists.slots.iter_mut().zip(next) {
                c.impulse_t = h;
            }
        } else {
            force::dem_force(&inp, &mut self.force, &mut self.torque);
        }
    }

    /// The last step's contacts with their springs (a law with history;
    /// empty lists otherwise): what a saved state keeps.
    pub fn history(&self) -> &ContactLists<S> {
        &self.history
    }

    /// The history's lists extended to `grains` grains (the new ones with
    /// no contact): spheres emitted since the last force start without
    /// springs, and the others keep theirs.
    pub fn pad_history(&mut self, grains: usize) {
        let h = &mut self.history;
        if h.grains() < grains {
            h.count.resize(grains, 0);
            h.slots.resize(grains * h.capacity, Default::default());
        }
    }

    /// Take the springs of `lists` (each contact's `impulse_t`, from
    /// [`Self::history`] of a saved state) as the last step's: the next step
    /// starts from them, and its first force is computed afresh.
    pub fn set_history(&mut self, lists: &ContactLists<S>) {
        self.history = lists.clone();
        self.primed = false;
    }

    /// The step's force is final: a law with history starts the next step from it.
    fn commit_history(&mut self) {
        if self.keeps_history() {
            self.history.clone_from(&self.lists);
        }
    }

    /// Advance the grains by one step of `self.dem.integrator`: the stages
    /// of `model::dem_plan`, in order.
    pub fn step(&mut self, grains: &mut Grains<S>, walls: &S::Walls, p: &StepParams) -> StepStats {
        self.step_before(grains, walls, p, None).0
    }

    /// The stages of this step's plan before `from` (`model::plan::split`;
    /// all of them for `None`), as if the rest of the step ran elsewhere.
    /// Returns the step's stats (its detection's counters, the speed the
    /// grains have after the stages run) and the stages run.
    pub fn step_before(
        &mut self,
        grains: &mut Grains<S>,
        walls: &S::Walls,
        p: &StepParams,
        from: Option<Stage>,
    ) -> (StepStats, Vec<Stage>) {
        let primed = self.primed && self.force.len() == grains.len();
        let mut plan = dem_plan(&self.dem, primed);
        // Velocity Verlet keeps this step's force for the next; semi-implicit
        // Euler's belongs to the old positions.
        self.primed = self.dem.integrator.kdk();
        if let Some(from) = from {
            plan.truncate(plan::split(&plan, &plan::DEM_STAGES, from));
        }
        let ahead = self.take_ahead(walls, p.dt);
        let mut now = walls;
        for &stage in &plan {
            self.run_stage(grains, now, p, stage);
            if stage == Stage::DemKickDrift {
                now = ahead.as_ref().unwrap_or(walls);
            }
        }
        self.put_ahead(ahead);
        (step_stats(self.tally, grains, p.dt), plan)
    }

    /// `walls` moved on to the step's end ([`walls_ahead`]), in the scratch
    /// walls taken out of `self`; None for still walls.
    fn take_ahead(&mut self, walls: &S::Walls, dt: f32) -> Option<S::Walls> {
        self.ahead_used = S::walls_moving(walls);
        self.ahead_used.then(|| {
            let mut ahead = std::mem::take(&mut self.ahead);
            S::walls_ahead(walls, dt, &mut ahead);
            ahead
        })
    }

    /// Give back the scratch walls of [`Self::take_ahead`].
    fn put_ahead(&mut self, ahead: Option<S::Walls>) {
        if let Some(ahead) = ahead {
            self.ahead = ahead;
        }
    }

    /// Run one stage of the DEM plan (`model::plan::Stage` states what each
    /// reads and writes); stages of the NSCD step do nothing here.
    pub fn run_stage(&mut self, grains: &mut Grains<S>, walls: &S::Walls, p: &StepParams, stage: Stage) {
        match stage {
            Stage::DemPrime => {
                self.detect(grains, walls, p.alert);
                self.force(grains, p.dt);
            }
            Stage::DemKickDrift => {
                integrate::kick_drift(self.integrand(grains), p.gravity, p.dt);
                crate::cpu::integrate::wrap(&self.grid, &mut grains.pos);
            }
            Stage::Detect => self.detect(grains, walls, p.alert),
            Stage::DemForce => {
                self.force(grains, p.dt);
                self.commit_history();
            }
            Stage::DemKick => integrate::kick(self.integrand(grains), p.gravity, p.dt),
            _ => {}
        }
    }

    fn integrand<'a>(&'a self, g: &'a mut Grains<S>) -> Integrand<'a, S> {
        Integrand {
            pos: &mut g.pos,
            vel: &mut g.vel,
            ang_vel: &mut g.ang_vel,
            force: &self.force,
            torque: &self.torque,
            radius: &g.radius,
            inv_mass: &g.inv_mass,
        }
    }
}

impl DemStepper<Dim2> {
    /// Take the springs of `lists` (each contact's `impulse_t`, from
    /// [`Self::contact_lists`] of a saved state) as the last step's: the
    /// next step starts from them, on either path, and its first force is
    /// computed afresh.
    pub fn restore_history(&mut self, lists: &ContactLists) {
        self.set_history(lists);
        self.neighbours.restore_history(lists);
    }

    /// One step as [`Self::step`], on the neighbour lists with a skin
    /// ([`neighbours`]): binning and detection run only when a grain has
    /// moved half the skin since they last ran, a grain and a moving wall
    /// together the skin, or the walls or the grain count changed. Same
    /// contacts, forces and deepest overlap as [`Self::step`] up to the
    /// order the forces are summed in; the step does not count the pairs
    /// within the alert distance (`contacts` is 0; every contact acts),
    /// which [`Self::contact_lists`] redoes on demand. Its `overflow` is
    /// what that detection dropped since the last step (its lists of K
    /// slots full: the row's contact count and saved history miss them), so
    /// that a run warns of it. Semi-implicit Euler runs
    /// [`Self::step`].
    pub fn step_listed(&mut self, grains: &mut Grains, walls: &Walls, p: &StepParams) -> StepStats {
        if !self.dem.integrator.kdk() {
            self.neighbours.invalidate();
            self.lists_stale = false;
            return self.step(grains, walls, p);
        }
        let ahead = self.take_ahead(walls, p.dt);
        let n = grains.len();
        let primed = self.primed && self.force.len() == n;
        self.force.resize(n, [0.0; 2]);
        self.torque.resize(n, 0.0);
        if !primed {
            // As `DemPrime`: the force of the current state, history not kept.
            self.neighbours.update(&self.grid, grains, walls, p.alert);
            let kept = self.neighbours.history.clone();
            self.force_listed(grains, walls, p);
            self.neighbours.history = kept;
        }
        integrate::kick_drift(self.integrand(grains), p.gravity, p.dt);
        crate::cpu::integrate::wrap(&self.grid, &mut grains.pos);
        let end = ahead.as_ref().unwrap_or(walls);
        self.neighbours.update(&self.grid, grains, end, p.alert);
        let mut tally = self.force_listed(grains, end, p);
        tally.overflow = std::mem::take(&mut self.dropped);
        self.put_ahead(ahead);
        integrate::kick(self.integrand(grains), p.gravity, p.dt);
        (self.primed, self.lists_stale) = (true, true);
        step_stats(tally, grains, p.dt)
    }

    fn force_listed(&mut self, grains: &Grains, walls: &Walls, p: &StepParams) -> detect::Tally {
        let inp = Listed {
            law: law(&self.dem, self.phase, p.dt),
            alert: p.alert,
            grid: &self.grid,
            grains,
            walls,
        };
        neighbours::force_listed(&inp, &mut self.neighbours, &mut self.force, &mut self.torque)
    }

    /// The contact lists of the last step: `lists`, after [`Self::step_listed`]
    /// redone by the detection at the current positions against the walls
    /// its force was computed with (`walls`, or where moving walls were at
    /// the step's end), each contact with its history.
    pub fn contact_lists(&mut self, grains: &Grains, walls: &Walls) -> &ContactLists {
        if self.lists_stale {
            let alert = self.neighbours.alert();
            let walls = if self.ahead_used { &self.ahead } else { walls };
            let t = detect::bin_and_detect(&self.grid, &mut self.bins, grains, walls, alert, &mut self.lists);
            self.dropped += t.overflow;
            let k = self.lists.capacity;
            if self.keeps_history() {
                for i in 0..self.lists.grains() {
                    let listed = (self.lists.count[i] as usize).min(k);
                    for c in &mut self.lists.slots[i * k..i * k + listed] {
                        c.impulse_t = self.neighbours.history_of(i, c.other);
                    }
                }
            }
            self.lists_stale = false;
        }
        &self.lists
    }
}

/// A step's stats: its detection's counters, the speed the grains have at its end.
fn step_stats<S: Space>(tally: detect::Tally, grains: &Grains<S>, dt: f32) -> StepStats {
    StepStats {
        iterations: 0,
        converged: true,
        residual: 0.0,
        contacts: tally.contacts,
        overflow: tally.overflow,
        max_displacement: grains.max_speed() * dt,
        max_overlap: tally.max_overlap,
        ..StepStats::default()
    }
}

/// Translational plus rotational kinetic energy, J/m (J in 3D): sum
/// 1/2 m |v|^2 + 1/2 I |w|^2.
pub fn kinetic_energy<S: Space>(grains: &Grains<S>) -> f64 {
    (0..grains.len())
        .filter(|&i| grains.inv_mass[i] > 0.0)
        .map(|i| {
            let v = grains.vel[i];
            let w = f64::from(grains.ang_vel[i].norm());
            0.5 * grains.mass(i) * f64::from(S::dot(v, v)) + 0.5 * w * w / f64::from(grains.inv_inertia(i))
        })
        .sum()
}

/// Elastic energy stored in the listed overlaps, J/m: sum over distinct
/// contacts of 2/5 k_n delta^2.5 (the potential of the Hertz force).
pub fn elastic_energy<S: Space>(lists: &ContactLists<S>, kn: f32) -> f64 {
    let mut e = 0.0;
    for i in 0..lists.grains() {
        for c in lists.of(i) {
            if matches!(c.body(), Body::Grain(j) if (j as usize) < i) || c.gap >= 0.0 {
                continue;
            }
            e += 0.4 * f64::from(kn) * f64::from(-c.gap).powf(2.5);
        }
    }
    e
}

/// Elastic energy of linear springs in the listed overlaps, J/m: sum over
/// distinct contacts of 1/2 k_s delta^2.
pub fn spring_energy<S: Space>(lists: &ContactLists<S>, ks: f32) -> f64 {
    let mut e = 0.0;
    for i in 0..lists.grains() {
        for c in lists.of(i) {
            if matches!(c.body(), Body::Grain(j) if (j as usize) < i) || c.gap >= 0.0 {
                continue;
            }
            e += 0.5 * f64::from(ks) * f64::from(c.gap) * f64::from(c.gap);
        }
    }
    e
}

/// Largest |w| of any grain, rad/s.
pub fn max_angular_speed<S: Space>(grains: &Grains<S>) -> f32 {
    grains.ang_vel.iter().fold(0.0f32, |m, w| m.max(w.norm()))
}
