//! What counts as lost: the bounds of a scene ([`Bounds`]), outside which a
//! grain (its centre more than its radius out) is lost.
//!
//! ```text
//!   walls.bounds given                 -> those (holding the walls and the emitters)
//!   every wall line on a closed loop   -> the walls' bounding box (gate included)
//!   else (open walls)                  -> B widened by m on every side, where
//!       B = box around the wall points, the grains' and the emitters' centres
//!       m = max(width of B, height of B, 2 r_max, max |v|^2 / 2|g|)
//! ```
//!
//! With periodic boundaries along x (`walls.periodic_x`) the bounds in x
//! are the period [xmin, xmax] whatever the rule (nothing leaves through
//! a periodic side: it re-enters the other), and the rule gives y.
//!
//! The last term of m is the height a grain starting at speed |v| can rise
//! against gravity, so a ball bounced up from a floor is not lost; grains
//! that fall off an open floor are lost a fall of m below it.

use crate::error::{Error, Result};
use crate::model::walls::is_closed;
use crate::model::{Dim2, Grains, Space};

/// Which rule gave the bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundsRule {
    /// `walls.bounds`.
    Stated,
    /// The walls' bounding box: closed outlines hold the grains.
    Walls,
    /// The box around the walls, the grains and the emitters, widened.
    Derived,
}

/// A grain whose centre is more than its radius outside `rect` is lost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds<S: Space = Dim2> {
    /// The box ([`Space::Bounds`]: [xmin, ymin, xmax, ymax] in the plane), m.
    pub rect: S::Bounds,
    pub rule: BoundsRule,
}

/// What a scene's bounds are found from.
pub struct BoundsInput<'a> {
    /// `walls.bounds`, validated finite and ordered.
    pub stated: Option<[f64; 4]>,
    /// The outline's lines (the gate not included).
    pub outline: &'a [[[f64; 2]; 2]],
    /// The box that holds the walls (gate included) wherever they move in the run.
    pub walls_box: [f32; 4],
    /// The starting grains, then each emitter's.
    pub grains: Vec<&'a Grains>,
    pub gravity: [f64; 2],
    /// `walls.periodic_x`, validated finite and ordered.
    pub periodic_x: Option<[f64; 2]>,
    /// The scene's name, for errors.
    pub origin: &'a str,
}

impl BoundsInput<'_> {
    /// The bounds (see the module doc); stated bounds that do not hold the
    /// walls or an emitter's grains are an error naming `walls.bounds`.
    pub fn resolve(&self) -> Result<Bounds> {
        let mut b = self.resolve_rule()?;
        if let Some(p) = self.periodic_x {
            (b.rect[0], b.rect[2]) = (p[0] as f32, p[1] as f32);
        }
        Ok(b)
    }

    /// The bounds of the rule, the walls taken within the period along x.
    fn resolve_rule(&self) -> Result<Bounds> {
        let mut walls = self.walls_box;
        if let Some(p) = self.periodic_x {
            (walls[0], walls[2]) = (p[0] as f32, p[1] as f32);
        }
        if let Some(b) = self.stated {
            let out = |problem: String| Err(Error::field(self.origin, "walls.bounds", problem));
            // In single precision, as the walls are: bounds that meet the
            // walls (or the period) at a coordinate hold them.
            let b32 = b.map(|v| v as f32);
            if !(b32[0] <= walls[0] && b32[1] <= walls[1] && b32[2] >= walls[2] && b32[3] >= walls[3]) {
                return out(format!("{b:?} does not hold the walls, which span {walls:?}"));
            }
            for (k, g) in self.grains.iter().enumerate().skip(1) {
                if let Some(p) = g.pos.iter().find(|p| !within(**p, b)) {
                    return out(format!(
                        "{b:?} does not hold emitters[{}], whose grains appear at ({}, {})",
                        k - 1,
                        p[0],
                        p[1]
                    ));
                }
            }
            return Ok(Bounds {
                rect: b.map(|v| v as f32),
                rule: BoundsRule::Stated,
            });
        }
        if is_closed(self.outline) {
            return Ok(Bounds {
                rect: walls,
                rule: BoundsRule::Walls,
            });
        }
        Ok(Bounds {
            rect: self.derived(walls).map(|v| v as f32),
            rule: BoundsRule::Derived,
        })
    }

    /// The open walls' bounds (see the module doc).
    fn derived(&self, walls: [f32; 4]) -> [f64; 4] {
        let mut b = walls.map(f64::from);
        let mut r_max = 0.0f64;
        let mut speed2 = 0.0f64;
        for g in &self.grains {
            for i in 0..g.len() {
                let (p, v) = (g.pos[i].map(f64::from), g.vel[i].map(f64::from));
                b = [b[0].min(p[0]), b[1].min(p[1]), b[2].max(p[0]), b[3].max(p[1])];
                r_max = r_max.max(f64::from(g.radius[i]));
                speed2 = speed2.max(v[0] * v[0] + v[1] * v[1]);
            }
        }
        let g = self.gravity[0].hypot(self.gravity[1]);
        let rise = if g > 0.0 { speed2 / (2.0 * g) } else { 0.0 };
        let m = (b[2] - b[0]).max(b[3] - b[1]).max(2.0 * r_max).max(rise);
        [b[0] - m, b[1] - m, b[2] + m, b[3] + m]
    }
}

fn within(p: [f32; 2], b: [f64; 4]) -> bool {
    let p = p.map(f64::from);
    p[0] >= b[0] && p[0] <= b[2] && p[1] >= b[1] && p[1] <= b[3]
}
