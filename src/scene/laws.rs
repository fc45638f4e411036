//! The contact laws and step of a scene (`scene::build`'s part): the time
//! step (the CFL rule of the force laws, or the walls' height), the DEM's
//! stiffness, the push-out fraction, the overlap target of the NSCD
//! tolerance, and the parameters every backend steps with.

use super::checks::{Line, bbox, check_dt};
use super::placed::Placed;
use super::spec::*;
use crate::error::Result;
use crate::model::accuracy::OverlapTarget;
use crate::model::law;
use crate::model::{DemParams, Dim3, Grains, ImpulseParams, Integrator, NormalLaw, SolverKind, Space, StepParams};

/// Mean radius of `grains`, m (0 for none).
pub(super) fn radius_mean<S: Space>(grains: &Grains<S>) -> f64 {
    grains.radius.iter().map(|&r| f64::from(r)).sum::<f64>() / grains.len().max(1) as f64
}

/// The step's parameters and the contact laws of the explicit models.
pub(super) struct Laws {
    pub(super) params: StepParams,
    pub(super) target: Option<OverlapTarget>,
    pub(super) dem: DemParams,
    pub(super) impulse: ImpulseParams,
}

impl Laws {
    /// Resolve k_n, the integrator, dt (refused below [`MIN_DT`]) and the
    /// push-out fraction for every grain of the run (`all`), writing what
    /// they resolve to into `resolved`.
    pub(super) fn resolve(scene: &Scene, all: &Grains, placed: &Placed, resolved: &mut Scene) -> Result<Laws> {
        let kn = dem_kn(&scene.dem, all, equivalent_density(all), scene.gravity);
        let integrator = integrator(scene, resolved, kn);
        let dt = scene.solver.dt.unwrap_or_else(|| automatic_dt(scene, all, kn, placed));
        check_dt(dt, kn, scene, &placed.walls, &placed.gate, &scene.origin)?;
        Ok(Laws::at(scene, resolved, kn, integrator, dt, radius_mean(all)))
    }

    /// [`Laws::resolve`] for a 3D scene (validated): k_n is `dem.kn`, dt is
    /// `solver.dt` or, for the DEM and the spring model, their CFL rule.
    pub(super) fn resolve3d(scene: &Scene, all: &Grains<Dim3>, resolved: &mut Scene) -> Result<Laws> {
        let kn = scene.dem.kn.unwrap_or(COURSE_KN);
        let integrator = integrator(scene, resolved, kn);
        let dt = match (scene.solver.dt, scene.solver.kind) {
            (Some(dt), _) => dt,
            (None, SolverKind::Dem) => dem_dt(all, kn, scene.dem.cfl),
            (None, SolverKind::Spring) => dem_dt(all, scene.spring.ks, scene.spring.cfl),
            (None, _) => {
                return Err(crate::error::Error::field(
                    &scene.origin,
                    "solver.dt",
                    "a 3D scene states its time step (s)",
                ));
            }
        };
        Ok(Laws::at(scene, resolved, kn, integrator, dt, radius_mean(all)))
    }

    /// The laws at step `dt` (s) and stiffness `kn`, with the push-out
    /// fraction and the overlap target for grains of mean radius `r_mean`
    /// (m), written into `resolved`.
    fn at(scene: &Scene, resolved: &mut Scene, kn: f64, integrator: Integrator, dt: f64, r_mean: f64) -> Laws {
        let s = &scene.solver;
        resolved.solver.dt = Some(dt);
        let relax = overlap_relax(scene, resolved);
        let target = s.overlap_share().map(|share| {
            resolved.solver.max_overlap = Some(share);
            OverlapTarget::new(share, r_mean)
        });
        let tol = target.map_or(s.tol_or_default(), |t| f64::from(t.tol_hi()));
        Laws {
            params: step_params(scene, dt, relax, tol),
            target,
            dem: dem_params(scene, kn, integrator),
            impulse: ImpulseParams {
                e: scene.impulse.e as f32,
                kp: scene.impulse.kp as f32,
                integrator,
            },
        }
    }
}

/// The integrator of `scene`'s solver, and its k_n, written into
/// `resolved` (the integrator only for an explicit model).
fn integrator(scene: &Scene, resolved: &mut Scene, kn: f64) -> Integrator {
    resolved.dem.kn = Some(kn);
    let s = &scene.solver;
    let integrator = s.integrator.unwrap_or(s.kind.default_integrator());
    if s.kind.explicit() {
        resolved.solver.integrator = Some(integrator);
    }
    integrator
}

/// The time step when `solver.dt` is not given: the CFL rule of the force
/// laws, crowd motion's walking pace, or [`default_dt`] for the NSCD solvers.
fn automatic_dt(scene: &Scene, all: &Grains, kn: f64, placed: &Placed) -> f64 {
    let s = &scene.solver;
    match s.kind {
        SolverKind::Dem => dem_dt(all, kn, scene.dem.cfl),
        // The same CFL rule with the linear stiffness: a period of the
        // lightest grain on a wall is 2 pi sqrt(m/k_s), ~60 steps at 0.1.
        SolverKind::Spring => dem_dt(all, scene.spring.ks, scene.spring.cfl),
        // Crowd motion: the fastest person crosses 0.8 of the alert distance.
        SolverKind::Crowd => {
            let speed = scene.crowd.as_ref().map_or(1.0, |c| c.speed);
            CROWD_MAX_DT.min(0.8 * s.alert / speed)
        }
        _ => default_dt(&placed.walls, &placed.gate, scene.gravity, s.alert),
    }
}

/// The push-out fraction: `solver.overlap_relax`, else its solver's. The
/// one a scene leaves unset is written into `resolved` when the solver or
/// the backend is named; `auto` on both is resolved by the backend that
/// runs it (StepParams::resolved), and the written scene then omits it.
fn overlap_relax(scene: &Scene, resolved: &mut Scene) -> f64 {
    let s = &scene.solver;
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
    s.overlap_relax.unwrap_or(relax_by.overlap_relax(wet))
}

/// The step's parameters in single precision, with step `dt`, push-out
/// fraction `relax` and tolerance `tol` (m).
fn step_params(scene: &Scene, dt: f64, relax: f64, tol: f64) -> StepParams {
    let s = &scene.solver;
    StepParams {
        gravity: [scene.gravity[0] as f32, scene.gravity[1] as f32],
        dt: dt as f32,
        alert: s.alert as f32,
        tol: tol as f32,
        itmax: s.itmax,
        omega: s.omega as f32,
        overlap_relax: relax as f32,
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
    }
}

/// The force law of the DEM (`[dem]`, Hertz, stiffness `kn`) or, for the
/// spring model, of `[spring]` (linear), with `integrator`.
fn dem_params(scene: &Scene, kn: f64, integrator: crate::model::Integrator) -> DemParams {
    let d = &scene.dem;
    let dem = DemParams {
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
    if scene.solver.kind != SolverKind::Spring {
        return dem;
    }
    // The spring model runs on the DEM's stages with the linear law; it
    // has no relaxation phase of its own, so one dashpot serves both phases.
    let sp = &scene.spring;
    DemParams {
        kn: sp.ks as f32,
        kt: sp.kt as f32,
        gamma_n: sp.kd as f32,
        gamma_relax: sp.kd as f32,
        mu: sp.mu as f32,
        mu_roll: sp.mu_roll as f32,
        law: NormalLaw::Linear,
        ..dem
    }
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
fn default_dt(walls: &[Line], gate: &[Line], gravity: [f64; 2], alert: f64) -> f64 {
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
    let r = radius_mean(grains);
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

/// The DEM time step (docs/dem.md): dt = cfl * min_i sqrt(m_i / k_n), s
/// ([`MAX_DEFAULT_DT`] without movable grains).
pub fn dem_dt<S: Space>(grains: &Grains<S>, kn: f64, cfl: f64) -> f64 {
    let m_min = (0..grains.len())
        .filter(|&i| grains.inv_mass[i] > 0.0)
        .map(|i| grains.mass(i))
        .fold(f64::INFINITY, f64::min);
    let dt = cfl * (m_min / kn).sqrt();
    if dt.is_finite() && dt > 0.0 { dt } else { MAX_DEFAULT_DT }
}
