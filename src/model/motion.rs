//! Prescribed wall motion: rigid motions of wall groups in time.
//!
//! A group's walls move rigidly: at time t every point x0 of the group's
//! walls as built is at
//!
//! ```text
//!   x(t) = R(theta(t)) x0 + d(t)         R: rotation by theta, counter-clockwise
//! ```
//!
//! A group's motion is a sequence of [`Phase`]s, each active over its own
//! time span [start, end]; before a phase starts it has not moved, after it
//! ends it holds its last pose. The phases compose in order: the pose at t
//! is phase_K(t) after ... after phase_1(t), so a rotation's centre is where
//! it is in the world once the earlier phases have moved the group.
//!
//! A step from t0 to t1 sees the walls where they are at t0, moving at the
//! velocity (x(t1) - x(t0)) / (t1 - t0) at every point: rigid motion is affine
//! in x0, so this is exact along a segment between its ends' velocities, and
//! a contact that keeps its gap to that velocity over the step keeps it to
//! where the wall is at t1 ([`WallMotion::walls`]).

use super::walls::{Corner, Walls};

/// A rigid transform x -> R(angle) x + shift (angle in radians).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    pub angle: f64,
    pub shift: [f64; 2],
}

impl Pose {
    /// The identity: no motion.
    pub const REST: Pose = Pose {
        angle: 0.0,
        shift: [0.0, 0.0],
    };

    /// Where this pose takes the point `x`.
    pub fn apply(&self, x: [f64; 2]) -> [f64; 2] {
        let (s, c) = self.angle.sin_cos();
        [c * x[0] - s * x[1] + self.shift[0], s * x[0] + c * x[1] + self.shift[1]]
    }

    /// The direction `e` turned by this pose (no shift).
    pub fn turn(&self, e: [f64; 2]) -> [f64; 2] {
        let (s, c) = self.angle.sin_cos();
        [c * e[0] - s * e[1], s * e[0] + c * e[1]]
    }

    /// This pose, then `next`: x -> next(self(x)).
    pub fn then(&self, next: &Pose) -> Pose {
        Pose {
            angle: self.angle + next.angle,
            shift: next.apply(self.shift),
        }
    }

    /// A rotation by `angle` about `center`.
    pub fn about(center: [f64; 2], angle: f64) -> Pose {
        let turned = Pose { angle, shift: [0.0; 2] }.apply(center);
        Pose {
            angle,
            shift: [center[0] - turned[0], center[1] - turned[1]],
        }
    }
}

/// What a phase does over its time tau since its start (s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Move {
    /// Rotation about `center` (m) at `rate` (rad/s, counter-clockwise).
    Rotate { center: [f64; 2], rate: f64 },
    /// Translation at `velocity` (m/s).
    Translate { velocity: [f64; 2] },
    /// Sinusoidal vibration: the shift A sin(2 pi f tau) along the unit
    /// `direction`, A = `amplitude` (m), f = `frequency` (Hz).
    Vibrate {
        amplitude: f64,
        frequency: f64,
        direction: [f64; 2],
    },
    /// A turn by `angle` (rad) about `center` over `duration` (s), smoothly
    /// started and stopped: theta(tau) = angle (1 - cos(pi tau / T)) / 2,
    /// then rest (an hourglass turned over: angle = pi).
    Turn {
        center: [f64; 2],
        angle: f64,
        duration: f64,
    },
}

impl Move {
    /// The pose after `tau` >= 0 seconds of this move.
    pub fn pose(&self, tau: f64) -> Pose {
        match *self {
            Move::Rotate { center, rate } => Pose::about(center, rate * tau),
            Move::Translate { velocity } => Pose {
                angle: 0.0,
                shift: [velocity[0] * tau, velocity[1] * tau],
            },
            Move::Vibrate {
                amplitude,
                frequency,
                direction,
            } => {
                let s = amplitude * (std::f64::consts::TAU * frequency * tau).sin();
                Pose {
                    angle: 0.0,
                    shift: [s * direction[0], s * direction[1]],
                }
            }
            Move::Turn {
                center,
                angle,
                duration,
            } => {
                let f = (tau / duration).clamp(0.0, 1.0);
                Pose::about(center, angle * 0.5 * (1.0 - (std::f64::consts::PI * f).cos()))
            }
        }
    }

    /// When the move stops by itself, s after its start (a turn); None: it goes on.
    pub fn own_end(&self) -> Option<f64> {
        match *self {
            Move::Turn { duration, .. } => Some(duration),
            _ => None,
        }
    }
}

/// One move over [start, end] (s; end may be infinite).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phase {
    pub what: Move,
    pub start: f64,
    pub end: f64,
}

impl Phase {
    /// This phase's pose at time `t`: rest before it starts, its last pose after it ends.
    pub fn pose(&self, t: f64) -> Pose {
        if t <= self.start {
            return Pose::REST;
        }
        self.what.pose(t.min(self.end) - self.start)
    }
}

/// A group's phases, composed in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GroupMotion {
    pub phases: Vec<Phase>,
}

impl GroupMotion {
    /// The group's pose at time `t`.
    pub fn pose(&self, t: f64) -> Pose {
        self.phases.iter().fold(Pose::REST, |p, ph| p.then(&ph.pose(t)))
    }
}

/// A prescribed motion of a space's walls `W` (`[[motion]]`): the walls
/// where they are at `t0`, with their velocities over the step to `t1`.
pub trait Moves<W>: std::fmt::Debug + Clone + Send + Sync + 'static {
    fn walls(&self, t0: f64, t1: f64) -> W;
    /// The farthest any wall point travels from `t0` to `t1`, m.
    fn farthest(&self, t0: f64, t1: f64) -> f64;
}

impl Moves<Walls> for WallMotion {
    fn walls(&self, t0: f64, t1: f64) -> Walls {
        WallMotion::walls(self, t0, t1)
    }
    fn farthest(&self, t0: f64, t1: f64) -> f64 {
        WallMotion::farthest(self, t0, t1)
    }
}

/// No motion: the walls of 3D scenes stand still (a scene with
/// `[[motion]]` in 3D is refused), so no value of this type exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Still {}

impl Moves<super::Walls3d> for Still {
    fn walls(&self, _t0: f64, _t1: f64) -> super::Walls3d {
        match *self {}
    }
    fn farthest(&self, _t0: f64, _t1: f64) -> f64 {
        match *self {}
    }
}

/// Walls whose groups move: the walls as built, the group of each segment
/// and corner, and each group's motion (group 0 and any group without
/// phases stay still).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WallMotion {
    pub base: Walls,
    pub segment_group: Vec<u16>,
    pub corner_group: Vec<u16>,
    pub groups: Vec<GroupMotion>,
}

impl WallMotion {
    /// Whether any wall moves at all.
    pub fn moves(&self) -> bool {
        self.groups.iter().any(|g| !g.phases.is_empty())
    }

    fn poses(&self, t: f64) -> Vec<Pose> {
        self.groups.iter().map(|g| g.pose(t)).collect()
    }

    /// The walls where they are at `t0`, each segment end and corner with
    /// its velocity over the step to `t1` > t0 (see the module doc).
    pub fn walls(&self, t0: f64, t1: f64) -> Walls {
        let (p0, p1) = (self.poses(t0), self.poses(t1));
        let inv_h = 1.0 / (t1 - t0);
        let f = |x: [f32; 2]| [f64::from(x[0]), f64::from(x[1])];
        let g = |x: [f64; 2]| [x[0] as f32, x[1] as f32];
        let vel = |a: [f64; 2], b: [f64; 2]| [((b[0] - a[0]) * inv_h) as f32, ((b[1] - a[1]) * inv_h) as f32];
        let mut walls = self.base.clone();
        walls.segment_vel = Vec::with_capacity(walls.segments.len());
        for (s, &k) in walls.segments.iter_mut().zip(&self.segment_group) {
            let (q0, q1) = (&p0[k as usize], &p1[k as usize]);
            let (a, b) = (f(s.a), f(s.b));
            let (a0, b0) = (q0.apply(a), q0.apply(b));
            walls.segment_vel.push([vel(a0, q1.apply(a)), vel(b0, q1.apply(b))]);
            s.a = g(a0);
            s.b = g(b0);
            s.n = g(q0.turn(f(s.n)));
        }
        walls.corner_vel = Vec::with_capacity(walls.corners.len());
        for (c, &k) in walls.corners.iter_mut().zip(&self.corner_group) {
            let (q0, q1) = (&p0[k as usize], &p1[k as usize]);
            let x = f(c.pos);
            let x0 = q0.apply(x);
            walls.corner_vel.push(vel(x0, q1.apply(x)));
            *c = Corner {
                pos: g(x0),
                dirs: c.dirs.map(|d| g(q0.turn(f(d)))),
            };
        }
        walls
    }

    /// The farthest any wall point moves from `t0` to `t1`, m (corners are
    /// the segments' ends, so they bound every point of a rigid group).
    pub fn farthest(&self, t0: f64, t1: f64) -> f64 {
        let (p0, p1) = (self.poses(t0), self.poses(t1));
        self.base
            .corners
            .iter()
            .zip(&self.corner_group)
            .map(|(c, &k)| {
                let x = [f64::from(c.pos[0]), f64::from(c.pos[1])];
                let (a, b) = (p0[k as usize].apply(x), p1[k as usize].apply(x));
                (b[0] - a[0]).hypot(b[1] - a[1])
            })
            .fold(0.0, f64::max)
    }

    /// The box [xmin, ymin, xmax, ymax] that holds the walls at every time
    /// of [0, `until`]: the poses sampled at `samples` + 1 times and at every
    /// phase's start and end, widened by the farthest a wall point moves
    /// between two samples (so nothing between samples lies outside).
    pub fn sweep_box(&self, until: f64, samples: usize) -> [f64; 4] {
        let mut times: Vec<f64> = (0..=samples).map(|i| until * i as f64 / samples as f64).collect();
        for g in &self.groups {
            for ph in &g.phases {
                times.extend([ph.start, ph.end].into_iter().filter(|t| t.is_finite() && *t <= until));
            }
        }
        times.sort_by(f64::total_cmp);
        let mut bb = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
        let mut margin = 0.0f64;
        for (i, &t) in times.iter().enumerate() {
            let poses = self.poses(t);
            for (c, &k) in self.base.corners.iter().zip(&self.corner_group) {
                let x = poses[k as usize].apply([f64::from(c.pos[0]), f64::from(c.pos[1])]);
                bb = [bb[0].min(x[0]), bb[1].min(x[1]), bb[2].max(x[0]), bb[3].max(x[1])];
            }
            if i > 0 {
                margin = margin.max(self.farthest(times[i - 1], t));
            }
        }
        [bb[0] - margin, bb[1] - margin, bb[2] + margin, bb[3] + margin]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f64; 2], b: [f64; 2]) -> bool {
        (a[0] - b[0]).abs() < 1e-12 && (a[1] - b[1]).abs() < 1e-12
    }

    #[test]
    fn a_rotation_about_a_point_keeps_the_point_and_turns_the_rest() {
        let p = Pose::about([1.0, 2.0], std::f64::consts::FRAC_PI_2);
        assert!(close(p.apply([1.0, 2.0]), [1.0, 2.0]));
        assert!(close(p.apply([2.0, 2.0]), [1.0, 3.0]));
    }

    #[test]
    fn phases_compose_in_order_and_hold_their_last_pose() {
        let m = GroupMotion {
            phases: vec![
                Phase {
                    what: Move::Translate { velocity: [1.0, 0.0] },
                    start: 0.0,
                    end: 1.0,
                },
                Phase {
                    what: Move::Turn {
                        center: [1.0, 0.0],
                        angle: std::f64::consts::PI,
                        duration: 2.0,
                    },
                    start: 1.0,
                    end: 3.0,
                },
            ],
        };
        // Moved to x + 1, then turned half a turn about (1, 0).
        assert!(close(m.pose(10.0).apply([0.0, 0.0]), [1.0, 0.0]));
        assert!(close(m.pose(10.0).apply([1.0, 0.0]), [0.0, 0.0]));
        assert!(close(m.pose(0.5).apply([0.0, 0.0]), [0.5, 0.0]));
        // Halfway through the smooth turn: a quarter turn.
        assert!(close(m.pose(2.0).apply([2.0, 0.0]), [1.0, 2.0]));
    }
}
