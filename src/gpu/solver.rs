//! GPU NSCD solvers as units, the twin of `cpu::solver`: one [`GpuSolver`]
//! per kind in [`GPU_SOLVERS`], built on the kind's first step and kept; the
//! backend records a solver's iterations, and its hooks, without knowing
//! which it is. A new GPU solver is its WGSL file, its registry lines, its
//! `GpuSolver` and one row of [`GPU_SOLVERS`] (`model::SOLVERS` says it runs
//! on the GPU; a test holds the two tables together). 3D has its own table,
//! [`SOLID_SOLVERS`] (the solvers whose stages are written over the space).

use super::pipeline::Pipeline;
use super::space::GpuSpace;
use super::state::{Buffers, Groups, Kernels};
use super::{GpuContext, Kernel, Stage};
use crate::model::{Dim2, Dim3, SolverKind};

/// What a solver is built from: the shared pipeline (grains, contact lists)
/// and the NSCD stepper's buffers (free velocities, residual, spins).
pub struct Build<'a, S: GpuSpace = Dim2> {
    pub core: &'a Pipeline<S>,
    pub bufs: &'a Buffers,
}

/// One iteration as the backend records it.
pub struct Iteration<'a> {
    pub n: u32,
    /// The contact lists in use (0 or 1).
    pub cur: usize,
    pub friction: bool,
    /// The stepper's Jacobi kernels and bind groups.
    pub kernels: &'a Kernels,
    pub groups: &'a Groups,
}

impl Iteration<'_> {
    /// `jacobi_gather` of the lists in use: the velocities of the impulses
    /// (frictional with friction).
    pub fn gather(&self, ps: &mut wgpu::ComputePass) {
        let f = usize::from(self.friction);
        self.kernels.jacobi_gather[f].dispatch(ps, &self.groups.jacobi_gather[self.cur][f], self.n);
    }
}

/// Where a step's solve stands before a batch of iterations.
pub struct Batch<'a> {
    /// Iterations done this step.
    pub done: u32,
    /// The residual read after the last batch (m/s; infinite before the first).
    pub last: f32,
    /// The step's convergence threshold (m/s).
    pub threshold: f32,
    pub p: &'a crate::model::StepParams,
}

/// A GPU NSCD solver.
pub trait GpuSolver {
    /// Queued before the step's first submit.
    fn begin_step(&self, _ctx: &GpuContext) {}
    /// Record one iteration into `ps`: new impulses from the velocities,
    /// new velocities from the impulses, each grain's residual (m/s) into
    /// the stepper's `residual` (`residual_max` then reduces it).
    fn iterate(&self, ps: &mut wgpu::ComputePass, it: &Iteration<'_>);
    /// The passes max into `residual` (a grain's contacts spread over
    /// several passes): the backend clears it before the iteration it reads.
    fn maxes_residual(&self) -> bool {
        false
    }
    /// Called before each batch of iterations is recorded (its writes are
    /// queued before the batch's submit); returns the most iterations the
    /// batch may hold.
    fn before_batch(&self, _ctx: &GpuContext, _b: &Batch<'_>) -> u32 {
        u32::MAX
    }
    /// Recorded after the last iteration, before the integration.
    fn finish(&self, _enc: &mut wgpu::CommandEncoder, _it: &Iteration<'_>) {}
    /// The colouring state, for a solver that needs colours
    /// (`SolverFacts::colors`: the plan's `Color` and `Mirror` stages).
    fn colored(&mut self) -> Option<&mut super::colored::ColoredSolver> {
        None
    }
    /// Stage `Mirror` of a solver that solves one copy of each contact.
    fn mirror(&self, _ps: &mut wgpu::ComputePass, _cur: usize, _n: u32) {}
}

/// How a [`GPU_SOLVERS`] or [`SOLID_SOLVERS`] row builds its solver.
pub type BuildSolver<S = Dim2> = fn(&Build<'_, S>) -> Box<dyn GpuSolver>;

/// One row per GPU solver of the plane: its kind and how to build it.
pub const GPU_SOLVERS: &[(SolverKind, BuildSolver)] = &[
    (SolverKind::Jacobi, |_| Box::new(Jacobi)),
    (SolverKind::Colored, |b| {
        Box::new(super::colored::ColoredSolver::new(
            b.core,
            &b.bufs.residual,
            &b.bufs.spins,
        ))
    }),
    (SolverKind::Uzawa, |b| Box::new(Uzawa::new(b))),
    (SolverKind::Apgd, |b| Box::new(super::apgd::ApgdSolver::new(b))),
];

/// The GPU solvers of 3D: those whose stages run there (`super::SOLID_STAGES`).
pub const SOLID_SOLVERS: &[(SolverKind, BuildSolver<Dim3>)] = &[
    (SolverKind::Jacobi, |_| Box::new(Jacobi)),
    (SolverKind::Colored, |b| {
        Box::new(super::colored::ColoredSolver::new(
            b.core,
            &b.bufs.residual,
            &b.bufs.spins,
        ))
    }),
    (SolverKind::Uzawa, |b| Box::new(Uzawa::new(b))),
    (SolverKind::Apgd, |b| Box::new(super::apgd::ApgdSolver::new(b))),
];

/// A space the GPU's NSCD stepper runs in: the solvers it runs there, and
/// how each is built.
pub trait NscdSpace: GpuSpace {
    const NSCD_SOLVERS: &'static [(SolverKind, BuildSolver<Self>)];
}

impl NscdSpace for Dim2 {
    const NSCD_SOLVERS: &'static [(SolverKind, BuildSolver<Self>)] = GPU_SOLVERS;
}

impl NscdSpace for Dim3 {
    const NSCD_SOLVERS: &'static [(SolverKind, BuildSolver<Self>)] = SOLID_SOLVERS;
}

/// Build the GPU solver of `kind` in space `S` (None: it has no GPU version there).
pub fn build<S: NscdSpace>(kind: SolverKind, b: &Build<'_, S>) -> Option<Box<dyn GpuSolver>> {
    S::NSCD_SOLVERS
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, make)| make(b))
}

/// Projected Jacobi: `jacobi_contact` then `jacobi_gather`, with the
/// stepper's own kernels (which the push-out's correction shares).
pub struct Jacobi;

impl GpuSolver for Jacobi {
    fn iterate(&self, ps: &mut wgpu::ComputePass, it: &Iteration<'_>) {
        let f = usize::from(it.friction);
        it.kernels.jacobi_contact[f].dispatch(ps, &it.groups.jacobi_contact[it.cur][f], it.n);
        it.gather(ps);
    }
}

/// Uzawa's projected dual-gradient iteration.
pub struct Uzawa {
    /// `uzawa::uzawa_contact`: one projected dual-gradient step of Maury's
    /// velocity projection, P' = max(0, P - rho t) with the common target
    /// t = u + (max(d,0) + beta min(d + slop,0))/dt (`Contact::target`), the
    /// Gershgorin-safe rho = s / (im_a N_a + im_b N_b), and per grain the
    /// largest |P' - P| / rho (into `residual`); `jacobi_gather` then
    /// rebuilds the velocities. Twin `cpu::uzawa::uzawa_contact`.
    kernel: Kernel,
    /// The uniform holding the step fraction s (x; y, z, w unused).
    _step_fraction: wgpu::Buffer,
    /// `[p]`: on contact lists p.
    groups: [wgpu::BindGroup; 2],
}

impl Uzawa {
    pub fn new<S: GpuSpace>(b: &Build<'_, S>) -> Self {
        use super::pipeline::{INV_MASS, VEL};
        let (core, g) = (b.core, &b.core.bufs);
        let kernel = Kernel::new(&core.ctx, &core.cfg, Stage::Uzawa, "uzawa_contact");
        let step_fraction = step_fraction(&core.ctx, crate::model::UZAWA_STEP);
        let groups = [0, 1].map(|p| {
            let given = [
                ("params", &g.params),
                ("count", &g.count[p]),
                ("slots", &g.slots[p]),
                ("vel", &g.grains[VEL]),
                ("inv_mass", &g.grains[INV_MASS]),
                ("residual", &b.bufs.residual),
                ("step_fraction", &step_fraction),
            ];
            kernel.group(&core.ctx, &given)
        });
        Uzawa {
            kernel,
            _step_fraction: step_fraction,
            groups,
        }
    }
}

/// The uniform holding Uzawa's step fraction s (x; y, z, w unused).
pub fn step_fraction(ctx: &GpuContext, s: f32) -> wgpu::Buffer {
    super::buffers::uniform(ctx, "hourglass.uzawa.step_fraction", &[s, 0.0, 0.0, 0.0])
}

impl GpuSolver for Uzawa {
    fn iterate(&self, ps: &mut wgpu::ComputePass, it: &Iteration<'_>) {
        self.kernel.dispatch(ps, &self.groups[it.cur], it.n);
        it.gather(ps);
    }
}
