//! What runs a simulation for a person: the live window and the replay of a
//! result directory ([`window`], [`player`]), the movie of a result directory
//! ([`movie`]), its plots ([`plot`]), the solver study ([`study`]) and the
//! performance table ([`bench`]).
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
