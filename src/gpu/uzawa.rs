//! Stage `uzawa` (shaders/uzawa.wgsl): one projected dual-gradient step of
//! Maury's velocity projection, P' = max(0, P - rho t) with the common target
//! t = u + (max(d,0) + beta min(d + slop,0))/dt (`Contact::target`), with the
//! Gershgorin-safe rho = s / (im_a N_a + im_b N_b), and per grain the largest
//! |P' - P| / rho (reduced by [`super::residual_max`]); `jacobi_gather` then
//! rebuilds the velocities. CPU twin: `cpu::uzawa::uzawa_contact`.

use super::buffers::uniform;
use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct Uzawa {
    kernel: Kernel,
}

impl Uzawa {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        Uzawa {
            kernel: Kernel::new(ctx, cfg, Stage::Uzawa, "uzawa_contact"),
        }
    }

    /// Bindings: params, count, slots (impulses updated), vel, inv_mass,
    /// residual (written, m/s per grain), step_fraction (uniform vec4, x = s).
    #[allow(clippy::too_many_arguments)]
    pub fn bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        count: &wgpu::Buffer,
        slots: &wgpu::Buffer,
        vel: &wgpu::Buffer,
        inv_mass: &wgpu::Buffer,
        residual: &wgpu::Buffer,
        step_fraction: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.kernel
            .bind(ctx, &[params, count, slots, vel, inv_mass, residual, step_fraction])
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}

/// The uniform holding the step fraction s (x; y, z, w unused).
pub fn step_fraction(ctx: &GpuContext, s: f32) -> wgpu::Buffer {
    uniform(ctx, "hourglass.uzawa.step_fraction", &[s, 0.0, 0.0, 0.0])
}
