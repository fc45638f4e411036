//! Parameters of one time step, resolved from the scene.

use serde::{Deserialize, Serialize};

/// Contact model and solver (`[solver] kind`, `--solver`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SolverKind {
    /// NSCD, projected Jacobi with relaxation `omega` (parallel).
    Jacobi,
    /// NSCD, non-linear Gauss-Seidel (sequential sweep).
    Nlgs,
    /// NSCD, graph-coloured NLGS (not implemented yet).
    Colored,
    /// NSCD, the course's incremental rule dv = max(0, -u - max(0,d)/dt) (sequential).
    Seed,
    /// NSCD, Uzawa velocity projection (not implemented yet).
    Uzawa,
    /// Soft-sphere DEM (not implemented yet).
    Dem,
    /// Impulse model with restitution (not implemented yet).
    Impulse,
    /// Linear-spring penalty model (not implemented yet).
    Spring,
}

impl SolverKind {
    pub fn name(self) -> &'static str {
        match self {
            SolverKind::Jacobi => "jacobi",
            SolverKind::Nlgs => "nlgs",
            SolverKind::Colored => "colored",
            SolverKind::Seed => "seed",
            SolverKind::Uzawa => "uzawa",
            SolverKind::Dem => "dem",
            SolverKind::Impulse => "impulse",
            SolverKind::Spring => "spring",
        }
    }

    /// Solvers that run today on the CPU path.
    pub fn implemented(self) -> bool {
        matches!(self, SolverKind::Jacobi | SolverKind::Nlgs | SolverKind::Seed)
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
    /// Fraction of an overlap pushed out per step (0 = DESIGN §1a exactly).
    pub overlap_relax: f32,
    pub solver: SolverKind,
    /// Start persisting contacts from last step's impulse.
    pub warm_start: bool,
}

/// Overlaps shallower than this many `tol` are not pushed out (see `Contact::target`).
pub const SLOP_TOLS: f32 = 5.0;

impl StepParams {
    /// Overlap left alone by the push-out, m.
    pub fn slop(&self) -> f32 {
        SLOP_TOLS * self.tol
    }
}

/// What one step reports back to the simulation loop.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepStats {
    /// Solver iterations (sweeps) this step.
    pub iterations: u32,
    /// False when the step stopped at itmax.
    pub converged: bool,
    /// Largest velocity correction |dP| W of the last iteration, m/s.
    pub residual: f32,
    /// Distinct potential contacts (a grain pair counts once).
    pub contacts: u64,
    /// Contacts dropped because a grain's list was full.
    pub overflow: u64,
    /// Largest distance a grain moved this step, m.
    pub max_displacement: f32,
}
