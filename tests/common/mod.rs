//! Small builders shared by the integration tests.
#![allow(dead_code)]

pub mod nscd3;
pub mod spheres;

use hourglass::cpu::CpuStepper;
use hourglass::model::Grid;
use hourglass::model::{Grains, SolverKind, StepParams, Walls};

pub const DENSITY: f64 = 2500.0;

/// A grid covering the walls and every grain, cells of 2 r_max + `alert`.
pub fn grid_around(grains: &Grains, walls: &Walls, alert: f32) -> Grid {
    let mut bb = walls.bounding_box();
    for q in &grains.pos {
        bb = [bb[0].min(q[0]), bb[1].min(q[1]), bb[2].max(q[0]), bb[3].max(q[1])];
    }
    Grid::covering(bb, 2.0 * grains.max_radius() + alert).unwrap()
}

pub fn params(solver: SolverKind) -> StepParams {
    StepParams {
        gravity: [0.0, -9.81],
        dt: 1e-3,
        alert: 0.003,
        tol: 1e-6,
        itmax: 1000,
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

/// Grains at rest from (x, y, r) triples.
pub fn grains(list: &[(f32, f32, f32)]) -> Grains {
    Grains::new(
        list.iter().map(|g| [g.0, g.1]).collect(),
        vec![[0.0; 2]; list.len()],
        list.iter().map(|g| g.2).collect(),
        DENSITY,
    )
}

pub fn walls(lines: &[[f64; 4]]) -> Walls {
    let l: Vec<[[f64; 2]; 2]> = lines.iter().map(|s| [[s[0], s[1]], [s[2], s[3]]]).collect();
    Walls::new(&l)
}

/// A CPU stepper whose grid covers `bbox` for grains up to `r_max`.
pub fn stepper(bbox: [f32; 4], r_max: f32, p: &StepParams) -> CpuStepper {
    let grid = Grid::covering(bbox, 2.0 * r_max + p.alert).unwrap();
    CpuStepper::new(grid, 16)
}

/// A hexagonal pile of equal grains of radius r on a floor at y = 0,
/// `base` grains wide, between two walls; returns grains and walls.
pub fn hex_pile(base: usize, r: f32) -> (Grains, Walls) {
    let mut g = Vec::new();
    let gap = 1e-5;
    for row in 0..base {
        for k in 0..base - row {
            let x = (2.0 * r + gap) * (k as f32 + 0.5 * row as f32) + r;
            let y = r + row as f32 * (3f32.sqrt() * (r + gap * 0.5)) + gap;
            g.push((x, y, r));
        }
    }
    let width = f64::from((2.0 * r + gap) * base as f32);
    (
        grains(&g),
        walls(&[
            [-0.001, 0.0, width + 0.001, 0.0],
            [-0.001, 0.0, -0.001, 1.0],
            [width + 0.001, 0.0, width + 0.001, 1.0],
        ]),
    )
}

/// `n` grains of radius 3 mm stacked in touch on a floor, all falling at
/// 1 m/s as the lowest lands: a perfectly inelastic step stops every grain,
/// the corrections running up the column (the slow mode of Gauss-Seidel
/// that over-relaxation speeds up).
pub fn landing_column(n: usize) -> (Grains, Walls) {
    let r = 0.003f32;
    let list: Vec<(f32, f32, f32)> = (0..n).map(|k| (r, r + 2.0 * r * k as f32, r)).collect();
    let mut g = grains(&list);
    for v in &mut g.vel {
        *v = [0.0, -1.0];
    }
    (g, walls(&[[-0.001, 0.0, 0.007, 0.0]]))
}

/// Build `scene`, run it on the CPU backend into a fresh result directory
/// under `dir` with `obs` listening, and finish the directory (when the run
/// succeeds); returns the setup and the run's outcome.
pub fn run_on_cpu(
    scene: &hourglass::scene::Scene,
    dir: &std::path::Path,
    obs: &mut dyn hourglass::sim::Observer,
) -> (hourglass::scene::Setup, hourglass::Result<hourglass::output::Summary>) {
    let setup = hourglass::scene::build(scene).unwrap();
    let grid = hourglass::backend::grid_for(&setup).unwrap();
    let mut backend = hourglass::backend::select(
        &setup,
        grid,
        hourglass::scene::BackendChoice::Cpu,
        hourglass::backend::Device::Open,
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!(backend.kind(), hourglass::backend::BackendKind::Cpu);
    let mut out = hourglass::output::ResultDir::create(dir, &setup.scene.to_toml()).unwrap();
    let summary = hourglass::sim::run(&setup, backend.as_mut(), &mut out, obs);
    if let Ok(s) = &summary {
        out.finish(s).unwrap();
    }
    (setup, summary)
}

/// Throw the highest grain of `g` straight up at `speed` (m/s): it leaves
/// its pocket, one fast grain over a resting pile.
pub fn throw_top_grain(g: &mut Grains, speed: f32) {
    let top = (0..g.len())
        .max_by(|&a, &b| g.pos[a][1].total_cmp(&g.pos[b][1]))
        .expect("a grain to throw");
    g.vel[top] = [0.0, speed];
}
