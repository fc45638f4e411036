//! Parameters of one time step, resolved from the scene.

use serde::{Deserialize, Serialize};

/// Contact model and solver (`[solver] kind`, `--solver`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SolverKind {
    /// NSCD with each backend's best solver: NLGS on the CPU, APGD on the
    /// GPU (measured in docs/solvers.md). The default.
    Auto,
    /// NSCD, projected Jacobi with relaxation `omega` (parallel).
    Jacobi,
    /// NSCD, non-linear Gauss-Seidel (sequential sweep).
    Nlgs,
    /// NSCD, graph-coloured NLGS: colours in order, each colour in parallel (cpu::coloring).
    Colored,
    /// NSCD, the course's incremental rule dv = max(0, -u - max(0,d)/dt) (sequential).
    Seed,
    /// NSCD, Uzawa velocity projection with a Gershgorin-safe step (cpu::uzawa).
    Uzawa,
    /// NSCD, accelerated projected Jacobi: Nesterov momentum on the impulses
    /// with adaptive restart (cpu::apgd).
    Apgd,
    /// Soft-sphere DEM: Hertz contacts with friction and rolling resistance (docs/dem.md).
    Dem,
    /// Impulse model with restitution and position projection (docs/lab.md; CPU only).
    Impulse,
    /// Linear spring-dashpot penalty model (docs/lab.md): the DEM's stages with a linear normal law.
    Spring,
    /// Crowd motion (Maury-Venel, docs/crowd.md): first order, the velocity is
    /// the desired velocity towards the door projected onto the feasible set
    /// by the NLGS (model::crowd; CPU only).
    Crowd,
}

impl SolverKind {
    /// The name of `[solver] kind` and `--solver` ([`super::solver::SOLVERS`]).
    pub fn name(self) -> &'static str {
        self.facts().name
    }

    /// The push-out fraction per step when the scene does not set
    /// `solver.overlap_relax`: 0.8 for NLGS (a lower largest overlap for
    /// fewer contact visits), 0.2 for the others. Jacobi's and APGD's solves
    /// leave a resting column's overlaps above the slop, and with 0.5 or more
    /// the push-out then lifts the column every step (tests/rest.rs); NLGS,
    /// coloured NLGS and Uzawa rest with 0.8. With capillary cohesion
    /// (`cohesion`) every solver keeps 0.2: the bridges pull grains into
    /// overlap and a strong push-out undoes it every step, lowering the
    /// angle of a wet pile (docs/solvers.md#defaults).
    pub fn overlap_relax(self, cohesion: bool) -> f64 {
        if cohesion { 0.2 } else { self.facts().overlap_relax }
    }

    /// The solver that actually runs on the CPU (`gpu` false) or GPU backend:
    /// `Auto` becomes NLGS on the CPU (sequential, fewest iterations) and
    /// APGD on the GPU (one thread per grain, no races, 4x fewer iterations
    /// than Jacobi: docs/solvers.md "Defaults"); others stay.
    pub fn resolve(self, gpu: bool) -> SolverKind {
        match (self, gpu) {
            (SolverKind::Auto, false) => SolverKind::Nlgs,
            (SolverKind::Auto, true) => SolverKind::Apgd,
            (kind, _) => kind,
        }
    }

    /// Solvers that run today on the CPU path.
    pub fn implemented(self) -> bool {
        matches!(
            self,
            SolverKind::Auto
                | SolverKind::Jacobi
                | SolverKind::Nlgs
                | SolverKind::Seed
                | SolverKind::Dem
                | SolverKind::Colored
                | SolverKind::Uzawa
                | SolverKind::Apgd
                | SolverKind::Impulse
                | SolverKind::Spring
                | SolverKind::Crowd
        )
    }

    /// The explicit models, which take `[solver] integrator`; the NSCD solvers
    /// integrate with their own implicit velocity step (Moreau-Jean).
    pub fn explicit(self) -> bool {
        matches!(self, SolverKind::Dem | SolverKind::Spring | SolverKind::Impulse)
    }

    /// The integrator an explicit model uses when the scene names none:
    /// velocity Verlet for the DEM (the scheme its tests and docs/dem.md
    /// figures were produced with), leapfrog for the lab's models (docs/lab.md: it keeps the
    /// energy of an elastic bounce, semi-implicit Euler does not).
    pub fn default_integrator(self) -> Integrator {
        match self {
            SolverKind::Spring | SolverKind::Impulse => Integrator::Leapfrog,
            _ => Integrator::VelocityVerlet,
        }
    }
}

/// Time integrator of an explicit model (`[solver] integrator`, docs/lab.md).
///
/// ```text
///   semi_implicit_euler:  F(x_n, v_n);  v += h a;  x += h v
///   leapfrog (KDK):       v += h/2 a_n;  x += h v;  F(x_n+1, v_n+1/2);  v += h/2 a_n+1
///   velocity_verlet:      the same updates as KDK leapfrog
/// ```
/// Kick-drift-kick leapfrog and velocity Verlet are one algorithm written two
/// ways (Hut & Makino); both names are accepted because the lab names both.
/// The dashpot and the friction, which depend on velocity, see the half-step
/// velocity v_n+1/2 at the end of the step (the DEM's behaviour since its
/// first version). The impulse model's impulses act at the full-step
/// velocity between two steps, where the position and velocity belong to the
/// same instant (see `cpu::impulse`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum, Default)]
#[serde(rename_all = "snake_case")]
pub enum Integrator {
    // The flag spells them as the scene does.
    #[value(name = "semi_implicit_euler")]
    SemiImplicitEuler,
    Leapfrog,
    #[default]
    #[value(name = "velocity_verlet")]
    VelocityVerlet,
}

impl Integrator {
    pub fn name(self) -> &'static str {
        match self {
            Integrator::SemiImplicitEuler => "semi_implicit_euler",
            Integrator::Leapfrog => "leapfrog",
            Integrator::VelocityVerlet => "velocity_verlet",
        }
    }

    /// Kick-drift-kick (leapfrog or velocity Verlet), as opposed to semi-implicit Euler.
    pub fn kdk(self) -> bool {
        self != Integrator::SemiImplicitEuler
    }
}

/// The contact law of the force-based models: an index into
/// [`crate::model::law::LAWS`] (`DemLaw::kind`), where each law declares its
/// parameters, history, CPU force and WGSL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NormalLaw {
    /// F_n = max(0, k_n delta^1.5 - gamma v_n), viscous friction (DEM, docs/dem.md).
    #[default]
    Hertz,
    /// F_n = max(0, k_s delta - k_d v_n), viscous friction (spring-dashpot, docs/lab.md).
    Linear,
    /// Hertz normal force, Mindlin tangential spring with per-contact history
    /// (`model::law::hertz_mindlin`).
    HertzMindlin,
}

/// The impulse model (`[impulse]`, docs/lab.md), resolved to f32.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImpulseParams {
    /// Restitution e in [0, 1].
    pub e: f32,
    /// Position projection k_p in [0, 1).
    pub kp: f32,
    pub integrator: Integrator,
}

impl Default for ImpulseParams {
    /// The lab's 2D box (e = 0.5, k_p = 0.4, leapfrog).
    fn default() -> Self {
        ImpulseParams {
            e: 0.5,
            kp: 0.4,
            integrator: Integrator::Leapfrog,
        }
    }
}

/// The phase of a run, for contact models whose parameters change when the
/// gate opens (DEM: gamma_relax while the fill relaxes, gamma_n after).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Phase {
    /// Gate closed: the fill comes to rest.
    Relax,
    /// Gate open (and any run without a gate).
    #[default]
    Discharge,
}

/// The soft-sphere DEM contact law (`[dem]`, docs/dem.md), resolved to the f32
/// the steps use. Units per unit thickness; see `scene::DemSpec` for each
/// field's meaning, default and why.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DemParams {
    /// Hertz stiffness, N/m^2.5 (N/m^1.5 per unit thickness).
    pub kn: f32,
    /// Tangential viscosity, N s/m^2.
    pub kt: f32,
    /// Normal damping of the discharge, N s/m^2.
    pub gamma_n: f32,
    /// Normal damping of the relaxation, N s/m^2.
    pub gamma_relax: f32,
    /// Coulomb friction coefficient.
    pub mu: f32,
    /// Rolling-resistance coefficient.
    pub mu_roll: f32,
    /// Relaxation ends below this speed, m/s ...
    pub relax_v_tol: f32,
    /// ... and this angular speed, rad/s ...
    pub relax_w_tol: f32,
    /// ... or after this many steps.
    pub relax_max_steps: u64,
    /// Hertz (DEM) or linear (spring): `kn` is then k_s, N/m (N/m^2 per unit
    /// thickness) and `gamma_n`, `gamma_relax` the dashpot k_d.
    pub law: NormalLaw,
    /// Poisson ratio nu of the grains (Hertz-Mindlin's tangential stiffness).
    pub poisson: f32,
    pub integrator: Integrator,
}

impl Default for DemParams {
    /// The reference parameters (`scene::DemSpec::default`).
    fn default() -> Self {
        DemParams {
            kn: 1e5,
            kt: 2e4,
            gamma_n: 50.0,
            gamma_relax: 200.0,
            mu: 0.4,
            mu_roll: 0.02,
            relax_v_tol: 0.01,
            relax_w_tol: 1.0,
            relax_max_steps: 50_000,
            law: NormalLaw::Hertz,
            poisson: 0.3,
            integrator: Integrator::VelocityVerlet,
        }
    }
}

impl DemParams {
    /// Normal damping of `phase`, N s/m^2.
    pub fn gamma(&self, phase: Phase) -> f32 {
        match phase {
            Phase::Relax => self.gamma_relax,
            Phase::Discharge => self.gamma_n,
        }
    }
}

/// Everything one NSCD step needs besides the state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepParams {
    /// Gravity, m/s^2.
    pub gravity: [f32; 2],
    /// Time step, s.
    pub dt: f32,
    /// Surface distance under which a pair is a potential contact, m.
    pub alert: f32,
    /// Geometric tolerance, m: converged when every |dP| W < tol/dt.
    pub tol: f32,
    /// Iteration cap per step.
    pub itmax: u32,
    /// Jacobi relaxation factor.
    pub omega: f32,
    /// Fraction of an overlap (beyond the slop) pushed out per step (0 = docs/nscd.md exactly).
    pub overlap_relax: f32,
    /// `overlap_relax` is the solver's default ([`SolverKind::overlap_relax`]:
    /// the scene left it unset), so a backend that resolves `auto` to its
    /// own solver takes that solver's ([`StepParams::resolved`]).
    pub overlap_relax_default: bool,
    /// How overlaps are pushed out: > 0, by moving the grains after the
    /// velocity solve with this many Jacobi iterations (cpu::correct; the
    /// velocities keep no push-out speed, so piles come to rest); 0, through
    /// the velocity solve's target (u >= -beta d/dt, which leaves the push-out
    /// speed in the grains).
    pub overlap_iterations: u32,
    pub solver: SolverKind,
    /// Start persisting contacts from last step's impulse.
    pub warm_start: bool,
    /// Coulomb friction between grains (docs/nscd.md#coulomb-friction-and-rotation); 0: frictionless.
    pub mu: f32,
    /// Coulomb friction between a grain and a wall or corner; 0: frictionless.
    pub mu_wall: f32,
    /// Capillary cohesion (`[cohesion]`, docs/cohesion.md); all zero: none.
    pub cohesion: super::Cohesion,
    /// Restitution e in [0, 1] of the NSCD projection (docs/nscd.md#restitution): a contact
    /// closing within the step separates at -e times its approach velocity
    /// (`model::contact::bounce`); 0: perfectly inelastic, docs/nscd.md.
    pub restitution: f32,
    /// Stochastic forcing (docs/nscd.md#stochastic-forcing, `model::noise`): sigma (m s^-3/2; 0 =
    /// off) and seed; the backends fill in the step index.
    pub forcing: super::Forcing,
}

/// Overlaps shallower than this many `tol` are not pushed out (see `Contact::target`).
pub const SLOP_TOLS: f32 = 5.0;

impl StepParams {
    /// The parameters a backend runs (`gpu`: the GPU backend): `auto`
    /// resolved to its solver ([`SolverKind::resolve`]) and, when the scene
    /// left `overlap_relax` to the solver, that solver's.
    pub fn resolved(&self, gpu: bool) -> StepParams {
        let solver = self.solver.resolve(gpu);
        StepParams {
            solver,
            overlap_relax: if self.overlap_relax_default {
                solver.overlap_relax(self.cohesion.on()) as f32
            } else {
                self.overlap_relax
            },
            ..*self
        }
    }

    /// Overlap left alone by the push-out, m.
    pub fn slop(&self) -> f32 {
        SLOP_TOLS * self.tol
    }

    /// Friction anywhere: the solvers then carry tangential impulses and spin.
    pub fn friction(&self) -> bool {
        self.mu > 0.0 || self.mu_wall > 0.0
    }

    /// The friction coefficient of a contact with `body`.
    #[inline]
    pub fn mu_of(&self, body: super::Body) -> f32 {
        match body {
            super::Body::Grain(_) => self.mu,
            _ => self.mu_wall,
        }
    }

    /// The tolerance a step's solve converges to when the grains move at
    /// `speed` (m/s) at the start of the step: `tol`, or less when the grains
    /// are slow, min(tol, max(REST_SHARE speed, REST_FLOOR) dt r / s), s
    /// the solver's share of tol/dt in its test ([`Self::threshold`]) and r
    /// its share of the slow-grain bound (`SolverFacts::rest_threshold`):
    /// the test's threshold is min(s tol/dt, r max(REST_SHARE speed,
    /// REST_FLOOR)), r = 1 but for Uzawa (0.25). `speed` is
    /// the fastest grain's, or under the solvers with a `fast_share`
    /// (Jacobi, coloured NLGS, APGD) the speed that share of the grains
    /// exceeds (`model::speeds::followed`); both backends take it so.
    ///
    /// A solve stops with a velocity error of up to the threshold at every
    /// contact, and that error does not die with the step: velocities
    /// persist, the warm start carries it, and along a chain of contacts the
    /// errors add up, so that at tol/dt resting columns and piles keep moving
    /// (docs/solvers.md#rest). The error must be
    /// small against the velocities the solve produces: a flow whose fastest
    /// grain moves faster than tol/dt / REST_SHARE (0.2 m/s at the defaults)
    /// is solved to `tol`; a pile coming to rest is solved down to
    /// REST_FLOOR, and then rests (tests/rest.rs: below 1e-4 m/s rms under
    /// every NSCD solver, for a 465-grain pile 30 grains deep too).
    ///
    /// Without the split push-out (`overlap_iterations = 0`) the slop, 5 tol,
    /// is the solve's own and the push-out speed keeps the grains moving
    /// anyway: the solve keeps `tol`. Both backends take their tolerance here.
    pub fn solve_tol(&self, speed: f32) -> f32 {
        if self.overlap_iterations == 0 {
            return self.tol;
        }
        let facts = self.solver.facts();
        let rest = facts.rest_threshold / facts.threshold;
        ((REST_SHARE * speed).max(REST_FLOOR) * self.dt * rest).min(self.tol)
    }

    /// The convergence test of the step's solve: the largest correction
    /// (m/s) must fall below this: the solver's share of tol/dt
    /// ([`super::solver::threshold`], the rule of both backends): a quarter for Uzawa
    /// ([`UZAWA_THRESHOLD`]), 0.4 of it for APGD: its correction
    /// is taken at the extrapolated point, and with the full threshold or
    /// half of it a resting column keeps moving, while a quarter or a third
    /// stall a cold first step just above the threshold until itmax
    /// (tests/rest.rs, tests/gpu_step.rs; docs/solvers.md#tolerance-and-threshold).
    pub fn threshold(&self) -> f32 {
        super::solver::threshold(self.solver, self.tol, self.dt)
    }

    /// The convergence threshold (m/s) of a step whose grains move at
    /// `speed` at its start: [`Self::threshold`] at [`Self::solve_tol`].
    pub fn solve_threshold(&self, speed: f32) -> f32 {
        StepParams {
            tol: self.solve_tol(speed),
            ..*self
        }
        .threshold()
    }
}

/// Share of the fastest grain's speed under which a step's solve converges
/// ([`StepParams::solve_tol`]).
pub const REST_SHARE: f32 = 0.01;

/// Velocity error (m/s) under which a step's solve converges however slow
/// the grains ([`StepParams::solve_tol`]): a hundredth of the speed at
/// which a pile counts as resting (tests/rest.rs, 1e-4 m/s rms). The solve
/// lets each contact close at up to this speed; the push-out opens the
/// contacts that reach the slop again, and a grain squeezed between two
/// nearly opposite contacts moves several times faster than they close, so
/// the rest a pile reaches falls with the floor and with the pile's depth:
/// at 1e-5 m/s a 465-grain pile 30 grains deep kept 1.3e-4 - 2.5e-4 m/s rms,
/// at 1e-6 m/s at most 3.3e-5 (docs/solvers.md, "Rest"). f32 impulses
/// bound it from below: at 1e-7 m/s the 2,000-grain fill's solve ran into
/// itmax, and so did APGD's resting steps at 0.4 of this floor
/// (`SolverFacts::rest_threshold`).
pub const REST_FLOOR: f32 = 1e-6;

/// APGD's share of tol/dt in its convergence test ([`StepParams::threshold`]).
pub const APGD_THRESHOLD: f32 = 0.4;

/// What one step reports back to the simulation loop.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepStats {
    /// Solver iterations (sweeps) this step.
    pub iterations: u32,
    /// False when the step stopped at itmax.
    pub converged: bool,
    /// Largest velocity correction |dP| W of the last iteration, m/s.
    pub residual: f32,
    /// Distinct potential contacts (a grain pair counts once); 0 from a step
    /// that does not count them (the CPU DEM on its neighbour lists, whose
    /// backend counts them for the totals instead: [`crate::model::Totals::contacts`]).
    pub contacts: u64,
    /// Contacts dropped because a grain's list was full.
    pub overflow: u64,
    /// Largest distance a grain moved this step, m.
    pub max_displacement: f32,
    /// Deepest overlap among the contacts detected this step, at the
    /// positions the step started from (the previous step's result), m; 0
    /// when nothing overlaps. The run's largest overlap is the max over steps.
    pub max_overlap: f32,
    /// Contact colours of a coloured NLGS step (`SolverKind::Colored`); 0 for every other solver.
    pub colors: u32,
    /// Wall time of the colouring of a coloured NLGS step, ms: on the CPU the
    /// colouring and the per-colour lists; on the GPU the colouring rounds,
    /// the bucket count and their host reads, measured only when the backend profiles
    /// (`GpuBackend::profile`, which first waits for the stages before it). 0 otherwise.
    pub coloring_ms: f32,
}

/// Uzawa (cpu::uzawa, shaders/uzawa.wgsl): fraction s of the Gershgorin-safe step: rho_c = s / (im_a N_a + im_b N_b),
/// convergent for s in (0, 2). 1.9, not 1: with s = 1 the slow mode of a
/// resting column (its error spread over every contact) is damped half as
/// fast per iteration, and a 10-grain column kept moving at 4e-3 m/s even
/// with [`UZAWA_THRESHOLD`] (tests/rest.rs; docs/solvers.md, "Uzawa").
pub const UZAWA_STEP: f32 = 1.9;

/// Uzawa's share of tol/dt in its convergence test ([`StepParams::threshold`]):
/// its residual is each contact's |u + d/dt| (the natural map), and a
/// column's contacts each stopping just under tol/dt add up at the top
/// grain. With the full threshold the 10-grain column moved at 1.7e-2 m/s,
/// with half at 1.5e-4 m/s; with a quarter it rests (2.6e-6 m/s after 3 s).
pub const UZAWA_THRESHOLD: f32 = 0.25;

/// APGD's momentum state (cpu::apgd, shaders/apgd.wgsl `ApgdState`): theta,
/// k, the last largest residual, this iteration's largest residual so far
/// (on the GPU its bits) and the residual the momentum run began at. One
/// type for both backends: `cpu::apgd::Momentum` and `gpu::apgd::Momentum`
/// name it.
pub type ApgdMomentum = [f32; 5];

/// APGD's momentum state at the start of a step: no momentum, a "last
/// residual" no residual exceeds (so the first iteration does not restart),
/// none yet, and no run yet.
pub const APGD_START: ApgdMomentum = [0.0, 0.0, f32::MAX, 0.0, f32::MAX];

/// APGD's restart waits for this much momentum: a largest residual above
/// the last one drops the momentum when k (iterations since the last
/// restart) has reached it, or at once when it is above the residual the
/// run began at. The largest residual of an iteration is not monotone even
/// under plain Jacobi: restarting at every rise dropped the momentum at a
/// third of the iterations of a settled pile; without the bound on the
/// growth, 20 iterations of momentum let a jostled pile diverge
/// (docs/solvers.md#apgd-restart).
pub const APGD_RESTART_AGE: f32 = 20.0;
