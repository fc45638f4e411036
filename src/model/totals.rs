//! What one diagnostics reduction returns ([`Totals`]) and the region it is
//! taken over ([`Region`]): shared by the CPU and GPU `reduce` stages.

/// One diagnostics reduction.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Totals {
    pub kinetic_energy: f64,
    pub potential_energy: f64,
    pub momentum: [f64; 2],
    pub passed: u64,
    pub lost: u64,
    pub max_overlap: f64,
    /// Largest grain speed, m/s.
    pub max_speed: f64,
}

impl Totals {
    pub fn merge(a: Totals, b: Totals) -> Totals {
        Totals {
            kinetic_energy: a.kinetic_energy + b.kinetic_energy,
            potential_energy: a.potential_energy + b.potential_energy,
            momentum: [a.momentum[0] + b.momentum[0], a.momentum[1] + b.momentum[1]],
            passed: a.passed + b.passed,
            lost: a.lost + b.lost,
            max_overlap: a.max_overlap.max(b.max_overlap),
            max_speed: a.max_speed.max(b.max_speed),
        }
    }
}

/// Where the neck is and what counts as lost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Region {
    pub gravity: [f32; 2],
    /// Height of the neck, m: grains below it have passed.
    pub neck_y: f32,
    /// [xmin, ymin, xmax, ymax] of the walls, m: a grain more than its radius
    /// outside is lost (and never counted as passed).
    pub bbox: [f32; 4],
}
