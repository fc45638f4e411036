//! The frames of a movie: one scene drawn offscreen at a fixed camera and
//! colour scale, so a colour and a position mean the same in every frame.
//! The result directory is read (and the files written) by `app::movie`.

use image::RgbaImage;

use super::renderer::{Frame, Renderer, Source};
use super::{Camera, ColorMode, Offscreen, Ranges, offscreen, scene_bbox, with_period};
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::model::{Grains, Walls};

/// Draws grains behind walls (and the seams of a periodic boundary), one
/// picture per call (the walls stay until [`MovieRenderer::set_walls`]
/// moves them; the camera stays where `new` or [`MovieRenderer::fit`] put it).
pub struct MovieRenderer {
    ctx: GpuContext,
    renderer: Renderer,
    target: Offscreen,
    frame: Frame,
    /// The period [xmin, xmax] along x, m (None: not periodic).
    period: Option<[f32; 2]>,
}

impl MovieRenderer {
    /// A `width` x `height` px view fitted to `first`, `walls` and the
    /// periodic boundary `period` ([xmin, xmax] along x, m; None: not
    /// periodic), coloured by `mode` (frames hold no contact loads:
    /// [`ColorMode::Load`] draws heights). A period draws its seams in
    /// every picture ([`Renderer::set_period`]).
    pub fn new(
        ctx: &GpuContext,
        walls: &Walls,
        first: &Grains,
        period: Option<[f32; 2]>,
        size: [u32; 2],
        mode: ColorMode,
    ) -> Self {
        let [width, height] = size;
        let ranges = Ranges::for_scene(first, walls, [0.0, -9.81], 1e-3);
        let mut renderer = Renderer::new(ctx, offscreen::FORMAT);
        renderer.set_walls(ctx, walls);
        renderer.set_period(ctx, period);
        let frame = Frame {
            camera: Camera::fit(with_period(scene_bbox(first, walls), period), width, height),
            mode: if mode == ColorMode::Load {
                ColorMode::Height
            } else {
                mode
            },
            ranges,
            width,
            height,
            legend: true,
        };
        MovieRenderer {
            ctx: ctx.clone(),
            renderer,
            target: Offscreen::new(ctx, width, height),
            frame,
            period,
        }
    }

    /// Fit the camera to `bbox` (m) instead, widened to the period: the box
    /// walls that move sweep over the frames
    /// ([`crate::output::read::walls_box`]).
    pub fn fit(&mut self, bbox: [f32; 4]) {
        self.frame.camera = Camera::fit(with_period(bbox, self.period), self.frame.width, self.frame.height);
    }

    /// The walls drawn from the next picture on (a frame's walls, when
    /// they move).
    pub fn set_walls(&mut self, walls: &Walls) {
        self.renderer.set_walls(&self.ctx, walls);
    }

    /// One frame of `grains`.
    pub fn draw(&mut self, grains: &Grains) -> Result<RgbaImage> {
        let source = Source::Host { grains, contacts: None };
        self.target.render(&self.ctx, &mut self.renderer, &source, &self.frame)
    }
}
