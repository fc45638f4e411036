//! The emitters' part of a run (docs/lab.md): at every step, each emitter
//! whose next grain is due adds it when its spot is free (no overlap with a
//! grain or a wall); a grain whose spot is taken waits for a later step,
//! counted once in summary.json (`emissions_waited`). The grains themselves
//! were drawn when the scene was built (`scene::emit`).

use super::{Run, RunSpace};
use crate::backend::Backend;
use crate::error::Result;
use crate::model::Grains;

impl<S: RunSpace> Run<S> {
    /// Add the emitters' grains due at `time` (s) whose spot is free: one per
    /// emitter and step at most; a grain whose spot is taken waits (counted once).
    pub(super) fn emit(&mut self, backend: &mut dyn Backend<S>, time: f64) -> Result<()> {
        let dt = f64::from(self.p.dt);
        if !(0..self.emitters.len()).any(|e| self.emitters[e].due(self.emitted[e], time, dt)) {
            return Ok(());
        }
        let walls = &self.walls_now;
        let now = backend.grains()?;
        let mut new = Grains::default();
        for (e, emitter) in self.emitters.iter().enumerate() {
            let k = self.emitted[e];
            if !emitter.due(k, time, dt) {
                continue;
            }
            let mut g = emitter.grain(k);
            if S::occupied(g.pos[0], g.radius[0], now, walls)
                || S::occupied(g.pos[0], g.radius[0], &new, &S::Walls::default())
            {
                if !self.waiting[e] {
                    self.waiting[e] = true;
                    self.emissions_waited += 1;
                }
                continue;
            }
            g.id[0] = (self.n + new.len() as u64) as u32;
            new.extend(&g);
            self.emitted[e] += 1;
            self.waiting[e] = false;
        }
        if !new.is_empty() {
            backend.add_grains(&new)?;
            self.n += new.len() as u64;
        }
        Ok(())
    }
}
