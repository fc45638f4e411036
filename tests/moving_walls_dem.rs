//! The explicit models (DEM Hertz and Hertz-Mindlin, the linear spring, the
//! impulse model) against moving walls on the CPU: a grain-wall contact
//! takes the relative velocity to the wall at the contact, so that a floor
//! sliding under a grain drags it by friction and a rising floor carries a
//! grain at the floor's speed with the overlap of its weight; the DEM's
//! neighbour lists survive the moves and rebuild when the walls' motion asks
//! for it, with the trajectories of the detection every step.

mod common;

use hourglass::backend::{Backend, CpuDemBackend, CpuImpulseBackend};
use hourglass::cpu::dem::DemStepper;
use hourglass::model::motion::{self, GroupMotion, Move, WallMotion};
use hourglass::model::{DemParams, Grains, Grid, ImpulseParams, Integrator, NormalLaw, SolverKind, StepParams, Walls};
use hourglass::scene::build::dem_dt;

const G: f32 = 9.81;

/// Walls of `lines` ([x0, y0, x1, y1], m), line k moving as `moves[k]` from
/// `start` s on (None: still, in group 0).
fn motion_of(lines: &[[f64; 4]], moves: &[Option<Move>], start: f64) -> WallMotion {
    let spans: Vec<_> = moves
        .iter()
        .map(|m| m.map(|what| (what, start, f64::INFINITY)))
        .collect();
    motion_over(lines, &spans)
}

/// Walls of `lines`, line k moving as `spans[k]` = (move, start, end) (None: still).
fn motion_over(lines: &[[f64; 4]], spans: &[Option<(Move, f64, f64)>]) -> WallMotion {
    let outline: Vec<[[f64; 2]; 2]> = lines.iter().map(|s| [[s[0], s[1]], [s[2], s[3]]]).collect();
    let group = |k: usize| spans.get(k).copied().flatten().map_or(0, |_| k as u16 + 1);
    let groups: Vec<u16> = (0..lines.len()).map(group).collect();
    let (base, segment_group, corner_group) = Walls::grouped(&outline, &[], &[], &groups);
    let mut groups = vec![GroupMotion::default(); lines.len() + 1];
    for (k, m) in spans.iter().enumerate() {
        if let Some((what, start, end)) = *m {
            groups[k + 1].phases = vec![motion::Phase { what, start, end }];
        }
    }
    WallMotion {
        base,
        segment_group,
        corner_group,
        groups,
    }
}

fn translate(v: [f64; 2]) -> Option<Move> {
    Some(Move::Translate { velocity: v })
}

fn params(dt: f32, alert: f32) -> StepParams {
    let mut p = common::params(SolverKind::Dem);
    p.gravity = [0.0, -G];
    p.dt = dt;
    p.alert = alert;
    p
}

/// A run of `backend` with walls moving as `motion` from time 0: each step
/// hands the backend the walls of its own time span first.
struct Run<'a, B: Backend> {
    backend: B,
    motion: &'a WallMotion,
    p: StepParams,
    /// Time at the end of the last step, s.
    t: f64,
}

impl<B: Backend> Run<'_, B> {
    fn step(&mut self) -> &Grains {
        let dt = f64::from(self.p.dt);
        self.backend.move_walls(&self.motion.walls(self.t, self.t + dt));
        self.backend.step(&self.p).unwrap();
        self.t += dt;
        self.backend.grains().unwrap()
    }
}

fn grid(bbox: [f32; 4], r: f32, alert: f32) -> Grid {
    Grid::covering(bbox, 2.0 * r + alert).unwrap()
}

/// Overlap (m) of a grain of radius `r` resting on a floor under its weight,
/// the spring's m g / k_s or Hertz's (m g / k_n)^(2/3).
fn resting_overlap(dem: &DemParams, r: f32) -> f64 {
    let m = common::DENSITY * std::f64::consts::PI * f64::from(r) * f64::from(r);
    let load = m * f64::from(G) / f64::from(dem.kn);
    if dem.law == NormalLaw::Linear {
        load
    } else {
        load.powf(2.0 / 3.0)
    }
}

/// One grain of radius `r` at rest on a floor at y = 0 (x in [-0.5, 0.5]),
/// with the overlap of its weight, the floor moving at `v` from 10 ms on;
/// the DEM (or spring) run of `dem` at step `dt` (DEM's own by default).
fn on_floor(dem: DemParams, r: f32, v: [f64; 2], dt: Option<f32>, motion: &WallMotion) -> Run<'_, CpuDemBackend> {
    let g = common::grains(&[(0.0, r - resting_overlap(&dem, r) as f32, r)]);
    let alert = 0.001;
    let dt = dt.unwrap_or_else(|| dem_dt(&g, f64::from(dem.kn), 0.1) as f32);
    let p = params(dt, alert);
    let top = (r + 0.2 * v[1] as f32).max(0.0) + 3.0 * r;
    let bbox = [-0.1, -0.01, 0.1 + 0.2 * v[0] as f32, top];
    let backend = CpuDemBackend::new(g, motion.base.clone(), grid(bbox, r, alert), 16, dem);
    Run {
        backend,
        motion,
        p,
        t: 0.0,
    }
}

const START: f64 = 0.01;

fn floor(v: [f64; 2]) -> WallMotion {
    motion_of(&[[-0.5, 0.0, 0.5, 0.0]], &[translate(v)], START)
}

/// The floor's height at time `t`, m.
fn floor_at(v: f64, t: f64) -> f64 {
    v * (t - START).max(0.0)
}

/// Hertz-Mindlin, a disk (I = m r^2 / 2) at rest on a floor that starts
/// sliding at V = 0.1 m/s. Friction mu F_n drags its contact point towards
/// the floor's velocity; the angular momentum about the contact point on the
/// floor is kept (in the floor's frame, inertial once it slides at V:
/// friction and the normal force act there, gravity over it), so the disk
/// ends rolling on the floor with its centre at
///
///   v_c = V - (V - 0) m r^2 / (m r^2 + I) = V - 2 V / 3 = V / 3
///
/// and its contact point at v_c + r w = V: a spin w = 2 V / (3 r). Sliding
/// lasts V / (3 mu g) = 8.5 ms. With rolling blocked (mu_roll large) it slides
/// until it moves with the floor: v_c = V, w = 0. The tangential spring has
/// no damping: the velocities oscillate about these values at
/// sqrt(k_t / m_eff), once in 20 to 35 ms here, so their midrange over 60 ms
/// is compared.
#[test]
fn hertz_mindlin_grain_on_a_sliding_floor_ends_rolling_with_the_floor() {
    let v = 0.1f64;
    let r = 0.003f32;
    let motion = floor([v, 0.0]);
    for (mu_roll, want_vc, want_w) in [(0.0, v / 3.0, 2.0 * v / (3.0 * f64::from(r))), (1e3, v, 0.0)] {
        let dem = DemParams {
            law: NormalLaw::HertzMindlin,
            mu_roll,
            ..DemParams::default()
        };
        let mut run = on_floor(dem, r, [v, 0.0], None, &motion);
        let mut range = [[f64::INFINITY, f64::NEG_INFINITY]; 3];
        while run.t < 0.2 {
            let g = run.step();
            let (vx, wz) = (f64::from(g.vel[0][0]), f64::from(g.ang_vel[0]));
            if run.t > 0.14 {
                for (q, x) in range.iter_mut().zip([vx, wz, vx + f64::from(r) * wz]) {
                    *q = [q[0].min(x), q[1].max(x)];
                }
            }
        }
        let [vc, w, cp] = range.map(|q| 0.5 * (q[0] + q[1]));
        let g = run.backend.grains().unwrap();
        eprintln!(
            "mu_roll {mu_roll}: centre {vc:.6} m/s (want {want_vc:.6}), spin {w:.4} rad/s (want {want_w:.4}), \
             contact point {cp:.6} m/s, y {:.6} m",
            g.pos[0][1]
        );
        assert!(
            (vc - want_vc).abs() < 0.01 * v,
            "mu_roll {mu_roll}: centre at {vc} m/s, not {want_vc}"
        );
        assert!(
            (cp - v).abs() < 0.01 * v,
            "mu_roll {mu_roll}: contact point at {cp} m/s, not the floor's {v}"
        );
        assert!(
            (w - want_w).abs() < 0.01 * (v / f64::from(r)),
            "mu_roll {mu_roll}: spin {w} rad/s, not {want_w}"
        );
        // Still on the floor, with the overlap of its weight.
        assert!(g.pos[0][1] < r && g.pos[0][1] > 0.8 * r, "y = {}", g.pos[0][1]);
    }
}

/// A grain riding a floor rising at V: its largest overlap from `from` s on
/// (where it must stay positive), its mean overlap and vertical speed over
/// the last `tail` s.
struct Ride {
    worst: f64,
    overlap_tail: f64,
    vy_tail: f64,
}

fn ride<B: Backend>(run: &mut Run<'_, B>, v: f64, r: f32, (from, until, tail): (f64, f64, f64)) -> Ride {
    let (mut worst, mut lo, mut sum_d, mut sum_v, mut n) = (0.0f64, f64::INFINITY, 0.0f64, 0.0f64, 0.0f64);
    while run.t < until {
        let t_end = run.t + f64::from(run.p.dt);
        let g = run.step();
        let (y, vy) = (f64::from(g.pos[0][1]), f64::from(g.vel[0][1]));
        let overlap = f64::from(r) - (y - floor_at(v, t_end));
        if run.t > from {
            worst = worst.max(overlap);
            lo = lo.min(overlap);
        }
        if run.t > until - tail {
            sum_d += overlap;
            sum_v += vy;
            n += 1.0;
        }
    }
    assert!(lo > 0.0, "the grain left the rising floor: smallest overlap {lo} m");
    Ride {
        worst,
        overlap_tail: sum_d / n,
        vy_tail: sum_v / n,
    }
}

/// DEM (Hertz, gamma_n = 50 N s/m^2): a grain resting on a floor that
/// starts rising at V = 0.05 m/s rises with it at V, its overlap never lost
/// and back to the static one of its weight, (m g / k_n)^(2/3): the damping
/// sees the relative velocity, zero once it rides (against the grain's own
/// velocity it would add gamma V = 2.5 N/m, 3.6 weights, to the load).
#[test]
fn dem_grain_rides_a_rising_floor_with_the_overlap_of_its_weight() {
    let v = 0.05;
    let r = 0.003f32;
    let motion = floor([0.0, v]);
    let dem = DemParams::default();
    let mut run = on_floor(dem, r, [0.0, v], None, &motion);
    let m = run.backend.grains().unwrap().mass(0);
    let static_overlap = (m * f64::from(G) / f64::from(dem.kn)).powf(2.0 / 3.0);
    let out = ride(&mut run, v, r, (0.0, 0.11, 0.02));
    eprintln!(
        "overlap: static {static_overlap:.4e} m, largest {:.4e} m, mean at the end {:.4e} m; speed {:.6} m/s",
        out.worst, out.overlap_tail, out.vy_tail
    );
    assert!(out.worst < 1.5 * static_overlap, "overlap up to {} m", out.worst);
    assert!(
        (out.overlap_tail - static_overlap).abs() < 0.02 * static_overlap,
        "overlap {} m riding, static {static_overlap} m",
        out.overlap_tail
    );
    assert!(
        (out.vy_tail - v).abs() < 0.01 * v,
        "rises at {} m/s, floor {v}",
        out.vy_tail
    );
}

/// The linear spring (k_s = 1e4 N/m^2, dashpot k_d = 20 N s/m^2), either
/// integrator: a grain on a floor rising at V = 0.05 m/s is carried at V
/// with the overlap m g / k_s (not (m g + k_d V) / k_s, 2.4 times more).
#[test]
fn spring_grain_rides_a_rising_floor_with_the_overlap_of_its_weight() {
    let v = 0.05;
    let r = 0.003f32;
    let motion = floor([0.0, v]);
    for integrator in [Integrator::VelocityVerlet, Integrator::SemiImplicitEuler] {
        let dem = DemParams {
            kn: 1e4,
            kt: 0.0,
            gamma_n: 20.0,
            gamma_relax: 20.0,
            mu: 0.0,
            mu_roll: 0.0,
            law: NormalLaw::Linear,
            integrator,
            ..DemParams::default()
        };
        let mut run = on_floor(dem, r, [0.0, v], Some(1e-4), &motion);
        let m = run.backend.grains().unwrap().mass(0);
        let static_overlap = m * f64::from(G) / f64::from(dem.kn);
        let out = ride(&mut run, v, r, (0.0, 0.31, 0.05));
        eprintln!(
            "{integrator:?}: overlap static {static_overlap:.4e} m, largest {:.4e} m, mean at the end {:.4e} m; \
             speed {:.6} m/s",
            out.worst, out.overlap_tail, out.vy_tail
        );
        // The floor's start adds at most V sqrt(m / k_s), the undamped spring's answer to a jump of V.
        let bound = static_overlap + v * (m / f64::from(dem.kn)).sqrt();
        assert!(
            out.worst < bound,
            "{integrator:?}: overlap up to {} m (bound {bound})",
            out.worst
        );
        assert!(
            (out.overlap_tail - static_overlap).abs() < 0.02 * static_overlap,
            "{integrator:?}: overlap {} m riding, static {static_overlap} m",
            out.overlap_tail
        );
        assert!(
            (out.vy_tail - v).abs() < 0.01 * v,
            "{integrator:?}: rises at {} m/s, floor {v}",
            out.vy_tail
        );
    }
}

/// The impulse model (e = 0.5, k_p = 0.4, leapfrog, h = 1e-4 s): a grain
/// dropped at 1 m/s onto a floor rising at V = 0.05 m/s leaves it at
/// V + e (V - v_in) (restitution relative to the wall), then settles and is
/// carried up at V, its overlap bounded by a few g h^2 / k_p, neither left
/// behind nor launched.
#[test]
fn impulse_grain_bounces_off_and_rides_a_rising_floor() {
    let v = 0.05f64;
    let r = 0.003f32;
    let motion = floor([0.0, v]);
    let h = 1e-4f32;
    let ip = ImpulseParams {
        e: 0.5,
        kp: 0.4,
        integrator: Integrator::Leapfrog,
    };
    let mut g = common::grains(&[(0.0, r + 0.015, r)]);
    g.vel[0] = [0.0, -1.0];
    let alert = 0.001;
    let mut p = params(h, alert);
    p.solver = SolverKind::Impulse;
    let backend = CpuImpulseBackend::new(
        g,
        motion.base.clone(),
        grid([-0.05, -0.01, 0.05, 0.05], r, alert),
        8,
        ip,
    );
    let mut run = Run {
        backend,
        motion: &motion,
        p,
        t: 0.0,
    };
    // The floor starts rising at 10 ms; the grain, 15 mm up at 1 m/s, meets it after.
    let mut v_prev = -1.0f64;
    let bounce = loop {
        let g = run.step();
        let vy = f64::from(g.vel[0][1]);
        if vy > 0.0 {
            break (v_prev, vy);
        }
        v_prev = vy;
        assert!(run.t < 0.03, "no bounce");
    };
    assert!(
        run.t > START + 0.001,
        "the floor rises when the grain meets it (t = {})",
        run.t
    );
    // The impulse acts on the velocity at the step's start, then a full step of gravity.
    let gh = f64::from(G) * f64::from(h);
    let want = v + 0.5 * (v - bounce.0) - gh;
    eprintln!(
        "bounce: in {:.6} m/s, out {:.6} m/s, want {want:.6}",
        bounce.0, bounce.1
    );
    assert!(
        (bounce.1 - want).abs() < 1e-4,
        "left the floor at {} m/s, not {want}",
        bounce.1
    );
    let out = ride(&mut run, v, r, (0.4, 0.7, 0.1));
    eprintln!(
        "riding: overlap largest {:.4e} m, mean at the end {:.4e} m, g h^2 / k_p = {:.4e} m; speed {:.6} m/s",
        out.worst,
        out.overlap_tail,
        gh * f64::from(h) / 0.4,
        out.vy_tail
    );
    assert!(
        (out.vy_tail - v).abs() < 2.0 * gh,
        "rises at {} m/s, floor {v} (g h = {gh})",
        out.vy_tail
    );
    assert!(
        out.overlap_tail < 5.0 * gh * f64::from(h) / 0.4,
        "overlap {} m",
        out.overlap_tail
    );
}

/// The CPU backend on neighbour lists (`move_walls` each step) beside the
/// stepper that detects every step, over `until` s: the steps, the builds
/// of the lists, and the largest distance between the two runs' positions.
struct Listed<'a> {
    run: Run<'a, CpuDemBackend>,
    reference: DemStepper,
    g_ref: Grains,
    steps: u64,
    worst: f32,
}

impl<'a> Listed<'a> {
    fn new(g: Grains, motion: &'a WallMotion, r: f32, until: f64) -> Listed<'a> {
        let dem = DemParams::default();
        let alert = 0.001;
        let p = params(dem_dt(&g, f64::from(dem.kn), 0.1) as f32, alert);
        let sweep = motion.sweep_box(until, 200);
        let bbox = [sweep[0] as f32, sweep[1] as f32, sweep[2] as f32, sweep[3] as f32];
        let grid = grid(bbox, r, alert);
        Listed {
            reference: DemStepper::new(grid, 16, dem),
            g_ref: g.clone(),
            run: Run {
                backend: CpuDemBackend::new(g, motion.base.clone(), grid, 16, dem),
                motion,
                p,
                t: 0.0,
            },
            steps: 0,
            worst: 0.0,
        }
    }

    /// One step of each; whether the reference had an overlap.
    fn step(&mut self) -> bool {
        let walls = self.run.motion.walls(self.run.t, self.run.t + f64::from(self.run.p.dt));
        let a = self.reference.step(&mut self.g_ref, &walls, &self.run.p);
        let g = self.run.step();
        self.steps += 1;
        let apart = (g.pos.iter().zip(&self.g_ref.pos))
            .map(|(a, b)| (a[0] - b[0]).hypot(a[1] - b[1]))
            .fold(0.0, f32::max);
        self.worst = self.worst.max(apart);
        a.max_overlap > 0.0
    }

    fn builds(&self) -> u64 {
        self.run.backend.stepper.neighbours.builds
    }
}

/// Three 2 mm grains at rest in a row on a still floor, with the overlap of
/// their weight, 0.1 mm apart; a piston 4 mm from the first (farther than
/// the lists reach) starts at 10 ms and pushes them 8 mm at 0.3 m/s. The
/// grains at rest never move half the skin: the lists are rebuilt for the
/// piston alone (its displacement past the skin), in time to hold it when it
/// comes within the alert distance, and the run follows the detection every
/// step to rounding. Without the walls in the rule, the piston would pass
/// through the grains.
#[test]
fn neighbour_lists_rebuild_for_a_wall_moving_towards_grains_at_rest() {
    let r = 0.002f32;
    let dem = DemParams::default();
    let y = r - resting_overlap(&dem, r) as f32;
    let g = common::grains(&[(0.0, y, r), (2.0 * r + 1e-4, y, r), (4.0 * r + 2e-4, y, r)]);
    let lines = [
        [-0.02, 0.0, 0.05, 0.0],
        [-r as f64 - 0.004, 0.0, -r as f64 - 0.004, 0.01],
    ];
    let motion = motion_over(
        &lines,
        &[None, Some((translate([0.3, 0.0]).unwrap(), START, START + 0.04))],
    );
    let mut t = Listed::new(g, &motion, r, 0.06);
    let (mut at_start, mut before_contact) = (0, None);
    while t.run.t < 0.06 {
        t.step();
        if t.run.t <= START {
            at_start = t.builds();
        }
        let piston = motion.walls(t.run.t, t.run.t + 1e-6).segments[1].a[0];
        if before_contact.is_none() && t.g_ref.pos[0][0] - r - piston < 0.0 {
            before_contact = Some(t.builds() - at_start);
        }
    }
    let moved = t.run.backend.grains().unwrap().pos[0][0];
    let before = before_contact.expect("the piston reaches the grains");
    eprintln!(
        "{} steps, {} builds ({at_start} before the piston started, {before} while it approached), \
         positions apart by {:.3e} m, the first grain pushed {moved:.4e} m",
        t.steps,
        t.builds(),
        t.worst
    );
    assert!(moved > 0.005, "the piston pushes the grains: the first moved {moved} m");
    // The piston closes 2.5 mm of its 4 mm gap before the lists, which did
    // not hold it, must: rebuilt for it 4 times or more (D_w past the skin).
    assert!(before >= 4, "{before} builds while the piston approached");
    assert!(at_start <= 1, "{at_start} builds while the grains rested");
    assert!(t.builds() * 10 < t.steps, "{} builds in {} steps", t.builds(), t.steps);
    assert!(t.worst < 1e-7, "trajectories apart by {} m (grains of 2 mm)", t.worst);
}

/// A hexagonal pile of 2 mm grains, 6 wide, on a floor that vibrates up and
/// down (0.3 mm at 20 Hz, 0.6 mm from low to high: more than the 0.5 mm
/// skin), pushed to the right by a piston at 0.2 m/s that starts 4 mm from
/// it and stops after 70 ms: the backend keeps its lists across the moves,
/// rebuilds them when grains and walls have moved the skin between them,
/// and follows the trajectories of the stepper that detects every step.
#[test]
fn neighbour_lists_follow_a_vibrated_and_pushed_pile_with_the_trajectories_of_detection_every_step() {
    let r = 0.002f32;
    let (g, _) = common::hex_pile(6, r);
    let width = f64::from((2.0 * r + 1e-5) * 6.0);
    let lines = [
        [-0.02, 0.0, width + 0.021, 0.0],
        [-0.004, 0.0, -0.004, 0.03],
        [width + 0.02, 0.0, width + 0.02, 0.03],
    ];
    let vibrate = Move::Vibrate {
        amplitude: 3e-4,
        frequency: 20.0,
        direction: [0.0, 1.0],
    };
    let piston = translate([0.2, 0.0]).unwrap();
    let motion = motion_over(
        &lines,
        &[Some((vibrate, 0.0, f64::INFINITY)), Some((piston, 0.0, 0.07)), None],
    );
    let mut t = Listed::new(g, &motion, r, 0.1);
    let x0 = t.g_ref.pos[0][0];
    let mut touched = 0u64;
    while t.run.t < 0.1 {
        touched += u64::from(t.step());
    }
    let moved = t.run.backend.grains().unwrap().pos[0][0] - x0;
    eprintln!(
        "{} steps, {} builds, positions apart by {:.3e} m, the pile's corner pushed {moved:.4e} m",
        t.steps,
        t.builds(),
        t.worst
    );
    assert!(
        touched > t.steps / 2,
        "the pile rests on the floor: {touched} steps with overlaps"
    );
    assert!(moved > 0.005, "the piston pushes the pile: its corner moved {moved} m");
    assert!(t.builds() * 10 < t.steps, "{} builds in {} steps", t.builds(), t.steps);
    assert!(t.worst < 2e-7, "trajectories apart by {} m (grains of 2 mm)", t.worst);
}
