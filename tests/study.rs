//! `hourglass study` on a tiny pile: the table's contracts and the plot; and
//! the colour count in summary.json.

use std::process::Command;

use hourglass::app::study::{self, SettleConfig, StateSource, StudyConfig, report};
use hourglass::model::SolverKind;
use hourglass::scene::{Scene, build};

/// 100 grains in a box 0.1 m wide.
fn tiny_scene() -> Scene {
    let mut scene = Scene::default();
    let (w, h) = (0.1, 0.2);
    scene.walls.segments = Some(vec![[0.0, h, 0.0, 0.0], [0.0, 0.0, w, 0.0], [w, 0.0, w, h]]);
    scene.grains.count = 100;
    scene.grains.region = Some([0.0, 0.0, w, h]);
    scene
}

/// A brief settle of the tiny pile.
fn brief() -> SettleConfig {
    SettleConfig {
        min_steps: 30,
        max_steps: 60,
        ..SettleConfig::default()
    }
}

/// The tiny pile, settled briefly.
fn tiny_pile() -> study::Packed {
    let setup = build(&tiny_scene()).expect("tiny pile builds");
    study::settle("pile100", &setup, &brief()).expect("settles")
}

#[test]
fn a_saved_state_is_reused_only_for_the_same_scene_and_settle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (scene, cfg) = (tiny_scene(), brief());
    let settle = |scene: &Scene, cfg: &SettleConfig| {
        let mut calls = 0;
        let r = study::settle_cached("pile100", scene, cfg, dir.path(), &mut |_, _| calls += 1).expect("settles");
        (r, calls)
    };
    let ((first, src), _) = settle(&scene, &cfg);
    let file = dir.path().join("pile100.json");
    match &src {
        StateSource::Settled { saved, reason } => {
            assert_eq!(saved, &file);
            assert_eq!(reason, "no saved state");
        }
        other => panic!("first call must settle: {other:?}"),
    }
    assert_eq!(
        first.settle_steps, 60,
        "the pile keeps moving for the whole brief settle"
    );
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["pile100.json"], "the temporary file is renamed");
    // The same scene and configuration: loaded, bit for bit, with the same walls and settle record.
    let ((again, src), calls) = settle(&scene, &cfg);
    assert_eq!(src, StateSource::Loaded(file.clone()));
    assert_eq!(calls, 0, "a loaded state does not settle");
    assert_eq!(again.grains, first.grains);
    assert_eq!(again.walls.segments, first.walls.segments);
    assert_eq!(again.params, first.params);
    assert_eq!(again.settle_steps, first.settle_steps);
    // Another settle configuration or scene: settled again.
    let longer = SettleConfig {
        max_steps: 70,
        min_steps: 70,
        ..cfg
    };
    let ((other, src), _) = settle(&scene, &longer);
    assert!(
        matches!(&src, StateSource::Settled { reason, .. } if reason == "its settle configuration differs"),
        "{src:?}"
    );
    assert_eq!(other.settle_steps, 70);
    let mut wider = scene.clone();
    wider.grains.radius_mean *= 0.9;
    let (_, src) = settle(&wider, &longer).0;
    assert!(
        matches!(&src, StateSource::Settled { reason, .. } if reason == "its scene differs"),
        "{src:?}"
    );
    // A state whose grains are not the scene's fill (a changed fill code, say) is not used.
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
    let r0 = json["grains"]["radius"][0].as_f64().expect("a radius");
    json["grains"]["radius"][0] = serde_json::json!(r0 * 1.01);
    std::fs::write(&file, json.to_string()).expect("write");
    let ((_, src), _) = settle(&wider, &longer);
    assert!(
        matches!(&src, StateSource::Settled { reason, .. } if reason == "its grains differ from the scene's fill"),
        "{src:?}"
    );
    // A damaged file is settled again and replaced, never an error.
    std::fs::write(&file, "{ not json").expect("write");
    let ((_, src), _) = settle(&wider, &longer);
    assert!(
        matches!(&src, StateSource::Settled { reason, .. } if reason.starts_with("unreadable")),
        "{src:?}"
    );
    assert_eq!(settle(&wider, &longer).0.1, StateSource::Loaded(file));
}

#[test]
fn study_measures_only_the_solvers_asked_for() {
    let packed = tiny_pile();
    let cfg = StudyConfig {
        budget: 20,
        steps: 1,
        warmup: 1,
        gpu: false,
        omegas: vec![0.4, 0.5],
        solvers: vec![SolverKind::Uzawa, SolverKind::Jacobi],
        ..StudyConfig::default()
    };
    let res = study::study_state(&packed, &cfg, None, &mut |_| {}).expect("study runs");
    let got: Vec<String> = res.rows.iter().map(|r| r.variant.label()).collect();
    assert_eq!(
        got,
        ["jacobi 0.4", "jacobi 0.5", "uzawa"],
        "table order, the asked solvers only"
    );
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
    assert_eq!(want.len(), 1 + cfg.omegas.len() + 4);
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
    assert!(table.lines().skip(2).all(|l| l.matches('|').count() == 12), "{table}");
    for r in &res.rows {
        // The colouring is timed, and is a part of the step.
        let m = r.cpu.expect("CPU figures");
        let colored = r.variant.solver == SolverKind::Colored;
        assert_eq!(m.coloring_ms > 0.0, colored, "{}: {m:?}", r.variant.label());
        assert!(m.coloring_ms < m.ms_per_step, "{}: {m:?}", r.variant.label());
    }

    let threshold = packed.params.tol / packed.params.dt;
    let img = report::residual_plot("pile100", &res.histories, threshold, 320, 200);
    let dir = tempfile::tempdir().expect("tempdir");
    let written = report::write(dir.path(), &table, &img, None).expect("writes");
    let [md, png] = <[_; 2]>::try_from(written).expect("study.md and residuals.png only");
    assert_eq!(std::fs::read_to_string(md).expect("study.md"), table);
    let back = image::open(&png).expect("a PNG").to_rgba8();
    assert_eq!(back.dimensions(), (320, 200));
    let white = image::Rgba([255, 255, 255, 255]);
    let inked = back.pixels().filter(|p| **p != white).count();
    assert!(inked > 320 * 200 / 50, "the plot is nearly blank: {inked} pixels drawn");
    // The first series (NLGS) is drawn in its palette colour.
    assert!(back.pixels().any(|p| p.0 == hourglass::app::plot::BLUE), "no NLGS line");
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
    assert_eq!(v["lost_grains"], 0, "{solver}: grains lost");
    v["colors"].as_u64().expect("a colors field")
}

#[test]
fn summary_of_a_colored_run_counts_its_colours() {
    let colors = summary_colors("colored");
    // A pile needs several colours, and first fit never needs more than 2K - 1 = 63.
    assert!((2..=63).contains(&colors), "colors = {colors}");
    assert_eq!(summary_colors("nlgs"), 0, "a run that does not colour reports 0");
}
