//! Buffer helpers: labelled storage/uniform buffers and blocking readback.
//!
//! A binding cannot be empty, so every buffer holds at least [`MIN_BYTES`]
//! (stages read their lengths from `Params`, never from `arrayLength`).
//! Readback copies into a MAP_READ staging buffer, submits, and waits.

use bytemuck::Pod;
use wgpu::util::DeviceExt;

use super::GpuContext;
use crate::error::{Error, Result};
use crate::model::{Grains, Space};

/// Smallest buffer created (bytes): room for one element of any binding
/// (a `Contact` or `Corner` of either space: 3D's corner, `gpu::space::Ridge`,
/// is the largest), 16-byte aligned.
pub const MIN_BYTES: u64 = 192;

const _: () = assert!(std::mem::size_of::<super::space::Ridge>() as u64 <= MIN_BYTES);

const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);

/// A storage buffer holding `data` (padded with zeros to [`MIN_BYTES`]).
pub fn storage<T: Pod>(ctx: &GpuContext, label: &str, data: &[T]) -> wgpu::Buffer {
    let bytes: &[u8] = bytemuck::cast_slice(data);
    if (bytes.len() as u64) < MIN_BYTES {
        let mut padded = vec![0u8; MIN_BYTES as usize];
        padded[..bytes.len()].copy_from_slice(bytes);
        return init(ctx, label, &padded, STORAGE);
    }
    init(ctx, label, bytes, STORAGE)
}

/// A zeroed storage buffer of `len` elements of `T`.
pub fn storage_zeroed<T: Pod>(ctx: &GpuContext, label: &str, len: usize) -> wgpu::Buffer {
    let bytes = (len * std::mem::size_of::<T>()) as u64;
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(MIN_BYTES).next_multiple_of(4),
        usage: STORAGE,
        mapped_at_creation: false,
    })
}

/// A uniform buffer holding `value`.
pub fn uniform<T: Pod>(ctx: &GpuContext, label: &str, value: &T) -> wgpu::Buffer {
    init(
        ctx,
        label,
        bytemuck::bytes_of(value),
        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    )
}

fn init(ctx: &GpuContext, label: &str, bytes: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    ctx.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytes,
        usage,
    })
}

/// The per-grain buffers of a backend, in its buffer order.
pub struct GrainBuffers<'a> {
    pub pos: &'a wgpu::Buffer,
    pub vel: &'a wgpu::Buffer,
    pub radius: &'a wgpu::Buffer,
    pub inv_mass: &'a wgpu::Buffer,
    pub id: &'a wgpu::Buffer,
    /// None where the model has no rotation: read back as zeros.
    pub ang_vel: Option<&'a wgpu::Buffer>,
    /// Orientations (NSCD): angles, rad, or quaternions; None: read back as
    /// `Space::UNTURNED`.
    pub angle: Option<&'a wgpu::Buffer>,
}

/// Read `n` grains of space `S` from `b` and put them in id order (the GPU
/// arrays may be permuted, e.g. into cell order).
pub fn read_grains<S: Space>(ctx: &GpuContext, b: &GrainBuffers, n: usize) -> Result<Grains<S>> {
    let mut vectors = read_many::<S::Vec>(ctx, &[(b.pos, n), (b.vel, n)])?.into_iter();
    // Every other array as 32-bit words, in one more submit.
    let words = |len: usize, size: usize| len * size / 4;
    let spin = words(n, std::mem::size_of::<S::Spin>());
    let turn = words(n, std::mem::size_of::<S::Orientation>());
    let mut reads = vec![(b.radius, n), (b.inv_mass, n), (b.id, n)];
    reads.extend(b.ang_vel.map(|w| (w, spin)));
    reads.extend(b.angle.map(|a| (a, turn)));
    let mut one = read_many::<u32>(ctx, &reads)?.into_iter();
    let mut next = || one.next().unwrap_or_default();
    let (radius, inv_mass, id) = (next(), next(), next());
    let ang_vel = match b.ang_vel {
        Some(_) => bytemuck::pod_collect_to_vec(&next()),
        None => vec![S::Spin::default(); n],
    };
    let angle = match b.angle {
        Some(_) => bytemuck::pod_collect_to_vec(&next()),
        None => vec![S::UNTURNED; n],
    };
    Ok(Grains {
        pos: vectors.next().unwrap_or_default(),
        vel: vectors.next().unwrap_or_default(),
        radius: bytemuck::cast_vec(radius),
        inv_mass: bytemuck::cast_vec(inv_mass),
        id,
        ang_vel,
        angle,
    }
    .into_id_order())
}

/// Read `len` elements of `T` from the start of each buffer, in one submit.
pub fn read_many<T: Pod>(ctx: &GpuContext, reads: &[(&wgpu::Buffer, usize)]) -> Result<Vec<Vec<T>>> {
    let size = std::mem::size_of::<T>() as u64;
    let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("hourglass.readback"),
    });
    let mut staging = Vec::with_capacity(reads.len());
    for &(buffer, len) in reads {
        let bytes = (len as u64 * size).next_multiple_of(4);
        if bytes == 0 {
            staging.push(None);
            continue;
        }
        let s = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("hourglass.readback"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        encoder.copy_buffer_to_buffer(buffer, 0, &s, 0, bytes);
        staging.push(Some(s));
    }
    ctx.submit(encoder.finish());
    for s in staging.iter().flatten() {
        s.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    }
    ctx.count_readback();
    ctx.wait()?;
    let mut out = Vec::with_capacity(reads.len());
    for (s, &(_, len)) in staging.iter().zip(reads) {
        let Some(s) = s else {
            out.push(Vec::new());
            continue;
        };
        let view = s
            .slice(..)
            .get_mapped_range()
            .map_err(|e| Error::Gpu(format!("reading back a buffer: {e}")))?;
        let bytes = &view[..len * size as usize];
        out.push(bytemuck::pod_collect_to_vec(bytes));
        drop(view);
        s.unmap();
    }
    Ok(out)
}

/// Read `len` elements of `T` from the start of `buffer`.
pub fn read<T: Pod>(ctx: &GpuContext, buffer: &wgpu::Buffer, len: usize) -> Result<Vec<T>> {
    Ok(read_many(ctx, &[(buffer, len)])?.pop().unwrap_or_default())
}

/// Record `f` into one encoder with one compute pass labelled `label`, and submit it.
pub fn submit_pass(ctx: &GpuContext, label: &str, f: impl FnOnce(&mut wgpu::ComputePass)) {
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(label) });
    {
        let mut pass = super::pass(&mut encoder, label);
        f(&mut pass);
    }
    ctx.submit(encoder.finish());
}
