//! Graph-coloured NLGS in 3D on the GPU (lavapipe in CI) against its CPU
//! twins, on the spheres of tests/gpu_common/solid.rs (a bumpy triangulated
//! floor, a 30-face cone, a box of planes; random velocities and spins,
//! some fixed spheres): the colouring rounds, the colour buckets, every
//! colour's pass with and without friction (vector tangents in the
//! contact plane, vector spins), the overflow colour of full lists, and the
//! mirror that hands each pair's second copy the owner's impulses (its
//! tangent reversed). Each stage is the plane's file compiled over the
//! solid space.

mod gpu_common;

use gpu_common::solid::{C3, Case, K, case, cfg, cpu_detect_in, params, with_history};
use gpu_common::{Rng, buf, close, context, get, run, uni};
use hourglass::cpu;
use hourglass::cpu::colored::{Bodies, ColoredSweep, Visit};
use hourglass::cpu::coloring::Coloring;
use hourglass::cpu::grid::Bins;
use hourglass::cpu::jacobi::Moving;
use hourglass::gpu::buffers::storage_zeroed;
use hourglass::gpu::colored::{
    Buckets, Colored, ColoredBindings, bucket_starts, pass_colors, relax, write_pass_colors,
};
use hourglass::gpu::coloring::{self, ColorBuffers};
use hourglass::gpu::{GpuContext, Params, ShaderConfig};
use hourglass::model::{Body, ContactLists, Dim3, Grains, Space};

/// The over-relaxation of the twins' normal rows (the solver's far from
/// convergence is 1.8; any value other than 1 shows it is applied).
const SOR: f32 = 1.3;

/// The case's spheres and their lists of `capacity` slots, warm impulses
/// in them (normal in [0, 1e-6] N s, tangents laid into each contact
/// plane). A fixed sphere touching a wall or another fixed sphere (W = 0:
/// no finite impulse separates them) is made movable again before the
/// detection.
fn listed(seed: u64, capacity: usize) -> (Case, ContactLists<Dim3>) {
    let mut c = case(1200, seed);
    let mut lists = detect(&c, capacity);
    let rho = 2500.0;
    let stuck: Vec<usize> = (0..c.grains.len())
        .filter(|&i| lists.of(i).iter().any(|s| s.inv_mass_sum == 0.0))
        .collect();
    for &i in &stuck {
        let r = f64::from(c.grains.radius[i]);
        c.grains.inv_mass[i] = (1.0 / Dim3::mass(rho, r)) as f32;
    }
    lists = detect(&c, capacity);
    let fixed = c.grains.inv_mass.iter().filter(|&&m| m == 0.0).count();
    assert!(fixed > 5, "{fixed} fixed spheres");
    with_history(&mut lists, seed + 1, 1e-6);
    for s in &mut lists.slots {
        s.impulse *= 1e-6;
        s.impulse_t = Dim3::carry_tangent(s.impulse_t, s.normal);
    }
    (c, lists)
}

fn detect(c: &Case, capacity: usize) -> ContactLists<Dim3> {
    let mut bins = Bins::default();
    bins.build(&c.grid, &c.grains.pos);
    cpu_detect_in(c, &bins, capacity)
}

/// dt 1e-4 s, beta 0.2, slop 1e-5 m, friction 0.4 between spheres and 0.3
/// at the walls.
fn step_params(c: &Case) -> Params {
    let mut p = params(c);
    p.dt = 1e-4;
    p.inv_dt = 1e4;
    p.beta = 0.2;
    p.slop = 1e-5;
    p.mu = 0.4;
    p.mu_wall = 0.3;
    p
}

fn visit(p: &Params) -> Visit {
    Visit {
        inv_dt: p.inv_dt,
        beta: p.beta,
        slop: p.slop,
        mu: p.mu,
        mu_wall: p.mu_wall,
        sor: SOR,
    }
}

fn config(capacity: usize) -> ShaderConfig {
    ShaderConfig::of::<Dim3>(capacity as u32)
}

/// The buffers the coloured passes bind.
struct Pass {
    params: wgpu::Buffer,
    count: wgpu::Buffer,
    slots: wgpu::Buffer,
    color: wgpu::Buffer,
    inv_mass: wgpu::Buffer,
    vel: wgpu::Buffer,
    residual: wgpu::Buffer,
    buckets: Buckets,
    radius: wgpu::Buffer,
    spin: wgpu::Buffer,
    relax: wgpu::Buffer,
}

impl Pass {
    fn new(ctx: &GpuContext, g: &Grains<Dim3>, lists: &ContactLists<Dim3>, p: &Params, color: &[u32]) -> Pass {
        let n = g.len();
        Pass {
            params: uni(ctx, p),
            count: buf(ctx, &lists.count),
            slots: buf(ctx, &lists.slots),
            color: buf(ctx, color),
            inv_mass: buf(ctx, &g.inv_mass),
            vel: buf(ctx, &g.vel),
            residual: storage_zeroed::<u32>(ctx, "hourglass.test.residual", n),
            buckets: Buckets::new(ctx, lists.slots.len()),
            radius: buf(ctx, &g.radius),
            spin: buf(ctx, &g.ang_vel),
            relax: relax(ctx, SOR),
        }
    }

    fn bindings(&self) -> ColoredBindings<'_> {
        ColoredBindings {
            params: &self.params,
            count: &self.count,
            slots: &self.slots,
            color: &self.color,
            inv_mass: &self.inv_mass,
            vel: &self.vel,
            residual: &self.residual,
            buckets: &self.buckets,
            radius: &self.radius,
            spin: &self.spin,
            relax: &self.relax,
        }
    }
}

/// What a coloured pass left: slots, velocities, spins and the per-sphere
/// residual (m/s).
struct Solved {
    slots: Vec<C3>,
    vel: Vec<[f32; 3]>,
    spin: Vec<[f32; 3]>,
    residual: Vec<f32>,
}

impl Solved {
    /// The CPU's start: the spheres' velocities and spins, zero residuals,
    /// a copy of `lists` to solve (its slots taken once solved), and the
    /// bodies the visits read.
    fn before<'a>(g: &'a Grains<Dim3>, lists: &ContactLists<Dim3>) -> (Solved, ContactLists<Dim3>, Bodies<'a>) {
        let want = Solved {
            slots: Vec::new(),
            vel: g.vel.clone(),
            spin: g.ang_vel.clone(),
            residual: vec![0.0; g.len()],
        };
        let bodies = Bodies {
            inv_mass: &g.inv_mass,
            radius: &g.radius,
        };
        (want, lists.clone(), bodies)
    }

    fn read(ctx: &GpuContext, b: &Pass, n: usize, capacity: usize) -> Solved {
        let bits: Vec<u32> = get(ctx, &b.residual, n);
        Solved {
            slots: get(ctx, &b.slots, n * capacity),
            vel: get(ctx, &b.vel, n),
            spin: get(ctx, &b.spin, n),
            residual: bits.into_iter().map(f32::from_bits).collect(),
        }
    }

    /// The GPU's (`self`) against the CPU's (`want`): impulses and vectors
    /// within f32 roundings compounded over the colours (`rel` of the
    /// CPU's length, plus `abs`).
    fn assert_matches(&self, what: &str, want: &Solved, capacity: usize, count: &[u32]) {
        let vec_close = |a: [f32; 3], b: [f32; 3], abs: f32| {
            a == b || Dim3::tangent_norm(Dim3::sub(a, b)) <= 1e-4 * Dim3::tangent_norm(b) + abs
        };
        for (i, &listed) in count.iter().enumerate() {
            for s in 0..(listed as usize).min(capacity) {
                let (a, b) = (self.slots[i * capacity + s], want.slots[i * capacity + s]);
                let same = close(a.impulse, b.impulse, 1e-4, 1e-12) && vec_close(a.impulse_t, b.impulse_t, 1e-12);
                assert!(same, "{what}: sphere {i} slot {s}: gpu {a:?} cpu {b:?}");
            }
        }
        for (i, (a, b)) in self.vel.iter().zip(&want.vel).enumerate() {
            assert!(
                vec_close(*a, *b, 1e-6),
                "{what}: velocity of sphere {i}: gpu {a:?} cpu {b:?}"
            );
        }
        for (i, (a, b)) in self.spin.iter().zip(&want.spin).enumerate() {
            assert!(
                vec_close(*a, *b, 1e-3),
                "{what}: spin of sphere {i}: gpu {a:?} cpu {b:?}"
            );
        }
        for (i, (a, b)) in self.residual.iter().zip(&want.residual).enumerate() {
            assert!(
                close(*a, *b, 1e-3, 1e-9),
                "{what}: residual of sphere {i}: gpu {a} cpu {b}"
            );
        }
    }
}

/// The CPU's colouring, grouped by colour: (colouring, sweep, sizes, starts).
fn colored(c: &Case, lists: &ContactLists<Dim3>) -> (Coloring, ColoredSweep, Vec<u32>, Vec<u32>) {
    let coloring = cpu::coloring::color_contacts(lists, &c.grains.inv_mass);
    let mut sweep = ColoredSweep::default();
    sweep.build(&lists.count, &lists.slots, lists.capacity, &coloring);
    let sizes: Vec<u32> = (0..coloring.colors as usize)
        .map(|k| (sweep.start[k + 1] - sweep.start[k]) as u32)
        .collect();
    let starts = bucket_starts(&sizes);
    (coloring, sweep, sizes, starts)
}

#[test]
fn coloring_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let (c, lists) = listed(31, K);
    let n = c.grains.len();
    let want = cpu::coloring::color_contacts(&lists, &c.grains.inv_mass);
    let k = coloring::Coloring::new(&ctx, &cfg());
    let (pb, count, slots, im) = (
        uni(&ctx, &step_params(&c)),
        buf(&ctx, &lists.count),
        buf(&ctx, &lists.slots),
        buf(&ctx, &c.grains.inv_mass),
    );
    let cb = ColorBuffers::new(&ctx, lists.slots.len());
    let named = [("params", &pb), ("count", &count), ("slots", &slots)];
    let init = (k.init).group(&ctx, &[&named[..], &[("color_out", &cb.color[0])][..]].concat());
    let rounds = [0, 1].map(|r| {
        let more = [
            ("inv_mass", &im),
            ("color_in", &cb.color[r]),
            ("color_out", &cb.color[1 - r]),
        ];
        k.round.group(&ctx, &[&named[..], &more[..]].concat())
    });
    let more = [("color_in", &cb.color[0]), ("color_stats", &cb.stats)];
    let counts = k.count.group(&ctx, &[&named[..], &more[..]].concat());
    run(&ctx, |ps| k.init.dispatch(ps, &init, n as u32));
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    let bytes = lists.slots.len() as u64 * 4;
    enc.copy_buffer_to_buffer(&cb.color[0], 0, &cb.color[1], 0, bytes);
    ctx.queue.submit([enc.finish()]);
    for batch in 0.. {
        assert!(batch < 100, "the colouring does not finish");
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&cb.stats, 0, None);
        ctx.queue.submit([enc.finish()]);
        run(&ctx, |ps| {
            for r in 0..coloring::ROUNDS_PER_CHECK {
                k.round.dispatch(ps, &rounds[(r % 2) as usize], n as u32);
            }
            k.count.dispatch(ps, &counts, n as u32);
        });
        let st: Vec<u32> = get(&ctx, &cb.stats, 3);
        if st[1] == 0 {
            assert_eq!((st[0], st[2]), (want.colors, want.overflow), "colours, overflow");
            break;
        }
    }
    let got: Vec<u32> = get(&ctx, &cb.color[0], lists.slots.len());
    for i in 0..n {
        for s in 0..lists.of(i).len() {
            assert_eq!(got[i * K + s], want.color[i * K + s], "sphere {i} slot {s}");
        }
    }
    // A crowded pile: many colours, several rounds.
    assert!(
        want.colors >= 8 && want.rounds >= 4,
        "{} colours, {} rounds",
        want.colors,
        want.rounds
    );
}

#[test]
fn colored_buckets_match_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let (c, lists) = listed(33, K);
    let n = c.grains.len();
    let (coloring, sweep, want_sizes, want_starts) = colored(&c, &lists);
    let kernels = Colored::new(&ctx, &cfg());
    let b = Pass::new(&ctx, &c.grains, &lists, &step_params(&c), &coloring.color);
    let bind = b.bindings();
    let (counts, scatter) = (
        kernels.bucket_count.group(&ctx, &bind.bucket_count()),
        kernels.bucket_scatter.group(&ctx, &bind.bucket_scatter()),
    );
    run(&ctx, |ps| kernels.bucket_count.dispatch(ps, &counts, n as u32));
    let colors = coloring.colors as usize;
    let sizes: Vec<u32> = get(&ctx, &b.buckets.size, colors);
    assert_eq!(sizes, want_sizes, "contacts per colour");
    assert_eq!(bucket_starts(&sizes), want_starts);
    write_pass_colors(&ctx, &pass_colors(&ctx), &b.buckets, &sizes);
    run(&ctx, |ps| kernels.bucket_scatter.dispatch(ps, &scatter, n as u32));
    let total = sweep.start[colors];
    let got: Vec<u32> = get(&ctx, &b.buckets.bucket, total);
    for k in 0..colors {
        let (a, e) = (sweep.start[k], sweep.start[k + 1]);
        let mut gpu_k = got[a..e].to_vec();
        gpu_k.sort_unstable();
        let mut cpu_k = sweep.slot[a..e].to_vec();
        cpu_k.sort_unstable();
        assert_eq!(gpu_k, cpu_k, "colour {k}");
    }
    assert!(total > 1000, "{total} contacts bucketed");
}

/// Every colour of the case's colouring, one `colored_solve` dispatch each
/// in order, with and without friction.
#[test]
fn colored_solve_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let (c, lists) = listed(35, K);
    let (g, p) = (&c.grains, step_params(&c));
    let n = g.len();
    let (coloring, sweep, sizes, starts) = colored(&c, &lists);
    let colors = sizes.len();
    let kernels = Colored::new(&ctx, &cfg());
    for friction in [false, true] {
        let (mut want, mut cpu_lists, bodies) = Solved::before(g, &lists);
        for k in 0..colors {
            let bucket = &sweep.slot[sweep.start[k]..sweep.start[k + 1]];
            let out = Moving::<Dim3> {
                vel: &mut want.vel,
                spin: &mut want.spin,
            };
            let (l, r, how) = (&mut cpu_lists, &mut want.residual, &visit(&p));
            if friction {
                cpu::colored::colored_solve::<Dim3, true>(l, &bodies, out, r, bucket, how);
            } else {
                cpu::colored::colored_solve::<Dim3, false>(l, &bodies, out, r, bucket, how);
            }
        }
        want.slots = cpu_lists.slots.clone();
        let b = Pass::new(&ctx, g, &lists, &p, &coloring.color);
        let f = usize::from(friction);
        let pass: Vec<wgpu::Buffer> = (0..colors)
            .map(|k| uni(&ctx, &[k as u32, starts[k], sizes[k], 0]))
            .collect();
        // The bucket as the CPU grouped it (the order inside a colour is free).
        ctx.queue
            .write_buffer(&b.buckets.bucket, 0, bytemuck::cast_slice(&sweep.slot));
        let groups: Vec<wgpu::BindGroup> = pass
            .iter()
            .map(|u| kernels.solve[f].group(&ctx, &b.bindings().solve(u)))
            .collect();
        run(&ctx, |ps| {
            for (group, &size) in groups.iter().zip(&sizes) {
                kernels.solve[f].dispatch(ps, group, size);
            }
        });
        let what = format!("colored_solve (friction {friction}, {colors} colours)");
        let got = Solved::read(&ctx, &b, n, K);
        got.assert_matches(&what, &want, K, &lists.count);
        let moved = want.vel.iter().zip(&g.vel).filter(|(a, b)| a != b).count();
        assert!(moved > 500, "{what}: {moved} spheres moved");
        let fixed_still = (0..n)
            .filter(|&i| g.inv_mass[i] == 0.0)
            .all(|i| got.vel[i] == g.vel[i] && got.spin[i] == g.ang_vel[i]);
        assert!(fixed_still, "{what}: a fixed sphere was written");
        let spun = want.spin.iter().zip(&g.ang_vel).filter(|(a, b)| a != b).count();
        if friction {
            assert!(spun > 500, "{what}: {spun} spins kicked");
            let capped = (want.slots.iter()).filter(|s| {
                let mu = if matches!(s.body(), Body::Grain(_)) {
                    p.mu
                } else {
                    p.mu_wall
                };
                s.impulse > 0.0 && Dim3::tangent_norm(s.impulse_t) >= 0.999 * mu * s.impulse
            });
            assert!(capped.count() > 50, "{what}: no tangent on the Coulomb disk's rim");
        } else {
            assert_eq!(spun, 0, "{what}: a frictionless pass turned a sphere");
        }
    }
}

/// Lists of 4 slots a sphere: full lists drop contacts, whose second
/// copies (orphans) only the overflow pass solves, serially.
#[test]
fn colored_overflow_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let cap = 4;
    let (c, lists) = listed(37, cap);
    let (g, p) = (&c.grains, step_params(&c));
    let n = g.len();
    let coloring = cpu::coloring::color_contacts(&lists, &g.inv_mass);
    assert!(coloring.overflow > 50, "{} contacts in the overflow", coloring.overflow);
    let kernels = Colored::new(&ctx, &config(cap));
    for friction in [false, true] {
        let (mut want, mut cpu_lists, bodies) = Solved::before(g, &lists);
        let out = Moving::<Dim3> {
            vel: &mut want.vel,
            spin: &mut want.spin,
        };
        let (l, col, r, how) = (&mut cpu_lists, &coloring.color, &mut want.residual, &visit(&p));
        if friction {
            cpu::colored::colored_overflow::<Dim3, true>(l, col, &bodies, out, r, how);
        } else {
            cpu::colored::colored_overflow::<Dim3, false>(l, col, &bodies, out, r, how);
        }
        want.slots = cpu_lists.slots.clone();
        let b = Pass::new(&ctx, g, &lists, &p, &coloring.color);
        let f = usize::from(friction);
        let group = kernels.overflow[f].group(&ctx, &b.bindings().overflow());
        run(&ctx, |ps| kernels.overflow[f].dispatch(ps, &group, 1));
        let what = format!("colored_overflow (friction {friction})");
        Solved::read(&ctx, &b, n, cap).assert_matches(&what, &want, cap, &lists.count);
        assert!(want.slots != lists.slots, "{what}: nothing solved");
    }
}

/// Random impulses in every copy: after the mirror each pair's second copy
/// holds its owner's normal impulse and the owner's tangent reversed, bit
/// for bit on both; wall contacts and owners are unchanged.
#[test]
fn colored_mirror_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let (c, mut lists) = listed(39, K);
    let n = c.grains.len();
    let mut rng = Rng::new(40);
    for s in &mut lists.slots {
        s.impulse = rng.f32(0.0, 1e-6);
        s.impulse_t = Dim3::carry_tangent(std::array::from_fn(|_| rng.f32(-1e-6, 1e-6)), s.normal);
    }
    let mut want = lists.clone();
    cpu::colored::colored_mirror(&want.count, &mut want.slots, K);
    let kernels = Colored::new(&ctx, &cfg());
    let b = Pass::new(&ctx, &c.grains, &lists, &step_params(&c), &[0u32]);
    let group = kernels.mirror.group(&ctx, &b.bindings().mirror());
    run(&ctx, |ps| kernels.mirror.dispatch(ps, &group, n as u32));
    let got: Vec<C3> = get(&ctx, &b.slots, n * K);
    let mut mirrored = 0;
    for i in 0..n {
        for s in 0..lists.of(i).len() {
            let (a, w) = (got[i * K + s], want.slots[i * K + s]);
            assert_eq!(
                (a.impulse, a.impulse_t),
                (w.impulse, w.impulse_t),
                "sphere {i} slot {s}"
            );
            let Body::Grain(j) = w.body() else {
                assert_eq!(w, lists.slots[i * K + s], "a wall contact of sphere {i} changed");
                continue;
            };
            if (j as usize) < i {
                let owner = want.of(j as usize).iter().find(|o| o.other == i as u32).unwrap();
                assert_eq!(w.impulse, owner.impulse);
                assert_eq!(w.impulse_t, owner.impulse_t.map(|t| -t));
                mirrored += 1;
            }
        }
    }
    assert!(mirrored > 500, "{mirrored} copies mirrored");
}
