//! Pictures of a 3D run: shaded spheres and the walls' edges seen through
//! an [`Orbit`] camera (shaders/sphere_render.wgsl).
//!
//! ```text
//!   spheres: instances [x y z r] + sRGB colour, one eye-facing quad each,
//!            cut to the sphere by a ray cast per fragment (true depth, so
//!            spheres that overlap intersect correctly), ambient + Lambert
//!   walls:   walls.vtp's polygons as translucent faces (shaded by the
//!            light, seen from either side; no depth written, so what lies
//!            behind shows) and their feature edges as lines: an edge of one
//!            polygon only, or between two that turn by more than
//!            `FEATURE_DEG` (a box's edges, a mesh's rims, not the facets
//!            of a cone)
//!   cut-away: the vertical plane through the target facing the eye
//!            (`Orbit::cut_normal`) cuts the walls
//!            (their faces and edges on the eye's side are clipped off) and
//!            the spheres whose centre lies on that side are left out
//!            (`Orbit::in_front`): the inside shows
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
use crate::model::walls3d::clip_polygon;

/// The light every point gets, 0..1; the rest comes from the light's direction.
pub const AMBIENT: f32 = 0.35;
/// The direction towards the light in eye coordinates (up, left, towards the eye).
pub const LIGHT: [f32; 3] = [-0.4, 0.6, 0.7];
/// The opacity of the walls' faces.
pub const FACE_ALPHA: f32 = 0.16;
/// Edges between faces turning by more than this, degrees, are drawn.
pub const FEATURE_DEG: f32 = 20.0;
/// Quad half side over the sphere's radius, before the shader widens it
/// by the perspective's stretch of the outline (off the axis, and near the
/// eye): a margin over the exact outline.
const QUAD_SCALE: f32 = 1.1;
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
    face_alpha: f32,
}

/// One sphere as the vertex shader reads it.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
struct Instance {
    centre_radius: [f32; 4],
    color: [u8; 4],
}

/// One corner of a wall face as the vertex shader reads it: the face's
/// unit normal at each corner.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
struct FaceVertex {
    pos: [f32; 3],
    normal: [f32; 3],
}

/// The walls as drawn: faces (the polygons with area, each with its unit
/// normal) and feature edges.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WallPicture {
    pub faces: Vec<(Vec<[f32; 3]>, [f32; 3])>,
    pub edges: Vec<[[f32; 3]; 2]>,
}

impl WallPicture {
    /// The faces and feature edges of `polygons` (their corners in order;
    /// corners shared by polygons have the same coordinates, as walls.vtp
    /// writes them). A polygon without area has no face and no normal: its
    /// edges count as those of one polygon.
    pub fn of(polygons: &[Vec<[f32; 3]>]) -> WallPicture {
        use std::collections::HashMap;
        let key = |p: [f32; 3]| p.map(f32::to_bits);
        // Per edge (its ends' bits, in order): the normals of its faces, and its ends.
        type Faces = (Vec<[f32; 3]>, [[f32; 3]; 2]);
        let mut normals: HashMap<([u32; 3], [u32; 3]), Faces> = HashMap::new();
        let mut order = Vec::new();
        let mut faces = Vec::new();
        for poly in polygons {
            let k = poly.len();
            if k < 3 {
                continue;
            }
            // Newell's normal: the sum of the sides' cross terms.
            let mut n = [0.0f32; 3];
            for j in 0..k {
                let (a, b) = (poly[j], poly[(j + 1) % k]);
                n[0] += (a[1] - b[1]) * (a[2] + b[2]);
                n[1] += (a[2] - b[2]) * (a[0] + b[0]);
                n[2] += (a[0] - b[0]) * (a[1] + b[1]);
            }
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            let normal = (len > 0.0 && len.is_finite()).then(|| n.map(|x| x / len));
            if let Some(n) = normal {
                faces.push((poly.clone(), n));
            }
            for j in 0..k {
                let (a, b) = (poly[j], poly[(j + 1) % k]);
                let e = if key(a) <= key(b) {
                    (key(a), key(b))
                } else {
                    (key(b), key(a))
                };
                let entry = normals.entry(e).or_insert_with(|| {
                    order.push(e);
                    (Vec::new(), [a, b])
                });
                // A face without a normal stands for a second, unmatched face.
                entry.0.push(normal.unwrap_or([f32::NAN; 3]));
            }
        }
        let cos = FEATURE_DEG.to_radians().cos();
        let edges = order
            .iter()
            .filter_map(|e| {
                let (ns, ends) = &normals[e];
                let feature = match ns.as_slice() {
                    // NaN (a face without a normal) counts as a turn.
                    [a, b] => {
                        (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]).partial_cmp(&cos) != Some(std::cmp::Ordering::Greater)
                    }
                    _ => true,
                };
                feature.then_some(*ends)
            })
            .collect();
        WallPicture { faces, edges }
    }

    /// The triangles to draw, each corner with its face's normal: every
    /// face as a fan from its first corner, or, with a `cut` (a point and
    /// the normal of the side kept), the part of it on the kept side.
    fn triangles(&self, cut: Option<([f32; 3], [f32; 3])>) -> Vec<FaceVertex> {
        let mut out = Vec::new();
        for (poly, normal) in &self.faces {
            let kept = match cut {
                Some((point, side)) => clip_polygon(poly, point, side),
                None => poly.clone(),
            };
            for j in 1..kept.len().saturating_sub(1) {
                let normal = *normal;
                out.extend([kept[0], kept[j], kept[j + 1]].map(|pos| FaceVertex { pos, normal }));
            }
        }
        out
    }

    /// The edges to draw: every feature edge, or, with a `cut`, the part of
    /// each on the kept side.
    fn edges(&self, cut: Option<([f32; 3], [f32; 3])>) -> Vec<[[f32; 3]; 2]> {
        let Some((point, side)) = cut else {
            return self.edges.clone();
        };
        let at = |x: [f32; 3]| (0..3).map(|k| side[k] * (x[k] - point[k])).sum::<f32>();
        self.edges
            .iter()
            .filter_map(|&[a, b]| {
                let (da, db) = (at(a), at(b));
                let cross = |t: f32| [0, 1, 2].map(|k| a[k] + t * (b[k] - a[k]));
                match (da >= 0.0, db >= 0.0) {
                    (true, true) => Some([a, b]),
                    (false, false) => None,
                    (true, false) => Some([a, cross(da / (da - db))]),
                    (false, true) => Some([cross(da / (da - db)), b]),
                }
            })
            .collect()
    }
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
    faces: wgpu::RenderPipeline,
    walls: wgpu::RenderPipeline,
    uniform: wgpu::Buffer,
    group: wgpu::BindGroup,
    instances: Vertices,
    face_vertices: Vertices,
    edges: Vertices,
    /// The walls; those drawn depend on the cut.
    picture: WallPicture,
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
        let face_attrs = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
        let pipeline = |label: &str,
                        vs: &str,
                        fs: &str,
                        buffer: wgpu::VertexBufferLayout,
                        topology,
                        blend: Option<wgpu::BlendState>| {
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
                    depth_write_enabled: Some(blend.is_none()),
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
                        blend,
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
            None,
        );
        let faces = pipeline(
            "hourglass.render3d.faces",
            "face_vs",
            "face_fs",
            wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<FaceVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &face_attrs,
            },
            wgpu::PrimitiveTopology::TriangleList,
            Some(wgpu::BlendState::ALPHA_BLENDING),
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
            None,
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
            faces,
            walls,
            uniform,
            group,
            instances: Vertices::new(ctx, "hourglass.render3d.instances"),
            face_vertices: Vertices::new(ctx, "hourglass.render3d.faces"),
            edges: Vertices::new(ctx, "hourglass.render3d.edges"),
            picture: WallPicture::default(),
            depth: None,
        }
    }

    /// The walls drawn from the next picture on: walls.vtp's polygons.
    pub fn set_walls(&mut self, polygons: &[Vec<[f32; 3]>]) {
        self.picture = WallPicture::of(polygons);
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
        // The kept side of the cut: away from the eye.
        let cut = frame.cut.then(|| (o.target, o.cut_normal().map(|x| -x)));
        let edges = self.picture.edges(cut);
        let faces = self.picture.triangles(cut);
        self.instances.upload(ctx, &instances);
        self.face_vertices.upload(ctx, &faces);
        self.edges.upload(ctx, bytemuck::cast_slice::<_, [f32; 3]>(&edges));
        // Everything drawn lies within `reach` of the target.
        let reach = instances
            .iter()
            .map(|s| {
                let c = s.centre_radius;
                let d = [c[0] - o.target[0], c[1] - o.target[1], c[2] - o.target[2]];
                (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() + c[3]
            })
            .chain(faces.iter().map(|v| &v.pos).chain(edges.iter().flatten()).map(|p| {
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
            face_alpha: FACE_ALPHA,
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
            if self.face_vertices.count > 0 {
                pass.set_pipeline(&self.faces);
                pass.set_vertex_buffer(0, self.face_vertices.buf.slice(..));
                pass.draw(0..self.face_vertices.count, 0..1);
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
    /// A `size` = [width, height] px view showing `frame`, the walls'
    /// `polygons` (walls.vtp's).
    pub fn new(ctx: &GpuContext, polygons: &[Vec<[f32; 3]>], frame: SphereFrame, size: [u32; 2]) -> SphereMovie {
        let mut renderer = SphereRenderer::new(ctx, offscreen::FORMAT);
        renderer.set_walls(polygons);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit cube of twelve triangles: its twelve edges are drawn, not the
    /// faces' diagonals.
    #[test]
    fn a_cube_of_triangles_shows_its_twelve_edges() {
        let c = |k: usize| [(k & 1) as f32, ((k >> 1) & 1) as f32, ((k >> 2) & 1) as f32];
        // Each face's corners in order around it.
        let faces = [
            [0, 1, 3, 2],
            [4, 6, 7, 5],
            [0, 4, 5, 1],
            [2, 3, 7, 6],
            [0, 2, 6, 4],
            [1, 5, 7, 3],
        ];
        let tris: Vec<Vec<[f32; 3]>> = faces
            .iter()
            .flat_map(|f| [vec![c(f[0]), c(f[1]), c(f[2])], vec![c(f[0]), c(f[2]), c(f[3])]])
            .collect();
        let p = WallPicture::of(&tris);
        assert_eq!(p.faces.len(), 12);
        assert_eq!(p.edges.len(), 12);
        for [a, b] in &p.edges {
            let d: f32 = (0..3).map(|k| (a[k] - b[k]).abs()).sum();
            assert_eq!(d, 1.0, "{a:?} - {b:?} is not a cube edge");
        }
    }

    /// The side of a 32-sided prism (facets turning by 11.25 degrees): only
    /// its two rims are drawn; with 8 sides (45 degrees) its verticals too.
    #[test]
    fn a_round_wall_shows_its_rims_and_a_coarse_one_its_facets() {
        for (sides, edges) in [(32usize, 64usize), (8, 24)] {
            let at = |k: usize, y: f32| {
                let a = std::f32::consts::TAU * k as f32 / sides as f32;
                [a.cos(), y, a.sin()]
            };
            let tris: Vec<Vec<[f32; 3]>> = (0..sides)
                .flat_map(|k| {
                    let j = (k + 1) % sides;
                    let (a0, a1, b0, b1) = (at(k, 0.0), at(j, 0.0), at(k, 1.0), at(j, 1.0));
                    [vec![a0, b0, b1], vec![a0, b1, a1]]
                })
                .collect();
            assert_eq!(WallPicture::of(&tris).edges.len(), edges, "{sides} sides");
        }
    }

    /// The cut keeps the far side of faces and edges: a square across the
    /// cut plane keeps its half.
    #[test]
    fn the_cut_keeps_the_far_half_of_a_wall() {
        let square = vec![[-1.0, 0.0, -1.0], [1.0, 0.0, -1.0], [1.0, 0.0, 1.0], [-1.0, 0.0, 1.0]];
        let p = WallPicture::of(&[square]);
        let cut = Some(([0.0; 3], [0.0, 0.0, -1.0]));
        let tris = p.triangles(cut);
        assert!(tris.iter().all(|v| v.pos[2] <= 0.0) && !tris.is_empty());
        let area: f32 = tris
            .chunks_exact(3)
            .map(|t| {
                let (a, b, c) = (t[0].pos, t[1].pos, t[2].pos);
                0.5 * ((b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2])).abs()
            })
            .sum();
        assert!((area - 2.0).abs() < 1e-6, "{area}");
        let edges = p.edges(cut);
        assert_eq!(edges.len(), 3);
        assert!(edges.iter().flatten().all(|q| q[2] <= 0.0));
    }
}
