//! `[[motion]]` resolved: the group of every wall line and each group's
//! phases (`model::motion`), and the box the walls sweep in a run.
//!
//! Groups: 0 is the gate (it never moves), 1 every line in no named group,
//! 2, 3, ... the names of `walls.groups` in name order, or for a mesh the
//! physical groups that motions name, in name order. A motion of `"all"`
//! moves every group but the gate; a motion of a name moves that group.
//! A group's phases compose in the order the motions are written.

use super::placed::Placed;
use super::spec::{ALL_WALLS, MotionSpec, Scene};
use crate::error::{Error, Result};
use crate::model::Walls;
use crate::model::motion::{GroupMotion, Move, Phase, WallMotion};

/// Samples of the motion over the run when finding the box the walls sweep.
const SWEEP_SAMPLES: usize = 2048;

/// The names of the groups a motion can move besides `"all"`, in order
/// (group 2 + k is name k): `walls.groups`' names, or the physical groups
/// of a mesh that some motion names.
fn names(scene: &Scene) -> Vec<String> {
    match &scene.walls.groups {
        Some(g) => g.keys().cloned().collect(),
        None => {
            let mut n: Vec<String> = scene
                .motion
                .iter()
                .map(|m| m.walls.clone())
                .filter(|w| w != ALL_WALLS)
                .collect();
            n.sort();
            n.dedup();
            n
        }
    }
}

/// The group of each outline line of `placed`; all 0 (nothing to keep
/// apart) when the scene has no motion, so still walls are built as before.
/// A motion naming a group that does not exist, or a mesh line in two
/// moving physical groups, is an error naming the key.
pub(super) fn groups(scene: &Scene, placed: &Placed) -> Result<Vec<u16>> {
    if scene.motion.is_empty() {
        return Ok(Vec::new());
    }
    let names = names(scene);
    let mut groups = vec![1u16; placed.walls.len()];
    if let Some(g) = &scene.walls.groups {
        for (k, members) in g.values().enumerate() {
            for &line in members {
                if let Some(slot) = groups.get_mut(line as usize) {
                    *slot = 2 + k as u16;
                }
            }
        }
        return Ok(groups);
    }
    // A mesh: its lines in each named physical group.
    for (i, m) in scene.motion.iter().enumerate() {
        if m.walls != ALL_WALLS && !placed.names.iter().flatten().any(|n| *n == m.walls) {
            let mut known: Vec<&str> = placed.names.iter().flatten().map(String::as_str).collect();
            known.sort_unstable();
            known.dedup();
            let known = std::iter::once(ALL_WALLS).chain(known).collect::<Vec<_>>().join(", ");
            let whence = if scene.walls.mesh.is_some() {
                "walls.groups, or a physical group of the mesh"
            } else {
                "walls.groups"
            };
            return Err(Error::field(
                &scene.origin,
                &format!("motion[{i}].walls"),
                format!("no wall group `{}` in {whence} (groups: {known})", m.walls),
            ));
        }
    }
    for (line, line_names) in placed.names.iter().enumerate() {
        let mut moving = line_names.iter().filter_map(|n| names.iter().position(|m| m == n));
        if let Some(k) = moving.next() {
            if let Some(other) = moving.next() {
                return Err(Error::field(
                    &scene.origin,
                    "motion",
                    format!(
                        "mesh line {line} is in the moving groups `{}` and `{}`: a line moves with one group",
                        names[k], names[other]
                    ),
                ));
            }
            groups[line] = 2 + k as u16;
        }
    }
    Ok(groups)
}

/// The move of a validated motion (exactly one is given).
fn move_of(m: &MotionSpec) -> Move {
    if let Some(r) = &m.rotate {
        Move::Rotate {
            center: r.center,
            rate: r.rate,
        }
    } else if let Some(t) = &m.translate {
        Move::Translate { velocity: t.velocity }
    } else if let Some(v) = &m.vibrate {
        let norm = v.direction[0].hypot(v.direction[1]);
        Move::Vibrate {
            amplitude: v.amplitude,
            frequency: v.frequency,
            direction: [v.direction[0] / norm, v.direction[1] / norm],
        }
    } else {
        let t = m.turn.as_ref().expect("a validated motion gives one move");
        Move::Turn {
            center: t.center,
            angle: t.angle.to_radians(),
            duration: t.duration,
        }
    }
}

/// The motion of the open walls `open` (built with [`groups`]), or None
/// when the scene has no `[[motion]]`.
pub fn of(scene: &Scene, open: &Walls, segment_group: Vec<u16>, corner_group: Vec<u16>) -> Option<WallMotion> {
    if scene.motion.is_empty() {
        return None;
    }
    let names = names(scene);
    let mut groups = vec![GroupMotion::default(); 2 + names.len()];
    for m in &scene.motion {
        let what = move_of(m);
        let end = m
            .end
            .unwrap_or(f64::INFINITY)
            .min(what.own_end().map_or(f64::INFINITY, |d| m.start + d));
        let phase = Phase {
            what,
            start: m.start,
            end,
        };
        if m.walls == ALL_WALLS {
            for g in &mut groups[1..] {
                g.phases.push(phase);
            }
        } else if let Some(k) = names.iter().position(|n| **n == m.walls) {
            groups[2 + k].phases.push(phase);
        }
    }
    Some(WallMotion {
        base: open.clone(),
        segment_group,
        corner_group,
        groups,
    })
}

/// The box that holds `closed` (the walls with the gate, still during the
/// settle phase) and the moving walls until the last phase that ends and
/// for one period of every motion that goes on for ever (a rotation, a
/// vibration) after it: wherever they are at any time, since a translation
/// has an end. It depends on the motion alone, not on the run's length, so
/// a run and its resumed continuation bin on the same grid.
pub fn walls_box(motion: Option<&WallMotion>, closed: &Walls) -> [f32; 4] {
    let still = closed.bounding_box();
    let Some(m) = motion else {
        return still;
    };
    let phases = || m.groups.iter().flat_map(|g| &g.phases);
    let last_end = phases()
        .flat_map(|p| [p.start, p.end])
        .filter(|t| t.is_finite())
        .fold(0.0, f64::max);
    let period = phases()
        .filter(|p| p.end.is_infinite())
        .map(|p| match p.what {
            Move::Rotate { rate, .. } if rate != 0.0 => std::f64::consts::TAU / rate.abs(),
            Move::Vibrate { frequency, .. } => 1.0 / frequency,
            _ => 0.0,
        })
        .fold(0.0, f64::max);
    let b = m.sweep_box(last_end + period, SWEEP_SAMPLES);
    [
        still[0].min(b[0] as f32),
        still[1].min(b[1] as f32),
        still[2].max(b[2] as f32),
        still[3].max(b[3] as f32),
    ]
}
