//! The page's components, one file each.

pub mod canvas_text;
pub mod chart;
pub mod cluster;
pub mod copy_link;
pub mod diff;
pub mod fields;
pub mod gallery;
pub mod import;
pub mod kernels;
pub mod live;
pub mod perfetto;
pub mod policy_editor;
pub mod replay;
pub mod results;
pub mod rtapp;
pub mod sweep;
pub mod switch_reach;
pub mod timeline;
pub mod topology;
pub mod wakeup;
pub mod wide;
pub mod workload;
