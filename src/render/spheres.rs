//! Pictures of a 3D run: shaded spheres and the walls' edges seen through
//! an [`Orbit`] camera (shaders/sphere_render.wgsl).
//!
//! ```text
//!   spheres: instances [x y z r] + sRGB colour, one eye-facing quad each,
//!            cut to the sphere by a ray cast per fragment (true depth, so
//!            spheres that overlap intersect correctly), ambient + Lambert
//!   walls:   the edges of walls.vtp's triangles and squares, one line each,
//!            hidden behind the spheres they pass behind
//!   cut-away: spheres whose centre, and edges whose ends, lie on the eye's
//!            side of the plane through the target facing the eye are left
//!            out (`Orbit::in_front`): the inside of an hourglass shows
//!   legend:  the 2D pictures' legend, drawn onto the picture on the host
//! ```
//! Colours are chosen on the host with the plane's colour modes and maps
//! ([`sphere_colors`]): a colour means the same in 2D and 3D pictures.

use bytemuck::{Pod, Zeroable};
use image::RgbaImage;

use super::orbit::Orbit;
use super::{ColorMode, Offscreen, Ranges, WALL_COLOR, band_color, colormap, offscreen};
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::model::Grains;
use crate::model::space::Dim3;

/// The light every point gets, 0..1; the rest comes from the light's direction.
pub const AMBIENT: f32 = 0.35;
/// The direction towards the light in eye coordinates (up, left, towards the eye).
pub const LIGHT: [f32; 3] = [-0.4, 0.6, 0.7];
/// Quad half side over the sphere's radius: covers the sphere's outline
/// under the field of view's perspective.
const QUAD_SCALE: f32 = 1.5;
/// The depth buffer's format.
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The uniform of shaders/sphere_render.wgsl (`View`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
struct SphereUniform {
    view: [[f32; 4]; 4],
    proj: [[f32; 4]; 4],
    light: [f32; 4],
    wall: [f32; 4],
    ambient: f32,
    quad_scale: f32,
    srgb_target: u32,
    pad: u32,
}

/// One sphere as the vertex shader reads it.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
struct Instance {
    centre_radius: [f32; 4],
    color: [u8; 4],
}

/// What one 3D picture shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SphereFrame {
    pub orbit: Orbit,
    pub mode: ColorMode,
    pub ranges: Ranges,
    /// Leave out the half in front of the target (the cut-away).
    pub cut: bool,
    /// Draw the colour legend.
    pub legend: bool,
}

/// The fixed colour scales of a 3D scene: as [`Ranges::for_scene`] in the
/// plane, with `height` (m) the height the grains can fall and `g` (m/s^2)
/// gravity's magnitude.
pub fn sphere_ranges(grains: &Grains<Dim3>, height: f32, g: f32) -> Ranges {
    let r_min = grains.radius.iter().copied().fold(f32::INFINITY, f32::min);
    let r_max = grains.radius.iter().copied().fold(0.0, f32::max);
    let (r_min, r_max) = if r_min.is_finite() && r_max > r_min {
        (r_min, r_max)
    } else {
        (0.0, r_max.max(1e-6))
    };
    let r_mean = if grains.radius.is_empty() {
        1.0
    } else {
        grains.radius.iter().sum::<f32>() / grains.radius.len() as f32
    };
    let h = if height > 0.0 { height } else { 1.0 };
    Ranges {
        ids: grains.id.iter().copied().max().map_or(1, |m| m + 1),
        speed: [0.0, (2.0 * g * h).sqrt().max(1e-3)],
        radius: [r_min, r_max],
        load: [0.0, (0.5 * h / (2.0 * r_mean)).max(2.0)],
        g_dt: 1.0,
    }
}

/// The colour (sRGB bytes) of each sphere under `mode`: the band of its
/// id, or its speed or radius on the colour map over `ranges`; frames hold
/// no contact loads, so [`ColorMode::Load`] colours by height.
pub fn sphere_colors(grains: &Grains<Dim3>, mode: ColorMode, ranges: &Ranges) -> Vec<[u8; 3]> {
    let along = |x: f32, r: [f32; 2]| colormap((x - r[0]) / (r[1] - r[0]).max(f32::MIN_POSITIVE));
    (0..grains.radius.len())
        .map(|i| match mode {
            ColorMode::Speed => {
                let v = grains.vel[i];
                along((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt(), ranges.speed)
            }
            ColorMode::Radius => along(grains.radius[i], ranges.radius),
            ColorMode::Height | ColorMode::Load => band_color(grains.id[i], ranges.ids),
        })
        .collect()
}

/// A vertex buffer grown on demand.
struct Vertices {
    label: &'static str,
    buf: wgpu::Buffer,
    count: u32,
}

impl Vertices {
    fn new(ctx: &GpuContext, label: &'static str) -> Vertices {
        Vertices {
            label,
            buf: Self::make(ctx, label, 64),
            count: 0,
        }
    }

    fn make(ctx: &GpuContext, label: &str, bytes: u64) -> wgpu::Buffer {
        ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes.max(64).next_multiple_of(16),
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    fn upload<T: Pod>(&mut self, ctx: &GpuContext, items: &[T]) {
        let bytes: &[u8] = bytemuck::cast_slice(items);
        if bytes.len() as u64 > self.buf.size() {
            self.buf = Self::make(ctx, self.label, (bytes.len() as u64).next_power_of_two());
        }
        if !bytes.is_empty() {
            ctx.queue.write_buffer(&self.buf, 0, bytes);
        }
        self.count = items.len() as u32;
    }
}

/// The sphere and wall pipelines, their buffers and a depth buffer of the
/// target's size.
pub struct SphereRenderer {
    srgb_target: bool,
    spheres: wgpu::RenderPipeline,
    walls: wgpu::RenderPipeline,
    uniform: wgpu::Buffer,
    group: wgpu::BindGroup,
    instances: Vertices,
    edges: Vertices,
    /// Every wall edge; those drawn depend on the cut.
    all_edges: Vec<[[f32; 3]; 2]>,
    depth: Option<(u32, u32, wgpu::TextureView)>,
}

impl SphereRenderer {
    /// Pipelines for targets of `format` (an sRGB format gets linear values written).
    pub fn new(ctx: &GpuContext, format: wgpu::TextureFormat) -> SphereRenderer {
        let module = ctx.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("hourglass.render3d"),
            source: wgpu::ShaderSource::Wgsl(include_str!("../../shaders/sphere_render.wgsl").into()),
        });
        let layout = ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("hourglass.render3d.view"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let pipeline_layout = ctx.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("hourglass.render3d"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let instance_attrs = wgpu::vertex_attr_array![0 => Float32x4, 1 => Unorm8x4];
        let edge_attrs = wgpu::vertex_attr_array![0 => Float32x3];
        let pipeline = |label: &str, vs: &str, fs: &str, buffer: wgpu::VertexBufferLayout, topology| {
            ctx.device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(vs),
                    compilation_options: Default::default(),
                    buffers: &[Some(buffer)],
                },
                primitive: wgpu::PrimitiveState {
                    topology,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::LessEqual),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend: None,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let spheres = pipeline(
            "hourglass.render3d.spheres",
            "sphere_vs",
            "sphere_fs",
            wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<Instance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &instance_attrs,
            },
            wgpu::PrimitiveTopology::TriangleList,
        );
        let walls = pipeline(
            "hourglass.render3d.walls",
            "wall_vs",
            "wall_fs",
            wgpu::VertexBufferLayout {
                array_stride: 12,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &edge_attrs,
            },
            wgpu::PrimitiveTopology::LineList,
        );
        let uniform = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("hourglass.render3d.view"),
            size: std::mem::size_of::<SphereUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("hourglass.render3d.view"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            }],
        });
        SphereRenderer {
            srgb_target: format.is_srgb(),
            spheres,
            walls,
            uniform,
            group,
            instances: Vertices::new(ctx, "hourglass.render3d.instances"),
            edges: Vertices::new(ctx, "hourglass.render3d.edges"),
            all_edges: Vec::new(),
            depth: None,
        }
    }

    /// The wall edges drawn from the next picture on.
    pub fn set_walls(&mut self, edges: &[[[f32; 3]; 2]]) {
        self.all_edges = edges.to_vec();
    }

    /// The depth buffer for a `width` x `height` target.
    fn depth_view(&mut self, ctx: &GpuContext, width: u32, height: u32) -> wgpu::TextureView {
        if let Some((w, h, view)) = &self.depth
            && (*w, *h) == (width, height)
        {
            return view.clone();
        }
        let texture = ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("hourglass.render3d.depth"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        self.depth = Some((width, height, view.clone()));
        view
    }

    /// Draw `grains` and the walls as `frame` says into `target`
    /// (`width` x `height` px), over the background.
    pub fn draw(
        &mut self,
        ctx: &GpuContext,
        grains: &Grains<Dim3>,
        frame: &SphereFrame,
        target: &wgpu::TextureView,
        size: [u32; 2],
    ) {
        let [width, height] = size;
        let o = &frame.orbit;
        let colors = sphere_colors(grains, frame.mode, &frame.ranges);
        let instances: Vec<Instance> = (0..grains.radius.len())
            .filter(|&i| !(frame.cut && o.in_front(grains.pos[i])))
            .map(|i| {
                let [x, y, z] = grains.pos[i];
                let c = colors[i];
                Instance {
                    centre_radius: [x, y, z, grains.radius[i]],
                    color: [c[0], c[1], c[2], 255],
                }
            })
            .collect();
        let edges: Vec<[[f32; 3]; 2]> = self
            .all_edges
            .iter()
            .filter(|e| !(frame.cut && o.in_front(e[0]) && o.in_front(e[1])))
            .copied()
            .collect();
        self.instances.upload(ctx, &instances);
        self.edges.upload(ctx, bytemuck::cast_slice::<_, [f32; 3]>(&edges));
        // Everything drawn lies within `reach` of the target.
        let reach = instances
            .iter()
            .map(|s| {
                let c = s.centre_radius;
                let d = [c[0] - o.target[0], c[1] - o.target[1], c[2] - o.target[2]];
                (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() + c[3]
            })
            .chain(edges.iter().flatten().map(|p| {
                let d = [p[0] - o.target[0], p[1] - o.target[1], p[2] - o.target[2]];
                (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
            }))
            .fold(1e-3f32, f32::max)
            * 1.01;
        let l = LIGHT;
        let ln = (l[0] * l[0] + l[1] * l[1] + l[2] * l[2]).sqrt();
        let uniform = SphereUniform {
            view: o.view(),
            proj: o.projection(width.max(1) as f32 / height.max(1) as f32, reach),
            light: [l[0] / ln, l[1] / ln, l[2] / ln, 0.0],
            wall: [0, 1, 2, 3].map(|k| f32::from(WALL_COLOR[k]) / 255.0),
            ambient: AMBIENT,
            quad_scale: QUAD_SCALE,
            srgb_target: u32::from(self.srgb_target),
            pad: 0,
        };
        ctx.queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&uniform));
        let depth = self.depth_view(ctx, width.max(1), height.max(1));
        let mut enc = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("hourglass.render3d"),
        });
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("hourglass.render3d"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(super::clear_color(self.srgb_target)),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.group, &[]);
            if self.instances.count > 0 {
                pass.set_pipeline(&self.spheres);
                pass.set_vertex_buffer(0, self.instances.buf.slice(..));
                pass.draw(0..6, 0..self.instances.count);
            }
            if self.edges.count > 0 {
                pass.set_pipeline(&self.walls);
                pass.set_vertex_buffer(0, self.edges.buf.slice(..));
                pass.draw(0..self.edges.count, 0..1);
            }
        }
        ctx.submit(enc.finish());
    }
}

/// 3D pictures drawn offscreen, one per call, at a fixed camera and colour
/// scale (`hourglass render` of a 3D run).
pub struct SphereMovie {
    ctx: GpuContext,
    renderer: SphereRenderer,
    target: Offscreen,
    pub frame: SphereFrame,
}

impl SphereMovie {
    /// A `size` = [width, height] px view showing `frame`, the walls' `edges`.
    pub fn new(ctx: &GpuContext, edges: &[[[f32; 3]; 2]], frame: SphereFrame, size: [u32; 2]) -> SphereMovie {
        let mut renderer = SphereRenderer::new(ctx, offscreen::FORMAT);
        renderer.set_walls(edges);
        SphereMovie {
            ctx: ctx.clone(),
            renderer,
            target: Offscreen::new(ctx, size[0], size[1]),
            frame,
        }
    }

    /// One picture of `grains`.
    pub fn draw(&mut self, grains: &Grains<Dim3>) -> Result<RgbaImage> {
        let (w, h) = self.target.size();
        self.renderer
            .draw(&self.ctx, grains, &self.frame, self.target.view(), [w, h]);
        let mut img = self.target.read(&self.ctx)?;
        if self.frame.legend {
            let legend = super::legend::legend_image(self.frame.mode, &self.frame.ranges);
            image::imageops::overlay(&mut img, &legend, 8, 8);
        }
        Ok(img)
    }
}
