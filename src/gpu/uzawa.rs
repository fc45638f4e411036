//! Stage `uzawa` (shaders/uzawa.wgsl): one projected dual-gradient step of
//! Maury's velocity projection, P' = max(0, P - rho t) with the common target
//! t = u + (max(d,0) + beta min(d + slop,0))/dt (`Contact::target`), with the
//! Gershgorin-safe rho = s / (im_a N_a + im_b N_b), and per grain the largest
//! |P' - P| / rho (reduced by [`super::residual_max`]); `jacobi_gather` then
//! rebuilds the velocities. CPU twin: `cpu::uzawa::uzawa_contact`.

use super::buffers::uniform;
use super::{GpuContext, Kernel, ShaderConfig, Stage, registry};

/// The buffers of `uzawa::uzawa_contact` (its bindings of the same names).
pub struct UzawaBindings<'a> {
    pub params: &'a wgpu::Buffer,
    pub count: &'a wgpu::Buffer,
    /// Impulses updated.
    pub slots: &'a wgpu::Buffer,
    pub vel: &'a wgpu::Buffer,
    pub inv_mass: &'a wgpu::Buffer,
    /// Written: m/s per grain.
    pub residual: &'a wgpu::Buffer,
    /// Uniform vec4, x = s ([`step_fraction`]).
    pub step_fraction: &'a wgpu::Buffer,
}

pub struct Uzawa {
    kernel: Kernel,
}

impl Uzawa {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        Uzawa {
            kernel: Kernel::new(ctx, cfg, Stage::Uzawa, "uzawa_contact"),
        }
    }

    /// The bind group of `b`, numbered by the registry.
    pub fn bind(&self, ctx: &GpuContext, b: &UzawaBindings) -> wgpu::BindGroup {
        let given = [
            ("params", b.params),
            ("count", b.count),
            ("slots", b.slots),
            ("vel", b.vel),
            ("inv_mass", b.inv_mass),
            ("residual", b.residual),
            ("step_fraction", b.step_fraction),
        ];
        registry::group(ctx, &self.kernel, &given)
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}

/// The uniform holding the step fraction s (x; y, z, w unused).
pub fn step_fraction(ctx: &GpuContext, s: f32) -> wgpu::Buffer {
    uniform(ctx, "hourglass.uzawa.step_fraction", &[s, 0.0, 0.0, 0.0])
}
