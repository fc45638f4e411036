//! Adapter selection and the device.
//!
//! ```text
//!   Auto: the best real GPU (discrete > integrated > virtual), else None -> the caller runs on the CPU
//!   Any:  the same, else any adapter at all (a software one such as lavapipe), else Error::Gpu
//! ```
//! Native backends (Vulkan, Metal, DX12) are preferred over GL. The device is
//! requested with the adapter's own limits (not WebGPU's downlevel defaults),
//! so a scene of 1,000,000+ grains needs no code change; [`GpuContext::check`]
//! compares a scene's buffers with those limits up front.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// Which adapters are acceptable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdapterChoice {
    /// A real GPU only (`--backend auto`).
    Auto,
    /// Any adapter, software ones included (`--backend gpu`, tests on lavapipe).
    Any,
}

/// The device, its queue and what the adapter is. Cloning shares the same
/// device (wgpu devices and queues are shared handles) and the same counts.
#[derive(Clone)]
pub struct GpuContext {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    transfers: Arc<Counts>,
}

/// Command submissions and host read-backs (a wait for a mapped buffer)
/// since the device was made: what each costs a step is a design figure
/// (tests/gpu_transfers.rs, `hourglass bench --suite`); and the time the
/// host spent blocked on the device.
#[derive(Debug, Default)]
struct Counts {
    submits: AtomicU64,
    readbacks: AtomicU64,
    wait_ns: AtomicU64,
}

/// [`GpuContext::transfers`]: submissions and read-backs so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Transfers {
    pub submits: u64,
    pub readbacks: u64,
    /// Nanoseconds the host spent in [`GpuContext::wait`]: the device's
    /// work it waited for, and the latency of the wait itself.
    pub wait_ns: u64,
}

fn type_rank(t: wgpu::DeviceType) -> Option<u32> {
    match t {
        wgpu::DeviceType::DiscreteGpu => Some(0),
        wgpu::DeviceType::IntegratedGpu => Some(1),
        wgpu::DeviceType::VirtualGpu => Some(2),
        wgpu::DeviceType::Other | wgpu::DeviceType::Cpu => None,
    }
}

impl GpuContext {
    /// Submit one command buffer (counted).
    pub fn submit(&self, commands: wgpu::CommandBuffer) {
        self.transfers.submits.fetch_add(1, Ordering::Relaxed);
        self.queue.submit([commands]);
    }

    /// Count one host read-back (the caller maps a buffer and waits for it).
    pub fn count_readback(&self) {
        self.transfers.readbacks.fetch_add(1, Ordering::Relaxed);
    }

    /// Submissions and read-backs since the device was made.
    pub fn transfers(&self) -> Transfers {
        Transfers {
            submits: self.transfers.submits.load(Ordering::Relaxed),
            readbacks: self.transfers.readbacks.load(Ordering::Relaxed),
            wait_ns: self.transfers.wait_ns.load(Ordering::Relaxed),
        }
    }

    /// Block until all submitted work (and pending buffer maps) is done
    /// (timed into [`Transfers::wait_ns`]).
    pub fn wait(&self) -> Result<()> {
        let start = std::time::Instant::now();
        let waited = self
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| Error::Gpu(format!("waiting for the device: {e}")));
        let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.transfers.wait_ns.fetch_add(ns, Ordering::Relaxed);
        waited
    }

    /// The device of the best acceptable adapter; `Ok(None)` when `Auto` finds no real GPU.
    pub fn new(choice: AdapterChoice) -> Result<Option<GpuContext>> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        // Native backends first; GL (noisy to probe headless) only when they have nothing.
        let mut adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::PRIMARY));
        if adapters.is_empty() {
            adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::GL));
        }
        let rank = |a: &wgpu::Adapter| {
            let info = a.get_info();
            let native = u32::from(info.backend == wgpu::Backend::Gl);
            (type_rank(info.device_type).unwrap_or(3), native)
        };
        let best = adapters
            .into_iter()
            .filter(|a| choice == AdapterChoice::Any || type_rank(a.get_info().device_type).is_some())
            .min_by_key(rank);
        let Some(adapter) = best else {
            return match choice {
                AdapterChoice::Auto => Ok(None),
                AdapterChoice::Any => Err(Error::Gpu(
                    "no GPU adapter found (no Vulkan, Metal, DX12 or GL device; install a driver or Mesa lavapipe, or use --backend cpu)"
                        .to_string(),
                )),
            };
        };
        Self::from_adapter(&adapter).map(Some)
    }

    /// The device of an adapter the caller chose (e.g. one that can present
    /// to a window's surface), with the adapter's own limits.
    pub fn from_adapter(adapter: &wgpu::Adapter) -> Result<GpuContext> {
        let info = adapter.get_info();
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("hourglass.device"),
            required_features: wgpu::Features::empty(),
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| Error::Gpu(format!("{}: cannot open the device: {e}", info.name)))?;
        Ok(GpuContext {
            device,
            queue,
            info,
            limits,
            transfers: Arc::default(),
        })
    }

    /// A real GPU (not a software adapter such as lavapipe).
    pub fn is_hardware(&self) -> bool {
        type_rank(self.info.device_type).is_some()
    }

    /// The adapter's name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub fn adapter_name(&self) -> String {
        self.info.name.clone()
    }

    /// Fail with one line naming the limit when a buffer of `bytes` (`what`)
    /// cannot be created or bound, or when a stage binds more storage buffers
    /// than the adapter allows.
    pub fn check(&self, buffers: &[(&str, u64)], storage_per_stage: u32) -> Result<()> {
        let l = &self.limits;
        for &(what, bytes) in buffers {
            if bytes > l.max_buffer_size {
                return Err(Error::Gpu(format!(
                    "{}: {what} needs a {bytes}-byte buffer but max_buffer_size is {}",
                    self.info.name, l.max_buffer_size
                )));
            }
            if bytes > l.max_storage_buffer_binding_size {
                return Err(Error::Gpu(format!(
                    "{}: {what} needs a {bytes}-byte storage binding but max_storage_buffer_binding_size is {}",
                    self.info.name, l.max_storage_buffer_binding_size
                )));
            }
            let groups = (bytes / 4).div_ceil(u64::from(super::WORKGROUP_SIZE));
            let max = u64::from(l.max_compute_workgroups_per_dimension);
            if groups > max * max {
                return Err(Error::Gpu(format!(
                    "{}: {what} needs {groups} workgroups but max_compute_workgroups_per_dimension is {max} (2D dispatch)",
                    self.info.name
                )));
            }
        }
        if storage_per_stage > l.max_storage_buffers_per_shader_stage {
            return Err(Error::Gpu(format!(
                "{}: a stage binds {storage_per_stage} storage buffers but max_storage_buffers_per_shader_stage is {}",
                self.info.name, l.max_storage_buffers_per_shader_stage
            )));
        }
        if l.max_compute_invocations_per_workgroup < super::WORKGROUP_SIZE
            || l.max_compute_workgroup_size_x < super::WORKGROUP_SIZE
        {
            return Err(Error::Gpu(format!(
                "{}: workgroups of {wg} invocations need max_compute_invocations_per_workgroup and max_compute_workgroup_size_x >= {wg} (they are {} and {})",
                self.info.name,
                l.max_compute_invocations_per_workgroup,
                l.max_compute_workgroup_size_x,
                wg = super::WORKGROUP_SIZE
            )));
        }
        Ok(())
    }
}
