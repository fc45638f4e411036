//! What a run writes at an output step: the diagnostics row, the frame and
//! state.json (the latter only while every grain is inside), and the error
//! of a run that lost grains.

use super::{Run, RunSpace, STATE_VERSION, State};
use crate::backend::Backend;
use crate::backend::census::Look;
use crate::backend::census::barycentre;
use crate::error::{Error, Result};
use crate::model::{Grains, SolverKind, Totals, rotational_kinetic_energy};
use crate::output::{ResultDir, Row};

impl<S: RunSpace> Run<S> {
    /// One diagnostics row and one frame at `step`; the state saved with
    /// them while every grain is inside.
    pub(super) fn output(
        &mut self,
        backend: &mut dyn Backend<S>,
        out: &mut ResultDir,
        step: u64,
        time: f64,
    ) -> Result<Totals> {
        let t = backend.totals(&self.region)?;
        if !(t.kinetic_energy.is_finite() && t.potential_energy.is_finite()) {
            return Err(Error::Diverged {
                step,
                problem: "non-finite energy: the state has blown up (lower dt)".to_string(),
            });
        }
        self.tally.max_overlap = self.tally.max_overlap.max(t.max_overlap);
        // The frame's grains (in id order, with their angular velocities):
        // the rotational energy is summed from them on the host, for every
        // backend alike (the `reduce` stage sums the translational part).
        if self.looked != Some(step) {
            // A last row off the census's steps: what touches now.
            self.look(backend, true)?;
        }
        let grains = backend.grains()?;
        self.overlaps.sample(self.census.lists(grains, &self.walls_now));
        out.row(&self.row(&t, grains, step, time))?;
        out.frame(time, grains)?;
        if self.motion.is_some() {
            out.moving_walls(out.frame_count() - 1, &self.walls_now)?;
        }
        self.times.push(time);
        self.passed.push(t.passed);
        if t.lost > 0 {
            return Err(self.lost(step, t.lost));
        }
        // Only a state with every grain inside: a run that lost grains stays
        // resumable from its last good row.
        let state = self.state(step, grains, out);
        let state = State {
            backend_steps: backend.step_count(),
            contacts: backend
                .saved_contacts()
                .and_then(|(lists, order)| S::save(lists, order)),
            ..state
        };
        out.state(&state)?;
        Ok(t)
    }

    /// The diagnostics row at `step` from the totals `t` and the frame's
    /// `grains`; it takes the collisions counted since the last row and
    /// starts the next row's mean of iterations.
    fn row(&mut self, t: &Totals, grains: &Grains<S>, step: u64, time: f64) -> Row {
        let rotational = rotational_kinetic_energy(grains);
        let elastic = self.touching.elastic_energy;
        let (grain_collisions, wall_collisions) = self.census.take();
        let tally = &mut self.tally;
        let row = Row {
            step,
            time,
            grains: self.n - t.lost,
            passed: t.passed,
            kinetic_energy: t.kinetic_energy,
            potential_energy: t.potential_energy,
            momentum: t.momentum,
            contacts: t.contacts.unwrap_or(tally.last.contacts),
            iterations: tally.since_row_iterations as f64 / tally.since_row_steps.max(1) as f64,
            residual: f64::from(tally.last.residual),
            max_overlap: t.max_overlap,
            rotational_kinetic_energy: rotational,
            elastic_energy: elastic,
            total_energy: t.kinetic_energy + rotational + t.potential_energy + elastic,
            barycentre: barycentre(grains),
            grain_collisions,
            wall_collisions,
        };
        tally.since_row_iterations = 0;
        tally.since_row_steps = 0;
        row
    }

    /// The run diverged at `step`: `lost` grains left through the walls.
    pub(super) fn lost(&self, step: u64, lost: u64) -> Error {
        // Name the key that holds grains inside the walls in this model.
        let hint = match self.p.solver {
            SolverKind::Dem => "lower solver.dt, or stiffen dem.kn",
            SolverKind::Spring => "lower solver.dt, or stiffen spring.ks",
            SolverKind::Impulse => "lower solver.dt, or raise impulse.kp",
            // NSCD and crowd motion: a contact missed between two detections.
            _ => "lower solver.dt, or raise solver.alert",
        };
        Error::Diverged {
            step,
            problem: format!("{lost} of {} grains lost through the walls ({hint})", self.n),
        }
    }

    /// What state.json holds at `step` with the frame's `grains`, but the
    /// backend's step count and contact lists.
    fn state(&self, step: u64, grains: &Grains<S>, out: &ResultDir) -> State<S> {
        State {
            version: STATE_VERSION,
            step,
            backend_steps: 0,
            settling: self.settling,
            settle_steps: self.settle_steps,
            discharge_steps: self.discharge_steps,
            discharge_start: self.discharge_start,
            speed: self.speed,
            grains: grains.clone(),
            emitted: self.emitted.clone(),
            waiting: self.waiting.clone(),
            emissions_waited: self.emissions_waited,
            tally: self.tally.clone(),
            times: self.times.clone(),
            passed: self.passed.clone(),
            overlaps: self.overlaps.bins(),
            frames: out.frames().to_vec(),
            contacts: None,
        }
    }
}
