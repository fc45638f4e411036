//! Stage `prefix_sum` (shaders/prefix_sum.wgsl): exclusive scan of a u32 array
//! of any length into `len + 1` entries (the last is the total).
//!
//! ```text
//!   level 0:  scan(src -> dst, tile totals -> sums0)        tiles of WORKGROUP_SIZE
//!   level 1:  scan(sums0 -> scanned1, tile totals -> sums1)  ... until one tile
//!   add back, top down:  dst_j[i] += dst_{j+1}[i / WORKGROUP_SIZE]
//! ```
//! A 2^20-entry array takes three levels. CPU twin: `cpu::grid::prefix_sum`.

use bytemuck::{Pod, Zeroable};

use super::buffers::{storage_zeroed, uniform};
use super::{GpuContext, Kernel, ShaderConfig, Stage, WORKGROUP_SIZE};

/// Lengths of one scan level. Keep in sync with `ScanLevel` in shaders/prefix_sum.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct ScanLevel {
    /// Elements read from src (more read as 0).
    pub len_in: u32,
    /// Elements written to dst.
    pub len_out: u32,
}

/// The scan and add-back pipelines.
pub struct PrefixSum {
    scan: Kernel,
    add: Kernel,
}

struct Level {
    len_out: u32,
    scan_group: wgpu::BindGroup,
    /// Adds the next level's scanned sums into this level's dst (absent at the top).
    add_group: Option<wgpu::BindGroup>,
    _buffers: Vec<wgpu::Buffer>,
}

/// The buffers and bind groups of one scan of a given length (data, separate from the kernels).
pub struct ScanPlan {
    levels: Vec<Level>,
}

impl PrefixSum {
    pub fn new(ctx: &GpuContext, cfg: &ShaderConfig) -> Self {
        PrefixSum {
            scan: Kernel::new(ctx, cfg, Stage::PrefixSum, "scan"),
            add: Kernel::new(ctx, cfg, Stage::PrefixSum, "add"),
        }
    }

    /// Plan the scan of the first `len` entries of `src` into `dst` (`len + 1` entries).
    pub fn plan(&self, ctx: &GpuContext, src: &wgpu::Buffer, dst: &wgpu::Buffer, len: u32) -> ScanPlan {
        let label = Stage::PrefixSum.label();
        let mut specs: Vec<(ScanLevel, wgpu::Buffer, wgpu::Buffer)> = Vec::new();
        let mut level = ScanLevel {
            len_in: len,
            len_out: len + 1,
        };
        // (uniform, sums) per level; dst of level j > 0 is its own buffer.
        let mut scanned: Vec<wgpu::Buffer> = Vec::new();
        loop {
            let blocks = level.len_out.div_ceil(WORKGROUP_SIZE);
            let sums = storage_zeroed::<u32>(ctx, &label, blocks as usize);
            specs.push((level, uniform(ctx, &label, &level), sums));
            if blocks <= 1 {
                break;
            }
            level = ScanLevel {
                len_in: blocks,
                len_out: blocks,
            };
            scanned.push(storage_zeroed::<u32>(ctx, &label, blocks as usize));
        }
        let depth = specs.len();
        let mut levels = Vec::with_capacity(depth);
        for j in 0..depth {
            let (lvl, uni, sums) = &specs[j];
            let (src_j, dst_j) = if j == 0 {
                (src, dst)
            } else {
                (&specs[j - 1].2, &scanned[j - 1])
            };
            let scan_group = (self.scan).group(
                ctx,
                &[("level", uni), ("src", src_j), ("dst", dst_j), ("block_sums", sums)],
            );
            let add_group = (j + 1 < depth)
                .then(|| (self.add).group(ctx, &[("level", uni), ("dst", dst_j), ("offsets", &scanned[j])]));
            levels.push(Level {
                len_out: lvl.len_out,
                scan_group,
                add_group,
                _buffers: Vec::new(),
            });
        }
        // Keep the level buffers alive with the plan.
        let mut keep: Vec<wgpu::Buffer> = Vec::new();
        for (_, uni, sums) in specs {
            keep.push(uni);
            keep.push(sums);
        }
        keep.extend(scanned);
        if let Some(first) = levels.first_mut() {
            first._buffers = keep;
        }
        ScanPlan { levels }
    }

    /// Record the whole scan (all levels, then the add-backs top down).
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass, plan: &ScanPlan) {
        for level in &plan.levels {
            self.scan.dispatch(pass, &level.scan_group, level.len_out);
        }
        for level in plan.levels.iter().rev() {
            if let Some(group) = &level.add_group {
                self.add.dispatch(pass, group, level.len_out);
            }
        }
    }
}
