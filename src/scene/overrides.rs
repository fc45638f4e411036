//! Scene keys set by their dotted names (`walls.hourglass.neck = 7`), as a
//! sweep varies them and Python's `Simulation.from_scene(**overrides)` sets
//! them. Each value goes through the scene's TOML, so the scene's own parser
//! checks it: an unknown key or a value of the wrong type is the error a
//! scene file with that line would give, named by the key (with the nearest
//! valid key when it is unknown).

use crate::error::{Error, Result};

use super::Scene;

/// `scene` with every `(dotted key, value)` of `overrides` set, in order.
/// `origin` names the overrides in errors (a sweep point, "python").
/// Setting `run.duration` drops `run.steps` and the other way round: one of
/// them says how long a run is.
pub fn apply(scene: &Scene, overrides: &[(String, toml::Value)], origin: &str) -> Result<Scene> {
    if overrides.is_empty() {
        return Ok(scene.clone());
    }
    let mut table = table_of(scene)?;
    for (key, value) in overrides {
        set(&mut table, key, value.clone(), origin)?;
    }
    match parse(&table, scene) {
        Ok(s) => Ok(s),
        // The TOML is ours, so its line numbers mean nothing to the user:
        // name the override instead (the first that the parser refuses alone).
        Err(e) => {
            for (key, value) in overrides {
                let mut one = table_of(scene)?;
                set(&mut one, key, value.clone(), origin)?;
                if let Err(Error::SceneSyntax { message, .. }) = parse(&one, scene) {
                    return Err(blame(key, &message, origin));
                }
            }
            Err(e)
        }
    }
}

fn table_of(scene: &Scene) -> Result<toml::Table> {
    toml::from_str(&scene.to_toml()).map_err(|e| Error::field(&scene.origin, "scene", format!("cannot re-read: {e}")))
}

fn parse(table: &toml::Table, scene: &Scene) -> Result<Scene> {
    let text =
        toml::to_string(table).map_err(|e| Error::field(&scene.origin, "scene", format!("cannot write: {e}")))?;
    let mut s = Scene::parse(&text, std::path::Path::new(&scene.origin))?;
    s.origin = scene.origin.clone();
    Ok(s)
}

/// Set `key` (dotted) to `value` in `table`.
fn set(table: &mut toml::Table, key: &str, value: toml::Value, origin: &str) -> Result<()> {
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(Error::field(
            origin,
            key,
            "is not a scene key: give it as `section.key` (e.g. `solver.mu`)",
        ));
    }
    let (last, path) = parts.split_last().expect("split gives one part at least");
    let mut t = table;
    for part in path {
        let entry = t
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = entry
            .as_table_mut()
            .ok_or_else(|| Error::field(origin, key, format!("`{part}` is a value, not a table")))?;
    }
    match key {
        "run.duration" => {
            t.remove("steps");
        }
        "run.steps" => {
            t.remove("duration");
        }
        _ => {}
    }
    t.insert(last.to_string(), value);
    Ok(())
}

/// The parser's `message` for the one override `key`, as an error naming it:
/// "line L, column C: unknown field `nek`, expected one of `width`, `neck`"
/// becomes "unknown key (did you mean `walls.hourglass.neck`?)".
fn blame(key: &str, message: &str, origin: &str) -> Error {
    let problem = message.split_once(": ").map_or(message, |(_, p)| p);
    if let Some(rest) = problem.strip_prefix("unknown field `") {
        let (unknown, rest) = rest.split_once('`').unwrap_or((rest, ""));
        let candidates: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
        // The unknown part may be a section (`solvr.mu`): swap that part alone.
        let parts: Vec<&str> = key.split('.').collect();
        let at = parts.iter().position(|p| *p == unknown);
        let problem = match (nearest(unknown, &candidates), at) {
            (Some(best), Some(i)) => {
                let mut fixed = parts.clone();
                fixed[i] = best;
                format!("is not a scene key (did you mean `{}`?)", fixed.join("."))
            }
            _ => "is not a scene key".to_string(),
        };
        return Error::field(origin, key, problem);
    }
    Error::field(origin, key, problem)
}

/// The candidate closest to `word` by edit distance, if any is within half
/// its length (a typo, not another key).
pub fn nearest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let best = candidates.iter().min_by_key(|c| distance(word, c))?;
    (distance(word, best) <= word.len().max(2).div_ceil(2)).then_some(*best)
}

/// Levenshtein distance (written out: a dozen lines, not worth a crate).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (up + 1).min(row[j] + 1).min(diag + usize::from(ca != *cb));
            diag = up;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(x: f64) -> toml::Value {
        toml::Value::Float(x)
    }

    #[test]
    fn a_key_is_set_through_the_scene_parser() {
        let s = apply(&Scene::default(), &[("solver.mu".into(), float(0.3))], "test").unwrap();
        assert_eq!(s.solver.mu, 0.3);
        let s = apply(
            &Scene::default(),
            &[("walls.hourglass.neck".into(), float(8.0))],
            "test",
        )
        .unwrap();
        assert_eq!(s.walls.hourglass.unwrap().neck, 8.0);
    }

    #[test]
    fn duration_and_steps_replace_each_other() {
        let s = apply(&Scene::default(), &[("run.steps".into(), toml::Value::Integer(5))], "t").unwrap();
        assert_eq!((s.run.steps, s.run.duration), (Some(5), None));
    }

    #[test]
    fn an_unknown_key_names_the_nearest() {
        let e = apply(
            &Scene::default(),
            &[("walls.hourglass.nek".into(), float(8.0))],
            "point 3",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "point 3: field `walls.hourglass.nek`: is not a scene key (did you mean `walls.hourglass.neck`?)"
        );
        let e = apply(&Scene::default(), &[("solvr.mu".into(), float(0.1))], "p").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p: field `solvr.mu`: is not a scene key (did you mean `solver.mu`?)"
        );
        let e = apply(&Scene::default(), &[("solver.zzzzzzzz".into(), float(0.1))], "p").unwrap_err();
        assert_eq!(e.to_string(), "p: field `solver.zzzzzzzz`: is not a scene key");
    }

    #[test]
    fn a_value_of_the_wrong_type_is_blamed_on_its_key() {
        let e = apply(
            &Scene::default(),
            &[
                ("solver.mu".into(), float(0.1)),
                ("grains.count".into(), toml::Value::String("many".into())),
            ],
            "p",
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("p: field `grains.count`: "), "{e}");
    }

    #[test]
    fn distances() {
        assert_eq!(distance("neck", "nek"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(nearest("sed", &["seed", "count"]), Some("seed"));
        assert_eq!(nearest("xyzzy", &["seed", "count"]), None);
    }
}
