//! A 3D scene (`dimension = 3`) resolved into a [`Setup`] of spheres: its
//! walls (a box or planes, a gmsh surface, an hourglass or a silo of
//! revolution), the fill (`scene::fill3d`), the emitters, the contact laws
//! and the bounds outside which a sphere is lost.

use super::fill;
use super::fill3d::{FillRegion3d, deposit};
use super::laws::{Laws, radius_mean};
use super::revolved::{self, Revolved, SECTORS};
use super::spec::*;
use super::{Setup, gmsh};
use crate::error::{Error, Result};
use crate::model::inside::Hold;
use crate::model::walls3d::Plane;
use crate::model::{Dim3, Grains, Space, Walls3d};

/// The packing fraction an hourglass of revolution is sized for
/// (`walls.hourglass.fit`): below the fill's 0.589, so the bulb holds the count.
const FIT_PACKING: f64 = 0.55;

/// The walls of a 3D scene: what holds the grains, and the gate's triangles.
struct Shape {
    planes: Vec<Plane>,
    walls: Vec<[[f64; 3]; 3]>,
    gate: Vec<[[f64; 3]; 3]>,
    /// Where the fill may put a sphere's centre (the inside of a closed
    /// surface's part above its gate).
    lo: [f64; 3],
    hi: [f64; 3],
    inside: Box<dyn Fn([f64; 3]) -> bool>,
    /// Grains below this height have passed (the neck or outlet), m.
    neck_y: f64,
}

fn plane(origin: &str, key: &str, point: [f64; 3], normal: [f64; 3]) -> Result<Plane> {
    Plane::new(point.map(|x| x as f32), normal.map(|x| x as f32)).map_err(|e| Error::field(origin, key, e.to_string()))
}

/// The part above y = 0 of a surface of revolution whose radius at height
/// y is `side(y)`.
fn above_neck(side: impl Fn(f64) -> Option<f64> + 'static) -> Box<dyn Fn([f64; 3]) -> bool> {
    Box::new(move |x| x[1] > 0.0 && side(x[1]).is_some_and(|r| x[0].hypot(x[2]) < r))
}

/// The radius at height `y` of the polyline `side` (points (radius, y), y rising).
fn radius_at(side: &[[f64; 2]], y: f64) -> Option<f64> {
    side.windows(2).find(|w| w[0][1] <= y && y <= w[1][1]).map(|w| {
        let t = if w[1][1] > w[0][1] {
            (y - w[0][1]) / (w[1][1] - w[0][1])
        } else {
            0.0
        };
        w[0][0] + t * (w[1][0] - w[0][0])
    })
}

/// The scene's walls: one body of walls and any `walls.planes` besides.
fn shape(scene: &Scene, r_mean: f64) -> Result<Shape> {
    let (w, origin) = (&scene.walls, scene.origin.as_str());
    let mut shape = body(scene, r_mean)?;
    for (i, p) in w.planes.iter().flatten().enumerate() {
        let key = format!("walls.planes[{i}]");
        shape
            .planes
            .push(plane(origin, &key, [p[0], p[1], p[2]], [p[3], p[4], p[5]])?);
    }
    Ok(shape)
}

/// The one body of walls (box, hourglass, silo or mesh); none: planes alone.
fn body(scene: &Scene, r_mean: f64) -> Result<Shape> {
    let (w, origin) = (&scene.walls, scene.origin.as_str());
    let everywhere: Box<dyn Fn([f64; 3]) -> bool> = Box::new(|_| true);
    if let Some(b) = w.box3d {
        let (lo, hi) = ([b[0], b[1], b[2]], [b[3], b[4], b[5]]);
        // Each plane through the centre of its face (where walls.vtp draws it).
        let c = [0, 1, 2].map(|k| 0.5 * (lo[k] + hi[k]));
        let planes = vec![
            plane(origin, "walls.box", [c[0], lo[1], c[2]], [0.0, 1.0, 0.0])?,
            plane(origin, "walls.box", [lo[0], c[1], c[2]], [1.0, 0.0, 0.0])?,
            plane(origin, "walls.box", [hi[0], c[1], c[2]], [-1.0, 0.0, 0.0])?,
            plane(origin, "walls.box", [c[0], c[1], lo[2]], [0.0, 0.0, 1.0])?,
            plane(origin, "walls.box", [c[0], c[1], hi[2]], [0.0, 0.0, -1.0])?,
        ];
        return Ok(Shape {
            planes,
            walls: Vec::new(),
            gate: Vec::new(),
            lo,
            hi,
            inside: everywhere,
            neck_y: b[1],
        });
    }
    let revolved = |r: Option<Revolved>, key: &str| {
        r.ok_or_else(|| {
            Error::field(
                origin,
                key,
                "these sizes make no closed surface (an outlet or neck at least as wide as the body)",
            )
        })
    };
    if let Some(h) = &w.hourglass {
        let mut spec = h.clone();
        if h.fit {
            spec = revolved::fit_hourglass(h, scene.grains.count, r_mean, FIT_PACKING).ok_or_else(|| {
                Error::field(
                    origin,
                    "walls.hourglass.fit",
                    "no hourglass within a thousandfold holds the grains",
                )
            })?;
        }
        let shape = revolved(revolved::hourglass(&spec, r_mean, SECTORS), "walls.hourglass")?;
        let side = super::hourglass::upper_side(&spec, r_mean).unwrap_or_default();
        let hw = 0.5 * spec.width;
        return Ok(Shape {
            planes: Vec::new(),
            walls: shape.walls,
            gate: shape.gate,
            lo: [-hw, 0.0, -hw],
            hi: [hw, spec.bulb_height, hw],
            inside: above_neck(move |y| radius_at(&side, y)),
            neck_y: 0.0,
        });
    }
    if let Some(s) = &w.silo {
        let shape = revolved(
            revolved::silo(s.radius, s.height, s.outlet, s.slope_deg, SECTORS),
            "walls.silo",
        )?;
        let (radius, outlet, tan) = (s.radius, s.outlet, s.slope_deg.to_radians().tan());
        return Ok(Shape {
            planes: Vec::new(),
            walls: shape.walls,
            gate: shape.gate,
            lo: [-radius, 0.0, -radius],
            hi: [radius, s.height, radius],
            inside: above_neck(move |y| Some(radius.min(outlet + y / tan))),
            neck_y: 0.0,
        });
    }
    let Some(path) = &w.mesh else {
        // Planes alone: no fill region (the grains come from emitters).
        let lo = [0.0; 3];
        return Ok(Shape {
            planes: Vec::new(),
            walls: Vec::new(),
            gate: Vec::new(),
            lo,
            hi: lo,
            inside: everywhere,
            neck_y: f64::NEG_INFINITY,
        });
    };
    let surface = gmsh::read_msh_surface(path)?;
    let (mut walls, mut gate) = (Vec::new(), Vec::new());
    for (t, &g) in surface.triangles.iter().zip(&surface.gate) {
        if g { gate.push(*t) } else { walls.push(*t) }
    }
    let corners = walls.iter().chain(&gate).flatten();
    let (lo, hi) = corners.fold(([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]), |(lo, hi), p| {
        ([0, 1, 2].map(|k| lo[k].min(p[k])), [0, 1, 2].map(|k| hi[k].max(p[k])))
    });
    let neck_y = w.neck_y.unwrap_or(lo[1]);
    Ok(Shape {
        planes: Vec::new(),
        walls,
        gate,
        lo,
        hi,
        inside: everywhere,
        neck_y,
    })
}

/// `shape`'s walls, with the gate or without (the gate two-sided, the
/// walls' inside found from them alone and held on the side
/// `walls.closed_side` says), each with a wall index reaching `reach`.
fn walls_of(shape: &Shape, gate: bool, reach: f32, scene: &Scene) -> Result<Walls3d> {
    let gate: &[[[f64; 3]; 3]] = if gate { &shape.gate } else { &[] };
    let hold = scene.walls.closed_side.unwrap_or_default();
    let mut walls = if shape.walls.is_empty() && gate.is_empty() {
        Walls3d::default()
    } else {
        Walls3d::mesh_holding(&shape.walls, gate, hold)
            .map_err(|e| Error::field(&scene.origin, "walls", e.to_string()))?
    };
    walls.planes = shape.planes.clone();
    Ok(walls.indexed(reach))
}

/// Resolve a 3D scene (validated here) into a [`Setup`] of spheres.
pub fn build3d(scene: &Scene) -> Result<Setup<Dim3>> {
    scene.validate()?;
    let mut resolved = scene.clone();
    let g = &scene.grains;
    let mut rng = fill::rng(g.seed);
    let radii = fill::sample_radii(g, g.count as usize, &mut rng);
    let emitters = super::emit::emitters::<Dim3>(scene);
    let r_mean = if radii.is_empty() {
        emitters.first().map_or(g.radius_mean, |e| {
            f64::from(e.grains.radius.iter().sum::<f32>()) / e.grains.len().max(1) as f64
        })
    } else {
        radii.iter().sum::<f64>() / radii.len() as f64
    };
    let shape = shape(scene, r_mean)?;
    let r_max = radii.iter().copied().fold(0.0, f64::max).max(
        emitters
            .iter()
            .map(|e| f64::from(e.grains.max_radius()))
            .fold(0.0, f64::max),
    );
    let reach = (2.0 * r_max + scene.solver.alert) as f32;
    let closed = walls_of(&shape, true, reach, scene)?;
    let open = if shape.gate.is_empty() {
        closed.clone()
    } else {
        walls_of(&shape, false, reach, scene)?
    };
    let mut pos = Vec::new();
    if !radii.is_empty() {
        // A mesh's box holds more than its closed surfaces do (an
        // octahedron fills half of it): the fill keeps to the space they hold.
        let mesh = scene.walls.mesh.is_some();
        let inside = |x: [f64; 3]| (shape.inside)(x) && (!mesh || open.mesh_holds(x));
        let region = FillRegion3d {
            lo: shape.lo,
            hi: shape.hi,
            walls: &closed,
            inside: &inside,
            lower_first: mesh,
        };
        pos = deposit(&radii, &region);
        if pos.len() < radii.len() {
            return Err(Error::field(
                &scene.origin,
                "grains.count",
                format!("only {} of {} spheres fit in the walls", pos.len(), radii.len()),
            ));
        }
    }
    let density = g.density.unwrap_or(DEFAULT_DENSITY);
    let mut grains = Grains::<Dim3>::of_density(
        pos.iter().map(|p| p.map(|x| x as f32)).collect(),
        vec![[0.0; 3]; pos.len()],
        radii.iter().map(|&r| r as f32).collect(),
        density,
    );
    if let Some(m) = g.mass {
        grains.inv_mass.iter_mut().for_each(|im| *im = (1.0 / m) as f32);
    }
    if scene.grains.mass.is_none() {
        resolved.grains.density = Some(density);
    }
    if resolved.run.duration.is_none() && resolved.run.steps.is_none() {
        resolved.run.duration = Some(DEFAULT_DURATION);
    }
    for (k, e) in emitters.iter().enumerate() {
        if let Some(i) = (0..e.grains.len()).find(|&i| open.overlaps_sphere(e.grains.pos[i], e.grains.radius[i])) {
            let x = e.grains.pos[i];
            return Err(Error::field(
                &scene.origin,
                &format!("emitters[{k}].position"),
                format!(
                    "its grain {i} would appear at ({}, {}, {}), in or behind a wall",
                    x[0], x[1], x[2]
                ),
            ));
        }
        if let Some(i) = (0..e.grains.len()).find(|&i| !open.mesh_holds(e.grains.pos[i].map(f64::from))) {
            let x = e.grains.pos[i];
            let side = match scene.walls.closed_side.unwrap_or_default() {
                Hold::Outside => "within a closed obstacle",
                _ => "outside the closed walls",
            };
            return Err(Error::field(
                &scene.origin,
                &format!("emitters[{k}].position"),
                format!("its grain {i} would appear at ({}, {}, {}), {side}", x[0], x[1], x[2]),
            ));
        }
    }
    let mut all = grains.clone();
    for e in &emitters {
        all.extend(&e.grains);
    }
    let laws = Laws::resolve3d(scene, &all, &mut resolved)?;
    check_damping(scene, &laws, &all)?;
    // The walls' box: the triangles, the box's corners and the planes'
    // points, with the grains and the emitters' grains.
    let points = shape
        .walls
        .iter()
        .chain(&shape.gate)
        .flatten()
        .map(|p| p.map(|x| x as f32));
    let corners = scene
        .walls
        .box3d
        .map(|b| [[b[0], b[1], b[2]], [b[3], b[4], b[5]]].map(|p| p.map(|x| x as f32)));
    let given: Vec<[f32; 3]> = points
        .chain(corners.into_iter().flatten())
        .chain(shape.planes.iter().map(|p| p.point))
        .collect();
    let walls_box = box_of(given.iter().copied().chain(all.pos.iter().copied()));
    // Lost: more than a tenth of the box's largest side outside it (and below
    // it, the height it would take to fall out of sight).
    let (lo, hi) = Dim3::box_corners(walls_box);
    let margin = (0..3).map(|k| hi[k] - lo[k]).fold(0.0f32, f32::max).max(1e-3) * 0.1;
    let mut low = lo.map(|x| x - margin);
    low[1] = lo[1] - 10.0 * margin;
    let bounds = super::bounds::Bounds {
        rect: Dim3::box_of(low, hi.map(|x| x + margin)),
        rule: super::bounds::BoundsRule::Derived,
    };
    // Planes alone have no neck (-inf: nothing passes), which a scene file
    // cannot state: the resolved scene leaves the key out, and reads back
    // to the same.
    resolved.walls.neck_y = shape.neck_y.is_finite().then_some(shape.neck_y);
    Ok(Setup {
        scene: resolved,
        closed,
        open,
        gated: !shape.gate.is_empty(),
        grains,
        neck_y: shape.neck_y,
        params: laws.params,
        overlap_target: laws.target,
        radius_mean: radius_mean(&all),
        dem: laws.dem,
        impulse: laws.impulse,
        crowd: None,
        notices: Vec::new(),
        emitters,
        bounds,
        motion: None,
        walls_box,
    })
}

/// A dashpot that would stop the lightest sphere in less than one step is
/// refused: gamma dt / m >= 1 makes the explicit step unstable (the
/// plane's defaults, per unit thickness, are such for spheres of grams).
fn check_damping(scene: &Scene, laws: &Laws, all: &Grains<Dim3>) -> Result<()> {
    let kind = scene.solver.kind;
    if !matches!(kind, crate::model::SolverKind::Dem | crate::model::SolverKind::Spring) {
        return Ok(());
    }
    let m_min = (0..all.len())
        .filter(|&i| all.inv_mass[i] > 0.0)
        .map(|i| all.mass(i))
        .fold(f64::INFINITY, f64::min);
    let dt = f64::from(laws.params.dt);
    let keys: &[(&str, f64)] = if kind == crate::model::SolverKind::Spring {
        &[("spring.kd", scene.spring.kd)]
    } else {
        &[
            ("dem.gamma_n", scene.dem.gamma_n),
            ("dem.gamma_relax", scene.dem.gamma_relax),
        ]
    };
    for &(key, gamma) in keys {
        let ratio = gamma * dt / m_min;
        if ratio >= 1.0 {
            return Err(Error::field(
                &scene.origin,
                key,
                format!(
                    "{gamma} N s/m stops the lightest sphere ({m_min:.3e} kg) within one step of {dt:.2e} s (gamma dt / m = {ratio:.3}): lower it, or solver.dt"
                ),
            ));
        }
    }
    Ok(())
}

/// The box holding `points` (a unit box at the origin without any).
fn box_of(points: impl Iterator<Item = [f32; 3]>) -> [f32; 6] {
    let (lo, hi) = points.fold(([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]), |(lo, hi), p| {
        ([0, 1, 2].map(|k| lo[k].min(p[k])), [0, 1, 2].map(|k| hi[k].max(p[k])))
    });
    if lo[0] <= hi[0] {
        Dim3::box_of(lo, hi)
    } else {
        [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    }
}
