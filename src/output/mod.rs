//! The result directory.
//!
//! ```text
//!   DIR/scene.toml        the resolved scene (every default written out)
//!   DIR/diagnostics.csv   one row per output frame (header below)
//!   DIR/frames.pvd        ParaView time series of frames/frame_NNNNNN.vtp
//!   DIR/walls.vtp         the walls after the gate opened (as built: where
//!                         they stand at the start)
//!   DIR/walls.pvd         only when the walls move: ParaView time series of
//!                         each frame's walls, at the times of frames.pvd
//!                         (walls/walls_NNNNNN.vtp, or walls.vtp for a frame
//!                         without its own)
//!   DIR/periodic.vtp      only for a periodic run (`walls.periodic_x`): the
//!                         seams x = xmin and x = xmax as two lines over
//!                         the domain's height, for ParaView
//!   DIR/summary.json      written last: a directory without it is an
//!                         interrupted or failed run
//!   DIR/segments/summary_NNNNNN.json
//!                         a resumed run's earlier summaries: each
//!                         `run --resume` moves summary.json here first
//!   DIR/state.json        the whole state at the last row (grains with spin
//!                         and angle, step, emitters' progress), replaced
//!                         atomically at every row: `run --resume DIR` goes on from it
//!   DIR/.hourglass-result every file and folder hourglass wrote here, the
//!                         only ones a later run removes (see [`Manifest`])
//! ```

mod diagnostics;
pub mod fresh;
mod manifest;
pub mod read;
pub mod vtk;
mod xml;

use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::{Grains, Walls};

pub use manifest::{MANIFEST, Manifest, Outputs};

/// The header of diagnostics.csv, exactly: the field names of the record
/// the rows are written from. Columns are only ever appended, so a reader
/// that knows a prefix still reads a newer file.
pub const DIAGNOSTICS_HEADER: &str = "step,time,grains,passed,kinetic_energy,potential_energy,momentum_x,momentum_y,contacts,iterations,residual,max_overlap,rotational_kinetic_energy,elastic_energy,total_energy,barycentre_x,barycentre_y,grain_collisions,wall_collisions,momentum_z,barycentre_z";

/// The header written before the lab's columns were appended (elastic and
/// total energy, barycentre, new collisions; read as 0).
pub const DIAGNOSTICS_HEADER_BEFORE_LAB: &str = "step,time,grains,passed,kinetic_energy,potential_energy,momentum_x,momentum_y,contacts,iterations,residual,max_overlap,rotational_kinetic_energy";

/// The header written before `rotational_kinetic_energy` was appended
/// (older result directories; read with that column 0).
pub const DIAGNOSTICS_HEADER_BEFORE_ROTATION: &str = "step,time,grains,passed,kinetic_energy,potential_energy,momentum_x,momentum_y,contacts,iterations,residual,max_overlap";

/// One diagnostics row.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Row {
    pub step: u64,
    /// s since the start of the run (settle phase included).
    pub time: f64,
    pub grains: u64,
    pub passed: u64,
    pub kinetic_energy: f64,
    pub potential_energy: f64,
    /// Sum of m v, N s (z: 0 in the plane).
    pub momentum: [f64; 3],
    pub contacts: u64,
    /// Mean solver iterations per step since the previous row.
    pub iterations: f64,
    /// Last convergence measure: largest |dP| W of the last iteration, m/s.
    pub residual: f64,
    /// Largest overlap over contacts, m.
    pub max_overlap: f64,
    /// Sum of 1/2 I w^2 over the moving grains, J per unit thickness
    /// ([`crate::model::rotational_kinetic_energy`]); `kinetic_energy` is
    /// the translational part only.
    pub rotational_kinetic_energy: f64,
    /// Energy stored in the touching contacts, J per unit thickness: 0 for
    /// rigid contacts (NSCD), 2/5 k_n dx^2.5 per contact for DEM
    /// ([`crate::backend::census::Elastic`]).
    pub elastic_energy: f64,
    /// kinetic + rotational + potential + elastic, J per unit thickness.
    pub total_energy: f64,
    /// Mass-weighted centre of the moving grains, m.
    pub barycentre: [f64; 3],
    /// Grain-grain pairs that touch now and did not at the step before,
    /// counted every step since the previous row (each pair once).
    pub grain_collisions: u64,
    /// The same for grain-wall pairs (a segment or a corner).
    pub wall_collisions: u64,
}

/// An open result directory.
pub struct ResultDir {
    pub dir: PathBuf,
    diagnostics: csv::Writer<File>,
    frames: Vec<(f64, String)>,
    /// The frames (by index) whose walls have their own file
    /// ([`ResultDir::moving_walls`]); empty for walls that never move.
    wall_frames: BTreeSet<usize>,
    manifest: Manifest,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Output {
        path: path.to_path_buf(),
        source,
    }
}

/// The names every run writes (with the temporary files of the atomic ones;
/// [`PERIODIC`] only a periodic run, and no other run takes its name).
const FIXED_NAMES: &[&str] = &[
    "scene.toml",
    PERIODIC,
    "periodic.partial",
    "diagnostics.csv",
    "frames.pvd",
    "frames.partial",
    "walls.vtp",
    "walls.partial",
    "summary.json",
    "summary.partial",
    "state.json",
    "state.partial",
];

/// The name of the `i`-th frame (from 0) under the result directory.
pub fn frame_name(i: usize) -> String {
    format!("frames/frame_{i:06}.vtp")
}

/// The name of the walls of the `i`-th frame (from 0) under the result
/// directory, written only when the walls move ([`ResultDir::moving_walls`]).
pub fn walls_frame_name(i: usize) -> String {
    format!("{WALLS_FOLDER}/walls_{i:06}.vtp")
}

/// The folder of the frames' walls.
pub const WALLS_FOLDER: &str = "walls";

/// The time series of the frames' walls, beside frames.pvd.
pub const WALLS_PVD: &str = "walls.pvd";

/// The frame `name` (`walls/walls_NNNNNN.vtp`) is the walls of, if it is one.
fn walls_frame_index(name: &str) -> Option<usize> {
    let n = name
        .strip_prefix(WALLS_FOLDER)?
        .strip_prefix("/walls_")?
        .strip_suffix(".vtp")?;
    (n.len() >= 6 && n.bytes().all(|b| b.is_ascii_digit())).then(|| n.parse().ok())?
}

/// The seams of a periodic run ([`ResultDir::periodic`]).
pub const PERIODIC: &str = "periodic.vtp";

/// The state file a run replaces at every row (`run --resume`).
pub const STATE: &str = "state.json";

/// Claim `dir` for a run ([`Manifest::claim`]), after checking that no
/// name a run writes is taken by a file hourglass did not write: a run that
/// would be refused claims nothing (and leaves no list naming a file it never
/// wrote, which a later run would delete).
pub fn claim_for_run(dir: &Path, force: bool) -> Result<Manifest> {
    // Every fixed name up front, before anything is claimed or listed: a
    // file that is in the way fails the run before it writes (and leaves
    // no list naming a file hourglass never wrote).
    // (Without a list and without `force`, `claim` refuses a non-empty
    // directory with its own message, and an empty one has nothing in the way.)
    let listed = Manifest::read(dir)?;
    if listed.is_none() && !force {
        return Manifest::claim(dir, force);
    }
    let listed = listed.unwrap_or_default();
    for name in FIXED_NAMES {
        let path = dir.join(name);
        if !listed.contains(*name) && std::fs::symlink_metadata(&path).is_ok() {
            return Err(Error::Output {
                path,
                source: std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "exists and was not written by hourglass; move it away (a run never overwrites a file it did not write)",
                ),
            });
        }
    }
    Manifest::claim(dir, force)
}

impl ResultDir {
    /// Create `dir`, or reuse a result directory: every file its manifest
    /// lists (a previous run's summary and frames, renders, plots,
    /// screenshots) is removed first so the old run cannot pass for this one;
    /// nothing else is. A non-empty directory without a manifest is refused
    /// (see [`Manifest::claim`] to claim one by force).
    pub fn create(dir: &Path, scene_toml: &str) -> Result<ResultDir> {
        ResultDir::create_with(dir, scene_toml, false)
    }

    /// [`ResultDir::create`]; with `force`, a non-empty directory without a
    /// manifest is written into (nothing in it is removed or overwritten).
    pub fn create_with(dir: &Path, scene_toml: &str, force: bool) -> Result<ResultDir> {
        let mut manifest = claim_for_run(dir, force)?;
        manifest.remove(|_| true)?;
        manifest.file("scene.toml")?;
        manifest.file("diagnostics.csv")?;
        for name in ["frames.pvd", "walls.vtp", "summary.json", STATE] {
            manifest.atomic_file(name)?;
        }
        manifest.folder("frames")?;
        let scene = manifest.file("scene.toml")?;
        fresh::write(&scene, scene_toml.as_bytes()).map_err(io(&scene))?;
        let path = manifest.file("diagnostics.csv")?;
        let mut file = fresh::create(&path).map_err(io(&path))?;
        writeln!(file, "{}", diagnostics::header()).map_err(io(&path))?;
        Ok(ResultDir {
            dir: dir.to_path_buf(),
            diagnostics: diagnostics::writer(file),
            frames: Vec::new(),
            wall_frames: BTreeSet::new(),
            manifest,
        })
    }

    /// Check, writing nothing, that the result directory `dir` of an
    /// earlier run can go on from its state at `step` with `frames` frames
    /// written (`run --resume`): it has a manifest, diagnostics.csv with this
    /// version's header, and no file hourglass did not write where the
    /// resumed run writes. [`Resumable::open`] then makes the changes.
    pub fn check_resume(dir: &Path, step: u64, frames: usize) -> Result<Resumable> {
        let refuse = |path: &Path, problem: String| Error::Output {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, problem),
        };
        let Some(listed) = Manifest::read(dir)? else {
            return Err(refuse(
                dir,
                format!("is not a result directory of hourglass (no {MANIFEST})"),
            ));
        };
        let not_ours = |name: &str| {
            let path = dir.join(name);
            (!listed.contains(name) && std::fs::symlink_metadata(&path).is_ok()).then(|| {
                refuse(
                    &path,
                    "exists and was not written by hourglass; move it away (a run never overwrites a file it did not write)"
                        .to_string(),
                )
            })
        };
        // What a resumed run writes (walls.vtp stays as the first run wrote it).
        const WRITTEN: &[&str] = &[
            "scene.toml",
            "scene.partial",
            "diagnostics.csv",
            "diagnostics.partial",
            "frames.pvd",
            "frames.partial",
            "summary.json",
            "summary.partial",
            STATE,
            "state.partial",
        ];
        for name in WRITTEN {
            if let Some(e) = not_ours(name) {
                return Err(e);
            }
        }
        for folder in ["frames", SEGMENTS] {
            let path = dir.join(folder);
            if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.file_type().is_dir()) {
                return Err(refuse(
                    &path,
                    "exists and is not a folder hourglass wrote; move it away".to_string(),
                ));
            }
        }
        // The frames this run writes come after the state's.
        for name in listed_names(&dir.join("frames"), "frames/") {
            let index = name
                .strip_prefix("frames/frame_")
                .and_then(|n| n.strip_suffix(".vtp").or_else(|| n.strip_suffix(".partial")))
                .and_then(|n| n.parse::<usize>().ok());
            if index.is_some_and(|i| i >= frames)
                && let Some(e) = not_ours(&name)
            {
                return Err(e);
            }
        }
        let path = dir.join("diagnostics.csv");
        let text = std::fs::read_to_string(&path).map_err(|source| Error::ResultIo {
            path: path.clone(),
            source,
        })?;
        let mut lines = text.lines();
        let header = diagnostics::header();
        if lines.next().map(str::trim) != Some(header.as_str()) {
            return Err(Error::ResultFile {
                path,
                message: "its header is not this version's: the run cannot be resumed".to_string(),
            });
        }
        let mut kept = format!("{header}\n");
        for line in lines {
            let row_step = line.split(',').next().and_then(|w| w.trim().parse::<u64>().ok());
            if row_step.is_some_and(|s| s <= step) {
                kept.push_str(line);
                kept.push('\n');
            }
        }
        // A finished run's summary is kept as the next segment's.
        let summary = dir.join("summary.json");
        let segment = std::fs::symlink_metadata(&summary)
            .is_ok_and(|m| m.file_type().is_file())
            .then(|| segment_name(next_segment(dir)));
        if let Some(name) = &segment
            && let Some(e) = not_ours(name)
        {
            return Err(e);
        }
        Ok(Resumable {
            dir: dir.to_path_buf(),
            diagnostics: kept,
            segment,
        })
    }

    /// The frames written so far: (time, name under the directory).
    pub fn frames(&self) -> &[(f64, String)] {
        &self.frames
    }

    /// Replace state.json with `state` as JSON, written straight to a
    /// temporary file renamed over it (so it is always a whole state).
    pub fn state(&self, state: &impl Serialize) -> Result<()> {
        let path = self.dir.join(STATE);
        fresh::write_atomic_with(&path, |w| serde_json::to_writer(w, state).map_err(std::io::Error::from))
            .map_err(io(&path))
    }

    /// Append a diagnostics row (flushed, so a crash keeps every row written).
    pub fn row(&mut self, r: &Row) -> Result<()> {
        let path = self.dir.join("diagnostics.csv");
        self.diagnostics
            .serialize(diagnostics::Record::from(r))
            .map_err(std::io::Error::from)
            .and_then(|_| self.diagnostics.flush())
            .map_err(io(&path))
    }

    /// Write one frame and extend the .pvd collection.
    pub fn frame<S: crate::model::Space>(&mut self, time: f64, grains: &Grains<S>) -> Result<()> {
        let name = frame_name(self.frames.len());
        let path = self.manifest.atomic_file(&name)?;
        vtk::write_atomic(&path, &vtk::grains_vtp(grains)).map_err(io(&path))?;
        self.frames.push((time, name));
        let pvd = self.dir.join("frames.pvd");
        vtk::write_atomic(&pvd, &vtk::pvd(&self.frames)).map_err(io(&pvd))
    }

    /// Write walls.vtp: the walls as built (where they stand at the start).
    pub fn walls(&self, walls: &impl vtk::WallsVtp) -> Result<()> {
        // Listed by `create_with`, as are frames.pvd and summary.json.
        let path = self.dir.join("walls.vtp");
        vtk::write_atomic(&path, &walls.vtp()).map_err(io(&path))
    }

    /// Write periodic.vtp ([`PERIODIC`], listed and written atomically like
    /// every other file): the seams x = `period[0]` and x = `period[1]` of a
    /// periodic run (`walls.periodic_x`) as two lines from y = `y[0]` to
    /// y = `y[1]` (the domain's height), in the format of walls.vtp, so
    /// ParaView shows the periodic boundary beside the walls. A run that is
    /// not periodic never calls it and writes no periodic.vtp.
    pub fn periodic(&mut self, period: [f32; 2], y: [f32; 2]) -> Result<()> {
        let path = self.manifest.atomic_file(PERIODIC)?;
        let (y0, y1) = (f64::from(y[0]), f64::from(y[1]));
        let seams: Vec<[[f64; 2]; 2]> = period
            .iter()
            .map(|&x| [[f64::from(x), y0], [f64::from(x), y1]])
            .collect();
        vtk::write_atomic(&path, &vtk::walls_vtp(&Walls::new(&seams))).map_err(io(&path))
    }

    /// Write the walls of frame `frame` (from 0), where they stand at that
    /// frame's time, as `walls/walls_NNNNNN.vtp` (the frame's number), and
    /// rewrite walls.pvd: one entry per frame written so far, at the times
    /// of frames.pvd, naming the frame's own walls file or, for a frame
    /// without one, walls.vtp. Each file is listed and written atomically
    /// like every other ([`fresh`]).
    ///
    /// The contract: a run whose walls move calls this right after
    /// [`ResultDir::frame`] wrote a frame, with that frame's index
    /// (`frame_count() - 1`) and the walls it was written with (the same
    /// segments and corners, in the same order, as walls.vtp); a frame
    /// already written may be given again (its walls file is replaced). A
    /// run whose walls never move never calls it and writes neither
    /// walls.pvd nor the `walls/` folder. A `frame` not yet written is refused.
    pub fn moving_walls(&mut self, frame: usize, walls: &impl vtk::WallsVtp) -> Result<()> {
        let name = walls_frame_name(frame);
        if frame >= self.frames.len() {
            return Err(Error::Output {
                path: self.dir.join(&name),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!(
                        "the walls of frame {frame} before the frame itself ({} frames written)",
                        self.frames.len()
                    ),
                ),
            });
        }
        self.manifest.atomic_file(WALLS_PVD)?;
        self.manifest.folder(WALLS_FOLDER)?;
        let path = self.manifest.atomic_file(&name)?;
        vtk::write_atomic(&path, &walls.vtp()).map_err(io(&path))?;
        self.wall_frames.insert(frame);
        self.write_walls_pvd()
    }

    /// walls.pvd from the frames and the frames' walls files.
    fn write_walls_pvd(&self) -> Result<()> {
        let series: Vec<(f64, String)> = self
            .frames
            .iter()
            .enumerate()
            .map(|(i, (t, _))| {
                let file = if self.wall_frames.contains(&i) {
                    walls_frame_name(i)
                } else {
                    "walls.vtp".to_string()
                };
                (*t, file)
            })
            .collect();
        let pvd = self.dir.join(WALLS_PVD);
        vtk::write_atomic(&pvd, &vtk::pvd(&series)).map_err(io(&pvd))
    }

    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }

    /// Write summary.json: the mark of a finished run.
    pub fn finish(mut self, summary: &Summary) -> Result<()> {
        let path = self.dir.join("diagnostics.csv");
        self.diagnostics.flush().map_err(io(&path))?;
        let path = self.dir.join("summary.json");
        let text = serde_json::to_string_pretty(summary).unwrap_or_default();
        vtk::write_atomic(&path, &text).map_err(io(&path))
    }
}

/// A result directory checked for `run --resume` ([`ResultDir::check_resume`]), not yet changed.
pub struct Resumable {
    dir: PathBuf,
    /// diagnostics.csv up to the state's row.
    diagnostics: String,
    /// Where the finished run's summary.json goes, if it has one.
    segment: Option<String>,
}

impl Resumable {
    /// Reopen the directory to go on writing: the finished run's
    /// summary.json (if any) becomes `segments/summary_NNNNNN.json` (the
    /// run is not complete until this one ends), scene.toml becomes
    /// `scene_toml` (the scene the run goes on with), diagnostics.csv keeps
    /// its rows up to the state's step and is appended to, and the frames go
    /// on after `frames` (the state's list: later frames of a run cut short
    /// between a frame and its state are overwritten).
    pub fn open(self, scene_toml: &str, frames: Vec<(f64, String)>) -> Result<ResultDir> {
        let dir = &self.dir;
        let mut manifest = Manifest::open(dir)?.ok_or_else(|| Error::Output {
            path: dir.join(MANIFEST),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "vanished"),
        })?;
        if let Some(name) = &self.segment {
            manifest.folder(SEGMENTS)?;
            let to = manifest.file(name)?;
            let from = dir.join("summary.json");
            std::fs::rename(&from, &to).map_err(io(&from))?;
        }
        manifest.remove(|name| name == "summary.json" || name == "summary.partial")?;
        for name in ["summary.json", "frames.pvd", STATE] {
            manifest.atomic_file(name)?;
        }
        manifest.folder("frames")?;
        // The frames' own walls files kept from the earlier run: those of
        // the frames the state keeps (later ones are written again).
        let wall_frames: BTreeSet<usize> = listed_names(&dir.join(WALLS_FOLDER), WALLS_FOLDER)
            .iter()
            .filter(|name| manifest.contains(name))
            .filter_map(|name| walls_frame_index(name))
            .filter(|&i| i < frames.len())
            .filter(|&i| {
                std::fs::symlink_metadata(dir.join(walls_frame_name(i))).is_ok_and(|m| m.file_type().is_file())
            })
            .collect();
        if !wall_frames.is_empty() {
            manifest.atomic_file(WALLS_PVD)?;
        }
        let path = manifest.atomic_file("diagnostics.csv")?;
        vtk::write_atomic(&path, &self.diagnostics).map_err(io(&path))?;
        let scene = manifest.atomic_file("scene.toml")?;
        vtk::write_atomic(&scene, scene_toml).map_err(io(&scene))?;
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(io(&path))?;
        let out = ResultDir {
            dir: dir.to_path_buf(),
            diagnostics: diagnostics::writer(file),
            frames,
            wall_frames,
            manifest,
        };
        if !out.wall_frames.is_empty() {
            // walls.pvd as long as the frames kept.
            out.write_walls_pvd()?;
        }
        Ok(out)
    }
}

/// The folder of the summaries of the segments of a resumed run.
pub const SEGMENTS: &str = "segments";

/// The name of segment `k`'s summary (from 0) under the result directory.
pub fn segment_name(k: usize) -> String {
    format!("{SEGMENTS}/summary_{k:06}.json")
}

/// The number of segment `name` (`segments/summary_NNNNNN.json`), if it is one.
pub(crate) fn segment_index(name: &str) -> Option<usize> {
    let n = name.strip_prefix(SEGMENTS)?.strip_prefix('/')?;
    let n = n.strip_prefix("summary_")?.strip_suffix(".json")?;
    (n.len() >= 6 && n.bytes().all(|b| b.is_ascii_digit())).then(|| n.parse().ok())?
}

/// One after the highest segment summary in `dir` (0 when it has none).
fn next_segment(dir: &Path) -> usize {
    listed_names(&dir.join(SEGMENTS), SEGMENTS)
        .iter()
        .filter_map(|n| segment_index(n))
        .max()
        .map_or(0, |k| k + 1)
}

/// The names of the entries of `folder` as `prefix/name` (none when it cannot be read).
fn listed_names(folder: &Path, prefix: &str) -> Vec<String> {
    let prefix = prefix.trim_end_matches('/');
    std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| format!("{prefix}/{}", e.file_name().to_string_lossy()))
                .collect()
        })
        .unwrap_or_default()
}

/// summary.json.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Summary {
    pub grains: u64,
    /// All steps, settle phase included.
    pub steps: u64,
    /// Steps of the settle phase (gate closed).
    pub settle_steps: u64,
    /// Simulated time, s (settle phase included).
    pub sim_time: f64,
    /// Time at which the gate opened, s.
    pub discharge_start: f64,
    /// Wall time of the command that wrote this summary, s (a resumed
    /// run's: of the resumed steps alone).
    pub wall_seconds: f64,
    /// Steps per wall second, and grains times steps per wall second, of
    /// the steps that command took.
    pub steps_per_second: f64,
    pub grain_steps_per_second: f64,
    pub backend: String,
    pub adapter: String,
    pub solver: String,
    pub mean_iterations: f64,
    /// Steps that stopped at itmax without converging.
    pub itmax_steps: u64,
    /// Contacts dropped because a grain's list was full (summed over steps).
    pub contact_overflow: u64,
    /// Steps in which a grain moved further than the alert distance.
    pub alert_exceeded_steps: u64,
    pub lost_grains: u64,
    /// Grains below the neck at the end.
    pub passed: u64,
    /// Grains per second through the neck, fitted over the steady discharge
    /// (null when too few grains passed to fit).
    pub flow_rate: Option<f64>,
    /// The [start, end] times of the fit, s.
    pub flow_fit_window: Option<[f64; 2]>,
    /// With walls that turn the grains back above the neck, the flow rate of
    /// each discharge in turn (`analysis::fit_flow_rates`; `flow_rate` is the
    /// first's); absent for a run of one discharge.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flow_rates: Vec<Option<f64>>,
    /// Largest overlap of any contact over the run (checked every step), m.
    pub max_overlap: f64,
    /// Median and 99th percentile of the overlaps of all touching pairs,
    /// sampled at every diagnostics row, m (upper edges of bins of 1e-4
    /// mean radius). Absent in older files (read as 0).
    #[serde(default)]
    pub overlap_p50: f64,
    #[serde(default)]
    pub overlap_p99: f64,
    /// Mean grain radius, m: the overlaps above as a fraction of it are the
    /// figure the solvers are tuned for (docs/solvers.md).
    #[serde(default)]
    pub radius_mean: f64,
    /// The share of the mean radius the NSCD solve kept the largest overlap
    /// under by adapting its tolerance (`solver.max_overlap`); null when a
    /// fixed `solver.tol` held, or the model has no such solve. Absent in
    /// older files (read as null).
    #[serde(default)]
    pub max_overlap_target: Option<f64>,
    /// The smallest and the largest tolerance the steps were solved to, m
    /// (the same twice when `solver.tol` held). Absent in older files (read
    /// as [0, 0]).
    #[serde(default)]
    pub tol_range: [f64; 2],
    pub frames: u64,
    /// The largest contact colour count of any step (coloured NLGS); 0 when
    /// the solver does not colour. Absent in older files (read as 0).
    #[serde(default)]
    pub colors: u32,
    /// False when the run was ended early (the window closed before the
    /// planned steps): the files are consistent but the discharge is partial.
    #[serde(default)]
    pub completed: bool,
    /// Steps split into substeps because a grain could have closed a gap
    /// wider than the alert distance in one step (`backend::substep`).
    /// Absent in older files (read as 0).
    #[serde(default)]
    pub subdivided_steps: u64,
    /// The most substeps of one step: 1 when no step was split, 0 when no
    /// step was taken (and in older files).
    #[serde(default)]
    pub max_substeps: u32,
    /// Grains the `[[emitters]]` added during the run. Absent in older files (read as 0).
    #[serde(default)]
    pub emitted: u64,
    /// Emissions whose spot was taken (by a grain or a wall) when they were
    /// due, so they waited for a later step (each counted once).
    #[serde(default)]
    pub emissions_waited: u64,
    /// Crowd motion: the time the last person left the room, s (absent
    /// when the room did not empty, and for every other solver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evacuation_time: Option<f64>,
}
