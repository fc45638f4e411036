//! The result directory.
//!
//! ```text
//!   DIR/scene.toml        the resolved scene (every default written out)
//!   DIR/diagnostics.csv   one row per output frame (header below)
//!   DIR/frames.pvd        ParaView time series of frames/frame_NNNNNN.vtp
//!   DIR/walls.vtp         the walls after the gate opened
//!   DIR/summary.json      written last: a directory without it is an
//!                         interrupted or failed run
//!   DIR/state.json        the whole state at the last row (grains with spin
//!                         and angle, step, emitters' progress), replaced
//!                         atomically at every row: `run --resume DIR` goes on from it
//!   DIR/.hourglass-result every file and folder hourglass wrote here, the
//!                         only ones a later run removes (see [`Manifest`])
//! ```

pub mod fresh;
mod manifest;
pub mod read;
pub mod vtk;
mod xml;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::{Grains, Walls};

pub use manifest::{MANIFEST, Manifest, Outputs};

/// The header of diagnostics.csv (DESIGN §3), exactly. Columns are only
/// ever appended, so a reader that knows a prefix still reads a newer file.
pub const DIAGNOSTICS_HEADER: &str = "step,time,grains,passed,kinetic_energy,potential_energy,momentum_x,momentum_y,contacts,iterations,residual,max_overlap,rotational_kinetic_energy,elastic_energy,total_energy,barycentre_x,barycentre_y,grain_collisions,wall_collisions";

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
    pub momentum: [f64; 2],
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
    pub barycentre: [f64; 2],
    /// Grain-grain pairs that touch now and did not at the step before,
    /// counted every step since the previous row (each pair once).
    pub grain_collisions: u64,
    /// The same for grain-wall pairs (a segment or a corner).
    pub wall_collisions: u64,
}

/// An open result directory.
pub struct ResultDir {
    pub dir: PathBuf,
    diagnostics: BufWriter<File>,
    frames: Vec<(f64, String)>,
    manifest: Manifest,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Output {
        path: path.to_path_buf(),
        source,
    }
}

/// The names every run writes (with the temporary files of the atomic ones).
const FIXED_NAMES: &[&str] = &[
    "scene.toml",
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
        let mut diagnostics = BufWriter::new(fresh::create(&path).map_err(io(&path))?);
        writeln!(diagnostics, "{DIAGNOSTICS_HEADER}").map_err(io(&path))?;
        Ok(ResultDir {
            dir: dir.to_path_buf(),
            diagnostics,
            frames: Vec::new(),
            manifest,
        })
    }

    /// Reopen the result directory `dir` of an earlier run to go on from its
    /// state at `step` (`run --resume`): summary.json is removed first (the
    /// run is not complete until this one ends), scene.toml becomes
    /// `scene_toml` (the scene the run goes on with), diagnostics.csv keeps
    /// its rows up to `step` and is appended to, and the frames go on after
    /// `frames` (the state's list: later frames of a run cut short between a
    /// frame and its state are overwritten).
    pub fn resume(dir: &Path, scene_toml: &str, frames: Vec<(f64, String)>, step: u64) -> Result<ResultDir> {
        let not_ours = |problem: &str| Error::Output {
            path: dir.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, problem.to_string()),
        };
        if Manifest::read(dir)?.is_none() {
            return Err(not_ours(
                "is not a result directory of hourglass (no .hourglass-result)",
            ));
        }
        let mut manifest = Manifest::claim(dir, false)?;
        manifest.remove(|name| name == "summary.json" || name == "summary.partial")?;
        for name in ["summary.json", "frames.pvd", STATE] {
            manifest.atomic_file(name)?;
        }
        manifest.folder("frames")?;
        let path = manifest.atomic_file("diagnostics.csv")?;
        let text = std::fs::read_to_string(&path).map_err(io(&path))?;
        let mut lines = text.lines();
        if lines.next().map(str::trim) != Some(DIAGNOSTICS_HEADER) {
            return Err(not_ours(
                "diagnostics.csv does not have this version's header: the run cannot be resumed",
            ));
        }
        let mut kept = format!("{DIAGNOSTICS_HEADER}\n");
        for line in lines {
            let row_step = line.split(',').next().and_then(|w| w.trim().parse::<u64>().ok());
            if row_step.is_some_and(|s| s <= step) {
                kept.push_str(line);
                kept.push('\n');
            }
        }
        vtk::write_atomic(&path, &kept).map_err(io(&path))?;
        let scene = manifest.atomic_file("scene.toml")?;
        vtk::write_atomic(&scene, scene_toml).map_err(io(&scene))?;
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(io(&path))?;
        Ok(ResultDir {
            dir: dir.to_path_buf(),
            diagnostics: BufWriter::new(file),
            frames,
            manifest,
        })
    }

    /// The frames written so far: (time, name under the directory).
    pub fn frames(&self) -> &[(f64, String)] {
        &self.frames
    }

    /// Replace state.json with `json` (a temporary file renamed over it, so
    /// it is always a whole state).
    pub fn state(&self, json: &str) -> Result<()> {
        let path = self.dir.join(STATE);
        vtk::write_atomic(&path, json).map_err(io(&path))
    }

    /// Append a diagnostics row (flushed, so a crash keeps every row written).
    pub fn row(&mut self, r: &Row) -> Result<()> {
        let path = self.dir.join("diagnostics.csv");
        writeln!(
            self.diagnostics,
            "{},{:.6},{},{},{:e},{:e},{:e},{:e},{},{:.3},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{},{}",
            r.step,
            r.time,
            r.grains,
            r.passed,
            r.kinetic_energy,
            r.potential_energy,
            r.momentum[0],
            r.momentum[1],
            r.contacts,
            r.iterations,
            r.residual,
            r.max_overlap,
            r.rotational_kinetic_energy,
            r.elastic_energy,
            r.total_energy,
            r.barycentre[0],
            r.barycentre[1],
            r.grain_collisions,
            r.wall_collisions
        )
        .and_then(|_| self.diagnostics.flush())
        .map_err(io(&path))
    }

    /// Write one frame and extend the .pvd collection.
    pub fn frame(&mut self, time: f64, grains: &Grains) -> Result<()> {
        let name = format!("frames/frame_{:06}.vtp", self.frames.len());
        let path = self.manifest.atomic_file(&name)?;
        vtk::write_atomic(&path, &vtk::grains_vtp(grains)).map_err(io(&path))?;
        self.frames.push((time, name));
        let pvd = self.dir.join("frames.pvd");
        vtk::write_atomic(&pvd, &vtk::pvd(&self.frames)).map_err(io(&pvd))
    }

    pub fn walls(&self, walls: &Walls) -> Result<()> {
        // Listed by `create_with`, as are frames.pvd and summary.json.
        let path = self.dir.join("walls.vtp");
        vtk::write_atomic(&path, &vtk::walls_vtp(walls)).map_err(io(&path))
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
    pub wall_seconds: f64,
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
