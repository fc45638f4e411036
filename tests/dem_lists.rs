//! The DEM step on neighbour lists with a skin (`cpu::dem::neighbours`,
//! docs/dem.md#performance) against the per-stage step that detects every
//! step: rebuilt far fewer times than it steps, the same contacts, forces
//! and history (up to the order forces are summed in), no contact missed by
//! a fast grain, and the detection's contact count redone on demand.

mod common;

use hourglass::cpu::dem::DemStepper;
use hourglass::model::{DemParams, Grains, NormalLaw, SolverKind, StepParams, StepStats, Walls};
use hourglass::scene::build::dem_dt;

/// The two steppers side by side: `reference` detects every step
/// (`DemStepper::step`), `listed` runs `DemStepper::step_listed`.
struct Twin {
    reference: DemStepper,
    listed: DemStepper,
    g_ref: Grains,
    g_list: Grains,
    walls: Walls,
}

impl Twin {
    fn new(g: Grains, walls: Walls, p: &StepParams, dem: DemParams) -> Twin {
        let grid = common::grid_around(&g, &walls, p.alert);
        Twin {
            reference: DemStepper::new(grid, 16, dem),
            listed: DemStepper::new(grid, 16, dem),
            g_ref: g.clone(),
            g_list: g,
            walls,
        }
    }

    /// One step of each; their stats.
    fn step(&mut self, p: &StepParams) -> (StepStats, StepStats) {
        let a = self.reference.step(&mut self.g_ref, &self.walls, p);
        let b = self.listed.step_listed(&mut self.g_list, &self.walls, p);
        (a, b)
    }

    /// The listed step's statistics: its deepest overlap is the reference's;
    /// it counts no contacts and drops none, and the lists redone on demand
    /// count the reference's contacts.
    fn same_stats(&mut self, a: &StepStats, b: &StepStats, k: u64) {
        assert_eq!(
            (b.contacts, b.overflow),
            (0, 0),
            "step {k}: the listed step counts nothing"
        );
        let redone = self.listed.contact_lists(&self.g_list, &self.walls).distinct();
        assert_eq!(a.contacts, redone, "step {k}: contacts within the alert distance");
        assert!(
            (a.max_overlap - b.max_overlap).abs() <= 1e-3 * a.max_overlap + 1e-9,
            "step {k}: overlap {} vs {}",
            a.max_overlap,
            b.max_overlap
        );
    }

    /// Largest distance between the two runs' positions, m.
    fn apart(&self) -> f32 {
        let d = |a: [f32; 2], b: [f32; 2]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
        self.g_ref
            .pos
            .iter()
            .zip(&self.g_list.pos)
            .map(|(&a, &b)| d(a, b))
            .fold(0.0, f32::max)
    }
}

fn params(dt: f32, alert: f32) -> StepParams {
    let mut p = common::params(SolverKind::Dem);
    p.dt = dt;
    p.alert = alert;
    p
}

/// A hexagonal pile of 2 mm grains lifted off its floor, every grain thrown
/// at up to 0.3 m/s in its own direction: it falls, collides and scatters.
fn thrown_pile() -> (Grains, Walls) {
    let (mut g, walls) = common::hex_pile(10, 0.002);
    for i in 0..g.len() {
        let a = i as f32 * 2.4;
        g.pos[i][1] += 0.0005;
        g.vel[i] = [0.3 * a.cos(), 0.3 * a.sin()];
    }
    (g, walls)
}

#[test]
fn lists_rebuilt_rarely_give_the_contacts_and_trajectories_of_detection_every_step() {
    let (g, walls) = thrown_pile();
    let dem = DemParams::default();
    let p = params(dem_dt(&g, f64::from(dem.kn), 0.1) as f32, 0.001);
    let mut t = Twin::new(g, walls, &p, dem);
    let steps = 4000;
    let (mut touching, mut worst) = (0u64, 0.0f32);
    for k in 0..steps {
        let (a, b) = t.step(&p);
        if k % 10 == 0 {
            t.same_stats(&a, &b, k);
        }
        assert_eq!(a.overflow, 0, "step {k}: the reference's lists hold every contact");
        touching += u64::from(a.max_overlap > 0.0);
        worst = worst.max(t.apart());
        if k == 500 {
            // Rounding apart (the forces summed in another order), a few
            // units in the last place of a position near 0.02 m; chaos
            // amplifies it later.
            assert!(worst < 2e-8, "step {k}: trajectories apart by {worst} m");
        }
    }
    let builds = t.listed.neighbours.builds;
    eprintln!("{steps} steps, {builds} builds, {touching} steps with overlaps, positions apart by {worst:.3e} m");
    assert!(
        touching > steps / 2,
        "the pile must collide: {touching} steps with overlaps"
    );
    assert!(builds >= 2, "the grains move past half the skin: {builds} builds");
    assert!(builds * 20 < steps, "{builds} builds in {steps} steps");
    assert!(worst < 2e-6, "trajectories apart by {worst} m (grains of 2 mm)");
    // The lists handed to the totals are the detection's, with its gaps
    // (within how far the two runs' grains now are apart).
    let tol = 2.0 * t.apart() + 1e-9;
    let (lr, ll) = (&t.reference.lists, t.listed.contact_lists(&t.g_list, &t.walls));
    assert_eq!(lr.count, ll.count);
    for i in 0..lr.grains() {
        for (c, d) in lr.of(i).iter().zip(ll.of(i)) {
            assert_eq!(c.other, d.other, "grain {i}: listed in the same order");
            assert!((c.gap - d.gap).abs() <= tol, "grain {i}: gap {} vs {}", c.gap, d.gap);
        }
    }
}

/// Two grains 2 cm apart meeting head-on at `v` m/s each, no gravity, with
/// a step in which each crosses `per_step` alert distances.
fn fast_collision(v: f32, per_step: f32, law: NormalLaw) -> (Twin, StepParams) {
    let r = 0.002;
    let alert = 0.001;
    let mut g = common::grains(&[(0.0, 0.0, r), (0.02, 0.0, r)]);
    (g.vel[0], g.vel[1]) = ([v, 0.0], [-v, 0.0]);
    let walls = common::walls(&[[-0.01, -0.01, 0.05, -0.01]]);
    let mut p = params(per_step * alert / v, alert);
    p.gravity = [0.0, 0.0];
    let dem = DemParams {
        law,
        ..DemParams::default()
    };
    (Twin::new(g, walls, &p, dem), p)
}

#[test]
fn a_fast_grain_forces_rebuilds_and_misses_no_contact() {
    // A quarter of the alert distance (0.25 mm) per step: the skin is a
    // quarter of the 2 mm radius (0.5 mm), so half of it in one step.
    let (mut t, p) = fast_collision(5.0, 0.25, NormalLaw::Hertz);
    let mut touched = 0;
    for k in 0..400 {
        let (a, b) = t.step(&p);
        t.same_stats(&a, &b, k);
        assert_eq!(a.max_overlap, b.max_overlap, "step {k}");
        assert_eq!(
            t.g_ref.pos, t.g_list.pos,
            "step {k}: one contact per grain sums in one order"
        );
        assert_eq!(t.g_ref.vel, t.g_list.vel, "step {k}");
        touched += usize::from(a.max_overlap > 0.0);
    }
    let builds = t.listed.neighbours.builds;
    eprintln!(
        "{builds} builds in 400 steps, {touched} steps in contact, v {:?}",
        t.g_list.vel
    );
    assert!(touched > 0, "the grains collide");
    let (x, v) = (&t.g_list.pos, &t.g_list.vel);
    assert!(x[0][0] < x[1][0], "the grains did not pass through each other: {x:?}");
    assert!(v[0][0] < 0.0 && v[1][0] > 0.0, "the grains bounced back: {v:?}");
    assert!(
        builds > 20,
        "the fast grain crosses half the skin every few steps: {builds} builds"
    );
}

#[test]
fn hertz_mindlin_history_survives_rebuilds() {
    // Grain 0 slides on the floor under gravity (its tangential spring
    // loaded and slipping); grain 1, far away, flies fast and forces
    // rebuilds while the contact lasts.
    let r = 0.002;
    let alert = 0.001;
    let mut g = common::grains(&[(0.0, r - 2e-6, r), (0.02, 0.01, r)]);
    g.vel[0] = [0.05, 0.0];
    g.vel[1] = [2.0, 0.0];
    let walls = common::walls(&[[-0.05, 0.0, 0.5, 0.0]]);
    let dem = DemParams {
        law: NormalLaw::HertzMindlin,
        ..DemParams::default()
    };
    let p = params(dem_dt(&g, f64::from(dem.kn), 0.1) as f32, alert);
    let mut t = Twin::new(g, walls, &p, dem);
    let mut loaded = 0;
    for k in 0..3000 {
        let (a, b) = t.step(&p);
        t.same_stats(&a, &b, k);
        assert_eq!(a.max_overlap, b.max_overlap, "step {k}");
        assert_eq!(t.g_ref.pos, t.g_list.pos, "step {k}");
        assert_eq!(t.g_ref.ang_vel, t.g_list.ang_vel, "step {k}");
        let want = t.reference.lists.of(0).first().map_or(0.0, |c| c.impulse_t);
        let got = t
            .listed
            .contact_lists(&t.g_list, &t.walls)
            .of(0)
            .first()
            .map_or(0.0, |c| c.impulse_t);
        assert_eq!(want, got, "step {k}: the floor contact's history");
        loaded += usize::from(want != 0.0);
    }
    let builds = t.listed.neighbours.builds;
    eprintln!("{builds} builds, history loaded on {loaded} of 3000 steps");
    assert!(loaded > 2000, "the contact holds a history: {loaded} steps");
    assert!(builds > 10, "the fast grain forces rebuilds: {builds}");
}

/// The census of new contacts (`backend::census`), which looks on lists
/// with a skin, against the detection at every step: the same touching
/// pairs, new contacts and elastic energy at every step of the thrown pile,
/// for the DEM's touch distance (0) and an NSCD tolerance.
#[test]
fn the_census_on_lists_counts_what_detection_every_step_counts() {
    use hourglass::backend::census::{Census, Elastic};
    use hourglass::model::Body;
    use std::collections::BTreeSet;

    let (g0, walls) = thrown_pile();
    let dem = DemParams::default();
    let p = params(dem_dt(&g0, f64::from(dem.kn), 0.1) as f32, 0.001);
    let grid = common::grid_around(&g0, &walls, p.alert);
    let elastic = Elastic::Hertz { kn: f64::from(dem.kn) };
    for touch in [0.0, 5e-5] {
        let (mut g, mut stepper) = (g0.clone(), DemStepper::new(grid, 16, dem));
        let mut census = Census::new(grid, 32, elastic, touch);
        let mut before = BTreeSet::new();
        let (mut new_grain, mut new_wall) = (0u64, 0u64);
        for k in 0..1500 {
            stepper.step_listed(&mut g, &walls, &p);
            let t = census.look(&g, &walls, k == 0);
            let counted = census.take();
            // The reference: the detection's lists at alert `touch`.
            let lists = census.lists(&g, &walls);
            let (mut now, mut energy) = (BTreeSet::new(), 0.0);
            for i in 0..lists.grains() {
                for c in lists.of(i).iter().filter(|c| c.gap < touch) {
                    let key = match c.body() {
                        Body::Grain(j) if (j as usize) < i => continue,
                        Body::Grain(j) => (g.id[i].min(g.id[j as usize]), g.id[i].max(g.id[j as usize]), 0),
                        Body::Segment(s) => (g.id[i], s, 1),
                        Body::Corner(s) => (g.id[i], s, 2),
                    };
                    if c.gap < 0.0 {
                        energy += elastic.energy(f64::from(-c.gap));
                    }
                    now.insert(key);
                }
            }
            let grain_pairs = now.iter().filter(|key| key.2 == 0).count() as u64;
            assert_eq!(
                (t.grain_pairs, t.wall_pairs),
                (grain_pairs, now.len() as u64 - grain_pairs),
                "touch {touch}, step {k}"
            );
            assert!(
                (t.elastic_energy - energy).abs() <= 1e-9 * energy,
                "touch {touch}, step {k}: elastic energy {} vs {energy}",
                t.elastic_energy
            );
            let fresh: Vec<_> = if k == 0 {
                Vec::new()
            } else {
                now.difference(&before).collect()
            };
            let fresh_grain = fresh.iter().filter(|key| key.2 == 0).count() as u64;
            assert_eq!(
                counted,
                (fresh_grain, fresh.len() as u64 - fresh_grain),
                "touch {touch}, step {k}: new contacts"
            );
            (new_grain, new_wall) = (new_grain + counted.0, new_wall + counted.1);
            before = now;
        }
        eprintln!("touch {touch}: {new_grain} new grain contacts, {new_wall} new wall contacts");
        assert!(
            new_grain > 20 && new_wall > 2,
            "the pile collides: {new_grain}, {new_wall}"
        );
    }
}

/// What the detection a row redoes drops (lists of K slots full) is the
/// next listed step's overflow, once, so that a run warns of it.
#[test]
fn a_row_detection_that_drops_contacts_is_the_next_step_overflow() {
    let (mut g, walls) = common::hex_pile(6, 0.002);
    let dem = DemParams::default();
    let p = params(dem_dt(&g, f64::from(dem.kn), 0.1) as f32, 0.001);
    let grid = common::grid_around(&g, &walls, p.alert);
    // Two slots: a grain of the hexagonal pile has up to six neighbours.
    let mut s = DemStepper::new(grid, 2, dem);
    assert_eq!(s.step_listed(&mut g, &walls, &p).overflow, 0);
    let lists = s.contact_lists(&g, &walls);
    let dropped: u64 = (0..lists.grains())
        .map(|i| u64::from(lists.count[i].saturating_sub(2)))
        .sum();
    assert!(dropped > 0, "the pile's lists overflow two slots");
    assert_eq!(s.step_listed(&mut g, &walls, &p).overflow, dropped);
    assert_eq!(s.step_listed(&mut g, &walls, &p).overflow, 0, "reported once");
}

/// Grains added to the run (an emitter) keep the others' Hertz-Mindlin
/// history on the lists: a grain sliding on the floor goes on as in a run
/// where no grain was added (the added one, far away, touches nothing), up
/// to the force the step after an addition computes anew from the current
/// state (full-step rather than half-step velocities).
#[test]
fn hertz_mindlin_history_survives_added_grains() {
    let r = 0.002;
    let mut g = common::grains(&[(0.0, r - 2e-6, r)]);
    g.vel[0] = [0.05, 0.0];
    let walls = common::walls(&[[-0.05, 0.0, 0.5, 0.0]]);
    let dem = DemParams {
        law: NormalLaw::HertzMindlin,
        ..DemParams::default()
    };
    let p = params(dem_dt(&g, f64::from(dem.kn), 0.1) as f32, 0.001);
    let grid = common::grid_around(&g, &walls, p.alert);
    let (mut alone, mut joined) = (DemStepper::new(grid, 16, dem), DemStepper::new(grid, 16, dem));
    let (mut ga, mut gj) = (g.clone(), g);
    let floor = |s: &mut DemStepper, g: &Grains| s.contact_lists(g, &walls).of(0).first().map_or(0.0, |c| c.impulse_t);
    for k in 0..600 {
        alone.step_listed(&mut ga, &walls, &p);
        joined.step_listed(&mut gj, &walls, &p);
        if k == 300 {
            assert!(floor(&mut joined, &gj) != 0.0, "the floor contact holds a history");
            // A grain dropped far away, as an emitter adds one.
            gj.extend(&common::grains(&[(0.03, 0.01, r)]));
        }
        let (a, j) = (floor(&mut alone, &ga), floor(&mut joined, &gj));
        assert!(
            (a - j).abs() <= 1e-3 * a.abs() + 1e-9,
            "step {k}: the floor contact's history {a} vs {j}"
        );
        let apart = (ga.pos[0][0] - gj.pos[0][0]).hypot(ga.pos[0][1] - gj.pos[0][1]);
        assert!(apart < 1e-9, "step {k}: positions apart by {apart} m");
    }
}
