//! Pictures without a window: draw into an offscreen texture, copy it into a
//! buffer (rows padded to `COPY_BYTES_PER_ROW_ALIGNMENT`, 256 bytes), map it,
//! and strip the padding. Works on any adapter, lavapipe included.
//!
//! ```text
//!   texture (Rgba8Unorm, w x h) --copy--> buffer [row 0 | pad][row 1 | pad]... --> RgbaImage (w x h)
//! ```

use image::RgbaImage;

use super::renderer::{Frame, Renderer, Source};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;

/// The texture format of offscreen pictures (sRGB bytes written as they are).
pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// An offscreen target of one size and its readback buffer.
pub struct Offscreen {
    width: u32,
    height: u32,
    padded_row: u32,
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    buffer: wgpu::Buffer,
}

impl Offscreen {
    pub fn new(ctx: &GpuContext, width: u32, height: u32) -> Offscreen {
        let (width, height) = (width.max(1), height.max(1));
        let padded_row = (4 * width).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let texture = ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("hourglass.render.offscreen"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("hourglass.render.readback"),
            size: u64::from(padded_row) * u64::from(height),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Offscreen {
            width,
            height,
            padded_row,
            texture,
            view,
            buffer,
        }
    }

    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Draw `source` as `frame` says (its size is this target's) and read the picture back.
    pub fn render(
        &self,
        ctx: &GpuContext,
        renderer: &mut Renderer,
        source: &Source<'_>,
        frame: &Frame,
    ) -> Result<RgbaImage> {
        let frame = Frame {
            width: self.width,
            height: self.height,
            ..*frame
        };
        renderer.draw(ctx, source, &frame, &self.view);
        self.read(ctx)
    }

    /// The target to draw into.
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// The picture drawn into [`Offscreen::view`], read back.
    pub fn read(&self, ctx: &GpuContext) -> Result<RgbaImage> {
        let mut enc = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("hourglass.render.readback"),
        });
        enc.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
        ctx.submit(enc.finish());
        let slice = self.buffer.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        ctx.count_readback();
        ctx.wait()?;
        let mut pixels = Vec::with_capacity((4 * self.width * self.height) as usize);
        {
            let data = slice
                .get_mapped_range()
                .map_err(|e| Error::Gpu(format!("reading back a picture: {e}")))?;
            for row in data.chunks_exact(self.padded_row as usize) {
                pixels.extend_from_slice(&row[..(4 * self.width) as usize]);
            }
        }
        self.buffer.unmap();
        RgbaImage::from_raw(self.width, self.height, pixels)
            .ok_or_else(|| Error::Gpu("a picture of the wrong size came back".to_string()))
    }
}

fn image_error(e: image::ImageError) -> Error {
    Error::Gpu(format!("cannot encode a picture: {e}"))
}

/// A picture as the bytes of a PNG file (the caller writes them: a result
/// directory is written through `output::fresh`, never through a link).
pub fn encode_png(img: &RgbaImage) -> Result<Vec<u8>> {
    let mut bytes = std::io::Cursor::new(Vec::new());
    img.write_to(&mut bytes, image::ImageFormat::Png).map_err(image_error)?;
    Ok(bytes.into_inner())
}

/// An animated GIF of `frames` at `fps`, looping, as the bytes of the file.
pub fn encode_gif(frames: &[RgbaImage], fps: f64) -> Result<Vec<u8>> {
    use image::codecs::gif::{GifEncoder, Repeat};
    let mut bytes = Vec::new();
    {
        // Speed 20 of 1..30: NeuQuant quality is plenty for flat-coloured disks.
        let mut enc = GifEncoder::new_with_speed(&mut bytes, 20);
        enc.set_repeat(Repeat::Infinite).map_err(image_error)?;
        let ms = (1000.0 / fps.max(0.1)).round() as u32;
        for img in frames {
            let frame = image::Frame::from_parts(img.clone(), 0, 0, image::Delay::from_numer_denom_ms(ms, 1));
            enc.encode_frame(frame).map_err(image_error)?;
        }
    }
    Ok(bytes)
}
