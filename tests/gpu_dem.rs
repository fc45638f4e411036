//! The GPU DEM stages against their CPU twins (random grains and contact lists,
//! odd sizes; the Hertz law and the spring model's linear one), the DemLaw
//! layout, whole steps, and the DEM hourglass on both backends.

mod common;
mod gpu_common;

use gpu_common::{Rng, buf, close, context, get, run, uni};
use hourglass::backend::Backend;
use hourglass::backend::CpuDemBackend;
use hourglass::backend::{check_initial_state, grid_for};
use hourglass::cpu::dem::force::{ForceInput, dem_force, dem_force_history};
use hourglass::cpu::dem::integrate::{Integrand, kick, kick_drift};
use hourglass::gpu::buffers::storage_zeroed;
use hourglass::gpu::dem::GpuDemBackend;
use hourglass::gpu::{GpuContext, Kernel, Params, STAT_WORDS, ShaderConfig, Stage};
use hourglass::model::DemLaw;
use hourglass::model::Grid;
use hourglass::model::contact::{BODY_CORNER, BODY_SEGMENT};
use hourglass::model::law;
use hourglass::model::{Contact, ContactLists, DemParams, Grains, NormalLaw, Phase, SolverKind, Walls};
use hourglass::scene::{Scene, build};

const K: usize = 16;

/// Random grains packed with overlaps in a box, their contact lists (CPU detect), random velocities.
fn scene(n: usize, seed: u64) -> (Grains, Walls, ContactLists) {
    let mut rng = Rng::new(seed);
    let side = (n as f32).sqrt().ceil() as usize;
    let mut list = Vec::new();
    for i in 0..n {
        let (cx, cy) = ((i % side) as f32, (i / side) as f32);
        list.push((
            0.005 + 0.0055 * cx + rng.f32(-4e-4, 4e-4),
            0.005 + 0.0055 * cy,
            rng.f32(0.0025, 0.0032),
        ));
    }
    let mut g = common::grains(&list);
    for i in 0..n {
        g.vel[i] = [rng.f32(-0.5, 0.5), rng.f32(-0.5, 0.5)];
        g.ang_vel[i] = rng.f32(-100.0, 100.0);
        if rng.below(17) == 0 {
            g.inv_mass[i] = 0.0;
        }
    }
    let w = 0.005 + 0.0055 * side as f64;
    let walls = common::walls(&[[0.0, 0.0, w, 0.0], [0.0, 0.0, 0.0, w], [w, 0.0, w, w]]);
    let grid = Grid::covering([0.0, 0.0, w as f32, w as f32], 0.0075).unwrap();
    let mut s = hourglass::cpu::dem::DemStepper::new(grid, K, DemParams::default());
    s.detect(&g, &walls, 0.001);
    (g, walls, s.lists)
}

#[test]
fn dem_law_layout_matches_rust() {
    let src = ShaderConfig::new(K as u32).source(Stage::DemForce);
    let m = naga::front::wgsl::parse_str(&src).expect("dem_force parses");
    let span = m
        .types
        .iter()
        .find_map(|(_, t)| match &t.inner {
            naga::TypeInner::Struct { span, members } if t.name.as_deref() == Some("DemLaw") => {
                Some((*span, members.iter().map(|m| m.offset).collect::<Vec<_>>()))
            }
            _ => None,
        })
        .expect("DemLaw");
    assert_eq!(span.0 as usize, std::mem::size_of::<DemLaw>());
    assert_eq!(span.1, vec![0, 4, 8, 12, 16, 20, 24]);
}

/// The CPU stage's input over `g` and `lists`.
fn input<'a>(law: DemLaw, g: &'a Grains, lists: &'a ContactLists) -> ForceInput<'a> {
    ForceInput {
        law,
        capacity: K,
        count: &lists.count,
        slots: &lists.slots,
        radius: &g.radius,
        inv_mass: &g.inv_mass,
        vel: &g.vel,
        ang_vel: &g.ang_vel,
    }
}

/// Stage dem_force on the GPU over `lists`: the force and torque of every
/// grain, and the slots as the stage leaves them (a law's history written).
fn gpu_force(
    ctx: &GpuContext,
    k: &Kernel,
    law: &DemLaw,
    g: &Grains,
    lists: &ContactLists,
) -> (Vec<[f32; 2]>, Vec<f32>, Vec<Contact>) {
    let n = g.len();
    let params = Params {
        n_grains: n as u32,
        ..Params::default()
    };
    let (pb, lb) = (uni(ctx, &params), uni(ctx, law));
    let force = storage_zeroed::<[f32; 2]>(ctx, "hourglass.test", n);
    let torque = storage_zeroed::<f32>(ctx, "hourglass.test", n);
    let bufs = [
        buf(ctx, &lists.count),
        buf(ctx, &lists.slots),
        buf(ctx, &g.radius),
        buf(ctx, &g.inv_mass),
        buf(ctx, &g.vel),
        buf(ctx, &g.ang_vel),
    ];
    let group = k.group(
        ctx,
        &[
            ("params", &pb),
            ("law", &lb),
            ("count", &bufs[0]),
            ("slots", &bufs[1]),
            ("radius", &bufs[2]),
            ("inv_mass", &bufs[3]),
            ("vel", &bufs[4]),
            ("ang_vel", &bufs[5]),
            ("force", &force),
            ("torque", &torque),
        ],
    );
    run(ctx, |ps| k.dispatch(ps, &group, n as u32));
    (
        get(ctx, &force, n),
        get(ctx, &torque, n),
        get(ctx, &bufs[1], lists.slots.len()),
    )
}

/// Forces and torques of `n` grains, (got) against (want), within 1e-4
/// relative or 1e-5 of the largest.
fn forces_agree(n: usize, want: (&[[f32; 2]], &[f32]), got: (&[[f32; 2]], &[f32])) {
    let fscale = want.0.iter().map(|f| f[0].hypot(f[1])).fold(1e-3f32, f32::max);
    let tscale = want.1.iter().fold(1e-6f32, |m, t| m.max(t.abs()));
    for i in 0..n {
        for d in 0..2 {
            assert!(
                close(got.0[i][d], want.0[i][d], 1e-4, 1e-5 * fscale),
                "n {n} grain {i}: force {:?} vs {:?}",
                got.0[i],
                want.0[i]
            );
        }
        assert!(
            close(got.1[i], want.1[i], 1e-4, 1e-5 * tscale),
            "n {n} grain {i}: torque {} vs {}",
            got.1[i],
            want.1[i]
        );
    }
}

#[test]
fn dem_force_matches_cpu() {
    let Some(ctx) = context() else { return };
    let cfg = ShaderConfig::new(K as u32);
    let k = Kernel::new(&ctx, &cfg, Stage::DemForce, "main");
    for (n, seed) in [(0usize, 1u64), (1, 2), (257, 3), (1031, 4)] {
        let (g, _walls, lists) = scene(n, seed);
        // The Hertz law in both phases, and the spring model's linear law
        // (k_s chosen so its forces are of the Hertz ones' size at these overlaps).
        let spring = DemParams {
            kn: 2e3,
            gamma_n: 5.0,
            law: NormalLaw::Linear,
            ..DemParams::default()
        };
        for (dem, phase) in [
            (DemParams::default(), Phase::Relax),
            (DemParams::default(), Phase::Discharge),
            (spring, Phase::Discharge),
        ] {
            let law = law(&dem, phase, 4e-5);
            let inp = input(law, &g, &lists);
            let mut want_f = vec![[0.0f32; 2]; n];
            let mut want_t = vec![0.0f32; n];
            dem_force(&inp, &mut want_f, &mut want_t);
            let (got_f, got_t, _) = gpu_force(&ctx, &k, &law, &g, &lists);
            forces_agree(n, (&want_f, &want_t), (&got_f, &got_t));
        }
    }
}

/// Stage dem_force on lists with wall contacts carrying a moving wall's
/// velocity (`Contact::wall_vel`, up to 0.5 m/s each way), with each law:
/// the GPU's forces and torques follow the CPU's, and the wall velocities
/// change them (the walls' contacts pressed in).
#[test]
fn dem_force_with_moving_walls_matches_cpu() {
    let ctx = context().expect("a GPU adapter");
    let cfg = ShaderConfig::new(K as u32);
    let k = Kernel::new(&ctx, &cfg, Stage::DemForce, "main");
    for (n, seed) in [(257usize, 8u64), (1031, 9)] {
        let (g, _walls, mut still) = scene(n, seed);
        let mut rng = Rng::new(seed);
        // Every third listed contact made one with a wall segment or corner,
        // pressed in by up to 0.1 mm.
        let mut walled = 0;
        for i in 0..n {
            let listed = (still.count[i] as usize).min(K);
            for (s, c) in still.slots[i * K..i * K + listed].iter_mut().enumerate() {
                if (i + s) % 3 == 0 {
                    c.other = if s % 2 == 0 { BODY_SEGMENT } else { BODY_CORNER };
                    c.gap = -rng.f32(1e-6, 1e-4);
                    c.inv_mass_sum = g.inv_mass[i];
                    walled += 1;
                }
            }
        }
        assert!(walled > 0, "n {n}: no wall contact");
        let mut lists = still.clone();
        for c in &mut lists.slots {
            if !matches!(c.body(), hourglass::model::Body::Grain(_)) {
                c.wall_vel = [rng.f32(-0.5, 0.5), rng.f32(-0.5, 0.5)];
            }
        }
        for law_kind in [NormalLaw::Hertz, NormalLaw::Linear, NormalLaw::HertzMindlin] {
            let dem = DemParams {
                law: law_kind,
                ..DemParams::default()
            };
            let law = law(&dem, Phase::Discharge, 4e-5);
            let mut want = (vec![[0.0f32; 2]; n], vec![0.0f32; n]);
            let mut history: Vec<f32> = lists.slots.iter().map(|c| c.impulse_t).collect();
            dem_force_history(&input(law, &g, &lists), &mut want.0, &mut want.1, &mut history);
            let mut resting = (vec![[0.0f32; 2]; n], vec![0.0f32; n]);
            dem_force(&input(law, &g, &still), &mut resting.0, &mut resting.1);
            assert_ne!(
                want.0, resting.0,
                "n {n} {law_kind:?}: the walls' velocities change nothing"
            );
            let (got_f, got_t, _) = gpu_force(&ctx, &k, &law, &g, &lists);
            forces_agree(n, (&want.0, &want.1), (&got_f, &got_t));
        }
    }
}

#[test]
fn dem_integrate_matches_cpu() {
    let Some(ctx) = context() else { return };
    let cfg = ShaderConfig::new(K as u32);
    let (drift_k, kick_k) = (
        Kernel::new(&ctx, &cfg, Stage::DemIntegrate, "kick_drift"),
        Kernel::new(&ctx, &cfg, Stage::DemIntegrate, "kick"),
    );
    for (n, seed) in [(0usize, 5u64), (1, 6), (300, 7), (1031, 8)] {
        let (g, _, _) = scene(n, seed);
        let mut rng = Rng::new(seed + 100);
        let force: Vec<[f32; 2]> = (0..n).map(|_| [rng.f32(-5.0, 5.0), rng.f32(-5.0, 5.0)]).collect();
        let torque: Vec<f32> = (0..n).map(|_| rng.f32(-0.01, 0.01)).collect();
        let (gravity, dt) = ([0.3f32, -9.81f32], 4e-5f32);
        let params = Params {
            n_grains: n as u32,
            gravity,
            dt,
            ..Params::default()
        };
        let pb = uni(&ctx, &params);
        let (pos, vel, w) = (buf(&ctx, &g.pos), buf(&ctx, &g.vel), buf(&ctx, &g.ang_vel));
        let (fb, tb, rb, mb) = (
            buf(&ctx, &force),
            buf(&ctx, &torque),
            buf(&ctx, &g.radius),
            buf(&ctx, &g.inv_mass),
        );
        let stats = storage_zeroed::<u32>(&ctx, "hourglass.test", STAT_WORDS as usize);
        let both = [
            ("params", &pb),
            ("vel", &vel),
            ("ang_vel", &w),
            ("force", &fb),
            ("torque", &tb),
            ("radius", &rb),
            ("inv_mass", &mb),
        ];
        let gd = drift_k.group(&ctx, &[&both[..], &[("pos", &pos)][..]].concat());
        let gk = kick_k.group(&ctx, &[&both[..], &[("stats", &stats)][..]].concat());
        let mut want = g.clone();
        {
            let s: Integrand = Integrand {
                pos: &mut want.pos,
                vel: &mut want.vel,
                ang_vel: &mut want.ang_vel,
                force: &force,
                torque: &torque,
                radius: &g.radius,
                inv_mass: &g.inv_mass,
            };
            kick_drift(s, gravity, dt);
        }
        run(&ctx, |ps| drift_k.dispatch(ps, &gd, n as u32));
        let check = |want: &Grains, what: &str| {
            let (gp, gv, gw): (Vec<[f32; 2]>, Vec<[f32; 2]>, Vec<f32>) =
                (get(&ctx, &pos, n), get(&ctx, &vel, n), get(&ctx, &w, n));
            for i in 0..n {
                for d in 0..2 {
                    assert!(
                        close(gp[i][d], want.pos[i][d], 1e-6, 1e-9),
                        "{what} n {n} grain {i}: pos"
                    );
                    assert!(
                        close(gv[i][d], want.vel[i][d], 1e-5, 1e-7),
                        "{what} n {n} grain {i}: vel"
                    );
                }
                assert!(
                    close(gw[i], want.ang_vel[i], 1e-5, 1e-5),
                    "{what} n {n} grain {i}: ang_vel"
                );
            }
        };
        check(&want, "kick_drift");
        {
            let s: Integrand = Integrand {
                pos: &mut want.pos,
                vel: &mut want.vel,
                ang_vel: &mut want.ang_vel,
                force: &force,
                torque: &torque,
                radius: &g.radius,
                inv_mass: &g.inv_mass,
            };
            kick(s, gravity, dt);
        }
        run(&ctx, |ps| kick_k.dispatch(ps, &gk, n as u32));
        check(&want, "kick");
        let words: Vec<u32> = get(&ctx, &stats, STAT_WORDS as usize);
        let vmax2 = want
            .vel
            .iter()
            .map(|v| v[0] * v[0] + v[1] * v[1])
            .fold(0.0f32, f32::max);
        assert!(close(f32::from_bits(words[1]), vmax2, 1e-5, 0.0), "n {n}: max |v|^2");
    }
}

/// Hertz-Mindlin: forces, torques and the new history of every slot (read
/// from and written to `impulse_t`) agree with the CPU, on contacts loaded
/// below Coulomb and past it, and open ones (whose history becomes 0).
#[test]
fn dem_force_hertz_mindlin_matches_cpu() {
    let Some(ctx) = context() else { return };
    let cfg = ShaderConfig::new(K as u32);
    let k = Kernel::new(&ctx, &cfg, Stage::DemForce, "main");
    for (n, seed) in [(1usize, 5u64), (257, 6), (1031, 7)] {
        let (g, _walls, mut lists) = scene(n, seed);
        let mut rng = Rng::new(seed);
        for c in &mut lists.slots {
            c.impulse_t = rng.f32(-2e-4, 2e-4);
        }
        let dem = DemParams {
            law: NormalLaw::HertzMindlin,
            ..DemParams::default()
        };
        let law = law(&dem, Phase::Discharge, 4e-5);
        let inp = input(law, &g, &lists);
        let mut want_f = vec![[0.0f32; 2]; n];
        let mut want_t = vec![0.0f32; n];
        let mut want_h: Vec<f32> = lists.slots.iter().map(|c| c.impulse_t).collect();
        dem_force_history(&inp, &mut want_f, &mut want_t, &mut want_h);
        let (mut below, mut slipping, mut open) = (0, 0, 0);
        for i in 0..n {
            for (s, c) in lists.of(i).iter().enumerate() {
                let h = want_h[i * K + s];
                match () {
                    _ if c.gap >= 0.0 => open += usize::from(h == 0.0),
                    _ if (h - c.impulse_t).abs() < 1e-4 => below += 1,
                    _ => slipping += 1,
                }
            }
        }
        eprintln!("n {n}: {below} contacts on the spring, {slipping} clipped, {open} open");
        let (got_f, got_t, got_s) = gpu_force(&ctx, &k, &law, &g, &lists);
        forces_agree(n, (&want_f, &want_t), (&got_f, &got_t));
        for i in 0..n {
            for s in 0..lists.of(i).len() {
                let (got, want) = (got_s[i * K + s].impulse_t, want_h[i * K + s]);
                assert!(
                    close(got, want, 1e-4, 1e-9),
                    "n {n} grain {i} slot {s}: history {got} vs {want}"
                );
            }
        }
    }
}

/// Whole Hertz-Mindlin steps: the GPU carries the history between steps as
/// the CPU does (its warm start and the copy of the step's lists).
#[test]
fn dem_step_hertz_mindlin_matches_cpu() {
    let dem = DemParams {
        law: NormalLaw::HertzMindlin,
        ..DemParams::default()
    };
    steps_agree(dem, 12, Phase::Discharge);
}

/// Whole steps: the GPU backend follows the CPU one on a small pile for a few hundred steps.
#[test]
fn dem_step_matches_cpu() {
    steps_agree(DemParams::default(), 11, Phase::Relax);
}

/// 200 steps of `dem` in `phase` on a 200-grain pile drawn from `seed`, on
/// both backends: the positions agree to 1e-6 m every 50 steps.
fn steps_agree(dem: DemParams, seed: u64, phase: Phase) {
    let Some(ctx) = context() else { return };
    let (g, walls, _) = scene(200, seed);
    let grid = Grid::covering([0.0, 0.0, 0.09, 0.09], 0.0075).unwrap();
    let mut p = common::params(SolverKind::Dem);
    p.dt = 4e-5;
    p.alert = 0.001;
    let mut cpu = CpuDemBackend::new(g.clone(), walls.clone(), grid, K, dem);
    let mut gpu = GpuDemBackend::new(ctx, g, walls, grid, K, dem).unwrap();
    gpu.check_every = 7;
    for b in [&mut cpu as &mut dyn Backend, &mut gpu] {
        b.set_phase(phase);
    }
    for step in 1..=200 {
        cpu.step(&p).unwrap();
        gpu.step(&p).unwrap();
        if step % 50 == 0 {
            let want = cpu.grains().unwrap().clone();
            let got = gpu.grains().unwrap();
            let mut worst = 0.0f32;
            for i in 0..want.len() {
                let d = (got.pos[i][0] - want.pos[i][0]).hypot(got.pos[i][1] - want.pos[i][1]);
                worst = worst.max(d);
            }
            eprintln!("step {step}: largest position difference {worst:.2e} m");
            assert!(worst < 1e-6, "step {step}: GPU and CPU positions differ by {worst} m");
        }
    }
}

/// The DEM hourglass (small N) relaxes, opens and empties on both backends with no grain lost.
#[test]
fn dem_hourglass_discharges_on_both_backends() {
    let text = r#"
        [grains]
        count = 60
        [solver]
        kind = "dem"
        [dem]
        preset = "course"
        relax_max_steps = 8000
        [walls.hourglass]
        width = 0.06
        bulb_height = 0.06
        neck = 5.0
        [run]
        duration = 0.8
        every = 500
    "#;
    let scene = Scene::parse(text, std::path::Path::new("dem-hourglass.toml")).unwrap();
    let setup = build(&scene).unwrap();
    let grid = grid_for(&setup).unwrap();
    check_initial_state(&setup, &grid).unwrap();
    let mut choices = vec![hourglass::scene::BackendChoice::Cpu];
    if gpu_common::context().is_some() {
        choices.push(hourglass::scene::BackendChoice::Gpu);
    }
    for choice in choices {
        let mut notices = Vec::new();
        let mut backend =
            hourglass::backend::select(&setup, grid, choice, hourglass::backend::Device::Open, &mut notices).unwrap();
        let dir = std::env::temp_dir().join(format!(
            "hourglass-dem-{}-{}",
            backend.kind().name(),
            std::process::id()
        ));
        let mut out = hourglass::output::ResultDir::create(&dir, &setup.scene.to_toml()).unwrap();
        let start = std::time::Instant::now();
        let summary = hourglass::sim::run(&setup, backend.as_mut(), &mut out, &mut hourglass::sim::Silent).unwrap();
        let wall = start.elapsed().as_secs_f64();
        eprintln!(
            "{}: {} steps ({} relaxing), {:.1} us/step, passed {}/60, lost {}, max overlap {:.2e} m",
            backend.kind().name(),
            summary.steps,
            summary.settle_steps,
            wall / summary.steps as f64 * 1e6,
            summary.passed,
            summary.lost_grains,
            summary.max_overlap
        );
        assert_eq!(summary.lost_grains, 0, "{}: grains lost", backend.kind().name());
        assert!(
            summary.settle_steps > 0,
            "{}: no relaxation phase",
            backend.kind().name()
        );
        assert!(
            summary.passed >= 50,
            "{}: only {} of 60 grains passed",
            backend.kind().name(),
            summary.passed
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
