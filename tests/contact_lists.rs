//! Contact lists that grow: the CPU backend's stepper starts with
//! `cpu::START_CAPACITY` slots per grain, grows to the fullest list when a
//! grain overflows them, and keeps of a finished step only the contacts
//! that carry over; the census starts with
//! `cpu::detect::TOUCHING_START_CAPACITY`. They must step and count exactly
//! as lists of the full capacity do.

mod common;

use common::grains;
use hourglass::backend::census::{Census, Elastic};
use hourglass::backend::cpu::SPLIT_SWEEP_MIN;
use hourglass::backend::overlap::OverlapHistogram;
use hourglass::backend::{Backend, CpuBackend, grid_for};
use hourglass::cpu::CpuStepper;
use hourglass::cpu::detect::TOUCHING_START_CAPACITY;
use hourglass::model::{Grid, Walls};
use hourglass::scene::{Scene, build};

/// 600 grains of the bundled hourglass discharging, with an alert distance
/// of 12 mm so that grains list more neighbours than the start capacity:
/// 300 steps on the growing lists and on fixed lists of 64 slots give the
/// same grains bit for bit, and the growing lists hold far fewer slots.
#[test]
fn growing_lists_step_exactly_as_full_lists_in_fewer_slots() {
    let mut scene = Scene::default();
    scene.grains.count = 600;
    scene.solver.alert = 0.012;
    scene.solver.contact_capacity = 64;
    let setup = build(&scene).unwrap();
    let p = setup.params;
    let grid = grid_for(&setup).unwrap();
    let walls = setup.walls(false).clone();
    let mut growing = CpuBackend::new(setup.grains.clone(), walls.clone(), grid, 64);
    let mut full = CpuBackend::new(setup.grains.clone(), walls, grid, 64);
    full.stepper = CpuStepper::new(grid, 64);
    full.stepper.sweep_par_min = SPLIT_SWEEP_MIN;
    let mut fullest = 0;
    for step in 0..300 {
        let a = growing.step(&p).unwrap();
        let b = full.step(&p).unwrap();
        assert_eq!(a.overflow, 0, "step {step}");
        assert_eq!((a.iterations, a.contacts), (b.iterations, b.contacts), "step {step}");
        let lists = growing.stepper.detected();
        let most = lists.count.iter().max().copied().unwrap_or(0) as usize;
        fullest = fullest.max(most);
        assert!(
            lists.capacity >= most,
            "step {step}: {} slots, a list of {most}",
            lists.capacity
        );
        // What the next step warm-starts from: only contacts that carry over.
        let kept = growing.stepper.contacts();
        for i in 0..kept.grains() {
            assert!(kept.of(i).iter().all(|c| c.carries_over()), "step {step}, grain {i}");
        }
        assert!(kept.capacity <= lists.capacity, "step {step}");
    }
    let (g, f) = (growing.grains().unwrap().clone(), full.grains().unwrap().clone());
    assert_eq!(g.pos, f.pos);
    assert_eq!(g.vel, f.vel);
    assert!(
        fullest > hourglass::cpu::START_CAPACITY,
        "the lists never had to grow ({fullest})"
    );
    let slots = growing.stepper.detected().capacity;
    assert!(
        slots < 64 && slots <= fullest + hourglass::cpu::detect::GROW_SLOTS,
        "{slots} slots, fullest {fullest}"
    );
}

/// A disk of 10 mm touched by twelve of 3 mm: more touching pairs than the
/// census's start capacity. The census counts all twelve, and the overlap
/// histogram, sampling the census's lists, counts each overlap once.
#[test]
fn a_grain_with_more_touching_neighbours_than_the_start_capacity_is_counted_whole() {
    let (big, small) = (0.01f32, 0.003f32);
    let mut list = vec![(0.0, 0.0, big)];
    let reach = big + small - 1e-6; // each small disk overlaps the big one by 1 um
    for k in 0..12 {
        let a = k as f32 * std::f32::consts::TAU / 12.0;
        list.push((reach * a.cos(), reach * a.sin(), small));
    }
    let g = grains(&list);
    const { assert!(12 > TOUCHING_START_CAPACITY) };
    let grid = Grid::covering([-0.05, -0.05, 0.05, 0.05], 2.0 * big + 1e-3).unwrap();
    let mut census = Census::new(grid, 64, Elastic::Rigid, 1e-7);
    let t = census.look(&g, &Walls::default(), true);
    assert_eq!((t.grain_pairs, t.wall_pairs), (12, 0));
    let lists = census.lists(&g, &Walls::default());
    assert!(lists.capacity >= 12 && lists.capacity < 64, "{} slots", lists.capacity);
    let mut h = OverlapHistogram::new(f64::from(small));
    h.sample(lists);
    assert_eq!(h.total(), 12);
    assert!((h.quantile(1.0) - 1e-6).abs() < 1e-6, "{}", h.quantile(1.0));
}
