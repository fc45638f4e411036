//! Parameter sweeps: one file names a base scene, the scene keys to vary
//! and their values; every point is an ordinary run in its own result
//! directory, and one table (`results.csv`) holds every run's parameters and
//! summary. `hourglass sweep` runs the points on local worker processes;
//! Python's `hourglass.sweep` hands them to any executor (local processes,
//! a Dask cluster, Slurm through submitit). docs/sweeps.md is the user's
//! page.
//!
//! ```toml
//! version = 1
//! scene = "hourglass.toml"      # relative to this file; absent: the bundled hourglass
//! replicas = 3                  # each point with grains.seed = seed, seed + 1, ...
//!
//! [set]                         # scene keys of every run
//! "grains.count" = 2000
//!
//! [grid]                        # every combination, the first key outermost
//! "walls.hourglass.neck" = [5, 7, 9, 11]
//! "solver.mu" = { from = 0.0, to = 0.4, num = 3 }   # or step = 0.2
//!
//! [zip]                         # lists of one length, taken row by row
//! "grains.radius_mean" = [0.002, 0.003]
//! "grains.radius_max" = [0.004, 0.006]
//!
//! [run]                         # how long, on what: the scene's [run] keys
//! duration = 2.0
//! backend = "cpu"
//! ```
//!
//! The points are the grid's combinations, each with every row of the zip,
//! each with every replica, numbered from 0 in that order: point `k` runs in
//! `DIR/runs/<k, 4 digits>/`.

mod dir;

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use dir::{MARK, Outcome, PLAN, STATUS_COLUMNS, SweepDir, run_dir_in, run_point, run_scene};

use crate::error::{Error, Result};
use crate::scene::{Scene, overrides};

/// The only sweep-file version this build reads.
pub const SWEEP_VERSION: u32 = 1;

/// Most points one sweep may have: each is a result directory.
pub const MAX_POINTS: usize = 100_000;

/// The sweep file as written (strict: an unknown key is an error).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepFile {
    version: Option<u32>,
    scene: Option<PathBuf>,
    #[serde(default)]
    replicas: Option<i64>,
    #[serde(default)]
    set: toml::Table,
    #[serde(default)]
    grid: toml::Table,
    #[serde(default)]
    zip: toml::Table,
    #[serde(default)]
    run: toml::Table,
}

/// One run of a sweep: its number, the values it sets and its scene.
#[derive(Debug, Clone)]
pub struct Point {
    /// Its folder under `DIR/runs/` and its row's `id`: the point's number, 4 digits or more.
    pub id: String,
    /// The varied keys' values, in the table's column order (the grid's
    /// keys, the zip's, then `grains.seed` with replicas).
    pub values: Vec<toml::Value>,
    /// The base scene with `[set]`, `[run]` and the values applied.
    pub scene: Scene,
}

/// A sweep's points, resolved and checked.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// Where it came from (the file, or "python"), for errors.
    pub origin: String,
    /// The varied keys, one column each.
    pub keys: Vec<String>,
    pub points: Vec<Point>,
}

impl Sweep {
    /// Read and resolve a sweep file; the base scene is taken relative to its folder.
    pub fn load(path: &Path) -> Result<Sweep> {
        let (table, origin) = Sweep::read(path)?;
        Sweep::from_table(table, &origin, path.parent().unwrap_or(Path::new(".")))
    }

    /// Point `id` alone of a sweep file, built as [`Sweep::load`] builds it
    /// but without the other points (what a worker runs).
    pub fn load_point(path: &Path, id: &str) -> Result<Point> {
        let (table, origin) = Sweep::read(path)?;
        let missing = || Error::field(&origin, "point", format!("the sweep has no point {id}"));
        let k = id.parse::<usize>().map_err(|_| missing())?;
        let sweep = Sweep::resolve(table, &origin, path.parent().unwrap_or(Path::new(".")), Some(k))?;
        sweep.points.into_iter().find(|p| p.id == id).ok_or_else(missing)
    }

    fn read(path: &Path) -> Result<(toml::Table, String)> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::SweepIo {
            path: path.to_path_buf(),
            source,
        })?;
        let origin = path.display().to_string();
        let table: toml::Table = toml::from_str(&text).map_err(|e| Error::SceneSyntax {
            path: path.to_path_buf(),
            message: crate::scene::describe_toml_error(&text, &e),
        })?;
        Ok((table, origin))
    }

    /// Resolve a sweep given as a TOML table (a file's, or Python's dict);
    /// `origin` names it in errors, `base` is the folder a relative `scene`
    /// path is taken from. Every point's scene is built from its keys and
    /// checked (`Scene::validate`) here, before any run starts.
    pub fn from_table(table: toml::Table, origin: &str, base: &Path) -> Result<Sweep> {
        Sweep::resolve(table, origin, base, None)
    }

    /// [`Sweep::from_table`], with `only` the one point `only` built (no
    /// duplicate check: the whole sweep was checked before it ran).
    fn resolve(table: toml::Table, origin: &str, base: &Path, only: Option<usize>) -> Result<Sweep> {
        let file = SweepFile::deserialize(toml::Value::Table(table))
            .map_err(|e| Error::field(origin, "sweep", e.message().trim().replace('\n', " ")))?;
        if file.version != Some(SWEEP_VERSION) {
            let found = file.version.map_or("none".to_string(), |v| v.to_string());
            return Err(Error::field(
                origin,
                "version",
                format!("must be {SWEEP_VERSION} (this build reads sweep files of version 1), found {found}"),
            ));
        }
        let scene = match &file.scene {
            Some(p) if p.as_os_str().is_empty() => {
                return Err(Error::field(
                    origin,
                    "scene",
                    "is empty: give a scene file, or leave it out for the bundled hourglass",
                ));
            }
            Some(p) => Scene::load(&if p.is_relative() { base.join(p) } else { p.clone() })?,
            None => Scene::default(),
        };
        let replicas = match file.replicas {
            None => 1,
            Some(n) if (1..=MAX_POINTS as i64).contains(&n) => n as usize,
            Some(n) => {
                return Err(Error::field(
                    origin,
                    "replicas",
                    format!("must be a whole number from 1 to {MAX_POINTS}, got {n}"),
                ));
            }
        };
        // Every run's fixed keys: [set], then [run] under `run.`.
        let mut fixed = flatten("set", &file.set, origin, false)?;
        for (key, value) in flatten("run", &file.run, origin, false)? {
            if key == "out" {
                return Err(Error::field(
                    origin,
                    "run.out",
                    "is where the sweep's --out puts each run (DIR/runs/<id>): leave it out",
                ));
            }
            fixed.push((format!("run.{key}"), value));
        }
        let fixed_origin = format!("{origin} [set]/[run]");
        let base_scene = overrides::apply(&scene, &fixed, &fixed_origin)?;

        let grid: Vec<(String, Vec<toml::Value>)> = flatten("grid", &file.grid, origin, true)?
            .into_iter()
            .map(|(k, v)| Ok((k.clone(), values(&format!("grid.{k}"), v, origin)?)))
            .collect::<Result<_>>()?;
        let zip: Vec<(String, Vec<toml::Value>)> = flatten("zip", &file.zip, origin, true)?
            .into_iter()
            .map(|(k, v)| Ok((k.clone(), values(&format!("zip.{k}"), v, origin)?)))
            .collect::<Result<_>>()?;
        let rows = match zip.first() {
            None => 1,
            Some((first, list)) => {
                if let Some((k, other)) = zip.iter().find(|(_, l)| l.len() != list.len()) {
                    return Err(Error::field(
                        origin,
                        &format!("zip.{k}"),
                        format!(
                            "has {} values and `zip.{first}` has {}: zipped lists must be of one length",
                            other.len(),
                            list.len()
                        ),
                    ));
                }
                list.len()
            }
        };
        let mut keys: Vec<String> = grid.iter().chain(&zip).map(|(k, _)| k.clone()).collect();
        for (i, k) in keys.iter().enumerate() {
            if keys[..i].contains(k) {
                return Err(Error::field(
                    origin,
                    k,
                    "is varied twice ([grid] and [zip]): vary it in one of them",
                ));
            }
            if fixed.iter().any(|(f, _)| f == k) {
                return Err(Error::field(
                    origin,
                    k,
                    "is both set ([set] or [run]) and varied: keep one",
                ));
            }
        }
        if replicas > 1 {
            if keys.iter().any(|k| k == "grains.seed") {
                return Err(Error::field(
                    origin,
                    "replicas",
                    "vary grains.seed, which the sweep varies itself: drop one",
                ));
            }
            keys.push("grains.seed".to_string());
        }
        let combos: usize = grid.iter().map(|(_, l)| l.len()).product::<usize>();
        let count = combos.saturating_mul(rows).saturating_mul(replicas);
        if grid.is_empty() && zip.is_empty() && replicas == 1 {
            return Err(Error::field(
                origin,
                "grid",
                "the sweep varies nothing: give [grid] or [zip] values, or replicas > 1",
            ));
        }
        if count > MAX_POINTS {
            return Err(Error::field(
                origin,
                "grid",
                format!("{count} points is more than the limit of {MAX_POINTS}"),
            ));
        }
        let width = count.saturating_sub(1).to_string().len().max(4);
        let seed0 = base_scene.grains.seed;
        let range = match only {
            Some(k) => k..(k + 1).min(count),
            None => 0..count,
        };
        let mut points: Vec<Point> = Vec::with_capacity(range.len());
        // Each point's values as text, to find a repeat without comparing every pair.
        let mut seen: std::collections::HashMap<String, String> = std::collections::HashMap::new();
        for k in range {
            let (mut rest, mut values) = (k, Vec::with_capacity(keys.len()));
            let replica = rest % replicas;
            rest /= replicas;
            let row = rest % rows;
            rest /= rows;
            // The grid's first key outermost: its index changes slowest.
            let mut picks = vec![0; grid.len()];
            for (g, (_, list)) in grid.iter().enumerate().rev() {
                picks[g] = rest % list.len();
                rest /= list.len();
            }
            for ((_, list), &i) in grid.iter().zip(&picks) {
                values.push(list[i].clone());
            }
            for (_, list) in &zip {
                values.push(list[row].clone());
            }
            if replicas > 1 {
                values.push(toml::Value::Integer((seed0 + replica as u64) as i64));
            }
            let id = format!("{k:0width$}");
            let set: Vec<(String, toml::Value)> = keys.iter().cloned().zip(values.iter().cloned()).collect();
            if let Some(same) = seen.insert(describe(&set), id.clone()) {
                return Err(Error::field(
                    origin,
                    "grid",
                    format!(
                        "point {id} ({}) repeats point {same}: every point must differ",
                        describe(&set)
                    ),
                ));
            }
            let here = format!("{origin} point {id} ({})", describe(&set));
            let mut scene = overrides::apply(&base_scene, &set, &here)?;
            scene.origin = here;
            scene.validate()?;
            points.push(Point { id, values, scene });
        }
        Ok(Sweep {
            origin: origin.to_string(),
            keys,
            points,
        })
    }
}

/// "k = v, k2 = v2": a point's values as its errors and notices name them.
pub fn describe(set: &[(String, toml::Value)]) -> String {
    set.iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A range table: `{ from, to, num }` or `{ from, to, step }`.
fn is_range(t: &toml::Table) -> bool {
    t.contains_key("from") && t.keys().all(|k| matches!(k.as_str(), "from" | "to" | "num" | "step"))
}

/// The dotted keys of `table` and their values: `"a.b" = v` and `a.b = v`
/// (a nested table) both give `a.b`. With `lists`, a range table is a value.
fn flatten(section: &str, table: &toml::Table, origin: &str, lists: bool) -> Result<Vec<(String, toml::Value)>> {
    fn walk(prefix: &str, t: &toml::Table, lists: bool, out: &mut Vec<(String, toml::Value)>) {
        for (k, v) in t {
            let key = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                toml::Value::Table(inner) if !(lists && is_range(inner)) => walk(&key, inner, lists, out),
                v => out.push((key, v.clone())),
            }
        }
    }
    let mut out = Vec::new();
    walk("", table, lists, &mut out);
    if section != "run" && out.iter().any(|(k, _)| !k.contains('.')) {
        let (k, _) = out.iter().find(|(k, _)| !k.contains('.')).expect("found above");
        return Err(Error::field(
            origin,
            &format!("{section}.{k}"),
            "is not a scene key: give it as `section.key` (e.g. \"solver.mu\")",
        ));
    }
    Ok(out)
}

/// The values of a varied key: a non-empty list, or a range table.
fn values(key: &str, v: toml::Value, origin: &str) -> Result<Vec<toml::Value>> {
    let list = match v {
        toml::Value::Array(list) => list,
        toml::Value::Table(t) => range(key, &t, origin)?,
        other => {
            return Err(Error::field(
                origin,
                key,
                format!(
                    "must be a list of values or a range {{ from, to, num }} / {{ from, to, step }}, found {other}"
                ),
            ));
        }
    };
    if list.is_empty() {
        return Err(Error::field(
            origin,
            key,
            "is empty: a varied key needs one value at least",
        ));
    }
    Ok(list)
}

fn range(key: &str, t: &toml::Table, origin: &str) -> Result<Vec<toml::Value>> {
    let bad = |p: String| Error::field(origin, key, p);
    let number = |name: &str| -> Result<Option<f64>> {
        match t.get(name) {
            None => Ok(None),
            Some(toml::Value::Integer(i)) => Ok(Some(*i as f64)),
            Some(toml::Value::Float(x)) if x.is_finite() => Ok(Some(*x)),
            Some(other) => Err(bad(format!("`{name}` must be a finite number, found {other}"))),
        }
    };
    let ints = ["from", "to", "step"]
        .iter()
        .all(|n| !matches!(t.get(*n), Some(toml::Value::Float(_))));
    let from = number("from")?.ok_or_else(|| bad("a range needs `from`".into()))?;
    let to = number("to")?.ok_or_else(|| bad("a range needs `to`".into()))?;
    let out: Vec<f64> = match (number("num")?, number("step")?) {
        (Some(_), Some(_)) => return Err(bad("give `num` or `step`, not both".into())),
        (None, None) => return Err(bad("a range needs `num` (how many values) or `step`".into())),
        (Some(n), None) => {
            if !(n >= 1.0 && n.fract() == 0.0 && n <= MAX_POINTS as f64) {
                return Err(bad(format!(
                    "`num` must be a whole number from 1 to {MAX_POINTS}, got {n}"
                )));
            }
            let n = n as usize;
            (0..n)
                .map(|i| {
                    if n == 1 {
                        from
                    } else {
                        from + (to - from) * i as f64 / (n - 1) as f64
                    }
                })
                .collect()
        }
        (None, Some(step)) => {
            if step == 0.0 || (to - from) * step < 0.0 {
                return Err(bad(format!("`step` {step} never goes from {from} to {to}")));
            }
            let n = ((to - from) / step * (1.0 + 1e-12)).floor() + 1.0;
            if n > MAX_POINTS as f64 {
                return Err(bad(format!(
                    "the range has {n} values, more than the limit of {MAX_POINTS}"
                )));
            }
            (0..n as usize).map(|i| from + step * i as f64).collect()
        }
    };
    Ok(out
        .into_iter()
        .map(|x| {
            if ints && t.get("num").is_none() {
                toml::Value::Integer(x.round() as i64)
            } else {
                toml::Value::Float(x)
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(text: &str) -> Result<Sweep> {
        Sweep::from_table(toml::from_str(text).unwrap(), "s.toml", Path::new("."))
    }

    #[test]
    fn the_grid_is_a_product_first_key_outermost_with_zip_rows_and_replicas() {
        let s = sweep(
            r#"version = 1
replicas = 2
[grid]
"walls.hourglass.neck" = [5.0, 7.0]
solver.mu = { from = 0.0, to = 0.4, num = 3 }
[zip]
"grains.radius_mean" = [0.003, 0.0025]
"grains.radius_min" = [0.0015, 0.001]
"#,
        )
        .unwrap();
        assert_eq!(
            s.keys,
            [
                "walls.hourglass.neck",
                "solver.mu",
                "grains.radius_mean",
                "grains.radius_min",
                "grains.seed"
            ]
        );
        assert_eq!(s.points.len(), 2 * 3 * 2 * 2);
        let p = &s.points[15];
        assert_eq!(p.id, "0015");
        // 15 = ((neck 1 * 3 + mu 0) * 2 + row 1) * 2 + replica 1
        assert_eq!(p.scene.walls.hourglass.as_ref().unwrap().neck, 7.0);
        assert_eq!(p.scene.solver.mu, 0.0);
        assert_eq!(p.scene.grains.radius_mean, 0.0025);
        assert_eq!(p.scene.grains.seed, 2);
        assert_eq!(s.points[2].scene.grains.seed, 1);
        assert_eq!(s.points[4].scene.solver.mu, 0.2);
    }

    #[test]
    fn set_and_run_apply_to_every_point() {
        let s = sweep("version = 1\n[set]\n\"grains.count\" = 300\n[run]\nsteps = 20\n[grid]\n\"grains.seed\" = { from = 1, to = 3, step = 1 }\n").unwrap();
        assert_eq!(s.points.len(), 3);
        assert!(
            s.points
                .iter()
                .all(|p| p.scene.grains.count == 300 && p.scene.run.steps == Some(20))
        );
        assert_eq!(s.points[2].values, [toml::Value::Integer(3)]);
    }

    #[test]
    fn bad_sweeps_are_refused_in_one_line_naming_the_key() {
        let cases = [
            (
                "[grid]\n\"solver.mu\" = [0.1]\n",
                "s.toml: field `version`: must be 1 (this build reads sweep files of version 1), found none",
            ),
            (
                "version = 1\n[grid]\n\"solver.mu\" = []\n",
                "s.toml: field `grid.solver.mu`: is empty: a varied key needs one value at least",
            ),
            (
                "version = 1\n",
                "s.toml: field `grid`: the sweep varies nothing: give [grid] or [zip] values, or replicas > 1",
            ),
            (
                "version = 1\n[grid]\n\"solver.mu\" = [0.1, 0.2, 0.1]\n",
                "s.toml: field `grid`: point 0002 (solver.mu = 0.1) repeats point 0000: every point must differ",
            ),
            (
                "version = 1\n[grid]\n\"walls.hourglass.nek\" = [5.0]\n",
                "s.toml point 0000 (walls.hourglass.nek = 5.0): field `walls.hourglass.nek`: is not a scene key (did you mean `walls.hourglass.neck`?)",
            ),
            (
                "version = 1\n[grid]\n\"grains.count\" = [100, -5]\n",
                "s.toml point 0001 (grains.count = -5): field `grains.count`: ",
            ),
            ("version = 1\nfoo = 1\n", "s.toml: field `sweep`: unknown field `foo`"),
            (
                "version = 1\n[run]\nout = \"x\"\n[grid]\n\"solver.mu\" = [0.1]\n",
                "s.toml: field `run.out`: ",
            ),
            (
                "version = 1\n[grid]\n\"solver.mu\" = [0.1]\n[zip]\n\"solver.mu\" = [0.2]\n",
                "s.toml: field `solver.mu`: is varied twice",
            ),
            (
                "version = 1\n[zip]\n\"solver.mu\" = [0.1, 0.2]\n\"grains.seed\" = [1]\n",
                "s.toml: field `zip.grains.seed`: has 1 values and `zip.solver.mu` has 2",
            ),
            (
                "version = 1\n[grid]\nmu = [0.1]\n",
                "s.toml: field `grid.mu`: is not a scene key",
            ),
            (
                "version = 1\nreplicas = 0\n",
                "s.toml: field `replicas`: must be a whole number",
            ),
            (
                "version = 1\n[grid]\n\"solver.mu\" = { from = 0, to = 1, step = -1 }\n",
                "s.toml: field `grid.solver.mu`: `step` -1 never goes",
            ),
        ];
        for (text, want) in cases {
            let e = sweep(text).expect_err(text).to_string();
            assert!(e.starts_with(want), "{text}\n got: {e}\nwant: {want}");
            assert!(!e.contains('\n'));
        }
    }
}
