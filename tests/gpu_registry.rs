//! The stage registry (src/gpu/registry.rs) against the WGSL, the CPU sources
//! and the tests: every compute entry point of shaders/ is declared once, with
//! the bindings naga sees it use (number, uniform or storage, read-only or
//! read-write, name), and every twin names a CPU function that exists and a
//! `#[test]` that exists. Needs no adapter: naga parses and validates the
//! full sources (prelude + shared structs + stage) on the host.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use hourglass::gpu::registry::{Binding, ENTRY_POINTS, Kind, NOT_STAGES, Twin};
use hourglass::gpu::{SOLID_STAGES, ShaderConfig, Stage};
use hourglass::model::Dim3;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Parse and validate `src`; the module and naga's analysis of it.
fn parse(what: &str, src: &str) -> (naga::Module, naga::valid::ModuleInfo) {
    let module = naga::front::wgsl::parse_str(src).unwrap_or_else(|e| panic!("{what}: {}", e.emit_to_string(src)));
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{what}: {}", e.emit_to_string(src)));
    (module, info)
}

fn compute_entries(module: &naga::Module) -> BTreeSet<String> {
    module
        .entry_points
        .iter()
        .filter(|e| e.stage == naga::ShaderStage::Compute)
        .map(|e| e.name.clone())
        .collect()
}

/// The group-0 bindings entry point `index` uses, by increasing number, as naga sees them.
fn used_bindings(module: &naga::Module, info: &naga::valid::ModuleInfo, index: usize) -> Vec<(u32, Kind, String)> {
    let uses = info.get_entry_point(index);
    let mut out: Vec<(u32, Kind, String)> = module
        .global_variables
        .iter()
        .filter(|(h, _)| !uses[*h].is_empty())
        .filter_map(|(_, g)| {
            let b = g.binding.as_ref()?;
            assert_eq!(b.group, 0, "{:?}: every stage binds group 0 only", g.name);
            let kind = match g.space {
                naga::AddressSpace::Uniform => Kind::Uniform,
                naga::AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE) => {
                    Kind::ReadWrite
                }
                naga::AddressSpace::Storage { .. } => Kind::ReadOnly,
                other => panic!("{:?}: unexpected address space {other:?}", g.name),
            };
            Some((b.binding, kind, g.name.clone().unwrap_or_default()))
        })
        .collect();
    out.sort_by_key(|b| b.0);
    out
}

fn declared(bindings: &[Binding]) -> Vec<(u32, Kind, String)> {
    bindings.iter().map(|b| (b.slot, b.kind, b.name.to_string())).collect()
}

#[test]
fn every_shader_file_is_a_stage_or_says_what_it_is() {
    let mut files: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("shaders"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|f| f.ends_with(".wgsl"))
        .collect();
    files.sort();
    let stages: BTreeSet<String> = Stage::ALL.iter().map(|s| format!("{}.wgsl", s.name())).collect();
    for f in &files {
        let other = NOT_STAGES.iter().find(|(name, _)| name == f);
        assert!(
            stages.contains(f) != other.is_some(),
            "shaders/{f}: must be a Stage (src/gpu/mod.rs) or listed in registry::NOT_STAGES, not both or neither"
        );
    }
    for (name, reason) in NOT_STAGES {
        assert!(
            files.contains(&name.to_string()),
            "registry::NOT_STAGES names a missing shaders/{name}"
        );
        assert!(!reason.is_empty(), "shaders/{name}: NOT_STAGES needs its reason");
    }
    // The render shader (with its generated prelude) really has no compute entry point.
    let (module, _) = parse("scene_render", &hourglass::render::renderer::wgsl());
    assert!(
        compute_entries(&module).is_empty(),
        "scene_render.wgsl has a compute entry point: register it"
    );
}

/// Every stage in the plane, and every stage written over the space
/// (`SOLID_STAGES`) in 3D too: (the stage's label, its config).
fn stage_sources() -> Vec<(Stage, String, ShaderConfig)> {
    let plane = Stage::ALL.map(|s| (s, s.name().to_string(), ShaderConfig::new(16)));
    let solid = SOLID_STAGES.map(|s| (s, format!("{} (3D)", s.name()), ShaderConfig::of::<Dim3>(16)));
    plane.into_iter().chain(solid).collect()
}

#[test]
fn registry_matches_the_wgsl_entry_points_and_bindings() {
    let mut errors = Vec::new();
    let mut checked = 0;
    for (stage, label, cfg) in stage_sources() {
        let (module, info) = parse(&label, &cfg.source(stage));
        let in_wgsl = compute_entries(&module);
        let registered: Vec<&str> = ENTRY_POINTS
            .iter()
            .filter(|e| e.stage == stage)
            .map(|e| e.entry)
            .collect();
        for entry in &registered {
            if !in_wgsl.contains(*entry) {
                errors.push(format!(
                    "{label}::{entry}: registered, but no such @compute fn in the WGSL"
                ));
            }
        }
        for (index, ep) in module.entry_points.iter().enumerate() {
            if ep.stage != naga::ShaderStage::Compute {
                continue;
            }
            let name = format!("{label}::{}", ep.name);
            match registered.iter().filter(|&&e| e == ep.name).count() {
                0 => {
                    errors.push(format!("{name}: @compute fn missing from the registry"));
                    continue;
                }
                1 => checked += usize::from(cfg.dim == 2),
                _ => errors.push(format!("{name}: registered more than once")),
            }
            let entry = hourglass::gpu::registry::find(stage, &ep.name).unwrap();
            if !entry.bindings.windows(2).all(|w| w[0].slot < w[1].slot) {
                errors.push(format!("{name}: bindings must be listed by increasing number"));
            }
            let (want, got) = (declared(entry.bindings), used_bindings(&module, &info, index));
            if want != got {
                errors.push(format!(
                    "{name}: bindings\n    registry: {want:?}\n    WGSL:     {got:?}"
                ));
            }
        }
    }
    assert!(errors.is_empty(), "registry vs WGSL:\n  {}", errors.join("\n  "));
    assert_eq!(
        checked,
        ENTRY_POINTS.len(),
        "every registry entry is a WGSL entry point"
    );
}

/// A stage file declares no binding of its own: the registry writes them all
/// (`registry::declarations`), so a binding's number, access and type cannot
/// be written twice and disagree.
#[test]
fn stage_files_leave_their_bindings_to_the_registry() {
    for stage in Stage::ALL {
        for (n, line) in stage.wgsl().lines().enumerate() {
            assert!(
                !line.contains("@binding("),
                "shaders/{}.wgsl:{}: declares a binding; declare it in gpu::registry",
                stage.name(),
                n + 1
            );
        }
        let declared = hourglass::gpu::registry::declarations(stage);
        let slots: Vec<u32> = hourglass::gpu::registry::entry_points(stage)
            .flat_map(|e| e.bindings.iter().map(|b| b.slot))
            .collect::<BTreeSet<u32>>()
            .into_iter()
            .collect();
        assert_eq!(
            declared.lines().count(),
            slots.len(),
            "{}: one declaration per binding number",
            stage.name()
        );
    }
}

/// A binding declared read-write is written by some entry point of its stage
/// (naga's analysis of the bodies), so the table's `ReadWrite` is not a typo
/// for `ReadOnly` that would cost the driver a needless barrier.
#[test]
fn every_read_write_binding_is_written_by_its_stage() {
    let mut unwritten = Vec::new();
    for (stage, label, cfg) in stage_sources() {
        let (module, info) = parse(&label, &cfg.source(stage));
        for (h, g) in module.global_variables.iter() {
            let Some(b) = &g.binding else { continue };
            let naga::AddressSpace::Storage { access } = g.space else {
                continue;
            };
            if !access.contains(naga::StorageAccess::STORE) {
                continue;
            }
            let written = (0..module.entry_points.len())
                .any(|i| info.get_entry_point(i)[h].contains(naga::valid::GlobalUse::WRITE));
            let atomic = matches!(
                &module.types[g.ty].inner,
                naga::TypeInner::Array { base, .. } if matches!(module.types[*base].inner, naga::TypeInner::Atomic(_))
            );
            if !written && !atomic {
                unwritten.push(format!("{label}: binding {} ({:?})", b.binding, g.name));
            }
        }
    }
    assert!(unwritten.is_empty(), "read_write but never written: {unwritten:?}");
}

fn tests_sources() -> Vec<(PathBuf, String)> {
    let mut out: Vec<(PathBuf, String)> = std::fs::read_dir(Path::new(ROOT).join("tests"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            let s = std::fs::read_to_string(&p).unwrap();
            (p, s)
        })
        .collect();
    out.sort();
    out
}

/// The source file under src/ of a `cpu::a::b[::Type]::name` path, and what is left of the path.
fn cpu_source(path: &str) -> Option<(PathBuf, Vec<&str>)> {
    let segs: Vec<&str> = path.split("::").collect();
    assert_eq!(segs.first(), Some(&"cpu"), "{path}: a twin lives under crate::cpu");
    // The longest module prefix that is a file (a.rs or a/mod.rs).
    (1..segs.len()).rev().find_map(|j| {
        let dir = Path::new(ROOT).join("src").join(segs[..j].join("/"));
        [dir.with_extension("rs"), dir.join("mod.rs")]
            .into_iter()
            .find(|f| f.is_file())
            .map(|f| (f, segs[j..].to_vec()))
    })
}

#[test]
fn every_twin_resolves_to_a_cpu_function_and_a_test() {
    let tests = tests_sources();
    let mut missing = Vec::new();
    println!("{:<16} {:<24} twin", "stage", "entry point");
    for e in ENTRY_POINTS {
        match e.twin {
            Twin::Present { cpu, test } => {
                println!("{:<16} {:<24} {cpu}  ({test})", e.stage.name(), e.entry);
                match cpu_source(cpu) {
                    Some((file, rest)) if (1..=2).contains(&rest.len()) => {
                        let src = std::fs::read_to_string(&file).unwrap();
                        let name = rest[rest.len() - 1];
                        let has_fn =
                            src.contains(&format!("pub fn {name}(")) || src.contains(&format!("pub fn {name}<"));
                        let has_impl = rest.len() == 1 || src.contains(&format!("impl {} {{", rest[0]));
                        if !(has_fn && has_impl) {
                            missing.push(format!("{}: {cpu} is not a pub fn in {}", e.name(), file.display()));
                        }
                    }
                    _ => missing.push(format!("{}: no source file for {cpu}", e.name())),
                }
                let pattern = format!("#[test]\nfn {test}()");
                if !tests.iter().any(|(_, s)| s.contains(&pattern)) {
                    missing.push(format!("{}: no #[test] fn {test}() in tests/*.rs", e.name()));
                }
            }
            Twin::None { reason } => {
                println!("{:<16} {:<24} none: {reason}", e.stage.name(), e.entry);
                if reason.trim().is_empty() {
                    missing.push(format!("{}: a missing twin needs its reason", e.name()));
                }
            }
        }
    }
    for (name, reason) in NOT_STAGES {
        println!("{name:<41} not a stage: {reason}");
    }
    assert!(missing.is_empty(), "registry twins:\n  {}", missing.join("\n  "));
}

/// The solver stages carry friction by one pipeline-overridable constant,
/// `override FRICTION: bool = false;` (set in the pipeline's constants), so
/// each has one entry point per pass and no frictional copy of it.
#[test]
fn solver_stages_choose_friction_by_a_pipeline_constant() {
    let cfg = ShaderConfig::new(16);
    for stage in [Stage::JacobiContact, Stage::JacobiGather, Stage::Apgd, Stage::Colored] {
        let (module, _) = parse(stage.name(), &cfg.source(stage));
        let friction = module
            .overrides
            .iter()
            .find(|(_, o)| o.name.as_deref() == Some(hourglass::gpu::FRICTION_CONSTANT));
        let Some((_, o)) = friction else {
            panic!("{}: no `override FRICTION`", stage.name());
        };
        let bool_ty =
            matches!(module.types[o.ty].inner, naga::TypeInner::Scalar(s) if s.kind == naga::ScalarKind::Bool);
        assert!(bool_ty, "{}: FRICTION is not a bool", stage.name());
        let copies: Vec<String> = compute_entries(&module)
            .into_iter()
            .filter(|e| e.contains("friction"))
            .collect();
        assert!(copies.is_empty(), "{}: frictional copies {copies:?}", stage.name());
    }
}

/// The body of `fn name` in `src` (from its opening brace to the matching
/// closing one), if `src` defines it.
fn fn_body<'s>(src: &'s str, name: &str) -> Option<&'s str> {
    let start = [format!("fn {name}("), format!("fn {name}<")]
        .iter()
        .filter_map(|sig| {
            src.match_indices(sig.as_str())
                .map(|(i, _)| i)
                .find(|&i| i == 0 || !is_ident(src.as_bytes()[i - 1]))
        })
        .min()?;
    let open = start + src[start..].find('{')?;
    let mut depth = 0usize;
    for (i, c) in src[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&src[open..=open + i]);
                }
            }
            _ => {}
        }
    }
    None
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The names `body` calls as `name(` or `name::<` (not after `.` when
/// `method` is false), with the byte before each call.
fn calls(body: &str) -> Vec<(&str, Option<u8>)> {
    let bytes = body.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if is_ident(bytes[i]) && (i == 0 || !is_ident(bytes[i - 1])) {
            let end = (i..bytes.len()).find(|&j| !is_ident(bytes[j])).unwrap_or(bytes.len());
            let rest = &body[end..];
            if rest.starts_with('(') || rest.starts_with("::<") {
                out.push((&body[i..end], i.checked_sub(1).map(|p| bytes[p])));
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// Whether `fn start`, or a function it calls (transitively) that `sources`
/// define (the first that does), calls `twin` (a method call `.twin(` counts
/// only when `method`).
fn calls_twin(sources: &[&str], start: &str, twin: &str, method: bool) -> bool {
    let mut seen = BTreeSet::new();
    let mut todo = vec![start.to_string()];
    while let Some(f) = todo.pop() {
        if !seen.insert(f.clone()) {
            continue;
        }
        let Some(body) = sources.iter().find_map(|src| fn_body(src, &f)) else {
            continue;
        };
        for (name, before) in calls(body) {
            if name == twin && (method || before != Some(b'.')) {
                return true;
            }
            todo.push(name.to_string());
        }
    }
    false
}

/// Each `<test>` the registry names feeds the CPU twin it names: the twin's
/// last path segment (`jacobi_contact` of `cpu::jacobi::jacobi_contact`) is
/// called in the test's body, or in a function of the test's file or of the
/// twin's own source file that the test reaches (`cpu::coloring::color_contacts`
/// runs `coloring_init`, `coloring_round` and `coloring_count`).
#[test]
fn every_twin_test_calls_its_cpu_twin() {
    let tests = tests_sources();
    let mut errors = Vec::new();
    for e in ENTRY_POINTS {
        let Twin::Present { cpu, test } = e.twin else { continue };
        let segs: Vec<&str> = cpu.split("::").collect();
        let twin = segs[segs.len() - 1];
        // `cpu::a::Type::method`: called as `Type::method(` or `value.method(`.
        let method = segs[segs.len() - 2].starts_with(|c: char| c.is_ascii_uppercase());
        let cpu_src = cpu_source(cpu).map(|(f, _)| std::fs::read_to_string(f).unwrap());
        let pattern = format!("#[test]\nfn {test}()");
        match tests.iter().find(|(_, s)| s.contains(&pattern)) {
            Some((file, src)) if !calls_twin(&[src, cpu_src.as_deref().unwrap_or("")], test, twin, method) => {
                errors.push(format!("{}: {test} ({}) never calls {cpu}", e.name(), file.display()))
            }
            Some(_) => {}
            None => errors.push(format!("{}: no #[test] fn {test}()", e.name())),
        }
    }
    assert!(errors.is_empty(), "twin tests:\n  {}", errors.join("\n  "));
}

/// `registry::numbered` numbers bindings given by name as the registry declares them.
#[test]
fn bindings_by_name_take_the_declared_numbers() {
    let e = hourglass::gpu::registry::find(Stage::Coloring, "coloring_count").unwrap();
    let given = [
        ("color_stats", 'e'),
        ("params", 'a'),
        ("slots", 'c'),
        ("count", 'b'),
        ("color_in", 'd'),
    ];
    let got = hourglass::gpu::registry::numbered(e, &given);
    assert_eq!(got, vec![(0, 'a'), (1, 'b'), (2, 'c'), (4, 'd'), (6, 'e')]);
}

#[test]
#[should_panic(expected = "colored::colored_mirror: no binding named `vel`")]
fn a_binding_name_the_registry_does_not_declare_panics() {
    let e = hourglass::gpu::registry::find(Stage::Colored, "colored_mirror").unwrap();
    hourglass::gpu::registry::numbered(e, &[("params", 0), ("count", 1), ("slots", 2), ("vel", 3)]);
}

#[test]
#[should_panic(expected = "declared [\"params\", \"count\", \"slots\"]")]
fn a_declared_binding_left_out_panics() {
    let e = hourglass::gpu::registry::find(Stage::Colored, "colored_mirror").unwrap();
    hourglass::gpu::registry::numbered(e, &[("params", 0), ("slots", 2)]);
}

/// The 3D solvers the scene lets onto the GPU are the DEM, the spring
/// model and the rows of `SOLID_SOLVERS`, each a GPU solver of the plane
/// too, and the refusal names each of them.
#[test]
fn the_3d_gpu_solvers_are_the_rows_of_solid_solvers() {
    use hourglass::gpu::solver::{GPU_SOLVERS, SOLID_SOLVERS};
    use hourglass::model::SolverKind;
    use hourglass::scene::{GPU_SOLVERS_3D, SOLID_ON_GPU};
    let mut want: Vec<SolverKind> = vec![SolverKind::Dem, SolverKind::Spring];
    want.extend(SOLID_SOLVERS.iter().map(|(k, _)| *k));
    assert_eq!(GPU_SOLVERS_3D.to_vec(), want);
    for (kind, _) in SOLID_SOLVERS {
        assert!(GPU_SOLVERS.iter().any(|(k, _)| k == kind), "{kind:?} has no plane row");
    }
    for kind in GPU_SOLVERS_3D {
        assert!(
            SOLID_ON_GPU.contains(kind.name()),
            "{SOLID_ON_GPU} leaves out {}",
            kind.name()
        );
    }
}

/// The GPU solver table and the solver facts agree: a solver said to run on
/// the GPU has a row of `gpu::solver::GPU_SOLVERS` (its `GpuSolver`), and
/// every row is an NSCD solver said to run there, once.
#[test]
fn every_gpu_solver_has_its_row_and_every_row_its_facts() {
    use hourglass::gpu::solver::GPU_SOLVERS;
    use hourglass::model::SOLVERS;
    for facts in SOLVERS.iter().filter(|f| f.nscd && f.gpu) {
        let rows = GPU_SOLVERS.iter().filter(|(k, _)| k.facts().name == facts.name).count();
        assert_eq!(
            rows, 1,
            "solver `{}` runs on the GPU: one row of GPU_SOLVERS",
            facts.name
        );
    }
    for (kind, _) in GPU_SOLVERS {
        let facts = kind.facts();
        assert!(
            facts.nscd && facts.gpu,
            "GPU_SOLVERS row `{}`: its facts say it does not run on the GPU",
            facts.name
        );
    }
}
