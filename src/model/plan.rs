//! The step plan: the ordered stages of one step, built from the step's
//! parameters alone and run by both backends (`cpu::CpuStepper::step` and
//! `cpu::dem::DemStepper::step` stage by stage, `gpu::step` as one recording
//! per stage), so that the two take the same steps in the same order and a
//! step can change hands at any stage boundary (`backend::bisect`).
//!
//! ```text
//!   NSCD:  FreeVelocity [SpinFree] Detect [Cohesion] [WarmStart] [Bounce] Solve [PushOut] Integrate [IntegrateAngle]
//!   DEM:   KDK    [DemPrime] DemKickDrift Detect DemForce DemKick
//!          Euler  Detect DemForce DemKick DemKickDrift
//! ```

use super::{DemParams, SolverKind, StepParams};
use crate::error::{Error, Result};

/// One stage of a step. Each stage states what it reads and what it writes;
/// "the lists" are the step's contact lists, "the last lists" those of the
/// previous step with their final impulses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// Reads vel, inv_mass, gravity, dt (and, with `[forcing] sigma` > 0,
    /// id and the step count: the stochastic kick is part of this stage);
    /// writes the free velocities `vel_free`.
    FreeVelocity,
    /// Friction only. Reads the spins; writes `spin_free` (the spins before
    /// the contacts act).
    SpinFree,
    /// Binning and detection. Reads pos, radius, the walls and alert; writes
    /// the bins, the lists (zero impulses) and the contact counters.
    Detect,
    /// Capillary bridges (`[cohesion]`). Reads the lists, radius, inv_mass;
    /// writes `vel_free`.
    Cohesion,
    /// Reads the last lists; writes the lists' impulses (each contact found
    /// again starts from its last impulse).
    WarmStart,
    /// Restitution. Reads vel (the start-of-step velocities) and the lists;
    /// writes each contact's bounce velocity.
    Bounce,
    /// The contact solve. Reads `vel_free` (and `spin_free`), the lists,
    /// inv_mass, radius; writes the lists' impulses, vel (and the spins) and
    /// the step's statistics.
    Solve,
    /// The split push-out (`overlap_iterations` > 0 with `overlap_relax` > 0):
    /// the gap the step will leave, the correction iterations on it, then the
    /// shift. Reads the lists, vel, inv_mass; writes pos.
    PushOut,
    /// Reads vel; writes pos += dt vel.
    Integrate,
    /// Friction only. Reads the spins; writes angle += dt spin.
    IntegrateAngle,
    /// DEM, when the kept force is stale (first step, walls changed):
    /// detection and force at the current positions. Reads the grains and
    /// walls; writes the lists, force and torque.
    DemPrime,
    /// DEM. Reads force, torque, inv_mass, radius; writes vel and the spins
    /// (half kick), then pos (drift).
    DemKickDrift,
    /// DEM. Reads the lists, radius, inv_mass, vel, the spins and the law;
    /// writes force and torque.
    DemForce,
    /// DEM. Reads force, torque, inv_mass, radius; writes vel and the spins
    /// (half kick).
    DemKick,
}

/// Every stage of the NSCD step, in plan order (the stages a plan may hold).
pub const NSCD_STAGES: [Stage; 10] = [
    Stage::FreeVelocity,
    Stage::SpinFree,
    Stage::Detect,
    Stage::Cohesion,
    Stage::WarmStart,
    Stage::Bounce,
    Stage::Solve,
    Stage::PushOut,
    Stage::Integrate,
    Stage::IntegrateAngle,
];

/// Every stage of the DEM step (velocity Verlet's order).
pub const DEM_STAGES: [Stage; 5] = [
    Stage::DemPrime,
    Stage::DemKickDrift,
    Stage::Detect,
    Stage::DemForce,
    Stage::DemKick,
];

impl Stage {
    /// The stage's name (`"warm_start"`), as `HOURGLASS_GPU_FROM` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Stage::FreeVelocity => "free_velocity",
            Stage::SpinFree => "spin_free",
            Stage::Detect => "detect",
            Stage::Cohesion => "cohesion",
            Stage::WarmStart => "warm_start",
            Stage::Bounce => "bounce",
            Stage::Solve => "solve",
            Stage::PushOut => "push_out",
            Stage::Integrate => "integrate",
            Stage::IntegrateAngle => "integrate_angle",
            Stage::DemPrime => "dem_prime",
            Stage::DemKickDrift => "dem_kick_drift",
            Stage::DemForce => "dem_force",
            Stage::DemKick => "dem_kick",
        }
    }

    /// The stage named `name` ([`Stage::name`]).
    pub fn parse(name: &str) -> Option<Stage> {
        all().into_iter().find(|s| s.name() == name)
    }

    /// The stage named `name`, or an error naming `key` (where the name came
    /// from) and every stage name.
    pub fn parse_named(name: &str, key: &str) -> Result<Stage> {
        Stage::parse(name).ok_or_else(|| {
            Error::field(
                "environment",
                key,
                format!("`{name}` is not a stage; use one of {}", names(&all())),
            )
        })
    }
}

/// Every stage, each once: the NSCD plan's, then the DEM's own.
pub fn all() -> Vec<Stage> {
    let dem_own = DEM_STAGES.into_iter().filter(|s| !NSCD_STAGES.contains(s));
    NSCD_STAGES.into_iter().chain(dem_own).collect()
}

/// The names of `stages`, comma-separated.
pub fn names(stages: &[Stage]) -> String {
    stages.iter().map(|s| s.name()).collect::<Vec<_>>().join(", ")
}

/// The NSCD step of `p` (parameters as the backend resolved them,
/// `StepParams::resolved`).
pub fn nscd_plan(p: &StepParams) -> Vec<Stage> {
    let mut plan = vec![Stage::FreeVelocity];
    if p.friction() {
        plan.push(Stage::SpinFree);
    }
    plan.push(Stage::Detect);
    if p.cohesion.on() {
        plan.push(Stage::Cohesion);
    }
    // The seed rule only ever adds impulse, so it must start from zero.
    if p.warm_start && p.solver != SolverKind::Seed {
        plan.push(Stage::WarmStart);
    }
    if p.restitution > 0.0 {
        plan.push(Stage::Bounce);
    }
    plan.push(Stage::Solve);
    if p.overlap_iterations > 0 && p.overlap_relax != 0.0 {
        plan.push(Stage::PushOut);
    }
    plan.push(Stage::Integrate);
    if p.friction() {
        plan.push(Stage::IntegrateAngle);
    }
    plan
}

/// The DEM step of `dem.integrator`; `primed`: the kept force belongs to the
/// current positions and walls (velocity Verlet then needs no priming).
/// Semi-implicit Euler from the same stages: with one force, kick
/// (v += h/2 a) then kick-drift (v += h/2 a; x += h v) is v += h a; x += h v.
pub fn dem_plan(dem: &DemParams, primed: bool) -> Vec<Stage> {
    use Stage::*;
    if !dem.integrator.kdk() {
        return vec![Detect, DemForce, DemKick, DemKickDrift];
    }
    let mut plan = Vec::with_capacity(5);
    if !primed {
        plan.push(DemPrime);
    }
    plan.extend([DemKickDrift, Detect, DemForce, DemKick]);
    plan
}

/// Where a step of `plan` changes hands when the second backend takes over
/// at `from`: the index of `from` in `plan`, or, when this step does not run
/// `from`, of the first stage after it in `model`'s order (`model`: every
/// stage of the plan's model, [`NSCD_STAGES`] or [`DEM_STAGES`]). Stages
/// before the index run on the first backend, the others on the second.
pub fn split(plan: &[Stage], model: &[Stage], from: Stage) -> usize {
    if let Some(i) = plan.iter().position(|&s| s == from) {
        return i;
    }
    let rank = |s: Stage| model.iter().position(|&m| m == s).unwrap_or(usize::MAX);
    plan.iter().position(|&s| rank(s) > rank(from)).unwrap_or(plan.len())
}

/// `from` as a boundary of `model` ([`NSCD_STAGES`] or [`DEM_STAGES`],
/// `what` naming it), or an error naming `key` and the model's stages.
pub fn check_boundary(from: Stage, model: &[Stage], what: &str, key: &str) -> Result<Stage> {
    if model.contains(&from) {
        return Ok(from);
    }
    Err(Error::field(
        "environment",
        key,
        format!(
            "`{}` is not a stage of the {what} step; use one of {}",
            from.name(),
            names(model)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stage_has_one_name_and_parses_back() {
        for s in all() {
            assert_eq!(Stage::parse(s.name()), Some(s));
        }
        let mut n: Vec<&str> = all().iter().map(|s| s.name()).collect();
        n.sort_unstable();
        n.dedup();
        assert_eq!(n.len(), 14);
        assert!(NSCD_STAGES.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_stage_the_step_skips_hands_over_at_the_next_one() {
        let plan = [Stage::FreeVelocity, Stage::Detect, Stage::Solve, Stage::Integrate];
        assert_eq!(split(&plan, &NSCD_STAGES, Stage::Detect), 1);
        assert_eq!(split(&plan, &NSCD_STAGES, Stage::Cohesion), 2);
        assert_eq!(split(&plan, &NSCD_STAGES, Stage::IntegrateAngle), 4);
        let euler = [Stage::Detect, Stage::DemForce, Stage::DemKick, Stage::DemKickDrift];
        assert_eq!(split(&euler, &DEM_STAGES, Stage::DemPrime), 0);
        assert_eq!(split(&euler, &DEM_STAGES, Stage::DemKickDrift), 3);
    }
}
