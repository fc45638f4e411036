//! The 3D case of the GPU twin tests (tests/gpu_solid.rs,
//! tests/gpu_solid_nscd.rs): spheres over a bumpy triangulated floor, a
//! 30-face cone and a box of planes, and their CPU detection.

use super::Rng;
use hourglass::cpu;
use hourglass::cpu::grid::Bins;
use hourglass::gpu::{Params, ShaderConfig};
use hourglass::model::{Contact, ContactLists, Dim3, Grains, Grid, Space, Walls3d};

pub const K: usize = 24;
/// The apex of the cone in every case's walls.
pub const APEX: [f64; 3] = [0.03, 0.035, 0.03];
pub const ALERT: f32 = 0.001;
pub const R_MAX: f32 = 0.004;

pub type C3 = Contact<Dim3>;

pub fn cfg() -> ShaderConfig {
    ShaderConfig::of::<Dim3>(K as u32)
}

/// Spheres over a bumpy triangulated floor inside a box of planes (some
/// overlapping each other and the walls), with random velocities and spins
/// and a few fixed ones; the grid over the box.
pub struct Case {
    pub grains: Grains<Dim3>,
    pub walls: Walls3d,
    pub grid: Grid<Dim3>,
}

pub fn case(n: usize, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let cells = 10;
    let side = 0.06f64 / cells as f64;
    let height = |i: usize, k: usize| 0.003 * ((i as f64 * 0.9).sin() + (k as f64 * 0.7).cos());
    let at = |i: usize, k: usize| [i as f64 * side, height(i, k), k as f64 * side];
    let mut triangles = Vec::new();
    for i in 0..cells {
        for k in 0..cells {
            triangles.push([at(i, k), at(i + 1, k), at(i + 1, k + 1)]);
            triangles.push([at(i, k), at(i + 1, k + 1), at(i, k + 1)]);
        }
    }
    // A cone of 30 faces standing in the box: its apex is a vertex of 30
    // edges (its directions go on past one record of the GPU's).
    let ring = |k: usize| {
        let t = k as f64 * std::f64::consts::TAU / 30.0;
        [0.03 + 0.012 * t.cos(), 0.02, 0.03 + 0.012 * t.sin()]
    };
    for k in 0..30 {
        triangles.push([APEX, ring(k + 1), ring(k)]);
    }
    let (lo, hi) = ([0.0f32, -0.01, 0.0], [0.06f32, 0.05, 0.06]);
    let walls = Walls3d::mesh(&triangles)
        .unwrap()
        .with(&Walls3d::boxed(lo, hi).unwrap());
    let mut pos: Vec<[f32; 3]> = (0..n)
        .map(|_| std::array::from_fn(|k| rng.f32(lo[k] - 0.002, hi[k] + 0.002)))
        .collect();
    let radius: Vec<f32> = (0..n).map(|_| rng.f32(0.5 * R_MAX, R_MAX)).collect();
    // One sphere just above the apex, touching it, alone there (its list
    // holds the apex, not only the crowd's first K).
    pos[0] = [
        APEX[0] as f32 + 2e-4,
        APEX[1] as f32 + 0.9 * radius[0],
        APEX[2] as f32 - 1e-4,
    ];
    // One beside it, in front of the apex's edges around 240 degrees only
    // (its 13th to 30th directions: no vertex contact).
    let t = 240f32.to_radians();
    pos[1] = [
        APEX[0] as f32 + 0.9 * radius[1] * t.cos(),
        APEX[1] as f32,
        APEX[2] as f32 + 0.9 * radius[1] * t.sin(),
    ];
    let apex = APEX.map(|x| x as f32);
    for p in pos.iter_mut().skip(2) {
        if Dim3::dot(Dim3::sub(*p, apex), Dim3::sub(*p, apex)) < 0.015 * 0.015 {
            p[1] -= 0.03;
        }
    }
    let vel: Vec<[f32; 3]> = (0..n).map(|_| std::array::from_fn(|_| rng.f32(-0.5, 0.5))).collect();
    let mut grains = Grains::<Dim3>::of_density(pos, vel, radius, 2500.0);
    for i in 0..n {
        grains.ang_vel[i] = std::array::from_fn(|_| rng.f32(-100.0, 100.0));
        if rng.below(17) == 0 {
            grains.inv_mass[i] = 0.0;
        }
    }
    let grid = Grid::<Dim3>::covering_box(lo, hi, 2.0 * R_MAX + ALERT).unwrap();
    Case { grains, walls, grid }
}

pub fn params(c: &Case) -> Params {
    let mut p = Params::of(&c.grid, c.grains.len(), c.walls.faces(), c.walls.corners());
    p.alert = ALERT;
    p
}

pub fn cpu_detect(c: &Case, bins: &Bins) -> ContactLists<Dim3> {
    cpu_detect_in(c, bins, K)
}

/// [`cpu_detect`] into lists of `capacity` slots a sphere.
pub fn cpu_detect_in(c: &Case, bins: &Bins, capacity: usize) -> ContactLists<Dim3> {
    let mut lists = ContactLists::<Dim3>::new(c.grains.len(), capacity);
    let inp = cpu::detect::DetectInput {
        grid: &c.grid,
        cell_start: &bins.cell_start,
        sorted: &bins.sorted,
        pos: &c.grains.pos,
        radius: &c.grains.radius,
        inv_mass: &c.grains.inv_mass,
        walls: &c.walls,
        alert: ALERT,
    };
    cpu::detect::detect(&inp, &mut lists);
    lists
}

/// Random unit-scale tangents in every slot's history (`impulse_t`) and
/// random normal impulses.
pub fn with_history(lists: &mut ContactLists<Dim3>, seed: u64, scale: f32) {
    let mut rng = Rng::new(seed);
    for c in &mut lists.slots {
        c.impulse = rng.f32(0.0, 1.0);
        c.impulse_t = std::array::from_fn(|_| rng.f32(-scale, scale));
    }
}
