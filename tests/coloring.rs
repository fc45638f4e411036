//! Contact colouring (cpu::coloring): on many random contact graphs and on real
//! packed states, no two contacts of one colour share a movable grain, both
//! copies of a pair carry one colour, every contact gets a colour, and the
//! colour count stays within the bounds stated in docs/solvers.md.

mod common;

use common::*;
use hourglass::cpu::coloring::{self, color_contacts, owns};
use hourglass::model::contact::BODY_SEGMENT;
use hourglass::model::{Body, Contact, ContactLists, Dim2, SolverKind};
use hourglass::model::{MAX_COLORS, OVERFLOW, UNCOLORED};

/// xorshift64*, reproducible without rand's API.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

/// Push a copy of a contact into grain i's list (counted even when full: an overflow).
fn push(l: &mut ContactLists, i: usize, other: u32) {
    let k = l.capacity;
    let n = l.count[i] as usize;
    if n < k {
        l.slots[i * k + n] = Contact {
            other,
            gap: 0.0,
            inv_mass_sum: 1.0,
            impulse: 0.0,
            normal: [1.0, 0.0],
            ..Contact::default()
        };
    }
    l.count[i] += 1;
}

/// A random contact graph: `pairs` grain pairs (both copies), `walls` wall contacts.
fn random_lists(rng: &mut Rng, n: usize, k: usize, pairs: usize, walls: usize) -> ContactLists {
    let mut l = ContactLists::new(n, k);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..pairs {
        let (i, j) = (rng.below(n), rng.below(n));
        if i == j || !seen.insert((i.min(j), i.max(j))) {
            continue;
        }
        // Either order of insertion, so owner and mirror slots vary.
        push(&mut l, i, j as u32);
        push(&mut l, j, i as u32);
    }
    for _ in 0..walls {
        let i = rng.below(n);
        let seg = BODY_SEGMENT | rng.below(3) as u32;
        if !l.of(i).iter().any(|c| c.other == seg) {
            push(&mut l, i, seg);
        }
    }
    l
}

/// Every property of a valid colouring; returns the colour count.
fn assert_valid(what: &str, l: &ContactLists, inv_mass: &[f32], c: &coloring::Coloring) -> u32 {
    let k = l.capacity;
    let mut used: std::collections::HashSet<(u32, usize)> = Default::default();
    let mut max_seen = 0;
    for a in 0..l.grains() {
        for (s, ct) in l.of(a).iter().enumerate() {
            let col = c.color[a * k + s];
            assert_ne!(col, UNCOLORED, "{what}: grain {a} slot {s} uncoloured");
            if !owns(a as u32, ct.other) {
                continue;
            }
            assert!(col < MAX_COLORS || col == OVERFLOW, "{what}: colour {col}");
            let mut grains = vec![a];
            if let Body::Grain(b) = ct.body() {
                let b = b as usize;
                grains.push(b);
                // The mirror copy, when listed, carries the same colour.
                if let Some(t) = l.of(b).iter().position(|m| m.other == a as u32) {
                    assert_eq!(c.color[b * k + t], col, "{what}: copies of ({a}, {b}) differ");
                }
            }
            if col == OVERFLOW {
                continue;
            }
            max_seen = max_seen.max(col + 1);
            for g in grains {
                if inv_mass[g] > 0.0 {
                    assert!(
                        used.insert((col, g)),
                        "{what}: colour {col} has two contacts of grain {g}"
                    );
                }
            }
        }
    }
    assert_eq!(max_seen, c.colors, "{what}: colour count");
    c.colors
}

#[test]
fn random_contact_graphs_are_properly_coloured() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut worst_ratio = 0.0f64;
    for case in 0..300 {
        let n = 1 + rng.below(400);
        let k = [2, 4, 8, 16, 32][rng.below(5)];
        let pairs = rng.below(n * k);
        let walls = rng.below(n);
        let l = random_lists(&mut rng, n, k, pairs, walls);
        let mut inv_mass = vec![1.0f32; n];
        for _ in 0..rng.below(n / 10 + 1) {
            inv_mass[rng.below(n)] = 0.0;
        }
        let what = format!("case {case} (n {n}, K {k}, {pairs} pairs)");
        let c = color_contacts(&l, &inv_mass);
        let colors = assert_valid(&what, &l, &inv_mass, &c);
        // First fit never needs more colours than the largest degree + 1,
        // degree <= 2 (K - 1): with K <= 32 the overflow colour holds only
        // contacts whose mirror a full list dropped.
        let degree = (0..n).map(|a| l.of(a).len()).max().unwrap_or(0);
        assert!(
            colors as usize <= 2 * degree.max(1),
            "{what}: {colors} colours, max list {degree}"
        );
        // One-sided pairs: b's list dropped the contact (a owns it: a < b), or
        // a's list did (b keeps an orphan: b > a, counted from b's side).
        let one_sided = (0..n)
            .flat_map(|a| l.of(a).iter().map(move |ct| (a, ct)))
            .filter(|(a, ct)| {
                matches!(ct.body(), Body::Grain(b) if b as usize != *a
                    && !l.of(b as usize).iter().any(|m| m.other == *a as u32))
            })
            .count() as u32;
        assert_eq!(
            c.overflow, one_sided,
            "{what}: overflow holds exactly the one-sided pairs"
        );
        worst_ratio = worst_ratio.max(f64::from(colors) / degree.max(1) as f64);
    }
    println!("worst colours / largest list: {worst_ratio:.2}");
}

#[test]
fn coloring_is_independent_of_slot_order() {
    let mut rng = Rng(77);
    let l = random_lists(&mut rng, 300, 16, 1200, 100);
    let inv_mass = vec![1.0f32; 300];
    let a = color_contacts(&l, &inv_mass);
    // Reverse every list: the same contacts in other slots.
    let mut r = l.clone();
    let k = r.capacity;
    for i in 0..r.grains() {
        let n = (r.count[i] as usize).min(k);
        r.slots[i * k..i * k + n].reverse();
    }
    let b = color_contacts(&r, &inv_mass);
    for i in 0..l.grains() {
        let n = (l.count[i] as usize).min(k);
        for s in 0..n {
            assert_eq!(a.color[i * k + s], b.color[i * k + n - 1 - s]);
        }
    }
    assert_eq!((a.colors, a.rounds), (b.colors, b.rounds));
}

#[test]
fn empty_and_single_grain_lists() {
    let c = color_contacts(&ContactLists::<Dim2>::new(0, 8), &[]);
    assert_eq!((c.colors, c.overflow, c.rounds), (0, 0, 0));
    let mut l = ContactLists::new(1, 8);
    push(&mut l, 0, BODY_SEGMENT);
    push(&mut l, 0, BODY_SEGMENT | 1);
    let c = color_contacts(&l, &[1.0]);
    assert_eq!(c.colors, 2, "two walls on one movable grain need two colours");
    let c = color_contacts(&l, &[0.0]);
    assert_eq!(c.colors, 1, "a fixed grain never conflicts");
}

#[test]
fn hex_pile_and_settled_hourglass_are_properly_coloured() {
    // A packed hexagonal pile: 6 contacts per inner grain.
    let p = params(SolverKind::Nlgs);
    let (g, w) = hex_pile(30, 0.003);
    let mut s = stepper([-0.01, -0.01, 0.2, 0.2], 0.003, &p);
    let lists = s.detect(&g, &w, p.alert).clone();
    let c = color_contacts(&lists, &g.inv_mass);
    let colors = assert_valid("hex pile", &lists, &g.inv_mass, &c);
    println!(
        "hex pile: {} contacts, {colors} colours, {} rounds",
        lists.distinct(),
        c.rounds
    );
    assert!((7..=14).contains(&colors), "hex pile: {colors} colours");

    // A short-settled polydisperse hourglass.
    let mut scene = hourglass::scene::Scene::default();
    scene.grains.count = 600;
    let setup = hourglass::scene::build(&scene).unwrap();
    let grid = hourglass::backend::grid_for(&setup).unwrap();
    let walls = setup.walls(true);
    let mut stepper = hourglass::cpu::CpuStepper::new(grid, 32);
    let mut g = setup.grains.clone();
    let mut p = setup.params;
    p.solver = SolverKind::Colored;
    for _ in 0..150 {
        stepper.step(&mut g, walls, &p).unwrap();
    }
    let lists = stepper.detect(&g, walls, p.alert).clone();
    let c = color_contacts(&lists, &g.inv_mass);
    let colors = assert_valid("hourglass", &lists, &g.inv_mass, &c);
    println!(
        "hourglass: {} contacts, {colors} colours, {} rounds",
        lists.distinct(),
        c.rounds
    );
    assert!(
        colors <= 20 && c.overflow == 0,
        "hourglass: {colors} colours, overflow {}",
        c.overflow
    );
}
