//! `hourglass sweep`: every point of a sweep file on local worker processes
//! (this binary, `--point ID`), one result directory per point and
//! `results.csv` (src/sweep).

use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use hourglass::sweep::{Outcome, Sweep, SweepDir};
use hourglass::{Error, Result};

#[derive(clap::Args)]
pub struct SweepArgs {
    /// Sweep file (TOML, docs/sweeps.md).
    pub sweep: PathBuf,
    /// Sweep directory: runs/<id>/ per point and results.csv. A directory
    /// that holds anything but an earlier run of this sweep is refused.
    #[arg(long, default_value = "sweep")]
    pub out: PathBuf,
    /// Runs at a time, each a process of its own (default: the cores).
    #[arg(long)]
    pub workers: Option<usize>,
    /// Threads of each run (default: the cores shared among the workers, at
    /// least 1; RAYON_NUM_THREADS, when set, wins).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print nothing but errors (and the closing line when a run failed).
    #[arg(long, short)]
    pub quiet: bool,
    /// Run this one point into its directory (what each worker does).
    #[arg(long, hide = true)]
    pub point: Option<String>,
}

/// The sweep's exit status: 0 when every point ran, else the number of
/// failed runs (at most 100); 1 with one line when the sweep cannot start.
pub fn main(args: SweepArgs) -> ExitCode {
    match run(args) {
        Ok(failed) => ExitCode::from(failed.min(100) as u8),
        Err(e) => {
            eprintln!("hourglass: {}", e.to_string().replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}

/// Most worker processes, and most threads per run, a sweep starts.
const MAX_PROCESSES: usize = 1024;

fn flag(field: &str, problem: String) -> Error {
    Error::InvalidField {
        origin: "command line".into(),
        field: field.into(),
        problem,
    }
}

/// The number of failed runs.
fn run(args: SweepArgs) -> Result<usize> {
    if let Some(id) = &args.point {
        // A worker: the parent checked the whole sweep and claimed the directory.
        if !args.out.join(hourglass::sweep::MARK).is_file() {
            return Err(flag(
                "--point",
                format!("{} is not a sweep directory", args.out.display()),
            ));
        }
        let point = Sweep::load_point(&args.sweep, id)?;
        hourglass::sweep::run_point(&point, &hourglass::sweep::run_dir_in(&args.out, id))?;
        return Ok(0);
    }
    let sweep = Sweep::load(&args.sweep)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = match args.workers {
        Some(n) if !(1..=MAX_PROCESSES).contains(&n) => {
            return Err(flag("--workers", format!("must be 1 to {MAX_PROCESSES}, got {n}")));
        }
        Some(n) => n,
        None => cores,
    };
    let threads = match args.threads {
        Some(n) if !(1..=MAX_PROCESSES).contains(&n) => {
            return Err(flag("--threads", format!("must be 1 to {MAX_PROCESSES}, got {n}")));
        }
        Some(n) => n,
        None => (cores / workers).max(1),
    };
    let dir = SweepDir::claim(&args.out, &sweep)?;
    let mut outcomes = dir.outcomes(&sweep)?;
    let skipped = outcomes.iter().filter(|o| matches!(o, Outcome::Done(_))).count();
    dir.write_table(&sweep, &outcomes)?;
    let todo: Vec<usize> = (0..outcomes.len())
        .filter(|&i| matches!(outcomes[i], Outcome::Pending))
        .collect();
    let say = |m: &str| {
        if !args.quiet {
            eprintln!("{m}");
        }
    };
    say(&format!(
        "hourglass: sweep of {} points ({} finished before, {} to run) on {} workers of {} threads, writing {}",
        sweep.points.len(),
        skipped,
        todo.len(),
        workers.min(todo.len().max(1)),
        threads,
        dir.path().display()
    ));
    let exe = std::env::current_exe().map_err(|e| Error::Output {
        path: PathBuf::from("hourglass"),
        source: e,
    })?;
    let mut bar = Bar::new(args.quiet, todo.len());
    let mut queue = todo.into_iter();
    let mut running: Vec<(usize, Child)> = Vec::new();
    let mut failed = 0;
    let start = Instant::now();
    loop {
        while running.len() < workers {
            let Some(i) = queue.next() else { break };
            let id = &sweep.points[i].id;
            let mut cmd = Command::new(&exe);
            cmd.arg("sweep")
                .arg(&args.sweep)
                .arg("--out")
                .arg(&args.out)
                .arg("--point")
                .arg(id)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped());
            if std::env::var_os("RAYON_NUM_THREADS").is_none() {
                cmd.env("RAYON_NUM_THREADS", threads.to_string());
            }
            let child = cmd.spawn().map_err(|e| Error::Output {
                path: exe.clone(),
                source: e,
            })?;
            outcomes[i] = Outcome::Running;
            running.push((i, child));
        }
        if running.is_empty() {
            break;
        }
        let mut changed = false;
        let mut k = 0;
        while k < running.len() {
            let status = running[k].1.try_wait().map_err(|e| Error::Output {
                path: exe.clone(),
                source: e,
            })?;
            let Some(status) = status else {
                k += 1;
                continue;
            };
            let (i, mut child) = running.swap_remove(k);
            let point = &sweep.points[i];
            outcomes[i] = if status.success() {
                match hourglass::output::read::summary(&dir.run_dir(&point.id)) {
                    Ok(s) => Outcome::Done(Box::new(s)),
                    Err(e) => Outcome::Failed(e.to_string()),
                }
            } else {
                Outcome::Failed(last_line(&mut child, status))
            };
            if let Outcome::Failed(e) = &outcomes[i] {
                failed += 1;
                bar.println(&format!("point {} failed: {e}", point.id));
            }
            bar.finished(matches!(outcomes[i], Outcome::Failed(_)), running.len(), start);
            changed = true;
        }
        if changed {
            dir.write_table(&sweep, &outcomes)?;
        }
        bar.tick(running.len(), start);
        std::thread::sleep(Duration::from_millis(50));
    }
    bar.clear();
    let table = dir.write_table(&sweep, &outcomes)?;
    if !args.quiet || failed > 0 {
        eprintln!(
            "sweep: {} of {} points done, {} failed, in {:.1} s; table {}",
            outcomes.iter().filter(|o| matches!(o, Outcome::Done(_))).count(),
            outcomes.len(),
            failed,
            start.elapsed().as_secs_f64(),
            table.display()
        );
    }
    Ok(failed)
}

/// A failed worker's error: the last line it printed, without the
/// `hourglass: ` prefix (or how it ended, when it printed nothing).
fn last_line(child: &mut Child, status: std::process::ExitStatus) -> String {
    use std::io::Read;
    let mut text = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut text);
    }
    match text.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(l) => l.trim().trim_start_matches("hourglass: ").to_string(),
        None => format!("the worker ended with {status}"),
    }
}

/// The progress bar (points done, failed, running, time left) on a
/// terminal; a line per finished point otherwise.
struct Bar {
    quiet: bool,
    total: usize,
    done: usize,
    failed: usize,
    bar: Option<indicatif::ProgressBar>,
}

impl Bar {
    fn new(quiet: bool, total: usize) -> Bar {
        use std::io::IsTerminal;
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} points, {msg}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar
        });
        Bar {
            quiet,
            total,
            done: 0,
            failed: 0,
            bar,
        }
    }

    /// "F failed, R running, eta Ts": the time left from the mean time a
    /// point has taken so far.
    fn message(&self, running: usize, start: Instant) -> String {
        let eta = if self.done > 0 {
            // Finished points per second of the sweep so far, workers and all.
            let per = start.elapsed().as_secs_f64() / self.done as f64;
            format!("{:.0} s", per * (self.total - self.done) as f64)
        } else {
            "?".to_string()
        };
        format!("{} failed, {} running, eta {eta}", self.failed, running)
    }

    fn finished(&mut self, failed: bool, running: usize, start: Instant) {
        self.done += 1;
        self.failed += usize::from(failed);
        match &self.bar {
            Some(b) => {
                b.set_position(self.done as u64);
                b.set_message(self.message(running, start));
            }
            None if !self.quiet => eprintln!(
                "sweep: {}/{} points, {}",
                self.done,
                self.total,
                self.message(running, start)
            ),
            None => {}
        }
    }

    fn tick(&self, running: usize, start: Instant) {
        if let Some(b) = &self.bar {
            b.set_message(self.message(running, start));
        }
    }

    fn println(&self, m: &str) {
        match &self.bar {
            Some(b) => b.println(m),
            None => eprintln!("{m}"),
        }
    }

    fn clear(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
