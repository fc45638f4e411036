//! Sticky particles in 1D (docs/nscd.md#sticky-particles): grains on a line
//! with no gravity, perfectly inelastic NSCD contacts. Colliding grains form
//! clusters that move with the mean velocity of their members, and the total
//! momentum is kept exactly. The collision times and cluster velocities of a
//! four-grain case are computed by hand below.

mod common;

use common::{grains, params, stepper, walls};
use hourglass::model::{SolverKind, StepParams};

/// Four equal grains of diameter 0.01 m at x = 0, 0.1, 0.2, 0.35 with
/// velocities 1, 0, -0.5, 0 m/s. By hand (surface gaps close at the
/// relative speed):
/// - t = 0.09: grain 0 meets grain 1 (gap 0.09 at 1 m/s); cluster {0, 1}
///   moves at (1 + 0) / 2 = 0.5 m/s. Grain 2 is then at 0.155.
/// - t = 0.135: the cluster's front (0.1 at t = 0.09) meets grain 2 (gap
///   0.155 - 0.1 - 0.01 = 0.045, closing at 0.5 + 0.5 = 1 m/s); {0, 1, 2}
///   moves at (1 + 0 - 0.5) / 3 = 1/6 m/s, its front at 0.1325.
/// - t = 0.135 + (0.35 - 0.1325 - 0.01) / (1/6) = 1.38: grain 3 joins;
///   all four move at 0.5 / 4 = 0.125 m/s.
const X: [f32; 4] = [0.0, 0.1, 0.2, 0.35];
const V: [f32; 4] = [1.0, 0.0, -0.5, 0.0];
const EVENTS: [(f64, usize, f64); 3] = [(0.09, 2, 0.5), (0.135, 3, 1.0 / 6.0), (1.38, 4, 0.125)];

#[test]
fn sticky_particles_form_clusters_at_the_hand_computed_times_and_velocities() {
    for solver in [
        SolverKind::Nlgs,
        SolverKind::Jacobi,
        SolverKind::Colored,
        SolverKind::Apgd,
    ] {
        let p = StepParams {
            gravity: [0.0, 0.0],
            tol: 1e-9,
            itmax: 5000,
            ..params(solver)
        };
        let r = 0.005f32;
        let mut g = grains(&X.map(|x| (x, 0.0, r)));
        for (v, &u) in g.vel.iter_mut().zip(&V) {
            *v = [u, 0.0];
        }
        let w = walls(&[]);
        let mut st = stepper([-0.1, -0.05, 0.7, 0.05], r, &p);
        let m0: f64 = V.iter().map(|&v| f64::from(v)).sum();
        let dt = f64::from(p.dt);
        let mut joined = [f64::NAN; 3];
        let steps = (1.6 / dt) as usize;
        for step in 1..=steps {
            st.step(&mut g, &w, &p).unwrap();
            let t = step as f64 * dt;
            // Momentum (equal masses: the sum of velocities) is kept at every step.
            let m: f64 = g.vel.iter().map(|v| f64::from(v[0])).sum();
            assert!((m - m0).abs() < 1e-5, "{solver:?} t {t}: momentum {m} vs {m0}");
            assert!(
                g.vel.iter().all(|v| v[1] == 0.0),
                "{solver:?}: motion stays on the line"
            );
            // The first step after which the first k grains share one velocity.
            for (e, &(_, k, _)) in EVENTS.iter().enumerate() {
                let first = g.vel[0][0];
                if joined[e].is_nan() && g.vel[..k].iter().all(|v| (v[0] - first).abs() < 1e-5) {
                    joined[e] = t;
                }
            }
        }
        for (e, &(t_hand, k, _)) in EVENTS.iter().enumerate() {
            // The contact closes within the step that reaches it and the
            // cluster moves as one from the next; each earlier event may
            // shift the next by up to a step: within three steps.
            assert!(
                joined[e] >= t_hand && joined[e] <= t_hand + 3.0 * dt + 1e-6,
                "{solver:?}: the first {k} grains joined at {} s, by hand {t_hand} s",
                joined[e]
            );
        }
        // After the last event every grain moves at the mean velocity.
        for v in &g.vel {
            assert!((f64::from(v[0]) - 0.125).abs() < 1e-5, "{solver:?}: {:?}", g.vel);
        }
    }
}

#[test]
fn clusters_move_with_the_mean_velocity_of_their_members() {
    let p = StepParams {
        gravity: [0.0, 0.0],
        tol: 1e-9,
        itmax: 5000,
        ..params(SolverKind::Nlgs)
    };
    let r = 0.005f32;
    let mut g = grains(&X.map(|x| (x, 0.0, r)));
    for (v, &u) in g.vel.iter_mut().zip(&V) {
        *v = [u, 0.0];
    }
    let w = walls(&[]);
    let mut st = stepper([-0.1, -0.05, 0.7, 0.05], r, &p);
    let dt = f64::from(p.dt);
    let mut steps = 0usize;
    for (t_hand, k, v_hand) in EVENTS {
        // Three steps past each event (and before the next one), the first k
        // grains move at the hand-computed cluster velocity.
        let target = ((t_hand + 3.0 * dt) / dt).round() as usize;
        while steps < target {
            st.step(&mut g, &w, &p).unwrap();
            steps += 1;
        }
        for v in &g.vel[..k] {
            assert!(
                (f64::from(v[0]) - v_hand).abs() < 1e-5,
                "t {t_hand}: {:?} vs {v_hand}",
                g.vel
            );
        }
    }
}

#[test]
fn the_sticky_scene_keeps_its_momentum_and_loses_energy_to_each_collision() {
    let out = std::env::temp_dir().join(format!("hourglass-sticky-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let scene = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/sticky.toml");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args(["run", scene, "--backend", "cpu", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(out.join("diagnostics.csv")).unwrap();
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (ke, px) = (col("kinetic_energy"), col("momentum_x"));
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap_or(f64::NAN)).collect())
        .collect();
    let (p0, e0) = (rows[0][px], rows[0][ke]);
    for r in &rows {
        assert!(
            (r[px] - p0).abs() < 1e-6 * p0.abs().max(1e-3),
            "momentum {} vs {p0}",
            r[px]
        );
    }
    for w in rows.windows(2) {
        assert!(
            w[1][ke] <= w[0][ke] * (1.0 + 1e-6),
            "kinetic energy grew: {} -> {}",
            w[0][ke],
            w[1][ke]
        );
    }
    let e1 = rows.last().unwrap()[ke];
    assert!(e1 < 0.5 * e0, "clusters formed: kinetic energy {e0} -> {e1}");
    let _ = std::fs::remove_dir_all(&out);
}
