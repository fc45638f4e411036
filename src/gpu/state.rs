//! What the NSCD stepper adds to the shared [`Pipeline`]: the free velocities,
//! the per-grain residual, the reorder scratch, and the kernels and bind
//! groups of its own stages, built once.
//!
//! ```text
//!   vel_free (n)  residual (n)  tmp[a] (n, like grain array a: reorder scratch)
//!   shift (n), zero (n), correct_params: the split push-out's pseudo-velocity,
//!     its zero free velocity and its Params (beta = overlap_relax)
//!   spins: spin, spin_free, angle (n each; NSCD with friction, docs/nscd.md#coulomb-friction-and-rotation),
//!     and their reorder scratch
//!   lists p = 0, 1 of the pipeline: this step's and the previous one's, swapped by parity
//! ```
//! In 3D the spins are vectors and the orientations unit quaternions
//! (`Space::Spin`, `Space::Orientation`); the reorder is the plane's alone
//! ([`PlaneKernels`]: none of its buffers or groups is made in 3D).
//!
//! The split push-out (`StepParams::overlap_iterations` > 0, twin
//! `cpu::correct::Correction::apply`) works on a copy of this step's lists
//! written into the other lists, 1 - p: they are dead once warm start has
//! read them (the next step's detection overwrites them).

use super::buffers::{storage, storage_zeroed, uniform};
use super::pipeline::{GRAIN_ARRAYS, ID, INV_MASS, POS, Pipeline, RADIUS, VEL};
use super::space::GpuSpace;
use super::{GpuContext, Kernel, Params, ShaderConfig, Stage};
use crate::model::{Grains, Space};

/// A list of buffers by binding name, as [`Kernel::group`] takes it.
type Named<'a, const N: usize> = [(&'static str, &'a wgpu::Buffer); N];

/// Pipelines of the NSCD stages, built once: each entry point's contract and
/// CPU twin. `[f]` pairs are [`Kernel::pair`]s (f = friction, docs/nscd.md#coulomb-friction-and-rotation).
pub struct Kernels {
    /// `free_velocity::main`: v_free = v + dt g for movable grains, plus the
    /// stochastic forcing sqrt(dt) sigma w when sigma > 0, drawn by the
    /// grain's original `id`. Twin `cpu::integrate::free_velocity`, then
    /// `cpu::integrate::forcing`.
    pub free_velocity: Kernel,
    /// `warm_start::main`: a listed contact found again in last step's list
    /// of the same grain (same other body) starts from its previous impulse,
    /// others from 0. Twin `cpu::warm_start::warm_start`.
    pub warm_start: Kernel,
    /// `warm_start::bounce` (restitution, docs/nscd.md#restitution): each contact's bounce
    /// velocity from the start-of-step velocities. Twin `cpu::warm_start::bounce`.
    pub bounce: Kernel,
    /// `jacobi_contact::main`: new impulses of every contact from one velocity
    /// snapshot, P' = max(0, P - omega (u + (max(d,0) + beta min(d + slop,0))/dt) / W),
    /// and per grain the largest |P' - P| W / omega (into `residual`); with
    /// friction also the tangential impulse from the spins.
    /// Twin `cpu::jacobi::jacobi_contact`.
    pub jacobi_contact: [Kernel; 2],
    /// `jacobi_gather::main`: v_i = v_free_i + im_i sum_c P_c n_c over grain
    /// i's own contact copies (no atomics); with friction also the tangential
    /// impulses and the spins. Twin `cpu::jacobi::jacobi_gather`.
    pub jacobi_gather: [Kernel; 2],
    /// `residual_max::main`: `max_i residual[i]` and `max_i |v_i|^2` into
    /// `stats[STAT_RESIDUAL]`, `stats[STAT_SPEED2]` by atomicMax on the f32 bit
    /// patterns (order-preserving for non-negative floats), one atomic per
    /// workgroup, and the grains' speed histogram into
    /// `stats[STAT_SPEED_HIST..]`; the caller zeroes those words first.
    /// Twins `cpu::residual_max::residual_max`, `model::speeds::histogram`.
    pub residual_max: Kernel,
    /// `integrate::main`: x += dt v after the solve, x wrapped into the
    /// period on a grid periodic along x. Twin `cpu::integrate::integrate`
    /// then `cpu::integrate::wrap`.
    pub integrate: Kernel,
    /// `integrate::shift`: x += dt v of the push-out's shift, not wrapped
    /// (the integration after it wraps). Twin `cpu::integrate::integrate`.
    pub shift: Kernel,
    /// `integrate::integrate_angle` (friction): theta += dt w.
    /// Twin `cpu::integrate::integrate_angle`.
    pub integrate_angle: Kernel,
    /// `predict_gap::main`: a copy of this step's contacts with the gap the
    /// solved velocities leave after the step, d' = d + dt (v_i - v_j).n, and
    /// a zero impulse, for the split push-out. Twin `cpu::correct::predict_gap`.
    pub predict_gap: Kernel,
    /// `cohesion::main`: capillary bridges (docs/cohesion.md) added to the free
    /// velocities, each grain over its own contact list; the law is the
    /// `Buffers::cohesion_law` uniform. Twin `cpu::cohesion::cohesion`.
    pub cohesion: Kernel,
    /// The plane's own stages (None in 3D).
    pub plane: Option<PlaneKernels>,
}

/// The NSCD stages of the plane alone.
pub struct PlaneKernels {
    /// `reorder::gather1` (4-byte arrays) and `gather2` (8-byte: pos, vel),
    /// indexed by `[wide]`: `dst[k] = src[sorted[k]]` with `sorted` from the
    /// last binning, for memory locality; the stepper then copies dst back
    /// over src, every `REORDER_EVERY` steps and when the walls change.
    /// Twin `cpu::reorder::gather`.
    pub reorder: [Kernel; 2],
}

impl Kernels {
    /// The stages of `cfg`'s space (the plane's own with `cfg.dim` 2).
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Kernels {
        let kernel = |stage, entry| Kernel::new(ctx, cfg, stage, entry);
        Kernels {
            free_velocity: kernel(Stage::FreeVelocity, "main"),
            plane: (cfg.dim == 2).then(|| PlaneKernels {
                reorder: [kernel(Stage::Reorder, "gather1"), kernel(Stage::Reorder, "gather2")],
            }),
            cohesion: kernel(Stage::Cohesion, "main"),
            warm_start: kernel(Stage::WarmStart, "main"),
            bounce: kernel(Stage::WarmStart, "bounce"),
            jacobi_contact: Kernel::pair(ctx, cfg, Stage::JacobiContact, "main"),
            jacobi_gather: Kernel::pair(ctx, cfg, Stage::JacobiGather, "main"),
            residual_max: kernel(Stage::ResidualMax, "main"),
            integrate: kernel(Stage::Integrate, "main"),
            shift: kernel(Stage::Integrate, "shift"),
            integrate_angle: kernel(Stage::Integrate, "integrate_angle"),
            predict_gap: kernel(Stage::PredictGap, "main"),
        }
    }
}

/// The reorder kernel of grain array `a`: 1 for 8-byte elements (pos, vel), 0 for 4-byte ones.
pub fn wide(a: usize) -> usize {
    usize::from(a == POS || a == VEL)
}

/// The rotation of NSCD grains (docs/nscd.md#coulomb-friction-and-rotation): only friction turns a grain, so
/// without it these stay as uploaded (zeros) and no stage touches them.
pub struct Spins {
    /// Spins, rad/s (ccw in the plane; vectors in 3D).
    pub spin: wgpu::Buffer,
    /// The spins at the start of the step (copied from `spin`), rad/s.
    pub spin_free: wgpu::Buffer,
    /// Orientations: angles, rad, in the plane; unit quaternions in 3D.
    pub angle: wgpu::Buffer,
    /// Reorder scratch of `spin` and `angle` (the plane's; empty in 3D).
    pub tmp: [wgpu::Buffer; 2],
}

impl Spins {
    /// Upload the grains' spins and orientations (zero spins, unturned
    /// grains where the host has none).
    pub fn new<S: Space>(ctx: &GpuContext, grains: &Grains<S>) -> Spins {
        let n = grains.len();
        let spins = if grains.ang_vel.len() == n {
            grains.ang_vel.clone()
        } else {
            vec![S::Spin::default(); n]
        };
        let turns = if grains.angle.len() == n {
            grains.angle.clone()
        } else {
            vec![S::UNTURNED; n]
        };
        let l = |s: &str| format!("hourglass.{s}");
        let reordered = if S::DIM == 2 { n } else { 0 };
        Spins {
            spin: storage(ctx, &l("spin"), &spins),
            spin_free: storage_zeroed::<S::Spin>(ctx, &l("spin_free"), n),
            angle: storage(ctx, &l("angle"), &turns),
            tmp: [l("spin.reorder"), l("angle.reorder")].map(|s| storage_zeroed::<f32>(ctx, &s, reordered)),
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
    /// Reorder scratch of each grain array (the plane's; empty in 3D).
    pub tmp: [wgpu::Buffer; 5],
    /// Pseudo-velocity of the overlap correction, m/s (n).
    pub shift: wgpu::Buffer,
    /// Zeros: the correction's free velocity (n).
    pub zero: wgpu::Buffer,
    /// The correction's `Params`: the step's, with beta = overlap_relax.
    pub correct_params: wgpu::Buffer,
    /// The `Cohesion` uniform of `cohesion::main`.
    pub cohesion_law: wgpu::Buffer,
    pub spins: Spins,
}

impl Buffers {
    pub fn new<S: Space>(ctx: &GpuContext, grains: &Grains<S>) -> Buffers {
        let n = grains.len();
        let l = |s: &str| format!("hourglass.{s}");
        let reordered = if S::DIM == 2 { n } else { 0 };
        Buffers {
            vel_free: storage_zeroed::<S::Vec>(ctx, &l("vel_free"), n),
            residual: storage_zeroed::<f32>(ctx, &l("residual"), n),
            tmp: std::array::from_fn(|a| {
                let bytes = reordered * 4 * (1 + wide(a));
                storage_zeroed::<u8>(ctx, &l(&format!("{}.reorder", GRAIN_ARRAYS[a])), bytes)
            }),
            shift: storage_zeroed::<S::Vec>(ctx, &l("shift"), n),
            zero: storage_zeroed::<S::Vec>(ctx, &l("zero"), n),
            correct_params: uniform(ctx, &l("correct.params"), &Params::default()),
            cohesion_law: uniform(ctx, &l("cohesion.law"), &crate::model::Cohesion::default()),
            spins: Spins::new(ctx, grains),
        }
    }
}

/// Bind groups of the NSCD stages; `[p]` entries work on lists p (this
/// step's) with lists 1 - p as the previous step's; `[p][f]` those of the
/// solver pairs (f = friction: both pipelines take the same bindings).
pub struct Groups {
    pub free_velocity: wgpu::BindGroup,
    /// (kernel of `PlaneKernels::reorder`, group) per grain array (empty in 3D).
    pub reorder: Vec<(usize, wgpu::BindGroup)>,
    /// Reorder of the spins and angles (`Spins::arrays` into `Spins::tmp`;
    /// 4-byte; empty in 3D).
    pub reorder_spins: Vec<wgpu::BindGroup>,
    pub warm_start: [wgpu::BindGroup; 2],
    /// Entry point `bounce` of warm_start on lists p (restitution).
    pub bounce: [wgpu::BindGroup; 2],
    pub jacobi_contact: [[wgpu::BindGroup; 2]; 2],
    pub jacobi_gather: [[wgpu::BindGroup; 2]; 2],
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
    /// `shift` of the correction: pos += dt shift.
    pub shift: wgpu::BindGroup,
    /// `cohesion` on lists p, into `vel_free`.
    pub cohesion: [wgpu::BindGroup; 2],
}

impl Groups {
    pub fn new<S: GpuSpace>(core: &Pipeline<S>, k: &Kernels, own: &Buffers) -> Groups {
        let (ctx, b) = (&core.ctx, &core.bufs);
        let (g, params) = (&b.grains, &b.params);
        let lists = |p: usize| [("params", params), ("count", &b.count[p]), ("slots", &b.slots[p])];
        let pair = |k: &[Kernel; 2], named: &[(&str, &wgpu::Buffer)]| k.each_ref().map(|k| k.group(ctx, named));
        let [correct_contact, correct_gather] = correction_groups(core, k, own);
        let spins = own.spins.arrays().into_iter().zip(&own.spins.tmp);
        Groups {
            free_velocity: k.free_velocity.group(
                ctx,
                &[
                    ("params", params),
                    ("vel", &g[VEL]),
                    ("inv_mass", &g[INV_MASS]),
                    ("vel_free", &own.vel_free),
                    ("id", &g[ID]),
                ],
            ),
            reorder: k.plane.as_ref().map_or_else(Vec::new, |pk| {
                (0..g.len())
                    .map(|a| (wide(a), reorder_group(core, pk, wide(a), &g[a], &own.tmp[a])))
                    .collect()
            }),
            reorder_spins: k.plane.as_ref().map_or_else(Vec::new, |pk| {
                spins.map(|(a, t)| reorder_group(core, pk, 0, a, t)).collect()
            }),
            warm_start: [0, 1].map(|p| {
                let prev = [("prev_count", &b.count[1 - p]), ("prev_slots", &b.slots[1 - p])];
                k.warm_start.group(ctx, &[&lists(p)[..], &prev[..]].concat())
            }),
            bounce: [0, 1].map(|p| k.bounce.group(ctx, &[&lists(p)[..], &[("vel", &g[VEL])][..]].concat())),
            jacobi_contact: [0, 1].map(|p| pair(&k.jacobi_contact, &contact_named(core, own, p))),
            jacobi_gather: [0, 1].map(|p| pair(&k.jacobi_gather, &gather_named(core, own, p))),
            integrate_angle: k.integrate_angle.group(
                ctx,
                &[
                    ("params", params),
                    ("angle", &own.spins.angle),
                    ("spin", &own.spins.spin),
                ],
            ),
            residual_max: k.residual_max.group(
                ctx,
                &[
                    ("params", params),
                    ("residual", &own.residual),
                    ("vel", &g[VEL]),
                    ("stats", &b.stats),
                ],
            ),
            integrate: k
                .integrate
                .group(ctx, &[("params", params), ("pos", &g[POS]), ("vel", &g[VEL])]),
            predict_gap: [0, 1].map(|p| {
                let more = [("vel", &g[VEL]), ("out", &b.slots[1 - p])];
                k.predict_gap.group(ctx, &[&lists(p)[..], &more[..]].concat())
            }),
            correct_contact,
            correct_gather,
            shift: k
                .shift
                .group(ctx, &[("params", params), ("pos", &g[POS]), ("vel", &own.shift)]),
            cohesion: [0, 1].map(|p| {
                let more = [
                    ("law", &own.cohesion_law),
                    ("radius", &g[RADIUS]),
                    ("inv_mass", &g[INV_MASS]),
                    ("vel_free", &own.vel_free),
                ];
                k.cohesion.group(ctx, &[&lists(p)[..], &more[..]].concat())
            }),
        }
    }
}

/// `reorder.gather1` (`w` = 0) or `gather2` (1) of one array: `src` into `dst`.
fn reorder_group<S: GpuSpace>(
    core: &Pipeline<S>,
    k: &PlaneKernels,
    w: usize,
    src: &wgpu::Buffer,
    dst: &wgpu::Buffer,
) -> wgpu::BindGroup {
    let (s, d) = [("src1", "dst1"), ("src2", "dst2")][w];
    let b = &core.bufs;
    k.reorder[w].group(
        &core.ctx,
        &[("params", &b.params), ("sorted", &b.sorted), (s, src), (d, dst)],
    )
}

/// `jacobi_contact` on lists p: the step's velocities into `residual`; `spin`
/// and `radius` are read with friction only, but both pipelines take them.
fn contact_named<'a, S: GpuSpace>(core: &'a Pipeline<S>, own: &'a Buffers, p: usize) -> Named<'a, 7> {
    let b = &core.bufs;
    [
        ("params", &b.params),
        ("count", &b.count[p]),
        ("slots", &b.slots[p]),
        ("vel", &b.grains[VEL]),
        ("residual", &own.residual),
        ("spin", &own.spins.spin),
        ("radius", &b.grains[RADIUS]),
    ]
}

/// `jacobi_gather` on lists p: the step's velocities from `vel_free`;
/// `spin_free`, `radius` and `spin` serve friction only.
fn gather_named<'a, S: GpuSpace>(core: &'a Pipeline<S>, own: &'a Buffers, p: usize) -> Named<'a, 9> {
    let b = &core.bufs;
    [
        ("params", &b.params),
        ("count", &b.count[p]),
        ("slots", &b.slots[p]),
        ("vel_free", &own.vel_free),
        ("inv_mass", &b.grains[INV_MASS]),
        ("vel", &b.grains[VEL]),
        ("spin_free", &own.spins.spin_free),
        ("radius", &b.grains[RADIUS]),
        ("spin", &own.spins.spin),
    ]
}

/// `named` with the buffers of `over` in place of those of the same names.
///
/// # Panics
/// If a name of `over` is not in `named`.
fn rebind<'a, const N: usize>(mut named: Named<'a, N>, over: &[(&str, &'a wgpu::Buffer)]) -> Named<'a, N> {
    for &(name, buffer) in over {
        let at = named.iter_mut().find(|(n, _)| *n == name);
        at.unwrap_or_else(|| panic!("no binding `{name}` to replace")).1 = buffer;
    }
    named
}

/// The split push-out's frictionless `jacobi_contact` and `jacobi_gather`
/// groups: on the scratch lists 1 - p, with `correct_params`, from a zero
/// free velocity into `shift`.
fn correction_groups<S: GpuSpace>(core: &Pipeline<S>, k: &Kernels, own: &Buffers) -> [[wgpu::BindGroup; 2]; 2] {
    let (ctx, b) = (&core.ctx, &core.bufs);
    let over = |p: usize| {
        [
            ("params", &own.correct_params),
            ("slots", &b.slots[1 - p]),
            ("vel", &own.shift),
        ]
    };
    let contact = [0, 1].map(|p| k.jacobi_contact[0].group(ctx, &rebind(contact_named(core, own, p), &over(p))));
    let gather = [0, 1].map(|p| {
        let named = rebind(gather_named(core, own, p), &over(p));
        k.jacobi_gather[0].group(ctx, &rebind(named, &[("vel_free", &own.zero)]))
    });
    [contact, gather]
}
