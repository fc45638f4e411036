//! Seeing the flow: one instanced-disk renderer shared by the live window
//! (`hourglass run --window`, `hourglass view`) and the offscreen PNG/GIF
//! writer (`hourglass render`), both in `app`. A leaf: it draws the grains
//! and walls it is given and never runs a simulation or reads a result
//! directory.
//!
//! ```text
//!   grains: one quad (6 vertices) per instance, vertex-pulled from storage
//!           buffers: pos vel radius id inv_mass count slots
//!           (the GPU backend's own buffers in place, or host arrays uploaded)
//!           -> circle cut in the fragment shader, ~1 px anti-aliased edge,
//!              and a spoke from near the centre to the rim at the grain's
//!              `angle` (binding 10) so rotation shows
//!   walls:  one quad per segment, `WALL_HALF_WIDTH_PX` either side
//!   seams:  the periodic boundary (`walls.periodic_x` = [xmin, xmax]): the
//!           lines x = xmin and x = xmax, one quad each, `SEAM_HALF_WIDTH_PX`
//!           either side, dashed, across the whole height of the view
//!   legend: an RGBA image drawn on the host (bitmap font), one textured quad
//! ```
//! World to clip space: `clip = (x - center) * scale`, with `scale` fitted
//! so the walls (and the period, [`with_period`]) fill the view ([`Camera::fit`]). Colour scales are fixed per
//! scene ([`Ranges::for_scene`]) so a colour means the same in every frame.

pub mod font;
pub mod legend;
pub mod movie;
pub mod offscreen;
pub mod orbit;
pub mod renderer;
pub mod spheres;

pub use offscreen::{Offscreen, encode_gif, encode_png};
pub use renderer::{Renderer, Source};

/// Background colour (sRGB bytes).
pub const BACKGROUND: [u8; 4] = [18, 20, 26, 255];

/// [`BACKGROUND`] as a target wants it: linear values for an sRGB target
/// (`srgb_target`), which encodes them, the bytes themselves otherwise.
pub fn clear_color(srgb_target: bool) -> wgpu::Color {
    let c = |b: u8| {
        let v = f64::from(b) / 255.0;
        if !srgb_target {
            v
        } else if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    wgpu::Color {
        r: c(BACKGROUND[0]),
        g: c(BACKGROUND[1]),
        b: c(BACKGROUND[2]),
        a: 1.0,
    }
}
/// Wall colour (sRGB bytes).
pub const WALL_COLOR: [u8; 4] = [200, 204, 214, 255];
/// Half the drawn wall thickness, px.
pub const WALL_HALF_WIDTH_PX: f32 = 1.5;
/// The mark of a periodic boundary (sRGB bytes): the seams x = xmin and
/// x = xmax of `walls.periodic_x` are drawn as vertical dashed lines in
/// this colour (turquoise: none of the walls, the background, the height
/// bands or the colour map), over the grains and under the walls, across
/// the whole height of the view (the period holds at every height).
pub const SEAM_COLOR: [u8; 4] = [64, 224, 208, 255];
/// Half the drawn seam thickness, px.
pub const SEAM_HALF_WIDTH_PX: f32 = 1.0;
/// A seam's dashes, px: `SEAM_DASH_PX` drawn, then `SEAM_GAP_PX` left
/// out, repeating from world y = 0 (the dashes stay in place when the view
/// pans).
pub const SEAM_DASH_PX: f32 = 8.0;
pub const SEAM_GAP_PX: f32 = 6.0;
/// Smallest drawn grain radius, px: grains stay visible when zoomed out.
pub const MIN_RADIUS_PX: f32 = 0.75;
/// The radius line (spoke) that shows each disk's rotation: from
/// `SPOKE_HUB` radii off the centre (the centre pixel keeps the exact grain
/// colour, which colour pickers and tests read) out to the rim, along the
/// grain's angle (counter-clockwise from +x), `2 SPOKE_HALF_WIDTH_PX` wide,
/// anti-aliased, in [`spoke_color`]. Drawn on disks of at least
/// `SPOKE_MIN_RADIUS_PX` radius: on a smaller one it would cover the colour.
pub const SPOKE_HUB: f32 = 0.25;
pub const SPOKE_HALF_WIDTH_PX: f32 = 1.0;
pub const SPOKE_MIN_RADIUS_PX: f32 = 4.0;
/// The spoke on a light grain (sRGB bytes) ...
pub const SPOKE_DARK: [u8; 3] = [20, 22, 28];
/// ... and on a dark one.
pub const SPOKE_LIGHT: [u8; 3] = [245, 245, 240];
/// Grains whose sRGB luma (0.2126 R + 0.7152 G + 0.0722 B, bytes) is above
/// this are light.
pub const SPOKE_LUMA_SPLIT: f32 = 128.0;

/// Initial-height bands: ids grow with the initial height (the fill is
/// ordered bottom-up), band b = floor(id / N * BANDS), coloured cyclically
/// with [`BAND_PALETTE`] like layers of coloured sand.
pub const BANDS: u32 = 12;
pub const BAND_PALETTE: [[u8; 3]; 4] = [[222, 184, 112], [178, 66, 50], [232, 222, 196], [58, 96, 140]];
/// The sequential colour map of speed, radius and contact load: linear
/// between these stops (sRGB bytes), an approximation of matplotlib's "inferno"
/// lifted off black so slow grains stay visible on the background.
pub const COLORMAP: [[u8; 3]; 6] = [
    [40, 22, 92],
    [100, 32, 120],
    [170, 52, 100],
    [228, 92, 52],
    [250, 160, 20],
    [252, 240, 120],
];

/// What the grain colour shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColorMode {
    /// Bands of initial height (by id), like coloured sand layers.
    Height,
    /// |v|, m/s.
    Speed,
    /// r, m.
    Radius,
    /// Sum of the contact impulses on the grain over its weight impulse,
    /// sum_c P_c / (m |g| dt): ~1 for a grain resting on the floor, more under a load.
    Load,
}

impl ColorMode {
    pub const ALL: [ColorMode; 4] = [ColorMode::Height, ColorMode::Speed, ColorMode::Radius, ColorMode::Load];

    /// The value the shader switches on. Keep in sync with shaders/scene_render.wgsl.
    pub fn code(self) -> u32 {
        match self {
            ColorMode::Height => 0,
            ColorMode::Speed => 1,
            ColorMode::Radius => 2,
            ColorMode::Load => 3,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ColorMode::Height => "initial height",
            ColorMode::Speed => "speed m/s",
            ColorMode::Radius => "radius mm",
            ColorMode::Load => "contact load / weight",
        }
    }

    /// The next mode (the `c` key), skipping Load where there are no contact lists.
    pub fn next(self, has_contacts: bool) -> ColorMode {
        let i = ColorMode::ALL.iter().position(|&m| m == self).unwrap_or(0);
        let next = ColorMode::ALL[(i + 1) % ColorMode::ALL.len()];
        if next == ColorMode::Load && !has_contacts {
            next.next(has_contacts)
        } else {
            next
        }
    }
}

/// The fixed colour scales of a scene: quantity -> [0, 1] of the colour map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranges {
    /// Number of ids (N): band = floor(id / N * BANDS).
    pub ids: u32,
    /// m/s: [0, sqrt(2 |g| H)], the free-fall speed over the walls' height H.
    pub speed: [f32; 2],
    /// m: the smallest and largest radius.
    pub radius: [f32; 2],
    /// [0, L] grain weights, L = half the walls' height in mean grain diameters.
    pub load: [f32; 2],
    /// |g| dt, m/s: the weight impulse per unit mass of one step.
    pub g_dt: f32,
}

impl Ranges {
    pub fn for_scene(grains: &crate::model::Grains, walls: &crate::model::Walls, gravity: [f32; 2], dt: f32) -> Self {
        let bb = walls.bounding_box();
        let g = (gravity[0] * gravity[0] + gravity[1] * gravity[1]).sqrt();
        Ranges::over(grains, bb[3] - bb[1], g, dt)
    }

    /// The scales of `grains` in either space, falling at most `height` m
    /// (1 m where it is not positive) under gravity of magnitude `g`
    /// (m/s^2), steps of `dt` s.
    pub fn over<S: crate::model::Space>(grains: &crate::model::Grains<S>, height: f32, g: f32, dt: f32) -> Self {
        let h = if height > 0.0 { height } else { 1.0 };
        let r_min = grains.radius.iter().copied().fold(f32::INFINITY, f32::min);
        let r_max = grains.max_radius();
        let (r_min, r_max) = if r_min.is_finite() && r_max > r_min {
            (r_min, r_max)
        } else {
            (0.0, r_max.max(1e-6))
        };
        let r_mean = if grains.is_empty() {
            1.0
        } else {
            grains.radius.iter().sum::<f32>() / grains.len() as f32
        };
        let ids = grains.id.iter().copied().max().map_or(1, |m| m + 1);
        Ranges {
            ids,
            speed: [0.0, (2.0 * g * h).sqrt().max(1e-3)],
            radius: [r_min, r_max],
            load: [0.0, (0.5 * h / (2.0 * r_mean)).max(2.0)],
            g_dt: (g * dt).max(1e-12),
        }
    }

    /// The [min, max] of the quantity `mode` shows, in the legend's units.
    pub fn of(&self, mode: ColorMode) -> [f32; 2] {
        match mode {
            ColorMode::Height => [0.0, self.ids as f32],
            ColorMode::Speed => self.speed,
            ColorMode::Radius => [self.radius[0] * 1e3, self.radius[1] * 1e3],
            ColorMode::Load => self.load,
        }
    }
}

/// The band colour of grain `id` among `ids` (the shader's Height mode).
pub fn band_color(id: u32, ids: u32) -> [u8; 3] {
    let band = (u64::from(id) * u64::from(BANDS) / u64::from(ids.max(1))) as usize;
    BAND_PALETTE[band % BAND_PALETTE.len()]
}

/// The spoke colour on a grain of colour `body` (sRGB bytes), as the shader
/// picks it: dark on a light grain, light on a dark one.
pub fn spoke_color(body: [u8; 3]) -> [u8; 3] {
    let luma = 0.2126 * f32::from(body[0]) + 0.7152 * f32::from(body[1]) + 0.0722 * f32::from(body[2]);
    if luma > SPOKE_LUMA_SPLIT {
        SPOKE_DARK
    } else {
        SPOKE_LIGHT
    }
}

/// The colour map at t in [0, 1] (clamped), as the shader computes it.
pub fn colormap(t: f32) -> [u8; 3] {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let x = t * (COLORMAP.len() - 1) as f32;
    let i = (x.floor() as usize).min(COLORMAP.len() - 2);
    let f = x - i as f32;
    let (a, b) = (COLORMAP[i], COLORMAP[i + 1]);
    [0, 1, 2].map(|k| (f32::from(a[k]) + (f32::from(b[k]) - f32::from(a[k])) * f).round() as u8)
}

/// What part of the world the view shows: clip = (x - center) * scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// m.
    pub center: [f32; 2],
    /// Half the view's height, m.
    pub half_height: f32,
}

impl Camera {
    /// The box [xmin, ymin, xmax, ymax] with a 4 % margin, in a `width` x `height` px view.
    pub fn fit(bbox: [f32; 4], width: u32, height: u32) -> Camera {
        let aspect = width.max(1) as f32 / height.max(1) as f32;
        let w = (bbox[2] - bbox[0]).max(1e-6);
        let h = (bbox[3] - bbox[1]).max(1e-6);
        Camera {
            center: [0.5 * (bbox[0] + bbox[2]), 0.5 * (bbox[1] + bbox[3])],
            half_height: 0.52 * h.max(w / aspect),
        }
    }

    /// Clip units per metre in x and y.
    pub fn scale(&self, width: u32, height: u32) -> [f32; 2] {
        let aspect = width.max(1) as f32 / height.max(1) as f32;
        [1.0 / (self.half_height * aspect), 1.0 / self.half_height]
    }

    /// The pixel (x right, y down, centre of the top-left pixel at 0.5) of world point p.
    pub fn to_pixel(&self, p: [f32; 2], width: u32, height: u32) -> [f32; 2] {
        let s = self.scale(width, height);
        let cx = (p[0] - self.center[0]) * s[0];
        let cy = (p[1] - self.center[1]) * s[1];
        [(cx + 1.0) * 0.5 * width as f32, (1.0 - cy) * 0.5 * height as f32]
    }

    /// The world point under pixel `px`.
    pub fn to_world(&self, px: [f32; 2], width: u32, height: u32) -> [f32; 2] {
        let s = self.scale(width, height);
        let cx = px[0] / width.max(1) as f32 * 2.0 - 1.0;
        let cy = 1.0 - px[1] / height.max(1) as f32 * 2.0;
        [self.center[0] + cx / s[0], self.center[1] + cy / s[1]]
    }

    /// Zoom by `factor` (> 1 in) keeping the world point under pixel `px` fixed.
    pub fn zoom_at(&mut self, factor: f32, px: [f32; 2], width: u32, height: u32) {
        let before = self.to_world(px, width, height);
        self.half_height /= factor.max(1e-3);
        let after = self.to_world(px, width, height);
        self.center[0] += before[0] - after[0];
        self.center[1] += before[1] - after[1];
    }

    /// Move the view by a mouse drag of `d` pixels.
    pub fn pan_pixels(&mut self, d: [f32; 2], width: u32, height: u32) {
        let s = self.scale(width, height);
        self.center[0] -= d[0] * 2.0 / width.max(1) as f32 / s[0];
        self.center[1] += d[1] * 2.0 / height.max(1) as f32 / s[1];
    }
}

/// `bbox` [xmin, ymin, xmax, ymax] widened in x to hold the period
/// [xmin, xmax] of a periodic boundary, so both seams are in view; `bbox`
/// itself without a period (or with one that is not finite).
pub fn with_period(bbox: [f32; 4], period: Option<[f32; 2]>) -> [f32; 4] {
    match period {
        Some([a, b]) if a.is_finite() && b.is_finite() => [bbox[0].min(a), bbox[1], bbox[2].max(b), bbox[3]],
        _ => bbox,
    }
}

/// The bounding box of walls and grains, m.
pub fn scene_bbox(grains: &crate::model::Grains, walls: &crate::model::Walls) -> [f32; 4] {
    let mut bb = if walls.segments.is_empty() {
        [f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY]
    } else {
        walls.bounding_box()
    };
    for (p, r) in grains.pos.iter().zip(&grains.radius) {
        if p[0].is_finite() && p[1].is_finite() && walls.segments.is_empty() {
            bb = [
                bb[0].min(p[0] - r),
                bb[1].min(p[1] - r),
                bb[2].max(p[0] + r),
                bb[3].max(p[1] + r),
            ];
        }
    }
    if bb[0].is_finite() { bb } else { [-1.0, -1.0, 1.0, 1.0] }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camera_pixel_round_trip_and_zoom_keeps_the_point_under_the_cursor() {
        let mut cam = Camera::fit([-0.15, 0.0, 0.15, 0.8], 640, 480);
        let p = [0.05, 0.3];
        let px = cam.to_pixel(p, 640, 480);
        let back = cam.to_world(px, 640, 480);
        assert!((back[0] - p[0]).abs() < 1e-5 && (back[1] - p[1]).abs() < 1e-5);
        cam.zoom_at(2.0, px, 640, 480);
        let q = cam.to_world(px, 640, 480);
        assert!((q[0] - p[0]).abs() < 1e-5 && (q[1] - p[1]).abs() < 1e-5);
    }

    #[test]
    fn the_period_widens_the_box_in_x_only() {
        let bb = [0.0, 0.0, 0.1, 0.2];
        assert_eq!(with_period(bb, None), bb);
        assert_eq!(with_period(bb, Some([-0.05, 0.05])), [-0.05, 0.0, 0.1, 0.2]);
        assert_eq!(with_period(bb, Some([0.02, 0.3])), [0.0, 0.0, 0.3, 0.2]);
        assert_eq!(with_period(bb, Some([f32::NAN, 0.3])), bb);
    }

    #[test]
    fn bands_cover_the_ids_bottom_up_and_the_colormap_ends_at_its_stops() {
        assert_eq!(band_color(0, 1200), BAND_PALETTE[0]);
        assert_eq!(band_color(100, 1200), BAND_PALETTE[1]);
        assert_eq!(
            band_color(1199, 1200),
            BAND_PALETTE[(BANDS as usize - 1) % BAND_PALETTE.len()]
        );
        assert_eq!(colormap(0.0), COLORMAP[0]);
        assert_eq!(colormap(1.0), COLORMAP[5]);
        assert_eq!(colormap(f32::NAN), COLORMAP[0]);
    }
}
