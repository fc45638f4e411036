//! The dynamic angle of repose of `scenes/drum.toml` against the rotation
//! rate (docs/walls.md, "Rotating drum"). For each solver and each rate the
//! drum is run from its fill: the walls start turning at 0.5 s, the flow
//! settles into its steady state for `max(1 s, 1.5 rad / rate)` and is then
//! sampled every 50 ms for `max(1.5 s, 2 rad / rate)`. At each sample the
//! free surface is the highest grain centre of each 4 mm bin of x within
//! 3 cm of the drum's axis (three fifths of its radius), and the angle is
//! that of the least-squares line through them. Prints the mean angle, its
//! standard deviation and range over the samples; `--plot PNG` draws the
//! mean angle against the rate.
//!
//! `nlgs` runs the scene as written (mu = mu_wall = 0.5, dt = 1 ms); `dem`
//! runs it under the soft-sphere DEM with the scene's `[dem]` friction
//! (mu = 0.5, no rolling resistance) and its automatic step.
//!
//! ```sh
//! cargo run --release --example drum -- [--plot PNG] SOLVER[,SOLVER...] RATE...
//! ```

use std::path::Path;

use hourglass::app::plot::{BLUE, GREEN, ORANGE, Panel, RED, Series, figure_sized};
use hourglass::backend::{check_initial_state, cpu_backend, grid_for};
use hourglass::model::{Grains, SolverKind};
use hourglass::output::ResultDir;
use hourglass::render::encode_png;
use hourglass::scene::{Scene, build};
use hourglass::sim::{Run, Silent};

/// The motion starts this long after the run (the fill settles first), s.
const START: f64 = 0.5;
/// Half-width of the band of x whose surface grains are fitted, m.
const BAND: f64 = 0.03;
/// Width of one surface bin, m.
const BIN: f64 = 0.004;
/// Time between two samples, s.
const SAMPLE: f64 = 0.05;

/// The slope of the free surface, degrees: a least-squares line through
/// the highest grain centre of each bin of x in [-BAND, BAND].
fn surface_angle(g: &Grains) -> f64 {
    let bins = (2.0 * BAND / BIN).round() as usize;
    let mut top = vec![f64::NEG_INFINITY; bins];
    let mut at = vec![0.0; bins];
    for p in &g.pos {
        let (x, y) = (f64::from(p[0]), f64::from(p[1]));
        if x.abs() >= BAND {
            continue;
        }
        let k = (((x + BAND) / BIN) as usize).min(bins - 1);
        if y > top[k] {
            top[k] = y;
            at[k] = x;
        }
    }
    let pts: Vec<(f64, f64)> = (0..bins)
        .filter(|&k| top[k].is_finite())
        .map(|k| (at[k], top[k]))
        .collect();
    let n = pts.len() as f64;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / n,
        pts.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    (sxy / sxx).atan().to_degrees()
}

/// One run at `rate` under `solver`: (mean, standard deviation, min, max)
/// of the angle over the samples, and the step.
fn measure(solver: SolverKind, rate: f64) -> ([f64; 4], f64) {
    let mut scene = Scene::load(Path::new("scenes/drum.toml")).expect("scenes/drum.toml loads");
    scene.motion[0].rotate.as_mut().expect("the drum rotates").rate = rate;
    if solver == SolverKind::Dem {
        scene.solver.kind = SolverKind::Dem;
        scene.solver.mu = 0.0;
        scene.solver.mu_wall = 0.0;
        scene.solver.dt = None;
    }
    let spin_up = (1.5 / rate).max(1.0);
    let window = (2.0 / rate).max(1.5);
    scene.run.duration = Some(START + spin_up + window);
    let setup = build(&scene).expect("the drum builds");
    let dt = f64::from(setup.params.dt);
    scene.run.every = (0.5 / dt).round() as u64;
    let setup = build(&scene).expect("the drum builds");
    let grid = grid_for(&setup).expect("a grid");
    check_initial_state(&setup, &grid).expect("an overlap-free fill");
    let mut backend = cpu_backend(&setup, grid);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut out = ResultDir::create(&dir.path().join("out"), &setup.scene.to_toml()).expect("a result directory");
    let mut run = Run::start(&setup, backend.as_mut(), &mut out, &mut Silent).expect("the run starts");
    let to = |t: f64| (t / dt).round() as u64;
    run.advance(backend.as_mut(), &mut out, to(START + spin_up), &mut Silent)
        .expect("steps");
    let mut angles = Vec::new();
    while !run.done() {
        run.advance(backend.as_mut(), &mut out, to(SAMPLE), &mut Silent)
            .expect("steps");
        angles.push(surface_angle(backend.grains().expect("the grains")));
    }
    let n = angles.len() as f64;
    let mean = angles.iter().sum::<f64>() / n;
    let sd = (angles.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / n).sqrt();
    let lo = angles.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = angles.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    ([mean, sd, lo, hi], dt)
}

/// A solver's (rate, [mean, sd, min, max] angle) per rotation rate.
type Angles = (SolverKind, Vec<(f64, [f64; 4])>);

/// Mean angle against rate, one line per solver, drawn with the plots'
/// panels (`hourglass plot`).
fn plot(path: &str, series: &[Angles]) {
    let colors = [BLUE, ORANGE, GREEN, RED];
    let panel = Panel {
        title: "rotating drum (scenes/drum.toml): free-surface angle".into(),
        x_label: "rotation rate (rad/s)".into(),
        y_label: "dynamic angle of repose (deg)".into(),
        series: series
            .iter()
            .enumerate()
            .map(|(k, (solver, pts))| Series {
                label: solver.name().into(),
                color: colors[k % colors.len()],
                points: pts.iter().map(|p| (p.0, p.1[0])).collect(),
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
    let plot_to = args.iter().position(|a| a == "--plot").map(|i| {
        let p = args.get(i + 1).expect("--plot PNG").clone();
        args.drain(i..i + 2);
        p
    });
    let solvers: Vec<SolverKind> = args
        .first()
        .map_or("nlgs", String::as_str)
        .split(',')
        .map(|s| <SolverKind as clap::ValueEnum>::from_str(s, true).expect("nlgs or dem"))
        .collect();
    let rates: Vec<f64> = if args.len() > 1 {
        args[1..].iter().map(|a| a.parse().expect("RATE, rad/s")).collect()
    } else {
        vec![0.5, 1.0, 2.0, 4.0]
    };
    let mut series = Vec::new();
    for &solver in &solvers {
        let mut pts = Vec::new();
        for &rate in &rates {
            let t0 = std::time::Instant::now();
            let (a, dt) = measure(solver, rate);
            println!(
                "{:>5} rate {rate:>4} rad/s: angle {:.1} deg (sd {:.1}, {:.1}-{:.1}); dt {dt:.2e} s, {:.0} s wall",
                solver.name(),
                a[0],
                a[1],
                a[2],
                a[3],
                t0.elapsed().as_secs_f64()
            );
            pts.push((rate, a));
        }
        series.push((solver, pts));
    }
    if let Some(p) = plot_to {
        plot(&p, &series);
        println!("wrote {p}");
    }
}
