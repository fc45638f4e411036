//! 3D scenes (`dimension = 3`, docs/spheres.md) through the whole run: the
//! lab's 3D pile from its scene file (nothing lost, energy never above what
//! was fed in, at rest on the floor), its frames and walls in 3D, and every
//! bad input of a 3D scene refused with its key.

use std::path::Path;

use hourglass::backend::cpu_backend_of;
use hourglass::model::{Dim3, Grains};
use hourglass::output::{ResultDir, Summary, read};
use hourglass::scene::{Scene, Setup, build3d};
use hourglass::sim::{self, RunSpace};

fn scene(path: &str) -> Scene {
    Scene::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// Run `setup` on the CPU into `dir`; the summary and the grains at the end.
fn run(setup: &Setup<Dim3>, dir: &Path) -> (Summary, Grains<Dim3>) {
    let grid = Dim3::grid(setup).unwrap();
    let mut backend = cpu_backend_of(setup, grid);
    let mut out = ResultDir::create(dir, &setup.scene.to_toml()).unwrap();
    let summary = sim::run(setup, backend.as_mut(), &mut out, &mut sim::Silent).unwrap();
    out.finish(&summary).unwrap();
    (summary, backend.grains().unwrap().clone())
}

/// The spring pile of scenes/3d/pile_box.toml with 40 spheres (the last
/// fed at 7.02 s), run to 12 s: every sphere fed and kept in the box, the
/// energy of every row at most what the spheres brought in, and at the end
/// a pile come to rest: slow, without momentum, the lowest layer on the floor.
#[test]
fn the_labs_3d_pile_scene_keeps_every_sphere_and_comes_to_rest() {
    let mut s = scene("scenes/3d/pile_box.toml");
    s.emitters[0].count = 40;
    s.run.duration = Some(12.0);
    s.run.every = 500;
    let setup = build3d(&s).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (summary, g) = run(&setup, tmp.path());
    assert_eq!((summary.emitted, summary.lost_grains, g.len()), (40, 0, 40));
    for x in &g.pos {
        assert!(
            x[0] > 0.0 && x[0] < 4.0 && x[2] > 0.0 && x[2] < 4.0 && x[1] > 0.0,
            "{x:?} left the box"
        );
    }
    // Each sphere brings at most m g y + 1/2 m v^2 (y <= 9 m with the jitter, 4 m/s).
    let per_sphere = 9.81 * 9.0 + 0.5 * 16.0;
    let rows = read::diagnostics(tmp.path()).unwrap();
    for r in &rows {
        assert!(
            r.total_energy <= r.grains as f64 * per_sphere,
            "t = {}: {} J with {} spheres",
            r.time,
            r.total_energy,
            r.grains
        );
    }
    let last = rows.last().unwrap();
    let momentum = last.momentum.iter().map(|p| p * p).sum::<f64>().sqrt();
    // Spheres roll on without rolling resistance: slow, not still.
    assert!(g.max_speed() < 0.2, "fastest {} m/s", g.max_speed());
    assert!(momentum < 0.5, "momentum {:?}", last.momentum);
    // 40 spheres of radius 0.3 m on a 4 x 4 m floor: one layer, barely two.
    let lowest = g.pos.iter().map(|x| x[1]).fold(f32::INFINITY, f32::min);
    assert!((lowest - 0.3).abs() < 0.05, "lowest centre at {lowest} m");
    assert!(last.barycentre[1] < 0.6, "barycentre {:?}", last.barycentre);
    assert!(last.momentum[2] != 0.0 || last.barycentre[2] != 0.0, "no z in the rows");
}

/// The impulse pile keeps its spheres in the box too.
#[test]
fn the_impulse_pile_scene_keeps_every_sphere_in_the_box() {
    let mut s = scene("scenes/3d/pile_box_impulse.toml");
    s.emitters[0].count = 30;
    s.run.duration = Some(7.0);
    let setup = build3d(&s).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (summary, g) = run(&setup, tmp.path());
    assert_eq!((summary.emitted, summary.lost_grains), (30, 0));
    assert!(
        g.pos
            .iter()
            .all(|x| x[0] > 0.0 && x[0] < 4.0 && x[2] > 0.0 && x[2] < 4.0 && x[1] > 0.0)
    );
}

/// Frames carry three coordinates, angular velocity vectors and
/// orientations; walls.vtp draws the box's five planes as its five faces.
#[test]
fn frames_and_walls_are_written_in_3d() {
    let mut s = scene("scenes/3d/pile_box.toml");
    s.emitters[0].count = 3;
    s.run.duration = Some(0.5);
    s.run.every = 100;
    let setup = build3d(&s).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    run(&setup, tmp.path());
    // Each plane is drawn as its part inside the others: the box's floor
    // and four sides, each spanning the box's width.
    let faces = read::wall_polygons3d(&tmp.path().join("walls.vtp")).unwrap();
    assert_eq!(faces.len(), 5);
    let floor = faces.iter().find(|f| f.iter().all(|p| p[1].abs() < 1e-5)).unwrap();
    for k in [0, 2] {
        let lo = floor.iter().map(|p| p[k]).fold(f32::INFINITY, f32::min);
        let hi = floor.iter().map(|p| p[k]).fold(f32::NEG_INFINITY, f32::max);
        assert!(lo.abs() < 1e-5 && (hi - 4.0).abs() < 1e-5, "floor from {lo} to {hi}");
    }
    for side in faces.iter().filter(|f| !std::ptr::eq(*f, floor)) {
        assert!(
            side.iter()
                .all(|p| (-1e-5..=4.0 + 1e-5).contains(&p[0]) && (-1e-5..=4.0 + 1e-5).contains(&p[2]))
        );
        assert!(side.iter().any(|p| p[1].abs() < 1e-5), "a side reaches the floor");
    }
    let frames = read::frames(tmp.path()).unwrap();
    let last = std::fs::read_to_string(&frames.last().unwrap().1).unwrap();
    assert!(last.contains("NumberOfPoints=\"3\""), "{last}");
    assert!(
        last.contains("Name=\"angular_velocity\" NumberOfComponents=\"3\""),
        "{last}"
    );
    assert!(last.contains("Name=\"orientation\" NumberOfComponents=\"4\""), "{last}");
    // The first point's z is the emitter's (2 m, within the 1 m jitter), not 0.
    let points = last
        .split("NumberOfComponents=\"3\" format=\"ascii\">\n")
        .nth(1)
        .unwrap();
    let z: f32 = points
        .lines()
        .next()
        .unwrap()
        .split(' ')
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    assert!((1.0..=3.0).contains(&z), "z = {z}");
}

/// The error of building `text` as a scene (a 3D one unless it says).
fn refused(text: &str) -> String {
    let s = Scene::parse(text, Path::new("bad.toml")).map_err(|e| e.to_string());
    match s.and_then(|s| build3d(&s).map(|_| ()).map_err(|e| e.to_string())) {
        Ok(()) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

const BOX: &str = "version = 1\ndimension = 3\n[walls]\nbox = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]\n[grains]\ncount = 1\nradius_mean = 0.05\nradius_std = 0.0\nradius_min = 0.04\nradius_max = 0.06\n[solver]\nkind = \"spring\"\ndt = 1e-3\n";
const EMIT: &str = "[[emitters]]\nradius = 0.05\ninterval = 0.1\ncount = 3\n";

#[test]
fn bad_3d_scenes_are_refused_naming_the_key() {
    let cases: Vec<(String, &str)> = vec![
        (BOX.replace("dimension = 3", "dimension = 4"), "dimension"),
        (format!("{BOX}{EMIT}position = [0.5, 0.5]\n"), "emitters[0].position"),
        (
            format!("{BOX}{EMIT}position = [0.5, -0.5, 0.5]\n"),
            "emitters[0].position",
        ),
        (
            BOX.replace(
                "box = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]",
                "box = [0.0, 0.0, 0.0, 1.0, 0.0, 1.0]",
            ),
            "walls.box",
        ),
        (
            BOX.replace(
                "box = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]",
                "segments = [[0.0, 0.0, 1.0, 0.0]]",
            ),
            "walls.segments",
        ),
        (
            BOX.replace(
                "box = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]",
                "planes = [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]",
            ),
            "walls.planes[0]",
        ),
        (BOX.replace("kind = \"spring\"", "kind = \"seed\""), "solver.kind"),
        (
            BOX.replace("kind = \"spring\"\ndt = 1e-3", "kind = \"jacobi\""),
            "solver.dt",
        ),
        (BOX.replace("kind = \"spring\"", "kind = \"dem\""), "dem.kn"),
        // The plane's dashpot (per unit thickness) on a sphere of 1.3 kg at dt = 1e-3 s is stable;
        // at 2,000 N s/m it is not.
        (format!("{BOX}[spring]\nkd = 2000.0\n"), "spring.kd"),
        (format!("{BOX}[[motion]]\nwalls = \"all\"\n"), "motion"),
        (
            BOX.replace(
                "[grains]\ncount = 1",
                "[grains]\ncount = 1\nregion = [0.0, 0.0, 1.0, 1.0]",
            ),
            "grains.region",
        ),
        (
            BOX.replace(
                "box = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]",
                "silo = { radius = 0.05, height = 0.2, outlet = 0.06, slope_deg = 60.0 }",
            ),
            "walls.silo",
        ),
        // A box has no closed surface to give a side.
        (
            BOX.replace("[grains]", "closed_side = \"outside\"\n[grains]"),
            "walls.closed_side",
        ),
        (
            BOX.replace(
                "box = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]",
                "hourglass = { width = 0.3, bulb_height = 0.4, neck = 6.5, slope_deg = 51.0, fit = true }\nclosed_side = \"sideways\"",
            ),
            "`walls.closed_side` must be",
        ),
        // The fill would land inside an obstacle.
        (
            BOX.replace(
                "box = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]",
                "hourglass = { width = 0.3, bulb_height = 0.4, neck = 6.5, slope_deg = 51.0, fit = true }\nclosed_side = \"outside\"",
            ),
            "grains.count",
        ),
    ];
    for (text, key) in cases {
        let e = refused(&text);
        assert!(e.contains(key), "{key}: {e}\n{text}");
    }
    // A plane scene refuses the 3D walls and emitter points of three values.
    for (text, key) in [
        (
            "version = 1\n[walls]\nbox = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]\n",
            "walls.box",
        ),
        (
            "version = 1\n[walls]\nsegments = [[0.0, 0.0, 1.0, 0.0]]\n[grains]\ncount = 0\n[[emitters]]\nposition = [0.5, 0.5, 0.5]\nradius = 0.05\ninterval = 0.1\ncount = 1\n",
            "emitters[0].position",
        ),
        (
            "version = 1\n[walls]\nsegments = [[0.0, 0.0, 1.0, 0.0]]\nclosed_side = \"outside\"\n",
            "walls.closed_side",
        ),
    ] {
        let s = Scene::parse(text, Path::new("bad.toml")).unwrap();
        let e = hourglass::scene::build(&s).unwrap_err().to_string();
        assert!(e.contains(key), "{key}: {e}");
    }
}

/// A gmsh surface with a flat triangle is refused, naming the triangle.
#[test]
fn a_mesh_with_a_flat_triangle_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let msh = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 0 1\n4 2 0 0\n$EndNodes\n$Elements\n2\n1 2 2 0 1 1 2 3\n2 2 2 0 1 1 2 4\n$EndElements\n";
    std::fs::write(tmp.path().join("flat.msh"), msh).unwrap();
    let text = format!(
        "version = 1\ndimension = 3\n[walls]\nmesh = \"{}\"\n[grains]\ncount = 0\n[[emitters]]\nposition = [0.5, 0.5, 0.5]\nradius = 0.05\ninterval = 0.1\ncount = 1\n[solver]\nkind = \"spring\"\ndt = 1e-3\n",
        tmp.path().join("flat.msh").display()
    );
    let e = refused(&text);
    assert!(e.contains("walls") && e.contains("triangle 1"), "{e}");
}

/// The cube [0.4, 0.6]^3 as a gmsh surface (MSH 2.2, twelve triangles).
const CUBE_MSH: &str = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n8\n\
1 0.4 0.4 0.4\n2 0.6 0.4 0.4\n3 0.4 0.6 0.4\n4 0.6 0.6 0.4\n\
5 0.4 0.4 0.6\n6 0.6 0.4 0.6\n7 0.4 0.6 0.6\n8 0.6 0.6 0.6\n$EndNodes\n$Elements\n12\n\
1 2 2 0 1 1 3 4\n2 2 2 0 1 1 4 2\n3 2 2 0 1 5 6 8\n4 2 2 0 1 5 8 7\n\
5 2 2 0 1 1 2 6\n6 2 2 0 1 1 6 5\n7 2 2 0 1 3 7 8\n8 2 2 0 1 3 8 4\n\
9 2 2 0 1 1 5 7\n10 2 2 0 1 1 7 3\n11 2 2 0 1 2 4 8\n12 2 2 0 1 2 8 6\n$EndElements\n";

/// A closed cube mesh on a floor, two spheres of 2 cm let go above its top
/// face and 1 cm beside its +x face, 1 s under Jacobi; each sphere's centre
/// at the end, the higher first, or the scene's refusal.
fn around_a_cube(closed_side: Option<&str>) -> Result<[[f32; 3]; 2], String> {
    let tmp = tempfile::tempdir().unwrap();
    let mesh = tmp.path().join("cube.msh");
    std::fs::write(&mesh, CUBE_MSH).unwrap();
    let side = closed_side.map_or(String::new(), |s| format!("closed_side = \"{s}\"\n"));
    let emit = |x: f32, y: f32| {
        format!("[[emitters]]\nposition = [{x}, {y}, 0.5]\nradius = 0.02\ninterval = 0.1\ncount = 1\n")
    };
    let text = format!(
        "version = 1\ndimension = 3\n[walls]\nmesh = \"{}\"\nplanes = [[0.0, 0.0, 0.0, 0.0, 1.0, 0.0]]\n{side}\
         [grains]\ncount = 0\n{}{}[solver]\nkind = \"jacobi\"\ndt = 1e-3\n[run]\nduration = 1.0\nevery = 100\n",
        mesh.display(),
        emit(0.5, 0.7),
        emit(0.63, 0.5),
    );
    let scene = Scene::parse(&text, &tmp.path().join("cube.toml")).unwrap();
    let setup = build3d(&scene).map_err(|e| e.to_string())?;
    let (summary, g) = run(&setup, &tmp.path().join("out"));
    assert_eq!((g.len(), summary.lost_grains), (2, 0));
    let mut at = [g.pos[0], g.pos[1]];
    at.sort_by(|a, b| b[1].total_cmp(&a[1]));
    Ok(at)
}

/// A closed mesh holds its spheres inside it by default; with
/// `walls.closed_side = "outside"` it is an obstacle on the floor: a sphere
/// comes to rest on its top face, another falls past its side to the
/// floor, as with `"both"` (every face two-sided). Held inside, the cube
/// refuses emitters outside it.
#[test]
fn a_closed_mesh_is_an_obstacle_on_the_side_the_scene_gives() {
    let close = |a: f32, b: f32| (a - b).abs() < 2e-3;
    for side in ["outside", "both"] {
        let [top, beside] = around_a_cube(Some(side)).unwrap();
        assert!(
            close(top[0], 0.5) && close(top[1], 0.62) && close(top[2], 0.5),
            "{side}: {top:?}"
        );
        assert!(close(beside[1], 0.02) && beside[0] >= 0.62 - 1e-3, "{side}: {beside:?}");
    }
    let e = around_a_cube(None).unwrap_err();
    assert!(
        e.contains("emitters[0].position") && e.contains("outside the closed walls"),
        "{e}"
    );
}

/// The regular octahedron |x - 0.5| + |y - 0.5| + |z - 0.5| <= 0.3 as a
/// gmsh surface (MSH 2.2, eight triangles).
fn octahedron_msh() -> String {
    let nodes = "1 0.8 0.5 0.5\n2 0.2 0.5 0.5\n3 0.5 0.8 0.5\n4 0.5 0.2 0.5\n5 0.5 0.5 0.8\n6 0.5 0.5 0.2\n";
    let mut elements = String::new();
    for (k, (a, b, c)) in [1, 2]
        .into_iter()
        .flat_map(|a| [3, 4].into_iter().flat_map(move |b| [5, 6].map(|c| (a, b, c))))
        .enumerate()
    {
        elements += &format!("{} 2 2 0 1 {a} {b} {c}\n", k + 1);
    }
    format!("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n6\n{nodes}$EndNodes\n$Elements\n8\n{elements}$EndElements\n")
}

/// A closed mesh that fills half its box: the fill keeps to its inside
/// (the lowest spot of the box, a corner outside it, was where it began),
/// and an emitter whose spheres would appear outside it, or within it when
/// it is an obstacle, is refused naming the emitter.
#[test]
fn a_closed_mesh_is_filled_and_fed_within_the_space_it_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let mesh = tmp.path().join("octahedron.msh");
    std::fs::write(&mesh, octahedron_msh()).unwrap();
    let text = |count: u32, side: &str, emit: Option<[f32; 3]>| {
        let emit = emit.map_or(String::new(), |x| {
            format!(
                "[[emitters]]\nposition = [{}, {}, {}]\nradius = 0.02\ninterval = 0.1\ncount = 1\n",
                x[0], x[1], x[2]
            )
        });
        format!(
            "version = 1\ndimension = 3\n[walls]\nmesh = \"{}\"\n{side}[grains]\ncount = {count}\nradius_mean = 0.02\n\
             radius_std = 0.0\nradius_min = 0.02\nradius_max = 0.02\n{emit}[solver]\nkind = \"jacobi\"\ndt = 1e-3\n",
            mesh.display()
        )
    };
    let build = |t: &str| Scene::parse(t, &tmp.path().join("octahedron.toml")).and_then(|s| build3d(&s));
    let setup = build(&text(40, "", None)).unwrap();
    assert_eq!(setup.grains.len(), 40);
    // Clear of the faces, whose distance from the centre is 0.3 / sqrt(3).
    let deepest = (setup.grains.pos.iter())
        .map(|p| p.iter().map(|x| (x - 0.5).abs()).sum::<f32>())
        .fold(0.0, f32::max);
    assert!(
        deepest <= 0.3 - 0.02 * 3f32.sqrt() + 1e-5,
        "a sphere at |x - c|_1 = {deepest}"
    );
    assert!(build(&text(0, "", Some([0.5, 0.5, 0.5]))).is_ok());
    for (side, at, says) in [
        ("", [0.27, 0.27, 0.27], "outside the closed walls"),
        (
            "closed_side = \"outside\"\n",
            [0.5, 0.5, 0.5],
            "within a closed obstacle",
        ),
    ] {
        let e = build(&text(0, side, Some(at))).unwrap_err().to_string();
        assert!(e.contains("emitters[0].position") && e.contains(says), "{e}");
    }
}

/// A ball of radius 0.1 m at (0.5, 0.5, 0.5) as a gmsh surface (MSH 2.2):
/// an octahedron's faces split `levels` times, their corners pushed out
/// onto the sphere.
fn ball_msh(levels: u32) -> String {
    let mut v: Vec<[f64; 3]> = vec![
        [1.0, 0.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, -1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 0.0, -1.0],
    ];
    let mut f: Vec<[usize; 3]> = (0..8).map(|k| [k & 1, 2 + (k >> 1 & 1), 4 + (k >> 2)]).collect();
    for _ in 0..levels {
        let mut mid = std::collections::HashMap::new();
        let mut split = |a: usize, b: usize, v: &mut Vec<[f64; 3]>| {
            *mid.entry((a.min(b), a.max(b))).or_insert_with(|| {
                let m = [0, 1, 2].map(|k| v[a][k] + v[b][k]);
                let l = m.iter().map(|x| x * x).sum::<f64>().sqrt();
                v.push(m.map(|x| x / l));
                v.len() - 1
            })
        };
        f = f
            .iter()
            .flat_map(|&[a, b, c]| {
                let (ab, bc, ca) = (split(a, b, &mut v), split(b, c, &mut v), split(c, a, &mut v));
                [[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]
            })
            .collect();
    }
    let nodes: String = (v.iter().enumerate())
        .map(|(i, p)| {
            format!(
                "{} {} {} {}\n",
                i + 1,
                0.5 + 0.1 * p[0],
                0.5 + 0.1 * p[1],
                0.5 + 0.1 * p[2]
            )
        })
        .collect();
    let elements: String = (f.iter().enumerate())
        .map(|(i, t)| format!("{} 2 2 0 1 {} {} {}\n", i + 1, t[0] + 1, t[1] + 1, t[2] + 1))
        .collect();
    format!(
        "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n{}\n{nodes}$EndNodes\n$Elements\n{}\n{elements}$EndElements\n",
        v.len(),
        f.len()
    )
}

/// A curved closed mesh (a ball of 2,048 faces), whose faces taken as
/// planes make few pockets that hold: 500 spheres of 4 mm are all placed,
/// inside it, clear of its faces and of each other, the lowest on its faces.
#[test]
fn a_ball_mesh_is_filled_inside() {
    let tmp = tempfile::tempdir().unwrap();
    let mesh = tmp.path().join("ball.msh");
    std::fs::write(&mesh, ball_msh(4)).unwrap();
    let text = format!(
        "version = 1\ndimension = 3\n[walls]\nmesh = \"{}\"\n[grains]\ncount = 500\nradius_mean = 0.004\n\
         radius_std = 0.0\nradius_min = 0.004\nradius_max = 0.004\n[solver]\nkind = \"jacobi\"\ndt = 1e-3\n",
        mesh.display()
    );
    let setup = build3d(&Scene::parse(&text, &tmp.path().join("ball.toml")).unwrap()).unwrap();
    let p = &setup.grains.pos;
    assert_eq!(p.len(), 500);
    let dist = |a: [f32; 3], b: [f32; 3]| (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f32>().sqrt();
    // The faces' planes lie within 0.1 (1 - cos 4.2 degrees) = 0.27 mm of the sphere.
    let farthest = p.iter().map(|&x| dist(x, [0.5; 3])).fold(0.0, f32::max);
    assert!(farthest <= 0.1 - 0.004 + 1e-5, "a centre {farthest} m from the ball's");
    for i in 0..p.len() {
        for j in 0..i {
            assert!(dist(p[i], p[j]) >= 0.008 - 1e-6, "spheres {i} and {j} overlap");
        }
    }
    // The lowest sphere rests on the faces (within their 0.27 mm of the sphere).
    let lowest = *p.iter().min_by(|a, b| a[1].total_cmp(&b[1])).unwrap();
    assert!(
        dist(lowest, [0.5; 3]) >= 0.1 - 0.004 - 3e-4,
        "lowest centre at {lowest:?}"
    );
}

fn hourglass(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap()
}

/// `hourglass run` runs a 3D scene headless into a result directory, and
/// refuses in one line, writing nothing, what 3D cannot do yet.
#[test]
fn the_cli_runs_a_3d_scene_and_refuses_what_3d_cannot_do_yet() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("pile");
    let out_s = out.to_str().unwrap();
    let o = hourglass(&[
        "run",
        "scenes/3d/pile_box.toml",
        "--duration",
        "0.4",
        "--out",
        out_s,
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["emitted"], 3, "{summary}");
    assert_eq!(summary["steps"], 400, "{summary}");
    // The GPU runs no NLGS in 3D: refused, blamed on the flag, nothing
    // written.
    let target = tmp.path().join("gpu");
    let o = hourglass(&[
        "run",
        "scenes/3d/silo.toml",
        "--out",
        target.to_str().unwrap(),
        "--backend",
        "gpu",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success()
            && err.contains("--backend")
            && err.contains(hourglass::scene::SOLID_ON_GPU)
            && err.lines().count() == 1,
        "{err}"
    );
    assert!(!target.exists(), "wrote {}", target.display());
    // `auto` runs it on the CPU and says so, in one line before the run's.
    let o = hourglass(&[
        "run",
        "scenes/3d/silo.toml",
        "--out",
        target.to_str().unwrap(),
        "--backend",
        "auto",
        "--steps",
        "2",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("backend auto: solver `nlgs` runs only on the CPU in 3D; running on the CPU"),
        "{err}"
    );
    assert!(err.contains("backend cpu"), "{err}");
}

/// A 3D run resumed from its state.json takes the very steps the
/// uninterrupted run takes (the spring pile, the impulse pile): 2 s and 1 s
/// more end bit for bit where 3 s end, rows and state alike.
#[test]
fn a_resumed_3d_run_goes_on_as_the_uninterrupted_one() {
    let tmp = tempfile::tempdir().unwrap();
    for scene in ["scenes/3d/pile_box.toml", "scenes/3d/pile_box_impulse.toml"] {
        let (cut, whole) = (tmp.path().join("cut"), tmp.path().join("whole"));
        let (cut_s, whole_s) = (cut.to_str().unwrap(), whole.to_str().unwrap());
        for args in [
            vec!["run", scene, "--duration", "2.0", "--out", cut_s, "--quiet", "--force"],
            vec!["run", "--resume", cut_s, "--duration", "1.0", "--quiet"],
            vec![
                "run",
                scene,
                "--duration",
                "3.0",
                "--out",
                whole_s,
                "--quiet",
                "--force",
            ],
        ] {
            let o = hourglass(&args);
            assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        }
        for file in ["state.json", "diagnostics.csv"] {
            let (a, b) = (
                std::fs::read(cut.join(file)).unwrap(),
                std::fs::read(whole.join(file)).unwrap(),
            );
            assert!(a == b, "{scene}: {file} differs");
        }
        let state: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(cut.join("state.json")).unwrap()).unwrap();
        assert_eq!(
            (state["step"].as_u64(), state["grains"]["pos"].as_array().unwrap().len()),
            (Some(3000), 17)
        );
    }
}

/// A 3D NSCD run resumed goes on bit for bit: state.json keeps the last
/// step's contacts with their impulses, and the warm start starts from them
/// (200 spheres of the frictional silo, 0.02 s and 0.02 s more against
/// 0.04 s; without the saved contacts the resumed run ends 0.2 mm away).
#[test]
fn a_resumed_3d_nscd_run_keeps_its_warm_start() {
    let tmp = tempfile::tempdir().unwrap();
    let (cut, whole) = (tmp.path().join("cut"), tmp.path().join("whole"));
    let (cut_s, whole_s) = (cut.to_str().unwrap(), whole.to_str().unwrap());
    let silo = "scenes/3d/silo.toml";
    for args in [
        vec![
            "run",
            silo,
            "--grains",
            "200",
            "--duration",
            "0.02",
            "--out",
            cut_s,
            "-q",
        ],
        vec!["run", "--resume", cut_s, "--duration", "0.02", "-q"],
        vec![
            "run",
            silo,
            "--grains",
            "200",
            "--duration",
            "0.04",
            "--out",
            whole_s,
            "-q",
        ],
    ] {
        let o = hourglass(&args);
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
    let state = |dir: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join("state.json")).unwrap()).unwrap()
    };
    let (a, b) = (state(&cut), state(&whole));
    assert!(
        a["contacts"]["words"].as_array().is_some_and(|w| !w.is_empty()),
        "contacts saved"
    );
    assert_eq!(a["grains"], b["grains"]);
    assert_eq!(a["step"], b["step"]);
}

/// A sphere held on a 20-degree slope (a plane alone) by its Hertz-Mindlin
/// spring and its rolling resistance, dropped from 0.2 m (1 kg, r = 0.1 m).
const SLOPE: &str = r#"version = 1
dimension = 3
gravity = [0.0, -9.81]
[walls]
planes = [[0.0, 0.0, 0.0, -0.34202014, 0.93969262, 0.0]]
[grains]
count = 0
mass = 1.0
radius_mean = 0.1
radius_std = 0.0
radius_min = 0.1
radius_max = 0.1
[[emitters]]
position = [0.0, 0.3, 0.0]
jitter = 0.0
radius = 0.1
interval = 1.0
count = 1
[solver]
kind = "dem"
integrator = "velocity_verlet"
dt = 1e-4
alert = 0.01
[dem]
law = "hertz_mindlin"
kn = 1e6
gamma_n = 1000.0
gamma_relax = 1000.0
mu = 0.8
mu_roll = 0.6
[run]
every = 1000
backend = "cpu"
"#;

/// A sphere held on a 20-degree slope (a plane alone) by its Hertz-Mindlin
/// spring and its rolling resistance rocks on that spring; resumed, it goes
/// on within 1e-6 m of the uninterrupted run (the first force is computed
/// afresh: 4e-8 m measured), and with the spring dropped from state.json
/// it ends over 1e-5 m away (1.5e-4 m measured).
#[test]
fn a_resumed_3d_hertz_mindlin_run_keeps_its_springs() {
    let tmp = tempfile::tempdir().unwrap();
    let scene = tmp.path().join("slope.toml");
    std::fs::write(&scene, SLOPE).unwrap();
    let s = scene.to_str().unwrap();
    let dir = |name: &str| tmp.path().join(name);
    let run = |args: &[&str]| {
        let o = hourglass(args);
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    run(&[
        "run",
        s,
        "--duration",
        "1.5",
        "--out",
        dir("whole").to_str().unwrap(),
        "-q",
    ]);
    for name in ["kept", "dropped"] {
        run(&[
            "run",
            s,
            "--duration",
            "1.0",
            "--out",
            dir(name).to_str().unwrap(),
            "-q",
        ]);
    }
    let path = dir("dropped").join("state.json");
    let mut state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        state["contacts"]["count"],
        serde_json::json!([1]),
        "the spring is saved"
    );
    state["contacts"] = serde_json::Value::Null;
    std::fs::write(&path, serde_json::to_string(&state).unwrap()).unwrap();
    for name in ["kept", "dropped"] {
        run(&[
            "run",
            "--resume",
            dir(name).to_str().unwrap(),
            "--duration",
            "0.5",
            "-q",
        ]);
    }
    let pos = |name: &str| -> Vec<f64> {
        let text = std::fs::read_to_string(dir(name).join("state.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["grains"]["pos"][0]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    let apart = |name: &str| {
        pos(name)
            .iter()
            .zip(pos("whole"))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
    };
    assert!(apart("kept") < 1e-6, "kept: {:e} m apart", apart("kept"));
    assert!(apart("dropped") > 1e-5, "dropped: {:e} m apart", apart("dropped"));
}

/// A sphere emitted elsewhere leaves the springs of the others as they
/// are: the sphere held on the slope ends where it ends alone, to
/// round-off (3e-9 m measured), when a second sphere drops 0.6 m away at
/// 1.2 s (when an emission dropped every spring it ended 1.1e-4 m away).
#[test]
fn an_emitted_sphere_leaves_the_other_springs_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let second = "[[emitters]]\nposition = [0.6, 0.6, 0.0]\njitter = 0.0\nradius = 0.1\nstart = 1.2\ninterval = 1.0\ncount = 1\n[solver]";
    let scenes = [
        ("alone", SLOPE.to_string()),
        ("two", SLOPE.replacen("[solver]", second, 1)),
    ];
    let mut first = Vec::new();
    for (name, text) in scenes {
        let scene = tmp.path().join(format!("{name}.toml"));
        std::fs::write(&scene, text).unwrap();
        let out = tmp.path().join(name);
        let o = hourglass(&[
            "run",
            scene.to_str().unwrap(),
            "--duration",
            "1.5",
            "--out",
            out.to_str().unwrap(),
            "-q",
        ]);
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("state.json")).unwrap()).unwrap();
        assert_eq!(
            v["grains"]["pos"].as_array().unwrap().len(),
            if name == "two" { 2 } else { 1 }
        );
        let p: Vec<f64> = v["grains"]["pos"][0]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        first.push(p);
    }
    let apart = first[0]
        .iter()
        .zip(&first[1])
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(apart < 1e-6, "the held sphere moved {apart:e} m");
}

/// A sweep over a 3D scene runs each point as `hourglass run` runs it:
/// five times the spring's stiffness, the landing spheres overlap less,
/// though not by the undamped factor 1/sqrt(5).
#[test]
fn a_sweep_runs_a_3d_scene_at_each_point() {
    let tmp = tempfile::tempdir().unwrap();
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/3d/pile_box.toml");
    let sweep = format!(
        "version = 1\nscene = \"{}\"\n[grid]\n\"spring.ks\" = [8000.0, 40000.0]\n[run]\nduration = 1.5\nevery = 500\n",
        scene.display()
    );
    std::fs::write(tmp.path().join("ks.toml"), &sweep).unwrap();
    let out = tmp.path().join("ks");
    let o = hourglass(&[
        "sweep",
        tmp.path().join("ks.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--workers",
        "1",
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let overlap = |id: &str| {
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("runs").join(id).join("summary.json")).unwrap())
                .unwrap();
        // Fed at 0, 0.18, ..., 1.44 s; the first lands at about 0.94 s.
        assert_eq!(s["emitted"], 9, "{s}");
        s["max_overlap"].as_f64().unwrap()
    };
    let (soft, stiff) = (overlap("0000"), overlap("0001"));
    // An undamped landing compresses by v sqrt(m / k_s): 1/sqrt(5) as deep at
    // five times k_s; the dashpot (k_d = 100 N s/m) takes a larger share of
    // the stiffer, shorter impact.
    let ratio = stiff / soft;
    assert!(ratio > 0.447 && ratio < 0.7, "{soft} {stiff}: {ratio}");
}
