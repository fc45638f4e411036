//! Reading a result directory back: what the writer writes reads back
//! exactly, and every corrupt file is one error that names the file and the
//! problem (never a panic, never silently wrong data).

use std::path::{Path, PathBuf};
use std::process::Command;

use hourglass::model::{Grains, Walls};
use hourglass::output::{ResultDir, read, vtk};

fn grains(n: usize) -> Grains {
    // Values that stress the decimal round trip: negative, tiny, large, not
    // representable in a few digits.
    let pos = (0..n)
        .map(|i| [(i as f32 * 0.1) - 3.7e-3, -(i as f32).sqrt() * 1.234_567e2])
        .collect();
    let vel = (0..n).map(|i| [1.0 / (i as f32 + 3.0), -1.0e-30 * i as f32]).collect();
    let radius = (0..n).map(|i| 1.0e-3 + 1.0e-6 * (i % 7) as f32 / 3.0).collect();
    let mut g = Grains::new(pos, vel, radius, 2500.0);
    g.id = (0..n as u32).rev().map(|i| if i == 0 { u32::MAX } else { i }).collect();
    g.ang_vel = (0..n).map(|i| -1.0e3 / (i as f32 + 7.0)).collect();
    g.angle = (0..n).map(|i| 0.1 * i as f32 - std::f32::consts::PI).collect();
    g
}

fn walls() -> Walls {
    Walls::new(&[
        [[-1.0, 2.0], [-0.1, 0.05]],
        [[-0.1, 0.05], [0.1, 0.05]],
        [[0.1, 0.05], [1.0 / 3.0, 2.0]],
        [[-2.5, -1.0], [2.5, -1.0]],
    ])
}

/// The grains as the reader returns them: no masses.
fn as_read(g: &Grains) -> Grains {
    Grains {
        inv_mass: vec![0.0; g.len()],
        ..g.clone()
    }
}

#[test]
fn frames_and_walls_round_trip_exactly_through_the_writer() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run & <results>");
    let mut out = ResultDir::create(&dir, "version = 1\n").unwrap();
    let written: Vec<(f64, Grains)> = [0, 1, 1000]
        .iter()
        .enumerate()
        .map(|(k, &n)| (k as f64 * 0.1 + 1e-9, grains(n)))
        .collect();
    for (t, g) in &written {
        out.frame(*t, g).unwrap();
    }
    out.walls(&walls()).unwrap();
    let frames = read::frames(&dir).unwrap();
    assert_eq!(frames.len(), written.len());
    for (k, ((t, path), (t0, g))) in frames.iter().zip(&written).enumerate() {
        assert_eq!(*t, *t0, "frame {k}: time");
        assert_eq!(*path, dir.join(format!("frames/frame_{k:06}.vtp")));
        assert_eq!(read::grains(path).unwrap(), as_read(g), "frame {k}");
    }
    // The file holds f32 coordinates: the walls rebuilt from those, exactly.
    let f32_lines: Vec<[[f64; 2]; 2]> = walls()
        .segments
        .iter()
        .map(|s| [s.a.map(f64::from), s.b.map(f64::from)])
        .collect();
    assert_eq!(read::walls(&dir).unwrap(), Walls::new(&f32_lines));
}

/// A 3D run's frames read back as written (positions, velocities, spin
/// vectors, orientations), its dimension from scene.toml, and a triangle
/// of walls.vtp as its three corners.
#[test]
fn spheres_and_their_walls_round_trip_through_the_writer() {
    use hourglass::model::space::Dim3;
    use hourglass::model::walls3d::Walls3d;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("spheres");
    let mut out = ResultDir::create(&dir, "version = 1\ndimension = 3\n").unwrap();
    let n = 5;
    let g: Grains<Dim3> = Grains {
        pos: (0..n)
            .map(|i| [i as f32 * 0.25, 1.0 / 3.0, -(i as f32) * 1e-7])
            .collect(),
        vel: (0..n).map(|i| [0.5, -(i as f32), 1e-3]).collect(),
        radius: vec![0.1; n],
        inv_mass: vec![0.0; n],
        id: (0..n as u32).rev().collect(),
        ang_vel: (0..n).map(|i| [i as f32, -2.0, 0.125]).collect(),
        angle: (0..n)
            .map(|i| [0.6, 0.8 * (i % 2) as f32, 0.0, 0.8 * ((i + 1) % 2) as f32])
            .collect(),
    };
    out.frame(0.5, &g).unwrap();
    let tri = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.5, 1.0]];
    let walls = Walls3d::mesh(&[tri.map(|p| p.map(f64::from))]).unwrap();
    out.walls(&walls).unwrap();
    let frames = read::frames(&dir).unwrap();
    assert_eq!(read::spheres(&frames[0].1).unwrap(), g);
    assert_eq!(read::dimension(&dir).unwrap(), 3);
    assert_eq!(
        read::wall_polygons3d(&dir.join("walls.vtp")).unwrap(),
        vec![tri.to_vec()]
    );
    // A plane frame's spin is one number a point: not a sphere frame.
    let e = read::spheres(&write_plane_frame(tmp.path())).unwrap_err().to_string();
    assert!(e.contains("angular_velocity") && e.contains("1 components"), "{e}");
}

/// A frame of the plane written in `dir`.
fn write_plane_frame(dir: &Path) -> PathBuf {
    let path = dir.join("plane.vtp");
    std::fs::write(&path, vtk::grains_vtp(&grains(3))).unwrap();
    path
}

/// `walls()` moved by `k` times (0.25, -0.125) m.
fn moved_lines(k: usize) -> Vec<[[f64; 2]; 2]> {
    let d = [0.25 * k as f64, -0.125 * k as f64];
    walls()
        .segments
        .iter()
        .map(|s| [s.a, s.b].map(|p| [f64::from(p[0]) + d[0], f64::from(p[1]) + d[1]]))
        .collect()
}

/// The walls of `lines` as the reader returns them: rebuilt from the
/// coordinates the file holds (each f32 in its shortest decimal form).
fn as_read_walls(lines: &[[[f64; 2]; 2]]) -> Walls {
    let text = |x: f32| x.to_string().parse::<f64>().unwrap();
    let f32_lines: Vec<[[f64; 2]; 2]> = Walls::new(lines)
        .segments
        .iter()
        .map(|s| [s.a.map(text), s.b.map(text)])
        .collect();
    Walls::new(&f32_lines)
}

#[test]
fn moving_walls_of_each_frame_read_back_as_that_frames_walls() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let mut out = ResultDir::create(&dir, "version = 1\n").unwrap();
    out.walls(&walls()).unwrap();
    // The walls of a frame before the frame: refused, nothing written.
    assert!(out.moving_walls(0, &walls()).is_err());
    assert!(!dir.join("walls.pvd").exists());
    let times = [0.0, 0.05, 0.1 + 1e-9];
    for (k, t) in times.iter().enumerate() {
        out.frame(*t, &grains(3)).unwrap();
        out.moving_walls(k, &Walls::new(&moved_lines(k))).unwrap();
    }
    for k in 0..times.len() {
        assert_eq!(
            read::frame_walls(&dir, k).unwrap(),
            as_read_walls(&moved_lines(k)),
            "frame {k}"
        );
    }
    // walls.vtp stays the walls as built; a frame walls.pvd does not list reads it.
    assert_eq!(read::walls(&dir).unwrap(), as_read_walls(&moved_lines(0)));
    assert_eq!(read::frame_walls(&dir, 3).unwrap(), read::walls(&dir).unwrap());
    // walls.pvd: the times of frames.pvd, each frame's own file.
    let series = read::wall_frames(&dir).unwrap().expect("walls.pvd");
    let frames = read::frames(&dir).unwrap();
    assert_eq!(series.len(), frames.len());
    for (k, ((t, path), (t_frame, _))) in series.iter().zip(&frames).enumerate() {
        assert_eq!(t, t_frame, "frame {k}: time");
        assert_eq!(*path, dir.join(format!("walls/walls_{k:06}.vtp")));
    }
    assert_eq!(
        read::frame_wall_files(&dir, 4).unwrap(),
        (0..3)
            .map(|k| dir.join(format!("walls/walls_{k:06}.vtp")))
            .chain([dir.join("walls.vtp")])
            .collect::<Vec<_>>()
    );
    // Every file written is listed.
    let listed = hourglass::output::Manifest::read(&dir).unwrap().unwrap();
    for name in ["walls.pvd", "walls.partial", "walls/"]
        .into_iter()
        .map(String::from)
        .chain((0..3).flat_map(|k| [format!("walls/walls_{k:06}.vtp"), format!("walls/walls_{k:06}.partial")]))
    {
        assert!(listed.contains(&name), "{name} is not listed");
    }
    // A frame written without its own walls: walls.pvd points it at walls.vtp.
    out.frame(0.2, &grains(3)).unwrap();
    out.moving_walls(1, &Walls::new(&moved_lines(5))).unwrap();
    assert_eq!(read::frame_walls(&dir, 1).unwrap(), as_read_walls(&moved_lines(5)));
    assert_eq!(read::frame_walls(&dir, 3).unwrap(), read::walls(&dir).unwrap());
    assert_eq!(read::wall_frames(&dir).unwrap().unwrap().len(), 4);
}

#[test]
fn a_resumed_run_keeps_the_walls_of_the_frames_it_keeps() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let mut out = ResultDir::create(&dir, "version = 1\n").unwrap();
    out.walls(&walls()).unwrap();
    for k in 0..3 {
        out.frame(k as f64, &grains(2)).unwrap();
        out.moving_walls(k, &Walls::new(&moved_lines(k))).unwrap();
    }
    let kept = out.frames()[..2].to_vec();
    drop(out);
    // Resumed from a state two frames in: walls.pvd as long as those.
    let mut out = ResultDir::check_resume(&dir, 0, 2)
        .unwrap()
        .open("version = 1\n", kept)
        .unwrap();
    assert_eq!(read::wall_frames(&dir).unwrap().unwrap().len(), 2);
    out.frame(2.0, &grains(2)).unwrap();
    out.moving_walls(2, &Walls::new(&moved_lines(7))).unwrap();
    let series = read::wall_frames(&dir).unwrap().unwrap();
    assert_eq!(series.len(), 3);
    for (k, moved) in [0, 1, 7].into_iter().enumerate() {
        assert_eq!(
            read::frame_walls(&dir, k).unwrap(),
            as_read_walls(&moved_lines(moved)),
            "frame {k}"
        );
    }
}

#[test]
fn walls_that_never_move_are_walls_vtp_at_every_frame() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let mut out = ResultDir::create(&dir, "version = 1\n").unwrap();
    out.walls(&walls()).unwrap();
    for k in 0..2 {
        out.frame(k as f64, &grains(2)).unwrap();
    }
    assert!(!dir.join("walls.pvd").exists() && !dir.join("walls").exists());
    assert_eq!(read::wall_frames(&dir).unwrap(), None);
    for k in 0..3 {
        assert_eq!(read::frame_walls(&dir, k).unwrap(), read::walls(&dir).unwrap());
    }
    assert_eq!(read::frame_wall_files(&dir, 2).unwrap(), vec![dir.join("walls.vtp"); 2]);
}

#[test]
fn no_walls_and_no_frames_read_back_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ResultDir::create(tmp.path(), "version = 1\n").unwrap();
    out.walls(&Walls::new(&[])).unwrap();
    assert_eq!(read::walls(tmp.path()).unwrap(), Walls::new(&[]));
    std::fs::write(tmp.path().join("frames.pvd"), vtk::pvd(&[])).unwrap();
    assert!(read::frames(tmp.path()).unwrap().is_empty());
}

#[test]
fn pvd_attributes_are_unescaped() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("frames.pvd"),
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\">\n<Collection>\n\
         <DataSet timestep=\"2.5\" file=\"a &amp; b/&lt;f&gt;&#39;.vtp\"/>\n\
         <!-- a comment --><DataSet file='c.vtp' timestep='3'></DataSet>\n\
         </Collection>\n</VTKFile>\n",
    )
    .unwrap();
    let frames = read::frames(tmp.path()).unwrap();
    assert_eq!(
        frames,
        vec![
            (2.5, tmp.path().join("a & b/<f>'.vtp")),
            (3.0, tmp.path().join("c.vtp"))
        ]
    );
}

/// The error of reading `text` as a frame (or with `read`), as one line.
fn error_of(dir: &Path, name: &str, text: &[u8], read: impl Fn(&Path) -> hourglass::Result<()>) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let e = match read(&path) {
        Ok(()) => panic!("{name}: read without error"),
        Err(e) => e.to_string(),
    };
    assert!(!e.contains('\n'), "{name}: more than one line: {e}");
    e
}

fn frame_error(dir: &Path, name: &str, text: &str) -> String {
    error_of(dir, name, text.as_bytes(), |p| read::grains(p).map(drop))
}

/// Replace the first `from` of `text` by `to` (which must be there).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` is not in the frame");
    text.replacen(from, to, 1)
}

#[test]
fn each_corrupt_frame_is_one_error_naming_the_file_and_the_problem() {
    let tmp = tempfile::tempdir().unwrap();
    let good = vtk::grains_vtp(&grains(3));
    let cut_in_text = good.find("0.0010003333").unwrap() + 4;
    let cut_in_tag = good.find("<PointData").unwrap() + 5;
    let cases: Vec<(&str, String, &[&str])> = vec![
        (
            "truncated_in_text.vtp",
            good[..cut_in_text].to_string(),
            &["truncated", "`<DataArray>` opened on line", "is not closed"],
        ),
        (
            "truncated_in_tag.vtp",
            good[..cut_in_tag].to_string(),
            &["line 12, column 1", "malformed XML", "not closed"],
        ),
        (
            "unclosed_points.vtp",
            edit(&good, "</Points>", ""),
            &[
                "line 51, column 1",
                "malformed XML",
                "expected `</Points>`, but `</Piece>` was found",
            ],
        ),
        (
            "non_numeric_radius.vtp",
            edit(&good, "0.0010003333", "0.00l0003333"),
            &[
                "DataArray `radius` (line 13)",
                "value 2 `0.00l0003333` is not a valid Float32",
            ],
        ),
        (
            "negative_id.vtp",
            edit(&good, "\n4294967295\n", "\n-1\n"),
            &["DataArray `id`", "value 3 `-1` is not a valid UInt32"],
        ),
        (
            "count_disagrees.vtp",
            edit(&good, "NumberOfPoints=\"3\"", "NumberOfPoints=\"4\""),
            &["DataArray `Points` (line 6) has 9 values, expected 12 (3 per point, 4 points)"],
        ),
        (
            "short_array.vtp",
            edit(&good, "0.0010003333\n", ""),
            &["DataArray `radius` (line 13) has 2 values, expected 3"],
        ),
        (
            "missing_id.vtp",
            edit(&good, "Name=\"id\"", "Name=\"ident\""),
            &["`<PointData>` (line 12) has no DataArray `id`"],
        ),
        (
            "two_radius_arrays.vtp",
            edit(&good, "Name=\"angular_velocity\"", "Name=\"radius\""),
            &["a second DataArray `radius` (line 28) in `<PointData>`"],
        ),
        (
            "missing_points.vtp",
            edit(&edit(&good, "<Points>", "<Pts>"), "</Points>", "</Pts>"),
            &["`<Piece>` (line 4) has no `<Points>`"],
        ),
        (
            "two_component_velocity.vtp",
            edit(
                &good,
                "Name=\"velocity\" NumberOfComponents=\"3\"",
                "Name=\"velocity\" NumberOfComponents=\"2\"",
            ),
            &["DataArray `velocity` (line 18) has 2 components per point, expected 3"],
        ),
        (
            "binary.vtp",
            edit(
                &good,
                "Name=\"radius\" format=\"ascii\"",
                "Name=\"radius\" format=\"binary\"",
            ),
            &["DataArray `radius` (line 13) is in `binary` format; only ascii DataArrays are read"],
        ),
        (
            "appended.vtp",
            edit(
                &edit(
                    &good,
                    "Name=\"id\" format=\"ascii\"",
                    "Name=\"id\" format=\"appended\" offset=\"0\"",
                ),
                "</VTKFile>",
                "<AppendedData encoding=\"raw\">_AAAA</AppendedData>\n</VTKFile>",
            ),
            &["DataArray `id` (line 23) is in `appended` format; only ascii DataArrays are read"],
        ),
        (
            "no_format.vtp",
            edit(&good, "Name=\"radius\" format=\"ascii\"", "Name=\"radius\""),
            &["DataArray `radius` (line 13) has no format (ascii expected)"],
        ),
        (
            "bad_entity.vtp",
            edit(&good, "Name=\"radius\"", "Name=\"rad&ius\""),
            &["line 13, column 1", "attribute `Name`"],
        ),
        (
            "mismatched_end.vtp",
            edit(&good, "</PolyData>", "</Polydata>"),
            &["malformed XML", "`</PolyData>`", "`</Polydata>`"],
        ),
        (
            "collection.vtp",
            vtk::pvd(&[(0.0, "f.vtp".into())]),
            &["a VTKFile of type `Collection`, expected `PolyData`"],
        ),
        (
            "html.vtp",
            "<html><body>404</body></html>".into(),
            &["the root element is `<html>`, expected `<VTKFile>`"],
        ),
        (
            "plain_text.vtp",
            "hello, world\n".into(),
            &["line 1, column 1", "text outside the root element"],
        ),
        ("empty.vtp", String::new(), &["no XML element in the file"]),
        ("two_roots.vtp", format!("{good}{good}"), &["a second root element"]),
    ];
    for (name, text, says) in &cases {
        let e = frame_error(tmp.path(), name, text);
        let path = tmp.path().join(name).display().to_string();
        assert!(
            e.starts_with(&format!("{path}: ")),
            "{name}: does not name the file: {e}"
        );
        for s in *says {
            assert!(e.contains(s), "{name}: `{s}` not in: {e}");
        }
    }
    // Not text at all (a PNG signature).
    let e = error_of(tmp.path(), "image.vtp", b"\x89PNG\r\n\x1a\n\0\0", |p| {
        read::grains(p).map(drop)
    });
    assert!(
        e.contains("image.vtp: not a text file (invalid UTF-8 at byte 0)"),
        "{e}"
    );
    // A frame that is not there.
    let e = read::grains(&tmp.path().join("absent.vtp")).unwrap_err().to_string();
    assert!(e.contains("absent.vtp: cannot read result file"), "{e}");
}

/// Reads the file at the path (through the directory reader that opens it).
type Reader = dyn Fn(&Path) -> hourglass::Result<()>;

#[test]
fn each_corrupt_pvd_or_walls_file_is_one_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let frames_of = |p: &Path| read::frames(p.parent().unwrap()).map(drop);
    let walls_of = |p: &Path| read::walls(p.parent().unwrap()).map(drop);
    let pvd = vtk::pvd(&[
        (0.0, "frames/frame_000000.vtp".into()),
        (0.5, "frames/frame_000001.vtp".into()),
    ]);
    let good_walls = vtk::walls_vtp(&walls());
    let cases: Vec<(&str, String, &[&str], &Reader)> = vec![
        (
            "frames.pvd",
            edit(&pvd, "timestep=\"0.5\"", "timestep=\"half\""),
            &["`<DataSet>` (line 5): timestep `half` is not a valid number"],
            &frames_of,
        ),
        (
            "frames.pvd",
            edit(&pvd, "file=\"frames/frame_000001.vtp\"", ""),
            &["`<DataSet>` (line 5) has no file"],
            &frames_of,
        ),
        (
            "frames.pvd",
            pvd[..pvd.len() - 12].to_string(),
            &["truncated: `<VTKFile>` opened on line 2 is not closed"],
            &frames_of,
        ),
        (
            "frames.pvd",
            good_walls.clone(),
            &["a VTKFile of type `PolyData`, expected `Collection`"],
            &frames_of,
        ),
        (
            "walls.vtp",
            edit(&good_walls, "\n6 7\n", "\n6 8\n"),
            &["line cell 4 refers to point 8, but the piece has 8 points (numbered from 0)"],
            &walls_of,
        ),
        (
            "walls.vtp",
            edit(&good_walls, "\n8\n</DataArray>", "\n9\n</DataArray>"),
            &["line cell 4 ends at offset 9, but connectivity has 8 values"],
            &walls_of,
        ),
        (
            "walls.vtp",
            edit(&good_walls, "\n6\n", "\n4\n"),
            &["line cell 3 has 0 points (offsets 4..4); a line needs 2 or more"],
            &walls_of,
        ),
        (
            "walls.vtp",
            edit(&good_walls, "\n6 7\n", "\n6 7 5\n"),
            &["the last offset is 8 but connectivity has 9 values"],
            &walls_of,
        ),
        (
            "walls.vtp",
            edit(&good_walls, "NumberOfLines=\"4\"", "NumberOfLines=\"5\""),
            &["DataArray `offsets` (line 24) has 4 values, expected 5 (1 per line, 5 lines)"],
            &walls_of,
        ),
        (
            "walls.vtp",
            edit(&edit(&good_walls, "<Lines>", "<Polys>"), "</Lines>", "</Polys>"),
            &["`<Piece>` (line 4) has no `<Lines>`"],
            &walls_of,
        ),
        (
            "walls.vtp",
            edit(&good_walls, "NumberOfPoints=\"8\"", "NumberOfPoints=\"eight\""),
            &["`<Piece>` (line 4): NumberOfPoints `eight` is not a valid number"],
            &walls_of,
        ),
    ];
    for (name, text, says, read) in cases {
        let e = error_of(tmp.path(), name, text.as_bytes(), read);
        let path = tmp.path().join(name).display().to_string();
        assert!(
            e.starts_with(&format!("{path}: ")),
            "{name}: does not name the file: {e}"
        );
        for s in says {
            assert!(e.contains(s), "{name}: `{s}` not in: {e}");
        }
    }
}

fn hourglass(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args(args)
        .arg(dir)
        // A valid runtime dir, so the windowing and driver libraries stay quiet.
        .env("XDG_RUNTIME_DIR", dir.parent().unwrap())
        .output()
        .unwrap()
}

fn one_line_failure(o: &std::process::Output, says: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "succeeded: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    for s in says {
        assert!(err.contains(s), "`{s}` not in: {err}");
    }
}

#[test]
fn view_render_and_plot_of_a_corrupt_result_fail_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = hourglass(
        &[
            "run",
            "--grains",
            "30",
            "--steps",
            "10",
            "--every",
            "5",
            "--backend",
            "cpu",
            "-q",
            "--out",
        ],
        &out,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let frames: Vec<PathBuf> = read::frames(&out).unwrap().into_iter().map(|(_, p)| p).collect();
    assert!(frames.len() >= 2);
    let corrupt = |p: &Path| {
        let text = std::fs::read_to_string(p).unwrap();
        std::fs::write(
            p,
            text.replacen(
                "Name=\"radius\" format=\"ascii\">\n",
                "Name=\"radius\" format=\"ascii\">\nx",
                1,
            ),
        )
        .unwrap();
    };
    // The last frame: render reads it after rendering the others.
    let last = frames.last().unwrap();
    corrupt(last);
    let name = last.file_name().unwrap().to_str().unwrap();
    let o = hourglass(&["render", "--width", "64", "--height", "48", "-q"], &out);
    one_line_failure(&o, &[name, "DataArray `radius`", "is not a valid Float32"]);
    // The first frame: the replay reads it before opening a window.
    corrupt(&frames[0]);
    let o = hourglass(&["view", "-q"], &out);
    one_line_failure(&o, &["frame_000000.vtp", "DataArray `radius`"]);
    // plot reads no frames, only the diagnostics.
    let csv = out.join("diagnostics.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    std::fs::write(&csv, format!("{text}1,2,3\n")).unwrap();
    let o = hourglass(&["plot", "-q"], &out);
    one_line_failure(&o, &["diagnostics.csv", "3 fields, expected 21"]);
}

/// `text` without its DataArray `name` (the opening tag to its closing tag).
fn without_array(text: &str, name: &str) -> String {
    let start = text
        .find(&format!("<DataArray type=\"Float32\" Name=\"{name}\""))
        .unwrap();
    let end = start + text[start..].find("</DataArray>\n").unwrap() + "</DataArray>\n".len();
    format!("{}{}", &text[..start], &text[end..])
}

#[test]
fn frames_and_diagnostics_written_before_rotation_read_with_zero_spin() {
    let tmp = tempfile::tempdir().unwrap();
    let g = grains(4);
    assert!(g.angle.iter().chain(&g.ang_vel).all(|&a| a != 0.0));
    // A frame without `angle`, and one without either rotation array.
    let no_angle = without_array(&vtk::grains_vtp(&g), "angle");
    let neither = without_array(&no_angle, "angular_velocity");
    for (name, text, ang_vel) in [
        ("no_angle.vtp", &no_angle, g.ang_vel.clone()),
        ("neither.vtp", &neither, vec![0.0; 4]),
    ] {
        let path = tmp.path().join(name);
        std::fs::write(&path, text).unwrap();
        let want = Grains {
            ang_vel,
            angle: vec![0.0; 4],
            ..as_read(&g)
        };
        assert_eq!(read::grains(&path).unwrap(), want, "{name}");
    }
    // A present array still has to hold a value per point.
    let short = vtk::grains_vtp(&g).replacen("\n-3.1415927\n", "\n", 1);
    assert!(
        frame_error(tmp.path(), "short_angle.vtp", &short).contains("DataArray `angle`"),
        "{short}"
    );

    // diagnostics.csv with the older header: 12 fields, rotation read as 0.
    std::fs::write(
        tmp.path().join("diagnostics.csv"),
        format!(
            "{}\n0,0.000000,3,0,1.5e0,-2e0,0e0,0e0,0,0.000,0e0,0e0\n",
            hourglass::output::DIAGNOSTICS_HEADER_BEFORE_ROTATION
        ),
    )
    .unwrap();
    let rows = read::diagnostics(tmp.path()).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].kinetic_energy, rows[0].rotational_kinetic_energy), (1.5, 0.0));
}

#[test]
fn diagnostics_rows_round_trip_with_the_lab_columns_last() {
    let tmp = tempfile::tempdir().unwrap();
    let mut out = ResultDir::create(tmp.path(), "version = 1\n").unwrap();
    let row = hourglass::output::Row {
        step: 7,
        time: 0.5,
        grains: 3,
        kinetic_energy: 2.0,
        rotational_kinetic_energy: 36.25,
        elastic_energy: 0.125,
        total_energy: 38.375,
        barycentre: [-0.25, 1.5, 0.75],
        momentum: [1.0, 2.0, -0.5],
        grain_collisions: 4,
        wall_collisions: 9,
        ..Default::default()
    };
    out.row(&row).unwrap();
    drop(out);
    let csv = std::fs::read_to_string(tmp.path().join("diagnostics.csv")).unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    // The older columns keep their places; the lab's are appended after
    // them, and the third coordinates (0 in the plane) after those.
    assert!(
        header.starts_with(hourglass::output::DIAGNOSTICS_HEADER_BEFORE_LAB),
        "{header}"
    );
    assert!(
        header.ends_with(
            ",rotational_kinetic_energy,elastic_energy,total_energy,barycentre_x,barycentre_y,grain_collisions,wall_collisions,momentum_z,barycentre_z"
        ),
        "{header}"
    );
    let line = lines.next().unwrap();
    assert_eq!(line.split(',').count(), 21, "{line}");
    assert!(
        line.ends_with(",3.625e1,1.25e-1,3.8375e1,-2.5e-1,1.5e0,4,9,-5e-1,7.5e-1"),
        "{csv}"
    );
    assert_eq!(read::diagnostics(tmp.path()).unwrap(), vec![row]);
}

#[test]
fn diagnostics_written_before_the_lab_columns_read_them_as_zero() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("diagnostics.csv"),
        format!(
            "{}\n0,0.000000,3,0,1.5e0,-2e0,0e0,0e0,0,0.000,0e0,0e0,2.5e-1\n",
            hourglass::output::DIAGNOSTICS_HEADER_BEFORE_LAB
        ),
    )
    .unwrap();
    let rows = read::diagnostics(tmp.path()).unwrap();
    assert_eq!(rows.len(), 1);
    let r = rows[0];
    assert_eq!(r.rotational_kinetic_energy, 0.25);
    assert_eq!(
        (r.elastic_energy, r.barycentre, r.grain_collisions, r.wall_collisions),
        (0.0, [0.0; 3], 0, 0)
    );
    // The total of an older file is the sum of the parts it has.
    assert_eq!(r.total_energy, 1.5 - 2.0 + 0.25);
}

/// A newer version appends columns: the ones this version knows are read,
/// the others left out. A header that is neither a prefix of this version's
/// columns (of at least the first twelve) nor starts with them all is refused,
/// as is a value that is not a number, naming its line.
#[test]
fn diagnostics_of_a_newer_version_read_the_known_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let diagnostics = tmp.path().join("diagnostics.csv");
    let known = "7,0.500000,3,1,2e0,-1e0,0e0,0e0,5,4.000,1e-3,0e0,2.5e-1,1.25e-1,1.375e0,-2.5e-1,1.5e0,4,9,0e0,0e0";
    std::fs::write(
        &diagnostics,
        format!("{},new_column\n{known},42\n", hourglass::output::DIAGNOSTICS_HEADER),
    )
    .unwrap();
    let rows = read::diagnostics(tmp.path()).unwrap();
    let want = hourglass::output::Row {
        step: 7,
        time: 0.5,
        grains: 3,
        passed: 1,
        kinetic_energy: 2.0,
        potential_energy: -1.0,
        contacts: 5,
        iterations: 4.0,
        residual: 1e-3,
        rotational_kinetic_energy: 0.25,
        elastic_energy: 0.125,
        total_energy: 1.375,
        barycentre: [-0.25, 1.5, 0.0],
        grain_collisions: 4,
        wall_collisions: 9,
        ..Default::default()
    };
    assert_eq!(rows, vec![want]);
    let error = |text: String| {
        std::fs::write(&diagnostics, text).unwrap();
        read::diagnostics(tmp.path()).unwrap_err().to_string()
    };
    let renamed = hourglass::output::DIAGNOSTICS_HEADER.replace("passed,", "through,");
    for header in ["step,time,grains".to_string(), renamed] {
        let e = error(format!("{header}\n"));
        assert!(
            e.contains("diagnostics.csv: the header is not the diagnostics header"),
            "{e}"
        );
    }
    let e = error(format!(
        "{}\n{known}\n{}\n",
        hourglass::output::DIAGNOSTICS_HEADER,
        known.replacen("2e0", "two", 1)
    ));
    assert!(e.contains("diagnostics.csv: line 3:"), "{e}");
}

#[test]
fn the_period_reads_from_the_scene_the_run_wrote_and_its_absence_is_none() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let scene = dir.join("scene.toml");
    // A directory without scene.toml (written by hand or by an older version).
    assert_eq!(read::period(dir).unwrap(), None);
    for (text, want) in [
        ("version = 1\n", None),
        ("version = 1\n[walls]\nsegments = [[0.0, 0.0, 1.0, 0.0]]\n", None),
        (
            "version = 1\n[walls]\nperiodic_x = [\n    -0.05,\n    0.05,\n]\n",
            Some([-0.05, 0.05]),
        ),
        ("[walls]\nperiodic_x = [0, 2]\n", Some([0.0, 2.0])),
    ] {
        std::fs::write(&scene, text).unwrap();
        assert_eq!(read::period(dir).unwrap(), want, "{text}");
    }
    let bad = |text: &str, says: &[&str]| {
        let e = error_of(dir, "scene.toml", text.as_bytes(), |_| read::period(dir).map(drop));
        assert!(e.contains("scene.toml"), "{e}");
        for s in says {
            assert!(e.contains(s), "`{s}` not in: {e}");
        }
    };
    bad(
        "[walls]\nperiodic_x = [0.1, 0.1]\n",
        &["walls.periodic_x", "xmin < xmax"],
    );
    bad("[walls]\nperiodic_x = [0.2, 0.1]\n", &["walls.periodic_x"]);
    bad("[walls]\nperiodic_x = [0.0]\n", &["walls.periodic_x", "[xmin, xmax]"]);
    bad("[walls]\nperiodic_x = [0.0, nan]\n", &["walls.periodic_x"]);
    bad("[walls]\nperiodic_x = [0.0, 1e300]\n", &["walls.periodic_x"]);
    bad("[walls]\nperiodic_x = \"wide\"\n", &["walls.periodic_x", "wide"]);
    bad("[walls]\nperiodic_x = { a = 1, b = 2 }\n", &["walls.periodic_x"]);
    bad("[walls\nperiodic_x = [0, 1]\n", &["not a scene file", "line 1"]);
    bad("version = 1\n\u{0}", &["not a scene file"]);
    let e = error_of(dir, "scene.toml", b"\xff\xfe", |_| read::period(dir).map(drop));
    assert!(e.contains("scene.toml") && e.contains("UTF-8"), "{e}");
    // A file, not a result directory.
    assert!(read::period(&scene).is_err());
}
