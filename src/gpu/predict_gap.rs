//! Stage `predict_gap` (shaders/predict_gap.wgsl): a copy of this step's
//! contacts with the gap the solved velocities leave after the step,
//! d' = d + dt (v_i - v_j).n, and a zero impulse, for the overlap correction
//! (split push-out, `StepParams::overlap_iterations` > 0).
//! CPU twin: `cpu::correct::predict_gap`.

use super::{GpuContext, Kernel, ShaderConfig, Stage};

pub struct PredictGap {
    kernel: Kernel,
}

impl PredictGap {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        PredictGap {
            kernel: Kernel::new(ctx, cfg, Stage::PredictGap, "main"),
        }
    }

    /// Bindings: params, count, slots, vel, out (written: the copies, listed slots only).
    pub fn bind(
        &self,
        ctx: &GpuContext,
        params: &wgpu::Buffer,
        count: &wgpu::Buffer,
        slots: &wgpu::Buffer,
        vel: &wgpu::Buffer,
        out: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        self.kernel.bind(ctx, &[params, count, slots, vel, out])
    }

    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, group: &wgpu::BindGroup, n_grains: u32) {
        self.kernel.dispatch(pass, group, n_grains);
    }
}
