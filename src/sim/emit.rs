//! The emitters' part of a run (docs/lab.md): at every step, each emitter
//! whose next grain is due adds it when its spot is free (no overlap with a
//! grain or a wall); a grain whose spot is taken waits for a later step,
//! counted once in summary.json (`emissions_waited`). The grains themselves
//! were drawn when the scene was built (`scene::emit`).

use super::Run;
use crate::backend::Backend;
use crate::error::Result;
use crate::model::{Grains, Walls};

impl Run {
    /// Add the emitters' grains due at `time` (s) whose spot is free: one per
    /// emitter and step at most; a grain whose spot is taken waits (counted once).
    pub(super) fn emit(&mut self, backend: &mut dyn Backend, time: f64) -> Result<()> {
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
            if occupied(g.pos[0], g.radius[0], now, walls) || occupied(g.pos[0], g.radius[0], &new, &Walls::default()) {
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

/// A disk of radius `r` at `x` would overlap one of `grains` or a wall segment.
fn occupied(x: [f32; 2], r: f32, grains: &Grains, walls: &Walls) -> bool {
    let d2 = |a: [f32; 2], b: [f32; 2]| (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2);
    let grain = (0..grains.len()).any(|i| {
        let reach = r + grains.radius[i];
        d2(x, grains.pos[i]) < reach * reach
    });
    grain
        || walls.segments.iter().any(|s| {
            let t = [s.b[0] - s.a[0], s.b[1] - s.a[1]];
            let len2 = t[0] * t[0] + t[1] * t[1];
            let u = if len2 > 0.0 {
                (((x[0] - s.a[0]) * t[0] + (x[1] - s.a[1]) * t[1]) / len2).clamp(0.0, 1.0)
            } else {
                0.0
            };
            d2(x, [s.a[0] + u * t[0], s.a[1] + u * t[1]]) < r * r
        })
        || walls.corners.iter().any(|c| d2(x, c.pos) < r * r)
}
