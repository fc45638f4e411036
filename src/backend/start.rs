//! What a backend starts from: the grid every backend bins into
//! ([`grid_for`]), the initial state ([`Start`]), and the check that an
//! explicit grain list starts inside the walls and without overlaps
//! ([`check_initial_state`], a contact detection on the CPU).

use crate::cpu::CpuStepper;
use crate::error::{Error, Result};
use crate::model::{Body, DemParams, Grains, Grid, SolverKind, Walls};
use crate::scene::Setup;

/// The grid every backend bins into: covers the walls and the initial grains,
/// cells of side 2 r_max + alert.
pub fn grid_for(setup: &Setup) -> Result<Grid> {
    let walls = setup.walls(true);
    let mut bb = walls.bounding_box();
    for p in &setup.grains.pos {
        bb = [bb[0].min(p[0]), bb[1].min(p[1]), bb[2].max(p[0]), bb[3].max(p[1])];
    }
    Grid::covering(bb, 2.0 * setup.grains.max_radius() + setup.params.alert)
}

/// The state a backend is built from: a scene's ([`Start::of`]) or a packed
/// state of the study.
#[derive(Clone, Copy)]
pub struct Start<'a> {
    pub grains: &'a Grains,
    /// The walls of the first step (gate closed).
    pub walls: &'a Walls,
    pub grid: Grid,
    /// Contact slots per grain.
    pub capacity: usize,
    /// Picks the stepper: DEM or NSCD (every NSCD solver shares one stepper).
    pub solver: SolverKind,
    /// The DEM contact law, used when `solver` is DEM.
    pub dem: DemParams,
}

impl<'a> Start<'a> {
    /// `setup`'s grains behind its closed walls, on `grid`.
    pub fn of(setup: &'a Setup, grid: Grid) -> Start<'a> {
        Start {
            grains: &setup.grains,
            walls: setup.walls(true),
            grid,
            capacity: setup.scene.solver.contact_capacity as usize,
            solver: setup.params.solver,
            dem: setup.dem,
        }
    }
}

/// Reject explicit grain lists whose grains overlap or start outside the walls' box.
pub fn check_initial_state(setup: &Setup, grid: &Grid) -> Result<()> {
    let mut stepper = CpuStepper::new(*grid, 64);
    let walls = setup.walls(true);
    let lists = stepper.detect(&setup.grains, walls, 0.0);
    let tol = 1e-9f32;
    let bb = walls.bounding_box();
    for (i, p) in setup.grains.pos.iter().enumerate() {
        if !(p[0] >= bb[0] && p[0] <= bb[2] && p[1] >= bb[1] && p[1] <= bb[3]) {
            return Err(Error::field(
                &setup.scene.origin,
                &if setup.scene.grains.list.is_some() {
                    format!("grains.list[{i}]")
                } else {
                    "grains.region".to_string()
                },
                format!(
                    "grain {i} starts at ({}, {}), outside the walls' bounding box",
                    p[0], p[1]
                ),
            ));
        }
    }
    for i in 0..setup.grains.len() {
        if let Some(c) = lists.of(i).iter().find(|c| c.gap < -tol) {
            let with = match c.body() {
                Body::Grain(j) => format!("grain {j}"),
                Body::Segment(k) => format!("wall segment {k}"),
                Body::Corner(k) => format!("wall corner {k}"),
            };
            return Err(Error::field(
                &setup.scene.origin,
                &format!("grains.list[{i}]"),
                format!("overlaps {with} by {:.3e} m at the start", -c.gap),
            ));
        }
    }
    Ok(())
}
