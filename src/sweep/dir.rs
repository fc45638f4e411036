//! A sweep directory: `.hourglass-sweep` (the mark that a sweep wrote it),
//! `plan.json` (every point's id and scene), `runs/<id>/` (one ordinary
//! result directory per point) and `results.csv` (one row per point).
//!
//! The rules are `--out`'s: a missing or empty directory is claimed, a
//! directory with the mark is ours, anything else is refused before a run
//! starts. A point whose `runs/<id>/summary.json` exists is finished,
//! and a later sweep into the same directory skips it; any other point
//! (never run, failed, interrupted) is run again, its directory reclaimed
//! by the run's own rules. Another sweep (a changed sweep file or base
//! scene: `plan.json` differs) is refused rather than mixed in.

use std::path::{Path, PathBuf};

use super::{Point, Sweep};
use crate::error::{Error, Result};
use crate::output::{ResultDir, Summary, fresh, read};
use crate::scene::{Scene, build};

/// The mark of a sweep directory.
pub const MARK: &str = ".hourglass-sweep";
const MARK_TEXT: &str = "# hourglass sweep directory: runs/ and results.csv were written by `hourglass sweep`.\n";
/// The folder of a sweep directory that holds one result directory per point.
const RUNS: &str = "runs";

/// Where point `id` of the sweep directory `dir` runs (a worker's view:
/// the parent claimed `dir` as a [`SweepDir`]).
pub fn run_dir_in(dir: &Path, id: &str) -> PathBuf {
    dir.join(RUNS).join(id)
}

/// The columns of `results.csv` after the varied keys: what a run's
/// `summary.json` says (empty for a run that did not finish), then its
/// one-line error. `max_overlap_pct` is the largest overlap as a percentage
/// of the mean radius.
pub const STATUS_COLUMNS: [&str; 17] = [
    "flow_rate",
    "passed",
    "lost_grains",
    "grains",
    "radius_mean",
    "max_overlap",
    "max_overlap_pct",
    "overlap_p99",
    "mean_iterations",
    "itmax_steps",
    "steps",
    "sim_time",
    "wall_seconds",
    "backend",
    "solver",
    "adapter",
    "error",
];

/// How a point stands.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Not run yet (or interrupted).
    Pending,
    /// Running now.
    Running,
    Done(Box<Summary>),
    /// Its one-line error.
    Failed(String),
}

impl Outcome {
    fn status(&self) -> &'static str {
        match self {
            Outcome::Pending => "pending",
            Outcome::Running => "running",
            Outcome::Done(_) => "done",
            Outcome::Failed(_) => "failed",
        }
    }
}

/// A claimed sweep directory.
pub struct SweepDir {
    dir: PathBuf,
}

fn out_err(path: &Path, message: impl Into<String>) -> Error {
    Error::Output {
        path: path.to_path_buf(),
        source: std::io::Error::other(message.into()),
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Output {
        path: path.to_path_buf(),
        source,
    }
}

impl SweepDir {
    /// Claim `dir` for `sweep`: create it, or take it when it has the mark
    /// (or is empty). A run's result directory, any other non-empty folder,
    /// or the directory of another sweep (its `plan.json`, every point's
    /// scene, differs: the sweep file or its base scene changed) is refused;
    /// nothing in it is touched.
    pub fn claim(dir: &Path, sweep: &Sweep) -> Result<SweepDir> {
        match std::fs::symlink_metadata(dir) {
            Ok(m) if !m.file_type().is_dir() => {
                return Err(out_err(dir, "is not a folder: choose another --out"));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(dir)(e)),
        }
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let mark = dir.join(MARK);
        match std::fs::symlink_metadata(&mark) {
            Ok(m) if m.file_type().is_file() => {}
            Ok(_) => return Err(out_err(&mark, "is not a file: this is not a sweep directory")),
            Err(_) => {
                if dir.join(crate::output::MANIFEST).exists() {
                    return Err(out_err(
                        dir,
                        "is a run's result directory, not a sweep directory: choose another --out",
                    ));
                }
                if std::fs::read_dir(dir).map_err(io(dir))?.next().is_some() {
                    return Err(out_err(
                        dir,
                        format!(
                            "is not a sweep directory (it is not empty and has no {MARK}): choose another --out, or empty it"
                        ),
                    ));
                }
                fresh::write(&mark, MARK_TEXT.as_bytes()).map_err(io(&mark))?;
            }
        }
        let plan_path = dir.join(PLAN);
        let plan = plan_of(sweep);
        match std::fs::read_to_string(&plan_path) {
            Ok(saved) if saved == plan => {}
            Ok(saved) => {
                let differs = first_difference(&saved, sweep);
                return Err(out_err(
                    dir,
                    format!("holds another sweep ({differs}): use a new --out"),
                ));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                fresh::write_atomic(&plan_path, plan.as_bytes()).map_err(io(&plan_path))?;
            }
            Err(e) => return Err(io(&plan_path)(e)),
        }
        let runs = dir.join(RUNS);
        match std::fs::symlink_metadata(&runs) {
            Ok(m) if m.file_type().is_dir() => {}
            Ok(_) => return Err(out_err(&runs, "is not a folder (a sweep keeps its runs there)")),
            Err(_) => std::fs::create_dir(&runs).map_err(io(&runs))?,
        }
        Ok(SweepDir { dir: dir.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Where point `id` runs.
    pub fn run_dir(&self, id: &str) -> PathBuf {
        run_dir_in(&self.dir, id)
    }

    /// Every point's outcome as the directory has it: `Done` when its
    /// run's summary.json exists (the plan, checked by [`SweepDir::claim`],
    /// says it ran this point's scene), else `Pending`.
    pub fn outcomes(&self, sweep: &Sweep) -> Result<Vec<Outcome>> {
        sweep
            .points
            .iter()
            .map(|p| {
                let run = self.run_dir(&p.id);
                if run.join("summary.json").is_file() {
                    Ok(Outcome::Done(Box::new(read::summary(&run)?)))
                } else {
                    Ok(Outcome::Pending)
                }
            })
            .collect()
    }

    /// Write `results.csv` (atomically: a reader sees the old table or the
    /// new one): one row per point, in order.
    pub fn write_table(&self, sweep: &Sweep, outcomes: &[Outcome]) -> Result<PathBuf> {
        let path = self.dir.join("results.csv");
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header: Vec<&str> = vec!["id", "status"];
        header.extend(sweep.keys.iter().map(String::as_str));
        header.extend(STATUS_COLUMNS);
        let err = |e: csv::Error| out_err(&path, e.to_string());
        w.write_record(&header).map_err(err)?;
        for (p, o) in sweep.points.iter().zip(outcomes) {
            let mut row: Vec<String> = vec![p.id.clone(), o.status().to_string()];
            row.extend(p.values.iter().map(cell));
            row.extend(summary_cells(o));
            w.write_record(&row).map_err(err)?;
        }
        let bytes = w.into_inner().map_err(|e| out_err(&path, e.to_string()))?;
        fresh::write_atomic(&path, &bytes).map_err(io(&path))?;
        Ok(path)
    }
}

/// The file that says which sweep a directory holds.
pub const PLAN: &str = "plan.json";

/// Every point's id and scene (as TOML, without `run.out`), as `plan.json` keeps them.
fn plan_entries(sweep: &Sweep) -> Vec<(String, String)> {
    sweep
        .points
        .iter()
        .map(|p| {
            let mut s = p.scene.clone();
            s.run.out = PathBuf::new();
            (p.id.clone(), s.to_toml())
        })
        .collect()
}

fn plan_of(sweep: &Sweep) -> String {
    let entries: Vec<serde_json::Value> = plan_entries(sweep)
        .into_iter()
        .map(|(id, scene)| serde_json::json!({ "id": id, "scene": scene }))
        .collect();
    let text = serde_json::to_string_pretty(&serde_json::json!({ "points": entries })).unwrap_or_default();
    text + "\n"
}

/// Which point of `saved` (a plan.json) first differs from `sweep`'s.
fn first_difference(saved: &str, sweep: &Sweep) -> String {
    let old: Vec<(String, String)> = serde_json::from_str::<serde_json::Value>(saved)
        .ok()
        .and_then(|v| v.get("points").and_then(|p| p.as_array()).cloned())
        .unwrap_or_default()
        .iter()
        .map(|e| {
            let get = |k: &str| e.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_string();
            (get("id"), get("scene"))
        })
        .collect();
    let new = plan_entries(sweep);
    if old.len() != new.len() {
        return format!("{} points there, {} in {}", old.len(), new.len(), sweep.origin);
    }
    match old.iter().zip(&new).find(|(a, b)| a != b) {
        Some((_, (id, _))) => format!("point {id} has another scene there"),
        None => "its plan.json is not this sweep's".to_string(),
    }
}

/// A value as its cell: strings bare, numbers as TOML writes them.
fn cell(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

fn summary_cells(o: &Outcome) -> Vec<String> {
    let n = STATUS_COLUMNS.len();
    match o {
        Outcome::Done(s) => {
            let pct = if s.radius_mean > 0.0 {
                100.0 * s.max_overlap / s.radius_mean
            } else {
                f64::NAN
            };
            vec![
                s.flow_rate.map_or(String::new(), |r| r.to_string()),
                s.passed.to_string(),
                s.lost_grains.to_string(),
                s.grains.to_string(),
                s.radius_mean.to_string(),
                s.max_overlap.to_string(),
                if pct.is_finite() {
                    pct.to_string()
                } else {
                    String::new()
                },
                s.overlap_p99.to_string(),
                s.mean_iterations.to_string(),
                s.itmax_steps.to_string(),
                s.steps.to_string(),
                s.sim_time.to_string(),
                s.wall_seconds.to_string(),
                s.backend.clone(),
                s.solver.clone(),
                s.adapter.clone(),
                String::new(),
            ]
        }
        Outcome::Failed(e) => {
            let mut row = vec![String::new(); n];
            row[n - 1] = e.clone();
            row
        }
        _ => vec![String::new(); n],
    }
}

/// Run one point into `dir` (its `runs/<id>/`) as `hourglass run` does,
/// quietly: the scene built, the backend opened (a refusal writes nothing),
/// the result directory claimed by the run's rules, summary.json written.
pub fn run_point(point: &Point, dir: &Path) -> Result<Summary> {
    let mut scene = point.scene.clone();
    scene.run.out = dir.to_path_buf();
    run_scene(&scene)
}

/// [`run_point`] for a scene whose `run.out` says where.
pub fn run_scene(scene: &Scene) -> Result<Summary> {
    use crate::backend;
    if !scene.solver.kind.implemented() {
        return Err(Error::NotImplemented {
            what: format!("solver `{}`", scene.solver.kind.name()),
        });
    }
    if scene.dimension == 3 {
        // The policy of 3D (docs/spheres.md#on-the-gpu).
        let setup = crate::scene::build3d(scene)?;
        let grid = <crate::model::Dim3 as crate::sim::RunSpace>::grid(&setup)?;
        let mut notices = setup.notices.clone();
        let choice = setup.scene.run.backend;
        let mut backend = backend::select_solid(&setup, grid, choice, backend::Device::Open, &mut notices)?;
        let mut out = ResultDir::create_with(&setup.scene.run.out, &setup.scene.to_toml(), false)?;
        let summary = crate::sim::run(&setup, backend.as_mut(), &mut out, &mut crate::sim::Silent)?;
        out.finish(&summary)?;
        return Ok(summary);
    }
    let setup = build(scene)?;
    let grid = backend::grid_for(&setup)?;
    backend::check_initial_state(&setup, &grid)?;
    backend::refuse_unrunnable(&setup, setup.scene.run.backend)?;
    let mut notices = setup.notices.clone();
    let mut backend = backend::select(
        &setup,
        grid,
        setup.scene.run.backend,
        backend::Device::Open,
        &mut notices,
    )?;
    let mut out = ResultDir::create_with(&setup.scene.run.out, &setup.scene.to_toml(), false)?;
    let summary = crate::sim::run(&setup, backend.as_mut(), &mut out, &mut crate::sim::Silent)?;
    out.finish(&summary)?;
    Ok(summary)
}
