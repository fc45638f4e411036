//! Stage `jacobi_gather` (shaders/jacobi_gather.wgsl): v_i = v_free_i + im_i
//! sum_c P_c n_c over grain i's own contact copies (no atomics).
//! CPU twin: `cpu::jacobi::jacobi_gather`.

use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct JacobiGather {
    kernel: Kernel,
}

impl JacobiGather {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        JacobiGather {
            kernel: Kernel::new(ctx, cfg, Stage::JacobiGather, "main"),
        }
    }

    /// Bindings: params, count, slots, vel_free, inv_mass, vel (written).
    #[allow(clippy::too_many_arguments)]
    pub fn bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        count: &wgpu::Buffer,
        slots: &wgpu::Buffer,
        vel_free: &wgpu::Buffer,
        inv_mass: &wgpu::Buffer,
        vel: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.kernel.bind(ctx, &[params, count, slots, vel_free, inv_mass, vel])
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}
