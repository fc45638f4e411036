//! What `build` refuses once every field is in its domain ([`Scene::validate`]):
//! walls that cannot hold grains, more grains than this build or the
//! memory handles, a step below [`MIN_DT`], a contact grid of more than
//! [`MAX_CELLS`] cells, and emitters whose grains could never be added.
//!
//! Each check returns the first fault as a typed [`Error`] that names the
//! scene's key (or the mesh file) at fault, and changes nothing.

use super::fill;
use super::gmsh;
use super::spec::*;
use crate::error::{Error, Result};
use crate::model::grid::MAX_CELLS;
use crate::model::{Grains, SolverKind};

/// A wall or gate line, from one end to the other, m.
pub(super) type Line = [[f64; 2]; 2];

/// The bounding box `[xmin, ymin, xmax, ymax]` of `lines`, m.
pub(super) fn bbox(lines: &[Line]) -> [f64; 4] {
    let mut b = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
    for p in lines.iter().flatten() {
        b = [b[0].min(p[0]), b[1].min(p[1]), b[2].max(p[0]), b[3].max(p[1])];
    }
    b
}

/// Most grains a scene may ask for: ~1.6 KB each on the GPU (BENCHMARKS.md),
/// so 20 million already need 32 GB.
pub const MAX_GRAINS: u64 = 20_000_000;

/// Walls wider than this many smallest radii are a unit mistake (or a
/// malformed mesh): the fill and the grid would not finish.
pub const MAX_EXTENT_RADII: f64 = 1e6;

/// Smallest time step a scene may run with, s. Below it the default 4 s
/// discharge takes over 4e7 steps (hours even for a few grains); a smaller
/// automatic step means a unit mistake (gravity, `solver.alert`, `dem.kn`).
pub const MIN_DT: f64 = 1e-7;

/// Refuse a step below [`MIN_DT`], naming what made it so small.
pub(super) fn check_dt(dt: f64, kn: f64, scene: &Scene, walls: &[Line], gate: &[Line], origin: &str) -> Result<()> {
    if dt >= MIN_DT {
        return Ok(());
    }
    let s = &scene.solver;
    let problem = if s.dt.is_some() {
        format!("{dt:e} s is below the floor {MIN_DT:e} s")
    } else {
        let cause = match s.kind {
            SolverKind::Dem => {
                format!("dem.kn {kn:e} N/m^2.5 is too stiff for the lightest grain (dt = dem.cfl sqrt(m_min / dem.kn))")
            }
            SolverKind::Spring => format!(
                "spring.ks {:e} N/m is too stiff for the lightest grain (dt = spring.cfl sqrt(m_min / spring.ks))",
                scene.spring.ks
            ),
            _ => {
                let g = scene.gravity[0].hypot(scene.gravity[1]);
                let b = bbox(&[walls, gate].concat());
                let height = (b[3] - b[1]).max(b[2] - b[0]);
                format!(
                    "gravity {g:e} m/s^2 is too large (a grain falling {height:.3} m would cross solver.alert = {} m in one step)",
                    s.alert
                )
            }
        };
        format!("the automatic step {dt:.0e} s is below the floor {MIN_DT:.0e} s: {cause}")
    };
    Err(Error::field(origin, "solver.dt", problem))
}

/// Where the walls came from, to name it in their errors.
pub(super) enum WallSource<'a> {
    /// A gmsh file: its errors name the file.
    Mesh(std::path::PathBuf),
    /// `walls.segments` (and `walls.gate`) of the scene `origin`.
    Scene(&'a str),
    /// `walls.hourglass` of the scene `origin`.
    Hourglass(&'a str),
}

impl WallSource<'_> {
    /// An error about the walls; `gate`: about the gate lines.
    pub(super) fn error_at(&self, gate: bool, problem: String) -> Error {
        match self {
            WallSource::Mesh(path) => Error::Mesh(gmsh::MeshError::Walls {
                path: path.clone(),
                problem,
            }),
            WallSource::Scene(origin) => {
                Error::field(*origin, if gate { "walls.gate" } else { "walls.segments" }, problem)
            }
            WallSource::Hourglass(origin) => Error::field(*origin, "walls.hourglass", problem),
        }
    }

    pub(super) fn error(&self, problem: String) -> Error {
        self.error_at(false, problem)
    }

    /// The walls in words, for a message about the scene's grains.
    pub(super) fn describe(&self) -> String {
        match self {
            WallSource::Mesh(path) => format!("the walls of {}", path.display()),
            WallSource::Scene(_) => "the fill region".to_string(),
            WallSource::Hourglass(_) => "the hourglass".to_string(),
        }
    }
}

/// Where `scene`'s walls come from.
pub(super) fn source_of(scene: &Scene) -> WallSource<'_> {
    match (&scene.walls.mesh, &scene.walls.segments) {
        (Some(mesh), _) => WallSource::Mesh(mesh.clone()),
        (None, Some(_)) => WallSource::Scene(&scene.origin),
        (None, None) => WallSource::Hourglass(&scene.origin),
    }
}

/// Fixed walls that can hold grains: some lines outside the gate, not all of
/// zero length, no wider (with the gate) than [`MAX_EXTENT_RADII`] smallest
/// radii.
pub(super) fn check_walls(walls: &[Line], gate: &[Line], r_min: f64, source: &WallSource) -> Result<()> {
    if walls.is_empty() {
        return Err(source.error(
            "every line is in the physical group `gate`: no walls would be left once the gate opens".to_string(),
        ));
    }
    if walls.iter().all(|l| l[0] == l[1]) {
        return Err(source.error(format!(
            "all {} wall lines have zero length (each starts where it ends)",
            walls.len()
        )));
    }
    let b = bbox(walls);
    let extent = (b[2] - b[0]).max(b[3] - b[1]);
    if !(extent.is_finite() && extent <= MAX_EXTENT_RADII * r_min) {
        return Err(source.error(format!(
            "the walls span {extent:e} m, more than {MAX_EXTENT_RADII:e} smallest grain radii ({r_min} m): check the units"
        )));
    }
    if !gate.is_empty() {
        let b = bbox(&[walls, gate].concat());
        let extent = (b[2] - b[0]).max(b[3] - b[1]);
        if !(extent.is_finite() && extent <= MAX_EXTENT_RADII * r_min) {
            return Err(source.error_at(
                true,
                format!(
                    "the gate lines reach {extent:e} m across the walls, more than {MAX_EXTENT_RADII:e} smallest grain radii ({r_min} m): check the units"
                ),
            ));
        }
    }
    Ok(())
}

/// Refuse a scene whose grains, the fill's (`fill` of them, named by
/// `field`) and the emitters', are more than this build handles
/// ([`MAX_GRAINS`]) or than memory holds (`limits`).
pub(super) fn check_counts(scene: &Scene, fill: u64, field: &str) -> Result<()> {
    let origin = &scene.origin;
    if fill > MAX_GRAINS {
        return Err(Error::field(
            origin,
            field,
            format!("{fill} grains is more than this build handles ({MAX_GRAINS})"),
        ));
    }
    let emitted: Vec<u64> = scene.emitters.iter().map(|e| e.count).collect();
    let mut total = fill;
    for (k, &n) in emitted.iter().enumerate() {
        total = total.saturating_add(n);
        if total > MAX_GRAINS {
            return Err(Error::field(
                origin,
                &format!("emitters[{k}].count"),
                format!(
                    "{total} grains ({n} emitted here, {} before) is more than this build handles ({MAX_GRAINS})",
                    total - n
                ),
            ));
        }
    }
    let available = super::limits::available_memory();
    super::limits::check_scene_memory(fill, &emitted, scene.solver.contact_capacity, available, origin, field)
}

/// Refuse an emitter none of whose grains, or some of whose grains, could
/// ever be added: a grain wider than the walls' box, a centre more than its
/// radius outside the scene's bounds `lost` (it would be lost at once, as
/// `model::Region` counts it), or a spot that overlaps
/// a wall line (`walls`, the gate aside: it opens), which is never free, so
/// the emitter would stop there. Each names `emitters[k].position`, or
/// `.jitter` when the drawn offset alone is at fault, or `.radius`.
pub(super) fn check_emitters(
    scene: &Scene,
    emitters: &[super::emit::Emitter],
    walls: &[Line],
    gate: &[Line],
    lost: [f32; 4],
) -> Result<()> {
    let b = bbox(&[walls, gate].concat());
    let room = Room {
        origin: &scene.origin,
        walls,
        size: [b[2] - b[0], b[3] - b[1]],
        lost: lost.map(f64::from),
    };
    for (k, (e, spec)) in emitters.iter().zip(&scene.emitters).enumerate() {
        room.check_emitter(k, &e.grains, spec)?;
    }
    Ok(())
}

/// What an emitter's grains must fit: the walls, and the bounds where grains are lost.
struct Room<'a> {
    /// The scene, named in the errors.
    origin: &'a str,
    /// The wall lines, the gate aside.
    walls: &'a [Line],
    /// Width and height of the box of the walls and the gate, m.
    size: [f64; 2],
    /// `[xmin, ymin, xmax, ymax]`: a centre more than its radius outside is lost, m.
    lost: [f64; 4],
}

impl Room<'_> {
    /// `emitters[k]` (its grains `g`, drawn from `spec`) can add every grain.
    fn check_emitter(&self, k: usize, g: &Grains, spec: &EmitterSpec) -> Result<()> {
        let f = |key: &str| format!("emitters[{k}].{key}");
        let r_max = f64::from(g.max_radius());
        let [width, height] = self.size;
        // A grain narrower than one side of the box but wider than the other
        // overlaps a wall wherever it appears: the test on the lines below says so.
        if 2.0 * r_max > width.max(height) {
            let key = if spec.radius.is_some() { "radius" } else { "radius_mean" };
            return Err(Error::field(
                self.origin,
                &f(key),
                format!(
                    "a grain of radius {} m is wider than the walls' box ({width} x {height} m): it could never be added",
                    g.max_radius()
                ),
            ));
        }
        let p = [spec.position[0], spec.position[1]];
        // The lines that a grain drawn within the jitter can reach.
        let reach = spec.jitter * std::f64::consts::SQRT_2 + r_max;
        let near: Vec<usize> = (0..self.walls.len())
            .filter(|&i| fill::segment_distance(p, self.walls[i]) <= reach)
            .collect();
        let blocking = |x: [f64; 2], r: f64| {
            near.iter()
                .find(|&&i| fill::segment_distance(x, self.walls[i]) < r)
                .copied()
        };
        for j in tested_grains(g, spec.jitter) {
            let x = [f64::from(g.pos[j][0]), f64::from(g.pos[j][1])];
            let r = f64::from(g.radius[j]);
            // The drawn offset is at fault only where `position` itself is a good spot.
            let blamed = if spec.jitter > 0.0 && !self.outside(p, r) && blocking(p, r).is_none() {
                f("jitter")
            } else {
                f("position")
            };
            if self.outside(x, r) {
                let b = self.lost;
                return Err(Error::field(
                    self.origin,
                    &blamed,
                    format!(
                        "grain {j} would appear at ({}, {}), more than its radius outside the bounds [{}, {}, {}, {}] where grains are lost (walls.bounds, or the walls' box when they are closed): it would be lost at once",
                        g.pos[j][0], g.pos[j][1], b[0], b[1], b[2], b[3]
                    ),
                ));
            }
            if let Some(i) = blocking(x, r) {
                return Err(Error::field(
                    self.origin,
                    &blamed,
                    format!(
                        "grain {j} (radius {} m) at ({}, {}) would overlap wall line {i}: its spot is never free, so the emitter would stop there",
                        g.radius[j], g.pos[j][0], g.pos[j][1]
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Lost as a run counts it: the centre `x` more than the radius `r` outside the box.
    fn outside(&self, x: [f64; 2], r: f64) -> bool {
        let b = self.lost;
        !(x[0] >= b[0] - r && x[0] <= b[2] + r && x[1] >= b[1] - r && x[1] <= b[3] + r)
    }
}

/// The grains of an emitter worth testing: all of them with jitter; without,
/// every grain starts at `position`, so the first of the largest.
fn tested_grains(g: &Grains, jitter: f64) -> Vec<usize> {
    if jitter > 0.0 {
        (0..g.len()).collect()
    } else {
        // `max_by` keeps the last of equals: search from the end.
        (0..g.len())
            .rev()
            .max_by(|&i, &j| g.radius[i].total_cmp(&g.radius[j]))
            .into_iter()
            .collect()
    }
}

/// Refuse a scene whose contact grid (as `backend::grid_for` builds it:
/// cells of 2 r_max + alert over the closed walls, the grains and the
/// emitters' grains) would have more than [`MAX_CELLS`] cells, naming what
/// makes it so large: the walls, or the grain farthest outside them.
pub(super) fn check_grid(
    scene: &Scene,
    walls_box: [f32; 4],
    grains: &Grains,
    emitters: &[super::emit::Emitter],
    source: &WallSource,
) -> Result<()> {
    let mut r_max = grains.max_radius();
    let mut bb = walls_box;
    for g in std::iter::once(grains).chain(emitters.iter().map(|e| &e.grains)) {
        for p in &g.pos {
            bb = [bb[0].min(p[0]), bb[1].min(p[1]), bb[2].max(p[0]), bb[3].max(p[1])];
        }
        r_max = r_max.max(g.max_radius());
    }
    let cell = 2.0 * r_max + scene.solver.alert as f32;
    let cells = |b: [f32; 4]| {
        let n = |lo: f32, hi: f32| ((hi - lo) / cell).ceil().max(1.0) as u64 + 2;
        (n(b[0], b[2]), n(b[1], b[3]))
    };
    let fits = |(nx, ny): (u64, u64)| nx.saturating_mul(ny) <= MAX_CELLS;
    if fits(cells(bb)) {
        return Ok(());
    }
    let (nx, ny) = cells(walls_box);
    if !fits((nx, ny)) {
        let problem = format!(
            "the walls span {:.3e} x {:.3e} m: the contact grid (cells of 2 r_max + solver.alert = {cell:.3e} m) would need {nx} x {ny} cells, more than {MAX_CELLS}: check the units, or use larger grains",
            walls_box[2] - walls_box[0],
            walls_box[3] - walls_box[1]
        );
        return Err(source.error(problem));
    }
    // The walls fit: a grain far outside them stretches the grid.
    Err(Error::field(
        &scene.origin,
        &farthest_grain(scene, grains, walls_box),
        format!(
            "grains outside the walls stretch the contact grid to {:.3e} x {:.3e} m, more than {MAX_CELLS} cells: place them inside the walls",
            bb[2] - bb[0],
            bb[3] - bb[1]
        ),
    ))
}

/// The key that places the fill's grain farthest outside `walls_box`:
/// its row of `grains.list`, or `grains.region`.
fn farthest_grain(scene: &Scene, grains: &Grains, walls_box: [f32; 4]) -> String {
    let far = |p: [f32; 2]| {
        (walls_box[0] - p[0])
            .max(p[0] - walls_box[2])
            .max(walls_box[1] - p[1])
            .max(p[1] - walls_box[3])
    };
    match &scene.grains.list {
        Some(_) => {
            let i = (0..grains.len())
                .max_by(|&i, &j| far(grains.pos[i]).total_cmp(&far(grains.pos[j])))
                .unwrap_or(0);
            format!("grains.list[{i}]")
        }
        None => "grains.region".to_string(),
    }
}

/// Refuse periodic boundaries (`walls.periodic_x`) narrower than a grain's
/// diameter plus the alert distance or than 3 contact cells (2 r_max +
/// solver.alert), and grains (the fill's, the list's or an emitter's) whose
/// centres start outside the period [xmin, xmax).
pub(super) fn check_periodic(scene: &Scene, grains: &Grains, emitters: &[super::emit::Emitter]) -> Result<()> {
    let Some(p) = scene.walls.periodic_x else {
        return Ok(());
    };
    let refuse = |problem: String| Err(Error::field(&scene.origin, "walls.periodic_x", problem));
    let all = || std::iter::once(grains).chain(emitters.iter().map(|e| &e.grains));
    let r_max = f64::from(all().map(Grains::max_radius).fold(0.0, f32::max));
    let (len, alert) = (p[1] - p[0], scene.solver.alert);
    if len < 2.0 * r_max + alert {
        return refuse(format!(
            "the period {len} m is narrower than a grain's diameter plus solver.alert ({} m)",
            2.0 * r_max + alert
        ));
    }
    let cell = 2.0 * r_max + alert;
    if (len as f32 / cell as f32).floor() < 3.0 {
        return refuse(format!(
            "the period {len} m is narrower than 3 contact cells of 2 r_max + solver.alert = {cell:.3e} m"
        ));
    }
    let (xmin, xmax) = (p[0] as f32, p[1] as f32);
    for (k, g) in all().enumerate() {
        if let Some((i, x)) = g.pos.iter().enumerate().find(|(_, x)| !(x[0] >= xmin && x[0] < xmax)) {
            let whose = if k == 0 {
                format!("grain {i}")
            } else {
                format!("grain {i} of emitters[{}]", k - 1)
            };
            return refuse(format!(
                "{whose} starts at x = {}, outside the period [{xmin}, {xmax})",
                x[0]
            ));
        }
    }
    Ok(())
}
