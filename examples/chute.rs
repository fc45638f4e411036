//! The velocity profile of the periodic inclined chute `scenes/chute.toml`
//! against Bagnold's (docs/walls.md, "Inclined chute"). The scene runs
//! under the DEM from its fill; every 20 ms the mean x-velocity and the
//! kinetic energy per grain are recorded, and from `--from` on each grain
//! adds its x-velocity to the layer of one mean diameter d that holds its
//! centre. The flow is steady when the mean x-velocity of the last third of
//! the window is within 5 % of the first third's.
//!
//! Heights y are measured from the crests of the floor's teeth. The
//! surface H is where the time-averaged area fraction of the layers falls
//! to half that of the bulk (the layers from 2 d to 8 d). The layers below
//! H are fitted by least squares with `u(y) = A (H^1.5 - (H - y)^1.5)` (no
//! slip at the base; H fixed, A fitted), and with the same profile over a
//! slip velocity, `u_s + A (H^1.5 - (H - y)^1.5)`; each fit's relative rms
//! residual is rms(u - fit) / rms(u) over those layers. `--plot PNG` draws
//! the measured u(y) and the Bagnold fit.
//!
//! ```sh
//! cargo run --release --example chute -- [--angle DEG] [--duration S] [--from S] [--plot PNG]
//! ```

use std::path::Path;

use hourglass::app::plot::{BLUE, ORANGE, Panel, Series, figure_sized};
use hourglass::backend::{check_initial_state, cpu_backend, grid_for};
use hourglass::model::Grains;
use hourglass::output::ResultDir;
use hourglass::render::encode_png;
use hourglass::scene::{Scene, build};
use hourglass::sim::{Run, Silent};

/// Time between two samples, s.
const SAMPLE: f64 = 0.02;
/// Height of the crests of the floor's teeth, m (scenes/chute.toml).
const BASE: f64 = 0.0015;
/// Chute length, the period, m (scenes/chute.toml).
const LENGTH: f64 = 0.09;
/// Layers of the profile.
const LAYERS: usize = 30;

/// Per-layer sums over the samples of the window: x-velocity, grains and
/// grain area.
struct Profile {
    d: f64,
    u: Vec<f64>,
    n: Vec<f64>,
    area: Vec<f64>,
    samples: usize,
}

impl Profile {
    fn add(&mut self, g: &Grains) {
        for ((p, v), r) in g.pos.iter().zip(&g.vel).zip(&g.radius) {
            let y = f64::from(p[1]) - BASE;
            if y < 0.0 {
                continue;
            }
            let k = (y / self.d) as usize;
            if k < LAYERS {
                self.u[k] += f64::from(v[0]);
                self.n[k] += 1.0;
                self.area[k] += std::f64::consts::PI * f64::from(*r) * f64::from(*r);
            }
        }
        self.samples += 1;
    }

    /// (layer centre y, mean x-velocity, area fraction) of the layers that held grains.
    fn layers(&self) -> Vec<(f64, f64, f64)> {
        (0..LAYERS)
            .filter(|&k| self.n[k] > 0.0)
            .map(|k| {
                (
                    (k as f64 + 0.5) * self.d,
                    self.u[k] / self.n[k],
                    self.area[k] / (self.samples as f64 * LENGTH * self.d),
                )
            })
            .collect()
    }
}

/// Bagnold's shape H^1.5 - (H - y)^1.5.
fn shape(h: f64, y: f64) -> f64 {
    h.powf(1.5) - (h - y).max(0.0).powf(1.5)
}

/// Least squares of u against the shape: (u_s, A) with u_s = 0 unless `slip`.
fn fit(pts: &[(f64, f64)], h: f64, slip: bool) -> (f64, f64) {
    if !slip {
        let sfu: f64 = pts.iter().map(|&(y, u)| shape(h, y) * u).sum();
        let sff: f64 = pts.iter().map(|&(y, _)| shape(h, y).powi(2)).sum();
        return (0.0, sfu / sff);
    }
    let n = pts.len() as f64;
    let mf = pts.iter().map(|&(y, _)| shape(h, y)).sum::<f64>() / n;
    let mu = pts.iter().map(|&(_, u)| u).sum::<f64>() / n;
    let sfu: f64 = pts.iter().map(|&(y, u)| (shape(h, y) - mf) * (u - mu)).sum();
    let sff: f64 = pts.iter().map(|&(y, _)| (shape(h, y) - mf).powi(2)).sum();
    let a = sfu / sff;
    (mu - a * mf, a)
}

/// rms(u - fit) / rms(u).
fn residual(pts: &[(f64, f64)], h: f64, (us, a): (f64, f64)) -> f64 {
    let e: f64 = pts.iter().map(|&(y, u)| (u - us - a * shape(h, y)).powi(2)).sum();
    let s: f64 = pts.iter().map(|&(_, u)| u * u).sum();
    (e / s).sqrt()
}

/// Measured (y, u) and the fitted curve, y vertical, in units of d and m/s.
type Curves = (Vec<(f64, f64)>, Vec<(f64, f64)>);

fn plot(path: &str, angle: f64, (measured, fitted): &Curves) {
    let panel = Panel {
        title: format!("inclined chute, {angle:.1} deg: u(y)"),
        x_label: "mean x-velocity u (m/s)".into(),
        y_label: "height above the floor y / d".into(),
        series: vec![
            Series {
                label: "measured (DEM)".into(),
                color: BLUE,
                points: measured.clone(),
                wide: false,
            },
            Series {
                label: "Bagnold fit".into(),
                color: ORANGE,
                points: fitted.clone(),
                wide: false,
            },
        ],
        log_y: false,
    };
    let png = encode_png(&figure_sized(&[panel], 480, 400)).expect("a PNG");
    std::fs::write(path, png).expect("the plot is written");
}

fn take(args: &mut Vec<String>, key: &str) -> Option<String> {
    args.iter().position(|a| a == key).map(|i| {
        let v = args.get(i + 1).unwrap_or_else(|| panic!("{key} VALUE")).clone();
        args.drain(i..i + 2);
        v
    })
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let plot_to = take(&mut args, "--plot");
    let angle: Option<f64> = take(&mut args, "--angle").map(|a| a.parse().expect("--angle DEG"));
    let duration: f64 = take(&mut args, "--duration").map_or(8.0, |a| a.parse().expect("--duration S"));
    let from: f64 = take(&mut args, "--from").map_or(duration / 2.0, |a| a.parse().expect("--from S"));
    assert!(args.is_empty(), "unknown arguments {args:?}");
    assert!(from < duration, "--from must be before --duration");

    let mut scene = Scene::load(Path::new("scenes/chute.toml")).expect("scenes/chute.toml loads");
    let g = scene.gravity[0].hypot(scene.gravity[1]);
    let angle = angle.unwrap_or_else(|| scene.gravity[0].atan2(-scene.gravity[1]).to_degrees());
    scene.gravity = [g * angle.to_radians().sin(), -g * angle.to_radians().cos()];
    scene.run.duration = Some(duration);
    let setup = build(&scene).expect("the chute builds");
    let dt = f64::from(setup.params.dt);
    scene.run.every = (1.0 / dt).round() as u64;
    let setup = build(&scene).expect("the chute builds");
    let d = 2.0 * scene.grains.radius_mean;
    let grid = grid_for(&setup).expect("a grid");
    check_initial_state(&setup, &grid).expect("an overlap-free fill");
    let mut backend = cpu_backend(&setup, grid);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut out = ResultDir::create(&dir.path().join("out"), &setup.scene.to_toml()).expect("a result directory");
    let mut run = Run::start(&setup, backend.as_mut(), &mut out, &mut Silent).expect("the run starts");
    let t0 = std::time::Instant::now();
    let steps = (SAMPLE / dt).round() as u64;
    let mut profile = Profile {
        d,
        u: vec![0.0; LAYERS],
        n: vec![0.0; LAYERS],
        area: vec![0.0; LAYERS],
        samples: 0,
    };
    let mut series = Vec::new();
    let mut t = 0.0;
    println!("angle {angle:.1} deg, d = {:.1} mm, dt {dt:.2e} s", d * 1e3);
    println!("    t (s)  mean u (m/s)  kinetic energy per grain (J/m)");
    while !run.done() {
        run.advance(backend.as_mut(), &mut out, steps, &mut Silent)
            .expect("steps");
        t += steps as f64 * dt;
        let gr = backend.grains().expect("the grains");
        let n = gr.vel.len() as f64;
        let u = gr.vel.iter().map(|v| f64::from(v[0])).sum::<f64>() / n;
        let ke = gr
            .vel
            .iter()
            .enumerate()
            .map(|(i, v)| 0.5 * gr.mass(i) * (f64::from(v[0]).powi(2) + f64::from(v[1]).powi(2)))
            .sum::<f64>()
            / n;
        series.push((t, u));
        if (t / 0.5).round() * 0.5 - t < 0.5 * SAMPLE && (t / 0.5).round() * 0.5 - t > -0.5 * SAMPLE {
            println!("{t:>9.2}  {u:>12.4}  {ke:.3e}");
        }
        if t >= from - 1e-9 {
            profile.add(gr);
        }
    }
    let window: Vec<f64> = series.iter().filter(|p| p.0 >= from - 1e-9).map(|p| p.1).collect();
    let third = window.len() / 3;
    let first = window[..third].iter().sum::<f64>() / third as f64;
    let last = window[window.len() - third..].iter().sum::<f64>() / third as f64;
    let drift = (last - first) / first;
    println!(
        "window {from}-{duration} s ({} samples): mean u {first:.4} m/s in its first third, {last:.4} in its last: {:+.1} % ({})",
        window.len(),
        100.0 * drift,
        if drift.abs() <= 0.05 {
            "steady"
        } else if drift > 0.0 {
            "accelerating"
        } else {
            "decelerating"
        }
    );

    let layers = profile.layers();
    let bulk: Vec<f64> = layers
        .iter()
        .filter(|l| l.0 >= 2.0 * d && l.0 <= 8.0 * d)
        .map(|l| l.2)
        .collect();
    let bulk = bulk.iter().sum::<f64>() / bulk.len() as f64;
    // The surface: linear interpolation where the area fraction crosses bulk / 2.
    let mut h = layers.last().map_or(0.0, |l| l.0);
    for w in layers.windows(2) {
        if w[0].0 > 2.0 * d && w[0].2 >= 0.5 * bulk && w[1].2 < 0.5 * bulk {
            h = w[0].0 + (w[0].2 - 0.5 * bulk) / (w[0].2 - w[1].2) * (w[1].0 - w[0].0);
            break;
        }
    }
    let pts: Vec<(f64, f64)> = layers.iter().filter(|l| l.0 < h).map(|l| (l.0, l.1)).collect();
    let bagnold = fit(&pts, h, false);
    let slip = fit(&pts, h, true);
    println!(
        "bulk area fraction {bulk:.3}; surface H = {:.2} d = {:.1} mm",
        h / d,
        h * 1e3
    );
    println!("  y/d   u (m/s)  area fraction  Bagnold fit (m/s)");
    for l in &layers {
        let f = if l.0 < h {
            format!("{:.4}", bagnold.1 * shape(h, l.0))
        } else {
            "-".into()
        };
        println!("{:>5.1}  {:>8.4}  {:>13.3}  {f:>17}", l.0 / d, l.1, l.2);
    }
    println!(
        "Bagnold fit u = A (H^1.5 - (H - y)^1.5): A = {:.1} m^-0.5 s^-1, relative rms residual {:.3}",
        bagnold.1,
        residual(&pts, h, bagnold)
    );
    println!(
        "with slip u = u_s + A (H^1.5 - (H - y)^1.5): u_s = {:.4} m/s, A = {:.1} m^-0.5 s^-1, relative rms residual {:.3}",
        slip.0,
        slip.1,
        residual(&pts, h, slip)
    );
    println!("{:.0} s wall", t0.elapsed().as_secs_f64());
    if let Some(p) = plot_to {
        let measured = pts.iter().map(|&(y, u)| (u, y / d)).collect();
        let fitted = (0..=50)
            .map(|k| {
                let y = h * f64::from(k) / 50.0;
                (bagnold.1 * shape(h, y), y / d)
            })
            .collect();
        plot(&p, angle, &(measured, fitted));
        println!("wrote {p}");
    }
}
