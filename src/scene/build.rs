//! Resolve a validated scene into walls, grains and step parameters.

use super::checks::{
    Line, WallSource, bbox, check_counts, check_emitters, check_grid, check_periodic, check_walls, source_of,
};
pub use super::checks::{MAX_EXTENT_RADII, MAX_GRAINS, MIN_DT};
use super::fill::{self, FillRegion};
use super::gmsh;
use super::hourglass;
pub use super::laws::{CROWD_MAX_DT, MAX_DEFAULT_DT, dem_dt, dem_kn};
use super::laws::{Laws, radius_mean};
use super::motion;
use super::placed::Placed;
use super::spec::*;
use crate::error::{Error, Result};
use crate::model::accuracy::OverlapTarget;
use crate::model::{Crowd, DemParams, Dim2, Grains, ImpulseParams, SolverKind, Space, StepParams, Walls};

/// Everything a simulation starts from.
#[derive(Debug, Clone)]
pub struct Setup<S: Space = Dim2> {
    /// The scene with every default and derived value written out.
    pub scene: Scene,
    /// The walls with the gate (the settle phase), built once from the lines.
    pub(super) closed: S::Walls,
    /// The walls without the gate (the discharge), built once from the lines.
    pub(super) open: S::Walls,
    /// The scene has a gate (a settle phase).
    pub(super) gated: bool,
    pub grains: Grains<S>,
    /// Height of the neck, m.
    pub neck_y: f64,
    pub params: StepParams,
    /// The overlap the NSCD solve keeps under by adapting `params.tol`
    /// (`solver.max_overlap`); None when `solver.tol` holds for the run.
    /// `params.tol` is then its starting tolerance.
    pub overlap_target: Option<OverlapTarget>,
    /// Mean radius of every grain of the run (the fill's and the emitters'), m.
    pub radius_mean: f64,
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
    pub emitters: Vec<super::emit::Emitter<S>>,
    /// Outside these a grain is lost (`walls.bounds`, or found from the walls).
    pub bounds: super::bounds::Bounds<S>,
    /// The `[[motion]]` of the open walls (their clock starts when the gate
    /// opens, or at the start without a gate); None: the walls stay still.
    pub motion: Option<S::Motion>,
    /// The box ([`Space::Bounds`]: [xmin, ymin, xmax, ymax] in the plane)
    /// that holds the walls wherever they are in the run (the walls'
    /// bounding box when they stay still), m.
    pub walls_box: S::Bounds,
}

impl<S: Space> Setup<S> {
    /// Walls with the gate (closed) or without it (open); built once by [`build`].
    pub fn walls(&self, with_gate: bool) -> &S::Walls {
        if with_gate { &self.closed } else { &self.open }
    }

    /// Some wall moves (`[[motion]]`).
    pub fn moves_walls(&self) -> bool {
        self.motion.is_some()
    }

    /// The scene has gate lines, so a run settles before it opens them.
    pub fn has_gate(&self) -> bool {
        self.gated
    }

    /// The period [xmin, xmax) along x (`walls.periodic_x`), m; None: not periodic.
    pub fn periodic_x(&self) -> Option<[f32; 2]> {
        self.scene.walls.periodic_x.map(|p| p.map(|v| v as f32))
    }

    /// Where the neck is and what counts as lost ([`Setup::bounds`]).
    pub fn region(&self) -> crate::model::Region<S> {
        crate::model::Region {
            gravity: S::in_plane(self.params.gravity),
            neck_y: self.neck_y as f32,
            bbox: self.bounds.rect,
            period: self.periodic_x().map_or(0.0, |p| p[1] - p[0]),
        }
    }
}

fn line(s: &[f64; 4]) -> Line {
    [[s[0], s[1]], [s[2], s[3]]]
}

/// Resolve `scene` (validated here) into a [`Setup`].
pub fn build(scene: &Scene) -> Result<Setup> {
    Placement::new(scene)?.into_setup(scene.solver.kind)
}

/// A scene's grains drawn and placed in its walls: the fill, which at a
/// million grains is most of [`build`]'s time, made once for setups that
/// differ only in their solver (`hourglass bench --suite` measures four
/// solvers on one fill). The fill does not depend on the solver.
#[derive(Debug, Clone)]
pub struct Placement {
    /// The scene as given.
    scene: Scene,
    /// The scene with the placement's derived values written out.
    resolved: Scene,
    notices: Vec<String>,
    placed: Placed,
    grains: Grains,
}

impl Placement {
    /// Validate `scene`, draw its grains and place them in its walls.
    pub fn new(scene: &Scene) -> Result<Placement> {
        scene.validate()?;
        if scene.dimension == 3 {
            return Err(Error::field(
                &scene.origin,
                "dimension",
                "is 3: a scene of spheres is built by `scene::build3d` and runs with `hourglass run`",
            ));
        }
        let mut resolved = scene.clone();
        let mut notices = Vec::new();
        let fill = Fill::draw(scene)?;
        let placed = place_in_walls(scene, &fill, &mut resolved, &mut notices)?;
        let grains = fill.grains(&placed.positions);
        Ok(Placement {
            scene: scene.clone(),
            resolved,
            notices,
            placed,
            grains,
        })
    }

    /// The setup of this placement's scene with `solver.kind` = `kind`:
    /// the same as [`build`] of that scene (checked again for that solver).
    pub fn setup(&self, kind: SolverKind) -> Result<Setup> {
        self.clone().into_setup(kind)
    }

    /// [`Placement::setup`], consuming the placement (no copy of its grains).
    fn into_setup(self, kind: SolverKind) -> Result<Setup> {
        let Placement {
            mut scene,
            mut resolved,
            notices,
            placed,
            grains,
        } = self;
        if scene.solver.kind != kind {
            scene.solver.kind = kind;
            scene.validate()?;
        }
        resolved.solver.kind = kind;
        finish(&scene, resolved, notices, &placed, grains)
    }
}

/// [`build`] after the placement: the laws, walls, bounds and checks.
fn finish(scene: &Scene, mut resolved: Scene, notices: Vec<String>, placed: &Placed, grains: Grains) -> Result<Setup> {
    let neck_y = scene.walls.neck_y.unwrap_or(placed.neck);
    resolved.walls.neck_y = Some(neck_y);
    if scene.grains.mass.is_none() {
        resolved.grains.density = Some(scene.grains.density.unwrap_or(DEFAULT_DENSITY));
    }
    if resolved.run.duration.is_none() && resolved.run.steps.is_none() {
        resolved.run.duration = Some(DEFAULT_DURATION);
    }
    let emitters = super::emit::emitters(scene);
    // k_n and dt are chosen for every grain of the run, the emitted ones too.
    let all = with_emitted(&grains, &emitters);
    let radius_mean = radius_mean(&all);
    let laws = Laws::resolve(scene, &all, placed, &mut resolved)?;
    // Validated: a solid side comes with `segments`, which are `walls` in order.
    let (walls, gate) = (&placed.walls, &placed.gate);
    let sides = scene
        .walls
        .solid_side
        .as_ref()
        .map_or_else(Vec::new, |s| s.sides(walls.len()));
    let groups = motion::groups(scene, placed)?;
    let (open, segment_group, corner_group) = Walls::grouped(walls, &sides, &[], &groups);
    let crowd = if scene.solver.kind == SolverKind::Crowd {
        Some(std::sync::Arc::new(crowd_of(scene, &open, &all)?))
    } else {
        None
    };
    let closed = if gate.is_empty() {
        open.clone()
    } else {
        Walls::grouped(walls, &sides, gate, &groups).0
    };
    let motion = motion::of(scene, &open, segment_group, corner_group);
    let walls_box = motion::walls_box(motion.as_ref(), &closed);
    check_grid(scene, walls_box, &grains, &emitters, &source_of(scene))?;
    check_periodic(scene, &grains, &emitters)?;
    let bounds = super::bounds::BoundsInput {
        stated: scene.walls.bounds,
        outline: walls,
        walls_box,
        grains: std::iter::once(&grains)
            .chain(emitters.iter().map(|e| &e.grains))
            .collect(),
        gravity: scene.gravity,
        periodic_x: scene.walls.periodic_x,
        origin: &scene.origin,
    }
    .resolve()?;
    check_emitters(scene, &emitters, walls, gate, bounds.rect)?;
    Ok(Setup {
        scene: resolved,
        closed,
        open,
        gated: !gate.is_empty(),
        grains,
        neck_y,
        params: laws.params,
        overlap_target: laws.target,
        radius_mean,
        dem: laws.dem,
        impulse: laws.impulse,
        crowd,
        notices,
        emitters,
        bounds,
        motion,
        walls_box,
    })
}

/// The fill's grains before they are placed.
struct Fill<'a> {
    spec: &'a GrainsSpec,
    /// `grains.list`, when the scene gives its grains one by one.
    explicit: Option<&'a Vec<Vec<f64>>>,
    /// How many: `grains.count`, or the list's length.
    count: usize,
    /// Their radii, m: the list's, or drawn from `fill::rng(seed)`.
    radii: Vec<f64>,
}

impl<'a> Fill<'a> {
    /// Count the fill's grains (refused beyond [`MAX_GRAINS`] or memory,
    /// with the emitters') and draw their radii. Grains of a fill are drawn
    /// first so the hourglass can be sized to them.
    fn draw(scene: &'a Scene) -> Result<Self> {
        let g = &scene.grains;
        let explicit = g.list.as_ref();
        let count = explicit.map_or(g.count as usize, Vec::len);
        if count as u64 > MAX_GRAINS {
            return Err(Error::field(
                &scene.origin,
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
            None => fill::sample_radii(g, count, &mut fill::rng(g.seed)),
        };
        Ok(Fill {
            spec: g,
            explicit,
            count,
            radii,
        })
    }

    /// Fill positions (or the explicit list's) between `walls` and `gate`,
    /// above `neck_y` without a `grains.region`; no size search.
    fn place(&self, walls: &[Line], gate: &[Line], neck_y: f64, rng: &mut rand::rngs::StdRng) -> Vec<[f64; 2]> {
        if let Some(list) = self.explicit {
            return list.iter().map(|r| [r[0], r[1]]).collect();
        }
        let mut obstacles = walls.to_vec();
        obstacles.extend_from_slice(gate);
        let region = match self.spec.region {
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
        fill::place(&self.radii, &region, rng)
    }

    /// The fill's grains at `positions`: the list's velocities (else at
    /// rest) and masses (a list row's own, else `grains.mass`, else density pi r^2).
    fn grains(&self, positions: &[[f64; 2]]) -> Grains {
        let vel = match self.explicit {
            Some(list) => list.iter().map(|r| [r[2] as f32, r[3] as f32]).collect(),
            None => vec![[0.0; 2]; self.count],
        };
        let mut grains = Grains::new(
            positions.iter().map(|p| [p[0] as f32, p[1] as f32]).collect(),
            vel,
            self.radii.iter().map(|&r| r as f32).collect(),
            1.0,
        );
        for (i, &r) in self.radii.iter().enumerate() {
            let own = self.explicit.and_then(|list| list[i].get(5).copied());
            grains.inv_mass[i] = (1.0 / own.unwrap_or_else(|| self.spec.mass_of(r))) as f32;
        }
        grains
    }

    /// Place the fill once in fixed walls (a mesh or a list), or fail
    /// naming `source`, with `hint` on what to change.
    fn place_fixed(
        &self,
        scene: &Scene,
        walls: Vec<Line>,
        gate: Vec<Line>,
        source: &WallSource,
        hint: &str,
    ) -> Result<Placed> {
        check_walls(&walls, &gate, self.spec.radius_min, source)?;
        let neck = gate_height(&gate).unwrap_or_else(|| bbox(&walls)[1]);
        let neck_y = scene.walls.neck_y.unwrap_or(neck);
        let positions = self.place(&walls, &gate, neck_y, &mut placement_rng(self.spec.seed));
        if positions.len() < self.radii.len() {
            return Err(Error::field(
                &scene.origin,
                "grains.count",
                format!(
                    "{} grains requested but only {} fit in {} ({hint})",
                    self.radii.len(),
                    positions.len(),
                    source.describe()
                ),
            ));
        }
        Ok(Placed {
            walls,
            gate,
            names: Vec::new(),
            neck,
            positions,
        })
    }

    /// Place the fill in the parametric hourglass, enlarged by 10 % steps
    /// while it does not fit and `walls.hourglass.fit` allows; the size
    /// that held it is written into `resolved`.
    fn place_hourglass(&self, scene: &Scene, resolved: &mut Scene, notices: &mut Vec<String>) -> Result<Placed> {
        let (g, origin) = (self.spec, &scene.origin);
        let mut spec = scene.walls.hourglass.clone().unwrap_or_default();
        let start = spec.clone();
        loop {
            let lines =
                hourglass::outline(&spec, g.radius_mean).ok_or_else(|| neck_error(&spec, g.radius_mean, origin))?;
            if spec == start {
                // The outline asked for; an enlarged one grows from it by 10 % steps.
                check_walls(
                    &lines.walls,
                    &[lines.gate],
                    g.radius_min,
                    &WallSource::Hourglass(origin),
                )?;
            }
            let gate = vec![lines.gate];
            let neck_y = scene.walls.neck_y.unwrap_or(0.0);
            let placed = self.place(&lines.walls, &gate, neck_y, &mut placement_rng(g.seed));
            if placed.len() == self.radii.len() {
                if spec != start {
                    notices.push(format!(
                        "hourglass enlarged to width {:.3} m, bulb height {:.3} m to fit {} grains",
                        spec.width, spec.bulb_height, self.count
                    ));
                }
                resolved.walls.hourglass = Some(spec);
                return Ok(Placed {
                    walls: lines.walls,
                    gate,
                    names: Vec::new(),
                    neck: 0.0,
                    positions: placed,
                });
            }
            if !spec.fit || self.explicit.is_some() || spec.width > start.width * 1e4 {
                return Err(Error::field(
                    origin,
                    "grains.count",
                    format!(
                        "{} grains requested but only {} fit in the hourglass (ask for fewer grains, set walls.hourglass.fit = true or enlarge the hourglass)",
                        self.count,
                        placed.len()
                    ),
                ));
            }
            spec.width *= 1.1;
            spec.bulb_height *= 1.1;
        }
    }
}

/// The walls of `scene` (a mesh, segments, or the parametric hourglass)
/// with the fill placed in them; a mesh path is written into `resolved`
/// absolute, and a mesh without gate is a notice.
fn place_in_walls(scene: &Scene, fill: &Fill, resolved: &mut Scene, notices: &mut Vec<String>) -> Result<Placed> {
    let w = &scene.walls;
    if let Some(mesh) = &w.mesh {
        let m = gmsh::read_msh(mesh)?;
        let (mut walls, mut gate, mut names) = (Vec::new(), Vec::new(), Vec::new());
        for ((s, is_gate), groups) in m.segments.iter().zip(&m.gate).zip(m.groups) {
            if *is_gate {
                gate.push(*s)
            } else {
                walls.push(*s);
                names.push(groups);
            }
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
        let mut placed = fill.place_fixed(scene, walls, gate, &source, "ask for fewer grains or use a larger mesh")?;
        placed.names = names;
        Ok(placed)
    } else if let Some(segments) = &w.segments {
        let walls: Vec<_> = segments.iter().map(line).collect();
        let gate: Vec<_> = w.gate.iter().flatten().map(line).collect();
        let source = WallSource::Scene(&scene.origin);
        fill.place_fixed(
            scene,
            walls,
            gate,
            &source,
            "ask for fewer grains or give a larger grains.region",
        )
    } else {
        fill.place_hourglass(scene, resolved, notices)
    }
}

/// `grains` followed by every grain the emitters will add.
fn with_emitted(grains: &Grains, emitters: &[super::emit::Emitter]) -> Grains {
    let mut all = grains.clone();
    for e in emitters {
        let k = &e.grains;
        all.pos.extend(&k.pos);
        all.radius.extend(&k.radius);
        all.inv_mass.extend(&k.inv_mass);
    }
    all
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

/// The placement's own stream (radii use `fill::rng(seed)`), so a retry
/// in a larger hourglass keeps the same radii.
fn placement_rng(seed: u64) -> rand::rngs::StdRng {
    fill::rng(seed ^ 0x9e37_79b9_7f4a_7c15)
}

/// Mean height of the gate lines.
fn gate_height(gate: &[Line]) -> Option<f64> {
    if gate.is_empty() {
        return None;
    }
    Some(gate.iter().map(|l| 0.5 * (l[0][1] + l[1][1])).sum::<f64>() / gate.len() as f64)
}
