//! Spheres in walls of revolution (`scene::revolved`, triangle meshes): a
//! silo of revolution holds its spheres behind the gate, and once the gate
//! is gone they flow out of the outlet, none through the walls.

use hourglass::cpu::dem::DemStepper;
use hourglass::model::{DemParams, Dim3, Grains, Grid, Integrator, NormalLaw, SolverKind, StepParams, Walls3d};
use hourglass::scene::revolved::{SECTORS, silo};

fn params(dt: f32) -> StepParams {
    StepParams {
        gravity: [0.0, -9.81],
        dt,
        alert: 0.0005,
        tol: 1e-6,
        itmax: 1,
        omega: 0.5,
        overlap_relax: 0.0,
        overlap_relax_default: false,
        overlap_iterations: 0,
        solver: SolverKind::Dem,
        warm_start: false,
        mu: 0.0,
        mu_wall: 0.0,
        cohesion: Default::default(),
        restitution: 0.0,
        forcing: Default::default(),
    }
}

/// Distance of `x` from the silo's axis, m.
fn off_axis(x: [f32; 3]) -> f32 {
    x[0].hypot(x[2])
}

#[test]
fn a_silo_of_revolution_holds_its_spheres_behind_the_gate_and_lets_them_out_without_it() {
    // Cylinder of radius 5 cm up to 20 cm over a 60-degree hopper down to an
    // outlet of radius 1.5 cm (5 diameters of the 3 mm spheres).
    let (radius, height, outlet, slope) = (0.05f64, 0.2f64, 0.015f64, 60.0f64);
    let shape = silo(radius, height, outlet, slope, SECTORS).unwrap();
    let r = 0.003f32;
    // Indexed for the spheres' reach (diameter plus the alert distance).
    let reach = 2.0 * r + 0.0005;
    let closed = Walls3d::mesh(&[shape.walls.clone(), shape.gate.clone()].concat())
        .unwrap()
        .indexed(reach);
    let open = Walls3d::mesh(&shape.walls).unwrap().indexed(reach);
    // Two layers of spheres on a square lattice over the hopper, falling in.
    let hc = ((radius - outlet) * slope.to_radians().tan()) as f32;
    let mut pos = Vec::new();
    for layer in 0..2 {
        for i in -7..=7 {
            for k in -7..=7 {
                let x = [0.0066 * i as f32, hc + 0.01 + 0.0066 * layer as f32, 0.0066 * k as f32];
                if off_axis(x) < 0.045 {
                    pos.push(x);
                }
            }
        }
    }
    let n = pos.len();
    assert!(n > 250, "{n}");
    let mut g = Grains::<Dim3>::of_density(pos, vec![[0.0; 3]; n], vec![r; n], 2500.0);
    let p = params(2e-5);
    let dem = DemParams {
        kn: 1e6,
        kt: 20.0,
        gamma_n: 0.5,
        gamma_relax: 0.5,
        mu: 0.3,
        mu_roll: 0.0,
        law: NormalLaw::Hertz,
        integrator: Integrator::VelocityVerlet,
        ..DemParams::default()
    };
    let grid = Grid::<Dim3>::covering_box([-0.06, -0.1, -0.06], [0.06, 0.21, 0.06], 2.0 * r + p.alert).unwrap();
    let mut s = DemStepper::new(grid, 16, dem);
    let inside = |x: [f32; 3]| {
        // Within the cylinder, and above the hopper's cone by at least -r/10.
        let rho = off_axis(x);
        let cone = ((f64::from(rho) - outlet) * slope.to_radians().tan()) as f32;
        rho < radius as f32 && (x[1] > cone - 0.1 * r || rho < outlet as f32)
    };
    // Gate closed: 0.4 s to fall in and settle.
    let mut deepest = 0.0f32;
    for _ in 0..20_000 {
        let st = s.step(&mut g, &closed, &p);
        deepest = deepest.max(st.max_overlap);
    }
    assert!(g.pos.iter().all(|&x| x[1] > -0.1 * r && inside(x)), "a sphere got out");
    let fastest = g.max_speed();
    assert!(fastest < 0.05, "still moving at {fastest} m/s");
    assert!(deepest < 0.1 * r, "overlap {deepest} m");
    // Gate open: they flow out of the outlet. A sphere 2 cm below it has
    // passed: it is set aside, at rest, on a lattice far below.
    s.invalidate();
    let (mut passed, mut passed_at) = (0usize, Vec::new());
    for step in 0..30_000 {
        s.step(&mut g, &open, &p);
        for i in 0..n {
            let x = g.pos[i];
            if g.inv_mass[i] == 0.0 {
                continue;
            }
            if x[1] > 0.0 {
                assert!(inside(x), "a sphere went through the walls at {x:?}");
            } else if x[1] < -0.02 {
                assert!(
                    off_axis(x) < outlet as f32 + 2.0 * r,
                    "a sphere left the outlet sideways at {x:?}"
                );
                let (a, b, c) = (passed % 10, passed / 10 % 10, passed / 100);
                g.pos[i] = [
                    -0.045 + 0.01 * a as f32,
                    -0.05 - 0.01 * c as f32,
                    -0.045 + 0.01 * b as f32,
                ];
                (g.vel[i], g.inv_mass[i]) = ([0.0; 3], 0.0);
                passed += 1;
            }
        }
        if step % 2500 == 2499 {
            passed_at.push(passed);
        }
    }
    eprintln!("silo of revolution: {n} spheres, passed every 0.05 s: {passed_at:?}");
    // Flowing: more out at every look, and most of the silo emptied in 0.6 s.
    assert!(passed_at.windows(2).take(6).all(|w| w[1] > w[0]), "{passed_at:?}");
    assert!(*passed_at.last().unwrap() > n / 2, "{passed_at:?}");
}
