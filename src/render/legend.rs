//! The colour legend: the mode's name over a gradient strip with its min and
//! max (or, for height bands, the band colours from bottom to top), drawn on
//! the host into a small sRGB RGBA image that the renderer shows as one quad.

use image::{Rgba, RgbaImage};

use super::font::{GLYPH, draw_text, short_number, text_width};
use super::{BANDS, ColorMode, Ranges, band_color, colormap};

const PAD: u32 = 6;
const STRIP_W: u32 = 160;
const STRIP_H: u32 = 12;
const BG: [u8; 4] = [0, 0, 0, 150];
const FG: [u8; 4] = [235, 235, 235, 255];

/// The legend of `mode` under `ranges`.
pub fn legend_image(mode: ColorMode, ranges: &Ranges) -> RgbaImage {
    let (lo, hi) = match mode {
        ColorMode::Height => ("bottom".to_string(), "top".to_string()),
        _ => {
            let r = ranges.of(mode);
            (short_number(f64::from(r[0])), short_number(f64::from(r[1])))
        }
    };
    let title = match mode {
        ColorMode::Height => format!("{} ({BANDS} bands)", mode.name()),
        _ => mode.name().to_string(),
    };
    let title = title.as_str();
    let width = (STRIP_W.max(text_width(title, 1))) + 2 * PAD;
    let height = PAD + GLYPH + 4 + STRIP_H + 3 + GLYPH + PAD;
    let mut img = RgbaImage::from_pixel(width, height, Rgba(BG));
    draw_text(&mut img, PAD as i32, PAD as i32, title, FG, 1);
    let y0 = PAD + GLYPH + 4;
    for x in 0..STRIP_W {
        let t = (x as f32 + 0.5) / STRIP_W as f32;
        let c = match mode {
            ColorMode::Height => {
                let id = (t * ranges.ids as f32) as u32;
                band_color(id.min(ranges.ids.saturating_sub(1)), ranges.ids)
            }
            _ => colormap(t),
        };
        for y in y0..y0 + STRIP_H {
            img.put_pixel(PAD + x, y, Rgba([c[0], c[1], c[2], 255]));
        }
    }
    let ty = (y0 + STRIP_H + 3) as i32;
    draw_text(&mut img, PAD as i32, ty, &lo, FG, 1);
    let hx = (PAD + STRIP_W) as i32 - text_width(&hi, 1) as i32;
    draw_text(&mut img, hx, ty, &hi, FG, 1);
    img
}
