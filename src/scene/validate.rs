//! Field checks: every number in its domain, named in the error.

use super::limits::MAX_LENGTH;
use super::spec::*;
use crate::error::{Error, Result};
use crate::model::SolverKind;

/// Why `--solver impulse --backend gpu` is refused (the sequential sweep of
/// impulses has no GPU stage).
pub const IMPULSE_ON_GPU: &str =
    "the impulse model runs on the CPU only (use --backend cpu, or --solver spring on the GPU)";

/// Why `--solver crowd --backend gpu` is refused (no GPU stage samples the
/// desired velocities yet).
pub const CROWD_ON_GPU: &str = "crowd motion runs on the CPU only (use --backend cpu)";

struct Check<'a> {
    origin: &'a str,
}

impl Check<'_> {
    /// Finite in f32 too: the steps run in f32, where 1e300 becomes inf.
    fn finite(&self, field: &str, v: f64) -> Result<()> {
        if !v.is_finite() {
            Err(Error::field(
                self.origin,
                field,
                format!("must be a finite number, got {v}"),
            ))
        } else if !(v as f32).is_finite() {
            Err(Error::field(
                self.origin,
                field,
                format!("{v:e} is too large for single precision (max 3.4e38)"),
            ))
        } else {
            Ok(())
        }
    }
    /// Positive in f32 too: 1e-300 is 0 there, and a radius or an alert of 0
    /// would reach the steps as a division by zero.
    fn positive(&self, field: &str, v: f64) -> Result<()> {
        self.finite(field, v)?;
        if v <= 0.0 {
            Err(Error::field(self.origin, field, format!("must be > 0, got {v}")))
        } else if (v as f32) < f32::MIN_POSITIVE {
            Err(Error::field(
                self.origin,
                field,
                format!("{v:e} is too small for single precision (min 1.2e-38)"),
            ))
        } else {
            Ok(())
        }
    }
    /// >= 0, kept in double precision (durations, the draw of radii).
    fn non_negative(&self, field: &str, v: f64) -> Result<()> {
        self.finite(field, v)?;
        if v >= 0.0 {
            Ok(())
        } else {
            Err(Error::field(self.origin, field, format!("must be >= 0, got {v}")))
        }
    }
    /// At least 0, for a quantity the steps read in single precision: 0, or
    /// positive there too (1e-300 would become 0 and switch it off unsaid).
    fn non_negative_f32(&self, field: &str, v: f64) -> Result<()> {
        self.non_negative(field, v)?;
        if v > 0.0 && (v as f32) < f32::MIN_POSITIVE {
            Err(Error::field(
                self.origin,
                field,
                format!("{v:e} is too small for single precision (min 1.2e-38): give 0 or a larger value"),
            ))
        } else {
            Ok(())
        }
    }
    /// A coordinate or a radius, m: finite and at most [`MAX_LENGTH`] in magnitude.
    fn length(&self, field: &str, v: f64) -> Result<()> {
        self.finite(field, v)?;
        if v.abs() > MAX_LENGTH {
            Err(Error::field(
                self.origin,
                field,
                format!(
                    "{v:e} m is beyond {MAX_LENGTH:e} m, the largest coordinate or radius a scene may use (its square or the contact grid would overflow): check the units"
                ),
            ))
        } else {
            Ok(())
        }
    }
    /// Every value of every row a length (coordinates, m).
    fn all_lengths(&self, field: &str, rows: &[impl AsRef<[f64]>]) -> Result<()> {
        for (i, row) in rows.iter().enumerate() {
            for &v in row.as_ref() {
                self.length(&format!("{field}[{i}]"), v)?;
            }
        }
        Ok(())
    }
    /// A grain's mass, kg: > 0 with a finite, non-zero inverse in single precision.
    fn mass(&self, field: &str, m: f64) -> Result<()> {
        let im = (1.0 / m) as f32;
        if m > 0.0 && im.is_finite() && im > 0.0 {
            Ok(())
        } else {
            Err(Error::field(
                self.origin,
                field,
                format!("mass must be > 0 with an inverse in single precision, got {m:e} kg"),
            ))
        }
    }
    fn all_finite(&self, field: &str, rows: &[impl AsRef<[f64]>]) -> Result<()> {
        for (i, row) in rows.iter().enumerate() {
            for &v in row.as_ref() {
                self.finite(&format!("{field}[{i}]"), v)?;
            }
        }
        Ok(())
    }
}

impl Scene {
    /// Check every field's domain. Called by `build`; cheap. The sections
    /// are checked in this order, so a scene with several faults is refused
    /// for the first.
    pub fn validate(&self) -> Result<()> {
        let c = Check { origin: &self.origin };
        if self.version != super::SCENE_VERSION {
            return Err(self.refuse(
                "version",
                format!(
                    "unsupported scene version {} (this build reads version 1)",
                    self.version
                ),
            ));
        }
        c.finite("gravity[0]", self.gravity[0])?;
        c.finite("gravity[1]", self.gravity[1])?;
        self.validate_walls(&c)?;
        self.validate_wall_lines(&c)?;
        self.validate_grain_sizes(&c)?;
        self.validate_emitters(&c)?;
        self.validate_fill(&c)?;
        self.validate_solver(&c)?;
        self.validate_friction(&c)?;
        self.validate_contact_law(&c)?;
        self.validate_spring_impulse(&c)?;
        if let Some(co) = &self.cohesion {
            self.check_cohesion(&c, co)?;
        }
        self.validate_crowd(&c)?;
        self.validate_dem(&c)?;
        self.validate_run(&c)
    }

    /// The error about `field` of this scene.
    fn refuse(&self, field: &str, problem: impl Into<String>) -> Error {
        Error::field(&self.origin, field, problem)
    }

    /// `[walls]`: one source of walls, a gate only with `segments`, the
    /// parametric hourglass's sizes.
    fn validate_walls(&self, c: &Check<'_>) -> Result<()> {
        let w = &self.walls;
        let given = [w.mesh.is_some(), w.hourglass.is_some(), w.segments.is_some()];
        if given.iter().filter(|&&b| b).count() > 1 {
            return Err(self.refuse("walls", "give only one of `mesh`, `hourglass`, `segments`"));
        }
        if w.mesh.as_ref().is_some_and(|m| m.as_os_str().is_empty()) {
            return Err(self.refuse("walls.mesh", "is empty: give the path of a .msh file"));
        }
        if w.gate.is_some() && w.segments.is_none() {
            return Err(self.refuse(
                "walls.gate",
                "only goes with `segments` (a mesh names its gate with the physical group `gate`)",
            ));
        }
        if let Some(h) = &w.hourglass {
            c.positive("walls.hourglass.width", h.width)?;
            c.length("walls.hourglass.width", h.width)?;
            c.positive("walls.hourglass.bulb_height", h.bulb_height)?;
            c.length("walls.hourglass.bulb_height", h.bulb_height)?;
            c.positive("walls.hourglass.neck", h.neck)?;
            c.positive("walls.hourglass.slope_deg", h.slope_deg)?;
            if h.slope_deg >= 90.0 {
                return Err(self.refuse("walls.hourglass.slope_deg", "must be < 90"));
            }
        }
        Ok(())
    }

    /// `[walls]`: the lines and points (segments, gate, neck, bounds) and
    /// the solid side of the segments.
    fn validate_wall_lines(&self, c: &Check<'_>) -> Result<()> {
        let w = &self.walls;
        if let Some(s) = &w.segments {
            c.all_lengths("walls.segments", s)?;
            if s.is_empty() {
                return Err(self.refuse("walls.segments", "is empty"));
            }
        }
        if let Some(g) = &w.gate {
            c.all_lengths("walls.gate", g)?;
        }
        if let Some(y) = w.neck_y {
            c.length("walls.neck_y", y)?;
        }
        if let Some(b) = w.bounds {
            for (k, v) in b.iter().enumerate() {
                c.finite(&format!("walls.bounds[{k}]"), *v)?;
            }
            if !(b[0] < b[2] && b[1] < b[3]) {
                return Err(self.refuse(
                    "walls.bounds",
                    format!("{b:?} is not [xmin, ymin, xmax, ymax] with xmin < xmax and ymin < ymax"),
                ));
            }
        }
        let Some(side) = &w.solid_side else {
            return Ok(());
        };
        let Some(segments) = &w.segments else {
            return Err(self.refuse("walls.solid_side", "only goes with `segments`"));
        };
        if let SolidSide::Each(sides) = side
            && sides.len() != segments.len()
        {
            return Err(self.refuse(
                "walls.solid_side",
                format!(
                    "lists {} sides for {} segments: give one side for all, or one per segment",
                    sides.len(),
                    segments.len()
                ),
            ));
        }
        Ok(())
    }

    /// `[grains]`: the radii of the fill, its density or mass (the lightest
    /// grain's inverse mass finite in single precision), and some grains
    /// to simulate.
    fn validate_grain_sizes(&self, c: &Check<'_>) -> Result<()> {
        let g = &self.grains;
        c.positive("grains.radius_mean", g.radius_mean)?;
        c.non_negative("grains.radius_std", g.radius_std)?;
        c.positive("grains.radius_min", g.radius_min)?;
        c.positive("grains.radius_max", g.radius_max)?;
        c.length("grains.radius_max", g.radius_max)?;
        if g.density.is_some() && g.mass.is_some() {
            return Err(self.refuse("grains.mass", "give `density` or `mass`, not both"));
        }
        if let Some(m) = g.mass {
            c.positive("grains.mass", m)?;
            c.mass("grains.mass", m)?;
        }
        if let Some(density) = g.density {
            c.positive("grains.density", density)?;
        }
        // The simulation runs in f32: the lightest grain's inverse mass must be finite there.
        let im = 1.0 / g.mass_of(g.radius_min);
        if !((im as f32).is_finite() && (im as f32) > 0.0 && ((g.radius_min * g.radius_min) as f32) > 0.0) {
            return Err(self.refuse(
                "grains.density",
                format!(
                    "density {} with radius_min {} gives grain masses outside single precision",
                    g.density.unwrap_or(DEFAULT_DENSITY),
                    g.radius_min
                ),
            ));
        }
        if g.radius_min > g.radius_max {
            return Err(self.refuse("grains.radius_min", "must not exceed radius_max"));
        }
        if g.radius_mean < g.radius_min || g.radius_mean > g.radius_max {
            return Err(self.refuse(
                "grains.radius_mean",
                format!(
                    "{} lies outside [radius_min, radius_max] = [{}, {}]",
                    g.radius_mean, g.radius_min, g.radius_max
                ),
            ));
        }
        if g.list.is_none() && g.count == 0 && self.emitters.is_empty() {
            return Err(self.refuse(
                "grains.count",
                "must be >= 1: a scene without grains has nothing to simulate (or give [[emitters]])",
            ));
        }
        Ok(())
    }

    /// `[[emitters]]`: each emitter's keys, and all their grains (with the
    /// fill's) addressable.
    fn validate_emitters(&self, c: &Check<'_>) -> Result<()> {
        let mut emitted = 0u64;
        for (k, e) in self.emitters.iter().enumerate() {
            self.validate_emitter(c, k, e)?;
            emitted = emitted.saturating_add(e.count);
        }
        if emitted > 0 && emitted.saturating_add(self.grains.count) > u64::from(crate::model::contact::BODY_INDEX_MASK)
        {
            return Err(self.refuse(
                "emitters",
                format!("{emitted} emitted grains are more than this build addresses"),
            ));
        }
        Ok(())
    }

    /// `emitters[k]`: where, how fast, how often, and one way to size its grains.
    fn validate_emitter(&self, c: &Check<'_>, k: usize, e: &EmitterSpec) -> Result<()> {
        let f = |key: &str| format!("emitters[{k}].{key}");
        c.length(&f("position"), e.position[0])?;
        c.length(&f("position"), e.position[1])?;
        c.finite(&f("velocity"), e.velocity[0])?;
        c.finite(&f("velocity"), e.velocity[1])?;
        c.non_negative(&f("jitter"), e.jitter)?;
        c.length(&f("jitter"), e.jitter)?;
        c.positive(&f("interval"), e.interval)?;
        c.non_negative(&f("start"), e.start)?;
        c.non_negative(&f("radius_std"), e.radius_std)?;
        match (e.radius, e.radius_mean) {
            (Some(r), None) => {
                c.positive(&f("radius"), r)?;
                c.length(&f("radius"), r)?;
            }
            (None, Some(r)) => {
                c.positive(&f("radius_mean"), r)?;
                c.length(&f("radius_mean"), r + 3.0 * e.radius_std)?;
            }
            _ => {
                return Err(self.refuse(
                    &f("radius"),
                    "give `radius` or `radius_mean` (with `radius_std`), exactly one",
                ));
            }
        }
        if e.radius.is_some() && e.radius_std > 0.0 {
            return Err(self.refuse(&f("radius_std"), "goes with `radius_mean`, not with a fixed `radius`"));
        }
        if e.count == 0 {
            return Err(self.refuse(&f("count"), "must be >= 1"));
        }
        Ok(())
    }

    /// `[grains]`: the fill's count addressable, its region, its explicit list.
    fn validate_fill(&self, c: &Check<'_>) -> Result<()> {
        let g = &self.grains;
        if g.count > u64::from(crate::model::contact::BODY_INDEX_MASK) {
            return Err(self.refuse(
                "grains.count",
                format!("{} is more grains than this build addresses", g.count),
            ));
        }
        if let Some(r) = g.region {
            c.all_lengths("grains.region", &[r])?;
            if r[0] >= r[2] || r[1] >= r[3] {
                return Err(self.refuse("grains.region", "must be [xmin, ymin, xmax, ymax] with min < max"));
            }
        }
        if let Some(list) = &g.list {
            self.validate_list(c, list)?;
        }
        Ok(())
    }

    /// `grains.list`: not empty, every row's position and radius a length,
    /// its radius positive in single precision, its mass (if given) a mass.
    fn validate_list(&self, c: &Check<'_>, list: &[Vec<f64>]) -> Result<()> {
        if list.is_empty() {
            return Err(self.refuse(
                "grains.list",
                "is empty: a scene without grains has nothing to simulate",
            ));
        }
        c.all_finite("grains.list", list)?;
        for (i, row) in list.iter().enumerate() {
            let field = format!("grains.list[{i}]");
            c.length(&field, row[0])?;
            c.length(&field, row[1])?;
            c.length(&field, row[4])?;
            if let Some(&m) = row.get(5) {
                c.mass(&field, m)?;
            }
            if row[4] <= 0.0 {
                return Err(self.refuse(&field, format!("radius must be > 0, got {}", row[4])));
            }
            if (row[4] as f32) < f32::MIN_POSITIVE {
                return Err(self.refuse(
                    &field,
                    format!("radius {:e} is too small for single precision (min 1.2e-38)", row[4]),
                ));
            }
        }
        Ok(())
    }

    /// `[solver]`: the step, the tolerances, the iterations and the contact lists.
    fn validate_solver(&self, c: &Check<'_>) -> Result<()> {
        let s = &self.solver;
        if let Some(dt) = s.dt {
            c.positive("solver.dt", dt)?;
        }
        c.positive("solver.tol", s.tol)?;
        c.positive("solver.alert", s.alert)?;
        c.positive("solver.omega", s.omega)?;
        if s.omega > 1.0 {
            return Err(self.refuse("solver.omega", format!("must be in (0, 1], got {}", s.omega)));
        }
        if let Some(relax) = s.overlap_relax {
            c.non_negative_f32("solver.overlap_relax", relax)?;
            if relax > 1.0 {
                return Err(self.refuse("solver.overlap_relax", format!("must be in [0, 1], got {relax}")));
            }
        }
        if s.itmax == 0 {
            return Err(self.refuse("solver.itmax", "must be >= 1"));
        }
        if s.contact_capacity == 0 || s.contact_capacity > 64 {
            return Err(self.refuse("solver.contact_capacity", "must be in 1..=64"));
        }
        Ok(())
    }

    /// `solver.mu`, `solver.mu_wall`: refused by the solvers without
    /// Coulomb friction in the NSCD projection.
    fn validate_friction(&self, c: &Check<'_>) -> Result<()> {
        let s = &self.solver;
        c.non_negative_f32("solver.mu", s.mu)?;
        c.non_negative_f32("solver.mu_wall", s.mu_wall)?;
        if s.mu > 0.0 || s.mu_wall > 0.0 {
            let field = if s.mu > 0.0 { "solver.mu" } else { "solver.mu_wall" };
            let refuse = match s.kind {
                SolverKind::Uzawa => Some("the uzawa solver carries no friction: use nlgs, jacobi, colored or apgd"),
                SolverKind::Seed => Some("the seed rule carries no friction: use nlgs, jacobi, colored or apgd"),
                SolverKind::Dem => Some("the DEM takes its friction from [dem] mu"),
                SolverKind::Spring => Some("the spring model takes its friction from [spring] mu"),
                SolverKind::Impulse => Some("the impulse model is frictionless"),
                _ => None,
            };
            if let Some(why) = refuse {
                return Err(self.refuse(field, why));
            }
        }
        Ok(())
    }

    /// What belongs to one family of contact laws only: restitution and
    /// forcing to the NSCD solvers, an integrator to the explicit models;
    /// and the impulse model on the CPU only.
    fn validate_contact_law(&self, c: &Check<'_>) -> Result<()> {
        let s = &self.solver;
        c.non_negative_f32("solver.restitution", s.restitution)?;
        if s.restitution > 1.0 {
            return Err(self.refuse(
                "solver.restitution",
                format!("restitution must be in [0, 1], got {}", s.restitution),
            ));
        }
        if s.restitution > 0.0 && s.kind.explicit() {
            return Err(self.refuse(
                "solver.restitution",
                format!(
                    "restitution belongs to the NSCD solvers; `{}` has its own contact law (the impulse model: impulse.e)",
                    s.kind.name()
                ),
            ));
        }
        c.non_negative_f32("forcing.sigma", self.forcing.sigma)?;
        if self.forcing.sigma > 0.0 && s.kind.explicit() {
            return Err(self.refuse(
                "forcing.sigma",
                format!(
                    "stochastic forcing acts on the NSCD free velocity; `{}` has none (use an NSCD solver)",
                    s.kind.name()
                ),
            ));
        }
        if s.integrator.is_some() && !s.kind.explicit() {
            return Err(self.refuse(
                "solver.integrator",
                format!(
                    "only the explicit models (dem, spring, impulse) take an integrator; `{}` integrates with its own implicit step",
                    s.kind.name()
                ),
            ));
        }
        if s.kind == SolverKind::Impulse && self.run.backend == BackendChoice::Gpu {
            // Refused while the scene is checked, before a result directory is claimed.
            return Err(self.refuse("solver.kind", IMPULSE_ON_GPU));
        }
        Ok(())
    }

    /// `[spring]` and `[impulse]`: stiffness, damping, friction, restitution
    /// in [0, 1] and a projection in [0, 1).
    fn validate_spring_impulse(&self, c: &Check<'_>) -> Result<()> {
        let sp = &self.spring;
        c.positive("spring.ks", sp.ks)?;
        c.non_negative_f32("spring.kd", sp.kd)?;
        c.non_negative_f32("spring.kt", sp.kt)?;
        c.non_negative_f32("spring.mu", sp.mu)?;
        c.non_negative_f32("spring.mu_roll", sp.mu_roll)?;
        c.positive("spring.cfl", sp.cfl)?;
        let im = &self.impulse;
        c.non_negative_f32("impulse.e", im.e)?;
        if im.e > 1.0 {
            return Err(self.refuse("impulse.e", format!("restitution must be in [0, 1], got {}", im.e)));
        }
        c.non_negative_f32("impulse.kp", im.kp)?;
        if im.kp >= 1.0 || (im.kp as f32) >= 1.0 {
            return Err(self.refuse("impulse.kp", format!("projection must be in [0, 1), got {}", im.kp)));
        }
        Ok(())
    }

    /// `[dem]`: stiffness, damping, friction, the step's CFL and the relaxation's tolerances.
    fn validate_dem(&self, c: &Check<'_>) -> Result<()> {
        let d = &self.dem;
        if let Some(kn) = d.kn {
            c.positive("dem.kn", kn)?;
        }
        c.non_negative_f32("dem.kt", d.kt)?;
        c.non_negative_f32("dem.gamma_n", d.gamma_n)?;
        c.non_negative_f32("dem.gamma_relax", d.gamma_relax)?;
        c.non_negative_f32("dem.mu", d.mu)?;
        c.non_negative_f32("dem.mu_roll", d.mu_roll)?;
        c.positive("dem.cfl", d.cfl)?;
        c.positive("dem.relax_v_tol", d.relax_v_tol)?;
        c.positive("dem.relax_w_tol", d.relax_w_tol)?;
        self.check_dem_law(c)
    }

    /// `[run]`: a duration or a step count, the row interval, the settle phase.
    fn validate_run(&self, c: &Check<'_>) -> Result<()> {
        let r = &self.run;
        if r.duration.is_some() && r.steps.is_some() {
            return Err(self.refuse("run", "give `duration` or `steps`, not both"));
        }
        if let Some(d) = r.duration {
            c.non_negative("run.duration", d)?;
        }
        if r.every == 0 {
            return Err(self.refuse("run.every", "must be >= 1"));
        }
        c.non_negative("run.settle", r.settle)?;
        c.positive("run.settle_speed", r.settle_speed)
    }

    /// `[crowd]`, and the keys crowd motion refuses (gravity, friction, a gate).
    fn validate_crowd(&self, c: &Check<'_>) -> Result<()> {
        if let Some(cr) = &self.crowd {
            c.positive("crowd.speed", cr.speed)?;
            c.positive("crowd.cell", cr.cell)?;
            if let Some(d) = cr.door {
                for (k, v) in d.iter().enumerate() {
                    c.length(&format!("crowd.door[{k}]"), *v)?;
                }
                if (d[2] - d[0]).hypot(d[3] - d[1]) as f32 <= 0.0 {
                    return Err(self.refuse("crowd.door", "the door has zero length"));
                }
            }
        }
        if self.solver.kind != SolverKind::Crowd {
            if self.crowd.is_some() {
                return Err(self.refuse(
                    "crowd",
                    format!(
                        "[crowd] is read by solver.kind = \"crowd\" only, and the solver is `{}`: remove [crowd] or set solver.kind = \"crowd\"",
                        self.solver.kind.name()
                    ),
                ));
            }
            return Ok(());
        }
        if self.crowd.as_ref().and_then(|cr| cr.door).is_none() {
            return Err(self.refuse(
                "crowd.door",
                "solver.kind = \"crowd\" needs a door: [crowd] door = [x0, y0, x1, y1]",
            ));
        }
        self.refuse_in_crowd()
    }

    /// With `solver.kind = "crowd"`: the keys of grains that a room seen
    /// from above has no use for, each refused by name.
    fn refuse_in_crowd(&self) -> Result<()> {
        if self.gravity != [0.0, 0.0] {
            return Err(self.refuse(
                "gravity",
                "crowd motion is a room seen from above: set gravity = [0.0, 0.0]",
            ));
        }
        if self.solver.mu > 0.0 || self.solver.mu_wall > 0.0 {
            let field = if self.solver.mu > 0.0 {
                "solver.mu"
            } else {
                "solver.mu_wall"
            };
            return Err(self.refuse(field, "crowd motion is frictionless"));
        }
        // First order, no inertia: the free velocity is the wish, so a
        // bounce (taken from the step's start velocity), a random kick or
        // a capillary pull would act on what people want, not on their motion.
        if self.solver.restitution > 0.0 {
            return Err(self.refuse(
                "solver.restitution",
                "crowd motion has no inertia: people do not bounce (set 0)",
            ));
        }
        if self.forcing.sigma > 0.0 {
            return Err(self.refuse(
                "forcing.sigma",
                "crowd motion has no inertia: stochastic forcing applies to the NSCD models of grains",
            ));
        }
        if self.cohesion.is_some() {
            return Err(self.refuse("cohesion", "crowd motion has no capillary bridges: remove [cohesion]"));
        }
        if self.walls.gate.is_some() {
            return Err(self.refuse("walls.gate", "crowd motion has no gate (people leave by [crowd] door)"));
        }
        if self.run.backend == BackendChoice::Gpu {
            return Err(self.refuse("solver.kind", CROWD_ON_GPU));
        }
        Ok(())
    }
}

impl Scene {
    /// `[dem] law` names a law of `model::law::LAWS` that `[dem]` may take, and
    /// its own parameters lie within the bounds it declares; a law parameter
    /// given to a law that does not take it is refused.
    fn check_dem_law(&self, c: &Check) -> Result<()> {
        let d = &self.dem;
        let spec = match d.law.as_deref() {
            None => crate::model::law::spec(crate::model::NormalLaw::Hertz),
            Some(name) => crate::model::law::by_name(name).ok_or_else(|| {
                let names: Vec<&str> = crate::model::law::LAWS
                    .iter()
                    .filter(|s| s.dem)
                    .map(|s| s.name)
                    .collect();
                Error::field(
                    &self.origin,
                    "dem.law",
                    format!("unknown law `{name}` (one of: {})", names.join(", ")),
                )
            })?,
        };
        for key in super::DemSpec::LAW_PARAMS {
            let Some(v) = d.law_param(key) else { continue };
            let field = format!("dem.{key}");
            let Some(p) = spec.params.iter().find(|p| p.key == *key) else {
                return Err(Error::field(
                    &self.origin,
                    &field,
                    format!("the `{}` law takes no {key}", spec.name),
                ));
            };
            c.finite(&field, v)?;
            if !p.admits(v) {
                return Err(Error::field(
                    &self.origin,
                    &field,
                    format!("must be in [{}, {}), got {v}", p.min, p.max),
                ));
            }
        }
        Ok(())
    }

    /// `[cohesion]`: every key finite, in range, and the rupture gap within
    /// the alert distance (detection lists only the pairs closer than
    /// `solver.alert`, so a wider bridge would be missed).
    fn check_cohesion(&self, c: &Check, co: &super::CohesionSpec) -> Result<()> {
        c.non_negative_f32("cohesion.gamma", co.gamma)?;
        c.non_negative_f32("cohesion.a", co.a)?;
        c.finite("cohesion.b", co.b)?;
        c.finite("cohesion.c", co.c)?;
        c.positive("cohesion.rupture", co.rupture)?;
        if co.b > 80.0 {
            return Err(Error::field(
                &self.origin,
                "cohesion.b",
                format!("exp(b) overflows single precision above 80, got {}", co.b),
            ));
        }
        if co.rupture > self.solver.alert {
            return Err(Error::field(
                &self.origin,
                "cohesion.rupture",
                format!(
                    "{} m exceeds solver.alert = {} m: contacts are detected only within the alert distance, so raise solver.alert to at least the rupture gap",
                    co.rupture, self.solver.alert
                ),
            ));
        }
        let at_rupture = (co.b - co.a * co.rupture).exp() + co.c;
        if at_rupture < 0.0 {
            return Err(Error::field(
                &self.origin,
                "cohesion.c",
                format!("the bridge would push below the rupture gap: exp(b - a rupture) + c = {at_rupture:.3e} < 0"),
            ));
        }
        if self.solver.kind.explicit() {
            return Err(Error::field(
                &self.origin,
                "cohesion",
                format!(
                    "capillary cohesion acts in the NSCD projection only; `{}` refuses [cohesion] (use nlgs, jacobi, colored, uzawa or apgd)",
                    self.solver.kind.name()
                ),
            ));
        }
        Ok(())
    }
}
