//! The Brazil-nut effect in `scenes/shaken_bed.toml` (docs/walls.md,
//! "Shaken bed"): the intruder (the largest grain, three times the small grains'
//! radius) starts on the floor of the box, which vibrates along y from
//! 0.5 s at 10 Hz. For each dimensionless acceleration Gamma = A (2 pi f)^2 / g
//! given, the amplitude A is set from it and the scene run under its own
//! solver (NLGS, mu = mu_wall = 0.5); every `EVERY` seconds the example
//! prints the intruder's height above the floor (its centre's y less the
//! floor's shift A sin(2 pi f (t - 0.5 s))) and the height of the bed's
//! top (the mean of the ten highest small grains' centres, above the
//! floor). `--plot PNG` draws the intruder's height against time, one line
//! per Gamma.
//!
//! ```sh
//! cargo run --release --example shaken_bed -- [--plot PNG] [--duration S] [--every S] GAMMA...
//! ```

use std::path::Path;

use hourglass::app::plot::{BLUE, GREEN, ORANGE, Panel, RED, Series, figure_sized};
use hourglass::backend::{check_initial_state, cpu_backend, grid_for};
use hourglass::model::Grains;
use hourglass::output::ResultDir;
use hourglass::render::encode_png;
use hourglass::scene::{Scene, build};
use hourglass::sim::{Run, Silent};

/// (intruder's centre, bed top) above the floor, m; the floor is `floor` m
/// above where it was built. The intruder is the largest grain (the
/// backend may keep the grains in another order than the list's).
fn heights(g: &Grains, floor: f64) -> (f64, f64) {
    let big = (0..g.len())
        .max_by(|&a, &b| g.radius[a].total_cmp(&g.radius[b]))
        .unwrap_or(0);
    let mut small: Vec<f64> = (0..g.len())
        .filter(|&i| i != big)
        .map(|i| f64::from(g.pos[i][1]))
        .collect();
    small.sort_by(|a, b| b.total_cmp(a));
    let top = small.iter().take(10).sum::<f64>() / small.len().min(10) as f64;
    (f64::from(g.pos[big][1]) - floor, top - floor)
}

/// One run at `gamma` for `duration` s after the vibration starts: (time
/// since the start of the vibration, intruder height, bed top) every `every` s.
fn follow(gamma: f64, duration: f64, every: f64) -> Vec<(f64, f64, f64)> {
    let mut scene = Scene::load(Path::new("scenes/shaken_bed.toml")).expect("scenes/shaken_bed.toml loads");
    let start = scene.motion[0].start;
    let vib = scene.motion[0].vibrate.as_mut().expect("the bed vibrates");
    let w = 2.0 * std::f64::consts::PI * vib.frequency;
    vib.amplitude = gamma * 9.81 / (w * w);
    let (amp, g) = (vib.amplitude, scene.gravity[1].abs());
    assert!((g - 9.81).abs() < 1e-9, "Gamma is taken with g = 9.81 m/s^2");
    scene.run.duration = Some(start + duration);
    let setup = build(&scene).expect("the shaken bed builds");
    let dt = f64::from(setup.params.dt);
    let grid = grid_for(&setup).expect("a grid");
    check_initial_state(&setup, &grid).expect("an overlap-free list");
    let mut backend = cpu_backend(&setup, grid);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut out = ResultDir::create(&dir.path().join("out"), &setup.scene.to_toml()).expect("a result directory");
    let mut run = Run::start(&setup, backend.as_mut(), &mut out, &mut Silent).expect("the run starts");
    let to = |t: f64| (t / dt).round() as u64;
    let mut rows = Vec::new();
    let mut steps = run
        .advance(backend.as_mut(), &mut out, to(start), &mut Silent)
        .expect("steps");
    loop {
        let t = steps as f64 * dt - start;
        let floor = amp * (w * t).sin();
        let (h, top) = heights(backend.grains().expect("the grains"), floor);
        rows.push((t, h, top));
        if run.done() {
            break;
        }
        steps += run
            .advance(backend.as_mut(), &mut out, to(every), &mut Silent)
            .expect("steps");
    }
    rows
}

/// A run's Gamma and its (time, intruder height, bed top) samples.
type Heights = (f64, Vec<(f64, f64, f64)>);

fn plot(path: &str, runs: &[Heights]) {
    let colors = [BLUE, ORANGE, GREEN, RED];
    let panel = Panel {
        title: "shaken bed (scenes/shaken_bed.toml): intruder height".into(),
        x_label: "time since the vibration started (s)".into(),
        y_label: "intruder centre above the floor (mm)".into(),
        series: runs
            .iter()
            .enumerate()
            .map(|(k, (gamma, rows))| Series {
                label: format!("Gamma = {gamma}"),
                color: colors[k % colors.len()],
                points: rows.iter().map(|r| (r.0, r.1 * 1e3)).collect(),
                wide: false,
            })
            .collect(),
        log_y: false,
    };
    let png = encode_png(&figure_sized(&[panel], 640, 360)).expect("a PNG");
    std::fs::write(path, png).expect("the plot is written");
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut take = |flag: &str| {
        args.iter().position(|a| a == flag).map(|i| {
            let v = args
                .get(i + 1)
                .unwrap_or_else(|| panic!("{flag} takes a value"))
                .clone();
            args.drain(i..i + 2);
            v
        })
    };
    let plot_to = take("--plot");
    let duration: f64 = take("--duration").map_or(15.0, |v| v.parse().expect("--duration S"));
    let every: f64 = take("--every").map_or(1.0, |v| v.parse().expect("--every S"));
    let gammas: Vec<f64> = if args.is_empty() {
        vec![3.0, 0.5]
    } else {
        args.iter().map(|a| a.parse().expect("GAMMA")).collect()
    };
    let mut runs = Vec::new();
    for &gamma in &gammas {
        let t0 = std::time::Instant::now();
        let rows = follow(gamma, duration, every);
        println!("Gamma = {gamma}: t (s), intruder centre above the floor (mm), bed top (mm)");
        for r in &rows {
            println!("  {:6.2} {:7.1} {:7.1}", r.0, r.1 * 1e3, r.2 * 1e3);
        }
        println!("  ({:.0} s wall)", t0.elapsed().as_secs_f64());
        runs.push((gamma, rows));
    }
    if let Some(p) = plot_to {
        plot(&p, &runs);
        println!("wrote {p}");
    }
}
