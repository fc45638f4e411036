//! The scene file's tables and their defaults. Units are SI throughout.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::model::walls::Side;
use crate::model::{Integrator, SolverKind};

mod motion;
pub use motion::*;

/// A whole scene file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Scene {
    /// Scene-file format version; must be 1.
    pub version: u32,
    /// 2: disks in the plane (the default); 3: spheres (docs/spheres.md).
    #[serde(skip_serializing_if = "is_plane")]
    pub dimension: u32,
    /// Gravity, m/s^2.
    #[serde(deserialize_with = "super::strict::gravity")]
    pub gravity: [f64; 2],
    pub walls: WallsSpec,
    pub grains: GrainsSpec,
    pub solver: SolverSpec,
    /// Soft-sphere DEM contact law (used when `solver.kind = "dem"`).
    pub dem: DemSpec,
    /// Linear spring-dashpot law (used when `solver.kind = "spring"`).
    pub spring: SpringSpec,
    /// Impulse model (used when `solver.kind = "impulse"`).
    pub impulse: ImpulseSpec,
    /// `[cohesion]`: capillary bridges (docs/cohesion.md); absent: dry grains.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cohesion: Option<CohesionSpec>,
    /// Crowd motion (required when `solver.kind = "crowd"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crowd: Option<CrowdSpec>,
    /// Stochastic forcing of the NSCD free velocity (docs/nscd.md#stochastic-forcing).
    pub forcing: ForcingSpec,
    pub run: RunSpec,
    /// `[[emitters]]`: points that add grains during the run (docs/lab.md).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub emitters: Vec<EmitterSpec>,
    /// `[[motion]]`: prescribed motions of the walls (docs/walls.md#moving-walls).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub motion: Vec<MotionSpec>,
    /// Where the scene came from (file name, or "built-in scene"), for errors.
    #[serde(skip)]
    pub origin: String,
}

impl Default for Scene {
    fn default() -> Self {
        Scene {
            version: super::SCENE_VERSION,
            dimension: 2,
            gravity: [0.0, -9.81],
            walls: WallsSpec::default(),
            grains: GrainsSpec::default(),
            solver: SolverSpec::default(),
            dem: DemSpec::default(),
            spring: SpringSpec::default(),
            impulse: ImpulseSpec::default(),
            cohesion: None,
            crowd: None,
            forcing: ForcingSpec::default(),
            run: RunSpec::default(),
            emitters: Vec::new(),
            motion: Vec::new(),
            origin: "built-in scene".to_string(),
        }
    }
}

fn is_plane(d: &u32) -> bool {
    *d == 2
}

/// A point or vector of the scene file: [x, y], or [x, y, z] in a 3D scene
/// (`dimension = 3`); a missing z reads 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// The coordinates, z = 0 when not given.
    pub xyz: [f64; 3],
    /// The values given: 2 or 3.
    pub given: usize,
}

impl Point {
    /// The point (x, y) of the plane.
    pub fn plane(x: f64, y: f64) -> Point {
        Point {
            xyz: [x, y, 0.0],
            given: 2,
        }
    }
}

impl std::ops::Index<usize> for Point {
    type Output = f64;
    fn index(&self, k: usize) -> &f64 {
        &self.xyz[k]
    }
}

impl Serialize for Point {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.xyz[..self.given].serialize(s)
    }
}

/// `[walls]`: exactly one of `mesh`, `hourglass`, `segments`; none = the default hourglass.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WallsSpec {
    /// A 3D box [xmin, ymin, zmin, xmax, ymax, zmax], m, open at the top: a
    /// floor at ymin and four side walls, each an unbounded plane.
    #[serde(
        rename = "box",
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::strict::box3d"
    )]
    pub box3d: Option<[f64; 6]>,
    /// 3D planes [px, py, pz, nx, ny, nz]: a point and the normal towards the grains.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::strict::planes"
    )]
    pub planes: Option<Vec<[f64; 6]>>,
    /// A silo of revolution (3D).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub silo: Option<SiloSpec>,
    /// The side of the closed surfaces of `mesh` or `hourglass` that holds
    /// the spheres (3D). Default: inside, nested surfaces alternating.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::strict::closed_side"
    )]
    pub closed_side: Option<crate::model::inside::Hold>,
    /// gmsh mesh (MSH 4.1 ASCII/binary or 2.2 ASCII); lines in the physical group `gate` form the gate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mesh: Option<PathBuf>,
    /// Parametric hourglass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hourglass: Option<HourglassSpec>,
    /// Explicit segments [x0, y0, x1, y1], m.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::strict::segments"
    )]
    pub segments: Option<Vec<[f64; 4]>>,
    /// Gate segments for an explicit list [x0, y0, x1, y1], m: walls while the grains settle.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "super::strict::gate")]
    pub gate: Option<Vec<[f64; 4]>>,
    /// Height of the neck, m; grains below it have "passed". Default: the gate's
    /// height, else 0 for the parametric hourglass, else the bottom of the walls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub neck_y: Option<f64>,
    /// Bounds [xmin, ymin, xmax, ymax], m: a grain more than its radius
    /// outside them is lost. Default: the walls' bounding box where closed
    /// outlines hold the grains, else the box around the walls, the grains
    /// and the emitters widened on every side (`Setup::bounds`).
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "super::strict::bounds")]
    pub bounds: Option<[f64; 4]>,
    /// Periodic boundaries along x [xmin, xmax], m (docs/walls.md#periodic-boundaries):
    /// a grain leaving one side re-enters the other, and grains touch across
    /// the boundary. The bounds in x are then the period. CPU backend only.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::strict::periodic_x"
    )]
    pub periodic_x: Option<[f64; 2]>,
    /// The side of the open `segments` that holds the grains: one for all,
    /// or one per segment. Default: two-sided.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::strict::solid_side"
    )]
    pub solid_side: Option<SolidSide>,
    /// Named groups of `segments`, by index from 0, for `[[motion]]`
    /// (`walls = "NAME"`); a segment in no group stays still unless a
    /// motion moves `"all"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<std::collections::BTreeMap<String, Vec<u64>>>,
}

/// `walls.solid_side`: the side of every open segment, or of each in turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SolidSide {
    All(Side),
    Each(Vec<Side>),
}

impl SolidSide {
    /// The side of each of `n` segments.
    pub fn sides(&self, n: usize) -> Vec<Side> {
        match self {
            SolidSide::All(side) => vec![*side; n],
            SolidSide::Each(sides) => sides.clone(),
        }
    }
}

/// A silo of revolution about the y axis (3D): a cylinder over a hopper
/// down to a circular outlet at y = 0, closed at the top; the gate is the
/// outlet's disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiloSpec {
    /// Radius of the cylinder, m.
    pub radius: f64,
    /// Height of the top, m.
    pub height: f64,
    /// Radius of the outlet, m.
    pub outlet: f64,
    /// The hopper's angle from the horizontal, degrees.
    pub slope_deg: f64,
}

/// A parametric hourglass: two bulbs joined at a neck at y = 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HourglassSpec {
    /// Bulb width, m.
    pub width: f64,
    /// Height of one bulb above (or below) the neck, m.
    pub bulb_height: f64,
    /// Neck opening, in mean grain diameters (4 lets frictionless grains flow without arching).
    pub neck: f64,
    /// Angle of the funnel walls from the horizontal, degrees.
    pub slope_deg: f64,
    /// Enlarge width and bulb height (in steps of 10%) until the grains fit in the upper bulb.
    pub fit: bool,
}

impl Default for HourglassSpec {
    fn default() -> Self {
        HourglassSpec {
            width: 0.30,
            bulb_height: 0.40,
            neck: 6.5,
            slope_deg: 51.0,
            fit: true,
        }
    }
}

/// `[grains]`: a fill (count, log-normal radii) or an explicit list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GrainsSpec {
    /// Number of grains of the fill.
    pub count: u64,
    /// Mean radius, m (of the log-normal distribution, before clipping).
    pub radius_mean: f64,
    /// Standard deviation of the radius, m (0 = monodisperse).
    pub radius_std: f64,
    /// Radii below this are redrawn, m.
    pub radius_min: f64,
    /// Radii above this are redrawn, m.
    pub radius_max: f64,
    /// Areal density, kg/m^2 (mass per unit thickness: m = rho pi r^2).
    /// Exclusive with `mass`; neither given: [`DEFAULT_DENSITY`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub density: Option<f64>,
    /// Mass of every grain, kg (per unit thickness), whatever its radius.
    /// Exclusive with `density` (the course's lab gives masses, not densities).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mass: Option<f64>,
    /// Seed of the radii and placement; the same seed gives the same grains.
    pub seed: u64,
    /// Fill box [xmin, ymin, xmax, ymax], m. Default: the part of the wall
    /// loop above the neck (the upper bulb).
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "super::strict::region")]
    pub region: Option<[f64; 4]>,
    /// Explicit grains [x, y, vx, vy, r] (m, m/s), or [x, y, vx, vy, r, m]
    /// with the grain's own mass m (kg) that wins over `density` / `mass`;
    /// replaces the fill.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "super::strict::grains")]
    pub list: Option<Vec<Vec<f64>>>,
}

/// Areal density when neither `grains.density` nor `grains.mass` is given, kg/m^2 (glass).
pub const DEFAULT_DENSITY: f64 = 2500.0;

impl GrainsSpec {
    /// The mass of a grain of radius `r` (m) without a mass of its own, kg:
    /// `mass`, else `density` pi r^2.
    pub fn mass_of(&self, r: f64) -> f64 {
        match self.mass {
            Some(m) => m,
            None => self.density.unwrap_or(DEFAULT_DENSITY) * std::f64::consts::PI * r * r,
        }
    }
}

impl Default for GrainsSpec {
    fn default() -> Self {
        GrainsSpec {
            count: 2000,
            radius_mean: 0.003,
            radius_std: 0.001,
            radius_min: 0.0015,
            radius_max: 0.006,
            density: None,
            mass: None,
            seed: 1,
            region: None,
            list: None,
        }
    }
}

/// `[[emitters]]`: a point that adds a grain every `interval` seconds from
/// `start` on, `count` grains in all (docs/lab.md). An emission whose spot is
/// taken (the new grain would overlap a grain or a wall) waits for the next
/// step; summary.json counts such emissions (`emissions_waited`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmitterSpec {
    /// Where a grain appears, [x, y] m ([x, y, z] in 3D).
    #[serde(deserialize_with = "super::strict::position")]
    pub position: Point,
    /// Each grain appears up to this far from `position` in x and in y
    /// (uniform, seeded from `grains.seed`), m. Default 0.
    #[serde(default)]
    pub jitter: f64,
    /// Velocity of a new grain, [vx, vy] m/s ([vx, vy, vz] in 3D). Default at rest.
    #[serde(default = "at_rest", deserialize_with = "super::strict::velocity")]
    pub velocity: Point,
    /// Radius of every grain, m (exclusive with `radius_mean`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// Mean radius of drawn radii, m (log-normal like the fill, within 3
    /// standard deviations, seeded from `grains.seed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius_mean: Option<f64>,
    /// Standard deviation of drawn radii, m. Default 0.
    #[serde(default)]
    pub radius_std: f64,
    /// Time between two grains, s.
    pub interval: f64,
    /// Grains in all.
    pub count: u64,
    /// Time of the first grain, s. Default 0 (the start state).
    #[serde(default)]
    pub start: f64,
}

fn at_rest() -> Point {
    Point::plane(0.0, 0.0)
}

/// `[solver]`: contact model and its numerical parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SolverSpec {
    pub kind: SolverKind,
    /// Time step, s. Default: for `dem` and `spring` the CFL rule
    /// cfl * min sqrt(m / k) of their table; else (NSCD, impulse) 1e-3, or less
    /// when a grain falling half the height of the walls could move more than
    /// 80% of `alert` in one step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dt: Option<f64>,
    /// Geometric tolerance, m; a step has converged when every contact's
    /// velocity correction is under tol/dt. Given, it holds for the whole
    /// run; unset, the NSCD solvers adapt it to `max_overlap` and the other
    /// models do not use it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tol: Option<f64>,
    /// The largest overlap the NSCD solve aims to keep, as a fraction of the
    /// mean grain radius: the step's tolerance adapts to it during the run
    /// (docs/nscd.md#accuracy-as-overlap). Default 0.01 for the NSCD
    /// solvers when `tol` is not given; refused beside `tol`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_overlap: Option<f64>,
    /// Iteration cap per step; a step that reaches it is counted and reported.
    pub itmax: u32,
    /// Surface distance under which a pair is a potential contact, m. Must
    /// exceed the farthest a grain moves in one step.
    pub alert: f64,
    /// Jacobi relaxation factor in (0, 1]: see BENCHMARKS.md for the study behind the default.
    pub omega: f64,
    /// Fraction of an overlap pushed out per step, in [0, 1]. 0 is the
    /// constraint of docs/nscd.md exactly (u + max(d,0)/dt >= 0), under which the
    /// solver tolerance lets overlaps creep by up to `tol` every step; a small
    /// fraction keeps them bounded near tol (measured in BENCHMARKS.md).
    /// Unset: the solver's (`SolverKind::overlap_relax`: 0.8 for NLGS, 0.2
    /// for the others), written into the resolved scene once the solver is
    /// known (with `kind = "auto"` and backend `auto`, the backend decides
    /// and the resolved scene leaves it unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overlap_relax: Option<f64>,
    /// Jacobi iterations per step of the position correction that pushes
    /// overlaps out by moving grains rather than through their velocities
    /// (docs/solvers.md: resting piles then stay at rest). 0 pushes them out
    /// through the velocity solve instead.
    pub overlap_iterations: u32,
    /// Start persisting contacts from the previous step's impulse.
    pub warm_start: bool,
    /// Contact slots per grain; an overflow is reported, never silent.
    pub contact_capacity: u32,
    /// Coulomb friction coefficient between grains (NSCD, docs/nscd.md#coulomb-friction-and-rotation):
    /// |P_t| <= mu P_n. Default 0 (frictionless; grains then never turn).
    pub mu: f64,
    /// Coulomb friction coefficient between a grain and a wall or corner. Default 0.
    pub mu_wall: f64,
    /// Time integrator of the explicit models (dem, spring, impulse;
    /// docs/lab.md): `semi_implicit_euler`, `leapfrog` (kick-drift-kick) or
    /// `velocity_verlet`. Default: velocity Verlet for dem (unchanged
    /// results), leapfrog for spring and impulse. The NSCD solvers refuse it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integrator: Option<Integrator>,
    /// Restitution e in [0, 1] of the NSCD projection (docs/nscd.md#restitution): a contact
    /// closing within a step separates at -e times its normal velocity at
    /// the start of the step. Default 0 (perfectly inelastic, docs/nscd.md).
    /// The explicit models refuse it (the impulse model has `impulse.e`).
    pub restitution: f64,
}

/// The tolerance, m, of the models that take `solver.tol` but adapt none
/// (crowd motion; the NSCD solvers when a caller builds `StepParams` by hand).
pub const DEFAULT_TOL: f64 = 2e-6;

impl SolverSpec {
    /// `tol` as given, else [`DEFAULT_TOL`].
    pub fn tol_or_default(&self) -> f64 {
        self.tol.unwrap_or(DEFAULT_TOL)
    }

    /// The share of the mean radius the run keeps the largest overlap
    /// under by adapting `tol` (`max_overlap`, else
    /// [`crate::model::accuracy::DEFAULT_MAX_OVERLAP`]); None when `tol` is
    /// given or the model is not an NSCD solver.
    pub fn overlap_share(&self) -> Option<f64> {
        match (self.tol, self.kind.nscd()) {
            (None, true) => Some(self.max_overlap.unwrap_or(crate::model::accuracy::DEFAULT_MAX_OVERLAP)),
            _ => None,
        }
    }
}

impl Default for SolverSpec {
    fn default() -> Self {
        SolverSpec {
            kind: SolverKind::Auto,
            dt: None,
            tol: None,
            max_overlap: None,
            itmax: 1000,
            alert: 0.004,
            omega: 0.5,
            overlap_relax: None,
            overlap_iterations: 4,
            warm_start: true,
            contact_capacity: 32,
            mu: 0.0,
            mu_wall: 0.0,
            integrator: None,
            restitution: 0.0,
        }
    }
}

/// `[dem]`: the soft-sphere contact law of docs/dem.md (see `cpu::dem` for the
/// formulas). Forces are per unit thickness (2D: N/m), like the masses (kg/m).
/// Defaults are the course's reference parameters, except k_n under the
/// default preset (see [`DemPreset`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DemSpec {
    /// Where k_n comes from when `kn` is not given. Default `scene`.
    pub preset: DemPreset,
    /// Hertz normal stiffness k_n in F_n = k_n delta^1.5, N/m^1.5 per unit
    /// thickness (N/m^2.5). Given, it wins over the preset; else the preset's
    /// (scene: [`scene_kn`], course: 1e5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kn: Option<f64>,
    /// Tangential viscosity k_t in the trial force F_t = -k_t v_t, N s/m per
    /// unit thickness (N s/m^2). Default 2e4 (reference).
    pub kt: f64,
    /// Normal viscous damping gamma_n in F_n = k_n delta^1.5 - gamma_n v_n,
    /// N s/m per unit thickness (N s/m^2), during the discharge. Default 50 (reference).
    pub gamma_n: f64,
    /// Normal damping during the relaxation phase (gate closed), N s/m^2.
    /// Default 200 (reference): four times gamma_n, so the fill comes to rest sooner.
    pub gamma_relax: f64,
    /// Coulomb friction coefficient: |F_t| <= mu F_n. Default 0.4 (reference).
    pub mu: f64,
    /// Rolling-resistance coefficient: |torque| <= mu_roll F_n r. Default 0.02 (reference).
    pub mu_roll: f64,
    /// Time-step factor: dt = cfl * min_i sqrt(m_i / k_n) unless `solver.dt`
    /// is given. Default 0.1: about 30 steps per period of the stiffest
    /// contact (a pair of the smallest grains at one radius of overlap) and
    /// within the explicit limit dt < m_min / gamma_relax of the normal damping.
    pub cfl: f64,
    /// The relaxation ends when every grain is slower than this, m/s. Default 0.01.
    pub relax_v_tol: f64,
    /// ... and every grain turns slower than this, rad/s. Default 1 (a 3 mm
    /// grain's rim then moves at 3 mm/s).
    pub relax_w_tol: f64,
    /// Longest relaxation phase, steps (then the gate opens anyway). Default 50000
    /// (about 2 s at the default dt).
    pub relax_max_steps: u64,
    /// The contact law, by name (`model::law::LAWS`): `hertz` (viscous
    /// friction, the default) or `hertz_mindlin` (a tangential spring per contact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub law: Option<String>,
    /// Poisson ratio nu of the grains, in [0, 0.5): Hertz-Mindlin's tangential
    /// stiffness k_t = 3 k_n sqrt(delta) (1 - nu)/(2 - nu). Default 0.3; only
    /// `law = "hertz_mindlin"` takes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poisson: Option<f64>,
}

impl DemSpec {
    /// The value of the law parameter `key` (`model::law::LawParam::key`), if given.
    pub fn law_param(&self, key: &str) -> Option<f64> {
        match key {
            "poisson" => self.poisson,
            _ => None,
        }
    }

    /// Every law parameter's key, for the keys given to a law that does not take them.
    pub const LAW_PARAMS: &'static [&'static str] = &["poisson"];
}

/// `[dem] preset`: the origin of the default normal stiffness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum DemPreset {
    /// k_n follows the scene: the static overlap under the tallest column of
    /// grains is at most 1% of the mean radius ([`scene_kn`]).
    #[default]
    Scene,
    /// The course's reference values (docs/dem.md), k_n = 1e5: soft, with
    /// overlaps of a radius and more under a 1,000-grain column.
    Course,
}

/// The course's normal stiffness, N/m^2.5.
pub const COURSE_KN: f64 = 1e5;
/// Largest static overlap the scene preset allows, as a fraction of the mean radius.
pub const SCENE_OVERLAP: f64 = 0.01;

/// k_n of the scene preset: a column of height `h` (m) of grains of mean
/// radius `r` (m), density `rho` (kg/m^2 in 2D) under gravity `g` (m/s^2),
/// stacked on one grain: h / (2 r) grains of mass rho pi r^2 weigh
/// F = pi rho g r h / 2 per unit thickness, and the Hertz overlap
/// delta = (F / k_n)^(2/3) is at most SCENE_OVERLAP r when
/// k_n = F / (SCENE_OVERLAP r)^1.5.
pub fn scene_kn(h: f64, r: f64, rho: f64, g: f64) -> f64 {
    let f = std::f64::consts::PI * rho * g * r * h / 2.0;
    f / (SCENE_OVERLAP * r).powf(1.5)
}

impl Default for DemSpec {
    fn default() -> Self {
        DemSpec {
            preset: DemPreset::Scene,
            kn: None,
            kt: 2e4,
            gamma_n: 50.0,
            gamma_relax: 200.0,
            mu: 0.4,
            mu_roll: 0.02,
            cfl: 0.1,
            relax_v_tol: 0.01,
            relax_w_tol: 1.0,
            relax_max_steps: 50_000,
            law: None,
            poisson: None,
        }
    }
}

/// `[spring]`: the linear spring-dashpot model of docs/lab.md,
/// F_n = max(0, k_s delta - k_d v_n) (never pulls), on the DEM's stages (its
/// friction and rolling resistance too, when `mu`, `mu_roll` > 0). Per unit
/// thickness like the DEM: with masses in kg/m, k_s in N/m^2 behaves as the
/// lab's N/m on a 1 kg particle (the column and box scenes set the density so).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SpringSpec {
    /// Normal stiffness k_s, N/m. Default 4,000 (the lab's softest column).
    pub ks: f64,
    /// Normal dashpot k_d, N s/m. Default 0 (elastic: no energy lost).
    pub kd: f64,
    /// Tangential viscosity k_t (as `dem.kt`), N s/m; acts only when `mu` > 0. Default 2e4.
    pub kt: f64,
    /// Coulomb friction coefficient. Default 0 (the lab's model is frictionless).
    pub mu: f64,
    /// Rolling-resistance coefficient. Default 0.
    pub mu_roll: f64,
    /// Time-step factor: dt = cfl * min_i sqrt(m_i / k_s) unless `solver.dt`
    /// is given. Default 0.1, the DEM's: about 30 steps per contact period
    /// 2 pi sqrt(m/k_s) of the lightest grain against a wall.
    pub cfl: f64,
}

impl Default for SpringSpec {
    fn default() -> Self {
        SpringSpec {
            ks: 4000.0,
            kd: 0.0,
            kt: 2e4,
            mu: 0.0,
            mu_roll: 0.0,
            cfl: 0.1,
        }
    }
}

/// `[impulse]`: the impulse model of docs/lab.md (`cpu::impulse`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ImpulseSpec {
    /// Restitution e in [0, 1]: the normal speed of an approaching overlapping
    /// pair is reversed and scaled by e. Default 0.5 (the lab's box).
    pub e: f64,
    /// Position projection k_p in [0, 1): each step removes this fraction of
    /// every overlap by moving the grains (in inverse-mass shares). Acts like a
    /// spring k_p / (m_ab^-1 h^2), stable for k_p < 0.5. Default 0.4 (the lab's box).
    pub kp: f64,
}

impl Default for ImpulseSpec {
    fn default() -> Self {
        ImpulseSpec { e: 0.5, kp: 0.4 }
    }
}

/// `[cohesion]`: capillary cohesion between grains (and, with `walls`,
/// between a grain and a wall), docs/cohesion.md, `model::cohesion`:
/// F = pi gamma r (exp(-a D + b) + c) while the gap D < `rupture`.
/// The defaults are water bridges between 3 mm grains of density 2500
/// (weight per unit thickness rho pi r^2 g = 0.69 N/m): at contact the
/// force is pi 0.072 0.003 (e^8 + 0) = 2.0 N/m, about 3 weights; 1/a =
/// 0.2 mm, so it has fallen to 1/100 at 0.9 mm (0.3 r) and the bridge
/// breaks at 1 mm (1/150 of the contact force).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CohesionSpec {
    /// Surface tension, N/m. Default 0.072 (water at 20 C).
    pub gamma: f64,
    /// A, 1/m: decay rate with the gap. Default 5000 (1/A = 0.2 mm).
    pub a: f64,
    /// B: exp(B) + C is the force at contact in units of pi gamma r. Default 8.
    pub b: f64,
    /// C: constant part, in units of pi gamma r. Default 0.
    pub c: f64,
    /// Rupture gap, m: no bridge at or beyond it; at most `solver.alert`
    /// (detection lists only pairs closer than the alert distance). Default 1e-3.
    pub rupture: f64,
    /// Grain-wall bridges too (the wall as a grain of infinite radius: r = r_i). Default false.
    pub walls: bool,
}

impl Default for CohesionSpec {
    fn default() -> Self {
        CohesionSpec {
            gamma: 0.072,
            a: 5000.0,
            b: 8.0,
            c: 0.0,
            rupture: 1e-3,
            walls: false,
        }
    }
}

/// `[crowd]`: crowd motion of docs/crowd.md (`model::crowd`): people walk
/// towards the door at `speed`, their velocity projected onto the feasible set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CrowdSpec {
    /// Desired walking speed, m/s. Default 1.3 (a relaxed adult walk).
    pub speed: f64,
    /// The door, a segment [x0, y0, x1, y1] (m) across a gap in the walls;
    /// its outside is the side away from the people's centroid. Required.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "super::strict::door")]
    pub door: Option<[f64; 4]>,
    /// Cell side of the distance field to the door, m. Default 0.05: a
    /// quarter of a 0.2 m person's radius, so that the clear part of a door
    /// a few radii wide spans several cells.
    pub cell: f64,
}

impl Default for CrowdSpec {
    fn default() -> Self {
        CrowdSpec {
            speed: 1.3,
            door: None,
            cell: 0.05,
        }
    }
}

/// `[forcing]`: stochastic forcing (docs/nscd.md#stochastic-forcing, `model::noise`): every step
/// adds sqrt(dt) sigma w to each movable grain's free velocity, w standard
/// normal per component, drawn from (grains.seed, step, grain id): the same
/// draws on the CPU and the GPU, whatever the order of the grains.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ForcingSpec {
    /// Noise strength sigma, m s^-3/2 (a free grain's velocity variance per
    /// component grows as sigma^2 t). Default 0 (off). NSCD solvers only.
    pub sigma: f64,
}

/// Which backend runs the steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum, Default)]
#[serde(rename_all = "lowercase")]
pub enum BackendChoice {
    /// A real GPU adapter when there is one, else the CPU.
    #[default]
    Auto,
    Cpu,
    Gpu,
}

/// `[run]`: how long, how often to write, where.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunSpec {
    /// Discharge duration after the gate opens, s (exclusive with `steps`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    /// Discharge length in steps (exclusive with `duration`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<u64>,
    /// Write a frame and a diagnostics row every this many steps.
    pub every: u64,
    /// Result directory.
    pub out: PathBuf,
    /// Longest settle phase with the gate closed, s (ends early once the grains are at rest).
    pub settle: f64,
    /// The settle phase ends when every grain is slower than this, m/s.
    pub settle_speed: f64,
    pub backend: BackendChoice,
    /// Count new grain-grain and grain-wall contacts at every step (the
    /// `grain_collisions`, `wall_collisions` columns): the gaps on host
    /// neighbour lists every step, and on the GPU one read-back of the grains per step. False
    /// writes 0 there and looks only at the rows (the elastic energy).
    /// Default: true for the explicit models of the lab (`dem`, `spring`,
    /// `impulse`) on the CPU; false for NSCD, whose hourglass runs it would
    /// slow (BENCHMARKS.md, "Costs behind defaults") and whose users watch
    /// the flow, and on the GPU, where it would read every grain back every
    /// step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collisions: Option<bool>,
}

impl Default for RunSpec {
    fn default() -> Self {
        RunSpec {
            duration: None,
            steps: None,
            every: 50,
            out: super::default_out(),
            settle: 0.3,
            settle_speed: 0.01,
            backend: BackendChoice::Auto,
            collisions: None,
        }
    }
}

/// Discharge duration when neither `duration` nor `steps` is given, s.
pub const DEFAULT_DURATION: f64 = 3.0;
