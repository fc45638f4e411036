//! Pictures of 3D runs against known scenes: shaded spheres where the orbit
//! camera puts them, depth, the cut-away, translucent walls, and
//! `hourglass render` on a 3D result directory.

mod gpu_common;

use hourglass::model::Grains;
use hourglass::model::space::Dim3;
use hourglass::render::orbit::Orbit;
use hourglass::render::spheres::{AMBIENT, FACE_ALPHA, LIGHT, SphereFrame, SphereMovie};
use hourglass::render::{BACKGROUND, ColorMode, Ranges, WALL_COLOR, band_color};

const W: u32 = 200;
const H: u32 = 200;
const IDS: u32 = 1200;

/// Spheres at `pos` of radius `r` with ids `id` (bands 1 and 2 for ids 100 and 200).
fn spheres(pos: &[[f32; 3]], r: f32, id: &[u32]) -> Grains<Dim3> {
    let n = pos.len();
    Grains {
        pos: pos.to_vec(),
        vel: vec![[0.0; 3]; n],
        radius: vec![r; n],
        inv_mass: vec![1.0; n],
        id: id.to_vec(),
        ang_vel: vec![[0.0; 3]; n],
        angle: vec![[1.0, 0.0, 0.0, 0.0]; n],
    }
}

/// The camera in front of the box [-1, 1]^3 (yaw 0, pitch 0: looking along
/// -z, eye coordinates are world coordinates shifted along z).
fn frame(cut: bool) -> SphereFrame {
    SphereFrame {
        orbit: Orbit::fit([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0], 0.0, 0.0, 1.0),
        mode: ColorMode::Height,
        ranges: Ranges {
            ids: IDS,
            speed: [0.0, 10.0],
            radius: [0.1, 0.3],
            load: [0.0, 2.0],
            g_dt: 1.0,
        },
        cut,
        legend: false,
    }
}

fn draw(ctx: &hourglass::gpu::GpuContext, walls: &[Vec<[f32; 3]>], g: &Grains<Dim3>, cut: bool) -> image::RgbaImage {
    let mut movie = SphereMovie::new(ctx, walls, frame(cut), [W, H]);
    movie.draw(g).unwrap()
}

fn at(img: &image::RgbaImage, p: [f32; 3]) -> [u8; 3] {
    let q = frame(false).orbit.to_pixel(p, W, H).unwrap();
    let c = img.get_pixel(q[0] as u32, q[1] as u32).0;
    [c[0], c[1], c[2]]
}

fn near(a: [u8; 3], b: [u8; 3], tol: u8) -> bool {
    a.iter().zip(&b).all(|(x, y)| x.abs_diff(*y) <= tol)
}

fn to_linear(c: u8) -> f32 {
    let v = f32::from(c) / 255.0;
    if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

fn to_byte(l: f32) -> u8 {
    let l = l.clamp(0.0, 1.0);
    let v = if l <= 0.0031308 {
        12.92 * l
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    (v * 255.0).round() as u8
}

/// `color` lit with shade `s` (on linear values), as sRGB bytes.
fn shaded(color: [u8; 3], s: f32) -> [u8; 3] {
    color.map(|c| to_byte(to_linear(c) * s))
}

fn unit(v: [f32; 3]) -> [f32; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|x| x / l)
}

/// A sphere at the centre: the pixel facing the eye has its band colour at
/// the shade of a normal towards the eye, the point facing the light its
/// full colour, the far side the ambient shade; around it, the background.
#[test]
fn a_sphere_is_shaded_where_the_camera_puts_it() {
    let Some(ctx) = gpu_common::context() else { return };
    let r = 0.5;
    let img = draw(&ctx, &[], &spheres(&[[0.0; 3]], r, &[100]), false);
    let body = band_color(100, IDS);
    let l = unit(LIGHT);
    let facing = shaded(body, AMBIENT + (1.0 - AMBIENT) * l[2]);
    assert!(
        near(at(&img, [0.0; 3]), facing, 2),
        "{:?} != {facing:?}",
        at(&img, [0.0; 3])
    );
    // The point whose normal is the light's direction (seen from the eye:
    // its pixel lies up and to the left).
    let lit = at(&img, l.map(|x| 0.98 * r * x));
    assert!(near(lit, body, 6), "lit {lit:?} != {body:?}");
    // The far side from the light, seen near the rim at the lower right.
    let dark = at(&img, [0.6 * r, -0.6 * r, 0.5 * r]);
    let least = shaded(body, AMBIENT);
    assert!(near(dark, least, 8), "dark {dark:?} != {least:?}");
    let bg = [BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]];
    for p in [[1.15 * r, 0.0, 0.0], [0.0, -1.15 * r, 0.0], [0.9 * r, 0.9 * r, 0.0]] {
        assert_eq!(at(&img, p), bg, "off the sphere at {p:?}");
    }
    assert_eq!(img.get_pixel(0, 0).0, BACKGROUND);
    assert_eq!(img.get_pixel(W - 1, H - 1).0, BACKGROUND);
}

/// Of two spheres on the line of sight the nearer one is seen, whichever
/// is drawn first; the cut-away leaves out the one in front of the centre
/// and shows the one behind, as it looks alone.
#[test]
fn the_nearer_sphere_hides_the_farther_and_the_cut_shows_it() {
    let Some(ctx) = gpu_common::context() else { return };
    let (front, back) = ([0.0, 0.0, 0.6], [0.0, 0.0, -0.6]);
    let alone_front = draw(&ctx, &[], &spheres(&[front], 0.3, &[100]), false);
    let alone_back = draw(&ctx, &[], &spheres(&[back], 0.3, &[200]), false);
    assert_ne!(at(&alone_front, [0.0; 3]), at(&alone_back, [0.0; 3]));
    for order in [[front, back], [back, front]] {
        let ids = if order[0] == front { [100, 200] } else { [200, 100] };
        let both = spheres(&order, 0.3, &ids);
        assert_eq!(at(&draw(&ctx, &[], &both, false), [0.0; 3]), at(&alone_front, [0.0; 3]));
        assert_eq!(at(&draw(&ctx, &[], &both, true), [0.0; 3]), at(&alone_back, [0.0; 3]));
    }
    // Two spheres that overlap meet where their surfaces cross: the pixel
    // over the nearer surface shows the sphere it belongs to.
    let pair = spheres(&[[-0.2, 0.0, 0.0], [0.2, 0.0, 0.0]], 0.3, &[100, 200]);
    let img = draw(&ctx, &[], &pair, false);
    let hue = |c: [u8; 3], of: [u8; 3]| {
        // The pixel is its sphere's colour times one shade: proportional bytes.
        let s: Vec<f32> = (0..3).map(|k| to_linear(c[k]) / to_linear(of[k]).max(1e-4)).collect();
        s.iter().all(|x| (x - s[0]).abs() < 0.08 * s[0].max(0.05))
    };
    let (bl, br) = (band_color(100, IDS), band_color(200, IDS));
    // Both spheres cover x = -0.06 and 0.06; the left surface is nearer at
    // the first (0.25 m before the centre plane against 0.17 m), the right at the second.
    for (x, near_one, far_one) in [(-0.06, bl, br), (0.06, br, bl)] {
        let c = at(&img, [x, 0.0, 0.0]);
        assert!(hue(c, near_one) && !hue(c, far_one), "at x = {x}: {c:?}");
    }
}

/// A floor square under the sphere: its edges in the wall colour, its face
/// a blend of the wall colour over the background, and the part of it cut
/// away by the cut-away gone.
#[test]
fn walls_are_translucent_faces_with_their_edges() {
    let Some(ctx) = gpu_common::context() else { return };
    // A vertical square (facing the eye) behind the centre, and a floor.
    let back = vec![
        [-0.8, -0.8, -0.5],
        [0.8, -0.8, -0.5],
        [0.8, 0.8, -0.5],
        [-0.8, 0.8, -0.5],
    ];
    let floor = vec![
        [-0.8, -0.9, 0.8],
        [0.8, -0.9, 0.8],
        [0.8, -0.9, -0.8],
        [-0.8, -0.9, -0.8],
    ];
    let none = spheres(&[], 0.1, &[]);
    let img = draw(&ctx, &[back.clone(), floor.clone()], &none, false);
    let bg = [BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]];
    let wall = [WALL_COLOR[0], WALL_COLOR[1], WALL_COLOR[2]];
    let face = at(&img, [0.3, 0.3, -0.5]);
    // Facing the eye, the face's shade is that of the normal (0, 0, 1).
    let s = AMBIENT + (1.0 - AMBIENT) * unit(LIGHT)[2];
    let lit = shaded(wall, s);
    let blend: [u8; 3] =
        std::array::from_fn(|k| (FACE_ALPHA * f32::from(lit[k]) + (1.0 - FACE_ALPHA) * f32::from(bg[k])).round() as u8);
    assert!(near(face, blend, 2), "face {face:?} != {blend:?}");
    let edge = at(&img, [0.0, 0.8, -0.5]);
    assert!(
        near(edge, wall, 40) && edge.iter().zip(&bg).all(|(e, b)| e > b),
        "edge {edge:?}"
    );
    // The floor's front half lies on the eye's side of the cut: gone.
    let cut = draw(&ctx, &[back, floor], &none, true);
    let front_floor = [0.0, -0.9, 0.6];
    assert!(at(&img, front_floor) != bg && at(&cut, front_floor) == bg);
    assert_eq!(at(&cut, [0.3, 0.3, -0.5]), face);
}

/// `hourglass run --render` and `hourglass render` of a 3D run: a picture
/// per frame at the size asked,
/// spheres drawn in the last; the 3D options refused on a run in the plane
/// and a pitch past the vertical, each in one line naming its flag, with
/// nothing written.
#[test]
fn render_draws_a_3d_run_and_refuses_the_camera_flags_elsewhere() {
    let Some(_) = gpu_common::context() else { return };
    let bin = env!("CARGO_BIN_EXE_hourglass");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("pile");
    let run = std::process::Command::new(bin)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "run",
            "scenes/3d/pile_box.toml",
            "--duration",
            "3",
            "--every",
            "1000",
            "-q",
            "--render",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(out.join("render.gif").is_file(), "run --render renders a 3D run");
    let render = std::process::Command::new(bin)
        .args([
            "render", "--width", "160", "--height", "120", "--cut", "--yaw", "-40", "-q",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(render.status.success(), "{}", String::from_utf8_lossy(&render.stderr));
    let frames = hourglass::output::read::frames(&out).unwrap();
    let pngs: Vec<_> = std::fs::read_dir(out.join("render")).unwrap().collect();
    assert_eq!(pngs.len(), frames.len());
    assert!(out.join("render.gif").is_file());
    let first = image::open(out.join("render/frame_000000.png")).unwrap().to_rgba8();
    let last = image::open(out.join(format!("render/frame_{:06}.png", frames.len() - 1)))
        .unwrap()
        .to_rgba8();
    assert_eq!(first.dimensions(), (160, 120));
    // The spheres fed in are drawn: below the legend, the last picture
    // differs from the first (no sphere yet) where they stand.
    let changed = first
        .enumerate_pixels()
        .filter(|(x, y, p)| *y >= 60 && last.get_pixel(*x, *y) != *p)
        .count();
    assert!(changed > 20, "{changed} pixels changed");

    let plane = tmp.path().join("plane");
    std::fs::create_dir(&plane).unwrap();
    std::fs::write(plane.join("scene.toml"), "version = 1\n").unwrap();
    for (args, flag) in [
        (vec!["--cut"], "--cut"),
        (vec!["--yaw", "10"], "--yaw"),
        (vec!["--pitch", "5"], "--pitch"),
    ] {
        let o = std::process::Command::new(bin)
            .arg("render")
            .args(&args)
            .arg(&plane)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains(flag) && err.lines().count() == 1,
            "{err}"
        );
        assert!(!plane.join("render").exists());
    }
    let o = std::process::Command::new(bin)
        .args(["render", "--pitch", "95"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("--pitch") && err.lines().count() == 1,
        "{err}"
    );
}
