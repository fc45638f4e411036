//! Builders of the explicit models' sphere tests, on either backend
//! (tests/spheres_explicit.rs, tests/gpu_spheres.rs).

use hourglass::model::{DemParams, Dim3, Grains, Grid, Integrator, NormalLaw, Plane, SolverKind, StepParams, Walls3d};

pub const G: f32 = 9.81;
/// The lab's particles: radius 0.3 m, 1 kg (a sphere of this density).
pub const R: f32 = 0.3;
pub const RHO_LAB: f64 = 1.0 / (4.0 / 3.0 * std::f64::consts::PI * 0.027);

/// An explicit step of `dt` under `gravity` (alert 2 cm, no warm start, no push-out).
pub fn params(gravity: [f32; 2], dt: f32, solver: SolverKind) -> StepParams {
    StepParams {
        gravity,
        dt,
        alert: 0.02,
        itmax: 1,
        overlap_relax: 0.0,
        warm_start: false,
        ..super::params(solver)
    }
}

/// The linear spring-dashpot (k_s, k_d), frictionless.
pub fn spring(ks: f32, kd: f32, integrator: Integrator) -> DemParams {
    DemParams {
        kn: ks,
        kt: 0.0,
        gamma_n: kd,
        gamma_relax: kd,
        mu: 0.0,
        mu_roll: 0.0,
        law: NormalLaw::Linear,
        integrator,
        ..DemParams::default()
    }
}

/// The floor y = 0.
pub fn floor() -> Walls3d {
    Walls3d {
        planes: vec![Plane::new([0.0; 3], [0.0, 1.0, 0.0]).unwrap()],
        ..Walls3d::default()
    }
}

/// A grid over the box from `lo` to `hi`, cells of 2 r_max + alert.
pub fn grid(lo: [f32; 3], hi: [f32; 3], r_max: f32, p: &StepParams) -> Grid<Dim3> {
    Grid::<Dim3>::covering_box(lo, hi, 2.0 * r_max + p.alert).unwrap()
}

/// `hourglass run` with `args` then `--out out`: the run's final sphere
/// positions (x, y, z of each, flattened, from state.json) and its last
/// diagnostics row.
pub fn run_positions(args: &[&std::ffi::OsStr], out: &std::path::Path) -> (Vec<f64>, Vec<f64>) {
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .arg("run")
        .args(args)
        .arg("--out")
        .arg(out)
        .status()
        .unwrap();
    assert!(status.success(), "run {args:?}");
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("state.json")).unwrap()).unwrap();
    let rows = std::fs::read_to_string(out.join("diagnostics.csv")).unwrap();
    let last: Vec<f64> = rows
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    let pos: Vec<f64> = state["grains"]["pos"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
        .collect();
    (pos, last)
}

/// A sphere of radius 5 mm, 2500 kg/m^3, resting on a floor (y = 0) at the
/// overlap that carries the normal part of its weight under gravity tilted
/// by `a`, Hertz-Mindlin (k_n 1e6, velocity Verlet) with friction `mu`:
/// the sphere, the step of 10 us, the law and a grid over the slope.
pub fn on_slope_start(a: f32, mu: f32) -> (Grains<Dim3>, StepParams, DemParams, Grid<Dim3>) {
    let r = 0.005f32;
    let p = params([G * a.sin(), -G * a.cos()], 1e-5, SolverKind::Dem);
    let dem = DemParams {
        kn: 1e6,
        gamma_n: 2.0,
        gamma_relax: 2.0,
        mu,
        mu_roll: 0.0,
        law: NormalLaw::HertzMindlin,
        poisson: 0.3,
        integrator: Integrator::VelocityVerlet,
        ..DemParams::default()
    };
    let mut g = Grains::<Dim3>::of_density(vec![[0.02, r, 0.05]], vec![[0.0; 3]], vec![r], 2500.0);
    let delta = (g.mass(0) as f32 * G * a.cos() / dem.kn).powf(2.0 / 3.0);
    g.pos[0][1] = r - delta;
    let grid = grid([0.0; 3], [0.4, 0.05, 0.1], r, &p);
    (g, p, dem, grid)
}
