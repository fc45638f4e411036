//! The CPU's NSCD solvers as units: each is a type in its own module that
//! implements [`Solver`], and [`CPU_SOLVERS`] holds one row per solver.
//! `CpuStepper` looks the step's solver up here and makes one call.
//!
//! ```text
//!   detect -> warm start -> Solver::solve(SolveCtx { lists, free, out, p, .. }, stats) -> integrate
//! ```
//! A solver chooses its friction once per step from `p.friction()`: its
//! stages take `const FRICTION: bool`, so the frictionless instance carries
//! no spin and costs what a solver without friction would.

use super::jacobi::{Free, Moving};
use super::{apgd, colored, jacobi, nlgs, uzawa};
use crate::model::{ContactLists, Dim2, SolverKind, Space, StepParams, StepStats};

/// What a solve reads and writes (in the space `S`).
#[derive(Debug)]
pub struct SolveCtx<'a, S: Space = Dim2> {
    /// The detected, warm-started contacts; their impulses are solved in place.
    pub lists: &'a mut ContactLists<S>,
    /// The free velocities, inverse masses, and with friction the free spins and radii.
    pub free: Free<'a, S>,
    /// The grains' velocities (and spins, with friction), written.
    pub out: Moving<'a, S>,
    /// The step's parameters (`solver` resolved, `tol` the solve's).
    pub p: &'a StepParams,
    /// When `Some`, each iteration's residual (m/s) is appended (the study).
    pub history: Option<&'a mut Vec<f32>>,
    /// Acting contacts from which an NLGS sweep runs on two threads
    /// (`nlgs::PAR_SWEEP_MIN`; `usize::MAX`: always one).
    pub par_min: usize,
    /// Hot sweeps after each NLGS full sweep over its threshold
    /// (`nlgs::HOT_SWEEPS`).
    pub hot_sweeps: u32,
}

/// An NSCD solver of the CPU path in the space `S`. Its state (scratch,
/// buffers) lives between steps in the value.
pub trait Solver<S: Space = Dim2>: std::fmt::Debug + Send + Sync {
    /// Solve the step's contacts: from `ctx.free` to `ctx.out` and the
    /// impulses of `ctx.lists`, until the largest correction falls under
    /// `ctx.p.threshold()` or `ctx.p.itmax` iterations ran; iterations,
    /// residual, convergence (and colours) go into `stats`.
    fn solve(&mut self, ctx: SolveCtx<S>, stats: &mut StepStats);

    /// A copy of this solver (a cloned `CpuStepper` gets its own).
    fn boxed(&self) -> Box<dyn Solver<S>>;
}

impl<S: Space> Clone for Box<dyn Solver<S>> {
    fn clone(&self) -> Self {
        self.boxed()
    }
}

/// How a [`CPU_SOLVERS`] row makes its solver.
pub type MakeSolver = fn() -> Box<dyn Solver>;

/// One row per CPU solver: its kind and how to make one.
pub const CPU_SOLVERS: &[(SolverKind, MakeSolver)] = &[
    (SolverKind::Nlgs, || Box::new(nlgs::Nlgs::new(nlgs::Rule::Accumulated))),
    (SolverKind::Seed, || Box::new(nlgs::Nlgs::new(nlgs::Rule::Seed))),
    (SolverKind::Jacobi, || Box::new(jacobi::Jacobi)),
    (SolverKind::Colored, || Box::new(colored::Colored)),
    (SolverKind::Uzawa, || Box::new(uzawa::Uzawa)),
    (SolverKind::Apgd, || Box::<apgd::Apgd>::default()),
];

/// A new solver of `kind`, if the CPU path has one.
pub fn make(kind: SolverKind) -> Option<Box<dyn Solver>> {
    CPU_SOLVERS.iter().find(|(k, _)| *k == kind).map(|(_, new)| new())
}
