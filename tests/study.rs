//! `hourglass study` on a tiny pile: the table's contracts and the plot; and
//! the colour count in summary.json.

use std::process::Command;

use hourglass::model::SolverKind;
use hourglass::scene::{Scene, build};
use hourglass::study::{self, SettleConfig, StudyConfig, report};

/// 100 grains in a box 0.1 m wide, settled briefly.
fn tiny_pile() -> study::Packed {
    let mut scene = Scene::default();
    let (w, h) = (0.1, 0.2);
    scene.walls.segments = Some(vec![[0.0, h, 0.0, 0.0], [0.0, 0.0, w, 0.0], [w, 0.0, w, h]]);
    scene.grains.count = 100;
    scene.grains.region = Some([0.0, 0.0, w, h]);
    let setup = build(&scene).expect("tiny pile builds");
    let settle = SettleConfig {
        min_steps: 30,
        max_steps: 60,
        ..SettleConfig::default()
    };
    study::settle("pile100", &setup, &settle).expect("settles")
}

#[test]
fn study_of_a_tiny_pile_has_one_finite_row_per_solver_and_a_plot() {
    let packed = tiny_pile();
    assert_eq!(packed.grains.len(), 100);
    let cfg = StudyConfig {
        budget: 20,
        steps: 1,
        gpu: false,
        ..StudyConfig::default()
    };
    let res = study::study_state(&packed, &cfg, None, &mut |_| {}).expect("study runs");
    let want = study::variants(&cfg.omegas);
    assert_eq!(want.len(), 1 + cfg.omegas.len() + 3);
    let got: Vec<_> = res.rows.iter().map(|r| r.variant).collect();
    assert_eq!(got, want, "one row per (solver, omega), in table order");
    for r in &res.rows {
        let label = r.variant.label();
        assert_eq!(r.grains, 100);
        assert!(r.gpu.is_none(), "{label}: GPU not asked for");
        let m = r.cpu.unwrap_or_else(|| panic!("{label}: no CPU figures"));
        assert!(
            m.residual_budget.is_finite() && m.residual_budget >= 0.0,
            "{label}: {m:?}"
        );
        assert!(m.ms_per_step.is_finite() && m.ms_per_step > 0.0, "{label}: {m:?}");
        assert!(
            m.iterations.is_finite() && m.iterations <= f64::from(cfg.itmax),
            "{label}: {m:?}"
        );
        assert!(m.cold_iterations.is_none_or(|n| n <= cfg.itmax), "{label}: {m:?}");
        assert!(m.contacts > 0, "{label}: a settled pile has contacts");
        let colored = r.variant.solver == SolverKind::Colored;
        assert_eq!(m.colors > 0, colored, "{label}: colours {}", m.colors);
        if matches!(r.variant.solver, SolverKind::Nlgs | SolverKind::Colored) {
            assert!(m.cold_iterations.is_some(), "{label} must reach tol: {m:?}");
            assert_eq!(m.itmax_steps, 0, "{label} must reach tol when warm: {m:?}");
        }
        // The history is the cold step, one residual per iteration.
        let (v, h) = res
            .histories
            .iter()
            .find(|(v, _)| *v == r.variant)
            .expect("a history per CPU row");
        assert_eq!(*v, r.variant);
        assert_eq!(h.len() as u32, m.cold_iterations.unwrap_or(cfg.itmax), "{label}");
        let at = (cfg.budget as usize).min(h.len()) - 1;
        assert_eq!(h[at], m.residual_budget, "{label}: residual after the budget");
    }
    let table = report::markdown(&res.rows, cfg.steps);
    assert_eq!(table.lines().count(), 2 + res.rows.len());
    assert!(table.lines().skip(2).all(|l| l.matches('|').count() == 11), "{table}");

    let threshold = packed.params.tol / packed.params.dt;
    let img = report::residual_plot("pile100", &res.histories, threshold, 320, 200);
    let dir = tempfile::tempdir().expect("tempdir");
    let [md, png] = report::write(dir.path(), &table, &img).expect("writes");
    assert_eq!(std::fs::read_to_string(md).expect("study.md"), table);
    let back = image::open(&png).expect("a PNG").to_rgba8();
    assert_eq!(back.dimensions(), (320, 200));
    let white = image::Rgba([255, 255, 255, 255]);
    let inked = back.pixels().filter(|p| **p != white).count();
    assert!(inked > 320 * 200 / 50, "the plot is nearly blank: {inked} pixels drawn");
    // The first series (NLGS) is drawn in its palette colour.
    assert!(back.pixels().any(|p| p.0 == hourglass::plot::BLUE), "no NLGS line");
}

fn summary_colors(solver: &str) -> u64 {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("result");
    let o = Command::new(env!("CARGO_BIN_EXE_hourglass"))
        .current_dir(dir.path())
        .args(["run", "--grains", "100", "--backend", "cpu", "--solver", solver])
        .args(["--steps", "20", "--every", "10", "--quiet", "--out"])
        .arg(&out)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("summary.json")).expect("summary.json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    v["colors"].as_u64().expect("a colors field")
}

#[test]
fn summary_of_a_colored_run_counts_its_colours() {
    let colors = summary_colors("colored");
    // A pile needs several colours, and first fit never needs more than 2K - 1 = 63.
    assert!((2..=63).contains(&colors), "colors = {colors}");
    assert_eq!(summary_colors("nlgs"), 0, "a run that does not colour reports 0");
}
