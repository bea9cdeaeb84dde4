//! The wire formats, the floor above the pure model: the page's link (`permalink`: the
//! `#v1.` fragment) and the messages between the page and its workers (`proto`). They
//! carry the model's types (a replay's reference form, a live step, a Perfetto ask), so
//! they sit above it; nothing pure below them knows an encoding.

pub mod permalink;
pub mod proto;
