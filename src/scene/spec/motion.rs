//! `[[motion]]`: the scene file's tables of prescribed wall motion
//! (docs/walls.md#moving-walls). Units are SI.

use serde::{Deserialize, Serialize};

/// `[[motion]]`: one rigid motion of a wall group over a time span; give
/// exactly one of `rotate`, `translate`, `vibrate`, `turn`. Times count from
/// the gate's opening (from the start of a run without a gate); the motions
/// of one group compose in the order given (docs/walls.md#moving-walls).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotionSpec {
    /// The walls that move: `"all"` (every wall but the gate) or a name of `walls.groups`.
    #[serde(default = "all_walls")]
    pub walls: String,
    /// When the motion starts, s (default 0).
    #[serde(default)]
    pub start: f64,
    /// When it stops, s; default: never (a `turn` stops after its duration).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotate: Option<RotateSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub translate: Option<TranslateSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vibrate: Option<VibrateSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<TurnSpec>,
}

fn all_walls() -> String {
    ALL_WALLS.to_string()
}

/// The group of every wall but the gate, in `motion.walls`.
pub const ALL_WALLS: &str = "all";

/// Rotation about `center` (m) at `rate` (rad/s, counter-clockwise).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RotateSpec {
    pub center: [f64; 2],
    pub rate: f64,
}

/// Translation at `velocity` (m/s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranslateSpec {
    pub velocity: [f64; 2],
}

/// Sinusoidal vibration A sin(2 pi f t) along `direction` (normalised):
/// `amplitude` A (m), `frequency` f (Hz).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VibrateSpec {
    pub amplitude: f64,
    pub frequency: f64,
    pub direction: [f64; 2],
}

/// A turn by `angle` (degrees, counter-clockwise; default 180: turned over)
/// about `center` (m) over `duration` (s), started and stopped smoothly, then rest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnSpec {
    pub center: [f64; 2],
    #[serde(default = "half_turn")]
    pub angle: f64,
    pub duration: f64,
}

fn half_turn() -> f64 {
    180.0
}
