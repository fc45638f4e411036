//! `hourglass bench --suite`: the table's contract (a header naming the
//! backend, adapter, date and commit, one row per solver and N with its
//! figures), the time budget, and `--out` (the file is stdout's table, an
//! existing file or link is refused without `--force` and never written
//! through).

mod gpu_common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Instant;

use tempfile::TempDir;

const COLUMNS: [&str; 11] = [
    "solver",
    "N",
    "steps",
    "steps/s",
    "grain-steps/s",
    "mean iterations",
    "max overlap % r",
    "contacts/grain",
    "buffers MB (est.)",
    "read-backs/step",
    "device wait %",
];
const SOLVERS: [&str; 4] = ["apgd", "jacobi", "colored", "dem"];

fn hourglass(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hourglass"));
    cmd.current_dir(dir).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the binary starts")
}

/// The cells of a Markdown table row, which starts and ends with `|`.
fn cells(line: &str) -> Vec<String> {
    let inner = line.strip_prefix('|').and_then(|l| l.strip_suffix(" |"));
    let inner = inner.unwrap_or_else(|| panic!("not a table row: {line}"));
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

/// The rows of the suite's table in `text`, checked against the contract:
/// one per solver at `n` grains, in the order of [`SOLVERS`]; returns them.
fn check_table(text: &str, n: u64, gpu: bool) -> Vec<Vec<String>> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("| solver |"))
        .unwrap_or_else(|| panic!("no table header in:\n{text}"));
    assert_eq!(cells(lines[at]), COLUMNS, "{}", lines[at]);
    assert_eq!(lines[at + 1], format!("|{}", "---|".repeat(COLUMNS.len())));
    let rows: Vec<Vec<String>> = lines[at + 2..]
        .iter()
        .take_while(|l| l.starts_with('|'))
        .map(|l| cells(l))
        .collect();
    let solvers: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(solvers, SOLVERS, "one row per solver:\n{text}");
    for row in &rows {
        assert_eq!(row.len(), COLUMNS.len(), "{row:?}");
        let num = |col: &str| -> f64 {
            let i = COLUMNS.iter().position(|c| *c == col).unwrap();
            let v: f64 = row[i]
                .parse()
                .unwrap_or_else(|e| panic!("{col} `{}`: {e} in {row:?}", row[i]));
            assert!(v.is_finite(), "{col} in {row:?}");
            v
        };
        assert_eq!(num("N"), n as f64, "{row:?}");
        let steps = num("steps");
        assert!(steps >= 1.0 && steps.fract() == 0.0, "{row:?}");
        let (sps, gsps) = (num("steps/s"), num("grain-steps/s"));
        assert!(sps > 0.0, "{row:?}");
        // Both from the same timing, steps/s rounded to 2 decimals and
        // grain-steps/s to 4 digits: at 0.46 steps/s the first alone is
        // up to 1.1 % off.
        let per_grain = gsps / n as f64;
        assert!((per_grain - sps).abs() <= 0.005 + 5e-4 * per_grain + 1e-9, "{row:?}");
        if row[0] == "dem" {
            assert_eq!(row[5], "-", "the DEM has no solver iterations: {row:?}");
        } else {
            assert!(num("mean iterations") > 0.0, "{row:?}");
        }
        let overlap = num("max overlap % r");
        assert!((0.0..100.0).contains(&overlap), "{row:?}");
        assert!(num("contacts/grain") > 0.0, "{row:?}");
        if gpu {
            assert!(num("buffers MB (est.)") > 0.0, "{row:?}");
            // The NSCD solve reads its residual back once per check; the
            // DEM its counters once per window of steps (tests/gpu_transfers.rs).
            let reads = num("read-backs/step");
            assert!(if row[0] == "dem" { reads >= 0.0 } else { reads >= 1.0 }, "{row:?}");
            // A share of the wall time; an NSCD row blocks on every check's
            // read. (The DEM's rare reads may find lavapipe done already.)
            let wait = num("device wait %");
            assert!((0.0..=100.0).contains(&wait), "{row:?}");
            assert!(row[0] == "dem" || wait > 0.0, "{row:?}");
        } else {
            assert_eq!(row[8], "n/a", "no GPU buffers on the CPU: {row:?}");
            assert_eq!(row[9], "n/a", "the CPU reads nothing back: {row:?}");
            assert_eq!(row[10], "n/a", "the CPU waits for no device: {row:?}");
        }
    }
    rows
}

/// `o` failed with one line, `hourglass: ...`, mentioning `what`, and printed no table.
fn assert_refused(o: &Output, what: &str, context: &str) {
    assert!(!o.status.success(), "{context}: succeeded");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{context}: {err}");
    assert!(err.starts_with("hourglass: ") && err.contains(what), "{context}: {err}");
    assert!(o.stdout.is_empty(), "{context}: printed a table");
}

fn today() -> String {
    let out = Command::new("date").args(["-u", "+%Y-%m-%d"]).output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn cpu_suite_prints_one_row_per_solver_and_writes_the_same_table() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("table.md");
    let out_s = out.to_str().unwrap();
    let mut args: Vec<&str> = "bench --suite --backend cpu --sizes 2000 --budget 30"
        .split(' ')
        .collect();
    args.extend(["--out", out_s]);
    let start = Instant::now();
    let o = hourglass(tmp.path(), &args, &[]);
    let secs = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8(o.stdout.clone()).unwrap();
    assert!(o.status.success(), "{}\n{stdout}", String::from_utf8_lossy(&o.stderr));
    check_table(&stdout, 2000, false);
    // The heading: the command line, backend, adapter, date and commit.
    assert!(stdout.contains(&format!("`hourglass {}`", args.join(" "))), "{stdout}");
    let first = stdout.lines().next().unwrap();
    assert!(first.contains("backend cpu"), "{first}");
    assert!(first.contains(&today()), "{first}");
    assert!(first.contains("commit "), "{first}");
    // The budget holds (measuring setup and first steps is the suite's own time).
    assert!(secs < 30.0 + 30.0, "{secs} s for a 30 s budget");
    // The file is stdout's table, byte for byte.
    assert_eq!(std::fs::read_to_string(&out).unwrap(), stdout);

    // A second run does not overwrite it, and says so before measuring anything.
    let before = std::fs::read(&out).unwrap();
    let again = hourglass(tmp.path(), &args, &[]);
    assert_refused(&again, "--out", "an existing --out");
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert_eq!(std::fs::read(&out).unwrap(), before);
}

#[cfg(unix)]
#[test]
fn a_link_at_out_is_refused_and_with_force_replaced_never_written_through() {
    let tmp = TempDir::new().unwrap();
    let mine = tmp.path().join("thesis.md");
    std::fs::write(&mine, "my thesis\n").unwrap();
    let link = tmp.path().join("table.md");
    std::os::unix::fs::symlink(&mine, &link).unwrap();
    let dangling = tmp.path().join("dangling.md");
    std::os::unix::fs::symlink(tmp.path().join("nowhere.md"), &dangling).unwrap();
    let run = |out: &Path, force: bool| {
        let mut args = vec![
            "bench",
            "--suite",
            "--backend",
            "cpu",
            "--sizes",
            "500",
            "--budget",
            "20",
        ];
        args.extend(["--out", out.to_str().unwrap()]);
        if force {
            args.push("--force");
        }
        hourglass(tmp.path(), &args, &[])
    };
    for out in [&link, &dangling] {
        assert_refused(&run(out, false), "--out", &out.display().to_string());
        assert!(std::fs::symlink_metadata(out).unwrap().file_type().is_symlink());
    }
    assert!(
        !tmp.path().join("nowhere.md").exists(),
        "a dangling link was written through"
    );
    let o = run(&link, true);
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "my thesis\n");
    assert!(!std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&link).unwrap(), stdout);
    check_table(&stdout, 500, false);
}

#[test]
fn bad_suite_flags_are_one_line_errors() {
    let tmp = TempDir::new().unwrap();
    let missing = tmp.path().join("no/such/dir/table.md");
    for (args, flag) in [
        (vec!["bench", "--suite", "--budget", "0"], "--budget"),
        (vec!["bench", "--suite", "--budget", "nan"], "--budget"),
        (vec!["bench", "--suite", "--sizes", "0"], "--sizes"),
        (vec!["bench", "--suite", "--backend", "cpu,gpu"], "--backend"),
        (vec!["bench", "--suite", "--solver", "jacobi"], "--solver"),
        (
            vec![
                "bench",
                "--suite",
                "--backend",
                "cpu",
                "--out",
                missing.to_str().unwrap(),
            ],
            "--out",
        ),
    ] {
        assert_refused(&hourglass(tmp.path(), &args, &[]), flag, &format!("{args:?}"));
    }
}

#[test]
fn the_suite_refuses_in_one_line_without_an_adapter() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("table.md");
    // No instance backend that exists on Linux: no adapter at all.
    let o = hourglass(
        tmp.path(),
        &["bench", "--suite", "--sizes", "500", "--out", out.to_str().unwrap()],
        &[("WGPU_BACKEND", "metal")],
    );
    assert_refused(&o, "no GPU adapter", "no adapter");
    assert!(!out.exists());
}

#[test]
fn gpu_suite_names_the_adapter_and_estimates_the_buffers() {
    let Some(ctx) = gpu_common::context() else { return };
    let tmp = TempDir::new().unwrap();
    let args: Vec<&str> = "bench --suite --backend gpu --sizes 2000 --budget 60"
        .split(' ')
        .collect();
    let o = hourglass(tmp.path(), &args, &[]);
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(o.status.success(), "{}\n{stdout}", String::from_utf8_lossy(&o.stderr));
    let first = stdout.lines().next().unwrap();
    assert!(
        first.contains("backend gpu") && first.contains(&ctx.adapter_name()),
        "{first}"
    );
    let rows = check_table(&stdout, 2000, true);
    // APGD and coloured NLGS hold per-slot buffers Jacobi does not.
    let mb = |i: usize| rows[i][8].parse::<f64>().unwrap();
    assert!(mb(0) > mb(1) && mb(2) > mb(1), "{rows:?}");
}

#[test]
fn rows_that_cannot_run_or_fit_are_listed_with_their_reason() {
    let tmp = TempDir::new().unwrap();
    let args: Vec<&str> = "bench --suite --backend cpu --sizes 2000,200000,30000000 --budget 8"
        .split(' ')
        .collect();
    let start = Instant::now();
    let o = hourglass(tmp.path(), &args, &[]);
    let secs = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(o.status.success(), "{}\n{stdout}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<Vec<String>> = stdout
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| solver |"))
        .map(cells)
        .collect();
    let skipped: Vec<&str> = stdout.lines().filter(|l| l.starts_with("- ")).collect();
    // Each (solver, N) is a row or a skipped line with its reason, never both
    // or neither. 2,000 grains always run, 30,000,000 never fit; whether
    // 200,000 fits the 8 s left depends on the machine's speed.
    for n in [2_000u64, 200_000, 30_000_000] {
        for solver in SOLVERS {
            let ran = rows.iter().any(|r| r[0] == solver && r[1] == n.to_string());
            let head = format!("- {solver} at {n} grains: ");
            let skip = skipped.iter().find(|l| l.starts_with(&head));
            assert!(
                ran != skip.is_some(),
                "{solver} at {n}: a row or a skip, once:\n{stdout}"
            );
            match n {
                2_000 => assert!(ran, "{solver} at 2000 must run:\n{stdout}"),
                30_000_000 => assert!(
                    skip.is_some_and(|l| l.contains("more than this build handles")),
                    "{stdout}"
                ),
                _ => assert!(ran || skip.is_some_and(|l| l.contains("predicted")), "{stdout}"),
            }
        }
    }
    assert_eq!(skipped.len() + rows.len(), 12, "{stdout}");
    // Every row run would take minutes: a bound with room for a loaded
    // machine still catches a budget that does not hold.
    assert!(secs < 8.0 + 30.0, "{secs} s for an 8 s budget");
}
