//! The NSCD stages of 3D on the GPU (lavapipe in CI) against their CPU
//! twins, on the spheres of tests/gpu_common/solid.rs (a bumpy triangulated
//! floor, a 30-face cone, a box of planes; random velocities and spins, a
//! few fixed spheres): free_velocity, bounce, jacobi_contact and
//! jacobi_gather with and without friction, residual_max, integrate (its
//! shift and the quaternion turn), predict_gap, uzawa_contact, APGD's
//! apgd_gather and apgd_contact with and without friction, and the
//! capillary bridges (cohesion). Each
//! stage is the plane's file compiled over the solid space.

mod gpu_common;

use gpu_common::solid::{C3, Case, K, case, cfg, cpu_detect, params, with_history};
use gpu_common::{Rng, buf, close, context, get, run, uni};
use hourglass::cpu;
use hourglass::cpu::grid::Bins;
use hourglass::cpu::jacobi::{Free, Friction, Moving, Projection};
use hourglass::gpu::{
    GpuContext, Kernel, Params, STAT_RESIDUAL, STAT_SPEED_HIST, STAT_SPEED2, STAT_WORDS, Stage, apgd,
};
use hourglass::model::{ContactLists, Dim3, Space, speeds};

/// Relative and absolute tolerances of an impulse or velocity: one or two
/// roundings of f32 apart (a fused multiply-add on the device).
const REL: f32 = 1e-5;
const ABS: f32 = 1e-9;

/// The case's spheres and their detected lists, warm impulses in them
/// (normal in [0, 1e-6] N s, tangents laid into each contact plane).
fn listed(seed: u64) -> (Case, ContactLists<Dim3>) {
    let c = case(1200, seed);
    let mut bins = Bins::default();
    bins.build(&c.grid, &c.grains.pos);
    let mut lists = cpu_detect(&c, &bins);
    with_history(&mut lists, seed + 1, 1e-6);
    for s in &mut lists.slots {
        s.impulse *= 1e-6;
        s.impulse_t = Dim3::carry_tangent(s.impulse_t, s.normal);
    }
    (c, lists)
}

/// The step's parameters: dt 1e-4 s, beta 0.2, slop 1e-5 m, omega 0.7,
/// friction 0.4 between spheres and 0.3 at the walls, restitution 0.5.
fn step_params(c: &Case) -> Params {
    let mut p = params(c);
    p.gravity = [0.7, -9.81];
    p.dt = 1e-4;
    p.inv_dt = 1e4;
    p.beta = 0.2;
    p.slop = 1e-5;
    p.omega = 0.7;
    p.mu = 0.4;
    p.mu_wall = 0.3;
    p.restitution = 0.5;
    p
}

fn projection(p: &Params) -> Projection {
    Projection {
        inv_dt: p.inv_dt,
        beta: p.beta,
        slop: p.slop,
        omega: p.omega,
    }
}

/// Vectors within `rel` of the CPU's length plus `abs` (a component that
/// cancels keeps the vector's rounding, not its own).
fn assert_vecs(what: &str, got: &[[f32; 3]], want: &[[f32; 3]], rel: f32, abs: f32) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        let off = Dim3::tangent_norm(Dim3::sub(*a, *b));
        let same = a == b || off <= rel * Dim3::tangent_norm(*b) + abs;
        assert!(same, "{what}: sphere {i}: gpu {a:?} cpu {b:?}");
    }
}

/// The listed slots of `got` against `want`: normal and tangential impulses.
fn assert_impulses(what: &str, got: &[C3], want: &ContactLists<Dim3>, abs: f32) {
    let mut moved = 0;
    for i in 0..want.count.len() {
        for s in 0..(want.count[i] as usize).min(K) {
            let (a, b) = (got[i * K + s], want.slots[i * K + s]);
            // The tangent as a vector: a component that cancels keeps the
            // vector's rounding, not its own.
            // A fixed sphere on a wall (W = 0) takes infinite impulses on both.
            let off = Dim3::tangent_norm(Dim3::sub(a.impulse_t, b.impulse_t));
            let tangent = if b.impulse_t.iter().all(|t| t.is_finite()) {
                off <= REL * Dim3::tangent_norm(b.impulse_t) + abs
            } else {
                (0..3).all(|d| close(a.impulse_t[d], b.impulse_t[d], 0.0, 0.0))
            };
            let same = close(a.impulse, b.impulse, REL, abs) && tangent;
            assert!(same, "{what}: sphere {i} slot {s}: gpu {a:?} cpu {b:?}");
            moved += usize::from(b.impulse > 0.0);
        }
    }
    assert!(moved > 500, "{what}: {moved} contacts pushing");
}

#[test]
fn free_velocity_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let (c, _) = listed(3);
    let (g, p) = (&c.grains, step_params(&c));
    let n = g.len();
    let mut want = vec![[0.0f32; 3]; n];
    let gravity = Dim3::in_plane(p.gravity);
    cpu::integrate::free_velocity::<Dim3>(&g.vel, &g.inv_mass, gravity, p.dt, &mut want);
    let k = Kernel::new(&ctx, &cfg(), Stage::FreeVelocity, "main");
    let (pb, vel, im, id) = (
        uni(&ctx, &p),
        buf(&ctx, &g.vel),
        buf(&ctx, &g.inv_mass),
        buf(&ctx, &g.id),
    );
    let out = buf(&ctx, &vec![[f32::NAN; 3]; n]);
    let named = [
        ("params", &pb),
        ("vel", &vel),
        ("inv_mass", &im),
        ("vel_free", &out),
        ("id", &id),
    ];
    let group = k.group(&ctx, &named);
    run(&ctx, |ps| k.dispatch(ps, &group, n as u32));
    let got: Vec<[f32; 3]> = get(&ctx, &out, n);
    assert_vecs("free_velocity", &got, &want, 0.0, 0.0);
    let fixed = (0..n).filter(|&i| g.inv_mass[i] == 0.0).count();
    assert!(fixed > 0 && got[..].iter().zip(&g.vel).any(|(a, b)| a[0] != b[0]));
    // Stochastic forcing: three draws a sphere, the CPU's bit for bit.
    let forcing = hourglass::model::Forcing {
        sigma: 3.0,
        seed: 77,
        step: 12,
    };
    let mut kicked = want.clone();
    cpu::integrate::forcing(&g.inv_mass, &g.id, forcing, p.dt, &mut kicked);
    let mut q = p;
    (q.kick, q.seed, q.step) = (forcing.scale(p.dt), forcing.seed, forcing.step);
    let qb = uni(&ctx, &q);
    let named = [
        ("params", &qb),
        ("vel", &vel),
        ("inv_mass", &im),
        ("vel_free", &out),
        ("id", &id),
    ];
    let group = k.group(&ctx, &named);
    run(&ctx, |ps| k.dispatch(ps, &group, n as u32));
    let got: Vec<[f32; 3]> = get(&ctx, &out, n);
    assert_vecs("free_velocity with forcing", &got, &kicked, 0.0, 0.0);
    assert!((0..n).all(|i| (g.inv_mass[i] > 0.0) == (kicked[i][2] != want[i][2])));
}

#[test]
fn bounce_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let (c, lists) = listed(5);
    let (g, p) = (&c.grains, step_params(&c));
    let n = g.len();
    let mut want = lists.clone();
    cpu::warm_start::bounce::<Dim3>(&want.count, &mut want.slots, K, &g.vel, p.restitution, p.dt);
    let k = Kernel::new(&ctx, &cfg(), Stage::WarmStart, "bounce");
    let (pb, count, slots, vel) = (
        uni(&ctx, &p),
        buf(&ctx, &lists.count),
        buf(&ctx, &lists.slots),
        buf(&ctx, &g.vel),
    );
    let named = [("params", &pb), ("count", &count), ("slots", &slots), ("vel", &vel)];
    let group = k.group(&ctx, &named);
    run(&ctx, |ps| k.dispatch(ps, &group, n as u32));
    let got: Vec<C3> = get(&ctx, &slots, n * K);
    let mut bouncing = 0;
    for i in 0..n {
        for s in 0..(want.count[i] as usize).min(K) {
            let (a, b) = (got[i * K + s].bounce, want.slots[i * K + s].bounce);
            assert!(close(a, b, REL, 0.0), "sphere {i} slot {s}: gpu {a} cpu {b}");
            bouncing += usize::from(b > 0.0);
        }
    }
    assert!(bouncing > 100, "{bouncing} bouncing contacts");
}

/// The buffers of one Jacobi pass: the listed contacts, velocities, spins,
/// radii and the per-sphere residual (NaN before the pass: every word written).
struct Pass {
    params: wgpu::Buffer,
    count: wgpu::Buffer,
    slots: wgpu::Buffer,
    vel: wgpu::Buffer,
    spin: wgpu::Buffer,
    radius: wgpu::Buffer,
    residual: wgpu::Buffer,
}

impl Pass {
    fn new(ctx: &GpuContext, c: &Case, lists: &ContactLists<Dim3>, p: &Params) -> Pass {
        let n = c.grains.len();
        Pass {
            params: uni(ctx, p),
            count: buf(ctx, &lists.count),
            slots: buf(ctx, &lists.slots),
            vel: buf(ctx, &c.grains.vel),
            spin: buf(ctx, &c.grains.ang_vel),
            radius: buf(ctx, &c.grains.radius),
            residual: buf(ctx, &vec![f32::NAN; n]),
        }
    }
}

#[test]
fn jacobi_contact_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let (c, lists) = listed(7);
    let (g, p) = (&c.grains, step_params(&c));
    let n = g.len();
    for friction in [false, true] {
        let mut want = lists.clone();
        let f = Friction::<Dim3> {
            spin: &g.ang_vel,
            radius: &g.radius,
            mu: p.mu,
            mu_wall: p.mu_wall,
        };
        let how = projection(&p);
        let worst = if friction {
            cpu::jacobi::jacobi_contact::<Dim3, true>(&want.count, &mut want.slots, K, &g.vel, &f, &how)
        } else {
            cpu::jacobi::jacobi_contact::<Dim3, false>(&want.count, &mut want.slots, K, &g.vel, &f, &how)
        };
        let k = Kernel::with_friction(&ctx, &cfg(), Stage::JacobiContact, "main", friction);
        let b = Pass::new(&ctx, &c, &lists, &p);
        let named = [
            ("params", &b.params),
            ("count", &b.count),
            ("slots", &b.slots),
            ("vel", &b.vel),
            ("residual", &b.residual),
            ("spin", &b.spin),
            ("radius", &b.radius),
        ];
        let group = k.group(&ctx, &named);
        run(&ctx, |ps| k.dispatch(ps, &group, n as u32));
        let what = format!("jacobi_contact (friction {friction})");
        assert_impulses(&what, &get(&ctx, &b.slots, n * K), &want, ABS * 1e-3);
        let residual: Vec<f32> = get(&ctx, &b.residual, n);
        let got = residual.iter().copied().fold(0.0f32, f32::max);
        assert!(residual.iter().all(|r| *r >= 0.0), "{what}: a residual left unwritten");
        assert!(close(got, worst, 1e-4, 1e-7), "{what}: residual gpu {got} cpu {worst}");
        if friction {
            // Some tangents reach the Coulomb disk's rim.
            let capped = want
                .slots
                .iter()
                .filter(|s| s.impulse > 0.0 && Dim3::tangent_norm(s.impulse_t) >= 0.999 * mu_of(s, &p) * s.impulse);
            assert!(capped.count() > 50, "{what}: no tangent on the Coulomb disk's rim");
        }
    }
}

/// The friction coefficient of slot `s` (`StepParams::mu_of`).
fn mu_of(s: &C3, p: &Params) -> f32 {
    match s.body() {
        hourglass::model::Body::Grain(_) => p.mu,
        _ => p.mu_wall,
    }
}

/// A gather's spins, (GPU, CPU), against each other; with friction the
/// spins are the free ones kicked (most of them changed), without they are
/// not written (the spins before the pass, `before`).
fn assert_spins(what: &str, friction: bool, spins: (&[[f32; 3]], &[[f32; 3]]), free: &[[f32; 3]], before: &[[f32; 3]]) {
    let (got, want) = spins;
    assert_vecs(&format!("{what}: spins"), got, want, REL, 1e-5);
    if friction {
        let kicked = want.iter().zip(free).filter(|(a, b)| a != b).count();
        assert!(kicked > 200, "{what}: {kicked} spins kicked");
    } else {
        assert_eq!(want, before, "{what}");
    }
}

#[test]
fn jacobi_gather_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let (c, lists) = listed(9);
    let (g, p) = (&c.grains, step_params(&c));
    let n = g.len();
    let mut rng = Rng::new(10);
    let vel_free: Vec<[f32; 3]> = g.vel.iter().map(|v| v.map(|x| x + rng.f32(-0.1, 0.1))).collect();
    let spin_free: Vec<[f32; 3]> = g.ang_vel.iter().map(|w| w.map(|x| 0.5 * x)).collect();
    for friction in [false, true] {
        let (mut vel, mut spin) = (g.vel.clone(), g.ang_vel.clone());
        let free = Free::<Dim3> {
            vel: &vel_free,
            inv_mass: &g.inv_mass,
            spin: &spin_free,
            radius: &g.radius,
        };
        let out = Moving::<Dim3> {
            vel: &mut vel,
            spin: &mut spin,
        };
        if friction {
            cpu::jacobi::jacobi_gather::<Dim3, true>(&lists.count, &lists.slots, K, &free, out);
        } else {
            cpu::jacobi::jacobi_gather::<Dim3, false>(&lists.count, &lists.slots, K, &free, out);
        }
        let k = Kernel::with_friction(&ctx, &cfg(), Stage::JacobiGather, "main", friction);
        let b = Pass::new(&ctx, &c, &lists, &p);
        let (vf, im, wf) = (buf(&ctx, &vel_free), buf(&ctx, &g.inv_mass), buf(&ctx, &spin_free));
        let named = [
            ("params", &b.params),
            ("count", &b.count),
            ("slots", &b.slots),
            ("vel_free", &vf),
            ("inv_mass", &im),
            ("vel", &b.vel),
            ("spin_free", &wf),
            ("radius", &b.radius),
            ("spin", &b.spin),
        ];
        let group = k.group(&ctx, &named);
        run(&ctx, |ps| k.dispatch(ps, &group, n as u32));
        let what = format!("jacobi_gather (friction {friction})");
        assert_vecs(&what, &get(&ctx, &b.vel, n), &vel, REL, 1e-7);
        let got_spin: Vec<[f32; 3]> = get(&ctx, &b.spin, n);
        assert_spins(&what, friction, (&got_spin, &spin), &spin_free, &g.ang_vel);
    }
}

#[test]
fn residual_max_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let c = case(1000, 13);
    let n = c.grains.len();
    let mut rng = Rng::new(14);
    let residual: Vec<f32> = (0..n).map(|_| rng.f32(0.0, 1e-3)).collect();
    let (want_r, want_s) = cpu::residual_max::residual_max_in::<Dim3>(&residual, &c.grains.vel);
    let k = Kernel::new(&ctx, &cfg(), Stage::ResidualMax, "main");
    let (pb, r, vel) = (uni(&ctx, &params(&c)), buf(&ctx, &residual), buf(&ctx, &c.grains.vel));
    let stats = buf(&ctx, &[0u32; STAT_WORDS as usize]);
    let named = [("params", &pb), ("residual", &r), ("vel", &vel), ("stats", &stats)];
    let group = k.group(&ctx, &named);
    run(&ctx, |ps| k.dispatch(ps, &group, n as u32));
    let words: Vec<u32> = get(&ctx, &stats, STAT_WORDS as usize);
    assert_eq!(f32::from_bits(words[STAT_RESIDUAL as usize]), want_r);
    assert_eq!(f32::from_bits(words[STAT_SPEED2 as usize]), want_s);
    let hist = STAT_SPEED_HIST as usize;
    let want_h = speeds::histogram_in::<Dim3>(&c.grains.vel);
    assert_eq!(&words[hist..hist + speeds::BINS], &want_h[..]);
    // The z components count: the plane's |v|^2 would be smaller.
    let plane = c
        .grains
        .vel
        .iter()
        .map(|v| v[0] * v[0] + v[1] * v[1])
        .fold(0.0f32, f32::max);
    assert!(want_s > plane);
}

#[test]
fn integrate_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let c = case(1000, 15);
    let (g, p) = (&c.grains, step_params(&c));
    let n = g.len();
    let mut want = g.pos.clone();
    cpu::integrate::integrate::<Dim3>(&mut want, &g.vel, p.dt);
    for entry in ["main", "shift"] {
        let k = Kernel::new(&ctx, &cfg(), Stage::Integrate, entry);
        let (pb, pos, vel) = (uni(&ctx, &p), buf(&ctx, &g.pos), buf(&ctx, &g.vel));
        let group = k.group(&ctx, &[("params", &pb), ("pos", &pos), ("vel", &vel)]);
        run(&ctx, |ps| k.dispatch(ps, &group, n as u32));
        assert_vecs(&format!("integrate::{entry}"), &get(&ctx, &pos, n), &want, 0.0, 0.0);
    }
}

#[test]
fn integrate_angle_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let c = case(1000, 17);
    let (g, mut p) = (&c.grains, step_params(&c));
    let n = g.len();
    p.dt = 2e-3;
    let mut rng = Rng::new(18);
    // Random unit quaternions, and one with a NaN spin (kept as it was).
    let turned: Vec<[f32; 4]> = (0..n)
        .map(|_| {
            let q: [f32; 4] = std::array::from_fn(|_| rng.f32(-1.0, 1.0));
            let len = q.iter().map(|x| x * x).sum::<f32>().sqrt();
            q.map(|x| x / len)
        })
        .collect();
    let mut spin = g.ang_vel.clone();
    spin[3] = [f32::NAN, 0.0, 0.0];
    let mut want = turned.clone();
    cpu::integrate::integrate_angle::<Dim3>(&mut want, &spin, p.dt);
    assert_eq!(want[3], turned[3]);
    let k = Kernel::new(&ctx, &cfg(), Stage::Integrate, "integrate_angle");
    let (pb, angle, w) = (uni(&ctx, &p), buf(&ctx, &turned), buf(&ctx, &spin));
    let group = k.group(&ctx, &[("params", &pb), ("angle", &angle), ("spin", &w)]);
    run(&ctx, |ps| k.dispatch(ps, &group, n as u32));
    let got: Vec<[f32; 4]> = get(&ctx, &angle, n);
    for (i, (a, b)) in got.iter().zip(&want).enumerate() {
        assert!(
            (0..4).all(|d| close(a[d], b[d], 1e-6, 1e-7)),
            "sphere {i}: gpu {a:?} cpu {b:?}"
        );
        let len = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((len - 1.0).abs() < 1e-6, "sphere {i}: |q| = {len}");
    }
}

#[test]
fn predict_gap_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let (c, lists) = listed(19);
    let (g, p) = (&c.grains, step_params(&c));
    let n = g.len();
    let mut want = Vec::new();
    cpu::correct::predict_gap::<Dim3>(&lists.count, &lists.slots, K, &g.vel, p.dt, &mut want);
    let k = Kernel::new(&ctx, &cfg(), Stage::PredictGap, "main");
    let (pb, count, slots, vel) = (
        uni(&ctx, &p),
        buf(&ctx, &lists.count),
        buf(&ctx, &lists.slots),
        buf(&ctx, &g.vel),
    );
    // Last step's data in the scratch lists: the stage writes every listed slot.
    let out = buf(&ctx, &vec![lists.slots[0]; n * K]);
    let named = [
        ("params", &pb),
        ("count", &count),
        ("slots", &slots),
        ("vel", &vel),
        ("out", &out),
    ];
    let group = k.group(&ctx, &named);
    run(&ctx, |ps| k.dispatch(ps, &group, n as u32));
    let got: Vec<C3> = get(&ctx, &out, n * K);
    for i in 0..n {
        for s in 0..(lists.count[i] as usize).min(K) {
            let (a, b) = (got[i * K + s], want[i * K + s]);
            assert_eq!((a.other, a.normal, a.impulse, a.bounce), (b.other, b.normal, 0.0, 0.0));
            assert!(
                close(a.gap, b.gap, 0.0, 1e-9),
                "sphere {i} slot {s}: gpu {a:?} cpu {b:?}"
            );
            assert_ne!(a.gap, lists.slots[i * K + s].gap, "sphere {i} slot {s}: the gap moved");
        }
    }
}

#[test]
fn uzawa_contact_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let (c, lists) = listed(21);
    let (g, p) = (&c.grains, step_params(&c));
    let n = g.len();
    let s = hourglass::model::UZAWA_STEP;
    let mut want = lists.clone();
    let mut want_r = vec![-1.0f32; n];
    cpu::uzawa::uzawa_contact::<Dim3>(&mut want, &g.vel, &g.inv_mass, &mut want_r, &projection(&p), s);
    let k = Kernel::new(&ctx, &cfg(), Stage::Uzawa, "uzawa_contact");
    let b = Pass::new(&ctx, &c, &lists, &p);
    let (im, step) = (buf(&ctx, &g.inv_mass), uni(&ctx, &[s, 0.0, 0.0, 0.0]));
    let named = [
        ("params", &b.params),
        ("count", &b.count),
        ("slots", &b.slots),
        ("vel", &b.vel),
        ("inv_mass", &im),
        ("residual", &b.residual),
        ("step_fraction", &step),
    ];
    let group = k.group(&ctx, &named);
    run(&ctx, |ps| k.dispatch(ps, &group, n as u32));
    assert_impulses("uzawa_contact", &get(&ctx, &b.slots, n * K), &want, ABS * 1e-3);
    let got_r: Vec<f32> = get(&ctx, &b.residual, n);
    for (i, (&a, &b)) in got_r.iter().zip(&want_r).enumerate() {
        assert!(
            b >= 0.0 && close(a, b, 1e-4, 1e-7),
            "sphere {i}: residual gpu {a} cpu {b}"
        );
    }
}

/// APGD's momentum state of the twin tests: theta 0.7 (k = 7).
const APGD_STATE: [f32; 5] = [0.7, 7.0, 0.25, 0.0, 0.5];

/// Previous iterates Q of every slot: the impulses shrunk by a random
/// share (normal), their tangents turned a little (tangential).
fn apgd_prev(lists: &ContactLists<Dim3>, seed: u64) -> (Vec<f32>, Vec<[f32; 3]>) {
    let mut rng = Rng::new(seed);
    let prev = lists.slots.iter().map(|c| c.impulse * rng.f32(0.5, 1.0)).collect();
    let prev_t = lists
        .slots
        .iter()
        .map(|c| c.impulse_t.map(|t| t * rng.f32(0.5, 1.0)))
        .collect();
    (prev, prev_t)
}

/// The APGD kernels and groups of 3D over `b`'s buffers, with the previous
/// iterates and momentum state given.
struct ApgdCase {
    apgd: apgd::Apgd,
    bufs: apgd::ApgdBuffers,
    groups: apgd::ApgdGroups,
}

impl ApgdCase {
    fn new(
        ctx: &GpuContext,
        b: &Pass,
        free: (&wgpu::Buffer, &wgpu::Buffer, &wgpu::Buffer),
        q: (&[f32], &[[f32; 3]]),
    ) -> ApgdCase {
        let apgd = apgd::Apgd::new(ctx, &cfg());
        let bufs = apgd::ApgdBuffers {
            prev: buf(ctx, q.0),
            prev_t: buf(ctx, q.1),
            state: buf(ctx, &APGD_STATE),
        };
        let (vel_free, inv_mass, spin_free) = free;
        let bindings = apgd::ApgdBindings {
            params: &b.params,
            count: &b.count,
            slots: &b.slots,
            vel_free,
            inv_mass,
            vel: &b.vel,
            residual: &b.residual,
            bufs: &bufs,
            spin_free,
            radius: &b.radius,
            spin: &b.spin,
        };
        let groups = apgd.groups(ctx, &bindings);
        ApgdCase { apgd, bufs, groups }
    }
}

#[test]
fn apgd_gather_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let (c, lists) = listed(23);
    let (g, p) = (&c.grains, step_params(&c));
    let n = g.len();
    let (prev, prev_t) = apgd_prev(&lists, 24);
    let spin_free: Vec<[f32; 3]> = g.ang_vel.iter().map(|w| w.map(|x| 0.5 * x)).collect();
    for friction in [false, true] {
        let (mut vel, mut spin) = (g.vel.clone(), g.ang_vel.clone());
        let free = Free::<Dim3> {
            vel: &g.vel,
            inv_mass: &g.inv_mass,
            spin: &spin_free,
            radius: &g.radius,
        };
        let out = Moving::<Dim3> {
            vel: &mut vel,
            spin: &mut spin,
        };
        let q = (&prev[..], &prev_t[..]);
        if friction {
            cpu::apgd::apgd_gather::<Dim3, true>(&lists, q, &free, out, &APGD_STATE);
        } else {
            cpu::apgd::apgd_gather::<Dim3, false>(&lists, q, &free, out, &APGD_STATE);
        }
        let b = Pass::new(&ctx, &c, &lists, &p);
        let (vf, im, wf) = (buf(&ctx, &g.vel), buf(&ctx, &g.inv_mass), buf(&ctx, &spin_free));
        let a = ApgdCase::new(&ctx, &b, (&vf, &im, &wf), (&prev, &prev_t));
        let f = usize::from(friction);
        run(&ctx, |ps| a.apgd.gather[f].dispatch(ps, &a.groups.gather[f], n as u32));
        let what = format!("apgd_gather (friction {friction})");
        assert_vecs(&what, &get(&ctx, &b.vel, n), &vel, REL, 1e-7);
        let got_spin: Vec<[f32; 3]> = get(&ctx, &b.spin, n);
        assert_spins(&what, friction, (&got_spin, &spin), &spin_free, &g.ang_vel);
    }
}

#[test]
fn apgd_contact_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let (c, lists) = listed(25);
    let (g, p) = (&c.grains, step_params(&c));
    let n = g.len();
    let (prev, prev_t) = apgd_prev(&lists, 26);
    for friction in [false, true] {
        let mut want = lists.clone();
        let (mut want_q, mut want_qt) = (prev.clone(), prev_t.clone());
        let mut want_r = vec![-1.0f32; n];
        let mut state = APGD_STATE;
        let f = Friction::<Dim3> {
            spin: &g.ang_vel,
            radius: &g.radius,
            mu: p.mu,
            mu_wall: p.mu_wall,
        };
        let (q, how) = ((&mut want_q[..], &mut want_qt[..]), projection(&p));
        if friction {
            cpu::apgd::apgd_contact::<Dim3, true>(&mut want, q, &g.vel, &mut want_r, &mut state, &f, &how);
        } else {
            cpu::apgd::apgd_contact::<Dim3, false>(&mut want, q, &g.vel, &mut want_r, &mut state, &f, &how);
        }
        let b = Pass::new(&ctx, &c, &lists, &p);
        let (vf, im, wf) = (buf(&ctx, &g.vel), buf(&ctx, &g.inv_mass), buf(&ctx, &g.ang_vel));
        let a = ApgdCase::new(&ctx, &b, (&vf, &im, &wf), (&prev, &prev_t));
        let k = usize::from(friction);
        run(&ctx, |ps| {
            a.apgd.contact[k].dispatch(ps, &a.groups.contact[k], n as u32)
        });
        let what = format!("apgd_contact (friction {friction})");
        assert_impulses(&what, &get(&ctx, &b.slots, n * K), &want, ABS * 1e-3);
        // Q' = P: the impulses before the pass, copied.
        let (got_q, got_qt): (Vec<f32>, Vec<[f32; 3]>) =
            (get(&ctx, &a.bufs.prev, n * K), get(&ctx, &a.bufs.prev_t, n * K));
        for i in 0..n {
            for s in i * K..i * K + (lists.count[i] as usize).min(K) {
                assert_eq!(got_q[s], want_q[s], "{what}: Q of sphere {i} slot {s}");
                if friction {
                    assert_eq!(got_qt[s], want_qt[s], "{what}: Q_t of sphere {i} slot {s}");
                }
            }
        }
        let residual: Vec<f32> = get(&ctx, &b.residual, n);
        for (i, (&x, &y)) in residual.iter().zip(&want_r).enumerate() {
            assert!(
                y >= 0.0 && close(x, y, 1e-4, 1e-7),
                "{what}: residual of sphere {i}: gpu {x} cpu {y}"
            );
        }
        // The iteration's largest residual, raised into the state.
        let got_state: Vec<u32> = get(&ctx, &a.bufs.state, 5);
        assert!(
            close(f32::from_bits(got_state[3]), state[3], 1e-4, 1e-7),
            "{what}: worst"
        );
    }
}

#[test]
fn cohesion_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let (c, lists) = listed(27);
    let (g, p) = (&c.grains, step_params(&c));
    let n = g.len();
    let mut rng = Rng::new(28);
    let vel_free: Vec<[f32; 3]> = g.vel.iter().map(|v| v.map(|x| x + rng.f32(-0.1, 0.1))).collect();
    let mut dry_walls = Vec::new();
    for walls in [false, true] {
        // A rupture gap past most listed gaps; grain-wall bridges with `walls`.
        let law = hourglass::model::Cohesion {
            gamma: 0.072,
            a: 5000.0,
            b: 8.0,
            c: -1.0,
            rupture: 8e-4,
            walls: u32::from(walls),
        };
        let mut want = vel_free.clone();
        cpu::cohesion::cohesion::<Dim3>(&law, p.dt, &lists, &g.radius, &g.inv_mass, &mut want);
        let k = Kernel::new(&ctx, &cfg(), Stage::Cohesion, "main");
        let b = Pass::new(&ctx, &c, &lists, &p);
        let (lb, im, vf) = (uni(&ctx, &law), buf(&ctx, &g.inv_mass), buf(&ctx, &vel_free));
        let named = [
            ("params", &b.params),
            ("law", &lb),
            ("count", &b.count),
            ("slots", &b.slots),
            ("radius", &b.radius),
            ("inv_mass", &im),
            ("vel_free", &vf),
        ];
        let group = k.group(&ctx, &named);
        run(&ctx, |ps| k.dispatch(ps, &group, n as u32));
        let what = format!("cohesion (walls {walls})");
        // exp is the platform's on the device: a few ulps of each bridge.
        assert_vecs(&what, &get(&ctx, &vf, n), &want, 1e-5, 1e-7);
        let pulled = want.iter().zip(&vel_free).filter(|(a, b)| a != b).count();
        assert!(pulled > 200, "{what}: {pulled} spheres pulled");
        if walls {
            // Bridges to the walls pull the spheres near them too.
            let by_walls = want.iter().zip(&dry_walls).filter(|(a, b)| a != b).count();
            assert!(by_walls > 50, "{what}: {by_walls} spheres pulled by the walls");
        } else {
            dry_walls = want;
        }
    }
}
