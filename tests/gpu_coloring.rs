//! The coloured-NLGS and Uzawa GPU stages against their CPU twins:
//! `coloring_matches_cpu` (exact), `colored_buckets_match_cpu` (exact, as
//! sets per colour), and whole GPU steps with each solver against the CPU
//! step (the per-colour solve and Uzawa's update, f32 within 2e-3 of the
//! largest speed after whole solves).

mod gpu_common;

use gpu_common::{buf, context, get, uni};
use hourglass::backend::Backend;
use hourglass::cpu;
use hourglass::gpu::{GpuBackend, Params, ShaderConfig, coloring};
use hourglass::model::Grid;
use hourglass::model::{ContactLists, Grains, SolverKind, StepParams, Walls};

/// A short-settled packed pile and its contact lists (CPU detection).
fn pile(n_side: usize) -> (Grains, Walls, Grid, ContactLists) {
    let r = 0.003f32;
    let mut list = Vec::new();
    let gap = 1e-5;
    for row in 0..n_side {
        for k in 0..n_side - row {
            // Slightly polydisperse so that contacts differ.
            let rr = r * (0.9 + 0.1 * (((row * 31 + k * 17) % 7) as f32 / 7.0));
            list.push((
                (2.0 * r + gap) * (k as f32 + 0.5 * row as f32) + r,
                r + row as f32 * (3f32.sqrt() * (r + gap)) + gap,
                rr,
            ));
        }
    }
    let mut g = Grains::new(
        list.iter().map(|p| [p.0, p.1]).collect(),
        vec![[0.0, -0.05]; list.len()],
        list.iter().map(|p| p.2).collect(),
        2500.0,
    );
    g.inv_mass[0] = 0.0; // a fixed grain
    let width = f64::from((2.0 * r + gap) * n_side as f32);
    let w = Walls::new(&[
        [[-0.001, 0.0], [width + 0.001, 0.0]],
        [[-0.001, 0.0], [-0.001, 1.0]],
        [[width + 0.001, 0.0], [width + 0.001, 1.0]],
    ]);
    let grid = Grid::covering([-0.01, -0.01, 0.3, 0.3], 2.0 * r + 0.003).unwrap();
    let mut s = cpu::CpuStepper::new(grid, 16);
    let lists = s.detect(&g, &w, 0.003).clone();
    (g, w, grid, lists)
}

fn params(grid: &Grid, n: usize) -> Params {
    let mut p = Params::new(grid, n, 3, 4);
    p.dt = 1e-3;
    p.inv_dt = 1e3;
    p.beta = 0.2;
    p.slop = 5e-6;
    p
}

#[test]
fn coloring_matches_cpu() {
    let Some(ctx) = context() else { return };
    for n_side in [1, 7, 40] {
        let (g, _, grid, lists) = pile(n_side);
        let n = g.len();
        let cpu_col = cpu::coloring::color_contacts(&lists, &g.inv_mass);
        let cfg = ShaderConfig::new(16);
        let k = coloring::Coloring::new(&ctx, &cfg);
        let pb = uni(&ctx, &params(&grid, n));
        let count = buf(&ctx, &lists.count);
        let slots = buf(&ctx, &lists.slots);
        let im = buf(&ctx, &g.inv_mass);
        let cb = coloring::ColorBuffers::new(&ctx, lists.slots.len());
        let lists_named = [("params", &pb), ("count", &count), ("slots", &slots)];
        let init = k
            .init
            .group(&ctx, &[&lists_named[..], &[("color_out", &cb.color[0])][..]].concat());
        let rounds = [0, 1].map(|r| {
            let more = [
                ("inv_mass", &im),
                ("color_in", &cb.color[r]),
                ("color_out", &cb.color[1 - r]),
            ];
            k.round.group(&ctx, &[&lists_named[..], &more[..]].concat())
        });
        let more = [("color_in", &cb.color[0]), ("color_stats", &cb.stats)];
        let cnt = k.count.group(&ctx, &[&lists_named[..], &more[..]].concat());
        gpu_common::run(&ctx, |p| k.init.dispatch(p, &init, n as u32));
        let bytes = lists.slots.len() as u64 * 4;
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&cb.color[0], 0, &cb.color[1], 0, bytes);
        ctx.queue.submit([enc.finish()]);
        let mut batches = 0;
        loop {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.clear_buffer(&cb.stats, 0, None);
            ctx.queue.submit([enc.finish()]);
            gpu_common::run(&ctx, |p| {
                for r in 0..coloring::ROUNDS_PER_CHECK {
                    k.round.dispatch(p, &rounds[(r % 2) as usize], n as u32);
                }
                k.count.dispatch(p, &cnt, n as u32);
            });
            batches += 1;
            let st: Vec<u32> = get(&ctx, &cb.stats, 3);
            if st[1] == 0 {
                assert_eq!((st[0], st[2]), (cpu_col.colors, cpu_col.overflow));
                break;
            }
            assert!(batches < 100);
        }
        let gpu_color: Vec<u32> = get(&ctx, &cb.color[0], lists.slots.len());
        for i in 0..n {
            for s in 0..lists.of(i).len() {
                assert_eq!(
                    gpu_color[i * 16 + s],
                    cpu_col.color[i * 16 + s],
                    "pile {n_side}: grain {i} slot {s}"
                );
            }
        }
        println!("pile {n_side}: {} colours, {} rounds", cpu_col.colors, cpu_col.rounds);
    }
}

/// The colour buckets (`bucket_count`, `bucket_scatter`) hold exactly the
/// CPU's per-colour lists (`ColoredSweep::build`), each colour as a set
/// (the GPU's order inside a colour is free).
#[test]
fn colored_buckets_match_cpu() {
    use hourglass::gpu::colored::{Buckets, Colored, ColoredBindings, bucket_starts, pass_colors, write_pass_colors};
    let Some(ctx) = context() else { return };
    for n_side in [1, 7, 40] {
        let (g, _, grid, lists) = pile(n_side);
        let n = g.len();
        let coloring = cpu::coloring::color_contacts(&lists, &g.inv_mass);
        let mut sweep = cpu::colored::ColoredSweep::default();
        sweep.build(&lists.count, &lists.slots, 16, &coloring);
        let kernels = Colored::new(&ctx, &ShaderConfig::new(16));
        let (pb, count, slots) = (
            uni(&ctx, &params(&grid, n)),
            buf(&ctx, &lists.count),
            buf(&ctx, &lists.slots),
        );
        let (color, im, vel) = (buf(&ctx, &coloring.color), buf(&ctx, &g.inv_mass), buf(&ctx, &g.vel));
        let residual = buf(&ctx, &vec![0f32; n]);
        let buckets = Buckets::new(&ctx, lists.slots.len());
        let b = ColoredBindings {
            params: &pb,
            count: &count,
            slots: &slots,
            color: &color,
            inv_mass: &im,
            vel: &vel,
            residual: &residual,
            buckets: &buckets,
            radius: &im,
            spin: &residual,
            relax: &pb,
        };
        let (cnt, scatter) = (
            kernels.bucket_count.group(&ctx, &b.bucket_count()),
            kernels.bucket_scatter.group(&ctx, &b.bucket_scatter()),
        );
        gpu_common::run(&ctx, |p| kernels.bucket_count.dispatch(p, &cnt, n as u32));
        let colors = coloring.colors as usize;
        let sizes: Vec<u32> = get(&ctx, &buckets.size, colors);
        let want: Vec<u32> = (0..colors)
            .map(|k| (sweep.start[k + 1] - sweep.start[k]) as u32)
            .collect();
        assert_eq!(sizes, want, "pile {n_side}: contacts per colour");
        let starts = bucket_starts(&sizes);
        assert_eq!(
            starts,
            sweep.start[..colors].iter().map(|&s| s as u32).collect::<Vec<_>>()
        );
        write_pass_colors(&ctx, &pass_colors(&ctx), &buckets, &sizes);
        gpu_common::run(&ctx, |p| kernels.bucket_scatter.dispatch(p, &scatter, n as u32));
        let total = sweep.start[colors];
        let got: Vec<u32> = get(&ctx, &buckets.bucket, total);
        for k in 0..colors {
            let (a, e) = (sweep.start[k], sweep.start[k + 1]);
            let mut gpu_k = got[a..e].to_vec();
            gpu_k.sort_unstable();
            assert_eq!(gpu_k, sweep.slot[a..e], "pile {n_side}: colour {k}");
            for &s in &gpu_k {
                assert_eq!(sweep.grain[a + sweep.slot[a..e].binary_search(&s).unwrap()], s / 16);
            }
        }
        println!("pile {n_side}: {colors} colours, {total} bucketed contacts");
    }
}

fn step_params(solver: SolverKind) -> StepParams {
    StepParams {
        gravity: [0.0, -9.81],
        dt: 1e-3,
        alert: 0.003,
        tol: 1e-7,
        itmax: 2000,
        omega: 0.5,
        overlap_relax: 0.2,
        overlap_relax_default: false,
        overlap_iterations: 0,
        solver,
        warm_start: true,
        mu: 0.0,
        mu_wall: 0.0,
        cohesion: Default::default(),
        restitution: 0.0,
        forcing: Default::default(),
    }
}

/// Whole steps on both backends: the GPU's colored (uzawa) solve matches the
/// CPU's within f32 tolerance, step after step.
#[test]
fn colored_and_uzawa_steps_match_cpu() {
    let (g, w, grid, _) = pile(30);
    for solver in [SolverKind::Colored, SolverKind::Uzawa] {
        let Some(ctx) = context() else { return };
        let p = step_params(solver);
        let mut gpu = GpuBackend::new(ctx, g.clone(), w.clone(), grid, 16).unwrap();
        gpu.reorder_every = 0;
        gpu.check_every = 1;
        let mut cpu = hourglass::backend::CpuBackend::new(g.clone(), w.clone(), grid, 16);
        for step in 0..5 {
            // Profiling (odd steps) times the colouring and changes nothing else.
            gpu.profile = step % 2 == 1;
            let a = gpu.step(&p).unwrap();
            let b = cpu.step(&p).unwrap();
            let colored = solver == SolverKind::Colored;
            assert_eq!(
                a.coloring_ms > 0.0,
                colored && gpu.profile,
                "{solver:?} step {step}: {a:?}"
            );
            assert_eq!(b.coloring_ms > 0.0, colored, "{solver:?} step {step}: {b:?}");
            assert_eq!(a.contacts, b.contacts, "{solver:?} step {step}");
            let diff = (a.iterations as i64 - b.iterations as i64).abs();
            assert!(
                diff <= 2 + b.iterations as i64 / 20,
                "{solver:?} step {step}: {} vs {} iterations",
                a.iterations,
                b.iterations
            );
            let gv = gpu.grains().unwrap().vel.clone();
            let cv = &cpu.grains;
            let vmax = cv
                .vel
                .iter()
                .map(|v| v[0].abs().max(v[1].abs()))
                .fold(1e-3f32, f32::max);
            let worst = gv
                .iter()
                .zip(&cv.vel)
                .map(|(x, y)| (x[0] - y[0]).abs().max((x[1] - y[1]).abs()))
                .fold(0.0f32, f32::max);
            assert!(
                worst <= 2e-3 * vmax,
                "{solver:?} step {step}: velocities differ by {worst} (max {vmax})"
            );
            if solver == SolverKind::Colored {
                assert_eq!(gpu.colors, cpu.stepper.colors, "step {step}: colour count");
            }
        }
    }
}

/// The study on the GPU: the three GPU solvers get GPU figures, and the cold
/// step's residual history has one entry per iteration (convergence is
/// checked every iteration there), agreeing with the CPU's within f32 noise.
#[test]
fn study_measures_the_gpu_solvers_with_a_residual_per_iteration() {
    use hourglass::app::study::{self, SettleConfig, StudyConfig};
    let Some(ctx) = context() else { return };
    let mut scene = hourglass::scene::Scene::default();
    let (w, h) = (0.1, 0.2);
    scene.walls.segments = Some(vec![[0.0, h, 0.0, 0.0], [0.0, 0.0, w, 0.0], [w, 0.0, w, h]]);
    scene.grains.count = 100;
    scene.grains.region = Some([0.0, 0.0, w, h]);
    let setup = hourglass::scene::build(&scene).unwrap();
    let settle = SettleConfig {
        min_steps: 30,
        max_steps: 60,
        ..SettleConfig::default()
    };
    let packed = study::settle("pile100", &setup, &settle).unwrap();
    let cfg = StudyConfig {
        budget: 20,
        warmup: 1,
        steps: 1,
        itmax: 300,
        omegas: vec![0.5],
        ..StudyConfig::default()
    };
    let res = study::study_state(&packed, &cfg, Some(&ctx), &mut |_| {}).unwrap();
    let on_gpu: Vec<String> = res
        .rows
        .iter()
        .filter(|r| r.gpu.is_some())
        .map(|r| r.variant.label())
        .collect();
    assert_eq!(on_gpu, ["jacobi 0.5", "colored", "uzawa", "apgd"]);
    assert_eq!(res.gpu_histories.len(), 4);
    for r in res.rows.iter().filter(|r| r.gpu.is_some()) {
        let label = r.variant.label();
        let (g, c) = (r.gpu.unwrap(), r.cpu.unwrap());
        let (_, h) = res.gpu_histories.iter().find(|(v, _)| *v == r.variant).unwrap();
        assert_eq!(h.len() as u32, g.cold_iterations.unwrap_or(cfg.itmax), "{label}");
        assert_eq!(h[(cfg.budget as usize).min(h.len()) - 1], g.residual_budget, "{label}");
        // Same state, same solver: the residual after the budget agrees with the CPU's.
        assert!(
            (g.residual_budget - c.residual_budget).abs() <= 0.05 * c.residual_budget + 1e-6,
            "{label}: GPU {} vs CPU {}",
            g.residual_budget,
            c.residual_budget
        );
        let colored = r.variant.solver == SolverKind::Colored;
        assert_eq!(g.colors > 0, colored, "{label}");
        // The study profiles the GPU colouring; it is a part of the step.
        assert_eq!(g.coloring_ms > 0.0, colored, "{label}: {g:?}");
        assert!(g.coloring_ms < g.ms_per_step, "{label}: {g:?}");
    }
}

/// A grain whose full list drops one of its contacts: grain 0 (the lowest
/// index, so it owns all five) meets five grains with room for 4 contacts.
/// The dropped contact lives only in the other grain's list (an orphan), and
/// no owned copy is in the overflow colour, so only the orphan tells the GPU
/// to run the overflow pass. Both backends must stop all five grains.
#[test]
fn orphaned_contact_is_solved_on_the_gpu_like_on_the_cpu() {
    let Some(ctx) = context() else { return };
    let r = 0.001f32;
    let c = [0.05f32, 0.05];
    let mut pos = vec![c];
    let mut vel = vec![[0.0, 0.0]];
    for k in 0..5 {
        let a = k as f32 * std::f32::consts::TAU / 5.0;
        let (dx, dy) = (a.cos(), a.sin());
        pos.push([c[0] + (2.0 * r + 2e-5) * dx, c[1] + (2.0 * r + 2e-5) * dy]);
        // Each approaches grain 0 at 0.1 m/s.
        vel.push([-0.1 * dx, -0.1 * dy]);
    }
    let g = Grains::new(pos, vel, vec![r; 6], 2500.0);
    let w = Walls::new(&[]);
    let grid = Grid::covering([0.0, 0.0, 0.1, 0.1], 2.0 * r + 1e-4).unwrap();
    let capacity = 4;
    let mut p = step_params(SolverKind::Colored);
    p.gravity = [0.0, 0.0];
    p.alert = 1e-4;
    let mut gpu = GpuBackend::new(ctx, g.clone(), w.clone(), grid, capacity).unwrap();
    gpu.reorder_every = 0;
    let mut cpu = hourglass::backend::CpuBackend::new(g, w, grid, capacity);
    let a = gpu.step(&p).unwrap();
    let b = cpu.step(&p).unwrap();
    // The contact count is taken from the owners' lists, so the orphan is not in it.
    assert_eq!(
        (a.contacts, a.overflow),
        (4, 1),
        "one contact dropped by grain 0's list: {a:?}"
    );
    assert_eq!((b.contacts, b.overflow), (4, 1), "{b:?}");
    assert!(a.converged && b.converged, "{a:?} {b:?}");
    let gv = gpu.grains().unwrap().vel.clone();
    let (gp, cv) = (&cpu.grains.pos, &cpu.grains.vel);
    for j in 1..6 {
        let n = [gp[j][0] - gp[0][0], gp[j][1] - gp[0][1]];
        let len = (n[0] * n[0] + n[1] * n[1]).sqrt();
        for (name, v) in [("gpu", &gv), ("cpu", cv)] {
            // Normal velocity of j away from 0: at most closing the 2e-5 m gap
            // in this step (u >= -d/dt = -0.02 m/s), not the 0.1 m/s it came with.
            let un = ((v[j][0] - v[0][0]) * n[0] + (v[j][1] - v[0][1]) * n[1]) / len;
            assert!(un > -0.021, "{name}: grain {j} still approaches grain 0 at {un} m/s");
        }
        let d = (gv[j][0] - cv[j][0]).abs().max((gv[j][1] - cv[j][1]).abs());
        assert!(d < 1e-4, "grain {j}: GPU {:?} vs CPU {:?}", gv[j], cv[j]);
    }
}
