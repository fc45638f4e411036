//! The checks of a scene's dimension: what a 3D scene (`dimension = 3`)
//! takes and refuses today, and the 3D keys a plane scene refuses.

use super::Check;
use crate::error::Result;
use crate::model::SolverKind;
use crate::scene::spec::Scene;

/// The solvers a 3D scene runs (on the CPU).
pub const SOLVERS_3D: [SolverKind; 8] = [
    SolverKind::Dem,
    SolverKind::Spring,
    SolverKind::Impulse,
    SolverKind::Nlgs,
    SolverKind::Jacobi,
    SolverKind::Colored,
    SolverKind::Apgd,
    SolverKind::Uzawa,
];

/// The solvers a 3D scene runs on the GPU: the DEM and the spring model,
/// and the NSCD solvers of `gpu::solver::SOLID_SOLVERS`.
pub const GPU_SOLVERS_3D: [SolverKind; 6] = [
    SolverKind::Dem,
    SolverKind::Spring,
    SolverKind::Jacobi,
    SolverKind::Colored,
    SolverKind::Uzawa,
    SolverKind::Apgd,
];

impl Scene {
    /// `dimension`: 2 or 3, and the keys of the other space refused.
    pub(super) fn validate_dimension(&self, c: &Check<'_>) -> Result<()> {
        match self.dimension {
            2 => self.validate_plane_keys(),
            3 => self.validate_space3d(c),
            d => Err(self.refuse(
                "dimension",
                format!("must be 2 (disks in the plane) or 3 (spheres), got {d}"),
            )),
        }
    }

    /// A plane scene has no 3D walls and gives its emitters two coordinates.
    fn validate_plane_keys(&self) -> Result<()> {
        let w = &self.walls;
        for (key, given) in [
            ("walls.box", w.box3d.is_some()),
            ("walls.planes", w.planes.is_some()),
            ("walls.silo", w.silo.is_some()),
            ("walls.closed_side", w.closed_side.is_some()),
        ] {
            if given {
                return Err(self.refuse(key, "is a 3D wall: set `dimension = 3` at the top of the scene"));
            }
        }
        for (k, e) in self.emitters.iter().enumerate() {
            if e.position.given != 2 || e.velocity.given != 2 {
                return Err(self.refuse(
                    &format!("emitters[{k}].position"),
                    "has 3 coordinates in a plane scene: give [x, y], or set `dimension = 3`",
                ));
            }
        }
        Ok(())
    }

    /// A 3D scene: one source of walls (box, planes, mesh, hourglass or
    /// silo), emitters at [x, y, z], a solver of [`SOLVERS_3D`], and none of
    /// what runs only in the plane yet.
    fn validate_space3d(&self, c: &Check<'_>) -> Result<()> {
        let w = &self.walls;
        let plane_only = [
            ("walls.segments", w.segments.is_some()),
            ("walls.gate", w.gate.is_some()),
            ("walls.solid_side", w.solid_side.is_some()),
            ("walls.periodic_x", w.periodic_x.is_some()),
            ("walls.bounds", w.bounds.is_some()),
            ("walls.groups", w.groups.is_some()),
            ("grains.list", self.grains.list.is_some()),
            ("grains.region", self.grains.region.is_some()),
            ("motion", !self.motion.is_empty()),
            ("crowd", self.crowd.is_some()),
        ];
        if let Some((key, _)) = plane_only.iter().find(|(_, given)| *given) {
            return Err(self.refuse(key, "runs in the plane only: a 3D scene does not take it yet"));
        }
        // One body of walls, and planes besides it (a floor under a silo) or alone.
        let bodies = [
            w.box3d.is_some(),
            w.mesh.is_some(),
            w.hourglass.is_some(),
            w.silo.is_some(),
        ];
        match bodies.iter().filter(|&&b| b).count() {
            0 if w.planes.is_none() => {
                return Err(self.refuse(
                    "walls",
                    "a 3D scene gives its walls: `box`, `mesh`, `hourglass`, `silo` or `planes`",
                ));
            }
            0 | 1 => {}
            _ => {
                return Err(self.refuse(
                    "walls",
                    "give only one of `box`, `mesh`, `hourglass`, `silo` (and any `planes`)",
                ));
            }
        }
        if w.closed_side.is_some() && w.mesh.is_none() && w.hourglass.is_none() {
            return Err(self.refuse(
                "walls.closed_side",
                "is the side of the closed surfaces of `mesh` or `hourglass`: these walls have none",
            ));
        }
        if w.closed_side == Some(crate::model::inside::Hold::Outside) && self.grains.count > 0 {
            return Err(self.refuse(
                "grains.count",
                "the fill deposits spheres inside the closed surfaces, which `walls.closed_side = \"outside\"` makes obstacles: set it to 0 and give `[[emitters]]`",
            ));
        }
        if let Some(b) = w.box3d {
            for (k, v) in b.iter().enumerate() {
                c.finite(&format!("walls.box[{k}]"), *v)?;
            }
            if !(b[0] < b[3] && b[1] < b[4] && b[2] < b[5]) {
                return Err(self.refuse(
                    "walls.box",
                    format!("{b:?} is not [xmin, ymin, zmin, xmax, ymax, zmax] with each min < max"),
                ));
            }
        }
        if let Some(planes) = &w.planes {
            if planes.is_empty() {
                return Err(self.refuse("walls.planes", "is empty"));
            }
            for (i, p) in planes.iter().enumerate() {
                for (k, v) in p.iter().enumerate() {
                    c.finite(&format!("walls.planes[{i}][{k}]"), *v)?;
                }
                if p[3..].iter().all(|&v| v == 0.0) {
                    return Err(self.refuse(&format!("walls.planes[{i}]"), "has a zero normal"));
                }
            }
        }
        if let Some(s) = &w.silo {
            for (key, v) in [
                ("radius", s.radius),
                ("height", s.height),
                ("outlet", s.outlet),
                ("slope_deg", s.slope_deg),
            ] {
                c.positive(&format!("walls.silo.{key}"), v)?;
            }
        }
        for (k, e) in self.emitters.iter().enumerate() {
            if e.position.given != 3 {
                return Err(self.refuse(
                    &format!("emitters[{k}].position"),
                    "has 2 coordinates in a 3D scene: give [x, y, z]",
                ));
            }
            c.length(&format!("emitters[{k}].position"), e.position[2])?;
            c.finite(&format!("emitters[{k}].velocity"), e.velocity[2])?;
        }
        let kind = self.solver.kind;
        if !SOLVERS_3D.contains(&kind) {
            let names: Vec<&str> = SOLVERS_3D.iter().map(|s| s.name()).collect();
            return Err(self.refuse(
                "solver.kind",
                format!(
                    "`{}` does not run in 3D yet: use one of {}",
                    kind.name(),
                    names.join(", ")
                ),
            ));
        }
        if kind == SolverKind::Dem && self.dem.kn.is_none() {
            return Err(self.refuse("dem.kn", "a 3D DEM scene states its Hertz stiffness k_n (N/m^1.5)"));
        }
        if kind.nscd() && self.solver.dt.is_none() {
            return Err(self.refuse("solver.dt", "a 3D NSCD scene states its time step (s)"));
        }
        let on_gpu = GPU_SOLVERS_3D.contains(&kind);
        if self.run.backend == crate::scene::BackendChoice::Gpu && !on_gpu {
            return Err(self.refuse("run.backend", super::SOLID_ON_GPU));
        }
        Ok(())
    }
}
