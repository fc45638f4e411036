//! docs/scenes.md documents every key a scene file accepts, and no other.
//!
//! The accepted keys are not copied here: they are read from the scene
//! parser itself. Every scene table refuses unknown keys, and the refusal
//! lists the keys the table takes ("unknown field `k`, expected one of ...");
//! probing each table with an unknown key, and each listed key with a table
//! of its own, walks the whole scene format. The documented keys are the
//! first cells of the rows of the key tables in docs/scenes.md (tables whose
//! header is `| key | type | default | unit | meaning |`). A documented
//! default written as TOML (in backticks) must be the parser's default.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use hourglass::scene::{CohesionSpec, CrowdSpec, HourglassSpec, Scene};

/// A key no scene table takes.
const PROBE: &str = "undocumented_probe_key";
/// The header of a key table in docs/scenes.md.
const KEY_TABLE: &str = "| key | type | default | unit | meaning |";

/// The keys the table that `header` opens accepts (header "" is the top
/// level), or None when `header` opens no table of the scene format.
fn fields_under(header: &str) -> Option<Vec<String>> {
    let text = format!("{header}\n{PROBE} = 1\n");
    let err = Scene::parse(&text, Path::new("probe.toml")).err()?.to_string();
    let marker = format!("unknown field `{PROBE}`");
    let (_, expected) = err.split_once(&marker)?;
    // ", expected one of `a`, `b`", ", expected `a`" or ", there are no fields".
    Some(expected.split('`').skip(1).step_by(2).map(String::from).collect())
}

/// The leaf keys under the table `prefix` (dotted; "" is the top level), as
/// `table.key`, an array of tables written `table[].key`.
fn walk(prefix: &str, header: &str, keys: &mut BTreeSet<String>) {
    let fields = fields_under(header).unwrap_or_else(|| panic!("{header:?} opens no scene table"));
    assert!(!fields.is_empty(), "the parser listed no keys under {header:?}");
    for field in fields {
        let path = if prefix.is_empty() {
            field
        } else {
            format!("{prefix}.{field}")
        };
        let table = format!("[{}]", path.replace("[]", ""));
        let array = format!("[{table}]");
        if fields_under(&table).is_some() {
            walk(&path, &table, keys);
        } else if fields_under(&array).is_some() {
            walk(&format!("{path}[]"), &array, keys);
        } else {
            keys.insert(path);
        }
    }
}

/// Every key the scene parser accepts.
fn accepted_keys() -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    walk("", "", &mut keys);
    keys
}

/// The rows of every table in the guide page `page` whose header line is
/// `header`, as trimmed cells (an escaped `\\|` inside a cell is a `|`).
fn table_rows(page: &str, header: &str) -> Vec<Vec<String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs").join(page);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let width = header.matches('|').count() - 1;
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        let line = line.trim();
        if line == header {
            in_table = true;
            continue;
        }
        if !in_table || !line.starts_with('|') {
            in_table = false;
            continue;
        }
        let unescaped = line.replace("\\|", "\u{1}");
        let cells: Vec<String> = unescaped
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().replace('\u{1}', "|"))
            .collect();
        if cells[0].starts_with("---") {
            continue;
        }
        assert_eq!(cells.len(), width, "docs/{page}: a row of {width} cells: {line}");
        rows.push(cells);
    }
    rows
}

/// The first cell of each row, backticks removed.
fn names(rows: &[Vec<String>]) -> Vec<String> {
    rows.iter().map(|r| r[0].trim_matches('`').to_string()).collect()
}

/// docs/scenes.md's key tables: key -> its default cell.
fn documented_keys() -> BTreeMap<String, String> {
    let rows = table_rows("scenes.md", KEY_TABLE);
    let mut keys = BTreeMap::new();
    for (key, row) in names(&rows).into_iter().zip(&rows) {
        assert!(
            keys.insert(key.clone(), row[2].clone()).is_none(),
            "docs/scenes.md lists `{key}` twice"
        );
    }
    keys
}

/// The parser's default of every key that has one written out (the
/// optional tables turned on with their defaults), as TOML values.
fn default_values() -> BTreeMap<String, toml::Value> {
    let mut scene = Scene::default();
    scene.walls.hourglass = Some(HourglassSpec::default());
    scene.cohesion = Some(CohesionSpec::default());
    scene.crowd = Some(CrowdSpec::default());
    let table: toml::Table = toml::from_str(&scene.to_toml()).expect("the default scene serialises");
    let mut values = BTreeMap::new();
    flatten("", &toml::Value::Table(table), &mut values);
    values
}

fn flatten(prefix: &str, value: &toml::Value, out: &mut BTreeMap<String, toml::Value>) {
    match value {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&path, v, out);
            }
        }
        _ => {
            out.insert(prefix.to_string(), value.clone());
        }
    }
}

#[test]
fn every_scene_key_is_documented_and_every_documented_key_is_accepted() {
    let accepted = accepted_keys();
    let documented: BTreeSet<String> = documented_keys().into_keys().collect();
    // The walk found the nested tables too (a sanity check of the probe).
    for key in [
        "version",
        "solver.tol",
        "walls.hourglass.neck",
        "emitters[].interval",
        "crowd.door",
    ] {
        assert!(accepted.contains(key), "the parser's keys lack `{key}`: {accepted:?}");
    }
    let missing: Vec<_> = accepted.difference(&documented).collect();
    let unknown: Vec<_> = documented.difference(&accepted).collect();
    assert!(
        missing.is_empty(),
        "scene keys missing from docs/scenes.md: {missing:?}"
    );
    assert!(
        unknown.is_empty(),
        "docs/scenes.md lists keys no scene accepts: {unknown:?}"
    );
}

#[test]
fn documented_defaults_are_the_parsers() {
    let documented = documented_keys();
    for (key, value) in default_values() {
        let cell = documented
            .get(&key)
            .unwrap_or_else(|| panic!("`{key}` has a default but no row in docs/scenes.md"));
        let literal = cell
            .strip_prefix('`')
            .and_then(|rest| rest.split_once('`'))
            .map(|(literal, _)| literal)
            .unwrap_or_else(|| panic!("docs/scenes.md: `{key}`'s default {cell:?} is not a TOML value in backticks"));
        let parsed: toml::Table = toml::from_str(&format!("v = {literal}"))
            .unwrap_or_else(|e| panic!("docs/scenes.md: `{key}`'s default `{literal}` is not TOML: {e}"));
        assert_eq!(parsed["v"], value, "docs/scenes.md: `{key}`'s default");
    }
}

/// A deserializer that only records the field names a struct asks for
/// (serde hands them to `deserialize_struct`), then stops.
struct FieldNames<'a>(&'a mut Vec<&'static str>);

#[derive(Debug)]
struct Stop;

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("field names recorded")
    }
}

impl std::error::Error for Stop {}

impl serde::de::Error for Stop {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Stop
    }
}

impl<'de> serde::Deserializer<'de> for FieldNames<'_> {
    type Error = Stop;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        self.0.extend_from_slice(fields);
        Err(Stop)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// The fields of the struct `T` deserializes, in declaration order.
fn field_names<T: serde::de::DeserializeOwned>() -> Vec<String> {
    let mut fields = Vec::new();
    let _ = T::deserialize(FieldNames(&mut fields));
    fields.into_iter().map(String::from).collect()
}

#[test]
fn every_diagnostics_column_is_documented_in_order() {
    let documented = names(&table_rows("results.md", "| column | unit | meaning |"));
    let written: Vec<String> = hourglass::output::DIAGNOSTICS_HEADER
        .split(',')
        .map(String::from)
        .collect();
    assert_eq!(
        documented, written,
        "docs/results.md's diagnostics.csv table against the header the runs write"
    );
}

#[test]
fn every_summary_field_is_documented() {
    let documented = names(&table_rows("results.md", "| field | unit | meaning |"));
    let fields = field_names::<hourglass::output::Summary>();
    assert!(fields.len() > 20, "the recorder read the summary's fields: {fields:?}");
    assert_eq!(
        documented, fields,
        "docs/results.md's summary.json table against summary.json's fields, in order"
    );
}

/// The long flags `hourglass <command> --help` lists (`--help` aside).
fn help_flags(command: &str) -> BTreeSet<String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .args([command, "--help"])
        .output()
        .expect("hourglass runs");
    assert!(out.status.success(), "hourglass {command} --help failed");
    let text = String::from_utf8(out.stdout).expect("utf-8 help");
    text.lines()
        .filter_map(|line| {
            let option = line.trim_start().strip_prefix("-q, ").unwrap_or(line.trim_start());
            let flag = option.strip_prefix("--")?.split([' ', '<', '=']).next()?;
            (flag != "help").then(|| format!("--{flag}"))
        })
        .collect()
}

/// The long flags of the flag tables in docs/cli.md's section on `command`.
fn documented_flags(command: &str) -> BTreeSet<String> {
    documented_flags_in("cli.md", command)
}

/// The long flags of the flag tables in the guide page `page`'s section on `command`.
fn documented_flags_in(page: &str, command: &str) -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs").join(page);
    let text = std::fs::read_to_string(path).expect("the guide page");
    let heading = format!("## `hourglass {command}`");
    let (_, section) = text
        .split_once(&heading)
        .unwrap_or_else(|| panic!("docs/{page} has no {heading}"));
    let section = section.split("\n## ").next().unwrap_or_default();
    section
        .lines()
        .filter(|line| line.starts_with("| `-"))
        .flat_map(|line| {
            line.split('|')
                .nth(1)
                .unwrap_or_default()
                .split('`')
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter_map(|cell| {
            cell.strip_prefix("--")
                .map(|f| format!("--{}", f.split(' ').next().unwrap_or(f)))
        })
        .collect()
}

#[test]
fn every_command_line_flag_is_documented() {
    for command in ["run", "view", "render", "plot", "bench", "study"] {
        let help = help_flags(command);
        assert!(!help.is_empty(), "no flags read from `hourglass {command} --help`");
        assert_eq!(
            documented_flags(command),
            help,
            "docs/cli.md's `hourglass {command}` flags against its --help"
        );
    }
}

#[test]
fn the_sweep_command_and_its_table_are_documented() {
    assert_eq!(
        documented_flags_in("sweeps.md", "sweep"),
        help_flags("sweep"),
        "docs/sweeps.md's `hourglass sweep` flags against its --help"
    );
    // results.csv's columns in order: a cell may name several, in backticks.
    let documented: Vec<String> = table_rows("sweeps.md", "| column | meaning |")
        .iter()
        .flat_map(|r| {
            r[0].split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut written = vec!["id".to_string(), "status".to_string()];
    written.extend(hourglass::sweep::STATUS_COLUMNS.iter().map(|c| c.to_string()));
    assert_eq!(
        documented, written,
        "docs/sweeps.md's results.csv table against the columns written"
    );
}

/// GitHub's anchor of a Markdown heading: lower case, punctuation but `-`
/// and `_` dropped, spaces to `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of the headings of a Markdown page (outside code blocks).
fn anchors(page: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.insert(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// Every `path[#anchor]` a text points at: Markdown links `](target)` in
/// pages, and `docs/<page>.md[#anchor]` anywhere (comments, help texts).
fn targets(text: &str, markdown: bool) -> Vec<String> {
    let mut out = Vec::new();
    if markdown {
        for part in text.split("](").skip(1) {
            let Some(end) = part.find(')') else { continue };
            let t = &part[..end];
            if !t.contains("://") && !t.starts_with("mailto:") && !t.is_empty() {
                out.push(t.to_string());
            }
        }
    }
    let mut rest = text;
    while let Some(at) = rest.find("docs/") {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '#')))
            .unwrap_or(tail.len());
        let t = tail[..end].trim_end_matches('.');
        if t.contains(".md") && !tail[..end].starts_with("docs/.") {
            out.push(format!("/{t}"));
        }
        rest = &tail[end.max(5)..];
    }
    out
}

fn tracked_texts() -> Vec<(std::path::PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                if !name.starts_with('.') && name != "target" && dir == root || dir != root && !name.starts_with('.') {
                    dirs.push(p);
                }
            } else if ["md", "rs", "wgsl", "toml", "py"]
                .iter()
                .any(|x| name.ends_with(&format!(".{x}")))
            {
                if let Ok(text) = std::fs::read_to_string(&p) {
                    out.push((p, text));
                }
            }
        }
    }
    out
}

/// Every link of README.md and docs/, and every `docs/<page>.md#anchor`
/// the code, the shaders, the scenes and the tests cite, names a file of the
/// repository and, with an anchor, a heading of that page.
#[test]
fn every_link_into_the_docs_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut broken = Vec::new();
    let mut checked = 0;
    for (path, text) in tracked_texts() {
        let markdown = path.extension().is_some_and(|x| x == "md");
        for t in targets(&text, markdown) {
            let (file, frag) = t.split_once('#').map_or((t.as_str(), None), |(f, a)| (f, Some(a)));
            let target = match file.strip_prefix('/') {
                Some(from_root) => root.join(from_root),
                None if file.is_empty() => path.clone(),
                None => path.parent().unwrap().join(file),
            };
            checked += 1;
            let shown = path.strip_prefix(root).unwrap_or(&path).display().to_string();
            if !target.exists() {
                broken.push(format!("{shown}: {t}: no such file"));
            } else if let Some(a) = frag {
                let page = std::fs::read_to_string(&target).unwrap_or_default();
                if !anchors(&page).contains(a) {
                    broken.push(format!("{shown}: {t}: no heading with that anchor"));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} links found: the scan is broken");
    assert!(broken.is_empty(), "broken links:\n  {}", broken.join("\n  "));
}
