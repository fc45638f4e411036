//! The stages written over the space, compiled for 3D (`ShaderConfig::of::<Dim3>`),
//! against their CPU twins on spheres: binning, detection against planes
//! and a triangle mesh (faces, edges, vertices), the warm start carrying a
//! tangent into the new contact plane, the DEM force (Hertz, Hertz-Mindlin
//! with its vector history) and the half kicks and drift.

mod gpu_common;

use gpu_common::{Rng, buf, close, context, get, run, uni};
use hourglass::cpu;
use hourglass::cpu::dem::force::{ForceInput, dem_force, dem_force_history};
use hourglass::cpu::dem::integrate::{Integrand, kick, kick_drift};
use hourglass::cpu::grid::Bins;
use hourglass::gpu::buffers::storage_zeroed;
use hourglass::gpu::space::GpuSpace;
use hourglass::gpu::{Kernel, Params, STAT_CONTACTS, STAT_OVERFLOW, STAT_OVERLAP, STAT_WORDS, Stage};
use hourglass::model::{Body, ContactLists, DemLaw, DemParams, Dim3, Grains, NormalLaw, Phase, Space, Walls3d, law};

use gpu_common::solid::{ALERT, C3, Case, K, R_MAX, case, cfg, cpu_detect, params, with_history};

/// Stage bin_count in 3D: each sphere's cell (clamped into the grid, NaN to
/// 0) and the cells' counts, as `cpu::grid::bin_count` over a `Grid<Dim3>`.
#[test]
fn bin_count_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let mut c = case(3001, 3);
    c.grains.pos[5] = [f32::NAN, 0.01, 0.01];
    c.grains.pos[6] = [1.0, -1.0, 0.5];
    let n = c.grains.len();
    let (mut cell_of, mut cell_count) = (vec![0u32; n], vec![0u32; c.grid.cells()]);
    cpu::grid::bin_count(&c.grid, &c.grains.pos, &mut cell_of, &mut cell_count);
    assert!(c.grid.nz > 3 && cell_count.iter().filter(|&&k| k > 0).count() > 100);
    let k = Kernel::new(&ctx, &cfg(), Stage::BinCount, "main");
    let out = (
        storage_zeroed::<u32>(&ctx, "t", n),
        storage_zeroed::<u32>(&ctx, "t", c.grid.cells()),
    );
    let (pb, pos) = (uni(&ctx, &params(&c)), buf(&ctx, &c.grains.pos));
    let g = k.group(
        &ctx,
        &[
            ("params", &pb),
            ("pos", &pos),
            ("cell_of", &out.0),
            ("cell_count", &out.1),
        ],
    );
    run(&ctx, |ps| k.dispatch(ps, &g, n as u32));
    assert_eq!(get::<u32>(&ctx, &out.0, n), cell_of);
    assert_eq!(get::<u32>(&ctx, &out.1, c.grid.cells()), cell_count);
}

/// Stage detect in 3D, on the CPU's bins: the same count per sphere, the
/// same bodies in the same order (spheres of the 27 cells, planes,
/// triangles, edges, vertices), the same gaps and normals to rounding, and
/// the same counters; every kind of body is met. With the mesh indexed
/// (`Walls3d::indexed`, its lists read through `wall_index`) and without.
#[test]
fn detect_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let mut c = case(2500, 7);
    detect_case(&ctx, &c);
    c.walls = c.walls.clone().indexed((R_MAX + ALERT) * 1.01);
    let index = c.walls.index.as_ref().expect("an index");
    assert!(index.dims.iter().product::<u32>() > 100);
    detect_case(&ctx, &c);
    // The index is what the GPU reads: with every cell's list emptied, the
    // spheres meet the planes alone.
    let mut bins = Bins::default();
    bins.build(&c.grid, &c.grains.pos);
    let mut empty = Dim3::wall_index(&c.walls);
    let cells = index.dims.iter().product::<u32>() as usize;
    empty.truncate(hourglass::gpu::space::INDEX_HEADER + cells + 1);
    empty[hourglass::gpu::space::INDEX_HEADER..].fill(0);
    let (lists, _) = gpu_detect(&ctx, &c, &bins, &empty);
    let planes = c.walls.planes.len() as u32;
    let on_mesh = |l: &ContactLists<Dim3>| {
        (0..l.count.len())
            .flat_map(|i| l.of(i).to_vec())
            .filter(|x| matches!(x.body(), Body::Segment(k) if k >= planes) || matches!(x.body(), Body::Corner(_)))
            .count()
    };
    assert_eq!(on_mesh(&lists), 0, "no mesh body without the lists");
    assert!(on_mesh(&cpu_detect(&c, &bins)) > 100);
    // An index for a shorter reach than a sphere's is not read: every body is tried.
    c.walls = c.walls.clone().indexed(0.5 * R_MAX);
    detect_case(&ctx, &c);
}

/// The eight faces of the octahedron of centre `o` and radius `r` (a closed
/// surface: its faces one-sided, the inside its interior).
fn octahedron(o: [f64; 3], r: f64) -> Walls3d {
    let at = |k: usize, s: f64| {
        let mut p = o;
        p[k] += s * r;
        p
    };
    let mut t = Vec::new();
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                t.push([at(0, sx), at(1, sy), at(2, sz)]);
            }
        }
    }
    Walls3d::mesh(&t).unwrap()
}

/// Detection with a closed surface among the spheres: the GPU reads each
/// face's inside as the CPU does, and spheres that lie outside the
/// octahedron meet its faces from behind (a gap below -r, the normal
/// towards its inside).
#[test]
fn detect_matches_cpu_with_a_closed_surface_in_3d() {
    let Some(ctx) = context() else { return };
    let mut c = case(2500, 9);
    let (o, r) = ([0.012, 0.02, 0.048], 0.009);
    c.walls = octahedron(o, r).with(&c.walls);
    assert!(c.walls.triangles[..8].iter().all(|t| t.side != 0.0));
    assert!(c.walls.triangles[8..].iter().all(|t| t.side == 0.0));
    detect_case(&ctx, &c);
    let mut bins = Bins::default();
    bins.build(&c.grid, &c.grains.pos);
    let lists = cpu_detect(&c, &bins);
    let planes = c.walls.planes.len() as u32;
    let mut behind = 0;
    for i in 0..c.grains.len() {
        for s in lists.of(i) {
            let Body::Segment(k) = s.body() else { continue };
            if k < planes || k >= planes + 8 {
                continue;
            }
            // The normal points to the centre's side of the face.
            let to_centre = Dim3::sub(o.map(|x| x as f32), c.grains.pos[i]);
            let outside = s.gap < -c.grains.radius[i];
            assert!(!outside || Dim3::dot(s.normal, to_centre) > 0.0, "sphere {i}: {s:?}");
            behind += usize::from(outside);
        }
    }
    assert!(behind > 5, "{behind} spheres behind the octahedron's faces");
}

/// Stage detect on the GPU over `c` binned as `bins`, reading the walls'
/// index `index` (`gpu::space::wall_index`): the lists and the counters.
fn gpu_detect(
    ctx: &hourglass::gpu::GpuContext,
    c: &Case,
    bins: &Bins,
    index: &[u32],
) -> (ContactLists<Dim3>, Vec<u32>) {
    let n = c.grains.len();
    let (faces, ridges) = Dim3::wall_bodies(&c.walls);
    let (face_vel, ridge_vel) = Dim3::wall_velocities(&c.walls);
    let k = Kernel::new(ctx, &cfg(), Stage::Detect, "main");
    let count = storage_zeroed::<u32>(ctx, "t", n);
    let slots = storage_zeroed::<C3>(ctx, "t", n * K);
    let stats = storage_zeroed::<u32>(ctx, "t", STAT_WORDS as usize);
    let b = [
        buf(ctx, &bins.cell_start),
        buf(ctx, &bins.sorted),
        buf(ctx, &c.grains.pos),
        buf(ctx, &c.grains.radius),
        buf(ctx, &c.grains.inv_mass),
        buf(ctx, &faces),
        buf(ctx, &ridges),
        buf(ctx, &face_vel),
        buf(ctx, &ridge_vel),
        buf(ctx, index),
    ];
    let pb = uni(ctx, &params(c));
    let g = k.group(
        ctx,
        &[
            ("params", &pb),
            ("cell_start", &b[0]),
            ("sorted", &b[1]),
            ("pos", &b[2]),
            ("radius", &b[3]),
            ("inv_mass", &b[4]),
            ("segments", &b[5]),
            ("corners", &b[6]),
            ("count", &count),
            ("slots", &slots),
            ("stats", &stats),
            ("segment_vel", &b[7]),
            ("corner_vel", &b[8]),
            ("wall_index", &b[9]),
        ],
    );
    run(ctx, |ps| k.dispatch(ps, &g, n as u32));
    let lists = ContactLists::<Dim3> {
        capacity: K,
        count: get(ctx, &count, n),
        slots: get(ctx, &slots, n * K),
    };
    (lists, get(ctx, &stats, STAT_WORDS as usize))
}

fn detect_case(ctx: &hourglass::gpu::GpuContext, c: &Case) {
    let n = c.grains.len();
    let mut bins = Bins::default();
    bins.build(&c.grid, &c.grains.pos);
    let want = cpu_detect(c, &bins);
    let (got, words) = gpu_detect(ctx, c, &bins, &Dim3::wall_index(&c.walls));
    assert_eq!(got.count, want.count, "contacts found per sphere");
    let (planes, triangles, edges) = (c.walls.planes.len(), c.walls.triangles.len(), c.walls.edges.len());
    let mut kinds = [0usize; 5];
    for i in 0..n {
        for (s, (a, b)) in got.of(i).iter().zip(want.of(i)).enumerate() {
            let same = a.other == b.other
                && close(a.gap, b.gap, 1e-5, 1e-8)
                && (0..3).all(|d| close(a.normal[d], b.normal[d], 1e-5, 1e-6))
                && a.inv_mass_sum == b.inv_mass_sum
                && (a.impulse, a.impulse_t, a.bounce, a.wall_vel) == (0.0, [0.0; 3], 0.0, [0.0; 3]);
            assert!(same, "sphere {i} slot {s}: gpu {a:?} cpu {b:?}");
            kinds[match b.body() {
                Body::Grain(_) => 0,
                Body::Segment(k) if (k as usize) < planes => 1,
                Body::Segment(_) => 2,
                Body::Corner(k) if (k as usize) < edges => 3,
                Body::Corner(_) => 4,
            }] += 1;
        }
    }
    assert!(
        triangles > 0 && kinds.iter().all(|&k| k > 0),
        "contacts per kind {kinds:?}"
    );
    let apex = c
        .walls
        .vertices
        .iter()
        .position(|v| v.dirs.len() == 30)
        .expect("the cone's apex");
    let on_apex = Body::Corner((edges + apex) as u32);
    assert!(
        (0..n).any(|i| want.of(i).iter().any(|c| c.body() == on_apex)),
        "a sphere meets the apex"
    );
    assert_eq!(u64::from(words[STAT_OVERFLOW as usize]), want.overflow(), "overflow");
    assert_eq!(u64::from(words[STAT_CONTACTS as usize]), want.distinct(), "contacts");
    let overlap = f32::from_bits(words[STAT_OVERLAP as usize]);
    assert!(
        close(overlap, want.max_overlap(), 1e-5, 1e-8),
        "{overlap} vs {}",
        want.max_overlap()
    );
}

/// Stage warm_start in 3D: a contact found again starts from last step's
/// normal impulse and its tangent carried into the new contact plane
/// (`Space::carry_tangent`); others from zero.
#[test]
fn warm_start_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let mut c = case(1500, 11);
    let n = c.grains.len();
    let mut bins = Bins::default();
    bins.build(&c.grid, &c.grains.pos);
    let mut prev = cpu_detect(&c, &bins);
    with_history(&mut prev, 5, 1.0);
    let mut rng = Rng::new(13);
    for x in &mut c.grains.pos {
        *x = x.map(|v| v + rng.f32(-5e-4, 5e-4));
    }
    bins.build(&c.grid, &c.grains.pos);
    let mut want = cpu_detect(&c, &bins);
    let fresh = want.clone();
    cpu::warm_start::warm_start(&prev, &mut want);
    let k = Kernel::new(&ctx, &cfg(), Stage::WarmStart, "main");
    let pb = uni(&ctx, &params(&c));
    let b = [
        buf(&ctx, &fresh.count),
        buf(&ctx, &fresh.slots),
        buf(&ctx, &prev.count),
        buf(&ctx, &prev.slots),
    ];
    let g = k.group(
        &ctx,
        &[
            ("params", &pb),
            ("count", &b[0]),
            ("slots", &b[1]),
            ("prev_count", &b[2]),
            ("prev_slots", &b[3]),
        ],
    );
    run(&ctx, |ps| k.dispatch(ps, &g, n as u32));
    let got: Vec<C3> = get(&ctx, &b[1], n * K);
    let mut carried = 0;
    for i in 0..n {
        for s in 0..(want.count[i] as usize).min(K) {
            let (a, b) = (got[i * K + s], want.slots[i * K + s]);
            let same = a.impulse == b.impulse && (0..3).all(|d| close(a.impulse_t[d], b.impulse_t[d], 1e-5, 1e-7));
            assert!(same, "sphere {i} slot {s}: gpu {a:?} cpu {b:?}");
            let n_dot_t: f32 = (0..3).map(|d| b.normal[d] * b.impulse_t[d]).sum();
            assert!(n_dot_t.abs() < 1e-5, "the carried tangent lies in the contact plane");
            carried += usize::from(b.impulse > 0.0);
        }
    }
    assert!(carried > 1000, "{carried} contacts found again");
}

/// Force and torque per sphere, and the slots with their new history.
type Forces = (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<C3>);

/// The CPU force and torque (and history, for Hertz-Mindlin) of `lists`.
fn cpu_force(law: DemLaw, g: &Grains<Dim3>, lists: &ContactLists<Dim3>) -> Forces {
    let inp = ForceInput::<Dim3> {
        law,
        capacity: K,
        count: &lists.count,
        slots: &lists.slots,
        radius: &g.radius,
        inv_mass: &g.inv_mass,
        vel: &g.vel,
        ang_vel: &g.ang_vel,
    };
    let n = g.len();
    let (mut f, mut t) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    let mut slots = lists.slots.clone();
    if law.kind == NormalLaw::HertzMindlin as u32 {
        let mut hist: Vec<[f32; 3]> = lists.slots.iter().map(|c| c.impulse_t).collect();
        dem_force_history(&inp, &mut f, &mut t, &mut hist);
        for (c, h) in slots.iter_mut().zip(hist) {
            c.impulse_t = h;
        }
    } else {
        dem_force(&inp, &mut f, &mut t);
    }
    (f, t, slots)
}

/// Stage dem_force in 3D under Hertz and under Hertz-Mindlin (a vector
/// history in the contact plane): each sphere's force and torque (rolling
/// resistance included), and each listed contact's new history.
#[test]
fn dem_force_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let c = case(2000, 17);
    let n = c.grains.len();
    let mut bins = Bins::default();
    bins.build(&c.grid, &c.grains.pos);
    let mut lists = cpu_detect(&c, &bins);
    with_history(&mut lists, 19, 1e-4);
    let k = Kernel::new(&ctx, &cfg(), Stage::DemForce, "main");
    for kind in [NormalLaw::Hertz, NormalLaw::HertzMindlin, NormalLaw::Linear] {
        let dem = DemParams {
            law: kind,
            kn: 1e8,
            mu: 0.5,
            mu_roll: 0.1,
            ..DemParams::default()
        };
        let l = law(&dem, Phase::Discharge, 1e-5);
        let (fw, tw, hw) = cpu_force(l, &c.grains, &lists);
        let params = Params {
            n_grains: n as u32,
            ..Params::default()
        };
        let (pb, lb) = (uni(&ctx, &params), uni(&ctx, &l));
        let force = storage_zeroed::<[f32; 3]>(&ctx, "t", n);
        let torque = storage_zeroed::<[f32; 3]>(&ctx, "t", n);
        let b = [
            buf(&ctx, &lists.count),
            buf(&ctx, &lists.slots),
            buf(&ctx, &c.grains.radius),
            buf(&ctx, &c.grains.inv_mass),
            buf(&ctx, &c.grains.vel),
            buf(&ctx, &c.grains.ang_vel),
        ];
        let g = k.group(
            &ctx,
            &[
                ("params", &pb),
                ("law", &lb),
                ("count", &b[0]),
                ("slots", &b[1]),
                ("radius", &b[2]),
                ("inv_mass", &b[3]),
                ("vel", &b[4]),
                ("ang_vel", &b[5]),
                ("force", &force),
                ("torque", &torque),
            ],
        );
        run(&ctx, |ps| k.dispatch(ps, &g, n as u32));
        let (fg, tg): (Vec<[f32; 3]>, Vec<[f32; 3]>) = (get(&ctx, &force, n), get(&ctx, &torque, n));
        let hg: Vec<C3> = get(&ctx, &b[1], n * K);
        let norm = |v: &[f32; 3]| Dim3::dot(*v, *v).sqrt();
        let fscale = fw.iter().map(norm).fold(1e-3f32, f32::max);
        let tscale = tw.iter().map(norm).fold(1e-6f32, f32::max);
        for i in 0..n {
            for d in 0..3 {
                assert!(
                    close(fg[i][d], fw[i][d], 1e-4, 1e-5 * fscale),
                    "{kind:?} sphere {i}: force {:?} vs {:?}",
                    fg[i],
                    fw[i]
                );
                assert!(
                    close(tg[i][d], tw[i][d], 1e-4, 1e-5 * tscale),
                    "{kind:?} sphere {i}: torque {:?} vs {:?}",
                    tg[i],
                    tw[i]
                );
            }
        }
        if kind == NormalLaw::HertzMindlin {
            let hscale = hw.iter().map(|c| norm(&c.impulse_t)).fold(1e-9f32, f32::max);
            for (s, (a, b)) in hg.iter().zip(&hw).enumerate() {
                let same = (0..3).all(|d| close(a.impulse_t[d], b.impulse_t[d], 1e-4, 1e-5 * hscale));
                assert!(same, "slot {s}: history {:?} vs {:?}", a.impulse_t, b.impulse_t);
            }
        }
        assert!(
            fscale > 1.0 && tscale > 1e-4,
            "{kind:?}: forces {fscale} N, torques {tscale} N m"
        );
    }
}

/// Stage dem_integrate in 3D: the half kick (1/I = 5/2 im / r^2) and the
/// drift (`kick_drift`), and the half kick alone (`kick`), which folds the
/// largest |v|^2 into the counters.
#[test]
fn dem_integrate_matches_cpu_in_3d() {
    let Some(ctx) = context() else { return };
    let c = case(1777, 23);
    let n = c.grains.len();
    let mut rng = Rng::new(29);
    let force: Vec<[f32; 3]> = (0..n).map(|_| std::array::from_fn(|_| rng.f32(-2.0, 2.0))).collect();
    let torque: Vec<[f32; 3]> = (0..n).map(|_| std::array::from_fn(|_| rng.f32(-1e-4, 1e-4))).collect();
    let (gravity, dt) = ([0.3f32, -9.81], 1e-4f32);
    for entry in ["kick_drift", "kick"] {
        let mut g = c.grains.clone();
        let s = Integrand::<Dim3> {
            pos: &mut g.pos,
            vel: &mut g.vel,
            ang_vel: &mut g.ang_vel,
            force: &force,
            torque: &torque,
            radius: &g.radius,
            inv_mass: &g.inv_mass,
        };
        if entry == "kick" {
            kick(s, gravity, dt);
        } else {
            kick_drift(s, gravity, dt);
        }
        let k = Kernel::new(&ctx, &cfg(), Stage::DemIntegrate, entry);
        let params = Params {
            gravity,
            dt,
            n_grains: n as u32,
            ..Params::default()
        };
        let pb = uni(&ctx, &params);
        let b = [
            buf(&ctx, &c.grains.pos),
            buf(&ctx, &c.grains.vel),
            buf(&ctx, &c.grains.ang_vel),
            buf(&ctx, &force),
            buf(&ctx, &torque),
            buf(&ctx, &c.grains.radius),
            buf(&ctx, &c.grains.inv_mass),
            storage_zeroed::<u32>(&ctx, "t", STAT_WORDS as usize),
        ];
        let mut given = vec![
            ("params", &pb),
            ("vel", &b[1]),
            ("ang_vel", &b[2]),
            ("force", &b[3]),
            ("torque", &b[4]),
            ("radius", &b[5]),
            ("inv_mass", &b[6]),
        ];
        given.push(if entry == "kick" {
            ("stats", &b[7])
        } else {
            ("pos", &b[0])
        });
        let group = k.group(&ctx, &given);
        run(&ctx, |ps| k.dispatch(ps, &group, n as u32));
        let [pos, vel, spin]: [Vec<[f32; 3]>; 3] = [0, 1, 2].map(|k| get(&ctx, &b[k], n));
        for i in 0..n {
            for d in 0..3 {
                assert!(close(pos[i][d], g.pos[i][d], 1e-6, 1e-9), "{entry} sphere {i}: x");
                assert!(close(vel[i][d], g.vel[i][d], 1e-6, 1e-7), "{entry} sphere {i}: v");
                assert!(close(spin[i][d], g.ang_vel[i][d], 1e-5, 1e-4), "{entry} sphere {i}: w");
            }
        }
        assert!((0..n).any(|i| g.ang_vel[i] != c.grains.ang_vel[i] && g.inv_mass[i] > 0.0));
        if entry == "kick" {
            let words: Vec<u32> = get(&ctx, &b[7], STAT_WORDS as usize);
            let v2 = g.vel.iter().map(|v| Dim3::dot(*v, *v)).fold(0.0f32, f32::max);
            let got = f32::from_bits(words[hourglass::gpu::STAT_SPEED2 as usize]);
            assert!(close(got, v2, 1e-6, 0.0), "max |v|^2 {got} vs {v2}");
        } else {
            assert!((0..n).any(|i| g.pos[i] != c.grains.pos[i]));
        }
    }
}
