//! Every GPU stage against its CPU twin on the same random input.
//!
//! Tolerances: integer stages (binning and its sort, prefix sum, counts, overflow, reorder,
//! warm start) are exact; float stages agree within 1e-6 relative (+ a tiny
//! absolute floor): the shaders evaluate the same f32 expressions in the same
//! order, and only fused multiply-adds or a last-ulp sqrt can differ.
//! `reduce` sums f32 per workgroup (a tree of 8 levels) and f64 on the host:
//! within 1e-5 of the sum of magnitudes.

mod gpu_common;

use gpu_common::{Rng, buf, close, context, get, run, uni};
use hourglass::cpu;
use hourglass::cpu::grid::Bins;
use hourglass::gpu::buffers::storage_zeroed;
use hourglass::gpu::space::GpuSpace;
use hourglass::gpu::{
    GpuContext, Kernel, Params, ReducePartial, STAT_CONTACTS, STAT_OVERFLOW, STAT_OVERLAP, STAT_RESIDUAL, STAT_SPEED2,
    STAT_WORDS, ShaderConfig, Stage, prefix_sum, reduce,
};
use hourglass::model::Region;
use hourglass::model::{Body, Contact, ContactLists, Forcing, Grains, Totals, Walls};
use hourglass::model::{Dim2, Grid};

const ALERT: f32 = 0.003;

/// One input scene of the stage tests.
struct Case {
    name: &'static str,
    grains: Grains,
    walls: Walls,
    grid: Grid,
    k: usize,
}

fn case(name: &'static str, n: usize, side: f32, r: (f32, f32), k: usize, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let pos = (0..n).map(|_| [rng.f32(0.0, side), rng.f32(0.0, side)]).collect();
    let vel = (0..n).map(|_| [rng.f32(-1.0, 1.0), rng.f32(-1.0, 1.0)]).collect();
    let radius = (0..n).map(|_| rng.f32(r.0, r.1)).collect();
    let mut grains = Grains::new(pos, vel, radius, 2500.0);
    // A few fixed grains (inverse mass 0).
    for i in (0..n).step_by(97) {
        grains.inv_mass[i] = 0.0;
    }
    let s = f64::from(side);
    let walls = Walls::new(&[
        [[0.0, 0.0], [s, 0.0]],
        [[s, 0.0], [s, s]],
        [[s, s], [0.0, s]],
        [[0.0, s], [0.0, 0.0]],
        [[0.2 * s, 0.5 * s], [0.6 * s, 0.3 * s]], // a free-standing baffle: convex ends
    ]);
    let grid = Grid::covering(walls.bounding_box(), 2.0 * r.1 + ALERT).unwrap();
    Case {
        name,
        grains,
        walls,
        grid,
        k,
    }
}

fn cases() -> Vec<Case> {
    vec![
        case("empty", 0, 0.1, (0.002, 0.003), 16, 1),
        case("one grain", 1, 0.1, (0.002, 0.003), 16, 2),
        case("15071 grains", 15071, 1.0, (0.001, 0.003), 16, 3),
        // Every grain in one cell (cell side 0.009 m): up to 49 grain contacts each.
        case("one cell", 50, 0.0085, (0.0005, 0.003), 64, 4),
        // A dense cluster with K = 4: most lists overflow.
        case("overflow K=4", 300, 0.03, (0.001, 0.002), 4, 5),
        // Restitution (docs/nscd.md#restitution): `lists_with_impulses` gives its
        // approaching contacts a bounce velocity (e = 0.7).
        case(BOUNCING, 2000, 0.3, (0.001, 0.003), 16, 6),
        // Moving walls (model::motion): every wall contact carries a wall velocity.
        moving(case("moving walls", 2000, 0.3, (0.001, 0.003), 16, 7)),
        // Periodic along x (`Grid::periodic_x`): grains at either end of the
        // period touch across the seam.
        periodic(case(PERIODIC, 3000, 0.3, (0.001, 0.003), 16, 8), 0.3, 0.003),
        // Three columns (0.03 m over cells of at least 0.009 m): the block is the whole period.
        periodic(case(PERIODIC_THREE, 60, 0.03, (0.001, 0.003), 16, 9), 0.03, 0.003),
    ]
}

/// The periodic cases' names.
const PERIODIC: &str = "periodic";
const PERIODIC_THREE: &str = "periodic, 3 columns";

/// `c` on a grid periodic along x over [0, `side`) for grains up to
/// `r_max` (the walls stay: a stage does not care where they are).
fn periodic(mut c: Case, side: f32, r_max: f32) -> Case {
    c.grid = Grid::periodic_x(c.walls.bounding_box(), 2.0 * r_max + ALERT, [0.0, side]).unwrap();
    c
}

/// `c` with random velocities of up to 0.5 m/s at every segment end and
/// corner (`Walls::segment_vel`, `corner_vel`): detection gives each wall
/// contact its `Contact::wall_vel`, which every stage after it reads.
fn moving(mut c: Case) -> Case {
    let mut rng = Rng::new(41);
    let mut v = || [rng.f32(-0.5, 0.5), rng.f32(-0.5, 0.5)];
    c.walls.segment_vel = (0..c.walls.segments.len()).map(|_| [v(), v()]).collect();
    c.walls.corner_vel = (0..c.walls.corners.len()).map(|_| v()).collect();
    c
}

fn params(c: &Case) -> Params {
    let mut p = Params::new(&c.grid, c.grains.len(), c.walls.segments.len(), c.walls.corners.len());
    p.gravity = [0.0, -9.81];
    p.dt = 1e-3;
    p.inv_dt = 1.0 / p.dt;
    p.alert = ALERT;
    p.omega = 0.5;
    p.beta = 0.2;
    p.slop = 5e-6;
    p.neck_y = 0.4;
    let bb = c.walls.bounding_box();
    p.bbox_lo = [bb[0], bb[1]];
    p.bbox_hi = [bb[2], bb[3]];
    p
}

/// Entry point `entry` of `stage`, compiled for case `c`.
fn kernel(ctx: &GpuContext, c: &Case, stage: Stage, entry: &str) -> Kernel {
    Kernel::new(ctx, &cfg(c), stage, entry)
}

fn cfg(c: &Case) -> ShaderConfig {
    ShaderConfig::new(c.k as u32)
}

fn copy(ctx: &GpuContext, src: &wgpu::Buffer, dst: &wgpu::Buffer, bytes: u64) {
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    if bytes > 0 {
        enc.copy_buffer_to_buffer(src, 0, dst, 0, bytes);
    }
    ctx.queue.submit([enc.finish()]);
}

fn assert_vec2_close(what: &str, gpu: &[[f32; 2]], cpu: &[[f32; 2]], rel: f32, abs: f32) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: length");
    for (i, (a, b)) in gpu.iter().zip(cpu).enumerate() {
        assert!(
            close(a[0], b[0], rel, abs) && close(a[1], b[1], rel, abs),
            "{what}[{i}]: gpu {a:?} cpu {b:?}"
        );
    }
}

#[test]
fn free_velocity_matches_cpu() {
    let Some(ctx) = context() else { return };
    for c in cases() {
        // Plain (sigma = 0), and with the stochastic forcing (docs/nscd.md#stochastic-forcing).
        for sigma in [0.0f32, 0.3] {
            let n = c.grains.len();
            let mut p = params(&c);
            (p.seed, p.step) = (77, 12);
            // Ids not in index order: the draws follow the id, not the slot.
            let ids: Vec<u32> = c.grains.id.iter().rev().copied().collect();
            let mut want = vec![[0.0; 2]; n];
            cpu::integrate::free_velocity::<Dim2>(&c.grains.vel, &c.grains.inv_mass, p.gravity, p.dt, &mut want);
            let f = Forcing {
                sigma,
                seed: p.seed,
                step: p.step,
            };
            p.kick = f.scale(p.dt);
            if sigma > 0.0 {
                cpu::integrate::forcing(&c.grains.inv_mass, &ids, f, p.dt, &mut want);
            }
            let k = kernel(&ctx, &c, Stage::FreeVelocity, "main");
            let (pb, vel, im) = (uni(&ctx, &p), buf(&ctx, &c.grains.vel), buf(&ctx, &c.grains.inv_mass));
            let out = storage_zeroed::<[f32; 2]>(&ctx, "hourglass.test", n);
            let id = buf(&ctx, &ids);
            let g = k.group(
                &ctx,
                &[
                    ("params", &pb),
                    ("vel", &vel),
                    ("inv_mass", &im),
                    ("vel_free", &out),
                    ("id", &id),
                ],
            );
            run(&ctx, |ps| k.dispatch(ps, &g, n as u32));
            // The draws are exact on both sides; v + dt g + kick w may fuse.
            assert_vec2_close(c.name, &get(&ctx, &out, n), &want, 1e-6, 1e-12);
        }
    }
}

/// The forcing's generator on the GPU (`normal2` of shaders/free_velocity.wgsl,
/// read through free_velocity with v = 0, g = 0, dt = 1, sigma = 1, so the
/// free velocity is the draw w itself): 2 x 200,000 draws have mean 0 within
/// four standard errors, variance 1 within 2 % and the normal's fourth
/// moment 3 within 5 % (Irwin-Hall's is 2.9), and each is model::noise::normal2's bit for bit.
#[test]
fn forcing_generator_is_standard_normal_and_matches_cpu() {
    let Some(ctx) = context() else { return };
    let n = 200_000usize;
    let grid = Grid::covering([0.0, 0.0, 1.0, 1.0], 0.1).unwrap();
    let mut p = Params::new(&grid, n, 0, 0);
    (p.dt, p.kick, p.seed, p.step) = (1.0, 1.0, 3, 41);
    let k = Kernel::new(&ctx, &ShaderConfig::new(4), Stage::FreeVelocity, "main");
    let ids: Vec<u32> = (0..n as u32).collect();
    let (pb, vel, im) = (
        uni(&ctx, &p),
        buf(&ctx, &vec![[0.0f32; 2]; n]),
        buf(&ctx, &vec![1.0f32; n]),
    );
    let out = storage_zeroed::<[f32; 2]>(&ctx, "hourglass.test", n);
    let id = buf(&ctx, &ids);
    let g = k.group(
        &ctx,
        &[
            ("params", &pb),
            ("vel", &vel),
            ("inv_mass", &im),
            ("vel_free", &out),
            ("id", &id),
        ],
    );
    run(&ctx, |ps| k.dispatch(ps, &g, n as u32));
    let got: Vec<[f32; 2]> = get(&ctx, &out, n);
    let (mut sum, mut sum2, mut sum4) = ([0.0f64; 2], [0.0f64; 2], [0.0f64; 2]);
    for (i, w) in got.iter().enumerate() {
        let want = hourglass::model::noise::normal2(3, 41, i as u32);
        assert_eq!(
            w.map(f32::to_bits),
            want.map(f32::to_bits),
            "draw {i}: gpu {w:?} cpu {want:?}"
        );
        for c in 0..2 {
            let x = f64::from(w[c]);
            sum[c] += x;
            sum2[c] += x * x;
            sum4[c] += x * x * x * x;
        }
    }
    let nf = n as f64;
    for c in 0..2 {
        let mean = sum[c] / nf;
        let var = sum2[c] / nf - mean * mean;
        let m4 = sum4[c] / nf;
        eprintln!("component {c}: mean {mean:.2e}, variance {var:.4}, fourth moment {m4:.3}");
        assert!(mean.abs() < 4.0 / nf.sqrt(), "component {c}: mean {mean}");
        assert!((var - 1.0).abs() < 0.02, "component {c}: variance {var}");
        assert!((m4 - 3.0).abs() < 0.15, "component {c}: fourth moment {m4}");
    }
}

/// Entry point `bounce` of warm_start (restitution): every contact's bounce
/// velocity from the start-of-step velocities, against cpu::warm_start::bounce.
#[test]
fn bounce_matches_cpu() {
    let Some(ctx) = context() else { return };
    for c in cases() {
        let n = c.grains.len();
        let mut p = params(&c);
        p.restitution = 0.7;
        let mut want = lists_with_impulses(&c, 31);
        let mut slots = want.slots.clone();
        for s in slots.iter_mut() {
            s.bounce = -1.0; // must all be overwritten
        }
        cpu::warm_start::bounce(&want.count, &mut want.slots, c.k, &c.grains.vel, 0.7, p.dt);
        let bouncing = want.slots.iter().filter(|s| s.bounce > 0.0).count();
        assert!(n < 100 || bouncing > 0, "{}: no contact bounces", c.name);
        let k = kernel(&ctx, &c, Stage::WarmStart, "bounce");
        let (pb, count, sb, vel) = (
            uni(&ctx, &p),
            buf(&ctx, &want.count),
            buf(&ctx, &slots),
            buf(&ctx, &c.grains.vel),
        );
        let g = k.group(
            &ctx,
            &[("params", &pb), ("count", &count), ("slots", &sb), ("vel", &vel)],
        );
        run(&ctx, |ps| k.dispatch(ps, &g, n as u32));
        let got = get::<Contact>(&ctx, &sb, n * c.k);
        for i in 0..n {
            let r = i * c.k..i * c.k + (want.count[i] as usize).min(c.k);
            for (s, (g, w)) in got[r.clone()].iter().zip(&want.slots[r]).enumerate() {
                let (a, b) = (g.bounce, w.bounce);
                assert!(
                    close(a, b, 1e-6, 1e-9),
                    "{}: bounce of grain {i}'s slot {s}: gpu {a} cpu {b}",
                    c.name
                );
            }
        }
    }
}

#[test]
fn integrate_matches_cpu() {
    let Some(ctx) = context() else { return };
    for c in cases() {
        let n = c.grains.len();
        let p = params(&c);
        let mut shifted = c.grains.pos.clone();
        cpu::integrate::integrate::<Dim2>(&mut shifted, &c.grains.vel, p.dt);
        let mut want = shifted.clone();
        cpu::integrate::wrap(&c.grid, &mut want);
        for (entry, want) in [("main", &want), ("shift", &shifted)] {
            let k = kernel(&ctx, &c, Stage::Integrate, entry);
            let (pb, pos, vel) = (uni(&ctx, &p), buf(&ctx, &c.grains.pos), buf(&ctx, &c.grains.vel));
            let g = k.group(&ctx, &[("params", &pb), ("pos", &pos), ("vel", &vel)]);
            run(&ctx, |ps| k.dispatch(ps, &g, n as u32));
            assert_vec2_close(&format!("{}: {entry}", c.name), &get(&ctx, &pos, n), want, 1e-6, 1e-12);
        }
    }
}

/// On a grid periodic along x, `integrate::main` wraps its sums x + dt v
/// into [xmin, xmax) bit for bit as `Grid::wrap_x` (`cpu::integrate::wrap`),
/// from points near and on both ends of the period, several periods away, a
/// sum that rounds onto xmax (which gives xmin) and non-finite ones (kept);
/// `shift` never wraps: its sums are `cpu::integrate::integrate`'s.
#[test]
fn integrate_wraps_like_cpu() {
    let Some(ctx) = context() else { return };
    let c = periodic(case(PERIODIC, 0, 0.3, (0.001, 0.003), 16, 8), 0.3, 0.003);
    let xmax = c.grid.origin[0] + c.grid.period;
    let below = f32::from_bits(xmax.to_bits() - 1);
    let mut rng = Rng::new(21);
    let mut pos = vec![
        [0.0, 0.1],
        [-0.0, 0.1],
        [below, 0.1],
        [xmax, 0.1],
        [-1e-9, 0.1],
        [0.29999, 0.1],
        [0.0001, 0.1],
        [-0.7, 0.1],
        [3.1, 0.1],
        [-1e6, 0.1],
        [1e30, 0.1],
        [f32::NAN, 0.1],
        [f32::INFINITY, 0.1],
        [f32::NEG_INFINITY, 0.1],
    ];
    // The grain just below xmax moves by 2e-8 m, rounding onto xmax.
    let mut vel = vec![
        [0.0, 0.5],
        [-1e-3, 0.0],
        [2e-5, 0.0],
        [0.0, 0.0],
        [0.0, 0.0],
        [0.02, 0.0],
        [-0.2, 0.0],
    ];
    vel.resize(pos.len(), [1.0, -1.0]);
    for _ in 0..5000 {
        pos.push([rng.f32(-0.01, 0.31), rng.f32(0.0, 0.3)]);
        vel.push([rng.f32(-2.0, 2.0), rng.f32(-2.0, 2.0)]);
    }
    let n = pos.len();
    let mut c = c;
    c.grains = Grains::new(pos.clone(), vel.clone(), vec![0.002; n], 2500.0);
    let p = params(&c);
    let mut shifted = pos.clone();
    cpu::integrate::integrate::<Dim2>(&mut shifted, &vel, p.dt);
    let mut want = shifted.clone();
    cpu::integrate::wrap(&c.grid, &mut want);
    let bits = |v: &[[f32; 2]]| v.iter().map(|q| [q[0].to_bits(), q[1].to_bits()]).collect::<Vec<_>>();
    let wrapped = want
        .iter()
        .zip(&shifted)
        .filter(|(a, b)| a[0].to_bits() != b[0].to_bits())
        .count();
    assert!(wrapped > 100, "only {wrapped} grains wrapped");
    assert_eq!(shifted[2][0], xmax);
    let xmin = c.grid.origin[0].to_bits();
    assert_eq!(want[2][0].to_bits(), xmin, "a step rounding onto xmax gives xmin");
    assert_eq!(want[3][0].to_bits(), xmin, "xmax itself gives xmin");
    assert_eq!(
        want[4][0].to_bits(),
        xmin,
        "x just below xmin wraps by rounding onto xmax: xmin"
    );
    let integrate = |entry: &str| {
        let k = kernel(&ctx, &c, Stage::Integrate, entry);
        let (pb, pb_pos, pb_vel) = (uni(&ctx, &p), buf(&ctx, &pos), buf(&ctx, &vel));
        let g = k.group(&ctx, &[("params", &pb), ("pos", &pb_pos), ("vel", &pb_vel)]);
        run(&ctx, |ps| k.dispatch(ps, &g, n as u32));
        get::<[f32; 2]>(&ctx, &pb_pos, n)
    };
    // The sums x + dt v: `shift`'s, which never wraps, are the CPU's (a
    // fused multiply-add aside: within the float stages' tolerance; on
    // lavapipe bit for bit).
    let sums = integrate("shift");
    for (i, (a, b)) in sums.iter().zip(&shifted).enumerate() {
        let same = a[0].to_bits() == b[0].to_bits() || close(a[0], b[0], 1e-6, 1e-12);
        assert!(
            same && close(a[1], b[1], 1e-6, 1e-12),
            "shift: grain {i}: gpu {a:?} cpu {b:?}"
        );
    }
    // `main` wraps its sums bit for bit as `Grid::wrap_x`.
    let mut twin = sums.clone();
    cpu::integrate::wrap(&c.grid, &mut twin);
    let got = integrate("main");
    for (i, (a, b)) in bits(&got).iter().zip(bits(&twin)).enumerate() {
        assert_eq!(
            *a, b,
            "main: grain {i} from {:?} at {:?}: gpu {:?} cpu {:?}",
            pos[i], vel[i], got[i], twin[i]
        );
    }
    assert_eq!(got[2][0], c.grid.origin[0], "the sum onto xmax");
}

/// (cell_of, cell_count, cell_start, sorted) as read back from the GPU.
type GpuBins = (Vec<u32>, Vec<u32>, Vec<u32>, Vec<u32>);

/// The GPU binning chain.
fn gpu_bins(ctx: &GpuContext, c: &Case, pos: &[[f32; 2]]) -> GpuBins {
    let (n, cells) = (pos.len(), c.grid.cells());
    let mut p = params(c);
    p.n_grains = n as u32;
    let pb = uni(ctx, &p);
    let pos = buf(ctx, pos);
    let z = |len: usize| storage_zeroed::<u32>(ctx, "hourglass.test", len);
    let (cell_of, cell_count, cell_start, cursor, sorted) = (z(n), z(cells), z(cells + 1), z(cells), z(n));
    let cfg = cfg(c);
    let count = Kernel::new(ctx, &cfg, Stage::BinCount, "main");
    let scan = prefix_sum::PrefixSum::new(ctx, &cfg);
    let scatter = Kernel::new(ctx, &cfg, Stage::BinScatter, "main");
    let gc = count.group(
        ctx,
        &[
            ("params", &pb),
            ("pos", &pos),
            ("cell_of", &cell_of),
            ("cell_count", &cell_count),
        ],
    );
    let plan = scan.plan(ctx, &cell_count, &cell_start, cells as u32);
    let gs = scatter.group(
        ctx,
        &[
            ("params", &pb),
            ("cell_of", &cell_of),
            ("cursor", &cursor),
            ("sorted", &sorted),
        ],
    );
    run(ctx, |ps| {
        count.dispatch(ps, &gc, n as u32);
        scan.dispatch(ps, &plan);
    });
    copy(ctx, &cell_start, &cursor, cells as u64 * 4);
    run(ctx, |ps| scatter.dispatch(ps, &gs, n as u32));
    (
        get(ctx, &cell_of, n),
        get(ctx, &cell_count, cells),
        get(ctx, &cell_start, cells + 1),
        get(ctx, &sorted, n),
    )
}

/// Sort the grains of each cell (the GPU's scatter leaves a cell in atomic order).
fn canonical(cell_start: &[u32], sorted: &[u32]) -> Vec<u32> {
    let mut s = sorted.to_vec();
    for w in cell_start.windows(2) {
        s[w[0] as usize..w[1] as usize].sort_unstable();
    }
    s
}

/// The CPU bins and the GPU chain's (cell_of, cell_count, cell_start, sorted) of
/// every case, with a lost grain (clamped into a border cell) and a NaN (cell 0).
fn binning(ctx: &GpuContext) -> Vec<(Case, Bins, GpuBins)> {
    cases()
        .into_iter()
        .map(|mut c| {
            if c.grains.len() > 10 {
                c.grains.pos[3] = [-50.0, 1e9];
                c.grains.pos[7] = [f32::NAN, 0.05];
            }
            let mut want = Bins::default();
            want.build(&c.grid, &c.grains.pos);
            let got = gpu_bins(ctx, &c, &c.grains.pos);
            (c, want, got)
        })
        .collect()
}

#[test]
fn bin_count_matches_cpu() {
    let Some(ctx) = context() else { return };
    for (c, want, (cell_of, cell_count, _, _)) in binning(&ctx) {
        assert_eq!(cell_of, want.cell_of, "{}: cell_of", c.name);
        assert_eq!(cell_count, want.cell_count, "{}: cell_count", c.name);
    }
}

#[test]
fn bin_scatter_matches_cpu() {
    let Some(ctx) = context() else { return };
    for (c, want, (_, _, cell_start, sorted)) in binning(&ctx) {
        assert_eq!(cell_start, want.cell_start, "{}: prefix_sum of the GPU counts", c.name);
        assert_eq!(canonical(&cell_start, &sorted), want.sorted, "{}: sorted", c.name);
    }
}

/// The GPU's `bin_sort` of `sorted` over the cells of `cell_start`.
fn gpu_bin_sort(ctx: &GpuContext, c: &Case, cell_start: &[u32], sorted: &[u32]) -> Vec<u32> {
    let cells = c.grid.cells() as u32;
    let k = kernel(ctx, c, Stage::BinSort, "main");
    let (pb, starts, out) = (uni(ctx, &params(c)), buf(ctx, cell_start), buf(ctx, sorted));
    let g = k.group(ctx, &[("params", &pb), ("cell_start", &starts), ("sorted", &out)]);
    run(ctx, |ps| k.dispatch(ps, &g, cells));
    get(ctx, &out, sorted.len())
}

/// `bin_sort` on three inputs per case: the GPU scatter's own output (atomic
/// order), every cell's slice reversed (each entry moves) and every slice
/// shuffled. The GPU's result equals `cpu::grid::bin_sort` of the same input
/// and the CPU's binning (whose scatter yields index order inside a cell):
/// the GPU binning is then the CPU's, entry for entry.
#[test]
fn bin_sort_matches_cpu() {
    let Some(ctx) = context() else { return };
    let mut rng = Rng::new(11);
    let mut moved = 0;
    for (c, want, (_, _, cell_start, scattered)) in binning(&ctx) {
        let mut reversed = want.sorted.clone();
        let mut shuffled = want.sorted.clone();
        for w in cell_start.windows(2) {
            let cell = w[0] as usize..w[1] as usize;
            reversed[cell.clone()].reverse();
            let s = &mut shuffled[cell];
            for i in (1..s.len()).rev() {
                s.swap(i, rng.below(i as u32 + 1) as usize);
            }
        }
        for (what, input) in [
            ("scattered", &scattered),
            ("reversed", &reversed),
            ("shuffled", &shuffled),
        ] {
            moved += input.iter().zip(&want.sorted).filter(|(a, b)| a != b).count();
            let mut twin = input.clone();
            cpu::grid::bin_sort(&cell_start, &mut twin);
            let got = gpu_bin_sort(&ctx, &c, &cell_start, input);
            assert_eq!(got, twin, "{}: {what}: gpu against cpu::grid::bin_sort", c.name);
            assert_eq!(got, want.sorted, "{}: {what}: gpu against the cpu binning", c.name);
        }
    }
    assert!(
        moved > 10_000,
        "the inputs were already sorted ({moved} entries out of place)"
    );
}

#[test]
fn prefix_sum_matches_cpu() {
    let Some(ctx) = context() else { return };
    let scan = prefix_sum::PrefixSum::new(&ctx, &ShaderConfig::new(16));
    let mut rng = Rng::new(9);
    for len in [0usize, 1, 255, 256, 257, 15071, (1 << 20) + 3] {
        let counts: Vec<u32> = (0..len).map(|_| rng.below(9)).collect();
        let mut want = vec![0u32; len + 1];
        cpu::grid::prefix_sum(&counts, &mut want);
        let src = buf(&ctx, &counts);
        let dst = storage_zeroed::<u32>(&ctx, "hourglass.test", len + 1);
        let plan = scan.plan(&ctx, &src, &dst, len as u32);
        run(&ctx, |ps| scan.dispatch(ps, &plan));
        assert_eq!(get::<u32>(&ctx, &dst, len + 1), want, "prefix_sum of length {len}");
    }
}

/// GPU detection from given bins: (count, slots, stats words).
fn gpu_detect(ctx: &GpuContext, c: &Case, cell_start: &[u32], sorted: &[u32]) -> (Vec<u32>, Vec<Contact>, Vec<u32>) {
    let n = c.grains.len();
    let k = kernel(ctx, c, Stage::Detect, "main");
    let count = storage_zeroed::<u32>(ctx, "hourglass.test", n);
    let slots = storage_zeroed::<Contact>(ctx, "hourglass.test", n * c.k);
    let stats = storage_zeroed::<u32>(ctx, "hourglass.test", STAT_WORDS as usize);
    let b = (
        uni(ctx, &params(c)),
        buf(ctx, cell_start),
        buf(ctx, sorted),
        buf(ctx, &c.grains.pos),
        buf(ctx, &c.grains.radius),
        buf(ctx, &c.grains.inv_mass),
        buf(ctx, &c.walls.segments),
        buf(ctx, &c.walls.corners),
    );
    // The walls' velocities as GpuBackend uploads them: zeros for still walls.
    let segment_vel: Vec<[[f32; 2]; 2]> = (0..c.walls.segments.len())
        .map(|k| c.walls.segment_vel.get(k).copied().unwrap_or_default())
        .collect();
    let corner_vel: Vec<[f32; 2]> = (0..c.walls.corners.len()).map(|k| c.walls.corner_velocity(k)).collect();
    let wall_vel = (buf(ctx, &segment_vel), buf(ctx, &corner_vel));
    let index = buf(ctx, &Dim2::wall_index(&c.walls));
    let g = k.group(
        ctx,
        &[
            ("params", &b.0),
            ("cell_start", &b.1),
            ("sorted", &b.2),
            ("pos", &b.3),
            ("radius", &b.4),
            ("inv_mass", &b.5),
            ("segments", &b.6),
            ("corners", &b.7),
            ("count", &count),
            ("slots", &slots),
            ("stats", &stats),
            ("segment_vel", &wall_vel.0),
            ("corner_vel", &wall_vel.1),
            ("wall_index", &index),
        ],
    );
    run(ctx, |ps| k.dispatch(ps, &g, n as u32));
    (
        get(ctx, &count, n),
        get(ctx, &slots, n * c.k),
        get(ctx, &stats, STAT_WORDS as usize),
    )
}

fn cpu_detect(c: &Case, bins: &Bins) -> ContactLists {
    let mut lists = ContactLists::new(c.grains.len(), c.k);
    let inp = cpu::detect::DetectInput {
        grid: &c.grid,
        cell_start: &bins.cell_start,
        sorted: &bins.sorted,
        pos: &c.grains.pos,
        radius: &c.grains.radius,
        inv_mass: &c.grains.inv_mass,
        walls: &c.walls,
        alert: ALERT,
    };
    cpu::detect::detect(&inp, &mut lists);
    lists
}

fn assert_contact_close(what: &str, a: &Contact, b: &Contact) {
    let ok = a.other == b.other
        && close(a.gap, b.gap, 1e-6, 1e-9)
        && close(a.normal[0], b.normal[0], 1e-6, 1e-9)
        && close(a.normal[1], b.normal[1], 1e-6, 1e-9)
        && a.inv_mass_sum == b.inv_mass_sum
        && a.impulse == b.impulse
        && wall_vel_matches(a.wall_vel, b.wall_vel);
    assert!(ok, "{what}: gpu {a:?} cpu {b:?}");
}

/// A contact's wall velocity: exactly zero where the CPU's is (grains, still
/// walls), else within the float stages' tolerance.
fn wall_vel_matches(gpu: [f32; 2], cpu: [f32; 2]) -> bool {
    if cpu == [0.0; 2] {
        return gpu == cpu;
    }
    close(gpu[0], cpu[0], 1e-6, 1e-9) && close(gpu[1], cpu[1], 1e-6, 1e-9)
}

#[test]
fn detect_matches_cpu() {
    let Some(ctx) = context() else { return };
    for c in cases() {
        let n = c.grains.len();
        let mut bins = Bins::default();
        bins.build(&c.grid, &c.grains.pos);
        let want = cpu_detect(&c, &bins);
        // 1. Same bins as the CPU: the lists agree slot by slot, overflowing ones included.
        let (count, slots, stats) = gpu_detect(&ctx, &c, &bins.cell_start, &bins.sorted);
        assert_eq!(count, want.count, "{}: detect count", c.name);
        let got = ContactLists {
            capacity: c.k,
            count,
            slots,
        };
        for i in 0..n {
            for (s, (a, b)) in got.of(i).iter().zip(want.of(i)).enumerate() {
                assert_contact_close(&format!("{}: grain {i} slot {s}", c.name), a, b);
            }
        }
        assert_eq!(
            u64::from(stats[STAT_OVERFLOW as usize]),
            want.overflow(),
            "{}: overflow",
            c.name
        );
        assert_eq!(
            u64::from(stats[STAT_CONTACTS as usize]),
            want.distinct(),
            "{}: contacts",
            c.name
        );
        // The same f32 gaps, so the same deepest overlap bit for bit.
        assert_eq!(
            f32::from_bits(stats[STAT_OVERLAP as usize]),
            want.max_overlap(),
            "{}: deepest overlap",
            c.name
        );
        if c.name == "overflow K=4" {
            assert!(
                want.overflow() > 100,
                "the overflow case must overflow ({})",
                want.overflow()
            );
        }
        // 2. The GPU's own scatter, unsorted (atomic order inside a cell): the same counts and
        //    overflow, and the same contact sets where no list overflows.
        let (_, _, cell_start, sorted) = gpu_bins(&ctx, &c, &c.grains.pos);
        let (count, slots, stats) = gpu_detect(&ctx, &c, &cell_start, &sorted);
        assert_eq!(count, want.count, "{}: detect count (gpu bins)", c.name);
        assert_eq!(
            u64::from(stats[STAT_OVERFLOW as usize]),
            want.overflow(),
            "{}: overflow (gpu bins)",
            c.name
        );
        let got = ContactLists {
            capacity: c.k,
            count,
            slots,
        };
        for i in (0..n).filter(|&i| (want.count[i] as usize) <= c.k) {
            let mut a = got.of(i).to_vec();
            let mut b = want.of(i).to_vec();
            a.sort_by_key(|x| x.other);
            b.sort_by_key(|x| x.other);
            for (a, b) in a.iter().zip(&b) {
                assert_contact_close(&format!("{}: grain {i} (gpu bins)", c.name), a, b);
            }
        }
    }
}

/// On a grid periodic along x the GPU bins every grain in the CPU's cell
/// (the column wrapped modulo nx) and lists exactly the CPU's contacts, bit
/// for bit and in its order (the wrapped block's columns cx - 1, cx, cx + 1),
/// pairs across the seam (farther apart than half the period, touching
/// through the minimum image) included.
#[test]
fn detect_matches_cpu_across_the_seam() {
    let Some(ctx) = context() else { return };
    for c in cases().into_iter().filter(|c| c.grid.is_periodic()) {
        let n = c.grains.len();
        let mut bins = Bins::default();
        bins.build(&c.grid, &c.grains.pos);
        let (cell_of, _, cell_start, sorted) = gpu_bins(&ctx, &c, &c.grains.pos);
        assert_eq!(cell_of, bins.cell_of, "{}: cell_of", c.name);
        assert_eq!(cell_start, bins.cell_start, "{}: cell_start", c.name);
        assert_eq!(canonical(&cell_start, &sorted), bins.sorted, "{}: sorted", c.name);
        let want = cpu_detect(&c, &bins);
        let (count, slots, stats) = gpu_detect(&ctx, &c, &bins.cell_start, &bins.sorted);
        assert_eq!(count, want.count, "{}: detect count", c.name);
        let got = ContactLists {
            capacity: c.k,
            count,
            slots,
        };
        let mut seam = 0;
        for i in 0..n {
            for (s, (a, b)) in got.of(i).iter().zip(want.of(i)).enumerate() {
                assert_eq!(
                    bytemuck::bytes_of(a),
                    bytemuck::bytes_of(b),
                    "{}: grain {i} slot {s}: gpu {a:?} cpu {b:?}",
                    c.name
                );
                if let Body::Grain(j) = b.body() {
                    let dx = c.grains.pos[i][0] - c.grains.pos[j as usize][0];
                    seam += usize::from(dx.abs() > 0.5 * c.grid.period && b.gap < 0.0);
                }
            }
        }
        assert!(seam > 0, "{}: no overlap across the seam", c.name);
        assert_eq!(
            u64::from(stats[STAT_CONTACTS as usize]),
            want.distinct(),
            "{}: contacts",
            c.name
        );
        assert_eq!(
            f32::from_bits(stats[STAT_OVERLAP as usize]),
            want.max_overlap(),
            "{}: deepest overlap",
            c.name
        );
    }
}

/// Two grains overlapping by 0.2 mm across the seam of a periodic grid: the
/// GPU's `reduce` measures the overlap through the minimum image, as the
/// CPU's (`Region::period`), bit for bit.
#[test]
fn reduce_measures_overlaps_across_the_seam() {
    let Some(ctx) = context() else { return };
    let (r, d) = (0.003, 2e-4);
    let mut c = periodic(case(PERIODIC, 0, 0.3, (0.001, r), 16, 8), 0.3, r);
    c.grains = Grains::new(
        vec![[r - 0.5 * d, 0.1], [0.3 - r + 0.5 * d, 0.1]],
        vec![[0.0; 2]; 2],
        vec![r; 2],
        2500.0,
    );
    let mut bins = Bins::default();
    bins.build(&c.grid, &c.grains.pos);
    let lists = cpu_detect(&c, &bins);
    assert!(matches!(lists.of(0)[0].body(), Body::Grain(1)), "{:?}", lists.of(0));
    let p = params(&c);
    let region = Region {
        gravity: p.gravity,
        neck_y: p.neck_y,
        bbox: c.walls.bounding_box(),
        period: c.grid.period,
    };
    let want = cpu::reduce::reduce(&c.grains, &lists, &c.walls, &region);
    assert!((want.max_overlap - f64::from(d)).abs() < 1e-6, "{want:?}");
    let got = gpu_reduce(&ctx, &c, &c.grains, &lists, &p);
    assert_eq!(got.max_overlap, want.max_overlap);
}

/// Detection against moving walls (`Walls::segment_vel`, `corner_vel`, random
/// velocities of up to 0.5 m/s at every segment end and corner): every wall
/// contact carries the CPU's `wall_vel` (a segment's interpolated where the
/// centre projects, a corner's own), every grain contact zero.
#[test]
fn detect_matches_cpu_on_moving_walls() {
    let Some(ctx) = context() else { return };
    let (mut on_segments, mut on_corners) = (0, 0);
    for c in cases().into_iter().map(moving) {
        let mut bins = Bins::default();
        bins.build(&c.grid, &c.grains.pos);
        let want = cpu_detect(&c, &bins);
        let (count, slots, _) = gpu_detect(&ctx, &c, &bins.cell_start, &bins.sorted);
        assert_eq!(count, want.count, "{}: detect count", c.name);
        let got = ContactLists {
            capacity: c.k,
            count,
            slots,
        };
        for i in 0..c.grains.len() {
            for (s, (a, b)) in got.of(i).iter().zip(want.of(i)).enumerate() {
                assert_contact_close(&format!("{}: grain {i} slot {s}", c.name), a, b);
                match b.body() {
                    Body::Grain(_) => assert_eq!(b.wall_vel, [0.0; 2]),
                    Body::Segment(_) => on_segments += usize::from(b.wall_vel != [0.0; 2]),
                    Body::Corner(_) => on_corners += usize::from(b.wall_vel != [0.0; 2]),
                }
            }
        }
    }
    println!("{on_segments} segment and {on_corners} corner contacts with a wall velocity");
    assert!(
        on_segments > 0 && on_corners > 0,
        "{on_segments} segment, {on_corners} corner contacts"
    );
}

/// CPU lists of a case with random impulses, as the solver would leave them.
fn lists_with_impulses(c: &Case, seed: u64) -> ContactLists {
    let mut bins = Bins::default();
    bins.build(&c.grid, &c.grains.pos);
    let mut lists = cpu_detect(c, &bins);
    let mut rng = Rng::new(seed);
    for s in lists.slots.iter_mut() {
        s.impulse = rng.f32(0.0, 1e-4);
    }
    if c.name == BOUNCING {
        let k = lists.capacity;
        cpu::warm_start::bounce(&lists.count, &mut lists.slots, k, &c.grains.vel, 0.7, 1e-3);
        assert!(lists.slots.iter().any(|s| s.bounce > 0.0));
    }
    lists
}

/// The case whose lists carry bounce velocities (restitution e = 0.7).
const BOUNCING: &str = "bouncing e=0.7";

#[test]
fn warm_start_matches_cpu() {
    let Some(ctx) = context() else { return };
    for c in cases() {
        let n = c.grains.len();
        // Tangential impulses too (in the cone, as a frictional solver leaves
        // them): the stage must carry both.
        let mut prev = lists_with_impulses(&c, 11);
        let mut rng = Rng::new(14);
        for s in prev.slots.iter_mut() {
            s.impulse_t = rng.f32(-0.5, 0.5) * s.impulse;
        }
        // The grains move a little: some contacts persist, some are new.
        let mut moved = case(c.name, 0, 0.1, (0.002, 0.003), c.k, 0);
        moved.grains = c.grains.clone();
        moved.walls = c.walls.clone();
        moved.grid = c.grid;
        let mut rng = Rng::new(12);
        for p in moved.grains.pos.iter_mut() {
            p[0] += rng.f32(-0.002, 0.002);
        }
        let mut want = lists_with_impulses(&moved, 13);
        let mut slots = want.slots.clone();
        for s in slots.iter_mut() {
            // Must all be overwritten.
            s.impulse = -1.0;
            s.impulse_t = -1.0;
        }
        cpu::warm_start::warm_start(&prev, &mut want);
        let carried_t = (0..n)
            .flat_map(|i| want.of(i).iter())
            .filter(|s| s.impulse_t != 0.0)
            .count();
        if n > 10 {
            assert!(carried_t > 0, "{}: no tangential impulse carried", c.name);
        }
        let k = kernel(&ctx, &c, Stage::WarmStart, "main");
        let (pb, count, sb) = (uni(&ctx, &params(&c)), buf(&ctx, &want.count), buf(&ctx, &slots));
        let (pc, ps_) = (buf(&ctx, &prev.count), buf(&ctx, &prev.slots));
        let given = [
            ("params", &pb),
            ("count", &count),
            ("slots", &sb),
            ("prev_count", &pc),
            ("prev_slots", &ps_),
        ];
        let g = k.group(&ctx, &given);
        run(&ctx, |ps| k.dispatch(ps, &g, n as u32));
        let got = get::<Contact>(&ctx, &sb, n * c.k);
        for i in 0..n {
            let m = (want.count[i] as usize).min(c.k);
            let r = i * c.k..i * c.k + m;
            assert_eq!(&got[r.clone()], &want.slots[r], "{}: warm_start grain {i}", c.name);
        }
    }
}

/// The projection constants of the GPU's `params`.
fn projection(p: &Params) -> cpu::jacobi::Projection {
    cpu::jacobi::Projection {
        inv_dt: p.inv_dt,
        beta: p.beta,
        slop: p.slop,
        omega: p.omega,
    }
}

#[test]
fn jacobi_contact_matches_cpu() {
    let Some(ctx) = context() else { return };
    for c in cases() {
        let n = c.grains.len();
        let p = params(&c);
        let lists = lists_with_impulses(&c, 21);
        // jacobi_contact (+ residual_max) from the grains' velocities.
        let mut want = lists.clone();
        let want_r = cpu::jacobi::jacobi_contact::<_, false>(
            &want.count,
            &mut want.slots,
            c.k,
            &c.grains.vel,
            &cpu::jacobi::Friction::NONE,
            &projection(&p),
        );
        let cfg = cfg(&c);
        let kc = Kernel::with_friction(&ctx, &cfg, Stage::JacobiContact, "main", false);
        let kr = Kernel::new(&ctx, &cfg, Stage::ResidualMax, "main");
        let (pb, count, slots, vel) = (
            uni(&ctx, &p),
            buf(&ctx, &lists.count),
            buf(&ctx, &lists.slots),
            buf(&ctx, &c.grains.vel),
        );
        let residual = storage_zeroed::<f32>(&ctx, "hourglass.test", n);
        let stats = storage_zeroed::<u32>(&ctx, "hourglass.test", STAT_WORDS as usize);
        let unread = buf(&ctx, &[0.0f32; 4]); // spin and radius: read with friction only
        let bc = [
            ("params", &pb),
            ("count", &count),
            ("slots", &slots),
            ("vel", &vel),
            ("residual", &residual),
            ("spin", &unread),
            ("radius", &unread),
        ];
        let gc = kc.group(&ctx, &bc);
        let gr = kr.group(
            &ctx,
            &[
                ("params", &pb),
                ("residual", &residual),
                ("vel", &vel),
                ("stats", &stats),
            ],
        );
        run(&ctx, |ps| {
            kc.dispatch(ps, &gc, n as u32);
            kr.dispatch(ps, &gr, n as u32);
        });
        let got = get::<Contact>(&ctx, &slots, n * c.k);
        let got = ContactLists {
            capacity: c.k,
            count: want.count.clone(),
            slots: got,
        };
        for i in 0..n {
            for (a, b) in got.of(i).iter().zip(want.of(i)) {
                assert!(
                    close(a.impulse, b.impulse, 1e-5, 1e-12),
                    "{}: jacobi_contact impulse of grain {i}: gpu {} cpu {}",
                    c.name,
                    a.impulse,
                    b.impulse
                );
            }
        }
        let words = get::<u32>(&ctx, &stats, STAT_WORDS as usize);
        let (r_gpu, s_gpu) = (
            f32::from_bits(words[STAT_RESIDUAL as usize]),
            f32::from_bits(words[STAT_SPEED2 as usize]),
        );
        let (_, s_cpu) = cpu::residual_max::residual_max(&[], &c.grains.vel);
        assert!(
            close(r_gpu, want_r, 1e-4, 1e-9),
            "{}: residual gpu {r_gpu} cpu {want_r}",
            c.name
        );
        assert!(
            close(s_gpu, s_cpu, 1e-6, 0.0),
            "{}: max speed^2 gpu {s_gpu} cpu {s_cpu}",
            c.name
        );
    }
}

#[test]
fn jacobi_gather_matches_cpu() {
    let Some(ctx) = context() else { return };
    for c in cases() {
        let n = c.grains.len();
        let p = params(&c);
        let want = lists_with_impulses(&c, 22);
        let cfg = cfg(&c);
        let (pb, count) = (uni(&ctx, &p), buf(&ctx, &want.count));
        // jacobi_gather from the CPU's new impulses.
        let mut vel_free = vec![[0.0; 2]; n];
        cpu::integrate::free_velocity::<Dim2>(&c.grains.vel, &c.grains.inv_mass, p.gravity, p.dt, &mut vel_free);
        let mut want_v = vec![[0.0; 2]; n];
        let free = cpu::jacobi::Free {
            vel: &vel_free,
            inv_mass: &c.grains.inv_mass,
            spin: &[],
            radius: &[],
        };
        let out = cpu::jacobi::Moving {
            vel: &mut want_v,
            spin: &mut [],
        };
        cpu::jacobi::jacobi_gather::<_, false>(&want.count, &want.slots, c.k, &free, out);
        let kg = Kernel::with_friction(&ctx, &cfg, Stage::JacobiGather, "main", false);
        let (slots, vf, im) = (
            buf(&ctx, &want.slots),
            buf(&ctx, &vel_free),
            buf(&ctx, &c.grains.inv_mass),
        );
        let out = storage_zeroed::<[f32; 2]>(&ctx, "hourglass.test", n);
        let (unread, unwritten) = (buf(&ctx, &[0.0f32; 4]), buf(&ctx, &[0.0f32; 4])); // friction only
        let bg = [
            ("params", &pb),
            ("count", &count),
            ("slots", &slots),
            ("vel_free", &vf),
            ("inv_mass", &im),
            ("vel", &out),
            ("spin_free", &unread),
            ("radius", &unread),
            ("spin", &unwritten),
        ];
        let gg = kg.group(&ctx, &bg);
        run(&ctx, |ps| kg.dispatch(ps, &gg, n as u32));
        assert_vec2_close(
            &format!("{}: jacobi_gather", c.name),
            &get(&ctx, &out, n),
            &want_v,
            1e-6,
            1e-6,
        );
    }
}

/// The `reduce` stage on the GPU, summed on the host.
fn gpu_reduce(ctx: &GpuContext, c: &Case, grains: &Grains, lists: &ContactLists, p: &Params) -> Totals {
    let n = grains.len();
    let k = kernel(ctx, c, Stage::Reduce, "main");
    let b = (
        uni(ctx, p),
        buf(ctx, &grains.pos),
        buf(ctx, &grains.vel),
        buf(ctx, &grains.radius),
        buf(ctx, &grains.inv_mass),
        buf(ctx, &lists.count),
        buf(ctx, &lists.slots),
        buf(ctx, &c.walls.segments),
        buf(ctx, &c.walls.corners),
    );
    let partials = storage_zeroed::<ReducePartial>(ctx, "hourglass.test", reduce::partials(n));
    let g = k.group(
        ctx,
        &[
            ("params", &b.0),
            ("pos", &b.1),
            ("vel", &b.2),
            ("radius", &b.3),
            ("inv_mass", &b.4),
            ("count", &b.5),
            ("slots", &b.6),
            ("segments", &b.7),
            ("corners", &b.8),
            ("partials", &partials),
        ],
    );
    run(ctx, |ps| k.dispatch(ps, &g, n as u32));
    reduce::sum_partials(&get(ctx, &partials, reduce::partials(n)))
}

/// A square outline of side 0.1 m (no baffle: every segment has an inside)
/// and the given grains of radius 3 mm.
fn square_case(name: &'static str, pos: Vec<[f32; 2]>) -> Case {
    let n = pos.len();
    let grains = Grains::new(pos, vec![[0.0; 2]; n], vec![0.003; n], 2500.0);
    let walls = Walls::new(&[
        [[0.0, 0.0], [0.1, 0.0]],
        [[0.1, 0.0], [0.1, 0.1]],
        [[0.1, 0.1], [0.0, 0.1]],
        [[0.0, 0.1], [0.0, 0.0]],
    ]);
    let grid = Grid::covering(walls.bounding_box(), 0.006 + ALERT).unwrap();
    Case {
        name,
        grains,
        walls,
        grid,
        k: 16,
    }
}

/// A grain whose centre has crossed a wall (2 mm below the floor, 1 mm past
/// the right wall) gets the wall's inward normal and a gap below -r, on the
/// CPU and on the GPU alike: it is pushed back in, never out the far side.
#[test]
fn detect_pushes_crossed_grains_back_in() {
    let c = square_case("crossed", vec![[0.05, -0.002], [0.101, 0.05], [0.05, 0.05]]);
    let mut bins = Bins::default();
    bins.build(&c.grid, &c.grains.pos);
    let want = cpu_detect(&c, &bins);
    let check = |lists: &ContactLists, who: &str| {
        for (i, inward) in [(0, [0.0, 1.0]), (1, [-1.0, 0.0])] {
            let wall: Vec<&Contact> = lists
                .of(i)
                .iter()
                .filter(|k| matches!(k.body(), Body::Segment(_)))
                .collect();
            assert_eq!(wall.len(), 1, "{who}: grain {i} touches one segment: {wall:?}");
            assert_eq!(wall[0].normal, inward, "{who}: grain {i} normal");
            assert!(wall[0].gap < -0.003, "{who}: grain {i} gap {} < -r", wall[0].gap);
        }
        assert_eq!(lists.count[2], 0, "{who}: the middle grain touches nothing");
    };
    check(&want, "cpu");
    let gap0 = want.of(0)[0].gap;
    assert!((gap0 + 0.005).abs() < 1e-6, "cpu: gap = -(2 mm + r), got {gap0}");
    let Some(ctx) = context() else { return };
    let (count, slots, _) = gpu_detect(&ctx, &c, &bins.cell_start, &bins.sorted);
    let got = ContactLists {
        capacity: c.k,
        count,
        slots,
    };
    check(&got, "gpu");
    for i in 0..c.grains.len() {
        for (a, b) in got.of(i).iter().zip(want.of(i)) {
            assert_contact_close(&format!("crossed: grain {i}"), a, b);
        }
    }
}

/// A grain lost below the walls is below the neck too, yet it has not passed
/// (CPU and GPU alike); a grain whose centre is past a wall by less than its
/// radius is not lost.
#[test]
fn lost_grains_are_not_passed() {
    let c = square_case("lost", vec![[0.05, 0.08], [0.05, 0.02], [0.05, -0.5], [0.05, -0.002]]);
    let lists = ContactLists::new(c.grains.len(), c.k);
    let region = Region {
        gravity: [0.0, -9.81],
        neck_y: 0.05,
        bbox: c.walls.bounding_box(),
        period: 0.0,
    };
    let want = cpu::reduce::reduce(&c.grains, &lists, &c.walls, &region);
    assert_eq!((want.passed, want.lost), (2, 1), "cpu: passed, lost");
    let Some(ctx) = context() else { return };
    let mut p = params(&c);
    p.neck_y = region.neck_y;
    let got = gpu_reduce(&ctx, &c, &c.grains, &lists, &p);
    assert_eq!((got.passed, got.lost), (2, 1), "gpu: passed, lost");
}

#[test]
fn reduce_matches_cpu() {
    let Some(ctx) = context() else { return };
    for c in cases() {
        let n = c.grains.len();
        let p = params(&c);
        let lists = lists_with_impulses(&c, 31);
        let region = Region {
            gravity: p.gravity,
            neck_y: p.neck_y * c.walls.bounding_box()[3],
            bbox: c.walls.bounding_box(),
            period: c.grid.period,
        };
        let mut grains = c.grains.clone();
        if n > 10 {
            grains.pos[5] = [-1.0, -1.0]; // lost
        }
        let want = cpu::reduce::reduce(&grains, &lists, &c.walls, &region);
        let mut p = p;
        p.neck_y = region.neck_y;
        let got = gpu_reduce(&ctx, &c, &grains, &lists, &p);
        // Scales: the sums of magnitudes of each total's terms.
        let m = |i: usize| {
            if grains.inv_mass[i] > 0.0 {
                1.0 / f64::from(grains.inv_mass[i])
            } else {
                0.0
            }
        };
        let scale_e: f64 = (0..n)
            .map(|i| m(i) * (1.0 + f64::from(grains.pos[i][1]).abs() * 9.81))
            .sum();
        let scale_p: f64 = (0..n).map(m).sum();
        let near = |a: f64, b: f64, s: f64| (a - b).abs() <= 1e-5 * s + 1e-12;
        assert!(
            near(got.kinetic_energy, want.kinetic_energy, scale_e),
            "{}: kinetic {got:?} {want:?}",
            c.name
        );
        assert!(
            near(got.potential_energy, want.potential_energy, scale_e),
            "{}: potential",
            c.name
        );
        assert!(
            near(got.momentum[0], want.momentum[0], scale_p),
            "{}: momentum x",
            c.name
        );
        assert!(
            near(got.momentum[1], want.momentum[1], scale_p),
            "{}: momentum y",
            c.name
        );
        assert_eq!(
            (got.passed, got.lost),
            (want.passed, want.lost),
            "{}: passed, lost",
            c.name
        );
        assert!(
            near(got.max_overlap, want.max_overlap, want.max_overlap),
            "{}: max overlap",
            c.name
        );
        assert!(
            near(got.max_speed, want.max_speed, want.max_speed),
            "{}: max speed",
            c.name
        );
    }
}

#[test]
fn reorder_matches_cpu() {
    let Some(ctx) = context() else { return };
    for c in cases() {
        let n = c.grains.len();
        let mut bins = Bins::default();
        bins.build(&c.grid, &c.grains.pos);
        let want = cpu::reorder::reorder(&bins.sorted, &c.grains);
        let k = [
            kernel(&ctx, &c, Stage::Reorder, "gather1"),
            kernel(&ctx, &c, Stage::Reorder, "gather2"),
        ];
        let (pb, sorted) = (uni(&ctx, &params(&c)), buf(&ctx, &bins.sorted));
        let src2 = [buf(&ctx, &c.grains.pos), buf(&ctx, &c.grains.vel)];
        let src1 = [
            buf(&ctx, &c.grains.radius),
            buf(&ctx, &c.grains.inv_mass),
            buf(&ctx, &c.grains.id),
        ];
        let dst2 = [0, 1].map(|_| storage_zeroed::<[f32; 2]>(&ctx, "hourglass.test", n));
        let dst1 = [0, 1, 2].map(|_| storage_zeroed::<u32>(&ctx, "hourglass.test", n));
        let mut groups = Vec::new();
        for (s, d) in src2.iter().zip(&dst2) {
            let given = [("params", &pb), ("sorted", &sorted), ("src2", s), ("dst2", d)];
            groups.push((1, k[1].group(&ctx, &given)));
        }
        for (s, d) in src1.iter().zip(&dst1) {
            let given = [("params", &pb), ("sorted", &sorted), ("src1", s), ("dst1", d)];
            groups.push((0, k[0].group(&ctx, &given)));
        }
        run(&ctx, |ps| {
            groups.iter().for_each(|(w, g)| k[*w].dispatch(ps, g, n as u32))
        });
        let got = Grains {
            pos: get(&ctx, &dst2[0], n),
            vel: get(&ctx, &dst2[1], n),
            radius: get(&ctx, &dst1[0], n),
            inv_mass: get(&ctx, &dst1[1], n),
            id: get(&ctx, &dst1[2], n),
            ang_vel: want.ang_vel.clone(),
            angle: want.angle.clone(),
        };
        assert_eq!(got, want, "{}: reorder", c.name);
    }
}

/// Spins (rad/s, up to 100: r w up to 0.3 m/s, the size of the velocities)
/// and in-cone tangential impulses for the frictional stages (docs/nscd.md#coulomb-friction-and-rotation).
fn friction_input(c: &Case, seed: u64) -> (ContactLists, Vec<f32>, Params) {
    let mut lists = lists_with_impulses(c, seed);
    let mut rng = Rng::new(seed + 1);
    for s in lists.slots.iter_mut() {
        s.impulse_t = rng.f32(-0.5, 0.5) * s.impulse;
    }
    // Both copies of a grain-grain contact hold the same impulses, as a solver leaves them.
    let k = lists.capacity;
    for i in 0..lists.grains() {
        for s in 0..lists.of(i).len() {
            let Body::Grain(j) = lists.of(i)[s].body() else {
                continue;
            };
            let j = j as usize;
            if j < i
                && let Some(t) = lists.of(j).iter().position(|m| m.other == i as u32)
            {
                let m = lists.slots[j * k + t];
                let c = &mut lists.slots[i * k + s];
                (c.impulse, c.impulse_t) = (m.impulse, m.impulse_t);
            }
        }
    }
    let spin = (0..c.grains.len()).map(|_| rng.f32(-100.0, 100.0)).collect();
    let mut p = params(c);
    (p.mu, p.mu_wall) = (0.5, 0.3);
    (lists, spin, p)
}

/// `integrate_angle`: theta += dt w (one multiply-add: 1e-6 relative).
#[test]
fn integrate_angle_matches_cpu() {
    let Some(ctx) = context() else { return };
    for c in cases() {
        let n = c.grains.len();
        let (_, spin, p) = friction_input(&c, 51);
        let mut rng = Rng::new(52);
        let angle: Vec<f32> = (0..n).map(|_| rng.f32(-10.0, 10.0)).collect();
        let mut want = angle.clone();
        cpu::integrate::integrate_angle::<Dim2>(&mut want, &spin, p.dt);
        let k = kernel(&ctx, &c, Stage::Integrate, "integrate_angle");
        let (pb, a, w) = (uni(&ctx, &p), buf(&ctx, &angle), buf(&ctx, &spin));
        let g = k.group(&ctx, &[("params", &pb), ("angle", &a), ("spin", &w)]);
        run(&ctx, |ps| k.dispatch(ps, &g, n as u32));
        let got: Vec<f32> = get(&ctx, &a, n);
        for (i, (&x, &y)) in got.iter().zip(&want).enumerate() {
            assert!(
                close(x, y, 1e-6, 1e-9),
                "{}: angle of grain {i}: gpu {x} cpu {y}",
                c.name
            );
        }
        if n > 0 {
            assert!(want != angle, "{}: no grain turned", c.name);
        }
    }
}

/// `jacobi_contact::friction`: (P_n', P_t') of every contact and the largest
/// correction (tolerances of `jacobi_contact_matches_cpu`); the CPU side
/// stays inside the Coulomb cone, and both copies of a grain-grain contact
/// agree (the note of model::contact).
#[test]
fn jacobi_contact_friction_matches_cpu() {
    let Some(ctx) = context() else { return };
    for c in cases() {
        let n = c.grains.len();
        let (lists, spin, p) = friction_input(&c, 61);
        let mut want = lists.clone();
        let f = cpu::jacobi::Friction {
            spin: &spin,
            radius: &c.grains.radius,
            mu: p.mu,
            mu_wall: p.mu_wall,
        };
        let (count, k) = (want.count.clone(), c.k);
        let want_r =
            cpu::jacobi::jacobi_contact::<_, true>(&count, &mut want.slots, k, &c.grains.vel, &f, &projection(&p));
        let cfg = cfg(&c);
        let kc = Kernel::with_friction(&ctx, &cfg, Stage::JacobiContact, "main", true);
        let kr = Kernel::new(&ctx, &cfg, Stage::ResidualMax, "main");
        let (pb, count_b, slots) = (uni(&ctx, &p), buf(&ctx, &lists.count), buf(&ctx, &lists.slots));
        let (vel, w, r) = (buf(&ctx, &c.grains.vel), buf(&ctx, &spin), buf(&ctx, &c.grains.radius));
        let residual = storage_zeroed::<f32>(&ctx, "hourglass.test", n);
        let stats = storage_zeroed::<u32>(&ctx, "hourglass.test", STAT_WORDS as usize);
        let bc = [
            ("params", &pb),
            ("count", &count_b),
            ("slots", &slots),
            ("vel", &vel),
            ("residual", &residual),
            ("spin", &w),
            ("radius", &r),
        ];
        let gc = kc.group(&ctx, &bc);
        let gr = kr.group(
            &ctx,
            &[
                ("params", &pb),
                ("residual", &residual),
                ("vel", &vel),
                ("stats", &stats),
            ],
        );
        run(&ctx, |ps| {
            kc.dispatch(ps, &gc, n as u32);
            kr.dispatch(ps, &gr, n as u32);
        });
        let got = get::<Contact>(&ctx, &slots, n * c.k);
        let mut tangential = false;
        for i in 0..n {
            for (s, b) in want.of(i).iter().enumerate() {
                let a = got[i * c.k + s];
                // P_t' = P_t - omega u_t / 3W cancels to near zero where the
                // contact sticks: its floor is a few ulps of the normal impulses
                // (up to 1e-2 N s on overlapping grains: ulp 1e-9 N s).
                assert!(
                    close(a.impulse, b.impulse, 1e-5, 1e-12) && close(a.impulse_t, b.impulse_t, 1e-5, 1e-8),
                    "{}: jacobi_contact with FRICTION, grain {i} slot {s}: gpu {a:?} cpu {b:?}",
                    c.name
                );
                let mu = if matches!(b.body(), Body::Grain(_)) {
                    p.mu
                } else {
                    p.mu_wall
                };
                assert!(
                    b.impulse_t.abs() <= mu * b.impulse,
                    "{}: outside the cone: {b:?}",
                    c.name
                );
                tangential |= b.impulse_t != lists.of(i)[s].impulse_t;
                if let Body::Grain(j) = b.body() {
                    // The mirror copy, where grain j's list kept it.
                    if let Some(m) = want.of(j as usize).iter().find(|m| m.other == i as u32) {
                        assert_eq!((m.impulse, m.impulse_t), (b.impulse, b.impulse_t), "{}: copies", c.name);
                    }
                }
            }
        }
        if n > 10 {
            assert!(tangential, "{}: no tangential impulse changed", c.name);
        }
        let words = get::<u32>(&ctx, &stats, STAT_WORDS as usize);
        let r_gpu = f32::from_bits(words[STAT_RESIDUAL as usize]);
        assert!(
            close(r_gpu, want_r, 1e-4, 1e-9),
            "{}: residual gpu {r_gpu} cpu {want_r}",
            c.name
        );
    }
}

/// `jacobi_gather::friction`: velocities and spins from the free ones and
/// both impulse components (velocities as `jacobi_gather_matches_cpu`; a
/// spin is 2 im / r times an impulse sum: floor 1e-4 rad/s).
#[test]
fn jacobi_gather_friction_matches_cpu() {
    let Some(ctx) = context() else { return };
    for c in cases() {
        let n = c.grains.len();
        let (want, spin_free, p) = friction_input(&c, 71);
        let mut vel_free = vec![[0.0; 2]; n];
        cpu::integrate::free_velocity::<Dim2>(&c.grains.vel, &c.grains.inv_mass, p.gravity, p.dt, &mut vel_free);
        let (mut want_v, mut want_w) = (vec![[0.0; 2]; n], vec![0.0f32; n]);
        let free = cpu::jacobi::Free {
            vel: &vel_free,
            inv_mass: &c.grains.inv_mass,
            spin: &spin_free,
            radius: &c.grains.radius,
        };
        let out = cpu::jacobi::Moving {
            vel: &mut want_v,
            spin: &mut want_w,
        };
        cpu::jacobi::jacobi_gather::<_, true>(&want.count, &want.slots, c.k, &free, out);
        let kg = Kernel::with_friction(&ctx, &cfg(&c), Stage::JacobiGather, "main", true);
        let (pb, count, slots) = (uni(&ctx, &p), buf(&ctx, &want.count), buf(&ctx, &want.slots));
        let (vf, im, wf, r) = (
            buf(&ctx, &vel_free),
            buf(&ctx, &c.grains.inv_mass),
            buf(&ctx, &spin_free),
            buf(&ctx, &c.grains.radius),
        );
        let out = storage_zeroed::<[f32; 2]>(&ctx, "hourglass.test", n);
        let w = buf(&ctx, &vec![7.0f32; n]); // every word must be written
        let bg = [
            ("params", &pb),
            ("count", &count),
            ("slots", &slots),
            ("vel_free", &vf),
            ("inv_mass", &im),
            ("vel", &out),
            ("spin_free", &wf),
            ("radius", &r),
            ("spin", &w),
        ];
        let gg = kg.group(&ctx, &bg);
        run(&ctx, |ps| kg.dispatch(ps, &gg, n as u32));
        let what = format!("{}: jacobi_gather with FRICTION", c.name);
        assert_vec2_close(&what, &get(&ctx, &out, n), &want_v, 1e-6, 1e-6);
        let got_w: Vec<f32> = get(&ctx, &w, n);
        for (i, (&a, &b)) in got_w.iter().zip(&want_w).enumerate() {
            assert!(close(a, b, 1e-5, 1e-4), "{what}: spin of grain {i}: gpu {a} cpu {b}");
        }
        if n > 10 {
            assert!(want_w != spin_free, "{what}: no spin kick");
        }
    }
}

/// The message of the panic `f` raises (none: "").
fn panic_message(f: impl FnOnce()) -> String {
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).err();
    let text = err.as_ref().and_then(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
    });
    text.unwrap_or_default()
}

/// `Kernel::group` binds by the registry's binding names: a name the entry
/// point does not declare, and a declared binding left out, each panic
/// naming the entry point (and the name at fault); the right names bind.
#[test]
fn kernel_group_by_a_wrong_or_missing_name_panics_naming_the_entry_point() {
    let Some(ctx) = context() else { return };
    let cfg = ShaderConfig::new(4);
    let k = Kernel::new(&ctx, &cfg, Stage::Integrate, "integrate_angle");
    let (pb, angle, spin) = (
        uni(&ctx, &Params::default()),
        buf(&ctx, &[0.0f32; 4]),
        buf(&ctx, &[0.0f32; 4]),
    );
    let wrong = panic_message(|| {
        k.group(&ctx, &[("params", &pb), ("angle", &angle), ("spin_rate", &spin)]);
    });
    assert!(
        wrong.contains("integrate::integrate_angle: no binding named `spin_rate`"),
        "wrong name: {wrong:?}"
    );
    let missing = panic_message(|| {
        k.group(&ctx, &[("params", &pb), ("angle", &angle)]);
    });
    assert!(
        missing.starts_with("integrate::integrate_angle: bindings given [\"params\", \"angle\"]"),
        "missing name: {missing:?}"
    );
    let twice = panic_message(|| {
        k.group(
            &ctx,
            &[("params", &pb), ("angle", &angle), ("spin", &spin), ("angle", &angle)],
        );
    });
    assert!(twice.starts_with("integrate::integrate_angle: "), "twice: {twice:?}");
    assert_eq!(
        panic_message(|| {
            k.group(&ctx, &[("spin", &spin), ("params", &pb), ("angle", &angle)]);
        }),
        ""
    );
}
