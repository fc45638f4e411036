//! The renderer against known pictures, and `hourglass render` on a small run.

mod gpu_common;

use hourglass::gpu::DeviceGrains;
use hourglass::gpu::buffers::storage;
use hourglass::model::{Contact, ContactLists, Grains, Walls};
use hourglass::render::renderer::{Frame, Renderer, Source};
use hourglass::render::{
    BACKGROUND, Camera, ColorMode, Offscreen, Ranges, SEAM_COLOR, SPOKE_DARK, SPOKE_LIGHT, WALL_COLOR, band_color,
    colormap, offscreen, spoke_color, with_period,
};

const W: u32 = 200;
const H: u32 = 200;

/// Three disks of radius 0.2 m at x = -0.5, 0, 0.5 (ids in bands 0, 1, 2 of
/// 1200 ids) above a floor at y = -0.6, seen from (0, 0) with 1 m half-height.
fn scene() -> (Grains, Walls, Frame) {
    let mut g = Grains::new(
        vec![[-0.5, 0.0], [0.0, 0.0], [0.5, 0.0]],
        vec![[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]],
        vec![0.2; 3],
        1.0,
    );
    g.id = vec![0, 100, 200];
    let walls = Walls::new(&[[[-1.0, -0.6], [1.0, -0.6]]]);
    let ranges = Ranges {
        ids: 1200,
        speed: [0.0, 10.0],
        radius: [0.1, 0.3],
        load: [0.0, 2.0],
        g_dt: 1.0,
    };
    let frame = Frame {
        camera: Camera {
            center: [0.0, 0.0],
            half_height: 1.0,
        },
        mode: ColorMode::Height,
        ranges,
        width: W,
        height: H,
        legend: false,
    };
    (g, walls, frame)
}

fn px(img: &image::RgbaImage, cam: &Camera, p: [f32; 2]) -> [u8; 3] {
    let q = cam.to_pixel(p, W, H);
    let c = img.get_pixel(q[0] as u32, q[1] as u32).0;
    [c[0], c[1], c[2]]
}

fn near(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(&b).all(|(x, y)| x.abs_diff(*y) <= 2)
}

#[test]
fn offscreen_disks_wall_and_background_have_their_colours() {
    let Some(ctx) = gpu_common::context() else { return };
    let (g, walls, frame) = scene();
    let mut r = Renderer::new(&ctx, offscreen::FORMAT);
    r.set_walls(&ctx, &walls);
    let target = Offscreen::new(&ctx, W, H);
    let host = Source::Host {
        grains: &g,
        contacts: None,
    };
    let img = target.render(&ctx, &mut r, &host, &frame).unwrap();
    assert_eq!(img.dimensions(), (W, H));
    let cam = frame.camera;
    for (k, p) in g.pos.iter().enumerate() {
        let want = band_color(g.id[k], 1200);
        assert!(
            near(px(&img, &cam, *p), want),
            "disk {k}: {:?} != {want:?}",
            px(&img, &cam, *p)
        );
    }
    let bg = [BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]];
    assert_eq!(px(&img, &cam, [0.0, 0.6]), bg, "above the disks");
    assert_eq!(px(&img, &cam, [-0.25, 0.0]), bg, "between two disks");
    assert_eq!(px(&img, &cam, [0.0, -0.8]), bg, "below the floor");
    let wall = [WALL_COLOR[0], WALL_COLOR[1], WALL_COLOR[2]];
    assert_eq!(px(&img, &cam, [0.3, -0.6]), wall, "on the floor");

    // Speed: the middle disk moves at 5 m/s of a 10 m/s scale.
    let speed = Frame {
        mode: ColorMode::Speed,
        ..frame
    };
    let img = target.render(&ctx, &mut r, &host, &speed).unwrap();
    assert!(near(px(&img, &cam, g.pos[1]), colormap(0.5)));
    assert!(near(px(&img, &cam, g.pos[0]), colormap(0.0)));

    // Contact load from the lists: disk 2 carries impulses summing to 1.5 N s
    // at inverse mass 1/1.5 (sum P im / (|g| dt) = 1 of a [0, 2] scale).
    let mut lists = ContactLists::new(3, 2);
    let mut gl = g.clone();
    gl.inv_mass = vec![1.0, 1.0, 1.0 / 1.5];
    lists.count[2] = 2;
    lists.slots[4] = Contact {
        impulse: 1.0,
        ..Default::default()
    };
    lists.slots[5] = Contact {
        impulse: 0.5,
        ..Default::default()
    };
    let loaded = Source::Host {
        grains: &gl,
        contacts: Some(&lists),
    };
    let load = Frame {
        mode: ColorMode::Load,
        ..frame
    };
    let img = target.render(&ctx, &mut r, &loaded, &load).unwrap();
    assert!(
        near(px(&img, &cam, g.pos[2]), colormap(0.5)),
        "{:?}",
        px(&img, &cam, g.pos[2])
    );
    assert!(near(px(&img, &cam, g.pos[0]), colormap(0.0)));
}

#[test]
fn spokes_run_from_the_centre_to_the_rim_at_each_grains_angle() {
    let Some(ctx) = gpu_common::context() else { return };
    let (mut g, walls, frame) = scene();
    // Grain 0 (a light band) at angle 0, grain 1 (a dark band) at pi/2,
    // grain 2 at -3 pi/4 (radius 0.2 m = 20 px).
    g.angle = vec![0.0, std::f32::consts::FRAC_PI_2, -0.75 * std::f32::consts::PI];
    let mut r = Renderer::new(&ctx, offscreen::FORMAT);
    r.set_walls(&ctx, &walls);
    let target = Offscreen::new(&ctx, W, H);
    let host = Source::Host {
        grains: &g,
        contacts: None,
    };
    let img = target.render(&ctx, &mut r, &host, &frame).unwrap();
    let cam = frame.camera;
    let at = |k: usize, dir: [f32; 2], radii: f32| {
        px(
            &img,
            &cam,
            [g.pos[k][0] + radii * 0.2 * dir[0], g.pos[k][1] + radii * 0.2 * dir[1]],
        )
    };
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let (east, north, west, south) = ([1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]);
    let cases = [
        (0, east, [north, west, south]),
        (1, north, [east, west, south]),
        (2, [-s, -s], [east, north, south]),
    ];
    for (k, along, across) in cases {
        let body = band_color(g.id[k], 1200);
        let spoke = spoke_color(body);
        assert_ne!(spoke, body);
        assert!(
            near(at(k, [0.0, 0.0], 0.0), body),
            "grain {k}: the centre keeps its colour"
        );
        for radii in [0.4, 0.6, 0.85] {
            let got = at(k, along, radii);
            assert!(
                near(got, spoke),
                "grain {k}: {got:?} at {radii} radii along its angle, not {spoke:?}"
            );
        }
        for dir in across {
            let got = at(k, dir, 0.6);
            assert!(
                near(got, body),
                "grain {k}: {got:?} at 0.6 radii towards {dir:?}, not {body:?}"
            );
        }
    }
    // The light band gets the dark spoke and the dark band the light one.
    assert_eq!(spoke_color(band_color(0, 1200)), SPOKE_DARK);
    assert_eq!(spoke_color(band_color(100, 1200)), SPOKE_LIGHT);
}

#[test]
fn device_buffers_in_place_draw_the_same_picture_as_host_arrays() {
    let Some(ctx) = gpu_common::context() else { return };
    let (mut g, walls, frame) = scene();
    // Turned grains: the spokes come from the host angles or the device's.
    g.angle = (0..g.len()).map(|i| 0.7 + 1.9 * i as f32).collect();
    let mut r = Renderer::new(&ctx, offscreen::FORMAT);
    r.set_walls(&ctx, &walls);
    let target = Offscreen::new(&ctx, W, H);
    let host = target
        .render(
            &ctx,
            &mut r,
            &Source::Host {
                grains: &g,
                contacts: None,
            },
            &frame,
        )
        .unwrap();
    let (pos, vel, radius, inv_mass, id) = (
        storage(&ctx, "test.pos", &g.pos),
        storage(&ctx, "test.vel", &g.vel),
        storage(&ctx, "test.radius", &g.radius),
        storage(&ctx, "test.inv_mass", &g.inv_mass),
        storage(&ctx, "test.id", &g.id),
    );
    let (count, slots) = (
        storage(&ctx, "test.count", &[0u32; 3]),
        storage(&ctx, "test.slots", &[0u32; 8]),
    );
    let angle = storage(&ctx, "test.angle", &g.angle);
    let device = Source::Device(DeviceGrains {
        ctx: &ctx,
        len: 3,
        pos: &pos,
        vel: &vel,
        radius: &radius,
        inv_mass: &inv_mass,
        id: &id,
        count: &count,
        slots: &slots,
        capacity: 0,
        angle: Some(&angle),
    });
    let dev = target.render(&ctx, &mut r, &device, &frame).unwrap();
    assert!(host == dev, "the in-place picture differs from the uploaded one");
}

#[test]
fn render_command_writes_pngs_and_a_gif_of_the_requested_size() {
    if gpu_common::context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let bin = env!("CARGO_BIN_EXE_hourglass");
    let st = std::process::Command::new(bin)
        .args([
            "run",
            "--grains",
            "60",
            "--steps",
            "30",
            "--every",
            "10",
            "--backend",
            "cpu",
            "-q",
            "--out",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    let st = std::process::Command::new(bin)
        .args([
            "render", "--width", "160", "--height", "120", "--fps", "10", "--every", "2", "-q",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    let pngs: Vec<_> = std::fs::read_dir(out.join("render"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    let frames = hourglass::output::read::frames(&out).unwrap().len();
    assert_eq!(pngs.len(), frames.div_ceil(2));
    for p in &pngs {
        let img = image::open(p).unwrap().to_rgba8();
        assert_eq!(img.dimensions(), (160, 120));
        let bg = image::Rgba(BACKGROUND);
        let lit = img.pixels().filter(|c| **c != bg).count();
        assert!(lit > 200, "{}: only {lit} non-background pixels", p.display());
    }
    let gif = out.join("render.gif");
    let dec = image::codecs::gif::GifDecoder::new(std::io::BufReader::new(std::fs::File::open(&gif).unwrap())).unwrap();
    use image::AnimationDecoder;
    let gif_frames = dec.into_frames().collect_frames().unwrap();
    assert_eq!(gif_frames.len(), pngs.len());
    assert_eq!(gif_frames[0].buffer().dimensions(), (160, 120));
}

/// `render` twice, on an interrupted run, with no XDG_RUNTIME_DIR: the
/// graphics stack prints nothing, --quiet prints nothing at all, a notice
/// says the run is incomplete, and the second render replaces the first.
#[test]
fn render_is_quiet_without_a_runtime_dir_and_notes_an_interrupted_run() {
    if gpu_common::context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let bin = env!("CARGO_BIN_EXE_hourglass");
    let run = |args: &[&str]| {
        std::process::Command::new(bin)
            .args(args)
            .env_remove("XDG_RUNTIME_DIR")
            .output()
            .unwrap()
    };
    let path = out.to_str().unwrap();
    let o = run(&[
        "run",
        "--grains",
        "60",
        "--steps",
        "20",
        "--every",
        "5",
        "--backend",
        "cpu",
        "-q",
        "--out",
        path,
    ]);
    assert!(o.status.success());
    let o = run(&["render", "--width", "64", "--height", "64", "-q", path]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stderr.is_empty(), "--quiet: {}", String::from_utf8_lossy(&o.stderr));
    let first = std::fs::read_dir(out.join("render")).unwrap().count();

    std::fs::remove_file(out.join("summary.json")).unwrap();
    let o = run(&["render", "--width", "64", "--height", "64", "--every", "2", path]);
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("XDG_RUNTIME_DIR"), "{err}");
    assert_eq!(err.lines().filter(|l| l.contains("incomplete")).count(), 1, "{err}");
    let second = std::fs::read_dir(out.join("render")).unwrap().count();
    assert_eq!(second, first.div_ceil(2), "the first render's PNGs were not removed");
}

/// A GPU run with no XDG_RUNTIME_DIR prints nothing under --quiet.
#[test]
fn gpu_run_is_quiet_without_a_runtime_dir() {
    if gpu_common::context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args([
            "run",
            "--grains",
            "60",
            "--steps",
            "2",
            "--backend",
            "gpu",
            "-q",
            "--out",
        ])
        .arg(dir.path().join("run"))
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A result directory written through the library: a unit box with a
/// piston across it at y = 0.3 (walls.vtp), two frames of the same grain
/// and, when `moving`, the piston of frame 1 at y = 0.7 (walls.pvd).
fn piston_result(out: &std::path::Path, moving: bool) -> (Grains, Walls) {
    piston_to(out, moving, 0.7)
}

/// [`piston_result`] with the piston at `y1` in frame 1.
fn piston_to(out: &std::path::Path, moving: bool, y1: f64) -> (Grains, Walls) {
    let walls_at = |y: f64| {
        Walls::new(&[
            [[0.0, 0.0], [1.0, 0.0]],
            [[0.0, 0.0], [0.0, 1.0]],
            [[1.0, 0.0], [1.0, 1.0]],
            [[0.1, y], [0.9, y]],
        ])
    };
    let g = Grains::new(vec![[0.15, 0.5]], vec![[0.0, 0.0]], vec![0.04], 1.0);
    let mut dir = hourglass::output::ResultDir::create(out, "version = 1\n").unwrap();
    dir.walls(&walls_at(0.3)).unwrap();
    for (k, y) in [0.3, y1].into_iter().enumerate() {
        dir.frame(k as f64 * 0.1, &g).unwrap();
        if moving {
            dir.moving_walls(k, &walls_at(y)).unwrap();
        }
    }
    (g, walls_at(0.3))
}

/// `hourglass render` of `out` at 200 x 200 px: the two frames' pictures.
fn render_two(out: &std::path::Path) -> [image::RgbaImage; 2] {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args(["render", "--width", "200", "--height", "200", "-q"])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    [0, 1].map(|k| {
        image::open(out.join(format!("render/frame_{k:06}.png")))
            .unwrap()
            .to_rgba8()
    })
}

#[test]
fn render_draws_each_frames_walls_where_they_moved() {
    if gpu_common::context().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (moving, fixed) = (tmp.path().join("moving"), tmp.path().join("fixed"));
    let (g, walls) = piston_result(&moving, true);
    piston_result(&fixed, false);
    let [m0, m1] = render_two(&moving);
    let [f0, f1] = render_two(&fixed);
    // The camera render fits to the first frame and walls.vtp.
    let cam = Camera::fit(hourglass::render::scene_bbox(&g, &walls), W, H);
    let at = |img: &image::RgbaImage, p: [f32; 2]| px(img, &cam, p);
    let wall = [WALL_COLOR[0], WALL_COLOR[1], WALL_COLOR[2]];
    let bg = [BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]];
    for x in [0.4, 0.5, 0.6] {
        let (low, high) = ([x, 0.3], [x, 0.7]);
        assert!(
            near(at(&m0, low), wall) && near(at(&m0, high), bg),
            "frame 0 at x = {x}"
        );
        assert!(
            near(at(&m1, high), wall),
            "frame 1 at x = {x}: no piston at 0.7: {:?}",
            at(&m1, high)
        );
        assert!(
            near(at(&m1, low), bg),
            "frame 1 at x = {x}: the piston left at 0.3: {:?}",
            at(&m1, low)
        );
        // Walls that never move: walls.vtp in both frames.
        for f in [&f0, &f1] {
            assert!(
                near(at(f, low), wall) && near(at(f, high), bg),
                "fixed walls at x = {x}"
            );
        }
    }
    // Frame 0's walls are walls.vtp's: the same picture as without walls.pvd,
    // and the fixed walls' frames are alike.
    assert!(m0 == f0, "frame 0 differs from the render without moving walls");
    assert!(f0 == f1, "the fixed walls' frames differ");
}

#[test]
fn render_holds_walls_that_move_beyond_the_first_frames_box() {
    if gpu_common::context().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    // The piston rises out of the box, to y = 1.6: the camera holds every
    // frame's walls, [0, 1] x [0, 1.6].
    piston_to(&out, true, 1.6);
    let [m0, m1] = render_two(&out);
    let cam = Camera::fit([0.0, 0.0, 1.0, 1.6], W, H);
    let wall = [WALL_COLOR[0], WALL_COLOR[1], WALL_COLOR[2]];
    for x in [0.4, 0.5, 0.6] {
        assert!(
            near(px(&m1, &cam, [x, 1.6]), wall),
            "frame 1 at x = {x}: no piston at 1.6"
        );
        assert!(
            near(px(&m0, &cam, [x, 0.3]), wall),
            "frame 0 at x = {x}: no piston at 0.3"
        );
    }
}

/// Whether pixel `c` has the mark colour of a periodic boundary.
fn is_mark(c: &image::Rgba<u8>) -> bool {
    near([c[0], c[1], c[2]], [SEAM_COLOR[0], SEAM_COLOR[1], SEAM_COLOR[2]])
}

/// The rows of `img` with the mark colour in a column about pixel x = `x`
/// (the seam is 2 px wide about it).
fn marked_rows(img: &image::RgbaImage, x: f32) -> u32 {
    let (w, h) = img.dimensions();
    let c = x.floor() as i64;
    let cols: Vec<u32> = (c - 1..=c + 1)
        .filter(|&k| k >= 0 && k < i64::from(w))
        .map(|k| k as u32)
        .collect();
    (0..h)
        .filter(|&y| cols.iter().any(|&k| is_mark(img.get_pixel(k, y))))
        .count() as u32
}

/// Every pixel with the mark colour.
fn marks(img: &image::RgbaImage) -> usize {
    img.pixels().filter(|c| is_mark(c)).count()
}

/// A seam is dashed: marked on more than 40 % of the rows (dashes of 8 px
/// with gaps of 6 px: 57 %) and not on all of them.
fn dashed(img: &image::RgbaImage, x: f32, what: &str) {
    let h = img.height();
    let rows = marked_rows(img, x);
    assert!(
        rows * 10 > 4 * h && rows * 4 < 3 * h,
        "{what}: the seam at pixel x = {x} is marked on {rows} of {h} rows"
    );
}

#[test]
fn seams_mark_the_period_dashed_in_their_own_colour_over_the_grains_under_the_walls() {
    let Some(ctx) = gpu_common::context() else { return };
    let (g, walls, frame) = scene();
    let mut r = Renderer::new(&ctx, offscreen::FORMAT);
    r.set_walls(&ctx, &walls);
    let target = Offscreen::new(&ctx, W, H);
    let host = Source::Host {
        grains: &g,
        contacts: None,
    };
    let plain = target.render(&ctx, &mut r, &host, &frame).unwrap();
    assert_eq!(marks(&plain), 0, "a domain that is not periodic has no mark");
    let mark = [SEAM_COLOR[0], SEAM_COLOR[1], SEAM_COLOR[2]];
    assert_ne!(mark, [WALL_COLOR[0], WALL_COLOR[1], WALL_COLOR[2]]);

    // Seams at x = -0.75 and x = 0.6: the second crosses disk 2 (x = 0.5, r = 0.2).
    r.set_period(&ctx, Some([-0.75, 0.6]));
    let img = target.render(&ctx, &mut r, &host, &frame).unwrap();
    let cam = frame.camera;
    for x in [-0.75, 0.6] {
        dashed(&img, cam.to_pixel([x, 0.0], W, H)[0], &format!("seam at x = {x}"));
    }
    // Nothing else has the mark: every marked pixel is on a seam's columns.
    let on_seams: u32 = [-0.75, 0.6]
        .iter()
        .map(|&x| {
            let c = cam.to_pixel([x, 0.0], W, H)[0].floor() as u32;
            (0..H)
                .map(|y| (c - 1..=c + 1).filter(|&k| is_mark(img.get_pixel(k, y))).count() as u32)
                .sum::<u32>()
        })
        .sum();
    assert_eq!(marks(&img), on_seams as usize);
    // Over the disk (x = 0.6 crosses disk 2 for |y| < 0.17), under the floor.
    let seam = cam.to_pixel([0.6, 0.0], W, H)[0] as u32;
    let over_disk = (0..H)
        .filter(|&y| cam.to_world([seam as f32 + 0.5, y as f32 + 0.5], W, H)[1].abs() < 0.1)
        .any(|y| is_mark(img.get_pixel(seam, y)));
    assert!(over_disk, "the seam is hidden by the disk it crosses");
    let floor = cam.to_pixel([-0.75, -0.6], W, H);
    let c = img.get_pixel(floor[0] as u32, floor[1] as u32);
    assert_eq!(
        [c[0], c[1], c[2]],
        [WALL_COLOR[0], WALL_COLOR[1], WALL_COLOR[2]],
        "the wall on top"
    );
    // Background elsewhere; and no mark once the period is gone.
    assert_eq!(
        px(&img, &cam, [0.0, 0.6]),
        [BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]]
    );
    r.set_period(&ctx, None);
    let again = target.render(&ctx, &mut r, &host, &frame).unwrap();
    assert!(again == plain, "set_period(None) leaves a mark");
}

/// A small scene, periodic over [-0.05, 0.05] when `periodic`, over a
/// floor narrower than the period: two resting grains, no gravity.
fn small_scene(periodic: bool) -> String {
    format!(
        "version = 1\ngravity = [0.0, 0.0]\n[walls]\nsegments = [[-0.03, 0.0, 0.03, 0.0]]\n{}\
         [grains]\nlist = [[-0.02, 0.008, 0.0, 0.0, 0.003], [0.02, 0.008, 0.0, 0.0, 0.003]]\n\
         [run]\nsteps = 20\nevery = 10\nbackend = \"cpu\"\n",
        if periodic { "periodic_x = [-0.05, 0.05]\n" } else { "" }
    )
}

/// `hourglass run` of `scene` into `out`.
fn run_scene(scene: &str, out: &std::path::Path) {
    let file = out.with_extension("toml");
    std::fs::write(&file, scene).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .arg("run")
        .arg(&file)
        .args(["-q", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `hourglass render` of `out` at W x H px: every frame's picture.
fn render_all(out: &std::path::Path) -> Vec<image::RgbaImage> {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args(["render", "--width", &W.to_string(), "--height", &H.to_string(), "-q"])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let frames = hourglass::output::read::frames(out).unwrap().len();
    assert!(frames >= 2, "{frames} frames");
    (0..frames)
        .map(|k| {
            image::open(out.join(format!("render/frame_{k:06}.png")))
                .unwrap()
                .to_rgba8()
        })
        .collect()
}

#[test]
fn render_marks_the_seams_of_a_periodic_run_and_of_no_other() {
    if gpu_common::context().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (periodic, plain) = (tmp.path().join("periodic"), tmp.path().join("plain"));
    run_scene(&small_scene(true), &periodic);
    run_scene(&small_scene(false), &plain);
    // The view holds the period, wider than the floor: both seams in sight.
    let walls = hourglass::output::read::walls(&periodic).unwrap();
    let first = hourglass::output::read::frames(&periodic).unwrap()[0].1.clone();
    let g = hourglass::output::read::grains(&first).unwrap();
    let cam = Camera::fit(
        with_period(hourglass::render::scene_bbox(&g, &walls), Some([-0.05, 0.05])),
        W,
        H,
    );
    for (k, img) in render_all(&periodic).iter().enumerate() {
        for x in [-0.05, 0.05] {
            let p = cam.to_pixel([x, 0.0], W, H)[0];
            assert!(p > 2.0 && p < W as f32 - 2.0, "the seam at x = {x} is out of view: {p}");
            dashed(img, p, &format!("frame {k}, seam at x = {x}"));
        }
        // The grains are where the fitted camera puts them.
        // (A disk of 6 px: the spoke's anti-aliased hub tints its centre a little.)
        let c = px(img, &cam, g.pos[0]);
        let want = band_color(g.id[0], 2);
        assert!(
            c.iter().zip(&want).all(|(a, b)| a.abs_diff(*b) <= 8),
            "frame {k}: {c:?} at grain 0, not {want:?}"
        );
    }
    for (k, img) in render_all(&plain).iter().enumerate() {
        assert_eq!(marks(img), 0, "frame {k} of a run that is not periodic has a mark");
    }
    // A directory without scene.toml (an older version's, or written by
    // hand) still renders, without a mark.
    std::fs::remove_file(periodic.join("scene.toml")).unwrap();
    for (k, img) in render_all(&periodic).iter().enumerate() {
        assert_eq!(marks(img), 0, "frame {k} without scene.toml has a mark");
    }
}

#[test]
fn render_of_a_scene_toml_with_a_bad_period_fails_in_one_line() {
    if gpu_common::context().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("periodic");
    run_scene(&small_scene(true), &out);
    let scene = out.join("scene.toml");
    let text = std::fs::read_to_string(&scene).unwrap();
    assert!(text.contains("periodic_x"), "{text}");
    std::fs::write(&scene, "[walls]\nperiodic_x = [0.05, -0.05]\n").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args(["render", "--width", "32", "--height", "32", "-q"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("scene.toml") && err.contains("walls.periodic_x"), "{err}");
}
