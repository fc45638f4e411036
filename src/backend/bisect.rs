//! [`BisectBackend`]: the CPU twins run an NSCD step up to a named stage and
//! the GPU runs it from there on (vello's `force_gpu_from`), to find the stage
//! at which the two backends start to disagree.
//!
//! ```text
//!   GpuFrom        CPU runs                              uploaded before the GPU stages
//!   free_velocity  nothing                               grains
//!   detect         free_velocity, binning                + vel_free, cell_start, sorted
//!   warm_start     ... detect                            + contact lists, counters
//!   solve          ... warm_start, first gather          + impulses, velocities
//!   integrate      ... the whole solve (CpuStepper::step) grains with the solved velocities,
//!                                                        the lists with their final impulses
//!                                                        (the split push-out's correction runs
//!                                                        on the GPU, with integrate)
//! ```
//! Every step starts from the host grains (the GPU's result of the last step,
//! read back), so the GPU never reorders and indices are ids. Warm start
//! reads last step's impulses where that step solved them: on the device from
//! `free_velocity` to `warm_start`, read back for `solve`, the CPU stepper's
//! own for `integrate`. Pick the boundary in code ([`BisectBackend::new`]) or
//! from `HOURGLASS_GPU_FROM=<stage>` ([`GpuFrom::from_env`]); tests/gpu_bisect.rs
//! runs every boundary against the pure CPU and pure GPU steps. A debugging
//! tool: it reads the grains back every step.

use super::{Backend, BackendKind};
use crate::cpu::CpuStepper;
use crate::cpu::cohesion::cohesion;
use crate::cpu::integrate::free_velocity;
use crate::cpu::jacobi::{Free, Moving, jacobi_gather};
use crate::cpu::reduce::reduce;
use crate::cpu::warm_start::warm_start;
use crate::error::Result;
use crate::gpu::GpuBackend;
use crate::gpu::step::GpuFrom;
use crate::model::{ContactLists, Grains, Grid, Region, StepParams, StepStats, Totals, Walls};

pub use crate::gpu::step::GpuFrom as Boundary;

/// CPU stages up to [`BisectBackend::from`], GPU stages from it on.
pub struct BisectBackend {
    /// The grains between steps (id order).
    pub grains: Grains,
    pub walls: Walls,
    pub cpu: CpuStepper,
    pub gpu: GpuBackend,
    /// The first stage the GPU runs.
    pub from: GpuFrom,
    /// Last step's lists with their final impulses (the warm start of `solve`).
    prev: ContactLists,
    vel_free: Vec<[f32; 2]>,
}

impl BisectBackend {
    /// `gpu` must hold `grains` as uploaded (a fresh [`GpuBackend`] of them).
    pub fn new(grains: Grains, walls: Walls, grid: Grid, gpu: GpuBackend, from: GpuFrom) -> Self {
        let capacity = gpu.device_grains().capacity as usize;
        let mut gpu = gpu;
        gpu.reorder_every = 0;
        BisectBackend {
            grains: grains.into_id_order(),
            walls,
            cpu: CpuStepper::new(grid, capacity),
            gpu,
            from,
            prev: ContactLists::new(0, capacity),
            vel_free: Vec::new(),
        }
    }

    /// One step: the CPU stages before `from`, their output uploaded, the GPU stages after.
    pub fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        let p = &p.resolved(true);
        let mut cpu_stats = None;
        match self.from {
            GpuFrom::FreeVelocity => {}
            GpuFrom::Integrate => {
                // The CPU's whole step on a copy; the GPU integrates its velocities.
                let mut solved = self.grains.clone();
                cpu_stats = Some(self.cpu.step(&mut solved, &self.walls, p)?);
                self.grains.vel = solved.vel;
                // With friction the GPU turns the grains by the CPU's spins.
                self.grains.ang_vel = solved.ang_vel;
                // The correction (overlap_iterations > 0) reads this step's lists.
                self.gpu.upload_lists(self.cpu.contacts());
            }
            _ => self.cpu_stages(p),
        }
        self.gpu.upload_grains(&self.grains);
        let gpu_stats = self.gpu.step_from(p, self.from)?;
        self.grains = self.gpu.grains()?.clone();
        if self.from == GpuFrom::Solve {
            self.prev = self.gpu.read_lists()?;
        }
        Ok(cpu_stats.unwrap_or(gpu_stats))
    }

    /// Free velocity, and binning (`detect`) or detection, warm start and the
    /// first gather (`warm_start`, `solve`) on the CPU, uploaded.
    fn cpu_stages(&mut self, p: &StepParams) {
        let n = self.grains.len();
        self.vel_free.resize(n, [0.0; 2]);
        let g = &self.grains;
        free_velocity(&g.vel, &g.inv_mass, p.gravity, p.dt, &mut self.vel_free);
        if p.forcing.sigma > 0.0 {
            let f = crate::model::Forcing {
                step: self.gpu.steps() as u32,
                ..p.forcing
            };
            crate::cpu::integrate::forcing(&g.inv_mass, &g.id, f, p.dt, &mut self.vel_free);
        }
        self.gpu.upload_vel_free(&self.vel_free);
        if self.from == GpuFrom::Detect {
            let bins = &mut self.cpu.bins;
            bins.build(&self.cpu.grid, &g.pos);
            self.gpu.upload_bins(&bins.cell_start, &bins.sorted);
            self.gpu.upload_counters(0, 0, 0.0);
            return;
        }
        let mut lists = self.cpu.detect(g, &self.walls, p.alert).clone();
        self.gpu
            .upload_counters(lists.overflow(), lists.distinct(), lists.max_overlap());
        if self.from == GpuFrom::Solve {
            if p.cohesion.on() {
                // The GPU's Cohesion stage does not run from `solve` on.
                let (k, g) = (lists.capacity, &self.grains);
                cohesion(
                    &p.cohesion,
                    p.dt,
                    &lists.count,
                    &lists.slots,
                    k,
                    &g.radius,
                    &g.inv_mass,
                    &mut self.vel_free,
                );
                self.gpu.upload_vel_free(&self.vel_free);
            }
            if p.warm_start {
                warm_start(&self.prev, &mut lists);
            }
            if p.restitution > 0.0 {
                let (c, k) = (&lists.count, lists.capacity);
                crate::cpu::warm_start::bounce(c, &mut lists.slots, k, &g.vel, p.restitution, p.dt);
            }
            let (k, g) = (lists.capacity, &mut self.grains);
            if p.friction() {
                // The GPU's SpinFree stage does not run from `solve` on.
                g.ang_vel.resize(n, 0.0);
                let spin_free = g.ang_vel.clone();
                let (c, s) = (&lists.count, &lists.slots);
                let free = Free {
                    vel: &self.vel_free,
                    inv_mass: &g.inv_mass,
                    spin: &spin_free,
                    radius: &g.radius,
                };
                let out = Moving {
                    vel: &mut g.vel,
                    spin: &mut g.ang_vel,
                };
                jacobi_gather::<true>(c, s, k, &free, out);
                self.gpu.upload_spin_free(&spin_free);
            } else {
                let free = Free {
                    vel: &self.vel_free,
                    inv_mass: &g.inv_mass,
                    spin: &[],
                    radius: &[],
                };
                let out = Moving {
                    vel: &mut g.vel,
                    spin: &mut [],
                };
                jacobi_gather::<false>(&lists.count, &lists.slots, k, &free, out);
            }
        }
        self.gpu.upload_lists(&lists);
    }
}

impl Backend for BisectBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Gpu
    }
    fn adapter(&self) -> String {
        format!(
            "{} (CPU before {})",
            self.gpu.context().adapter_name(),
            self.from.name()
        )
    }
    fn step(&mut self, p: &StepParams) -> Result<StepStats> {
        BisectBackend::step(self, p)
    }
    fn set_walls(&mut self, walls: &Walls) {
        self.walls = walls.clone();
        self.cpu.reset_warm_start();
        self.prev = ContactLists::new(0, self.prev.capacity);
        self.gpu.set_walls(walls);
    }
    fn grains(&mut self) -> Result<&Grains> {
        Ok(&self.grains)
    }
    fn totals(&mut self, region: &Region) -> Result<Totals> {
        if self.from == GpuFrom::Integrate {
            // The device lists are not this step's: the CPU's are.
            Ok(reduce(&self.grains, self.cpu.contacts(), &self.walls, region))
        } else {
            self.gpu.totals(region)
        }
    }
}
