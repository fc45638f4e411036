//! What runs a simulation for a person: the live window and the replay of a
//! result directory ([`window`], [`player`]), the movie of a result directory
//! ([`movie`]), its plots ([`plot`]), the solver study ([`study`]) and the
//! performance table ([`mod@bench`]).
//!
//! ```text
//!   cli ──> app ──> sim ──> backend ──> cpu | gpu ──> model
//!            └────> render (a leaf: draws what it is given)
//! ```
//! Nothing below `app` imports it.

pub mod bench;
pub mod movie;
pub mod player;
pub mod plot;
pub mod study;
pub mod window;

/// Write `img` as a PNG file at `path` (a link there is replaced, never written through).
pub(crate) fn save_png(img: &image::RgbaImage, path: &std::path::Path) -> crate::Result<()> {
    let bytes = crate::render::encode_png(img)?;
    crate::output::fresh::write(path, &bytes).map_err(|source| crate::Error::Output {
        path: path.to_path_buf(),
        source,
    })
}
