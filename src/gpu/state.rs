//! What the NSCD stepper adds to the shared [`Pipeline`]: the free velocities,
//! the per-grain residual, the reorder scratch, and the kernels and bind
//! groups of its own stages, built once.
//!
//! ```text
//!   vel_free (n)  residual (n)  tmp[a] (n, like grain array a: reorder scratch)
//!   shift (n), zero (n), correct_params: the split push-out's pseudo-velocity,
//!     its zero free velocity and its Params (beta = overlap_relax)
//!   spins: spin, spin_free, angle (n each; NSCD with friction, DESIGN §1d),
//!     and their reorder scratch
//!   lists p = 0, 1 of the pipeline: this step's and the previous one's, swapped by parity
//! ```
//! The split push-out (`StepParams::overlap_iterations` > 0, twin
//! `cpu::correct::Correction::apply`) works on a copy of this step's lists
//! written into the other lists, 1 - p: they are dead once warm start has
//! read them (the next step's detection overwrites them).

use super::buffers::{storage, storage_zeroed, uniform};
use super::jacobi_contact::JacobiContactBindings;
use super::jacobi_gather::JacobiGatherBindings;
use super::pipeline::{GRAIN_ARRAYS, ID, INV_MASS, POS, Pipeline, RADIUS, VEL};
use super::{
    GpuContext, Params, ShaderConfig, cohesion, free_velocity, integrate, jacobi_contact, jacobi_gather, predict_gap,
    reorder, residual_max, warm_start,
};

/// Pipelines of the NSCD stages, built once.
pub struct Kernels {
    pub free_velocity: free_velocity::FreeVelocity,
    pub reorder: reorder::Reorder,
    pub warm_start: warm_start::WarmStart,
    pub jacobi_contact: jacobi_contact::JacobiContact,
    pub jacobi_gather: jacobi_gather::JacobiGather,
    pub residual_max: residual_max::ResidualMax,
    pub integrate: integrate::Integrate,
    pub predict_gap: predict_gap::PredictGap,
    pub cohesion: cohesion::CohesionStage,
}

impl Kernels {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Kernels {
        Kernels {
            free_velocity: free_velocity::FreeVelocity::new(ctx, cfg),
            reorder: reorder::Reorder::new(ctx, cfg),
            warm_start: warm_start::WarmStart::new(ctx, cfg),
            jacobi_contact: jacobi_contact::JacobiContact::new(ctx, cfg),
            jacobi_gather: jacobi_gather::JacobiGather::new(ctx, cfg),
            residual_max: residual_max::ResidualMax::new(ctx, cfg),
            integrate: integrate::Integrate::new(ctx, cfg),
            predict_gap: predict_gap::PredictGap::new(ctx, cfg),
            cohesion: cohesion::CohesionStage::new(ctx, cfg),
        }
    }
}

/// 8-byte elements (pos, vel) or 4-byte ones, for grain array `a`.
pub fn wide(a: usize) -> bool {
    a == POS || a == VEL
}

/// The rotation of NSCD grains (DESIGN §1d): only friction turns a grain, so
/// without it these stay as uploaded (zeros) and no stage touches them.
pub struct Spins {
    /// Spins, rad/s (ccw).
    pub spin: wgpu::Buffer,
    /// The spins at the start of the step (copied from `spin`), rad/s.
    pub spin_free: wgpu::Buffer,
    /// Rotation angles, rad.
    pub angle: wgpu::Buffer,
    /// Reorder scratch of `spin` and `angle`.
    pub tmp: [wgpu::Buffer; 2],
}

impl Spins {
    /// Upload the grains' spins and angles (zeros where the host has none).
    pub fn new(ctx: &GpuContext, grains: &crate::model::Grains) -> Spins {
        let n = grains.len();
        let or_zeros = |v: &[f32]| if v.len() == n { v.to_vec() } else { vec![0.0f32; n] };
        let l = |s: &str| format!("hourglass.{s}");
        Spins {
            spin: storage(ctx, &l("spin"), &or_zeros(&grains.ang_vel)),
            spin_free: storage_zeroed::<f32>(ctx, &l("spin_free"), n),
            angle: storage(ctx, &l("angle"), &or_zeros(&grains.angle)),
            tmp: [l("spin.reorder"), l("angle.reorder")].map(|s| storage_zeroed::<f32>(ctx, &s, n)),
        }
    }

    /// The spin and angle buffers, as the reorder permutes them.
    pub fn arrays(&self) -> [&wgpu::Buffer; 2] {
        [&self.spin, &self.angle]
    }
}

/// The NSCD buffers beside the pipeline's.
pub struct Buffers {
    pub vel_free: wgpu::Buffer,
    pub residual: wgpu::Buffer,
    /// Reorder scratch of each grain array.
    pub tmp: [wgpu::Buffer; 5],
    /// Pseudo-velocity of the overlap correction, m/s (n).
    pub shift: wgpu::Buffer,
    /// Zeros: the correction's free velocity (n).
    pub zero: wgpu::Buffer,
    /// The correction's `Params`: the step's, with beta = overlap_relax.
    pub correct_params: wgpu::Buffer,
    pub spins: Spins,
}

impl Buffers {
    pub fn new(ctx: &GpuContext, grains: &crate::model::Grains) -> Buffers {
        let n = grains.len();
        let l = |s: &str| format!("hourglass.{s}");
        Buffers {
            vel_free: storage_zeroed::<[f32; 2]>(ctx, &l("vel_free"), n),
            residual: storage_zeroed::<f32>(ctx, &l("residual"), n),
            tmp: std::array::from_fn(|a| {
                let bytes = n * if wide(a) { 8 } else { 4 };
                storage_zeroed::<u8>(ctx, &l(&format!("{}.reorder", GRAIN_ARRAYS[a])), bytes)
            }),
            shift: storage_zeroed::<[f32; 2]>(ctx, &l("shift"), n),
            zero: storage_zeroed::<[f32; 2]>(ctx, &l("zero"), n),
            correct_params: uniform(ctx, &l("correct.params"), &Params::default()),
            spins: Spins::new(ctx, grains),
        }
    }
}

/// Bind groups of the NSCD stages; `[p]` entries work on lists p (this
/// step's) with lists 1 - p as the previous step's.
pub struct Groups {
    pub free_velocity: wgpu::BindGroup,
    pub reorder: Vec<(bool, wgpu::BindGroup)>,
    /// Reorder of the spins and angles (`Spins::arrays` into `Spins::tmp`).
    pub reorder_spins: Vec<(bool, wgpu::BindGroup)>,
    pub warm_start: [wgpu::BindGroup; 2],
    /// Entry point `bounce` of warm_start on lists p (restitution).
    pub bounce: [wgpu::BindGroup; 2],
    pub jacobi_contact: [wgpu::BindGroup; 2],
    pub jacobi_gather: [wgpu::BindGroup; 2],
    /// The frictional `jacobi_contact` and `jacobi_gather` (DESIGN §1d).
    pub jacobi_contact_friction: [wgpu::BindGroup; 2],
    pub jacobi_gather_friction: [wgpu::BindGroup; 2],
    /// `integrate_angle`: angle += dt spin.
    pub integrate_angle: wgpu::BindGroup,
    pub residual_max: wgpu::BindGroup,
    pub integrate: wgpu::BindGroup,
    /// Lists p into the scratch lists 1 - p.
    pub predict_gap: [wgpu::BindGroup; 2],
    /// `jacobi_contact` of the correction: scratch lists 1 - p, on `shift`.
    pub correct_contact: [wgpu::BindGroup; 2],
    /// `jacobi_gather` of the correction: shift = 0 + im sum P n over the scratch lists.
    pub correct_gather: [wgpu::BindGroup; 2],
    /// `integrate` of the correction: pos += dt shift.
    pub shift: wgpu::BindGroup,
    /// `cohesion` on lists p, into `vel_free`.
    pub cohesion: [wgpu::BindGroup; 2],
}

impl Groups {
    pub fn new(core: &Pipeline, k: &Kernels, own: &Buffers) -> Groups {
        let (ctx, b) = (&core.ctx, &core.bufs);
        let g = &b.grains;
        // Both pipelines of a solver stage (frictionless, frictional) take the same bindings.
        let contact = |p: usize| contact_bindings(core, own, p);
        let gather = |p: usize| gather_bindings(core, own, p);
        let [correct_contact, correct_gather] = correction_groups(core, k, own);
        Groups {
            free_velocity: k
                .free_velocity
                .bind(ctx, &b.params, &g[VEL], &g[INV_MASS], &own.vel_free, &g[ID]),
            reorder: (0..g.len())
                .map(|a| k.reorder.bind(ctx, wide(a), &b.params, &b.sorted, &g[a], &own.tmp[a]))
                .collect(),
            warm_start: [0, 1].map(|p| {
                k.warm_start.bind(
                    ctx,
                    &b.params,
                    &b.count[p],
                    &b.slots[p],
                    &b.count[1 - p],
                    &b.slots[1 - p],
                )
            }),
            bounce: [0, 1].map(|p| {
                k.warm_start
                    .bind_bounce(ctx, &b.params, &b.count[p], &b.slots[p], &g[VEL])
            }),
            jacobi_contact: [0, 1].map(|p| k.jacobi_contact.bind(ctx, &contact(p))),
            jacobi_gather: [0, 1].map(|p| k.jacobi_gather.bind(ctx, &gather(p))),
            reorder_spins: (own.spins.arrays().iter().zip(&own.spins.tmp))
                .map(|(a, t)| k.reorder.bind(ctx, false, &b.params, &b.sorted, a, t))
                .collect(),
            jacobi_contact_friction: [0, 1].map(|p| k.jacobi_contact.bind_friction(ctx, &contact(p))),
            jacobi_gather_friction: [0, 1].map(|p| k.jacobi_gather.bind_friction(ctx, &gather(p))),
            integrate_angle: k
                .integrate
                .bind_angle(ctx, &b.params, &own.spins.angle, &own.spins.spin),
            residual_max: k.residual_max.bind(ctx, &b.params, &own.residual, &g[VEL], &b.stats),
            integrate: k.integrate.bind(ctx, &b.params, &g[POS], &g[VEL]),
            predict_gap: [0, 1].map(|p| {
                k.predict_gap
                    .bind(ctx, &b.params, &b.count[p], &b.slots[p], &g[VEL], &b.slots[1 - p])
            }),
            correct_contact,
            correct_gather,
            shift: k.integrate.bind(ctx, &b.params, &g[POS], &own.shift),
            cohesion: [0, 1].map(|p| {
                let bindings = cohesion::CohesionBindings {
                    params: &b.params,
                    count: &b.count[p],
                    slots: &b.slots[p],
                    radius: &g[RADIUS],
                    inv_mass: &g[INV_MASS],
                    vel_free: &own.vel_free,
                };
                k.cohesion.bind(ctx, &bindings)
            }),
        }
    }
}

/// `jacobi_contact` on lists p: the step's velocities into `residual`.
fn contact_bindings<'a>(core: &'a Pipeline, own: &'a Buffers, p: usize) -> JacobiContactBindings<'a> {
    let b = &core.bufs;
    JacobiContactBindings {
        params: &b.params,
        count: &b.count[p],
        slots: &b.slots[p],
        vel: &b.grains[VEL],
        residual: &own.residual,
        spin: &own.spins.spin,
        radius: &b.grains[RADIUS],
    }
}

/// `jacobi_gather` on lists p: the step's velocities from `vel_free`.
fn gather_bindings<'a>(core: &'a Pipeline, own: &'a Buffers, p: usize) -> JacobiGatherBindings<'a> {
    let b = &core.bufs;
    JacobiGatherBindings {
        params: &b.params,
        count: &b.count[p],
        slots: &b.slots[p],
        vel_free: &own.vel_free,
        inv_mass: &b.grains[INV_MASS],
        vel: &b.grains[VEL],
        spin_free: &own.spins.spin_free,
        radius: &b.grains[RADIUS],
        spin: &own.spins.spin,
    }
}

/// The split push-out's `jacobi_contact` and `jacobi_gather` groups: on the
/// scratch lists 1 - p, with `correct_params`, from a zero free velocity into `shift`.
fn correction_groups(core: &Pipeline, k: &Kernels, own: &Buffers) -> [[wgpu::BindGroup; 2]; 2] {
    let (ctx, b) = (&core.ctx, &core.bufs);
    let contact = [0, 1].map(|p| {
        let bindings = JacobiContactBindings {
            params: &own.correct_params,
            slots: &b.slots[1 - p],
            vel: &own.shift,
            ..contact_bindings(core, own, p)
        };
        k.jacobi_contact.bind(ctx, &bindings)
    });
    let gather = [0, 1].map(|p| {
        let bindings = JacobiGatherBindings {
            params: &own.correct_params,
            slots: &b.slots[1 - p],
            vel_free: &own.zero,
            vel: &own.shift,
            ..gather_bindings(core, own, p)
        };
        k.jacobi_gather.bind(ctx, &bindings)
    });
    [contact, gather]
}
