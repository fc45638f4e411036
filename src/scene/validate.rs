//! Field checks: every number in its domain, named in the error.

use super::limits::MAX_LENGTH;
use super::spec::*;
use crate::error::{Error, Result};
use crate::model::SolverKind;

mod models;
mod motion;
pub mod space3d;

pub use space3d::GPU_SOLVERS_3D;

/// Why a 3D scene whose solver is not one of [`GPU_SOLVERS_3D`] is refused
/// on `--backend gpu` (NLGS's sequential sweep and the impulse model have no
/// GPU stage: `colored` is NLGS on the GPU).
pub const SOLID_ON_GPU: &str =
    "in 3D the GPU runs the dem, spring, jacobi, colored, uzawa and apgd solvers only (use --backend cpu)";

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
        self.validate_dimension(&c)?;
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
        self.validate_motion(&c)?;
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
        if let Some(p) = w.periodic_x {
            for (k, v) in p.iter().enumerate() {
                c.finite(&format!("walls.periodic_x[{k}]"), *v)?;
            }
            // Finite (above): an ordered pair, and a period that is not zero in f32.
            if p[1] <= p[0] || (p[1] - p[0]) as f32 <= 0.0 {
                return Err(self.refuse(
                    "walls.periodic_x",
                    format!("{p:?} is not [xmin, xmax] with xmin < xmax"),
                ));
            }
            if self.solver.kind == SolverKind::Crowd {
                return Err(self.refuse(
                    "walls.periodic_x",
                    "periodic boundaries do not run with the crowd model (solver.kind = \"crowd\")",
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
        if let Some(tol) = s.tol {
            c.positive("solver.tol", tol)?;
        }
        self.validate_max_overlap(c)?;
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
}
