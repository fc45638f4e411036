//! The grains for drawing, wherever they are: host arrays, or the GPU
//! backend's own buffers bound in place (no copy through the host).

use super::GpuContext;
use crate::model::{ContactLists, Dim2, Grains, Space};

/// What a renderer draws the grains from.
pub enum GrainView<'a, S: Space = Dim2> {
    /// Host arrays, with this step's contact lists where the backend has them.
    Host {
        grains: &'a Grains<S>,
        contacts: Option<&'a ContactLists<S>>,
    },
    /// The GPU backend's own buffers.
    Device(DeviceGrains<'a>),
}

/// The grain arrays and this step's contact lists as they sit on the device
/// (in the backend's current order, which reordering permutes; `id` travels
/// with the grains), for a renderer to bind in place.
pub struct DeviceGrains<'a> {
    pub ctx: &'a GpuContext,
    pub len: u32,
    /// `vec2<f32>` per grain, m.
    pub pos: &'a wgpu::Buffer,
    /// `vec2<f32>` per grain, m/s.
    pub vel: &'a wgpu::Buffer,
    /// f32 per grain, m.
    pub radius: &'a wgpu::Buffer,
    /// f32 per grain, 1/kg.
    pub inv_mass: &'a wgpu::Buffer,
    /// u32 per grain.
    pub id: &'a wgpu::Buffer,
    /// Contacts per grain (u32), and `capacity` [`crate::model::Contact`] slots per grain.
    pub count: &'a wgpu::Buffer,
    pub slots: &'a wgpu::Buffer,
    pub capacity: u32,
    /// f32 per grain, rad (NSCD; `None` where the model keeps no angle).
    pub angle: Option<&'a wgpu::Buffer>,
}
