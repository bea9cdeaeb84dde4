//! schedsim: a deterministic simulator of the Linux CFS task-wakeup path.
//!
//! The library models `try_to_wake_up` → `select_task_rq_fair` → `wake_wide` /
//! `wake_affine` → `select_idle_sibling` → newidle balance (and the experimental
//! shared runqueue) on any CPU topology, in the forms of several kernel versions,
//! with five historical patches as switches. It is pure Rust with no I/O, clock or
//! entropy: the same [`Experiment`] gives the same [`Report`] byte for byte on every
//! platform, natively and in WebAssembly.
//!
//! ```
//! let exp = schedsim::presets::experiment("demo").unwrap();
//! let report = exp.run(&mut |_| true).unwrap();
//! assert_eq!(report.configs.len(), exp.kernels.len());
//! println!("{}", report.mmtests_table());
//! ```

pub mod cost;
pub mod diff;
pub mod domains;
pub mod estimate;
pub mod experiment;
pub mod import;
pub mod input;
pub mod kernel;
pub mod live;
pub mod machine;
pub mod metrics;
pub mod presets;
pub mod report;
pub mod rng;
#[doc(hidden)]
pub mod scenario;
pub mod sweep;
pub mod topology;
pub mod trace;
pub mod workload;

mod balance;
mod shared_runq;
pub(crate) mod sim;
mod sis;
mod wakeup;
mod wide;

pub use experiment::{Error, Experiment, MachineSpec, Progress, TopologyInput};
pub use kernel::{KernelSpec, KernelVersion, Switch};
pub use report::Report;
pub use sim::wasted::WastedMoment;
pub use sweep::{ReportBuilder, RunId, RunResult, Sweep};
pub use workload::Workload;
