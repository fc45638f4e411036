//! A settled 2,000-grain pile under each NSCD solver: the bundled
//! hourglass's fill behind its closed gate, settled under NLGS, then stepped
//! under each solver from that state with the scene's default settings.
//! Prints the grains' rms speed one second after the switch, its largest
//! value over the following ten seconds, the mean iterations per step and
//! the largest overlap (docs/solvers.md, "Rest"), after a trace of the
//! settle: each second's largest rms speed and its fastest grain, and the
//! settled fill's loaded contacts (those carrying an impulse) per grain.
//! With WATCH_S = 0 it stops after the settle. With `REST_STATE=FILE` the
//! settled state (grains and the last step's contacts with their impulses,
//! the warm start) is written to FILE after the settle, or read from it
//! instead of settling when FILE exists (made by the same SETTLE_S and
//! settings): the settle of 120 s takes about 25 minutes on one core.
//!
//! ```sh
//! [REST_TOL=M] [REST_MU=MU] [REST_STATE=FILE] cargo run --release --example rest_pile -- [SETTLE_S] [WATCH_S] [SOLVER...]
//! ```

use clap::ValueEnum;
use hourglass::backend::Backend;
use hourglass::backend::cpu::CpuBackend;
use hourglass::backend::grid_for;
use hourglass::model::{Body, Contact, ContactLists, Grains, SolverKind};
use hourglass::scene::{Scene, Setup, build};

/// The bundled scene under `solver`; `REST_TOL` (m) fixes the tolerance
/// and `REST_MU` sets the friction of grains and walls, for experiments.
fn setup(solver: SolverKind) -> Setup {
    let mut scene = Scene::default();
    scene.solver.kind = solver;
    if let Ok(tol) = std::env::var("REST_TOL") {
        scene.solver.tol = Some(tol.parse().expect("REST_TOL, m"));
    }
    if let Ok(mu) = std::env::var("REST_MU") {
        scene.solver.mu = mu.parse().expect("REST_MU");
        scene.solver.mu_wall = scene.solver.mu;
    }
    build(&scene).expect("the bundled scene builds")
}

fn rms_speed(g: &Grains) -> f64 {
    let s: f64 = g.vel.iter().map(|v| f64::from(v[0] * v[0] + v[1] * v[1])).sum();
    (s / g.len() as f64).sqrt()
}

/// The fastest grain at time `t`: its speed, place, and depth below the highest grain.
fn fastest(g: &Grains, t: f64) -> String {
    let speed = |i: usize| f64::from(g.vel[i][0].hypot(g.vel[i][1]));
    let i = (0..g.len()).max_by(|&a, &b| speed(a).total_cmp(&speed(b))).unwrap_or(0);
    let top = g.pos.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
    let faster = (0..g.len()).filter(|&k| speed(k) > 1e-3).count();
    format!(
        "t = {t:.3} s, fastest grain (id {}) at {:.2e} m/s at ({:.4}, {:.4}) m, {:.1} mm below the top grain; {faster} grains faster than 1 mm/s",
        g.id[i],
        speed(i),
        g.pos[i][0],
        g.pos[i][1],
        (top - g.pos[i][1]) * 1e3
    )
}

/// The contacts that carry an impulse, counted once, and the grains they
/// hold: frictionless disks are isostatic at 2 such contacts a grain (one
/// per degree of freedom), and a packing at that count is only marginally
/// rigid.
fn loaded(lists: &ContactLists) -> String {
    let mut held = vec![false; lists.grains()];
    let mut contacts = 0usize;
    for (i, this) in held.iter_mut().enumerate() {
        for c in lists.of(i).iter().filter(|c| c.impulse > 0.0) {
            *this = true;
            match c.body() {
                Body::Grain(j) if (j as usize) < i => {}
                _ => contacts += 1,
            }
        }
    }
    let grains = held.iter().filter(|&&h| h).count();
    format!(
        "{contacts} loaded contacts on {grains} grains, {:.3} a grain",
        contacts as f64 / grains.max(1) as f64
    )
}

/// The settled state as `REST_STATE` keeps it: the settle's length and
/// settings, the grains, and the contact lists with each contact's words
/// bit for bit.
#[derive(serde::Serialize, serde::Deserialize)]
struct Settled {
    settle_s: f64,
    tol: Option<String>,
    mu: Option<String>,
    grains: Grains,
    capacity: usize,
    count: Vec<u32>,
    words: Vec<u32>,
}

impl Settled {
    fn of(settle_s: f64, b: &CpuBackend) -> Self {
        let lists = b.stepper.contacts();
        Settled {
            settle_s,
            tol: std::env::var("REST_TOL").ok(),
            mu: std::env::var("REST_MU").ok(),
            grains: b.grains.clone(),
            capacity: lists.capacity,
            count: lists.count.clone(),
            words: bytemuck::cast_slice(&lists.slots).to_vec(),
        }
    }

    /// Read FILE, refusing a state settled otherwise than this run asks.
    fn read(path: &str, settle_s: f64) -> Self {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("REST_STATE {path}: {e}"));
        let s: Settled = serde_json::from_str(&text).unwrap_or_else(|e| panic!("REST_STATE {path}: {e}"));
        let asked = (settle_s, std::env::var("REST_TOL").ok(), std::env::var("REST_MU").ok());
        assert!(
            (s.settle_s, s.tol.clone(), s.mu.clone()) == asked,
            "REST_STATE {path}: settled {} s with REST_TOL {:?}, REST_MU {:?}; this run asks {asked:?}",
            s.settle_s,
            s.tol,
            s.mu
        );
        s
    }

    fn restore(self, b: &mut CpuBackend) {
        b.grains = self.grains;
        let slots: Vec<Contact> = bytemuck::pod_collect_to_vec(&self.words);
        b.stepper.restore_contacts(ContactLists {
            capacity: self.capacity,
            count: self.count,
            slots,
        });
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let settle: f64 = args.first().map_or(3.0, |a| a.parse().expect("SETTLE_S, seconds"));
    let watch: f64 = args.get(1).map_or(11.0, |a| a.parse().expect("WATCH_S, seconds"));
    let solvers: Vec<SolverKind> = if args.len() > 2 {
        args[2..]
            .iter()
            .map(|a| SolverKind::from_str(a, true).expect("a solver name"))
            .collect()
    } else {
        vec![
            SolverKind::Nlgs,
            SolverKind::Jacobi,
            SolverKind::Colored,
            SolverKind::Apgd,
            SolverKind::Uzawa,
        ]
    };
    let base = setup(SolverKind::Nlgs);
    let walls = base.walls(true).clone();
    let grid = grid_for(&base).expect("a grid");
    let cap = base.scene.solver.contact_capacity as usize;
    let mut settled = CpuBackend::new(base.grains.clone(), walls.clone(), grid, cap);
    let dt = f64::from(base.params.dt);
    let one = (1.0 / dt).round() as u64;
    let mut peak = (0.0f64, String::new());
    let state = std::env::var("REST_STATE").ok();
    let saved = state.as_deref().filter(|p| std::path::Path::new(p).exists());
    let settle_steps = if saved.is_some() {
        0
    } else {
        (settle / dt).round() as u64
    };
    if let Some(path) = saved {
        Settled::read(path, settle).restore(&mut settled);
        println!("settled state read from {path}");
    }
    for step in 1..=settle_steps {
        settled.step(&base.params).expect("a settle step");
        let v = rms_speed(settled.grains().unwrap());
        if v > peak.0 {
            peak = (v, fastest(settled.grains().unwrap(), step as f64 * dt));
        }
        // The settle's trace: each second's largest rms speed, to show when
        // the fill's rearrangements end.
        if step % one == 0 {
            println!(
                "  settle {:>4.0} s: rms at most {:.2e} m/s; {}",
                step as f64 * dt,
                peak.0,
                peak.1
            );
            peak = (0.0, String::new());
        }
    }
    println!(
        "{} grains settled {settle} s under nlgs: rms speed {:.2e} m/s; {}",
        base.grains.len(),
        rms_speed(settled.grains().unwrap()),
        loaded(settled.stepper.contacts())
    );
    if let Some(path) = state.as_deref().filter(|_| saved.is_none()) {
        let text = serde_json::to_string(&Settled::of(settle, &settled)).expect("the state serialises");
        std::fs::write(path, text).unwrap_or_else(|e| panic!("REST_STATE {path}: {e}"));
        println!("settled state written to {path}");
    }
    // WATCH_S = 0: the settle alone.
    if watch <= 0.0 {
        return;
    }
    for solver in solvers {
        let s = setup(solver);
        let mut b = CpuBackend::new(settled.grains.clone(), walls.clone(), grid, cap);
        b.stepper = settled.stepper.clone();
        let (mut at_1s, mut worst, mut overlap, mut iterations) = (0.0, 0.0f64, 0.0f32, 0u64);
        let mut slip = String::new();
        let mut second = 0.0f64;
        let steps = (watch / dt).round() as u64;
        let t0 = std::time::Instant::now();
        for step in 1..=steps {
            let st = b.step(&s.params).expect("a step");
            iterations += u64::from(st.iterations);
            let v = rms_speed(b.grains().unwrap());
            if step == one {
                at_1s = v;
            }
            if step >= one && v > worst {
                worst = v;
                slip = fastest(b.grains().unwrap(), step as f64 * dt);
            }
            if step >= one {
                overlap = overlap.max(st.max_overlap);
            }
            second = second.max(v);
            if step % one == 0 {
                println!(
                    "  {:>8} {:>4.0} s: rms at most {second:.2e} m/s",
                    solver.name(),
                    step as f64 * dt
                );
                second = 0.0;
            }
        }
        println!(
            "{:>8}: rms {at_1s:.2e} m/s at 1 s, at most {worst:.2e} over 1-{watch} s; {:.1} iterations/step; largest overlap {:.2e} m; {:.0} s wall",
            solver.name(),
            iterations as f64 / steps as f64,
            overlap,
            t0.elapsed().as_secs_f64()
        );
        println!("          the largest rms: {slip}");
    }
}
