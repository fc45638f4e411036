//! The WGSL structs (shaders/shared.wgsl, with the generated prelude) have the
//! sizes and member offsets of their Rust twins, in every stage's full source.

use std::mem::{offset_of, size_of};

use hourglass::gpu::prefix_sum::ScanLevel;
use hourglass::gpu::space::{Face, Ridge};
use hourglass::gpu::{Params, ReducePartial, SOLID_STAGES, ShaderConfig, Stage};
use hourglass::model::{Contact, Corner, Dim3, Segment};

/// Parse and validate the full source of `stage`.
fn module(stage: Stage, cfg: &ShaderConfig) -> naga::Module {
    let src = cfg.source(stage);
    let module =
        naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| panic!("{}: {}", stage.name(), e.emit_to_string(&src)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{}: {}", stage.name(), e.emit_to_string(&src)));
    module
}

/// (size, [(member, offset)]) of the struct `name`.
fn layout(module: &naga::Module, name: &str) -> Option<(u32, Vec<(String, u32)>)> {
    module.types.iter().find_map(|(_, ty)| match &ty.inner {
        naga::TypeInner::Struct { members, span } if ty.name.as_deref() == Some(name) => Some((
            *span,
            members
                .iter()
                .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                .collect(),
        )),
        _ => None,
    })
}

fn check(module: &naga::Module, stage: Stage, name: &str, size: usize, offsets: &[(&str, usize)]) {
    let Some((span, members)) = layout(module, name) else {
        return; // struct unused by this stage and compacted away, or not declared
    };
    assert_eq!(span as usize, size, "{}: size of {name}", stage.name());
    let got: Vec<(&str, usize)> = members.iter().map(|(m, o)| (m.as_str(), *o as usize)).collect();
    assert_eq!(got, offsets, "{}: member offsets of {name}", stage.name());
}

#[test]
fn shared_structs_match_rust_in_every_stage() {
    for capacity in [0, 4, 16] {
        let cfg = ShaderConfig::new(capacity);
        for stage in Stage::ALL {
            let m = module(stage, &cfg);
            check(
                &m,
                stage,
                "Contact",
                size_of::<Contact>(),
                &[
                    ("other", offset_of!(Contact, other)),
                    ("gap", offset_of!(Contact, gap)),
                    ("inv_mass_sum", offset_of!(Contact, inv_mass_sum)),
                    ("impulse", offset_of!(Contact, impulse)),
                    ("normal", offset_of!(Contact, normal)),
                    ("impulse_t", offset_of!(Contact, impulse_t)),
                    ("bounce", offset_of!(Contact, bounce)),
                    ("wall_vel", offset_of!(Contact, wall_vel)),
                ],
            );
            check(
                &m,
                stage,
                "Segment",
                size_of::<Segment>(),
                &[
                    ("a", offset_of!(Segment, a)),
                    ("b", offset_of!(Segment, b)),
                    ("n", offset_of!(Segment, n)),
                ],
            );
            check(
                &m,
                stage,
                "Corner",
                size_of::<Corner>(),
                &[("pos", offset_of!(Corner, pos)), ("dirs", offset_of!(Corner, dirs))],
            );
            check(
                &m,
                stage,
                "Params",
                size_of::<Params>(),
                &[
                    ("gravity", offset_of!(Params, gravity)),
                    ("origin", offset_of!(Params, origin)),
                    ("bbox_lo", offset_of!(Params, bbox_lo)),
                    ("bbox_hi", offset_of!(Params, bbox_hi)),
                    ("cell", offset_of!(Params, cell)),
                    ("dt", offset_of!(Params, dt)),
                    ("inv_dt", offset_of!(Params, inv_dt)),
                    ("alert", offset_of!(Params, alert)),
                    ("omega", offset_of!(Params, omega)),
                    ("beta", offset_of!(Params, beta)),
                    ("slop", offset_of!(Params, slop)),
                    ("neck_y", offset_of!(Params, neck_y)),
                    ("n_grains", offset_of!(Params, n_grains)),
                    ("nx", offset_of!(Params, nx)),
                    ("ny", offset_of!(Params, ny)),
                    ("n_segments", offset_of!(Params, n_segments)),
                    ("n_corners", offset_of!(Params, n_corners)),
                    ("n_cells", offset_of!(Params, n_cells)),
                    ("mu", offset_of!(Params, mu)),
                    ("mu_wall", offset_of!(Params, mu_wall)),
                    ("restitution", offset_of!(Params, restitution)),
                    ("kick", offset_of!(Params, kick)),
                    ("seed", offset_of!(Params, seed)),
                    ("step", offset_of!(Params, step)),
                    ("period", offset_of!(Params, period)),
                    ("nz", offset_of!(Params, nz)),
                    ("origin_z", offset_of!(Params, origin_z)),
                    ("pad", offset_of!(Params, pad)),
                ],
            );
            check(
                &m,
                stage,
                "ReducePartial",
                size_of::<ReducePartial>(),
                &[
                    ("kinetic", offset_of!(ReducePartial, kinetic)),
                    ("potential", offset_of!(ReducePartial, potential)),
                    ("momentum", offset_of!(ReducePartial, momentum)),
                    ("passed", offset_of!(ReducePartial, passed)),
                    ("lost", offset_of!(ReducePartial, lost)),
                    ("max_overlap", offset_of!(ReducePartial, max_overlap)),
                    ("max_speed", offset_of!(ReducePartial, max_speed)),
                ],
            );
            check(
                &m,
                stage,
                "ScanLevel",
                size_of::<ScanLevel>(),
                &[
                    ("len_in", offset_of!(ScanLevel, len_in)),
                    ("len_out", offset_of!(ScanLevel, len_out)),
                ],
            );
        }
    }
}

/// In 3D the contact is `Contact<Dim3>` (vectors as three f32: 56 bytes, no
/// padding), and the walls' bodies are `gpu::space::Face` and `Ridge`, in
/// every stage written over the space.
#[test]
fn structs_of_3d_match_rust_in_every_stage_that_runs_there() {
    type C3 = Contact<Dim3>;
    for capacity in [0, 4, 16] {
        let cfg = ShaderConfig::of::<Dim3>(capacity);
        for stage in SOLID_STAGES {
            let m = module(stage, &cfg);
            check(
                &m,
                stage,
                "Contact",
                size_of::<C3>(),
                &[
                    ("other", offset_of!(C3, other)),
                    ("gap", offset_of!(C3, gap)),
                    ("inv_mass_sum", offset_of!(C3, inv_mass_sum)),
                    ("impulse", offset_of!(C3, impulse)),
                    ("normal", offset_of!(C3, normal)),
                    ("impulse_t", offset_of!(C3, impulse_t)),
                    ("bounce", offset_of!(C3, bounce)),
                    ("wall_vel", offset_of!(C3, wall_vel)),
                ],
            );
            check(
                &m,
                stage,
                "Segment",
                size_of::<Face>(),
                &[
                    ("a", offset_of!(Face, a)),
                    ("kind", offset_of!(Face, kind)),
                    ("b", offset_of!(Face, b)),
                    ("owns", offset_of!(Face, owns)),
                    ("c", offset_of!(Face, c)),
                    ("side", offset_of!(Face, side)),
                    ("n", offset_of!(Face, n)),
                    ("pad2", offset_of!(Face, pad2)),
                ],
            );
            check(
                &m,
                stage,
                "Corner",
                size_of::<Ridge>(),
                &[
                    ("a", offset_of!(Ridge, a)),
                    ("kind", offset_of!(Ridge, kind)),
                    ("b", offset_of!(Ridge, b)),
                    ("count", offset_of!(Ridge, count)),
                    ("more", offset_of!(Ridge, more)),
                    ("pad", offset_of!(Ridge, pad)),
                    ("dirs", offset_of!(Ridge, dirs)),
                ],
            );
        }
    }
    let m = module(Stage::Detect, &ShaderConfig::of::<Dim3>(16));
    for name in ["Contact", "Segment", "Corner", "Params"] {
        assert!(layout(&m, name).is_some(), "{name} missing from the 3D detection");
    }
}

#[test]
fn every_struct_is_declared_once_in_shared_wgsl() {
    let m = module(Stage::Detect, &ShaderConfig::new(16));
    for name in ["Contact", "Segment", "Corner", "Params", "ReducePartial"] {
        assert!(layout(&m, name).is_some(), "{name} missing from shaders/shared.wgsl");
    }
    let scan = module(Stage::PrefixSum, &ShaderConfig::new(16));
    assert!(layout(&scan, "ScanLevel").is_some());
}

/// APGD's momentum state (`ApgdState`, shaders/apgd.wgsl) is the host's
/// `[f32; 5]` (`gpu::apgd::Momentum`): word i at byte 4 i, no padding.
#[test]
fn the_apgd_state_is_the_hosts_five_words() {
    let m = module(Stage::Apgd, &ShaderConfig::new(16));
    let (size, members) = layout(&m, "ApgdState").expect("ApgdState in shaders/apgd.wgsl");
    assert_eq!(size as usize, size_of::<hourglass::gpu::apgd::Momentum>());
    let got: Vec<(&str, u32)> = members.iter().map(|(n, o)| (n.as_str(), *o)).collect();
    assert_eq!(
        got,
        [("theta", 0), ("k", 4), ("r_prev", 8), ("worst", 12), ("r_run", 16)],
        "the order of cpu::apgd::Momentum"
    );
}
