//! The checks of the model-specific tables of a scene (`[dem]` and its
//! contact law, `[spring]`, `[impulse]`, `[cohesion]`, `[crowd]`) and of
//! what belongs to one family of models only; `Scene::validate` calls them
//! in its order.

use super::*;

impl Scene {
    /// What belongs to one family of contact laws only: restitution and
    /// forcing to the NSCD solvers, an integrator to the explicit models;
    /// and the impulse model on the CPU only.
    pub(super) fn validate_contact_law(&self, c: &Check<'_>) -> Result<()> {
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

    /// `solver.max_overlap`: a share of the mean radius in (0, 0.5], for
    /// the NSCD solvers, and not beside `solver.tol` (which fixes what it
    /// would adapt).
    pub(super) fn validate_max_overlap(&self, c: &Check<'_>) -> Result<()> {
        let s = &self.solver;
        let Some(share) = s.max_overlap else {
            return Ok(());
        };
        c.positive("solver.max_overlap", share)?;
        if share > 0.5 {
            return Err(self.refuse(
                "solver.max_overlap",
                format!("is a fraction of the mean radius in (0, 0.5], got {share}"),
            ));
        }
        if !s.kind.nscd() {
            return Err(self.refuse(
                "solver.max_overlap",
                format!(
                    "adapts the NSCD solve's tolerance; `{}` has no such solve (its overlap follows its own law)",
                    s.kind.name()
                ),
            ));
        }
        if s.tol.is_some() {
            return Err(self.refuse(
                "solver.max_overlap",
                "give `solver.tol` (a fixed tolerance) or `solver.max_overlap` (a tolerance adapted to it), not both",
            ));
        }
        Ok(())
    }

    /// `[spring]` and `[impulse]`: stiffness, damping, friction, restitution
    /// in [0, 1] and a projection in [0, 1).
    pub(super) fn validate_spring_impulse(&self, c: &Check<'_>) -> Result<()> {
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
    pub(super) fn validate_dem(&self, c: &Check<'_>) -> Result<()> {
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

    /// `[crowd]`, and the keys crowd motion refuses (gravity, friction, a gate).
    pub(super) fn validate_crowd(&self, c: &Check<'_>) -> Result<()> {
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
    pub(super) fn refuse_in_crowd(&self) -> Result<()> {
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

    /// `[dem] law` names a law of `model::law::LAWS` that `[dem]` may take, and
    /// its own parameters lie within the bounds it declares; a law parameter
    /// given to a law that does not take it is refused.
    pub(super) fn check_dem_law(&self, c: &Check) -> Result<()> {
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
    pub(super) fn check_cohesion(&self, c: &Check, co: &super::CohesionSpec) -> Result<()> {
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
                    "capillary cohesion acts in the NSCD projection only; `{}` refuses [cohesion] (use nlgs, jacobi, uzawa or apgd)",
                    self.solver.kind.name()
                ),
            ));
        }
        Ok(())
    }
}
