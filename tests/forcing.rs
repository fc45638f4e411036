//! Stochastic forcing (docs/nscd.md#stochastic-forcing) on the CPU path: free
//! grains kicked by sqrt(dt) sigma w every step diffuse in velocity, the
//! variance per component growing as sigma^2 t; the draws follow (seed, step,
//! grain id), so a run is reproducible and does not depend on the order the
//! grains are stored in.

mod common;

use common::{params, stepper, walls};
use hourglass::model::{Forcing, Grains, SolverKind, StepParams};

const SIGMA: f32 = 0.1;

/// `n` grains of radius 1 mm at rest on a square lattice 4 cm apart (no
/// contacts: the velocities spread by about sqrt(sigma^2 t) = 4.5 cm/s, the
/// grains by a few mm at most).
fn lattice(n: usize) -> Grains {
    let side = (n as f64).sqrt().ceil() as usize;
    let list: Vec<(f32, f32, f32)> = (0..n)
        .map(|i| ((i % side) as f32 * 0.04, (i / side) as f32 * 0.04, 0.001))
        .collect();
    common::grains(&list)
}

fn forced(seed: u32) -> StepParams {
    StepParams {
        gravity: [0.0, 0.0],
        forcing: Forcing {
            sigma: SIGMA,
            seed,
            step: 0,
        },
        ..params(SolverKind::Nlgs)
    }
}

/// Mean and variance of the velocity components over the grains.
fn moments(g: &Grains) -> ([f64; 2], [f64; 2]) {
    let n = g.len() as f64;
    let mut mean = [0.0; 2];
    let mut var = [0.0; 2];
    for c in 0..2 {
        mean[c] = g.vel.iter().map(|v| f64::from(v[c])).sum::<f64>() / n;
        var[c] = g.vel.iter().map(|v| (f64::from(v[c]) - mean[c]).powi(2)).sum::<f64>() / n;
    }
    (mean, var)
}

#[test]
fn free_grains_velocity_variance_grows_as_sigma_squared_t() {
    let n = 20_000;
    let p = forced(5);
    let mut g = lattice(n);
    let side = (n as f32).sqrt().ceil() * 0.04;
    let mut st = stepper([-0.1, -0.1, side + 0.1, side + 0.1], 0.001, &p);
    let w = walls(&[]);
    for check in 1..=2 {
        for _ in 0..100 {
            st.step(&mut g, &w, &p).unwrap();
        }
        let t = f64::from(p.dt) * 100.0 * f64::from(check);
        let want = f64::from(SIGMA).powi(2) * t;
        let (mean, var) = moments(&g);
        for c in 0..2 {
            eprintln!(
                "t {t}: component {c}: mean {:.2e}, variance / sigma^2 t = {:.4}",
                mean[c],
                var[c] / want
            );
            // 20,000 samples: the variance's relative standard error is
            // sqrt(2 / n) = 1 %, the mean's standard error sqrt(want / n).
            assert!(
                (var[c] / want - 1.0).abs() < 0.05,
                "t {t}: variance {} vs {want}",
                var[c]
            );
            assert!(
                mean[c].abs() < 4.0 * (want / n as f64).sqrt(),
                "t {t}: mean {}",
                mean[c]
            );
        }
    }
    let l = st.contacts();
    let touched = (0..l.grains())
        .flat_map(|i| l.of(i))
        .filter(|c| c.impulse != 0.0)
        .count();
    assert_eq!(touched, 0, "the grains must stay free (no contact acts)");
}

#[test]
fn the_same_seed_gives_the_same_run_bit_for_bit_and_another_seed_another() {
    let run = |seed: u32, reversed: bool| {
        let p = StepParams {
            gravity: [0.0, -9.81],
            ..forced(seed)
        };
        // A small pile in a box: contacts, so the solver sees the noise too.
        let (mut g, w) = common::hex_pile(8, 0.002);
        if reversed {
            // The same grains stored in the opposite order (ids travel along).
            g = hourglass::cpu::reorder::reorder(&(0..g.len() as u32).rev().collect::<Vec<_>>(), &g);
        }
        let mut st = stepper([-0.01, -0.01, 0.05, 0.05], 0.002, &p);
        for _ in 0..200 {
            st.step(&mut g, &w, &p).unwrap();
        }
        let mut by_id: Vec<([f32; 2], [f32; 2])> = vec![([0.0; 2], [0.0; 2]); g.len()];
        for i in 0..g.len() {
            by_id[g.id[i] as usize] = (g.pos[i], g.vel[i]);
        }
        by_id
    };
    let a = run(9, false);
    assert_eq!(a, run(9, false), "same seed, same run");
    assert_ne!(a, run(10, false), "another seed, another run");
    // Grains stored in another order get the same kicks (by id): with no
    // contacts the result would be bit-identical; with contacts the solver's
    // sweep order changes the last bits, so compare the free-flight kicks.
    let free = |reversed: bool| {
        let p = forced(9);
        let mut g = lattice(50);
        if reversed {
            g = hourglass::cpu::reorder::reorder(&(0..50u32).rev().collect::<Vec<_>>(), &g);
        }
        let mut st = stepper([-0.1, -0.1, 0.3, 0.3], 0.001, &p);
        for _ in 0..20 {
            st.step(&mut g, &walls(&[]), &p).unwrap();
        }
        let mut v = vec![[0.0f32; 2]; 50];
        for i in 0..50 {
            v[g.id[i] as usize] = g.vel[i];
        }
        v
    };
    assert_eq!(free(false), free(true), "the kicks follow the grain ids");
}

/// scenes/shaken.toml run twice from the command line gives the same
/// diagnostics and final state bit for bit (the seed is `grains.seed`); its
/// resolved scene.toml keeps `[forcing] sigma` and `solver.restitution`, and
/// run again from that file it is the same run.
#[test]
fn the_shaken_scene_is_the_same_run_twice_and_from_its_resolved_scene() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |scene: &std::path::Path, name: &str| {
        let out = tmp.path().join(name);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
            .args([
                "run",
                scene.to_str().unwrap(),
                "--steps",
                "60",
                "--backend",
                "cpu",
                "-q",
                "--out",
            ])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let read = |f: &str| std::fs::read_to_string(out.join(f)).unwrap();
        let state: serde_json::Value = serde_json::from_str(&read("state.json")).unwrap();
        (read("diagnostics.csv"), state["grains"].clone(), out)
    };
    let scene = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/shaken.toml");
    let (diag, grains, out) = run(&scene, "a");
    let (diag2, grains2, _) = run(&scene, "b");
    assert_eq!(diag, diag2);
    assert_eq!(grains, grains2);
    let resolved = std::fs::read_to_string(out.join("scene.toml")).unwrap();
    assert!(resolved.contains("[forcing]\nsigma = 0.5"), "{resolved}");
    assert!(resolved.contains("restitution = 0.5"), "{resolved}");
    let (diag3, grains3, _) = run(&out.join("scene.toml"), "c");
    assert_eq!(diag, diag3);
    assert_eq!(grains, grains3);
    // The noise acts: the same scene without it is another run.
    let quiet = tmp.path().join("quiet.toml");
    std::fs::write(
        &quiet,
        resolved.replace("[forcing]\nsigma = 0.5", "[forcing]\nsigma = 0.0"),
    )
    .unwrap();
    assert_ne!(run(&quiet, "d").1, grains);
}

/// In 3D (`CpuStepper<Dim3>`), three draws a sphere: free spheres' velocity
/// variance grows as sigma^2 t along x, y and z alike, the components
/// uncorrelated; a 3D scene takes `[forcing]`.
#[test]
fn free_spheres_velocity_variance_grows_as_sigma_squared_t_along_each_axis() {
    use hourglass::cpu::CpuStepper;
    use hourglass::model::{Dim3, Grid, Walls3d};
    let side = 22;
    let n = side * side * side;
    let pos: Vec<[f32; 3]> = (0..n)
        .map(|i| {
            [
                (i % side) as f32 * 0.04,
                (i / side % side) as f32 * 0.04,
                (i / (side * side)) as f32 * 0.04,
            ]
        })
        .collect();
    let mut g = Grains::<Dim3>::of_density(pos, vec![[0.0; 3]; n], vec![0.001; n], 2500.0);
    let p = StepParams {
        solver: SolverKind::Jacobi,
        ..forced(9)
    };
    let hi = side as f32 * 0.04 + 0.1;
    let grid = Grid::<Dim3>::covering_box([-0.1; 3], [hi; 3], 0.002 + p.alert).unwrap();
    let mut st = CpuStepper::<Dim3>::new(grid, 8);
    for _ in 0..200 {
        st.step(&mut g, &Walls3d::default(), &p).unwrap();
    }
    let want = f64::from(SIGMA).powi(2) * f64::from(p.dt) * 200.0;
    let nf = n as f64;
    let mean: [f64; 3] = std::array::from_fn(|c| g.vel.iter().map(|v| f64::from(v[c])).sum::<f64>() / nf);
    let var: [f64; 3] =
        std::array::from_fn(|c| g.vel.iter().map(|v| (f64::from(v[c]) - mean[c]).powi(2)).sum::<f64>() / nf);
    for c in 0..3 {
        // 10,648 samples: the variance's relative standard error 1.4 %.
        assert!(
            (var[c] / want - 1.0).abs() < 0.06,
            "component {c}: variance {} vs {want}",
            var[c]
        );
        assert!(
            mean[c].abs() < 4.0 * (want / nf).sqrt(),
            "component {c}: mean {}",
            mean[c]
        );
    }
    let xz = g.vel.iter().map(|v| f64::from(v[0]) * f64::from(v[2])).sum::<f64>() / nf;
    assert!(xz.abs() < 4.0 * want / nf.sqrt(), "x-z correlation {xz}");
    let toml = "version = 1\ndimension = 3\n[walls]\nbox = [0.0, 0.0, 0.0, 0.1, 0.1, 0.1]\n\
                [grains]\ncount = 10\nradius_mean = 0.004\n[solver]\nkind = \"jacobi\"\ndt = 1e-3\n\
                [forcing]\nsigma = 0.1\n";
    let scene = hourglass::scene::Scene::parse(toml, std::path::Path::new("forced.toml"));
    hourglass::scene::build3d(&scene.unwrap()).expect("a 3D scene takes [forcing]");
}
