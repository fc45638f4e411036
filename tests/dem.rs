//! Soft-sphere DEM physics on the CPU reference (docs/dem.md): restitution
//! against an independent integration of the Hertz-damped contact, the slope
//! thresholds of friction and rolling resistance, energy never created, and
//! the angle of repose with and without friction.

mod common;

use hourglass::cpu::dem::{DemStepper, elastic_energy, kinetic_energy};
use hourglass::model::Grid;
use hourglass::model::{DemParams, Grains, NormalLaw, SolverKind, StepParams, Walls};
use hourglass::output::Summary;
use hourglass::scene::build::dem_dt;
use hourglass::scene::{Scene, build};
use hourglass::sim;

const G: f32 = 9.81;

fn stepper(bbox: [f32; 4], r_max: f32, p: &StepParams, dem: DemParams) -> DemStepper {
    let grid = Grid::covering(bbox, 2.0 * r_max + p.alert).unwrap();
    DemStepper::new(grid, 16, dem)
}

fn params(gravity: [f32; 2], dt: f32) -> StepParams {
    let mut p = common::params(SolverKind::Dem);
    p.gravity = gravity;
    p.dt = dt;
    p.alert = 0.001;
    p
}

/// Outgoing over incoming normal speed of one contact, m x'' = -max(0, k x^1.5 + gamma x')
/// (x the overlap), by RK4 in f64 with a step of `h` seconds.
fn restitution_ode(m: f64, k: f64, gamma: f64, v_in: f64, h: f64) -> f64 {
    let acc = |x: f64, v: f64| -(k * x.max(0.0).powf(1.5) + gamma * v).max(0.0) / m;
    let (mut x, mut v) = (0.0f64, v_in);
    loop {
        let (k1x, k1v) = (v, acc(x, v));
        let (k2x, k2v) = (v + 0.5 * h * k1v, acc(x + 0.5 * h * k1x, v + 0.5 * h * k1v));
        let (k3x, k3v) = (v + 0.5 * h * k2v, acc(x + 0.5 * h * k2x, v + 0.5 * h * k2v));
        let (k4x, k4v) = (v + h * k3v, acc(x + h * k3x, v + h * k3v));
        x += h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
        v += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
        if x < 0.0 {
            return -v / v_in;
        }
    }
}

/// A grain of radius r thrown at `v_in` onto a floor at y = 0 with no gravity: v_out / v_in.
fn restitution_dem(r: f32, v_in: f32, dem: DemParams, dt: f32) -> f32 {
    let p = params([0.0, 0.0], dt);
    let mut g = common::grains(&[(0.0, r + 1e-4, r)]);
    g.vel[0] = [0.0, -v_in];
    let walls = common::walls(&[[-0.1, 0.0, 0.1, 0.0]]);
    let mut s = stepper([-0.1, -0.01, 0.1, 0.05], r, &p, dem);
    for _ in 0..2_000_000 {
        s.step(&mut g, &walls, &p);
        if g.vel[0][1] > 0.0 && g.pos[0][1] > r {
            return g.vel[0][1] / v_in;
        }
    }
    panic!("the grain never left the floor");
}

#[test]
fn restitution_matches_the_hertz_damped_contact_equation() {
    let dem = DemParams::default();
    let r = 0.003f32;
    let m = common::DENSITY * std::f64::consts::PI * f64::from(r) * f64::from(r);
    for v_in in [0.1f32, 0.3, 1.0] {
        let want = restitution_ode(m, f64::from(dem.kn), f64::from(dem.gamma_n), f64::from(v_in), 1e-8);
        let got = f64::from(restitution_dem(r, v_in, dem, 1e-6));
        eprintln!("v_in {v_in} m/s: restitution DEM {got:.5}, RK4 {want:.5}");
        assert!(want > 0.01 && want < 1.0, "reference restitution {want}");
        assert!((got - want).abs() < 2e-3 * want, "v_in {v_in}: DEM {got} vs RK4 {want}");
    }
}

/// A grain at rest on a floor under gravity tilted by `deg` (the slope goes down
/// towards +x); (a, v_x, slip) over the last half of `t` seconds: the mean
/// acceleration along the slope, the final speed, and the final contact slip v_x + r w.
fn on_slope(deg: f32, dem: DemParams, t: f32) -> (f32, f32, f32) {
    let th = deg.to_radians();
    let r = 0.003;
    let mut g = common::grains(&[(0.0, r, r)]);
    let dt = dem_dt(&g, f64::from(dem.kn), 0.1) as f32;
    let p = params([G * th.sin(), -G * th.cos()], dt);
    let walls = common::walls(&[[-0.1, 0.0, 20.0, 0.0]]);
    let mut s = stepper([-0.1, -0.01, 20.0, 0.05], r, &p, dem);
    let steps = (t / dt) as usize;
    let mut v_half = 0.0;
    for k in 0..steps {
        s.step(&mut g, &walls, &p);
        if k == steps / 2 {
            v_half = g.vel[0][0];
        }
    }
    let a = (g.vel[0][0] - v_half) / (dt * (steps - 1 - steps / 2) as f32);
    (a, g.vel[0][0], g.vel[0][0] + r * g.ang_vel[0])
}

/// Predictions for a disk (I = m r^2/2) on a slope theta, friction mu, rolling resistance mu_r:
/// - at rest iff tan(theta) <= mu_r (the contact torque F r = m g sin(theta) r must stay under mu_r N r);
/// - rolling without slip, a = 2/3 g (sin(theta) - mu_r cos(theta)), while tan(theta) <= 3 mu - 2 mu_r
///   (the friction it needs, F = mu_r N + m a/2, stays under mu N);
/// - sliding (and rolling), a = g (sin(theta) - mu cos(theta)), above that;
/// - with rolling blocked (mu_r large), at rest iff tan(theta) <= mu, else sliding at g (sin - mu cos).
#[test]
fn slope_holds_rolls_and_slides_where_the_model_predicts() {
    let dem = DemParams::default();
    let (mu, mu_r) = (dem.mu, dem.mu_roll);
    // Holds: tan(0.5 deg) = 0.0087 < mu_r = 0.02.
    let (a, v, _) = on_slope(0.5, dem, 0.5);
    eprintln!("0.5 deg: a {a:.3e} m/s^2, v {v:.3e} m/s");
    assert!(v.abs() < 1e-4 && a.abs() < 1e-3, "0.5 deg should hold: a {a}, v {v}");
    // Rolls: tan(2 deg) = 0.035 > mu_r, and tan(10 deg) = 0.18 < 3 mu - 2 mu_r = 1.16.
    for deg in [2.0f32, 10.0, 40.0] {
        let th = deg.to_radians();
        let want = 2.0 / 3.0 * G * (th.sin() - mu_r * th.cos());
        let (a, v, slip) = on_slope(deg, dem, 0.3);
        eprintln!("{deg} deg: a {a:.4} m/s^2 (rolling prediction {want:.4}), slip {slip:.2e} of v {v:.3}");
        assert!((a - want).abs() < 0.01 * want, "{deg} deg: a {a} vs rolling {want}");
        assert!(slip.abs() < 0.01 * v.abs(), "{deg} deg: slip {slip} at v {v}");
    }
    // Slides: tan(55 deg) = 1.43 > 3 mu - 2 mu_r = 1.16.
    let th = 55f32.to_radians();
    let want = G * (th.sin() - mu * th.cos());
    let (a, v, slip) = on_slope(55.0, dem, 0.3);
    eprintln!("55 deg: a {a:.4} m/s^2 (sliding prediction {want:.4}), slip {slip:.3} of v {v:.3}");
    assert!((a - want).abs() < 0.01 * want, "55 deg: a {a} vs sliding {want}");
    assert!(slip > 0.1 * v, "55 deg should slip: slip {slip}, v {v}");

    // Rolling blocked: holds below atan(mu) = 21.8 deg, slides above.
    let blocked = DemParams { mu_roll: 1e3, ..dem };
    let (a, v, _) = on_slope(20.0, blocked, 0.5);
    eprintln!("20 deg, rolling blocked: a {a:.3e}, v {v:.3e}");
    assert!(
        v.abs() < 1e-3 && a.abs() < 1e-2,
        "20 deg with rolling blocked should hold: a {a}, v {v}"
    );
    let th = 24f32.to_radians();
    let want = G * (th.sin() - mu * th.cos());
    let (a, v, _) = on_slope(24.0, blocked, 0.5);
    eprintln!("24 deg, rolling blocked: a {a:.4} (sliding prediction {want:.4}), v {v:.3}");
    assert!((a - want).abs() < 0.02 * want, "24 deg blocked: a {a} vs {want}");
}

/// Kinetic (with rotation) plus elastic energy, J/m.
fn energy(s: &DemStepper, g: &Grains) -> f64 {
    kinetic_energy(g) + elastic_energy(&s.lists, s.dem.kn)
}

/// Grains thrown about in a closed box with g = 0: the energy never exceeds its
/// start, and at instants with no overlap it never grows from one to the next.
#[test]
fn energy_never_increases_without_external_work() {
    let mut rng = common_rng(7);
    let mut list = Vec::new();
    for row in 0..5 {
        for col in 0..6 {
            list.push((
                0.01 + 0.016 * col as f32,
                0.01 + 0.016 * row as f32,
                rng.f32(0.002, 0.004),
            ));
        }
    }
    let mut g = common::grains(&list);
    for i in 0..g.len() {
        g.vel[i] = [rng.f32(-1.0, 1.0), rng.f32(-1.0, 1.0)];
        g.ang_vel[i] = rng.f32(-200.0, 200.0);
    }
    let walls = common::walls(&[
        [0.0, 0.0, 0.1, 0.0],
        [0.1, 0.0, 0.1, 0.09],
        [0.1, 0.09, 0.0, 0.09],
        [0.0, 0.09, 0.0, 0.0],
    ]);
    let dem = DemParams::default();
    let dt = dem_dt(&g, f64::from(dem.kn), 0.1) as f32;
    let p = params([0.0, 0.0], dt);
    let mut s = stepper([0.0, 0.0, 0.1, 0.09], 0.004, &p, dem);
    s.detect(&g, &walls, p.alert);
    let e0 = energy(&s, &g);
    let mut last_free = e0;
    for _ in 0..(0.5 / dt) as usize {
        s.step(&mut g, &walls, &p);
        let e = energy(&s, &g);
        assert!(e <= e0 * (1.0 + 1e-4), "energy {e} above the start {e0}");
        let free = (0..g.len()).all(|i| s.lists.of(i).iter().all(|c| c.gap >= 0.0));
        if free {
            assert!(
                e <= last_free * (1.0 + 1e-5),
                "contact-free energy grew: {e} > {last_free}"
            );
            last_free = e;
        }
    }
    let e_end = energy(&s, &g);
    eprintln!("energy: start {e0:.4e} J/m, end {e_end:.4e} J/m");
    assert!(e_end < 0.5 * e0, "collisions must dissipate: {e_end} of {e0}");
}

fn common_rng(seed: u64) -> Rng {
    Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
}

struct Rng(u64);

impl Rng {
    fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let u = (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
}

/// A column of 300 grains (20 wide, 15 high) collapses on a floor; the angle of its pile, degrees:
/// the slope of a line through the surface heights of each flank (a height
/// per column of grains one mean diameter wide, where the pile is at least two grains high).
fn pile_angle(mu: f32) -> f32 {
    let mut rng = common_rng(3);
    let (cols, rows) = (20, 15);
    let mut list = Vec::new();
    for row in 0..rows {
        for col in 0..cols {
            let x = -0.072 + 0.0072 * col as f32 + rng.f32(-3e-4, 3e-4);
            list.push((x, 0.004 + 0.0072 * row as f32, rng.f32(0.0025, 0.0035)));
        }
    }
    let mut g = common::grains(&list);
    let walls: Walls = common::walls(&[[-0.6, 0.0, 0.6, 0.0], [-0.6, 0.0, -0.6, 0.3], [0.6, 0.0, 0.6, 0.3]]);
    // k_n = 1e6, ten times the reference: under the reference k_n a grain at
    // the bottom of a 15-layer column overlaps its neighbours by ~70% of its
    // radius (m g 14 = k_n delta^1.5 with m = rho pi r^2 per unit thickness),
    // and the collapse pushes grains through the floor.
    let dem = DemParams {
        mu,
        kn: 1e6,
        ..DemParams::default()
    };
    let dt = dem_dt(&g, f64::from(dem.kn), 0.1) as f32;
    let p = params([0.0, -G], dt);
    let mut s = stepper([-0.6, 0.0, 0.6, 0.3], 0.0035, &p, dem);
    for _ in 0..(1.5 / dt) as usize {
        s.step(&mut g, &walls, &p);
    }
    let vmax = g.vel.iter().map(|v| v[0].hypot(v[1])).fold(0.0f32, f32::max);
    // Surface height per 6 mm column.
    let w = 0.006;
    let mut h: std::collections::BTreeMap<i32, f32> = Default::default();
    for i in 0..g.len() {
        let e = h.entry((g.pos[i][0] / w).floor() as i32).or_insert(0.0);
        *e = e.max(g.pos[i][1] + g.radius[i]);
    }
    let (&peak, &top) = h.iter().max_by(|a, b| a.1.total_cmp(b.1)).unwrap();
    // Least-squares slope of height against distance from the peak, both flanks together.
    let pts: Vec<(f32, f32)> = h
        .iter()
        .filter(|&(_, &y)| y > 0.012)
        .map(|(&k, &y)| (((k - peak) as f32 * w).abs(), y))
        .collect();
    let n = pts.len() as f32;
    let (sx, sy) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
    let (mx, my) = (sx / n, sy / n);
    let (sxy, sxx) = pts.iter().fold((0.0, 0.0), |a, p| {
        (a.0 + (p.0 - mx) * (p.1 - my), a.1 + (p.0 - mx).powi(2))
    });
    let slope = if sxx > 0.0 { -sxy / sxx } else { 0.0 };
    let angle = slope.atan().to_degrees();
    eprintln!(
        "mu = {mu}: pile {} columns over two grains high, top {top:.4} m, angle {angle:.1} deg, max speed {vmax:.2e} m/s",
        pts.len()
    );
    angle
}

#[test]
fn pile_keeps_an_angle_of_repose_with_friction_and_flattens_without() {
    let rough = pile_angle(0.4);
    let smooth = pile_angle(0.0);
    eprintln!("angle of repose: mu 0.4 -> {rough:.1} deg, mu 0 -> {smooth:.1} deg");
    assert!(rough > 5.0, "mu = 0.4 pile angle {rough} deg");
    assert!(smooth < 0.3 * rough, "mu = 0 pile angle {smooth} deg vs {rough} deg");
}

/// `hourglass run --solver dem --grains 1000` through the library on the CPU.
fn dem_hourglass(preset: hourglass::scene::DemPreset, duration: Option<f64>, steps: Option<u64>) -> Summary {
    let mut scene = Scene::default();
    scene.solver.kind = SolverKind::Dem;
    scene.grains.count = 1000;
    scene.dem.preset = preset;
    scene.run.duration = duration;
    scene.run.steps = steps;
    let dir = tempfile::tempdir().unwrap();
    let (setup, s) = common::run_on_cpu(&scene, dir.path(), &mut sim::Silent);
    let s = s.expect("no grain is lost");
    println!(
        "{preset:?}: k_n {:.3e}, dt {:.3e} s, {} steps, {} passed, {} lost, max overlap {:.3e} m",
        setup.dem.kn, setup.params.dt, s.steps, s.passed, s.lost_grains, s.max_overlap
    );
    assert_eq!(s.lost_grains, 0);
    s
}

/// The course's soft k_n = 1e5 holds its 1,000 grains through a 2 s discharge
/// (overlaps of a radius and more, held by the walls' inside); the scene
/// preset's stiff k_n keeps overlaps near 1% of the mean radius. Its 2 s
/// discharge takes ~2 million steps (half an hour on two cores), so only its
/// first 20,000 steps run here.
#[test]
fn dem_hourglass_presets_lose_no_grain() {
    use hourglass::scene::DemPreset;
    let course = dem_hourglass(DemPreset::Course, Some(2.0), None);
    assert!(
        course.passed > 500,
        "the course run discharges: {} passed",
        course.passed
    );
    let scene = dem_hourglass(DemPreset::Scene, None, Some(20_000));
    assert!(
        scene.max_overlap < 0.1 * 0.003,
        "max overlap {:.3e} m",
        scene.max_overlap
    );
}

/// Hertz-Mindlin: k_n, nu as `DemParams`, and its tangential stiffness at
/// overlap `delta`, k_t = 8 G* sqrt(R* delta) = 3 k_n sqrt(delta) (1 - nu)/(2 - nu) (N/m^2).
fn mindlin_kt(dem: &DemParams, delta: f64) -> f64 {
    let nu = f64::from(dem.poisson);
    3.0 * f64::from(dem.kn) * delta.sqrt() * (1.0 - nu) / (2.0 - nu)
}

fn hertz_mindlin() -> DemParams {
    DemParams {
        law: NormalLaw::HertzMindlin,
        mu_roll: 1e3,
        ..DemParams::default()
    }
}

/// A grain held at overlap `delta` on a floor and dragged along it at `v`
/// (a kinematic grain, inv_mass 0): the stepper, the grain and the walls.
fn dragged(dem: DemParams, delta: f32, v: f32, p: &StepParams) -> (DemStepper, Grains, Walls) {
    let r = 0.003;
    let mut g = common::grains(&[(0.0, r - delta, r)]);
    g.inv_mass[0] = 0.0;
    g.vel[0] = [v, 0.0];
    let walls = common::walls(&[[-0.1, 0.0, 0.1, 0.0]]);
    (stepper([-0.1, -0.01, 0.1, 0.05], r, p, dem), g, walls)
}

#[test]
fn hertz_mindlin_tangential_force_grows_as_a_spring_then_saturates_at_coulomb() {
    let dem = hertz_mindlin();
    let (delta, v, dt) = (1e-4f32, 1e-3f32, 1e-5f32);
    let p = params([0.0, 0.0], dt);
    let (mut s, mut g, walls) = dragged(dem, delta, v, &p);
    let f_n = f64::from(dem.kn) * f64::from(delta).powf(1.5);
    let kt = mindlin_kt(&dem, f64::from(delta));
    let cap = f64::from(dem.mu) * f_n;
    // The spring reaches mu F_n after cap / (k_t v dt) steps.
    let sat = (cap / (kt * f64::from(v) * f64::from(dt))) as usize;
    assert!(sat > 20, "the set-up must load the spring gradually ({sat} steps)");
    for k in 1..=3 * sat {
        s.step(&mut g, &walls, &p);
        // F_n = F.n and F_t = F.t, t = (-n_y, n_x) = (-1, 0) (the wall's normal up to rounding).
        let (f, n) = (s.force[0].map(f64::from), s.lists.of(0)[0].normal.map(f64::from));
        let (fny, ft) = (f[0] * n[0] + f[1] * n[1], f[1] * n[0] - f[0] * n[1]);
        assert!((fny - f_n).abs() < 1e-5 * f_n, "step {k}: F_n {fny} vs {f_n}");
        if k < sat {
            let want = kt * k as f64 * f64::from(v) * f64::from(dt);
            assert!((ft - want).abs() < 1e-4 * cap, "step {k}: F_t {ft} vs spring {want}");
        } else if k > sat + sat / 100 {
            // Saturated: |F_t| is mu times the step's own F_n, to f32 rounding.
            let bound = f64::from(dem.mu) * fny;
            assert!(
                (ft - bound).abs() < 1e-6 * bound,
                "step {k}: F_t {ft} vs mu F_n {bound}"
            );
        }
    }
}

#[test]
fn hertz_mindlin_history_is_carried_between_steps_and_zero_after_the_contact_opens() {
    let dem = hertz_mindlin();
    let (delta, v, dt) = (1e-4f32, 1e-3f32, 1e-5f32);
    let p = params([0.0, 0.0], dt);
    let (mut s, mut g, walls) = dragged(dem, delta, v, &p);
    // Slip along this copy's tangent t = (-n_y, n_x) = (-1, 0): v_t = -v.
    let mut xi = 0.0f32;
    for _ in 0..10 {
        s.step(&mut g, &walls, &p);
        xi += -v * dt;
    }
    let held = s.lists.of(0)[0].impulse_t;
    assert!(
        (held - xi).abs() < 1e-5 * xi.abs(),
        "after 10 steps the spring holds {held}, not {xi}"
    );
    // Open the contact (gap 0.3 mm < alert 1 mm: still listed): its history is dropped.
    g.pos[0][1] = 0.003 + 3e-4;
    s.step(&mut g, &walls, &p);
    assert_eq!(s.lists.count[0], 1, "the open contact stays listed");
    assert_eq!(s.lists.of(0)[0].impulse_t, 0.0, "an open contact keeps no history");
    assert_eq!(s.force[0], [0.0, 0.0]);
    // Closed again: a new contact, starting from zero.
    g.pos[0][1] = 0.003 - delta;
    s.step(&mut g, &walls, &p);
    let fresh = s.lists.of(0)[0].impulse_t;
    assert!(
        (fresh + v * dt).abs() < 1e-5 * v * dt,
        "a new contact starts at -v dt, got {fresh}"
    );
}

/// A grain resting on a floor, pushed sideways by tilting gravity (tan 0.2 <
/// mu = 0.4, rolling blocked) for a while, then released: under Hertz-Mindlin
/// it sits on the tangential spring, displaced by F_t / k_t, and springs back
/// to where it started; the viscous law lets it creep and never return.
#[test]
fn hertz_mindlin_spring_below_coulomb_springs_back() {
    let dem = hertz_mindlin();
    let r = 0.003f32;
    let mut g = common::grains(&[(0.0, r, r)]);
    let m = g.mass(0);
    let dt = dem_dt(&g, f64::from(dem.kn), 0.1) as f32;
    let walls = common::walls(&[[-0.1, 0.0, 0.1, 0.0]]);
    let upright = params([0.0, -G], dt);
    let pushed = params([0.2 * G, -G], dt);
    let mut s = stepper([-0.1, -0.01, 0.1, 0.05], r, &upright, dem);
    let steps = (0.4 / dt) as usize;
    for _ in 0..steps {
        s.step(&mut g, &walls, &upright);
    }
    let x0 = f64::from(g.pos[0][0]);
    let mean_x = |s: &mut DemStepper, g: &mut Grains, p: &StepParams| {
        let mut sum = 0.0;
        for _ in 0..steps {
            s.step(g, &walls, p);
            sum += f64::from(g.pos[0][0]);
        }
        sum / steps as f64 - x0
    };
    let push = mean_x(&mut s, &mut g, &pushed);
    let back = mean_x(&mut s, &mut g, &upright);
    let w = m * f64::from(G);
    let want = 0.2 * w / mindlin_kt(&dem, (w / f64::from(dem.kn)).powf(2.0 / 3.0));
    eprintln!("displacement under the push {push:.3e} m (F_t/k_t = {want:.3e}), after release {back:.3e} m");
    assert!((push - want).abs() < 0.2 * want, "pushed: {push} m vs F_t/k_t {want} m");
    assert!(
        back.abs() < 0.1 * want,
        "released: {back} m from the start (push {push} m)"
    );
}

/// `[dem] law` and `poisson` reach the DEM's parameters; an unknown law, a
/// Poisson ratio out of [0, 0.5) and a `poisson` the law does not take are
/// refused with the key named.
#[test]
fn dem_law_scene_keys_select_the_law_and_refuse_bad_values() {
    let scene = |dem: &str| {
        let text = format!(
            "version = 1\n[walls]\nsegments = [[0.0, 0.0, 0.1, 0.0], [0.1, 0.0, 0.1, 0.1], [0.1, 0.1, 0.0, 0.1], [0.0, 0.1, 0.0, 0.0]]\n\
             [grains]\ncount = 4\nradius_std = 0.0\n[solver]\nkind = \"dem\"\n[run]\nsteps = 1\n[dem]\n{dem}\n"
        );
        let s = Scene::parse(&text, std::path::Path::new("law.toml")).unwrap();
        build(&s).map(|setup| setup.dem).map_err(|e| e.to_string())
    };
    let dem = scene("law = \"hertz_mindlin\"\npoisson = 0.25").unwrap();
    assert_eq!((dem.law, dem.poisson), (NormalLaw::HertzMindlin, 0.25));
    let dem = scene("law = \"hertz_mindlin\"").unwrap();
    assert_eq!((dem.law, dem.poisson), (NormalLaw::HertzMindlin, 0.3));
    assert_eq!(scene("").unwrap().law, NormalLaw::Hertz);
    for (keys, want) in [
        ("law = \"mindlin\"", "dem.law"),
        ("law = \"linear\"", "dem.law"),
        ("law = \"hertz_mindlin\"\npoisson = 0.5", "dem.poisson"),
        ("law = \"hertz_mindlin\"\npoisson = -0.1", "dem.poisson"),
        ("law = \"hertz_mindlin\"\npoisson = nan", "dem.poisson"),
        ("poisson = 0.3", "dem.poisson"),
    ] {
        let err = scene(keys).expect_err(keys);
        assert!(err.contains(want) && err.contains("law.toml"), "{keys}: {err}");
    }
}
