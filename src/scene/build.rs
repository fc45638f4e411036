//! Resolve a validated scene into walls, grains and step parameters.

use super::fill::{self, FillRegion};
use super::gmsh;
use super::hourglass;
use super::spec::*;
use crate::error::{Error, Result};
use crate::model::grid::MAX_CELLS;
use crate::model::law;
use crate::model::{Crowd, DemParams, Grains, ImpulseParams, NormalLaw, SolverKind, StepParams, Walls};

/// Everything a simulation starts from.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The scene with every default and derived value written out.
    pub scene: Scene,
    /// The walls with the gate (the settle phase), built once from the lines.
    closed: Walls,
    /// The walls without the gate (the discharge), built once from the lines.
    open: Walls,
    /// The scene has a gate (a settle phase).
    gated: bool,
    pub grains: Grains,
    /// Height of the neck, m.
    pub neck_y: f64,
    pub params: StepParams,
    /// The force law of the DEM (`[dem]`, Hertz) or of the spring model
    /// (`[spring]`, linear), as `params.solver` says; with its integrator.
    pub dem: DemParams,
    /// The impulse model (`[impulse]`), used when `params.solver` is `impulse`.
    pub impulse: ImpulseParams,
    /// Crowd motion's door and distance field (`[crowd]`), built when `params.solver` is `crowd`.
    pub crowd: Option<std::sync::Arc<Crowd>>,
    /// Things the user should hear about (one line each).
    pub notices: Vec<String>,
    /// The `[[emitters]]`, every grain they will add drawn up front.
    pub emitters: Vec<super::emit::Emitter>,
    /// Outside these a grain is lost (`walls.bounds`, or found from the walls).
    pub bounds: super::bounds::Bounds,
}

impl Setup {
    /// Walls with the gate (closed) or without it (open); built once by [`build`].
    pub fn walls(&self, with_gate: bool) -> &Walls {
        if with_gate { &self.closed } else { &self.open }
    }

    /// The scene has gate lines, so a run settles before it opens them.
    pub fn has_gate(&self) -> bool {
        self.gated
    }

    /// Where the neck is and what counts as lost ([`Setup::bounds`]).
    pub fn region(&self) -> crate::model::Region {
        crate::model::Region {
            gravity: self.params.gravity,
            neck_y: self.neck_y as f32,
            bbox: self.bounds.rect,
        }
    }
}

fn line(s: &[f64; 4]) -> [[f64; 2]; 2] {
    [[s[0], s[1]], [s[2], s[3]]]
}

fn bbox(lines: &[[[f64; 2]; 2]]) -> [f64; 4] {
    let mut b = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
    for p in lines.iter().flatten() {
        b = [b[0].min(p[0]), b[1].min(p[1]), b[2].max(p[0]), b[3].max(p[1])];
    }
    b
}

/// Resolve `scene` (validated here) into a [`Setup`].
pub fn build(scene: &Scene) -> Result<Setup> {
    scene.validate()?;
    let mut resolved = scene.clone();
    let mut notices = Vec::new();
    let origin = scene.origin.clone();
    let g = &scene.grains;
    let mut rng = fill::rng(g.seed);
    let mut place_rng = placement_rng(g.seed);

    // Grains of a fill are drawn first so the hourglass can be sized to them.
    let explicit = g.list.as_ref();
    let count = explicit.map_or(g.count as usize, Vec::len);
    if count as u64 > MAX_GRAINS {
        return Err(Error::field(
            &origin,
            "grains.count",
            format!("{count} grains is more than this build handles ({MAX_GRAINS})"),
        ));
    }
    let field = if explicit.is_some() {
        "grains.list"
    } else {
        "grains.count"
    };
    check_counts(scene, count as u64, field)?;
    let radii: Vec<f64> = match explicit {
        Some(list) => list.iter().map(|row| row[4]).collect(),
        None => fill::sample_radii(g, count, &mut rng),
    };

    let w = &scene.walls;
    // Fixed walls (a mesh or a list): place the grains once, or fail.
    let mut fixed =
        |walls: Vec<[[f64; 2]; 2]>, gate: Vec<[[f64; 2]; 2]>, source: &WallSource, hint: &str| -> Result<_> {
            check_walls(&walls, &gate, g.radius_min, source)?;
            let neck = gate_height(&gate).unwrap_or_else(|| bbox(&walls)[1]);
            let pos = place(
                &radii,
                explicit,
                &walls,
                &gate,
                w.neck_y.unwrap_or(neck),
                g,
                &mut place_rng,
            );
            if pos.len() < radii.len() {
                return Err(Error::field(
                    &origin,
                    "grains.count",
                    format!(
                        "{} grains requested but only {} fit in {} ({hint})",
                        radii.len(),
                        pos.len(),
                        source.describe()
                    ),
                ));
            }
            Ok((walls, gate, neck, pos))
        };
    let (walls, gate, neck_default, positions) = if let Some(mesh) = &w.mesh {
        let m = gmsh::read_msh(mesh)?;
        let (mut walls, mut gate) = (Vec::new(), Vec::new());
        for (s, is_gate) in m.segments.iter().zip(&m.gate) {
            if *is_gate { gate.push(*s) } else { walls.push(*s) }
        }
        if gate.is_empty() {
            notices.push(format!(
                "{}: no line is in the physical group `gate`, so there is no settle phase: the grains fall from where they are placed",
                mesh.display()
            ));
        }
        let source = WallSource::Mesh(mesh.clone());
        // Written out absolute: a relative path would resolve against the
        // result directory when the written scene.toml is loaded again.
        resolved.walls.mesh = Some(std::path::absolute(mesh).unwrap_or_else(|_| mesh.clone()));
        fixed(walls, gate, &source, "ask for fewer grains or use a larger mesh")?
    } else if let Some(segments) = &w.segments {
        let walls: Vec<_> = segments.iter().map(line).collect();
        let gate: Vec<_> = w.gate.iter().flatten().map(line).collect();
        let source = WallSource::Scene(&origin);
        fixed(
            walls,
            gate,
            &source,
            "ask for fewer grains or give a larger grains.region",
        )?
    } else {
        let mut spec = w.hourglass.clone().unwrap_or_default();
        let start = spec.clone();
        loop {
            let lines =
                hourglass::outline(&spec, g.radius_mean).ok_or_else(|| neck_error(&spec, g.radius_mean, &origin))?;
            if spec == start {
                // The outline asked for; an enlarged one grows from it by 10 % steps.
                check_walls(
                    &lines.walls,
                    &[lines.gate],
                    g.radius_min,
                    &WallSource::Hourglass(&origin),
                )?;
            }
            let gate = vec![lines.gate];
            let mut attempt = placement_rng(g.seed);
            let placed = place(
                &radii,
                explicit,
                &lines.walls,
                &gate,
                w.neck_y.unwrap_or(0.0),
                g,
                &mut attempt,
            );
            if placed.len() == radii.len() {
                if spec != start {
                    notices.push(format!(
                        "hourglass enlarged to width {:.3} m, bulb height {:.3} m to fit {} grains",
                        spec.width, spec.bulb_height, count
                    ));
                }
                resolved.walls.hourglass = Some(spec);
                break (lines.walls, gate, 0.0, placed);
            }
            if !spec.fit || explicit.is_some() || spec.width > start.width * 1e4 {
                return Err(Error::field(
                    &origin,
                    "grains.count",
                    format!(
                        "{count} grains requested but only {} fit in the hourglass (ask for fewer grains, set walls.hourglass.fit = true or enlarge the hourglass)",
                        placed.len()
                    ),
                ));
            }
            spec.width *= 1.1;
            spec.bulb_height *= 1.1;
        }
    };
    let neck_y = w.neck_y.unwrap_or(neck_default);
    resolved.walls.neck_y = Some(neck_y);

    let vel = match explicit {
        Some(list) => list.iter().map(|r| [r[2] as f32, r[3] as f32]).collect(),
        None => vec![[0.0; 2]; count],
    };
    let mut grains = Grains::new(
        positions.iter().map(|p| [p[0] as f32, p[1] as f32]).collect(),
        vel,
        radii.iter().map(|&r| r as f32).collect(),
        1.0,
    );
    // Masses: a list row's own, else `grains.mass`, else density pi r^2.
    for (i, &r) in radii.iter().enumerate() {
        let own = explicit.and_then(|list| list[i].get(5).copied());
        grains.inv_mass[i] = (1.0 / own.unwrap_or_else(|| g.mass_of(r))) as f32;
    }
    if g.mass.is_none() {
        resolved.grains.density = Some(g.density.unwrap_or(DEFAULT_DENSITY));
    }
    if resolved.run.duration.is_none() && resolved.run.steps.is_none() {
        resolved.run.duration = Some(DEFAULT_DURATION);
    }
    let emitters = super::emit::emitters(scene);
    // k_n and dt are chosen for every grain of the run, the emitted ones too.
    let mut all = grains.clone();
    for e in &emitters {
        let k = &e.grains;
        all.pos.extend(&k.pos);
        all.radius.extend(&k.radius);
        all.inv_mass.extend(&k.inv_mass);
    }
    let kn = dem_kn(&scene.dem, &all, equivalent_density(&all), scene.gravity);
    resolved.dem.kn = Some(kn);
    let s = &scene.solver;
    let integrator = s.integrator.unwrap_or(s.kind.default_integrator());
    if s.kind.explicit() {
        resolved.solver.integrator = Some(integrator);
    }
    let dt = match s.dt {
        Some(dt) => dt,
        None => match s.kind {
            SolverKind::Dem => dem_dt(&all, kn, scene.dem.cfl),
            // The same CFL rule with the linear stiffness: a period of the
            // lightest grain on a wall is 2 pi sqrt(m/k_s), ~60 steps at 0.1.
            SolverKind::Spring => dem_dt(&all, scene.spring.ks, scene.spring.cfl),
            // Crowd motion: the fastest person crosses 0.8 of the alert distance.
            SolverKind::Crowd => {
                let speed = scene.crowd.as_ref().map_or(1.0, |c| c.speed);
                CROWD_MAX_DT.min(0.8 * s.alert / speed)
            }
            _ => default_dt(&walls, &gate, scene.gravity, s.alert),
        },
    };
    check_dt(dt, kn, scene, &walls, &gate, &origin)?;
    resolved.solver.dt = Some(dt);
    // The push-out fraction a scene leaves unset is its solver's; `auto`
    // is resolved here when the backend is named, else by the backend that
    // runs it (StepParams::resolved), and the written scene then omits it.
    let relax_by = match scene.run.backend {
        BackendChoice::Cpu => s.kind.resolve(false),
        BackendChoice::Gpu => s.kind.resolve(true),
        BackendChoice::Auto => s.kind.resolve(false),
    };
    // With capillary bridges (Cohesion::on) every solver keeps 0.2.
    let wet = scene
        .cohesion
        .as_ref()
        .is_some_and(|co| co.rupture > 0.0 && co.gamma > 0.0);
    let named = s.kind != SolverKind::Auto || scene.run.backend != BackendChoice::Auto;
    if s.overlap_relax.is_none() && named {
        resolved.solver.overlap_relax = Some(relax_by.overlap_relax(wet));
    }
    let params = StepParams {
        gravity: [scene.gravity[0] as f32, scene.gravity[1] as f32],
        dt: dt as f32,
        alert: s.alert as f32,
        tol: s.tol as f32,
        itmax: s.itmax,
        omega: s.omega as f32,
        overlap_relax: s.overlap_relax.unwrap_or(relax_by.overlap_relax(wet)) as f32,
        overlap_relax_default: s.overlap_relax.is_none(),
        overlap_iterations: s.overlap_iterations,
        mu: s.mu as f32,
        mu_wall: s.mu_wall as f32,
        restitution: s.restitution as f32,
        forcing: crate::model::Forcing {
            sigma: scene.forcing.sigma as f32,
            seed: crate::model::noise::fold_seed(scene.grains.seed),
            step: 0,
        },
        solver: s.kind,
        warm_start: s.warm_start,
        cohesion: scene
            .cohesion
            .as_ref()
            .map_or_else(Default::default, |co| crate::model::Cohesion {
                gamma: co.gamma as f32,
                a: co.a as f32,
                b: co.b as f32,
                c: co.c as f32,
                rupture: co.rupture as f32,
                walls: u32::from(co.walls),
            }),
    };
    let d = &scene.dem;
    let mut dem = DemParams {
        kn: kn as f32,
        kt: d.kt as f32,
        gamma_n: d.gamma_n as f32,
        gamma_relax: d.gamma_relax as f32,
        mu: d.mu as f32,
        mu_roll: d.mu_roll as f32,
        relax_v_tol: d.relax_v_tol as f32,
        relax_w_tol: d.relax_w_tol as f32,
        relax_max_steps: d.relax_max_steps,
        law: d
            .law
            .as_deref()
            .and_then(law::by_name)
            .map_or(NormalLaw::Hertz, |l| l.law),
        poisson: d.poisson.unwrap_or(law::hertz_mindlin::POISSON.default) as f32,
        integrator,
    };
    if s.kind == SolverKind::Spring {
        // The spring model runs on the DEM's stages with the linear law; it
        // has no relaxation phase of its own, so one dashpot serves both phases.
        let sp = &scene.spring;
        dem = DemParams {
            kn: sp.ks as f32,
            kt: sp.kt as f32,
            gamma_n: sp.kd as f32,
            gamma_relax: sp.kd as f32,
            mu: sp.mu as f32,
            mu_roll: sp.mu_roll as f32,
            law: NormalLaw::Linear,
            ..dem
        };
    }
    let impulse = ImpulseParams {
        e: scene.impulse.e as f32,
        kp: scene.impulse.kp as f32,
        integrator,
    };
    // Validated: a solid side comes with `segments`, which are `walls` in order.
    let sides = w.solid_side.as_ref().map_or_else(Vec::new, |s| s.sides(walls.len()));
    let open = Walls::with_sides(&walls, &sides, &[]);
    let crowd = if s.kind == SolverKind::Crowd {
        Some(std::sync::Arc::new(crowd_of(scene, &open, &all)?))
    } else {
        None
    };
    let closed = if gate.is_empty() {
        open.clone()
    } else {
        Walls::with_sides(&walls, &sides, &gate)
    };
    check_grid(scene, &closed, &grains, &emitters, &source_of(scene))?;
    let bounds = super::bounds::BoundsInput {
        stated: w.bounds,
        outline: &walls,
        closed: &closed,
        grains: std::iter::once(&grains)
            .chain(emitters.iter().map(|e| &e.grains))
            .collect(),
        gravity: scene.gravity,
        origin: &origin,
    }
    .resolve()?;
    check_emitters(scene, &emitters, &walls, &gate, bounds.rect)?;
    Ok(Setup {
        scene: resolved,
        closed,
        open,
        gated: !gate.is_empty(),
        grains,
        neck_y,
        params,
        dem,
        impulse,
        crowd,
        notices,
        emitters,
        bounds,
    })
}

/// The door and distance field of a crowd scene (validated: `[crowd] door` is there).
fn crowd_of(scene: &Scene, walls: &Walls, people: &Grains) -> Result<Crowd> {
    let origin = &scene.origin;
    let spec = scene.crowd.clone().unwrap_or_default();
    let d = spec.door.unwrap_or_default();
    let door = [[d[0] as f32, d[1] as f32], [d[2] as f32, d[3] as f32]];
    let n = people.len().max(1) as f32;
    let inside = if people.is_empty() {
        let b = walls.bounding_box();
        [0.5 * (b[0] + b[2]), 0.5 * (b[1] + b[3])]
    } else {
        let sum = people.pos.iter().fold([0.0f32; 2], |a, p| [a[0] + p[0], a[1] + p[1]]);
        [sum[0] / n, sum[1] / n]
    };
    let b = walls.bounding_box();
    let cells = ((f64::from(b[2] - b[0]) / spec.cell + 5.0) * (f64::from(b[3] - b[1]) / spec.cell + 5.0)).max(0.0);
    if cells > crate::model::crowd::MAX_FIELD_CELLS as f64 {
        return Err(Error::field(
            origin,
            "crowd.cell",
            format!(
                "{} m makes a distance field of {cells:.3e} cells over the walls (at most {}): use a larger cell",
                spec.cell,
                crate::model::crowd::MAX_FIELD_CELLS
            ),
        ));
    }
    let clearance = people.max_radius();
    let crowd = Crowd::new(walls, door, inside, spec.speed as f32, clearance, spec.cell as f32).ok_or_else(|| {
        Error::field(
            origin,
            "crowd.door",
            "the people's centroid lies on the door's line: cannot tell the room's side",
        )
    })?;
    for (i, p) in people.pos.iter().enumerate() {
        if !crowd.reachable(*p) {
            return Err(Error::field(
                origin,
                "crowd.door",
                format!(
                    "person {i} at ({}, {}) cannot reach the door (walled off, or the way is narrower than a person)",
                    p[0], p[1]
                ),
            ));
        }
    }
    Ok(crowd)
}

/// Most grains a scene may ask for: ~1.6 KB each on the GPU (BENCHMARKS.md),
/// so 20 million already need 32 GB.
pub const MAX_GRAINS: u64 = 20_000_000;

/// Walls wider than this many smallest radii are a unit mistake (or a
/// malformed mesh): the fill and the grid would not finish.
pub const MAX_EXTENT_RADII: f64 = 1e6;

/// Where the walls came from, to name it in their errors.
enum WallSource<'a> {
    /// A gmsh file: its errors name the file.
    Mesh(std::path::PathBuf),
    /// `walls.segments` (and `walls.gate`) of the scene `origin`.
    Scene(&'a str),
    /// `walls.hourglass` of the scene `origin`.
    Hourglass(&'a str),
}

impl WallSource<'_> {
    /// An error about the walls; `gate`: about the gate lines.
    fn error_at(&self, gate: bool, problem: String) -> Error {
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

    fn error(&self, problem: String) -> Error {
        self.error_at(false, problem)
    }

    /// The walls in words, for a message about the scene's grains.
    fn describe(&self) -> String {
        match self {
            WallSource::Mesh(path) => format!("the walls of {}", path.display()),
            WallSource::Scene(_) => "the fill region".to_string(),
            WallSource::Hourglass(_) => "the hourglass".to_string(),
        }
    }
}

/// Where `scene`'s walls come from.
fn source_of(scene: &Scene) -> WallSource<'_> {
    match (&scene.walls.mesh, &scene.walls.segments) {
        (Some(mesh), _) => WallSource::Mesh(mesh.clone()),
        (None, Some(_)) => WallSource::Scene(&scene.origin),
        (None, None) => WallSource::Hourglass(&scene.origin),
    }
}

/// Fixed walls that can hold grains: some lines outside the gate, not all of
/// zero length, no wider (with the gate) than [`MAX_EXTENT_RADII`] smallest
/// radii.
fn check_walls(walls: &[[[f64; 2]; 2]], gate: &[[[f64; 2]; 2]], r_min: f64, source: &WallSource) -> Result<()> {
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
fn check_counts(scene: &Scene, fill: u64, field: &str) -> Result<()> {
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
fn check_emitters(
    scene: &Scene,
    emitters: &[super::emit::Emitter],
    walls: &[[[f64; 2]; 2]],
    gate: &[[[f64; 2]; 2]],
    lost: [f32; 4],
) -> Result<()> {
    let origin = &scene.origin;
    let b = bbox(&[walls, gate].concat());
    let (width, height) = (b[2] - b[0], b[3] - b[1]);
    let b = lost.map(f64::from);
    for (k, (e, spec)) in emitters.iter().zip(&scene.emitters).enumerate() {
        let g = &e.grains;
        let f = |key: &str| format!("emitters[{k}].{key}");
        let r_max = f64::from(g.max_radius());
        // A grain narrower than one side of the box but wider than the other
        // overlaps a wall wherever it appears: the test on the lines below says so.
        if 2.0 * r_max > width.max(height) {
            let key = if spec.radius.is_some() { "radius" } else { "radius_mean" };
            return Err(Error::field(
                origin,
                &f(key),
                format!(
                    "a grain of radius {} m is wider than the walls' box ({width} x {height} m): it could never be added",
                    g.max_radius()
                ),
            ));
        }
        let p = spec.position;
        // The lines that a grain drawn within the jitter can reach.
        let reach = spec.jitter * std::f64::consts::SQRT_2 + r_max;
        let near: Vec<usize> = (0..walls.len())
            .filter(|&i| fill::segment_distance(p, walls[i]) <= reach)
            .collect();
        // Without jitter every grain starts at `position`: the largest is the test.
        let grains: Vec<usize> = if spec.jitter > 0.0 {
            (0..g.len()).collect()
        } else {
            // The first of the largest (`max_by` keeps the last of equals).
            (0..g.len())
                .rev()
                .max_by(|&i, &j| g.radius[i].total_cmp(&g.radius[j]))
                .into_iter()
                .collect()
        };
        // Lost as a run counts it: the centre more than the radius outside the box.
        let outside =
            |x: [f64; 2], r: f64| !(x[0] >= b[0] - r && x[0] <= b[2] + r && x[1] >= b[1] - r && x[1] <= b[3] + r);
        let blocking = |x: [f64; 2], r: f64| near.iter().find(|&&i| fill::segment_distance(x, walls[i]) < r).copied();
        for j in grains {
            let x = [f64::from(g.pos[j][0]), f64::from(g.pos[j][1])];
            let r = f64::from(g.radius[j]);
            // The drawn offset is at fault only where `position` itself is a good spot.
            let blamed = if spec.jitter > 0.0 && !outside(p, r) && blocking(p, r).is_none() {
                f("jitter")
            } else {
                f("position")
            };
            if outside(x, r) {
                return Err(Error::field(
                    origin,
                    &blamed,
                    format!(
                        "grain {j} would appear at ({}, {}), more than its radius outside the bounds [{}, {}, {}, {}] where grains are lost (walls.bounds, or the walls' box when they are closed): it would be lost at once",
                        g.pos[j][0], g.pos[j][1], b[0], b[1], b[2], b[3]
                    ),
                ));
            }
            if let Some(i) = blocking(x, r) {
                return Err(Error::field(
                    origin,
                    &blamed,
                    format!(
                        "grain {j} (radius {} m) at ({}, {}) would overlap wall line {i}: its spot is never free, so the emitter would stop there",
                        g.radius[j], g.pos[j][0], g.pos[j][1]
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Refuse a scene whose contact grid (as `backend::grid_for` builds it:
/// cells of 2 r_max + alert over the closed walls, the grains and the
/// emitters' grains) would have more than [`MAX_CELLS`] cells, naming what
/// makes it so large: the walls, or the grain farthest outside them.
fn check_grid(
    scene: &Scene,
    closed: &Walls,
    grains: &Grains,
    emitters: &[super::emit::Emitter],
    source: &WallSource,
) -> Result<()> {
    let walls_box = closed.bounding_box();
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
    let far = |p: [f32; 2]| {
        (walls_box[0] - p[0])
            .max(p[0] - walls_box[2])
            .max(walls_box[1] - p[1])
            .max(p[1] - walls_box[3])
    };
    let field = match &scene.grains.list {
        Some(_) => {
            let i = (0..grains.len())
                .max_by(|&i, &j| far(grains.pos[i]).total_cmp(&far(grains.pos[j])))
                .unwrap_or(0);
            format!("grains.list[{i}]")
        }
        None => "grains.region".to_string(),
    };
    Err(Error::field(
        &scene.origin,
        &field,
        format!(
            "grains outside the walls stretch the contact grid to {:.3e} x {:.3e} m, more than {MAX_CELLS} cells: place them inside the walls",
            bb[2] - bb[0],
            bb[3] - bb[1]
        ),
    ))
}

/// Why the parametric hourglass has no outline: a neck wider than the bulb.
/// When even the default neck would not fit, the grains are too large (a
/// radius in mm written as m), and the error names the radius.
fn neck_error(spec: &HourglassSpec, radius_mean: f64, origin: &str) -> Error {
    let default_neck = HourglassSpec::default().neck;
    if default_neck * radius_mean >= 0.5 * spec.width {
        return Error::field(
            origin,
            "grains.radius_mean",
            format!(
                "grains of mean radius {radius_mean} m are too large for an hourglass {} m wide: even a neck of {default_neck} mean diameters would be wider than the bulb (check the units)",
                spec.width
            ),
        );
    }
    Error::field(
        origin,
        "walls.hourglass.neck",
        format!("a neck of {} mean diameters is wider than the bulb", spec.neck),
    )
}

/// Smallest time step a scene may run with, s. Below it the default 4 s
/// discharge takes over 4e7 steps (hours even for a few grains); a smaller
/// automatic step means a unit mistake (gravity, `solver.alert`, `dem.kn`).
pub const MIN_DT: f64 = 1e-7;

/// Refuse a step below [`MIN_DT`], naming what made it so small.
fn check_dt(
    dt: f64,
    kn: f64,
    scene: &Scene,
    walls: &[[[f64; 2]; 2]],
    gate: &[[[f64; 2]; 2]],
    origin: &str,
) -> Result<()> {
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

/// Largest default time step, s.
pub const MAX_DEFAULT_DT: f64 = 1e-3;

/// Largest default step of crowd motion, s: people move at a walking pace
/// with no inertia, so a step is a hundredth of a second at most (a 0.2 m
/// person at 1.3 m/s covers 6.5 % of their radius).
pub const CROWD_MAX_DT: f64 = 1e-2;

/// The default time step: 1e-3 s, or less where a grain that falls half the
/// height H of the walls (speed sqrt(g H): from a bulb's top to the neck, or
/// from the neck to the bottom) would move more than 80% of the alert
/// distance in one step and so could miss a contact. The run still warns if
/// any grain moves further than `alert` in a step.
fn default_dt(walls: &[[[f64; 2]; 2]], gate: &[[[f64; 2]; 2]], gravity: [f64; 2], alert: f64) -> f64 {
    let mut all = walls.to_vec();
    all.extend_from_slice(gate);
    let b = bbox(&all);
    let height = (b[3] - b[1]).max(b[2] - b[0]);
    let g = (gravity[0] * gravity[0] + gravity[1] * gravity[1]).sqrt();
    let v = (g * height).sqrt();
    if !(v.is_finite() && v > 0.0) {
        return MAX_DEFAULT_DT;
    }
    MAX_DEFAULT_DT.min(0.8 * alert / v)
}

/// The DEM normal stiffness: `dem.kn` when given, else the preset's: the
/// course's 1e5, or [`scene_kn`] for the grains' mean radius and the height
/// of their fill (lowest bottom to highest top), the tallest column at rest;
/// `rho` in kg/m^2.
pub fn dem_kn(d: &super::spec::DemSpec, grains: &Grains, rho: f64, gravity: [f64; 2]) -> f64 {
    use super::spec::{COURSE_KN, DemPreset, scene_kn};
    if let Some(kn) = d.kn {
        return kn;
    }
    let n = grains.len();
    if d.preset == DemPreset::Course || n == 0 {
        return COURSE_KN;
    }
    let r = grains.radius.iter().map(|&r| f64::from(r)).sum::<f64>() / n as f64;
    let (lo, hi) = (0..n).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), i| {
        let (y, r) = (f64::from(grains.pos[i][1]), f64::from(grains.radius[i]));
        (lo.min(y - r), hi.max(y + r))
    });
    let g = gravity[0].hypot(gravity[1]);
    let kn = scene_kn(hi - lo, r, rho, g);
    if kn.is_finite() && kn > 0.0 { kn } else { COURSE_KN }
}

/// The areal density of grains of the same mean mass and mean radius,
/// kg/m^2 ([`DEFAULT_DENSITY`] without movable grains): `density` itself for
/// a fill by density, what the scene preset's k_n needs when masses are given.
fn equivalent_density(grains: &Grains) -> f64 {
    let moving: Vec<usize> = (0..grains.len()).filter(|&i| grains.inv_mass[i] > 0.0).collect();
    if moving.is_empty() {
        return DEFAULT_DENSITY;
    }
    let n = moving.len() as f64;
    let m = moving.iter().map(|&i| grains.mass(i)).sum::<f64>() / n;
    let r2 = moving.iter().map(|&i| f64::from(grains.radius[i]).powi(2)).sum::<f64>() / n;
    let rho = m / (std::f64::consts::PI * r2);
    if rho.is_finite() && rho > 0.0 {
        rho
    } else {
        DEFAULT_DENSITY
    }
}

/// The DEM time step (DESIGN §1b): dt = cfl * min_i sqrt(m_i / k_n), s
/// ([`MAX_DEFAULT_DT`] without movable grains).
pub fn dem_dt(grains: &Grains, kn: f64, cfl: f64) -> f64 {
    let m_min = (0..grains.len())
        .filter(|&i| grains.inv_mass[i] > 0.0)
        .map(|i| grains.mass(i))
        .fold(f64::INFINITY, f64::min);
    let dt = cfl * (m_min / kn).sqrt();
    if dt.is_finite() && dt > 0.0 { dt } else { MAX_DEFAULT_DT }
}

/// The placement's own stream (radii use `fill::rng(seed)`), so a retry
/// in a larger hourglass keeps the same radii.
fn placement_rng(seed: u64) -> rand::rngs::StdRng {
    fill::rng(seed ^ 0x9e37_79b9_7f4a_7c15)
}

/// Mean height of the gate lines.
fn gate_height(gate: &[[[f64; 2]; 2]]) -> Option<f64> {
    if gate.is_empty() {
        return None;
    }
    Some(gate.iter().map(|l| 0.5 * (l[0][1] + l[1][1])).sum::<f64>() / gate.len() as f64)
}

/// Fill positions (or the explicit list's), without a size search.
#[allow(clippy::too_many_arguments)]
fn place(
    radii: &[f64],
    explicit: Option<&Vec<Vec<f64>>>,
    walls: &[[[f64; 2]; 2]],
    gate: &[[[f64; 2]; 2]],
    neck_y: f64,
    g: &GrainsSpec,
    rng: &mut rand::rngs::StdRng,
) -> Vec<[f64; 2]> {
    if let Some(list) = explicit {
        return list.iter().map(|r| [r[0], r[1]]).collect();
    }
    let mut obstacles = walls.to_vec();
    obstacles.extend_from_slice(gate);
    let region = match g.region {
        Some(b) => FillRegion {
            bbox: b,
            polygon: None,
            obstacles: &obstacles,
        },
        None => {
            let b = bbox(walls);
            FillRegion {
                bbox: [b[0], neck_y.max(b[1]), b[2], b[3]],
                polygon: Some(walls),
                obstacles: &obstacles,
            }
        }
    };
    fill::place(radii, &region, rng)
}
