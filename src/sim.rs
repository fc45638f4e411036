//! The simulation loop: settle with the gate closed, open the gate, discharge;
//! a diagnostics row and a frame every `every` steps. The only loop; the
//! stepping itself is delegated to a [`Backend`].

use std::time::Instant;

use crate::analysis::fit_flow_rate;
use crate::cpu::CpuStepper;
use crate::cpu::grid::Grid;
use crate::cpu::reduce::{Region, Totals, reduce};
use crate::error::{Error, Result};
use crate::model::{Body, Grains, SolverKind, StepParams, StepStats, Walls};
use crate::output::{ResultDir, Row, Summary};
use crate::scene::{BackendChoice, Setup};

/// Something that advances the grains: the CPU reference or the GPU.
pub trait Backend {
    /// "cpu" or "gpu".
    fn name(&self) -> &'static str;
    /// The device that runs the steps.
    fn adapter(&self) -> String;
    fn step(&mut self, p: &StepParams) -> Result<StepStats>;
    /// Replace the walls (the gate opens); forgets warm-start impulses.
    fn set_walls(&mut self, walls: &Walls);
    /// The grains as they are now (read back from the device if needed).
    fn grains(&mut self) -> Result<&Grains>;
    /// One diagnostics reduction.
    fn totals(&mut self, region: &Region) -> Result<Totals>;
}

/// The CPU reference as a backend.
pub struct CpuBackend {
    pub grains: Grains,
    pub walls: Walls,
    pub stepper: CpuStepper,
}

impl CpuBackend {
    pub fn new(grains: Grains, walls: Walls, grid: Grid, capacity: usize) -> Self {
        CpuBackend {
            grains,
            walls,
            stepper: CpuStepper::new(grid, capacity),
        }
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }
    fn adapter(&self) -> String {
        format!("CPU ({} threads)", rayon::current_num_threads())
    }
    fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        self.stepper.step(&mut self.grains, &self.walls, p)
    }
    fn set_walls(&mut self, walls: &Walls) {
        self.walls = walls.clone();
        self.stepper.reset_warm_start();
    }
    fn grains(&mut self) -> Result<&Grains> {
        Ok(&self.grains)
    }
    fn totals(&mut self, region: &Region) -> Result<Totals> {
        Ok(reduce(&self.grains, self.stepper.contacts(), &self.walls, region))
    }
}

/// The grid every backend bins into: covers the walls and the initial grains,
/// cells of side 2 r_max + alert.
pub fn grid_for(setup: &Setup) -> Result<Grid> {
    let walls = setup.walls(true);
    let mut bb = walls.bounding_box();
    for p in &setup.grains.pos {
        bb = [bb[0].min(p[0]), bb[1].min(p[1]), bb[2].max(p[0]), bb[3].max(p[1])];
    }
    Grid::covering(bb, 2.0 * setup.grains.max_radius() + setup.params.alert)
}

/// Reject explicit grain lists whose grains overlap or start outside the walls' box.
pub fn check_initial_state(setup: &Setup, grid: &Grid) -> Result<()> {
    let mut stepper = CpuStepper::new(*grid, 64);
    let walls = setup.walls(true);
    let lists = stepper.detect(&setup.grains, &walls, 0.0);
    let tol = 1e-9f32;
    let bb = walls.bounding_box();
    for (i, p) in setup.grains.pos.iter().enumerate() {
        if !(p[0] >= bb[0] && p[0] <= bb[2] && p[1] >= bb[1] && p[1] <= bb[3]) {
            return Err(Error::field(
                &setup.scene.origin,
                &format!("grains.list[{i}]"),
                format!("starts at ({}, {}), outside the walls' bounding box", p[0], p[1]),
            ));
        }
    }
    for i in 0..setup.grains.len() {
        if let Some(c) = lists.of(i).iter().find(|c| c.gap < -tol) {
            let with = match c.body() {
                Body::Grain(j) => format!("grain {j}"),
                Body::Segment(k) => format!("wall segment {k}"),
                Body::Corner(k) => format!("wall corner {k}"),
            };
            return Err(Error::field(
                &setup.scene.origin,
                &format!("grains.list[{i}]"),
                format!("overlaps {with} by {:.3e} m at the start", -c.gap),
            ));
        }
    }
    Ok(())
}

/// How a run is driven from outside (the CLI).
pub struct RunOptions {
    /// Print nothing but errors.
    pub quiet: bool,
    /// Show a progress bar (on a terminal).
    pub progress: bool,
}

/// Counters over the whole run.
#[derive(Debug, Default)]
struct Tally {
    steps: u64,
    iterations: u64,
    itmax_steps: u64,
    overflow: u64,
    alert_steps: u64,
    max_overlap: f64,
    since_row_iterations: u64,
    since_row_steps: u64,
    last: StepStats,
}

/// Pick the backend for `choice`.
pub fn make_backend(
    setup: &Setup,
    grid: Grid,
    choice: BackendChoice,
    notices: &mut Vec<String>,
) -> Result<Box<dyn Backend>> {
    let cpu = || -> Box<dyn Backend> {
        Box::new(CpuBackend::new(
            setup.grains.clone(),
            setup.walls(true),
            grid,
            setup.scene.solver.contact_capacity as usize,
        ))
    };
    use crate::gpu::{AdapterChoice, GpuBackend, GpuContext};
    let gpu = |ctx: GpuContext| -> Result<Box<dyn Backend>> {
        Ok(Box::new(GpuBackend::new(
            ctx,
            setup.grains.clone(),
            setup.walls(true),
            grid,
            setup.scene.solver.contact_capacity as usize,
        )?))
    };
    match choice {
        BackendChoice::Cpu => Ok(cpu()),
        BackendChoice::Auto if setup.params.solver != SolverKind::Jacobi => {
            notices.push(format!(
                "backend auto: solver `{}` runs only on the CPU; running on the CPU",
                setup.params.solver.name()
            ));
            Ok(cpu())
        }
        BackendChoice::Auto => match GpuContext::new(AdapterChoice::Auto)? {
            Some(ctx) => {
                notices.push(format!("backend auto: running on the GPU ({})", ctx.adapter_name()));
                gpu(ctx)
            }
            None => {
                notices.push("backend auto: no GPU adapter found; running on the CPU".to_string());
                Ok(cpu())
            }
        },
        BackendChoice::Gpu => match GpuContext::new(AdapterChoice::Any)? {
            Some(ctx) => gpu(ctx),
            None => Err(Error::Gpu("no GPU adapter found".to_string())),
        },
    }
}

/// Run a whole simulation into a result directory and return its summary.
pub fn run(setup: &Setup, backend: &mut dyn Backend, out: &mut ResultDir, opts: &RunOptions) -> Result<Summary> {
    let p = setup.params;
    if !p.solver.implemented() {
        return Err(Error::NotImplemented {
            what: format!("solver `{}`", p.solver.name()),
        });
    }
    let scene = &setup.scene;
    let every = scene.run.every;
    let dt = f64::from(p.dt);
    let settle_max = if setup.gate.is_empty() {
        0
    } else {
        (scene.run.settle / dt).round() as u64
    };
    let discharge = match (scene.run.steps, scene.run.duration) {
        (Some(n), _) => n,
        (None, Some(d)) => (d / dt).round() as u64,
        (None, None) => (crate::scene::DEFAULT_DURATION / dt).round() as u64,
    };
    let open_walls = setup.walls(false);
    let region = Region {
        gravity: p.gravity,
        neck_y: setup.neck_y as f32,
        bbox: setup.walls(true).bounding_box(),
    };
    let n = setup.grains.len() as u64;
    let bar = progress_bar(opts, settle_max + discharge);
    let say = |msg: String| {
        if !opts.quiet {
            match &bar {
                Some(b) => b.println(msg),
                None => eprintln!("{msg}"),
            }
        }
    };

    let mut tally = Tally::default();
    let mut times = Vec::new();
    let mut passed = Vec::new();
    let start = Instant::now();
    let mut settling = settle_max > 0;
    let mut settle_steps = 0u64;
    let mut discharge_start = 0.0;
    let mut discharge_steps = 0u64;
    if !settling {
        backend.set_walls(&open_walls);
    }
    out.walls(&open_walls)?;
    let mut last_totals = write_output(backend, out, &region, &mut tally, 0, 0.0, n, &mut times, &mut passed)?;

    while discharge_steps < discharge {
        let stats = backend.step(&p)?;
        tally.steps += 1;
        tally.iterations += u64::from(stats.iterations);
        tally.since_row_iterations += u64::from(stats.iterations);
        tally.since_row_steps += 1;
        tally.overflow += stats.overflow;
        if !stats.converged {
            tally.itmax_steps += 1;
            if tally.itmax_steps == 1 {
                say(format!(
                    "warning: step {}: solver hit itmax = {} (residual {:.3e} m/s); such steps are counted in summary.json",
                    tally.steps, p.itmax, stats.residual
                ));
            }
        }
        if stats.overflow > 0 && tally.overflow == stats.overflow {
            say(format!(
                "warning: step {}: {} contacts did not fit in the per-grain lists (capacity {}); raise solver.contact_capacity",
                tally.steps, stats.overflow, scene.solver.contact_capacity
            ));
        }
        if stats.max_displacement > p.alert {
            tally.alert_steps += 1;
            if tally.alert_steps == 1 {
                say(format!(
                    "warning: step {}: a grain moved {:.3e} m, more than the alert distance {:.3e} m; contacts can be missed (lower dt or raise alert)",
                    tally.steps, stats.max_displacement, p.alert
                ));
            }
        }
        tally.last = stats;
        if settling {
            settle_steps += 1;
        } else {
            discharge_steps += 1;
        }
        let time = tally.steps as f64 * dt;
        if tally.steps % every == 0 {
            let step = tally.steps;
            last_totals = write_output(
                backend,
                out,
                &region,
                &mut tally,
                step,
                time,
                n,
                &mut times,
                &mut passed,
            )?;
            if let Some(b) = &bar {
                b.set_message(format!(
                    "{} passed {}/{}",
                    if settling { "settling" } else { "discharge" },
                    last_totals.passed,
                    n
                ));
            }
        }
        if settling
            && (settle_steps >= settle_max
                || (tally.steps % every == 0 && last_totals.max_speed < scene.run.settle_speed))
        {
            settling = false;
            discharge_start = time;
            backend.set_walls(&open_walls);
            say(format!(
                "gate opened at t = {time:.3} s after {settle_steps} settle steps"
            ));
            if let Some(b) = &bar {
                b.set_length(settle_steps + discharge);
            }
        }
        if let Some(b) = &bar {
            b.set_position(tally.steps);
        }
    }
    if tally.steps % every != 0 {
        let step = tally.steps;
        let time = step as f64 * dt;
        last_totals = write_output(
            backend,
            out,
            &region,
            &mut tally,
            step,
            time,
            n,
            &mut times,
            &mut passed,
        )?;
    }
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let wall = start.elapsed().as_secs_f64();
    let fit = fit_flow_rate(&times, &passed);
    let summary = Summary {
        grains: n,
        steps: tally.steps,
        settle_steps,
        sim_time: tally.steps as f64 * dt,
        discharge_start,
        wall_seconds: wall,
        steps_per_second: tally.steps as f64 / wall.max(1e-9),
        grain_steps_per_second: (tally.steps * n) as f64 / wall.max(1e-9),
        backend: backend.name().to_string(),
        adapter: backend.adapter(),
        solver: p.solver.name().to_string(),
        mean_iterations: tally.iterations as f64 / tally.steps.max(1) as f64,
        itmax_steps: tally.itmax_steps,
        contact_overflow: tally.overflow,
        alert_exceeded_steps: tally.alert_steps,
        lost_grains: last_totals.lost,
        passed: last_totals.passed,
        flow_rate: fit.map(|f| f.rate),
        flow_fit_window: fit.map(|f| f.window),
        max_overlap: tally.max_overlap,
        frames: out.frame_count() as u64,
    };
    Ok(summary)
}

#[allow(clippy::too_many_arguments)]
fn write_output(
    backend: &mut dyn Backend,
    out: &mut ResultDir,
    region: &Region,
    tally: &mut Tally,
    step: u64,
    time: f64,
    n: u64,
    times: &mut Vec<f64>,
    passed: &mut Vec<u64>,
) -> Result<Totals> {
    let t = backend.totals(region)?;
    if !(t.kinetic_energy.is_finite() && t.potential_energy.is_finite()) {
        return Err(Error::Diverged {
            step,
            problem: "non-finite energy: the state has blown up (lower dt)".to_string(),
        });
    }
    tally.max_overlap = tally.max_overlap.max(t.max_overlap);
    let row = Row {
        step,
        time,
        grains: n,
        passed: t.passed,
        kinetic_energy: t.kinetic_energy,
        potential_energy: t.potential_energy,
        momentum: t.momentum,
        contacts: tally.last.contacts,
        iterations: tally.since_row_iterations as f64 / tally.since_row_steps.max(1) as f64,
        residual: f64::from(tally.last.residual),
        max_overlap: t.max_overlap,
    };
    tally.since_row_iterations = 0;
    tally.since_row_steps = 0;
    out.row(&row)?;
    out.frame(time, backend.grains()?)?;
    times.push(time);
    passed.push(t.passed);
    Ok(t)
}

fn progress_bar(opts: &RunOptions, len: u64) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if opts.quiet || !opts.progress || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} steps {per_sec} eta {eta} {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    Some(bar)
}
