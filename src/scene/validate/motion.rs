//! The checks of `[[motion]]` and `walls.groups`: every motion names a group
//! that exists, gives one move with its numbers in their domains, and spans
//! a time that makes sense; groups index `walls.segments` once each.

use super::*;

impl Scene {
    pub(super) fn validate_motion(&self, c: &Check<'_>) -> Result<()> {
        self.validate_groups()?;
        if !self.motion.is_empty() && self.solver.kind == SolverKind::Crowd {
            return Err(self.refuse(
                "motion",
                "crowd motion keeps its walls still (its desired velocities are found once, from the walls as built)",
            ));
        }
        for (i, m) in self.motion.iter().enumerate() {
            let key = |k: &str| format!("motion[{i}].{k}");
            // A mesh's physical groups are known once it is read (scene::motion).
            let mesh_group = self.walls.mesh.is_some() && self.walls.groups.is_none();
            if m.walls != ALL_WALLS
                && !mesh_group
                && !self.walls.groups.as_ref().is_some_and(|g| g.contains_key(&m.walls))
            {
                let known: Vec<&str> = std::iter::once(ALL_WALLS)
                    .chain(self.walls.groups.iter().flat_map(|g| g.keys().map(String::as_str)))
                    .collect();
                return Err(self.refuse(
                    &key("walls"),
                    format!("no wall group `{}` (groups: {})", m.walls, known.join(", ")),
                ));
            }
            c.non_negative(&key("start"), m.start)?;
            if let Some(end) = m.end {
                c.finite(&key("end"), end)?;
                if end <= m.start {
                    return Err(self.refuse(&key("end"), format!("must be after start = {}, got {end}", m.start)));
                }
            }
            let given = [
                m.rotate.is_some(),
                m.translate.is_some(),
                m.vibrate.is_some(),
                m.turn.is_some(),
            ];
            if given.iter().filter(|&&g| g).count() != 1 {
                return Err(self.refuse(
                    &format!("motion[{i}]"),
                    "give exactly one of `rotate`, `translate`, `vibrate`, `turn`",
                ));
            }
            if let Some(r) = &m.rotate {
                c.length(&key("rotate.center[0]"), r.center[0])?;
                c.length(&key("rotate.center[1]"), r.center[1])?;
                c.finite(&key("rotate.rate"), r.rate)?;
            }
            if let Some(t) = &m.translate {
                c.finite(&key("translate.velocity[0]"), t.velocity[0])?;
                c.finite(&key("translate.velocity[1]"), t.velocity[1])?;
                if m.end.is_none() && t.velocity != [0.0; 2] {
                    return Err(self.refuse(
                        &key("end"),
                        "a translation needs an end (walls moving for ever leave the domain)",
                    ));
                }
            }
            if let Some(v) = &m.vibrate {
                c.positive(&key("vibrate.amplitude"), v.amplitude)?;
                c.length(&key("vibrate.amplitude"), v.amplitude)?;
                c.positive(&key("vibrate.frequency"), v.frequency)?;
                c.finite(&key("vibrate.direction[0]"), v.direction[0])?;
                c.finite(&key("vibrate.direction[1]"), v.direction[1])?;
                if v.direction[0].hypot(v.direction[1]) == 0.0 {
                    return Err(self.refuse(&key("vibrate.direction"), "must not be zero"));
                }
            }
            if let Some(t) = &m.turn {
                c.length(&key("turn.center[0]"), t.center[0])?;
                c.length(&key("turn.center[1]"), t.center[1])?;
                c.finite(&key("turn.angle"), t.angle)?;
                c.positive(&key("turn.duration"), t.duration)?;
            }
        }
        Ok(())
    }

    /// `walls.groups` go with `walls.segments`, index them, and share none.
    fn validate_groups(&self) -> Result<()> {
        let Some(groups) = &self.walls.groups else {
            return Ok(());
        };
        let Some(segments) = &self.walls.segments else {
            return Err(self.refuse(
                "walls.groups",
                "only go with `segments` (they name segments by their index there)",
            ));
        };
        let mut owner: Vec<Option<&str>> = vec![None; segments.len()];
        for (name, members) in groups {
            let key = format!("walls.groups.{name}");
            if name == ALL_WALLS {
                return Err(self.refuse(&key, "`all` names every wall already: choose another name"));
            }
            if members.is_empty() {
                return Err(self.refuse(&key, "is empty"));
            }
            for &k in members {
                match owner.get_mut(k as usize) {
                    None => {
                        return Err(self.refuse(
                            &key,
                            format!(
                                "segment {k} does not exist (walls.segments has {}, numbered from 0)",
                                segments.len()
                            ),
                        ));
                    }
                    Some(Some(other)) => {
                        return Err(self.refuse(
                            &key,
                            format!("segment {k} is already in the group `{other}` (a segment moves with one group)"),
                        ));
                    }
                    Some(slot) => *slot = Some(name),
                }
            }
        }
        Ok(())
    }
}
