//! Text for the legends drawn on rendered frames ([`super::legend`], the
//! live window and `render`): the public-domain 8x8 bitmap font of the
//! `font8x8` crate (printable ASCII), drawn at an integer scale straight into
//! the frame's pixels, with no font file or text layout. `hourglass plot`
//! draws with plotters and an embedded TrueType font instead.

use image::{Rgba, RgbaImage};

/// Glyph cell size at scale 1, px.
pub const GLYPH: u32 = 8;

/// The width of `text` at `scale`, px.
pub fn text_width(text: &str, scale: u32) -> u32 {
    text.chars().count() as u32 * GLYPH * scale
}

/// Draw `text` with its top-left corner at (x, y); pixels outside the image are skipped.
pub fn draw_text(img: &mut RgbaImage, x: i32, y: i32, text: &str, color: [u8; 4], scale: u32) {
    let s = scale.max(1) as i32;
    for (k, ch) in text.chars().enumerate() {
        let code = ch as usize;
        let glyph = if code < 128 {
            font8x8::legacy::BASIC_LEGACY[code]
        } else {
            font8x8::legacy::BASIC_LEGACY[b'?' as usize]
        };
        let x0 = x + k as i32 * GLYPH as i32 * s;
        for (row, bits) in glyph.iter().enumerate() {
            for col in 0..8 {
                if bits & (1 << col) == 0 {
                    continue;
                }
                for dy in 0..s {
                    for dx in 0..s {
                        let px = x0 + col * s + dx;
                        let py = y + row as i32 * s + dy;
                        if px >= 0 && py >= 0 && (px as u32) < img.width() && (py as u32) < img.height() {
                            img.put_pixel(px as u32, py as u32, Rgba(color));
                        }
                    }
                }
            }
        }
    }
}

/// A number in at most ~8 characters: 0.0123, 12.3, 1.2e5.
pub fn short_number(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 {
        "0".to_string()
    } else if !(1e-3..1e5).contains(&a) {
        format!("{v:.1e}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.2}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        format!("{v:.4}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glyph_lands_inside_its_cell() {
        let mut img = RgbaImage::new(20, 10);
        draw_text(&mut img, 1, 1, "H", [255, 0, 0, 255], 1);
        let lit: Vec<_> = img.enumerate_pixels().filter(|(_, _, p)| p[0] == 255).collect();
        assert!(lit.len() > 10);
        assert!(lit.iter().all(|(x, y, _)| *x >= 1 && *x < 9 && *y >= 1 && *y < 9));
        assert_eq!(short_number(0.5), "0.5");
        assert_eq!(short_number(1234.0), "1234");
        assert_eq!(short_number(2.5e-5), "2.5e-5");
    }
}
