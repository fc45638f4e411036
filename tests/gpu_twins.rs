//! The solver stages that had no `_matches_cpu` test of their own, each
//! against its CPU twin on the same random input (src/gpu/registry.rs names
//! these tests): `residual_max`, the three solver passes of `colored`
//! (`colored_solve`, `colored_overflow`, `colored_mirror`), `uzawa_contact`,
//! the three APGD passes (`apgd_gather`, `apgd_contact`, `apgd_momentum`),
//! their frictional variants (`apgd_gather_friction`, `apgd_contact_friction`,
//! docs/nscd.md#coulomb-friction-and-rotation) and the split push-out's `predict_gap`.
//!
//! Inputs: random piles with sizes that are not multiples of the workgroup
//! size (1,531 grains), no grain, one grain, every grain in one cell (K = 96:
//! more colours than MAX_COLORS, so the overflow colour is used), and a dense
//! pile with K = 4 (full lists: orphaned copies). Every ninety-seventh grain
//! is fixed, except where that would give a contact with W = 0 (two fixed
//! bodies: no solver visits it on either side, and P - t/W is not a number).
//!
//! Tolerances. Integer outputs (`colored_mirror`'s copies, `residual_max`'s
//! largest residual, which is one of its inputs) are exact. The float stages
//! evaluate the same f32 expressions in the same order as their twins; only
//! fused multiply-adds can differ (one rounding instead of two), so they agree
//! within [`REL`] relative (errors carry from colour to colour through the
//! velocities) plus an absolute floor from where the arithmetic cancels:
//! P' = P - t/W keeps the error of P (one ulp of the 1e-4 N s impulses is
//! 7e-12 N s), which the velocity update multiplies by im (up to 510 1/kg for
//! a 0.5 mm grain of 2500 kg/m^2), the coloured residual |dP| W by W (up to
//! 1,020 1/kg) and Uzawa's |P' - P| / rho by 1/rho = im_a N_a + im_b N_b (up
//! to 1e5 1/kg with 96 contacts per grain in the one-cell pile). `residual_max`'s |v|^2 is one multiply-add: 1e-6.
//! On lavapipe every output is bit-identical to the twin's.

mod gpu_common;

use gpu_common::{Rng, buf, close, context, get, run, uni};
use hourglass::cpu;
use hourglass::cpu::colored::ColoredSweep;
use hourglass::gpu::buffers::storage_zeroed;
use hourglass::gpu::colored::{Buckets, Colored, ColoredBindings, bucket_starts};
use hourglass::gpu::solver::step_fraction;
use hourglass::gpu::{
    GpuContext, Kernel, Params, STAT_RESIDUAL, STAT_SPEED_HIST, STAT_SPEED2, STAT_WORDS, ShaderConfig, Stage, apgd,
};
use hourglass::model::{Body, Contact, ContactLists, Grains, Grid, OVERFLOW, UZAWA_STEP, Walls};

const ALERT: f32 = 0.003;

/// Relative tolerance of the float outputs (a few hundred f32 roundings).
const REL: f32 = 1e-5;
/// Absolute floors, each about ten times the error bound of the module docs:
/// impulse, N s (1e-6 of the impulses); velocity, m/s (7e-12 N s x 510 1/kg
/// per update, up to 96 updates); coloured residual, m/s (7e-12 N s x 1,020
/// 1/kg); Uzawa residual, m/s (7e-12 N s x 1e5 1/kg).
const IMPULSE_ABS: f32 = 1e-10;
const VEL_ABS: f32 = 1e-6;
const COLORED_RESIDUAL_ABS: f32 = 1e-7;
const UZAWA_RESIDUAL_ABS: f32 = 1e-5;

/// A random pile and its contact lists (CPU detection), with random impulses.
struct Pile {
    name: &'static str,
    grains: Grains,
    grid: Grid,
    lists: ContactLists,
    k: usize,
}

fn pile(name: &'static str, n: usize, side: f32, r: (f32, f32), k: usize, seed: u64) -> Pile {
    let mut rng = Rng::new(seed);
    let pos = (0..n).map(|_| [rng.f32(0.0, side), rng.f32(0.0, side)]).collect();
    let vel = (0..n).map(|_| [rng.f32(-1.0, 1.0), rng.f32(-1.0, 1.0)]).collect();
    let radius = (0..n).map(|_| rng.f32(r.0, r.1)).collect();
    let mut grains = Grains::new(pos, vel, radius, 2500.0);
    let s = f64::from(side);
    let walls = Walls::new(&[
        [[0.0, 0.0], [s, 0.0]],
        [[s, 0.0], [s, s]],
        [[s, s], [0.0, s]],
        [[0.0, s], [0.0, 0.0]],
        [[0.2 * s, 0.5 * s], [0.6 * s, 0.3 * s]], // a free-standing baffle: convex ends
    ]);
    let grid = Grid::covering(walls.bounding_box(), 2.0 * r.1 + ALERT).unwrap();
    let detect = |g: &Grains| cpu::CpuStepper::new(grid, k).detect(g, &walls, ALERT).clone();
    let movable = grains.inv_mass.clone();
    for i in (0..n).step_by(97) {
        grains.inv_mass[i] = 0.0;
    }
    // A fixed grain touching a wall or another fixed grain moves again (W = 0 otherwise).
    let lists = detect(&grains);
    for (i, (im, &m)) in grains.inv_mass.iter_mut().zip(&movable).enumerate() {
        if lists.of(i).iter().any(|c| c.inv_mass_sum == 0.0) {
            *im = m;
        }
    }
    let mut lists = detect(&grains);
    assert!((0..n).all(|i| lists.of(i).iter().all(|c| c.inv_mass_sum > 0.0)));
    for c in lists.slots.iter_mut() {
        c.impulse = rng.f32(0.0, 1e-4);
    }
    if name == MOVING {
        // Moving walls (model::motion): every wall contact with its wall's velocity.
        for c in lists.slots.iter_mut().filter(|c| !matches!(c.body(), Body::Grain(_))) {
            c.wall_vel = [rng.f32(-0.5, 0.5), rng.f32(-0.5, 0.5)];
        }
    }
    if name == BOUNCING {
        // Restitution (docs/nscd.md#restitution): approaching contacts get a bounce velocity.
        cpu::warm_start::bounce(&lists.count, &mut lists.slots, k, &grains.vel, 0.7, 1e-3);
        assert!(lists.slots.iter().any(|c| c.bounce > 0.0));
    }
    Pile {
        name,
        grains,
        grid,
        lists,
        k,
    }
}

fn piles() -> Vec<Pile> {
    vec![
        pile("empty", 0, 0.1, (0.002, 0.003), 16, 1),
        pile("one grain", 1, 0.008, (0.002, 0.003), 16, 2),
        pile("1531 grains", 1531, 0.2, (0.002, 0.004), 16, 3),
        // Every grain in one cell (cell side 0.009 m): up to 79 grain contacts
        // each, and more than MAX_COLORS colours (K = 96 > 32): the overflow colour.
        pile("one cell", 80, 0.0085, (0.0005, 0.003), 96, 4),
        // A dense cluster with K = 4: most lists are full, so copies are orphaned.
        pile("overflow K=4", 300, 0.03, (0.001, 0.002), 4, 5),
        pile(BOUNCING, 1531, 0.2, (0.002, 0.004), 16, 6),
        pile(MOVING, 1531, 0.2, (0.002, 0.004), 16, 7),
    ]
}

/// The pile whose wall contacts carry a moving wall's velocity (`Contact::wall_vel`).
const MOVING: &str = "moving walls";

/// The pile whose lists carry bounce velocities (restitution e = 0.7).
const BOUNCING: &str = "bouncing e=0.7";

fn params(p: &Pile) -> Params {
    let mut q = Params::new(&p.grid, p.grains.len(), 5, 6);
    q.dt = 1e-3;
    q.inv_dt = 1.0 / q.dt;
    q.beta = 0.2;
    q.slop = 5e-6;
    q
}

fn cfg(p: &Pile) -> ShaderConfig {
    ShaderConfig::new(p.k as u32)
}

fn assert_impulses(what: &str, gpu: &[Contact], cpu: &ContactLists) {
    for i in 0..cpu.count.len() {
        for s in 0..cpu.of(i).len() {
            let (a, b) = (gpu[i * cpu.capacity + s].impulse, cpu.of(i)[s].impulse);
            assert!(
                close(a, b, REL, IMPULSE_ABS),
                "{what}: grain {i} slot {s}: gpu {a} cpu {b}"
            );
        }
    }
}

fn assert_vel(what: &str, gpu: &[[f32; 2]], cpu: &[[f32; 2]]) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: length");
    for (i, (a, b)) in gpu.iter().zip(cpu).enumerate() {
        let ok = close(a[0], b[0], REL, VEL_ABS) && close(a[1], b[1], REL, VEL_ABS);
        assert!(ok, "{what}: velocity of grain {i}: gpu {a:?} cpu {b:?}");
    }
}

fn assert_residual(what: &str, gpu_bits: &[u32], cpu: &[f32]) {
    assert_eq!(gpu_bits.len(), cpu.len(), "{what}: length");
    for (i, (&a, &b)) in gpu_bits.iter().zip(cpu).enumerate() {
        let a = f32::from_bits(a);
        assert!(
            close(a, b, REL, COLORED_RESIDUAL_ABS),
            "{what}: residual of grain {i}: gpu {a} cpu {b}"
        );
    }
}

#[test]
fn residual_max_matches_cpu() {
    let Some(ctx) = context() else { return };
    let mut rng = Rng::new(7);
    for n in [0usize, 1, 255, 256, 257, 1531, 70_001] {
        for zeros in [false, true] {
            let mut residual: Vec<f32> = (0..n).map(|_| rng.f32(0.0, 3.0)).collect();
            let mut vel: Vec<[f32; 2]> = (0..n).map(|_| [rng.f32(-2.0, 2.0), rng.f32(-2.0, 2.0)]).collect();
            if zeros {
                // All at rest, -0.0 included: the largest is +0.0 on both sides.
                residual
                    .iter_mut()
                    .enumerate()
                    .for_each(|(i, r)| *r = if i % 2 == 0 { -0.0 } else { 0.0 });
                vel.iter_mut().for_each(|v| *v = [-0.0, 0.0]);
            } else if n > 2 {
                // The largest of each at the very end (the last, partial workgroup).
                residual[n - 1] = 5.0;
                vel[n - 1] = [3.0, -3.0];
            }
            // No squared speed within 64 ulps of a power of two, where a fused
            // multiply-add on the GPU may bin it an octave away.
            for v in vel.iter_mut() {
                let v2 = v[0] * v[0] + v[1] * v[1];
                let m = v2.to_bits() & 0x7f_ffff;
                if v2 != 0.0 && !(64..=0x7f_ffff - 64).contains(&m) {
                    *v = [0.3, -0.5];
                }
            }
            let (want_r, want_s) = cpu::residual_max::residual_max(&residual, &vel);
            let want_hist = hourglass::model::speeds::histogram(&vel);
            let k = Kernel::new(&ctx, &ShaderConfig::new(16), Stage::ResidualMax, "main");
            let p = Params {
                n_grains: n as u32,
                ..Params::default()
            };
            // The other words of stats are left alone.
            let mut words = vec![0u32; STAT_WORDS as usize];
            words.iter_mut().enumerate().for_each(|(i, w)| *w = 1000 + i as u32);
            words[STAT_RESIDUAL as usize] = 0;
            words[STAT_SPEED2 as usize] = 0;
            let hist = STAT_SPEED_HIST as usize..STAT_SPEED_HIST as usize + want_hist.len();
            words[hist.clone()].fill(0);
            let (pb, rb, vb, stats) = (uni(&ctx, &p), buf(&ctx, &residual), buf(&ctx, &vel), buf(&ctx, &words));
            let g = k.group(
                &ctx,
                &[("params", &pb), ("residual", &rb), ("vel", &vb), ("stats", &stats)],
            );
            run(&ctx, |ps| k.dispatch(ps, &g, n as u32));
            let got = get::<u32>(&ctx, &stats, STAT_WORDS as usize);
            let (r, s) = (
                f32::from_bits(got[STAT_RESIDUAL as usize]),
                f32::from_bits(got[STAT_SPEED2 as usize]),
            );
            assert_eq!(r, want_r, "n = {n}: largest residual");
            assert!(
                close(s, want_s, 1e-6, 0.0),
                "n = {n}: largest |v|^2: gpu {s} cpu {want_s}"
            );
            assert_eq!(got[hist.clone()], want_hist[..], "n = {n}: the speed histogram");
            assert_eq!(got[hist.clone()].iter().sum::<u32>(), n as u32);
            for (i, w) in got.iter().enumerate() {
                if i != STAT_RESIDUAL as usize && i != STAT_SPEED2 as usize && !hist.contains(&i) {
                    assert_eq!(*w, words[i], "n = {n}: stats[{i}] must be left alone");
                }
            }
            if n > 2 && !zeros {
                assert_eq!((want_r, want_s), (5.0, 18.0));
            }
        }
    }
}

/// The buffers of the coloured passes of a pile, on the GPU.
struct ColoredGpu {
    pb: wgpu::Buffer,
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

impl ColoredGpu {
    fn new(ctx: &GpuContext, p: &Pile, color: &[u32], bucket: &[u32]) -> Self {
        let n = p.grains.len();
        ColoredGpu {
            pb: uni(ctx, &params(p)),
            count: buf(ctx, &p.lists.count),
            slots: buf(ctx, &p.lists.slots),
            color: buf(ctx, color),
            inv_mass: buf(ctx, &p.grains.inv_mass),
            vel: buf(ctx, &p.grains.vel),
            residual: storage_zeroed::<u32>(ctx, "hourglass.test.residual", n),
            buckets: Buckets {
                bucket: buf(ctx, bucket),
                size: storage_zeroed::<u32>(ctx, "hourglass.test", 64),
                cursor: storage_zeroed::<u32>(ctx, "hourglass.test", 64),
            },
            radius: buf(ctx, &p.grains.radius),
            spin: buf(ctx, &vec![0.0f32; n]),
            relax: hourglass::gpu::colored::relax(ctx, TWIN_SOR),
        }
    }

    /// The buffers of the frictional passes: `f`'s lists, spins and params.
    fn friction(ctx: &GpuContext, p: &Pile, f: &FrictionInput, color: &[u32], bucket: &[u32]) -> Self {
        ColoredGpu {
            pb: uni(ctx, &f.params),
            slots: buf(ctx, &f.lists.slots),
            spin: buf(ctx, &f.spin),
            ..ColoredGpu::new(ctx, p, color, bucket)
        }
    }

    fn bindings(&self) -> ColoredBindings<'_> {
        ColoredBindings {
            params: &self.pb,
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

    /// (slots, vel, residual bits) read back.
    fn read(&self, ctx: &GpuContext, p: &Pile) -> (Vec<Contact>, Vec<[f32; 2]>, Vec<u32>) {
        let n = p.grains.len();
        (
            get(ctx, &self.slots, n * p.k),
            get(ctx, &self.vel, n),
            get(ctx, &self.residual, n),
        )
    }
}

/// Every colour of the pile's colouring, one `colored_solve` dispatch each, in order.
#[test]
fn colored_solve_matches_cpu() {
    let Some(ctx) = context() else { return };
    for p in piles() {
        let n = p.grains.len();
        let q = params(&p);
        let coloring = cpu::coloring::color_contacts(&p.lists, &p.grains.inv_mass);
        let mut sweep = ColoredSweep::default();
        sweep.build(&p.lists.count, &p.lists.slots, p.k, &coloring);
        let colors = coloring.colors as usize;
        let sizes: Vec<u32> = (0..colors)
            .map(|c| (sweep.start[c + 1] - sweep.start[c]) as u32)
            .collect();
        let starts = bucket_starts(&sizes);
        // CPU: each colour's slice of the bucket.
        let (mut want, mut want_v, mut want_r) = (p.lists.clone(), p.grains.vel.clone(), vec![0.0f32; n]);
        for c in 0..colors {
            let bucket = &sweep.slot[sweep.start[c]..sweep.start[c + 1]];
            let bodies = bodies(&p.grains.inv_mass, &[]);
            let out = moving(&mut want_v, &mut []);
            cpu::colored::colored_solve::<_, false>(&mut want, &bodies, out, &mut want_r, bucket, &visit(&q));
        }
        // GPU: the same bucket, one pass uniform per colour.
        let kernels = Colored::new(&ctx, &cfg(&p));
        let g = ColoredGpu::new(&ctx, &p, &coloring.color, &sweep.slot);
        let pass: Vec<wgpu::Buffer> = (0..colors)
            .map(|c| uni(&ctx, &[c as u32, starts[c], sizes[c], 0]))
            .collect();
        let groups: Vec<wgpu::BindGroup> = pass
            .iter()
            .map(|u| kernels.solve[0].group(&ctx, &g.bindings().solve(u)))
            .collect();
        run(&ctx, |ps| {
            for (group, &size) in groups.iter().zip(&sizes) {
                kernels.solve[0].dispatch(ps, group, size);
            }
        });
        let (slots, vel, residual) = g.read(&ctx, &p);
        let what = format!("{}: colored_solve ({colors} colours)", p.name);
        assert_impulses(&what, &slots, &want);
        assert_vel(&what, &vel, &want_v);
        assert_residual(&what, &residual, &want_r);
        // The non-trivial piles change something.
        if n > 10 {
            assert!(
                want.slots != p.lists.slots && want_v != p.grains.vel,
                "{what}: nothing solved"
            );
        }
        println!("{what}: {} contacts bucketed", sweep.start[colors]);
    }
}

#[test]
fn colored_overflow_matches_cpu() {
    let Some(ctx) = context() else { return };
    let mut solved_any = 0;
    for p in piles() {
        let n = p.grains.len();
        let q = params(&p);
        let coloring = cpu::coloring::color_contacts(&p.lists, &p.grains.inv_mass);
        let (mut want, mut want_v, mut want_r) = (p.lists.clone(), p.grains.vel.clone(), vec![0.0f32; n]);
        let (bodies, out) = (bodies(&p.grains.inv_mass, &[]), moving(&mut want_v, &mut []));
        cpu::colored::colored_overflow::<_, false>(&mut want, &coloring.color, &bodies, out, &mut want_r, &visit(&q));
        let kernels = Colored::new(&ctx, &cfg(&p));
        let g = ColoredGpu::new(&ctx, &p, &coloring.color, &[0u32]);
        let group = kernels.overflow[0].group(&ctx, &g.bindings().overflow());
        run(&ctx, |ps| kernels.overflow[0].dispatch(ps, &group, 1));
        let (slots, vel, residual) = g.read(&ctx, &p);
        let what = format!("{}: colored_overflow ({} overflow contacts)", p.name, coloring.overflow);
        assert_impulses(&what, &slots, &want);
        assert_vel(&what, &vel, &want_v);
        assert_residual(&what, &residual, &want_r);
        let overflow_slots = coloring.color.iter().filter(|&&c| c == OVERFLOW).count();
        if coloring.overflow > 0 {
            solved_any += 1;
            assert!(want.slots != p.lists.slots, "{what}: nothing solved");
        }
        println!("{what}, {overflow_slots} slots in the overflow colour");
    }
    // The 1531-grain, one-cell and K = 4 piles use the overflow colour.
    assert!(solved_any >= 3, "only {solved_any} piles exercise the overflow pass");
}

#[test]
fn colored_mirror_matches_cpu() {
    let Some(ctx) = context() else { return };
    for p in piles() {
        let n = p.grains.len();
        // Random impulses, normal and tangential (in the cone, as a
        // frictional sweep leaves them): every non-owned copy differs from
        // its owner before the mirror.
        let mut before = p.lists.clone();
        let mut rng = Rng::new(31);
        for c in before.slots.iter_mut() {
            c.impulse_t = rng.f32(-0.5, 0.5) * c.impulse;
        }
        let mut want = before.clone();
        cpu::colored::colored_mirror(&want.count, &mut want.slots, p.k);
        let kernels = Colored::new(&ctx, &cfg(&p));
        let (pb, count, slots) = (
            uni(&ctx, &params(&p)),
            buf(&ctx, &before.count),
            buf(&ctx, &before.slots),
        );
        let group = kernels
            .mirror
            .group(&ctx, &[("params", &pb), ("count", &count), ("slots", &slots)]);
        run(&ctx, |ps| kernels.mirror.dispatch(ps, &group, n as u32));
        let got: Vec<Contact> = get(&ctx, &slots, n * p.k);
        for i in 0..n {
            let r = i * p.k..i * p.k + want.of(i).len();
            assert_eq!(&got[r.clone()], &want.slots[r], "{}: colored_mirror grain {i}", p.name);
        }
        if n > 10 {
            assert!(want.slots != before.slots, "{}: nothing mirrored", p.name);
            // The tangential impulse is mirrored too: some copy took its
            // owner's nonzero value (the assert_eq above holds the GPU to it).
            let mirrored_t = (0..n)
                .flat_map(|i| (0..want.of(i).len()).map(move |s| i * p.k + s))
                .filter(|&at| want.slots[at].impulse_t != before.slots[at].impulse_t)
                .filter(|&at| want.slots[at].impulse_t != 0.0)
                .count();
            assert!(mirrored_t > 0, "{}: no tangential impulse mirrored", p.name);
        }
    }
}

#[test]
fn uzawa_contact_matches_cpu() {
    let Some(ctx) = context() else { return };
    for p in piles() {
        let n = p.grains.len();
        let q = params(&p);
        // The solver's step fraction, and a larger one still in (0, 2).
        for s in [UZAWA_STEP, 1.7] {
            let mut want = p.lists.clone();
            let mut want_r = vec![-1.0f32; n];
            let (vel, im) = (&p.grains.vel, &p.grains.inv_mass);
            cpu::uzawa::uzawa_contact(&mut want, vel, im, &mut want_r, &projection(&q), s);
            let k = Kernel::new(&ctx, &cfg(&p), Stage::Uzawa, "uzawa_contact");
            let (pb, count, slots) = (uni(&ctx, &q), buf(&ctx, &p.lists.count), buf(&ctx, &p.lists.slots));
            let (vel, im) = (buf(&ctx, &p.grains.vel), buf(&ctx, &p.grains.inv_mass));
            let residual = buf(&ctx, &vec![-1.0f32; n]); // every word must be written
            let step = step_fraction(&ctx, s);
            let b = [
                ("params", &pb),
                ("count", &count),
                ("slots", &slots),
                ("vel", &vel),
                ("inv_mass", &im),
                ("residual", &residual),
                ("step_fraction", &step),
            ];
            let g = k.group(&ctx, &b);
            run(&ctx, |ps| k.dispatch(ps, &g, n as u32));
            let what = format!("{}: uzawa_contact (s = {s})", p.name);
            assert_impulses(&what, &get(&ctx, &slots, n * p.k), &want);
            let got_r: Vec<f32> = get(&ctx, &residual, n);
            for (i, (&a, &b)) in got_r.iter().zip(&want_r).enumerate() {
                assert!(
                    close(a, b, REL, UZAWA_RESIDUAL_ABS),
                    "{what}: residual of grain {i}: gpu {a} cpu {b}"
                );
                assert!(b >= 0.0, "{what}: residual of grain {i} not written");
            }
            if n > 10 {
                assert!(want.slots != p.lists.slots, "{what}: nothing projected");
            }
        }
    }
}

/// `predict_gap`: the split push-out's copy of the lists, d' = d + dt u and P = 0,
/// into a buffer that already holds other data (the GPU's scratch lists are
/// last step's). Listed slots only: the others are not the stage's output.
/// `other`, `inv_mass_sum`, `normal` and the zero impulse are copies (exact);
/// the gap is one multiply-add, d + dt u, so a fused one may differ by one
/// ulp of d' (|d'| < 1e-2 m here: 1e-9 m is ten times that). On lavapipe it
/// is bit-identical.
#[test]
fn predict_gap_matches_cpu() {
    let Some(ctx) = context() else { return };
    for p in piles() {
        let n = p.grains.len();
        let q = params(&p);
        let mut want = Vec::new();
        cpu::correct::predict_gap(&p.lists.count, &p.lists.slots, p.k, &p.grains.vel, q.dt, &mut want);
        let k = Kernel::new(&ctx, &cfg(&p), Stage::PredictGap, "main");
        let (pb, count, slots) = (uni(&ctx, &q), buf(&ctx, &p.lists.count), buf(&ctx, &p.lists.slots));
        let vel = buf(&ctx, &p.grains.vel);
        // Stale scratch: every listed slot must be overwritten.
        let stale: Vec<Contact> = p
            .lists
            .slots
            .iter()
            .map(|c| Contact {
                gap: 7.0,
                impulse: 3.0,
                ..*c
            })
            .collect();
        let out = buf(&ctx, &stale);
        let g = k.group(
            &ctx,
            &[
                ("params", &pb),
                ("count", &count),
                ("slots", &slots),
                ("vel", &vel),
                ("out", &out),
            ],
        );
        run(&ctx, |ps| k.dispatch(ps, &g, n as u32));
        let got: Vec<Contact> = get(&ctx, &out, n * p.k);
        let mut moved = false;
        for i in 0..n {
            for s in 0..p.lists.of(i).len() {
                let (a, b) = (got[i * p.k + s], want[i * p.k + s]);
                let what = format!("{}: predict_gap: grain {i} slot {s}: gpu {a:?} cpu {b:?}", p.name);
                assert_eq!(
                    (a.other, a.inv_mass_sum, a.normal),
                    (b.other, b.inv_mass_sum, b.normal),
                    "{what}"
                );
                assert_eq!((a.impulse, b.impulse), (0.0, 0.0), "{what}");
                // The correction only pushes out: no bounce (restitution).
                assert_eq!((a.bounce, b.bounce), (0.0, 0.0), "{what}");
                // A moving wall has moved with the step: the copy sees it still.
                assert_eq!((a.wall_vel, b.wall_vel), ([0.0; 2], [0.0; 2]), "{what}");
                assert!(close(a.gap, b.gap, 0.0, 1e-9), "{what}");
                moved |= b.gap != p.lists.slots[i * p.k + s].gap;
            }
        }
        if n > 10 {
            assert!(moved, "{}: predict_gap changed no gap", p.name);
        }
    }
}

/// Random previous impulses Q of a pile's slots (one per slot, listed or not).
fn apgd_prev(p: &Pile, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..p.lists.slots.len()).map(|_| rng.f32(0.0, 1e-4)).collect()
}

/// The momentum states the APGD stages are fed: none (the first iteration),
/// a large theta (k = 7: 0.7), so that y = P + theta (P - Q) matters, and
/// the same with a largest residual already gathered (by another
/// workgroup), which `apgd_contact` must raise, not overwrite.
const APGD_STATES: [[f32; 5]; 3] = [
    hourglass::model::APGD_START,
    [0.7, 7.0, 0.25, 0.0, 0.5],
    [0.7, 7.0, 0.25, 1e-9, 0.5],
];

fn apgd_buffers(ctx: &GpuContext, prev: &[f32], state: &[f32; 5]) -> apgd::ApgdBuffers {
    apgd::ApgdBuffers {
        prev: buf(ctx, prev),
        prev_t: buf(ctx, &vec![0.0f32; prev.len()]),
        state: buf(ctx, state),
    }
}

/// `apgd_gather`: the velocities of y = P + theta (P - Q) (within the
/// velocity floor of `jacobi_gather`; on lavapipe bit-identical).
#[test]
fn apgd_gather_matches_cpu() {
    let Some(ctx) = context() else { return };
    for p in piles() {
        let n = p.grains.len();
        let q = params(&p);
        let prev = apgd_prev(&p, 11);
        let mut rng = Rng::new(12);
        let vel_free: Vec<[f32; 2]> = (0..n).map(|_| [rng.f32(-1.0, 1.0), rng.f32(-1.0, 1.0)]).collect();
        for state in APGD_STATES {
            let mut want = vec![[0.0f32; 2]; n];
            let free = free(&vel_free, &p.grains.inv_mass, &[], &[]);
            cpu::apgd::apgd_gather::<_, false>(&p.lists, (&prev, &[]), &free, moving(&mut want, &mut []), &state);
            let k = apgd::Apgd::new(&ctx, &cfg(&p));
            let bufs = apgd_buffers(&ctx, &prev, &state);
            let (pb, count, slots) = (uni(&ctx, &q), buf(&ctx, &p.lists.count), buf(&ctx, &p.lists.slots));
            let (vf, im) = (buf(&ctx, &vel_free), buf(&ctx, &p.grains.inv_mass));
            let vel = buf(&ctx, &vec![[7.0f32; 2]; n]); // every word must be written
            let residual = buf(&ctx, &vec![0.0f32; n]);
            let b = apgd::ApgdBindings {
                params: &pb,
                count: &count,
                slots: &slots,
                vel_free: &vf,
                inv_mass: &im,
                vel: &vel,
                residual: &residual,
                bufs: &bufs,
                spin_free: &im,
                radius: &im,
                spin: &buf(&ctx, &[0.0f32; 4]), // the frictional groups are not run
            };
            let g = k.groups(&ctx, &b);
            run(&ctx, |ps| k.gather[0].dispatch(ps, &g.gather[0], n as u32));
            let what = format!("{}: apgd_gather (theta = {})", p.name, state[0]);
            assert_vel(&what, &get(&ctx, &vel, n), &want);
        }
    }
}

/// `apgd_contact`: P' = max(0, y - omega t / W) at the given velocities, Q' =
/// P (exact copies), and each grain's largest |P' - y| W / omega.
#[test]
fn apgd_contact_matches_cpu() {
    let Some(ctx) = context() else { return };
    for p in piles() {
        let n = p.grains.len();
        let mut q = params(&p);
        q.omega = 0.5; // the scene's default (Params::new leaves 0)
        let prev0 = apgd_prev(&p, 13);
        for state in APGD_STATES {
            let mut want = p.lists.clone();
            let mut want_prev = prev0.clone();
            let mut want_r = vec![-1.0f32; n];
            let mut want_state = state;
            cpu::apgd::apgd_contact::<_, false>(
                &mut want,
                (&mut want_prev, &mut []),
                &p.grains.vel,
                &mut want_r,
                &mut want_state,
                &cpu::jacobi::Friction::NONE,
                &projection(&q),
            );
            let k = apgd::Apgd::new(&ctx, &cfg(&p));
            let bufs = apgd_buffers(&ctx, &prev0, &state);
            let (pb, count, slots) = (uni(&ctx, &q), buf(&ctx, &p.lists.count), buf(&ctx, &p.lists.slots));
            let (vf, im, vel) = (
                buf(&ctx, &p.grains.vel),
                buf(&ctx, &p.grains.inv_mass),
                buf(&ctx, &p.grains.vel),
            );
            let residual = buf(&ctx, &vec![-1.0f32; n]); // every word must be written
            let b = apgd::ApgdBindings {
                params: &pb,
                count: &count,
                slots: &slots,
                vel_free: &vf,
                inv_mass: &im,
                vel: &vel,
                residual: &residual,
                bufs: &bufs,
                spin_free: &im,
                radius: &im,
                spin: &buf(&ctx, &[0.0f32; 4]), // the frictional groups are not run
            };
            let g = k.groups(&ctx, &b);
            run(&ctx, |ps| k.contact[0].dispatch(ps, &g.contact[0], n as u32));
            let what = format!("{}: apgd_contact (theta = {})", p.name, state[0]);
            assert_impulses(&what, &get(&ctx, &slots, n * p.k), &want);
            let got_prev: Vec<f32> = get(&ctx, &bufs.prev, n * p.k);
            for i in 0..n {
                for s in 0..p.lists.of(i).len() {
                    let at = i * p.k + s;
                    assert_eq!(
                        got_prev[at], want_prev[at],
                        "{what}: previous impulse of grain {i} slot {s}"
                    );
                    assert_eq!(want_prev[at], p.lists.slots[at].impulse, "{what}: Q' = P");
                }
            }
            let got_r: Vec<f32> = get(&ctx, &residual, n);
            for (i, (&a, &b)) in got_r.iter().zip(&want_r).enumerate() {
                assert!(
                    close(a, b, REL, VEL_ABS),
                    "{what}: residual of grain {i}: gpu {a} cpu {b}"
                );
                assert!(b >= 0.0, "{what}: residual of grain {i} not written");
            }
            assert_worst(&what, &get(&ctx, &bufs.state, 5), &got_r, &state, &want_state);
            if n > 10 {
                assert!(want.slots != p.lists.slots, "{what}: nothing projected");
            }
        }
    }
}

/// The largest residual `apgd_contact` leaves in the momentum state: on the
/// GPU the largest of the incoming one and the GPU's residuals, exactly
/// (gathered by an atomic max per workgroup: 6 workgroups of 256 at 1,531
/// grains, the last partial), and within the residuals' tolerance of the CPU's.
fn assert_worst(what: &str, got_state: &[f32], got_r: &[f32], state: &[f32; 5], want_state: &[f32; 5]) {
    let largest = got_r.iter().copied().fold(state[3], f32::max);
    assert_eq!(got_state[3], largest, "{what}: the largest residual in the state");
    assert!(
        close(got_state[3], want_state[3], REL, VEL_ABS),
        "{what}: largest residual gpu {} cpu {}",
        got_state[3],
        want_state[3]
    );
    assert_eq!(got_state[..3], want_state[..3], "{what}: theta, k and r_prev untouched");
    assert_eq!(
        got_state[4], want_state[4],
        "{what}: the run's first residual untouched"
    );
}

/// `apgd_momentum`: from the iteration's largest residual (left in the state
/// by `apgd_contact`), the restart (k = 0, theta = 0) when it grew after
/// `APGD_RESTART_AGE` iterations of momentum or above the residual the run
/// began at, and k + 1, theta = k / (k + 3) otherwise (one division: within
/// 1e-6 relative; on lavapipe bit-identical); the largest residual is taken
/// and cleared, and becomes the run's first when a run begins.
#[test]
fn apgd_momentum_matches_cpu() {
    let Some(ctx) = context() else { return };
    let age = hourglass::model::APGD_RESTART_AGE;
    // (state, the k and the run's first residual it leads to).
    let states = [
        // Grew at the age: restart.
        ([0.8, age, 1.0, 2.0, 9.0], 0.0, 2.0),
        // Grew younger, still under the run's start: the momentum stays.
        ([0.5, 3.0, 1.0, 5.0, 9.0], 4.0, 9.0),
        // Grew younger, above the run's start: restart.
        ([0.5, 3.0, 1.0, 5.0, 4.0], 0.0, 5.0),
        // Shrank: k + 1, young or at the age.
        ([0.5, 3.0, 6.0, 5.0, 9.0], 4.0, 9.0),
        ([0.8, age, 6.0, 5.0, 9.0], age + 1.0, 9.0),
        // Grew right after a restart: restart again, from the new residual.
        ([0.0, 0.0, 1.0, 2.0, 1.0], 0.0, 2.0),
        // The iteration after a restart: the run begins at its residual.
        ([0.0, 0.0, 6.0, 5.0, 6.0], 1.0, 5.0),
        // The start of a step (no restart), and nothing gathered at all.
        ([0.0, 0.0, f32::MAX, 2.5e-3, f32::MAX], 1.0, 2.5e-3),
        (hourglass::model::APGD_START, 1.0, 0.0),
    ];
    for (state, k_next, r_run) in states {
        let mut want = state;
        let r = cpu::apgd::apgd_momentum(&mut want);
        assert_eq!(r, state[3]);
        assert_eq!(
            (want[1], want[4]),
            (k_next, r_run),
            "from {state:?}: k and the run's start on the CPU"
        );
        let k = apgd::Apgd::new(&ctx, &ShaderConfig::new(16));
        let mut q = Params::new(&Grid::covering([0.0, 0.0, 1.0, 1.0], 0.1).unwrap(), 1531, 5, 6);
        q.omega = 0.5;
        let pb = uni(&ctx, &q);
        let bufs = apgd_buffers(&ctx, &[0.0f32], &state);
        let dummy = buf(&ctx, &[0u32; 4]);
        let b = apgd::ApgdBindings {
            params: &pb,
            count: &dummy,
            slots: &dummy,
            vel_free: &dummy,
            inv_mass: &dummy,
            vel: &dummy,
            residual: &dummy,
            bufs: &bufs,
            spin_free: &dummy,
            radius: &dummy,
            spin: &dummy,
        };
        let g = k.groups(&ctx, &b);
        run(&ctx, |ps| k.momentum.dispatch(ps, &g.momentum, 1));
        let got: Vec<f32> = get(&ctx, &bufs.state, 5);
        let what = format!("apgd_momentum from {state:?}");
        assert_eq!(got[2], r, "{what}: largest residual");
        assert_eq!(got[1], want[1], "{what}: k");
        assert_eq!(got[4], want[4], "{what}: the residual the run began at");
        assert_eq!(got[3].to_bits(), 0, "{what}: the largest residual is cleared");
        assert_eq!(want[3].to_bits(), 0, "{what}: cleared on the CPU");
        assert!(
            close(got[0], want[0], 1e-6, 0.0),
            "{what}: theta gpu {} cpu {}",
            got[0],
            want[0]
        );
    }
}

/// A frictional version of a pile (docs/nscd.md#coulomb-friction-and-rotation): tangential impulses inside
/// the Coulomb cone (|P_t| <= mu P), random previous tangential impulses and
/// spins up to 100 rad/s (r w up to 0.4 m/s, the size of the velocities), so
/// the slip, the clamp and the spin kicks all matter.
struct FrictionInput {
    lists: ContactLists,
    prev_t: Vec<f32>,
    spin: Vec<f32>,
    params: Params,
}

fn friction_input(p: &Pile, seed: u64) -> FrictionInput {
    let mut rng = Rng::new(seed);
    let mut lists = p.lists.clone();
    for c in lists.slots.iter_mut() {
        c.impulse_t = rng.f32(-0.5, 0.5) * c.impulse;
    }
    let prev_t = (0..lists.slots.len()).map(|_| rng.f32(-5e-5, 5e-5)).collect();
    let spin = (0..p.grains.len()).map(|_| rng.f32(-100.0, 100.0)).collect();
    let mut params = params(p);
    params.omega = 0.5;
    (params.mu, params.mu_wall) = (0.5, 0.3);
    FrictionInput {
        lists,
        prev_t,
        spin,
        params,
    }
}

fn assert_tangential(what: &str, gpu: &[Contact], cpu: &ContactLists) {
    for i in 0..cpu.count.len() {
        for s in 0..cpu.of(i).len() {
            let (a, b) = (gpu[i * cpu.capacity + s].impulse_t, cpu.of(i)[s].impulse_t);
            // P_t is a difference of terms the size of mu P_n (it cancels where
            // the contact sticks): its floor scales with the normal impulse.
            let floor = (FRICTION_REL * cpu.of(i)[s].impulse).max(IMPULSE_ABS);
            assert!(
                close(a, b, FRICTION_REL, floor),
                "{what}: tangential impulse of grain {i} slot {s}: gpu {a} cpu {b}"
            );
        }
    }
}

/// `apgd_gather_friction`: velocities and spins of (y_n, y_t) (tolerances of
/// `apgd_gather`; a spin is im / r times an impulse sum, up to 1e6 times the
/// impulse floor: its own floor is 1e-4 rad/s).
#[test]
fn apgd_gather_friction_matches_cpu() {
    let Some(ctx) = context() else { return };
    for p in piles() {
        let n = p.grains.len();
        let f = friction_input(&p, 31);
        let prev = apgd_prev(&p, 32);
        let mut rng = Rng::new(33);
        let vel_free: Vec<[f32; 2]> = (0..n).map(|_| [rng.f32(-1.0, 1.0), rng.f32(-1.0, 1.0)]).collect();
        for state in APGD_STATES {
            let (mut want, mut want_w) = (vec![[0.0f32; 2]; n], vec![0.0f32; n]);
            let free = free(&vel_free, &p.grains.inv_mass, &f.spin, &p.grains.radius);
            let out = moving(&mut want, &mut want_w);
            cpu::apgd::apgd_gather::<_, true>(&f.lists, (&prev, &f.prev_t), &free, out, &state);
            let k = apgd::Apgd::new(&ctx, &cfg(&p));
            let mut bufs = apgd_buffers(&ctx, &prev, &state);
            bufs.prev_t = buf(&ctx, &f.prev_t);
            let (pb, count, slots) = (
                uni(&ctx, &f.params),
                buf(&ctx, &f.lists.count),
                buf(&ctx, &f.lists.slots),
            );
            let (vf, im, r) = (
                buf(&ctx, &vel_free),
                buf(&ctx, &p.grains.inv_mass),
                buf(&ctx, &p.grains.radius),
            );
            let (wf, w) = (buf(&ctx, &f.spin), buf(&ctx, &vec![7.0f32; n]));
            let vel = buf(&ctx, &vec![[7.0f32; 2]; n]); // every word must be written
            let residual = buf(&ctx, &vec![0.0f32; n]);
            let b = apgd::ApgdBindings {
                params: &pb,
                count: &count,
                slots: &slots,
                vel_free: &vf,
                inv_mass: &im,
                vel: &vel,
                residual: &residual,
                bufs: &bufs,
                spin_free: &wf,
                radius: &r,
                spin: &w,
            };
            let g = k.groups(&ctx, &b);
            run(&ctx, |ps| k.gather[1].dispatch(ps, &g.gather[1], n as u32));
            let what = format!("{}: apgd_gather_friction (theta = {})", p.name, state[0]);
            assert_vel(&what, &get(&ctx, &vel, n), &want);
            let got_w: Vec<f32> = get(&ctx, &w, n);
            for (i, (&a, &b)) in got_w.iter().zip(&want_w).enumerate() {
                assert!(close(a, b, REL, 1e-4), "{what}: spin of grain {i}: gpu {a} cpu {b}");
            }
            if n > 10 {
                assert!(want_w != f.spin, "{what}: no spin kick");
            }
        }
    }
}

/// `apgd_contact_friction`: (P_n', P_t') = coulomb at (y_n, y_t), Q' = P for
/// both components (exact copies), the per-grain residual (tolerances of
/// `apgd_contact`).
#[test]
fn apgd_contact_friction_matches_cpu() {
    let Some(ctx) = context() else { return };
    for p in piles() {
        let n = p.grains.len();
        let f = friction_input(&p, 41);
        let q = f.params;
        let prev0 = apgd_prev(&p, 42);
        for state in APGD_STATES {
            let mut want = f.lists.clone();
            let (mut want_prev, mut want_prev_t) = (prev0.clone(), f.prev_t.clone());
            let mut want_r = vec![-1.0f32; n];
            let mut want_state = state;
            let fr = cpu::jacobi::Friction {
                spin: &f.spin,
                radius: &p.grains.radius,
                mu: q.mu,
                mu_wall: q.mu_wall,
            };
            cpu::apgd::apgd_contact::<_, true>(
                &mut want,
                (&mut want_prev, &mut want_prev_t),
                &p.grains.vel,
                &mut want_r,
                &mut want_state,
                &fr,
                &projection(&q),
            );
            let k = apgd::Apgd::new(&ctx, &cfg(&p));
            let mut bufs = apgd_buffers(&ctx, &prev0, &state);
            bufs.prev_t = buf(&ctx, &f.prev_t);
            let (pb, count, slots) = (uni(&ctx, &q), buf(&ctx, &f.lists.count), buf(&ctx, &f.lists.slots));
            let (vf, im, vel) = (
                buf(&ctx, &p.grains.vel),
                buf(&ctx, &p.grains.inv_mass),
                buf(&ctx, &p.grains.vel),
            );
            let (r, w, wf) = (buf(&ctx, &p.grains.radius), buf(&ctx, &f.spin), buf(&ctx, &f.spin));
            let residual = buf(&ctx, &vec![-1.0f32; n]); // every word must be written
            let b = apgd::ApgdBindings {
                params: &pb,
                count: &count,
                slots: &slots,
                vel_free: &vf,
                inv_mass: &im,
                vel: &vel,
                residual: &residual,
                bufs: &bufs,
                spin_free: &wf,
                radius: &r,
                spin: &w,
            };
            let g = k.groups(&ctx, &b);
            run(&ctx, |ps| k.contact[1].dispatch(ps, &g.contact[1], n as u32));
            let what = format!("{}: apgd_contact_friction (theta = {})", p.name, state[0]);
            let got = get::<Contact>(&ctx, &slots, n * p.k);
            assert_impulses(&what, &got, &want);
            assert_tangential(&what, &got, &want);
            let got_prev: Vec<f32> = get(&ctx, &bufs.prev, n * p.k);
            let got_prev_t: Vec<f32> = get(&ctx, &bufs.prev_t, n * p.k);
            for i in 0..n {
                for s in 0..p.lists.of(i).len() {
                    let at = i * p.k + s;
                    assert_eq!(got_prev[at], want_prev[at], "{what}: Q of grain {i} slot {s}");
                    assert_eq!(got_prev_t[at], want_prev_t[at], "{what}: Q_t of grain {i} slot {s}");
                    assert_eq!(want_prev_t[at], f.lists.slots[at].impulse_t, "{what}: Q_t' = P_t");
                    // The Coulomb cone holds exactly on the CPU side.
                    let c = want.slots[at];
                    let mu = if c.other & 0xc000_0000 == 0 { q.mu } else { q.mu_wall };
                    assert!(c.impulse_t.abs() <= mu * c.impulse, "{what}: outside the cone: {c:?}");
                }
            }
            let got_r: Vec<f32> = get(&ctx, &residual, n);
            for (i, (&a, &b)) in got_r.iter().zip(&want_r).enumerate() {
                assert!(
                    close(a, b, REL, VEL_ABS),
                    "{what}: residual of grain {i}: gpu {a} cpu {b}"
                );
                assert!(b >= 0.0, "{what}: residual of grain {i} not written");
            }
            assert_worst(&what, &get(&ctx, &bufs.state, 5), &got_r, &state, &want_state);
            if n > 10 {
                let moved = want
                    .slots
                    .iter()
                    .zip(&f.lists.slots)
                    .any(|(a, b)| a.impulse_t != b.impulse_t);
                assert!(moved, "{what}: no tangential impulse changed");
            }
        }
    }
}

/// Relative tolerance of the frictional coloured impulses: unlike the
/// frictionless passes these are not bit-identical on lavapipe (fused
/// multiply-adds in the tangential update: 29 of 1,531 velocities differ in
/// the last bit after the first colour), and a contact's error reaches the
/// next colours through both grains' velocities and spins: measured 1.1e-5
/// relative after 18 colours, so ten times that.
const FRICTION_REL: f32 = 1e-4;

fn assert_impulses_within(what: &str, gpu: &[Contact], cpu: &ContactLists, rel: f32) {
    for i in 0..cpu.count.len() {
        for s in 0..cpu.of(i).len() {
            let (a, b) = (gpu[i * cpu.capacity + s].impulse, cpu.of(i)[s].impulse);
            assert!(
                close(a, b, rel, IMPULSE_ABS),
                "{what}: grain {i} slot {s}: gpu {a} cpu {b}"
            );
        }
    }
}

/// The constants of a coloured visit from a `Params`.
fn visit(q: &Params) -> cpu::colored::Visit {
    cpu::colored::Visit {
        inv_dt: q.inv_dt,
        beta: q.beta,
        slop: q.slop,
        mu: q.mu,
        mu_wall: q.mu_wall,
        sor: TWIN_SOR,
    }
}

/// The over-relaxation the coloured stage twins run with: relaxed, as far
/// from convergence (`model::solver::SOR`).
const TWIN_SOR: f32 = hourglass::model::solver::SOR;

/// The projection constants of a `Params`.
fn projection(q: &Params) -> cpu::jacobi::Projection {
    cpu::jacobi::Projection {
        inv_dt: q.inv_dt,
        beta: q.beta,
        slop: q.slop,
        omega: q.omega,
    }
}

/// The grains a coloured visit reads.
fn bodies<'a>(inv_mass: &'a [f32], radius: &'a [f32]) -> cpu::colored::Bodies<'a> {
    cpu::colored::Bodies { inv_mass, radius }
}

/// The free state of a gather.
fn free<'a>(vel: &'a [[f32; 2]], inv_mass: &'a [f32], spin: &'a [f32], radius: &'a [f32]) -> cpu::jacobi::Free<'a> {
    cpu::jacobi::Free {
        vel,
        inv_mass,
        spin,
        radius,
    }
}

/// What a gather or a visit writes.
fn moving<'a>(vel: &'a mut [[f32; 2]], spin: &'a mut [f32]) -> cpu::jacobi::Moving<'a> {
    cpu::jacobi::Moving { vel, spin }
}

/// A spin floor, rad/s: a spin changes by 2 im / r times an impulse (up to
/// 2 x 510 / 5e-4 = 2e6 1/(kg m)), so the impulse floor times that.
const SPIN_ABS: f32 = 1e-3;

fn assert_spin(what: &str, gpu: &[f32], cpu: &[f32]) {
    for (i, (&a, &b)) in gpu.iter().zip(cpu).enumerate() {
        assert!(close(a, b, REL, SPIN_ABS), "{what}: spin of grain {i}: gpu {a} cpu {b}");
    }
}

/// `colored_solve_friction`: every colour in order, as `colored_solve_matches_cpu`,
/// with friction (in-cone tangential impulses, spins up to 100 rad/s).
#[test]
fn colored_solve_friction_matches_cpu() {
    let Some(ctx) = context() else { return };
    for p in piles() {
        let n = p.grains.len();
        let f = friction_input(&p, 81);
        let coloring = cpu::coloring::color_contacts(&f.lists, &p.grains.inv_mass);
        let mut sweep = ColoredSweep::default();
        sweep.build(&f.lists.count, &f.lists.slots, p.k, &coloring);
        let colors = coloring.colors as usize;
        let sizes: Vec<u32> = (0..colors)
            .map(|c| (sweep.start[c + 1] - sweep.start[c]) as u32)
            .collect();
        let starts = bucket_starts(&sizes);
        let (mut want, mut want_v, mut want_r) = (f.lists.clone(), p.grains.vel.clone(), vec![0.0f32; n]);
        let mut want_w = f.spin.clone();
        for c in 0..colors {
            let bucket = &sweep.slot[sweep.start[c]..sweep.start[c + 1]];
            let bodies = bodies(&p.grains.inv_mass, &p.grains.radius);
            let out = moving(&mut want_v, &mut want_w);
            cpu::colored::colored_solve::<_, true>(&mut want, &bodies, out, &mut want_r, bucket, &visit(&f.params));
        }
        let kernels = Colored::new(&ctx, &cfg(&p));
        let g = ColoredGpu::friction(&ctx, &p, &f, &coloring.color, &sweep.slot);
        let pass: Vec<wgpu::Buffer> = (0..colors)
            .map(|c| uni(&ctx, &[c as u32, starts[c], sizes[c], 0]))
            .collect();
        let groups: Vec<wgpu::BindGroup> = pass
            .iter()
            .map(|u| kernels.solve[1].group(&ctx, &g.bindings().solve(u)))
            .collect();
        run(&ctx, |ps| {
            for (group, &size) in groups.iter().zip(&sizes) {
                kernels.solve[1].dispatch(ps, group, size);
            }
        });
        let (slots, vel, residual) = g.read(&ctx, &p);
        let what = format!("{}: colored_solve_friction ({colors} colours)", p.name);
        assert_impulses_within(&what, &slots, &want, FRICTION_REL);
        assert_tangential(&what, &slots, &want);
        assert_vel(&what, &vel, &want_v);
        assert_residual(&what, &residual, &want_r);
        assert_spin(&what, &get(&ctx, &g.spin, n), &want_w);
        if n > 10 {
            let moved = want
                .slots
                .iter()
                .zip(&f.lists.slots)
                .any(|(a, b)| a.impulse_t != b.impulse_t);
            assert!(
                moved && want_w != f.spin,
                "{what}: no tangential impulse or spin changed"
            );
        }
    }
}

/// `colored_overflow_friction`: the overflow colour serially, with friction.
#[test]
fn colored_overflow_friction_matches_cpu() {
    let Some(ctx) = context() else { return };
    let mut solved_any = 0;
    for p in piles() {
        let n = p.grains.len();
        let f = friction_input(&p, 91);
        let coloring = cpu::coloring::color_contacts(&f.lists, &p.grains.inv_mass);
        let (mut want, mut want_v, mut want_r) = (f.lists.clone(), p.grains.vel.clone(), vec![0.0f32; n]);
        let mut want_w = f.spin.clone();
        let bodies = bodies(&p.grains.inv_mass, &p.grains.radius);
        let out = moving(&mut want_v, &mut want_w);
        let how = visit(&f.params);
        cpu::colored::colored_overflow::<_, true>(&mut want, &coloring.color, &bodies, out, &mut want_r, &how);
        let kernels = Colored::new(&ctx, &cfg(&p));
        let g = ColoredGpu::friction(&ctx, &p, &f, &coloring.color, &[0u32]);
        let group = kernels.overflow[1].group(&ctx, &g.bindings().overflow());
        run(&ctx, |ps| kernels.overflow[1].dispatch(ps, &group, 1));
        let (slots, vel, residual) = g.read(&ctx, &p);
        let what = format!("{}: colored_overflow_friction", p.name);
        assert_impulses(&what, &slots, &want);
        assert_tangential(&what, &slots, &want);
        assert_vel(&what, &vel, &want_v);
        assert_residual(&what, &residual, &want_r);
        assert_spin(&what, &get(&ctx, &g.spin, n), &want_w);
        if coloring.overflow > 0 {
            solved_any += 1;
            assert!(want_w != f.spin, "{what}: no spin changed");
        }
    }
    assert!(solved_any >= 3, "only {solved_any} piles exercise the overflow pass");
}
