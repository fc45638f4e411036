//! Bisection: the CPU's output of the plan stages before a boundary, put
//! where the GPU stages after it read it ([`GpuBackend::step_from`];
//! `crate::backend::bisect` drives it).

use super::GpuBackend;
use crate::gpu::pipeline::{ID, INV_MASS, POS, RADIUS, VEL};
use crate::gpu::{STAT_CONTACTS, STAT_OVERFLOW, STAT_OVERLAP};
use crate::model::{ContactLists, Grains};

impl GpuBackend {
    fn write<T: bytemuck::Pod>(&self, buffer: &wgpu::Buffer, data: &[T]) {
        if !data.is_empty() {
            self.core.ctx.queue.write_buffer(buffer, 0, bytemuck::cast_slice(data));
        }
    }

    /// Replace the device grains with `grains`, in the device's order (id
    /// order until a reorder; an upload cancels the next reorder).
    pub fn upload_grains(&mut self, grains: &Grains) {
        let g = &self.core.bufs.grains;
        self.write(&g[POS], &grains.pos);
        self.write(&g[VEL], &grains.vel);
        self.write(&g[RADIUS], &grains.radius);
        self.write(&g[INV_MASS], &grains.inv_mass);
        self.write(&g[ID], &grains.id);
        let s = &self.bufs.spins;
        if grains.ang_vel.len() == grains.len() && grains.angle.len() == grains.len() {
            self.write(&s.spin, &grains.ang_vel);
            self.write(&s.angle, &grains.angle);
        }
        self.binned = false;
        self.host_fresh = false;
    }

    /// The spins before the contacts act (friction; the `SpinFree` stage's
    /// output, read by the first gather).
    pub fn upload_spin_free(&self, spin_free: &[f32]) {
        self.write(&self.bufs.spins.spin_free, spin_free);
    }

    /// Stage `free_velocity`'s output.
    pub fn upload_vel_free(&self, vel_free: &[[f32; 2]]) {
        self.write(&self.bufs.vel_free, vel_free);
    }

    /// The binning's output read by `detect`: `cell_start` (cells + 1) and `sorted` (n).
    pub fn upload_bins(&self, cell_start: &[u32], sorted: &[u32]) {
        self.write(&self.core.bufs.cell_start, cell_start);
        self.write(&self.core.bufs.sorted, sorted);
    }

    /// This step's contact lists (capacity K, impulses as the stage before
    /// the GPU left them).
    pub fn upload_lists(&self, lists: &ContactLists) {
        self.write(&self.core.bufs.count[self.cur], &lists.count);
        self.write(&self.core.bufs.slots[self.cur], &lists.slots);
    }

    /// The counters as detection leaves them (the step from `detect` on clears none).
    pub fn upload_counters(&self, overflow: u64, contacts: u64, overlap: f32) {
        let mut words = [0u32; crate::gpu::STAT_WORDS as usize];
        words[STAT_OVERLAP as usize] = overlap.to_bits();
        words[STAT_OVERFLOW as usize] = overflow as u32;
        words[STAT_CONTACTS as usize] = contacts as u32;
        self.write(&self.core.bufs.stats, &words);
    }
}
