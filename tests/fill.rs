//! The grain fill (lowest-pocket deposition, `scene::fill`): overlap-free,
//! inside the walls, dense, reproducible from the seed.
//!
//! Area fraction, as asserted here: sum(pi r^2) over the grains divided by
//! the area of the fill region from the neck (the gate) up to the top of the
//! highest grain, A = integral of w(y) dy, where w(y) is the length of the
//! horizontal line at height y that lies inside the walls (even-odd
//! crossings of the wall lines, gate excluded). w is linear between the
//! heights of the wall end points, so the midpoint rule over those intervals
//! is exact.

use hourglass::scene::fill::{self, FillRegion, point_in_polygon, segment_distance};
use hourglass::scene::hourglass::outline;
use hourglass::scene::{GrainsSpec, HourglassSpec, Scene, Setup, build};

type Line = [[f64; 2]; 2];

fn lines(setup: &Setup, with_gate: bool) -> Vec<Line> {
    let f = |p: [f32; 2]| [f64::from(p[0]), f64::from(p[1])];
    setup
        .walls(with_gate)
        .segments
        .iter()
        .map(|s| [f(s.a), f(s.b)])
        .collect()
}

fn grains(setup: &Setup) -> Vec<([f64; 2], f64)> {
    let g = &setup.grains;
    (0..g.len())
        .map(|i| {
            let p = g.pos[i];
            ([f64::from(p[0]), f64::from(p[1])], f64::from(g.radius[i]))
        })
        .collect()
}

fn hourglass(count: u64, seed: u64) -> Setup {
    let mut scene = Scene::default();
    scene.grains.count = count;
    scene.grains.seed = seed;
    build(&scene).unwrap()
}

fn silo() -> Setup {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/silo.toml");
    build(&Scene::load(std::path::Path::new(path)).unwrap()).unwrap()
}

/// No two grains overlap (as the simulator gets them, in f32), every grain
/// is clear of every wall and gate line, inside the walls and above the neck.
fn assert_overlap_free_and_inside(name: &str, setup: &Setup) {
    let g = grains(setup);
    assert_eq!(g.len(), setup.scene.grains.count as usize, "{name}");
    // Sweep in x: only grains closer in x than two largest radii can touch.
    let r_max = g.iter().map(|p| p.1).fold(0.0, f64::max);
    let mut order: Vec<usize> = (0..g.len()).collect();
    order.sort_by(|&i, &j| g[i].0[0].total_cmp(&g[j].0[0]));
    for (k, &i) in order.iter().enumerate() {
        let (p, r) = g[i];
        for &j in &order[k + 1..] {
            let (q, s) = g[j];
            if q[0] - p[0] > 2.0 * r_max {
                break;
            }
            let d = (q[0] - p[0]).hypot(q[1] - p[1]);
            assert!(d >= r + s, "{name}: grains {i} and {j} overlap by {:e} m", r + s - d);
        }
    }
    let all = lines(setup, true);
    let outline = lines(setup, false);
    for (i, &(p, r)) in g.iter().enumerate() {
        for (k, &l) in all.iter().enumerate() {
            let d = segment_distance(p, l);
            assert!(d >= r, "{name}: grain {i} crosses wall line {k} by {:e} m", r - d);
        }
        assert!(
            point_in_polygon(p, &outline),
            "{name}: grain {i} at {p:?} is outside the walls"
        );
        assert!(p[1] - r >= setup.neck_y, "{name}: grain {i} is below the neck");
    }
}

/// w(y): length inside the walls on the horizontal line at y.
fn width(y: f64, outline: &[Line]) -> f64 {
    let mut xs: Vec<f64> = outline
        .iter()
        .filter(|[a, b]| (a[1] > y) != (b[1] > y))
        .map(|[a, b]| a[0] + (y - a[1]) / (b[1] - a[1]) * (b[0] - a[0]))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.chunks_exact(2).map(|c| c[1] - c[0]).sum()
}

/// Area inside the walls between heights y0 and y1 (module doc).
fn area_between(y0: f64, y1: f64, outline: &[Line]) -> f64 {
    let mut ys: Vec<f64> = outline
        .iter()
        .flatten()
        .map(|p| p[1])
        .filter(|&y| y > y0 && y < y1)
        .collect();
    ys.extend([y0, y1]);
    ys.sort_by(f64::total_cmp);
    ys.windows(2)
        .map(|w| (w[1] - w[0]) * width(0.5 * (w[0] + w[1]), outline))
        .sum()
}

fn area_fraction(setup: &Setup) -> f64 {
    let g = grains(setup);
    let top = g.iter().map(|(p, r)| p[1] + r).fold(f64::NEG_INFINITY, f64::max);
    let solid: f64 = g.iter().map(|(_, r)| std::f64::consts::PI * r * r).sum();
    solid / area_between(setup.neck_y, top, &lines(setup, false))
}

#[test]
fn the_area_integral_is_exact_on_the_bare_hourglass() {
    // Trapezoid funnel from the neck (half width a) to the wall (half width
    // w/2) at hs, then a rectangle up to the top H.
    let setup = hourglass(10, 1);
    let spec = setup.scene.walls.hourglass.clone().unwrap();
    let (a, hw) = (spec.neck * setup.scene.grains.radius_mean, 0.5 * spec.width);
    let hs = (hw - a) * spec.slope_deg.to_radians().tan();
    let expected = (a + hw) * hs + 2.0 * hw * (spec.bulb_height - hs);
    let got = area_between(0.0, spec.bulb_height, &lines(&setup, false));
    assert!((got - expected).abs() < 1e-6 * expected, "{got} vs {expected}");
}

#[test]
fn hourglass_2000_is_overlap_free_inside_and_dense() {
    let setup = hourglass(2000, 1);
    assert_overlap_free_and_inside("hourglass 2000", &setup);
    let phi = area_fraction(&setup);
    println!("hourglass 2000: area fraction {phi:.4}");
    assert!(phi >= 0.7, "area fraction {phi}");
}

#[test]
fn hourglass_20000_is_overlap_free_inside_and_dense() {
    let setup = hourglass(20_000, 1);
    assert_overlap_free_and_inside("hourglass 20000", &setup);
    let phi = area_fraction(&setup);
    println!("hourglass 20000: area fraction {phi:.4}");
    assert!(phi >= 0.7, "area fraction {phi}");
}

#[test]
fn silo_is_overlap_free_inside_and_dense() {
    let setup = silo();
    assert_overlap_free_and_inside("silo", &setup);
    let phi = area_fraction(&setup);
    println!("silo: area fraction {phi:.4}");
    assert!(phi >= 0.7, "area fraction {phi}");
}

#[test]
fn grain_ids_grow_with_height() {
    // The renderer colours layers by id: the first tenth of the grains lies
    // below the last tenth, on average by most of the fill's height.
    let g = grains(&hourglass(2000, 1));
    let mean_y = |s: &[([f64; 2], f64)]| s.iter().map(|(p, _)| p[1]).sum::<f64>() / s.len() as f64;
    let (first, last) = (mean_y(&g[..200]), mean_y(&g[1800..]));
    let top = g.iter().map(|(p, _)| p[1]).fold(0.0, f64::max);
    assert!(
        last - first > 0.5 * top,
        "first tenth at {first} m, last at {last} m, top {top} m"
    );
}

#[test]
fn the_same_seed_gives_the_same_grains_and_another_seed_others() {
    let key = |s: &Setup| (s.grains.pos.clone(), s.grains.radius.clone());
    let (a, b, c) = (hourglass(2000, 1), hourglass(2000, 1), hourglass(2000, 2));
    assert_eq!(key(&a), key(&b));
    assert_ne!(a.grains.radius, c.grains.radius);
    assert_ne!(a.grains.pos, c.grains.pos);
}

#[test]
fn a_full_box_places_a_prefix_and_the_scene_names_the_shortfall() {
    // 400 grains of 3 mm in a 6 cm x 6 cm box: at most ~(0.0036 / 2.8e-5)
    // = 127 fit even at area fraction 1.
    let radii = vec![0.003; 400];
    let w = 0.06;
    let region = FillRegion {
        bbox: [0.0, 0.0, w, w],
        polygon: None,
        obstacles: &[],
    };
    let placed = fill::place(&radii, &region, &mut fill::rng(1));
    assert!(placed.len() < 127 && placed.len() > 80, "{} placed", placed.len());
    let mut scene = Scene::default();
    scene.walls.segments = Some(vec![[0.0, w, 0.0, 0.0], [0.0, 0.0, w, 0.0], [w, 0.0, w, w]]);
    scene.grains.region = Some([0.0, 0.0, w, w]);
    scene.grains.count = 400;
    let err = build(&scene).unwrap_err().to_string();
    assert!(err.contains("400 grains requested but only"), "{err}");
    assert!(fill::place(&[], &region, &mut fill::rng(1)).is_empty());
}

#[test]
fn a_denser_fill_fits_a_smaller_hourglass() {
    // At the old 0.46 the 2,000 default grains needed the bulb enlarged;
    // the default 0.30 m x 0.40 m bulb now holds them.
    let spec = hourglass(2000, 1).scene.walls.hourglass.unwrap();
    assert_eq!((spec.width, spec.bulb_height), (0.30, 0.40));
}

/// Placement at scale: 50,000 grains of the default radii in the default
/// hourglass scaled to hold them at area fraction ~0.66 are all placed. How
/// long placement takes is a benchmark, not a test: `cargo bench --bench
/// fill` (BENCHMARKS.md).
#[test]
fn fifty_thousand_grains_all_place_in_a_scaled_hourglass() {
    let base = HourglassSpec::default();
    let spec = GrainsSpec::default();
    {
        let n = 50_000usize;
        let radii = fill::sample_radii(&spec, n, &mut fill::rng(1));
        let solid: f64 = radii.iter().map(|r| std::f64::consts::PI * r * r).sum();
        // The default upper bulb (0.30 m x 0.40 m) has 0.0965 m^2.
        let s = (solid / 0.66 / 0.0965).sqrt();
        let hg = HourglassSpec {
            width: base.width * s,
            bulb_height: base.bulb_height * s,
            ..base.clone()
        };
        let out = outline(&hg, spec.radius_mean).unwrap();
        let mut obstacles = out.walls.clone();
        obstacles.push(out.gate);
        let region = FillRegion {
            bbox: [-0.5 * hg.width, 0.0, 0.5 * hg.width, hg.bulb_height],
            polygon: Some(&out.walls),
            obstacles: &obstacles,
        };
        let placed = fill::place(&radii, &region, &mut fill::rng(2));
        assert_eq!(placed.len(), n, "bulb {:.2} m wide", hg.width);
    }
}

/// One fill for several solvers (`Placement`, as `bench --suite` uses it):
/// each setup is the one `build` makes of the scene with that solver, field
/// for field, and the fill does not depend on the solver it was made with.
#[test]
fn a_placement_gives_each_solver_the_setup_build_gives() {
    use hourglass::model::SolverKind;
    let scene = |kind| {
        let mut s = Scene::default();
        s.grains.count = 300;
        s.solver.kind = kind;
        s
    };
    let placed = hourglass::scene::Placement::new(&scene(SolverKind::Apgd)).unwrap();
    for kind in [SolverKind::Apgd, SolverKind::Jacobi, SolverKind::Nlgs, SolverKind::Dem] {
        let shared = placed.setup(kind).unwrap();
        let own = build(&scene(kind)).unwrap();
        assert_eq!(shared.params.solver, kind);
        assert_eq!(format!("{shared:?}"), format!("{own:?}"), "{kind:?}");
    }
    // A solver the scene refuses is refused from the placement too: a
    // `[crowd]` table is read by the crowd model alone.
    let mut crowd = scene(SolverKind::Crowd);
    crowd.crowd = Some(hourglass::scene::CrowdSpec {
        door: Some([-0.01, -0.2, 0.01, -0.2]),
        ..Default::default()
    });
    crowd.gravity = [0.0, 0.0];
    let placed = hourglass::scene::Placement::new(&crowd).unwrap();
    let refused = placed.setup(SolverKind::Nlgs).unwrap_err().to_string();
    assert!(refused.contains("[crowd] is read by solver.kind"), "{refused}");
}
