//! Where a fill was placed: the walls and gate lines of the scene as
//! resolved, the neck's height and the grains' positions. Building the scene
//! makes it; the contact laws (the automatic step) and the wall motions (the
//! groups of the lines) read it.

use super::checks::Line;

/// The walls and gate lines a fill was placed in, and where.
#[derive(Debug, Clone)]
pub(super) struct Placed {
    pub(super) walls: Vec<Line>,
    pub(super) gate: Vec<Line>,
    /// A mesh's physical group names of each of `walls` (empty otherwise).
    pub(super) names: Vec<Vec<String>>,
    /// The neck's height when `walls.neck_y` is not given, m.
    pub(super) neck: f64,
    pub(super) positions: Vec<[f64; 2]>,
}
