//! Stage `apgd` (shaders/apgd.wgsl): accelerated projected Jacobi, one
//! iteration = `apgd_gather` (velocities of the extrapolated impulses y = P +
//! theta (P - Q)), `apgd_contact` (P' = max(0, y - omega t / W), Q' = P, per
//! grain the largest |P' - y| W / omega) and `apgd_momentum` (one workgroup:
//! restart test and the next theta into `state`). CPU twins: `cpu::apgd`.
//! With friction (DESIGN §1d) the pipelines of `apgd_gather` and
//! `apgd_contact` with `FRICTION` set take the place of the first two, with
//! the previous tangential impulses `prev_t` and the spins; both pipelines of
//! an entry point take the same bindings.

use super::buffers::storage_zeroed;
use super::{GpuContext, Kernel, ShaderConfig, Stage, registry};
use crate::model::APGD_START as MOMENTUM_START;

/// (theta, k, last largest residual, unused), as `cpu::apgd::Momentum`.
pub type Momentum = [f32; 4];

pub struct Apgd {
    gather: Kernel,
    contact: Kernel,
    momentum: Kernel,
    gather_friction: Kernel,
    contact_friction: Kernel,
}

/// The buffers APGD adds to an NSCD stepper's: the previous impulses (one
/// f32 per slot), the previous tangential impulses (friction, one f32 per
/// slot) and the momentum state (vec4: theta, k, last residual).
pub struct ApgdBuffers {
    pub prev: wgpu::Buffer,
    pub prev_t: wgpu::Buffer,
    pub state: wgpu::Buffer,
}

impl ApgdBuffers {
    pub fn new(ctx: &GpuContext, slots: usize) -> Self {
        let state = super::buffers::storage(ctx, "hourglass.apgd.state", &MOMENTUM_START);
        ApgdBuffers {
            prev: storage_zeroed::<f32>(ctx, "hourglass.apgd.prev", slots),
            prev_t: storage_zeroed::<f32>(ctx, "hourglass.apgd.prev_t", slots),
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

/// The three bind groups of one set of contact lists.
pub struct ApgdGroups {
    pub gather: wgpu::BindGroup,
    pub contact: wgpu::BindGroup,
    pub momentum: wgpu::BindGroup,
    pub gather_friction: wgpu::BindGroup,
    pub contact_friction: wgpu::BindGroup,
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
            gather: Kernel::with_friction(ctx, cfg, Stage::Apgd, "apgd_gather", false),
            contact: Kernel::with_friction(ctx, cfg, Stage::Apgd, "apgd_contact", false),
            momentum: Kernel::new(ctx, cfg, Stage::Apgd, "apgd_momentum"),
            gather_friction: Kernel::with_friction(ctx, cfg, Stage::Apgd, "apgd_gather", true),
            contact_friction: Kernel::with_friction(ctx, cfg, Stage::Apgd, "apgd_contact", true),
        }
    }

    pub fn bind(&self, ctx: &GpuContext, b: &ApgdBindings) -> ApgdGroups {
        let (prev, state, prev_t) = (&b.bufs.prev, &b.bufs.state, &b.bufs.prev_t);
        let gather = [
            ("params", b.params),
            ("count", b.count),
            ("slots", b.slots),
            ("prev", prev),
            ("vel_free", b.vel_free),
            ("inv_mass", b.inv_mass),
            ("vel", b.vel),
            ("state", state),
            ("prev_t", prev_t),
            ("spin_free", b.spin_free),
            ("radius", b.radius),
            ("spin", b.spin),
        ];
        let contact = [
            ("params", b.params),
            ("count", b.count),
            ("slots", b.slots),
            ("prev", prev),
            ("vel", b.vel),
            ("residual", b.residual),
            ("state", state),
            ("prev_t", prev_t),
            ("radius", b.radius),
            ("spin", b.spin),
        ];
        ApgdGroups {
            gather: registry::group(ctx, &self.gather, &gather),
            contact: registry::group(ctx, &self.contact, &contact),
            momentum: registry::group(
                ctx,
                &self.momentum,
                &[("params", b.params), ("residual", b.residual), ("state", state)],
            ),
            gather_friction: registry::group(ctx, &self.gather_friction, &gather),
            contact_friction: registry::group(ctx, &self.contact_friction, &contact),
        }
    }

    pub fn dispatch_gather(&self, pass: &mut wgpu::ComputePass, g: &ApgdGroups, n_grains: u32) {
        self.gather.dispatch(pass, &g.gather, n_grains);
    }

    pub fn dispatch_contact(&self, pass: &mut wgpu::ComputePass, g: &ApgdGroups, n_grains: u32) {
        self.contact.dispatch(pass, &g.contact, n_grains);
    }

    /// One workgroup, whatever the pile's size.
    pub fn dispatch_momentum(&self, pass: &mut wgpu::ComputePass, g: &ApgdGroups) {
        self.momentum.dispatch(pass, &g.momentum, 1);
    }

    /// One whole iteration.
    pub fn dispatch_iteration(&self, pass: &mut wgpu::ComputePass, g: &ApgdGroups, n_grains: u32) {
        self.dispatch_gather(pass, g, n_grains);
        self.dispatch_contact(pass, g, n_grains);
        self.dispatch_momentum(pass, g);
    }

    pub fn dispatch_gather_friction(&self, pass: &mut wgpu::ComputePass, g: &ApgdGroups, n_grains: u32) {
        self.gather_friction.dispatch(pass, &g.gather_friction, n_grains);
    }

    pub fn dispatch_contact_friction(&self, pass: &mut wgpu::ComputePass, g: &ApgdGroups, n_grains: u32) {
        self.contact_friction.dispatch(pass, &g.contact_friction, n_grains);
    }

    /// One whole frictional iteration (DESIGN §1d).
    pub fn dispatch_iteration_friction(&self, pass: &mut wgpu::ComputePass, g: &ApgdGroups, n_grains: u32) {
        self.dispatch_gather_friction(pass, g, n_grains);
        self.dispatch_contact_friction(pass, g, n_grains);
        self.dispatch_momentum(pass, g);
    }
}
