//! The page's pure code, the bottom floor of the web crate: what each feature knows and
//! decides, with no DOM, no worker and no encoding, so it builds and is tested natively.
//! A feature's file here is named as its view in `web::components` and its effects in
//! `web::hooks` (`sweep`: the sweep's bookkeeping, `components/sweep.rs`,
//! `hooks/sweep.rs`). It uses the `schedsim` library and its own files, nothing above.

pub mod anchor;
pub mod cluster;
pub mod compare;
pub mod diff;
pub mod fmt;
pub mod form;
pub mod gallery;
pub mod import;
pub mod kernels;
pub mod live;
pub mod perfetto;
pub mod policy_editor;
pub mod replay;
pub mod roving;
pub mod sweep;
pub mod timeline;
pub mod topology;
pub mod wasted;
