//! Shared by the GPU tests: a device (or a reasoned skip), buffers, a small RNG.
#![allow(dead_code)]

pub mod solid;

use bytemuck::Pod;
use hourglass::gpu::buffers::{read, storage, submit_pass, uniform};
use hourglass::gpu::{AdapterChoice, GpuContext};

/// The GPU tests must run (and fail without an adapter) in CI or when asked to.
fn required() -> bool {
    std::env::var("HOURGLASS_REQUIRE_GPU").is_ok_and(|v| v == "1") || std::env::var_os("CI").is_some()
}

/// Any adapter (lavapipe included). Without one: a panic in CI or with
/// HOURGLASS_REQUIRE_GPU=1, otherwise "skipping: no GPU adapter" and None.
pub fn context() -> Option<GpuContext> {
    match GpuContext::new(AdapterChoice::Any) {
        Ok(Some(ctx)) => Some(ctx),
        Ok(None) | Err(_) if !required() => {
            eprintln!("skipping: no GPU adapter");
            None
        }
        Ok(None) => panic!("no GPU adapter, and CI or HOURGLASS_REQUIRE_GPU=1 requires one"),
        Err(e) => panic!("{e} (CI or HOURGLASS_REQUIRE_GPU=1 requires an adapter)"),
    }
}

pub fn buf<T: Pod>(ctx: &GpuContext, data: &[T]) -> wgpu::Buffer {
    storage(ctx, "hourglass.test", data)
}

pub fn uni<T: Pod>(ctx: &GpuContext, value: &T) -> wgpu::Buffer {
    uniform(ctx, "hourglass.test.params", value)
}

pub fn get<T: Pod>(ctx: &GpuContext, b: &wgpu::Buffer, len: usize) -> Vec<T> {
    read(ctx, b, len).expect("readback")
}

pub fn run(ctx: &GpuContext, f: impl FnOnce(&mut wgpu::ComputePass)) {
    submit_pass(ctx, "hourglass.test", f);
}

/// xorshift64*: reproducible test data without depending on rand's API.
pub struct Rng(u64);

/// Random velocities of up to 5 cm/s on each axis, drawn from `seed`, so
/// that contacts open and close.
pub fn jostle(grains: &mut hourglass::model::Grains, seed: u64) {
    let mut rng = Rng::new(seed);
    for v in grains.vel.iter_mut() {
        *v = [rng.f32(-0.05, 0.05), rng.f32(-0.05, 0.05)];
    }
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [lo, hi).
    pub fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % u64::from(n.max(1))) as u32
    }
}

/// a == b (infinities included), both NaN (as for a fixed grain on a wall, W = 0), or |a - b| <= rel |b| + abs.
pub fn close(a: f32, b: f32, rel: f32, abs: f32) -> bool {
    a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= rel * b.abs() + abs
}
