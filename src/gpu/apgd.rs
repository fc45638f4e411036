//! Stage `apgd` (shaders/apgd.wgsl): accelerated projected Jacobi, one
//! iteration = `apgd_gather` (velocities of the extrapolated impulses y = P +
//! theta (P - Q)), `apgd_contact` (P' = max(0, y - omega t / W), Q' = P, per
//! grain the largest |P' - y| W / omega, and the largest of all into `state`
//! by an atomic max per workgroup) and `apgd_momentum` (one invocation:
//! restart test and the next theta into `state`). CPU twins: `cpu::apgd`.
//! With friction (docs/nscd.md#coulomb-friction-and-rotation) the pipelines of `apgd_gather` and
//! `apgd_contact` with `FRICTION` set take the place of the first two, with
//! the previous tangential impulses `prev_t` and the spins; both pipelines of
//! an entry point take the same bindings.

use super::buffers::storage_zeroed;
use super::{GpuContext, Kernel, ShaderConfig, Stage};
use crate::model::APGD_START as MOMENTUM_START;
use crate::model::Space;

/// (theta, k, last largest residual, this iteration's largest residual's
/// bits, the residual the momentum run began at), as `cpu::apgd::Momentum`
/// (WGSL `ApgdState`).
pub type Momentum = crate::model::ApgdMomentum;

/// The pipelines of one APGD iteration; `[f]` pairs are [`Kernel::pair`]s (f = friction).
pub struct Apgd {
    pub gather: [Kernel; 2],
    pub contact: [Kernel; 2],
    /// One invocation, whatever the pile's size.
    pub momentum: Kernel,
}

/// The buffers APGD adds to an NSCD stepper's: the previous impulses (one
/// f32 per slot), the previous tangential impulses (friction, one f32 per
/// slot) and the momentum state ([`Momentum`]).
pub struct ApgdBuffers {
    pub prev: wgpu::Buffer,
    pub prev_t: wgpu::Buffer,
    pub state: wgpu::Buffer,
}

impl ApgdBuffers {
    pub fn new<S: Space>(ctx: &GpuContext, slots: usize) -> Self {
        let state = super::buffers::storage(ctx, "hourglass.apgd.state", &MOMENTUM_START);
        ApgdBuffers {
            prev: storage_zeroed::<f32>(ctx, "hourglass.apgd.prev", slots),
            prev_t: storage_zeroed::<S::Tangent>(ctx, "hourglass.apgd.prev_t", slots),
            state,
        }
    }

    /// Reset the momentum (queued: before the next submit).
    pub fn reset(&self, ctx: &GpuContext) {
        self.write_state(ctx, &MOMENTUM_START);
    }

    pub fn write_state(&self, ctx: &GpuContext, state: &Momentum) {
        ctx.queue.write_buffer(&self.state, 0, bytemuck::cast_slice(state));
    }
}

/// The bind groups of one set of contact lists (`[f]` as [`Apgd`]'s).
pub struct ApgdGroups {
    pub gather: [wgpu::BindGroup; 2],
    pub contact: [wgpu::BindGroup; 2],
    pub momentum: wgpu::BindGroup,
}

/// The buffers the stage reads and writes, by binding name.
pub struct ApgdBindings<'a> {
    pub params: &'a wgpu::Buffer,
    pub count: &'a wgpu::Buffer,
    pub slots: &'a wgpu::Buffer,
    pub vel_free: &'a wgpu::Buffer,
    pub inv_mass: &'a wgpu::Buffer,
    pub vel: &'a wgpu::Buffer,
    pub residual: &'a wgpu::Buffer,
    pub bufs: &'a ApgdBuffers,
    /// Friction: the spins before the contacts act and the solved ones (rad/s), the radii (m).
    pub spin_free: &'a wgpu::Buffer,
    pub radius: &'a wgpu::Buffer,
    pub spin: &'a wgpu::Buffer,
}

impl Apgd {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        Apgd {
            gather: Kernel::pair(ctx, cfg, Stage::Apgd, "apgd_gather"),
            contact: Kernel::pair(ctx, cfg, Stage::Apgd, "apgd_contact"),
            momentum: Kernel::new(ctx, cfg, Stage::Apgd, "apgd_momentum"),
        }
    }

    /// The bind groups of `b`, by binding name.
    pub fn groups(&self, ctx: &GpuContext, b: &ApgdBindings) -> ApgdGroups {
        let (prev, state, prev_t) = (&b.bufs.prev, &b.bufs.state, &b.bufs.prev_t);
        let lists = [
            ("params", b.params),
            ("count", b.count),
            ("slots", b.slots),
            ("prev", prev),
        ];
        let spins = [
            ("state", state),
            ("prev_t", prev_t),
            ("radius", b.radius),
            ("spin", b.spin),
        ];
        let gather = [
            ("vel_free", b.vel_free),
            ("inv_mass", b.inv_mass),
            ("vel", b.vel),
            ("spin_free", b.spin_free),
        ];
        let gather = [&lists[..], &gather[..], &spins[..]].concat();
        let contact = [&lists[..], &[("vel", b.vel), ("residual", b.residual)][..], &spins[..]].concat();
        let momentum = [("state", state)];
        ApgdGroups {
            gather: self.gather.each_ref().map(|k| k.group(ctx, &gather)),
            contact: self.contact.each_ref().map(|k| k.group(ctx, &contact)),
            momentum: self.momentum.group(ctx, &momentum),
        }
    }

    /// One whole iteration, frictional (docs/nscd.md#coulomb-friction-and-rotation) when `friction`.
    pub fn dispatch_iteration(&self, pass: &mut wgpu::ComputePass, g: &ApgdGroups, n_grains: u32, friction: bool) {
        let f = usize::from(friction);
        self.gather[f].dispatch(pass, &g.gather[f], n_grains);
        self.contact[f].dispatch(pass, &g.contact[f], n_grains);
        self.momentum.dispatch(pass, &g.momentum, 1);
    }
}

/// The APGD solver of a [`super::GpuBackend`] (built on its first APGD
/// step): the pipelines, the buffers and the groups of both contact lists.
pub struct ApgdSolver {
    pub apgd: Apgd,
    pub bufs: ApgdBuffers,
    pub groups: [ApgdGroups; 2],
}

impl ApgdSolver {
    /// Iterating from the stepper's free velocities and spins into its residual.
    pub fn new<S: super::space::GpuSpace>(b: &super::solver::Build<'_, S>) -> Self {
        use super::pipeline::{INV_MASS, RADIUS, VEL};
        let (core, spins) = (b.core, &b.bufs.spins);
        let apgd = Apgd::new(&core.ctx, &core.cfg);
        let bufs = ApgdBuffers::new::<S>(&core.ctx, core.n * core.capacity);
        let g = &core.bufs;
        let groups = [0, 1].map(|p| {
            let bindings = ApgdBindings {
                params: &g.params,
                count: &g.count[p],
                slots: &g.slots[p],
                vel_free: &b.bufs.vel_free,
                inv_mass: &g.grains[INV_MASS],
                vel: &g.grains[VEL],
                residual: &b.bufs.residual,
                bufs: &bufs,
                spin_free: &spins.spin_free,
                radius: &g.grains[RADIUS],
                spin: &spins.spin,
            };
            apgd.groups(&core.ctx, &bindings)
        });
        ApgdSolver { apgd, bufs, groups }
    }
}

/// No momentum at the start of a step; the iterations leave the velocities
/// of the extrapolated impulses, so the solve ends with a gather of the
/// final impulses (as `cpu::apgd::solve`).
impl super::solver::GpuSolver for ApgdSolver {
    fn begin_step(&self, ctx: &GpuContext) {
        self.bufs.reset(ctx);
    }
    fn iterate(&self, pass: &mut wgpu::ComputePass, it: &super::solver::Iteration<'_>) {
        self.apgd
            .dispatch_iteration(pass, &self.groups[it.cur], it.n, it.friction);
    }
    fn finish(&self, enc: &mut wgpu::CommandEncoder, it: &super::solver::Iteration<'_>) {
        let mut ps = super::pass(enc, &Stage::JacobiGather.label());
        it.gather(&mut ps);
    }
}
