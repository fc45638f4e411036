//! The frames of a movie: one scene drawn offscreen at a fixed camera and
//! colour scale, so a colour and a position mean the same in every frame.
//! The result directory is read (and the files written) by `app::movie`.

use image::RgbaImage;

use super::renderer::{Frame, Renderer, Source};
use super::{Camera, ColorMode, Offscreen, Ranges, offscreen, scene_bbox};
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::model::{Grains, Walls};

/// Draws grains behind walls, one picture per call (the walls stay until
/// [`MovieRenderer::set_walls`] moves them; the camera stays where `new` put it).
pub struct MovieRenderer {
    ctx: GpuContext,
    renderer: Renderer,
    target: Offscreen,
    frame: Frame,
}

impl MovieRenderer {
    /// A `width` x `height` px view fitted to `first` and `walls`, coloured by
    /// `mode` (frames hold no contact loads: [`ColorMode::Load`] draws heights).
    pub fn new(ctx: &GpuContext, walls: &Walls, first: &Grains, width: u32, height: u32, mode: ColorMode) -> Self {
        let ranges = Ranges::for_scene(first, walls, [0.0, -9.81], 1e-3);
        let mut renderer = Renderer::new(ctx, offscreen::FORMAT);
        renderer.set_walls(ctx, walls);
        let frame = Frame {
            camera: Camera::fit(scene_bbox(first, walls), width, height),
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
        }
    }

    /// Fit the camera to `bbox` (m) instead: the box walls that move sweep
    /// over the frames ([`crate::output::read::walls_box`]).
    pub fn fit(&mut self, bbox: [f32; 4]) {
        self.frame.camera = Camera::fit(bbox, self.frame.width, self.frame.height);
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
