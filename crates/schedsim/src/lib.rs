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

//! # Floors
//!
//! The crate is five floors, each importing only from the floors below it (the test
//! `tests/floors.rs` keeps it so): [`facts`] (what a run is made of: machine, costs,
//! kernel configuration, workloads, and the plain data of results), `state` (the `Sim`
//! struct and its parts), `linux` (the modelled kernel), `driver` (the event loop and
//! its observers) and [`api`] (experiments, sweeps, reports, live mode, the diff).
//! The public modules keep their short paths: `schedsim::topology` is
//! `schedsim::facts::topology`, `schedsim::experiment` is `schedsim::api::experiment`.

pub mod api;
pub(crate) mod driver;
pub mod facts;
pub(crate) mod linux;
pub(crate) mod state;

#[doc(hidden)]
pub use api::scenario;
pub use api::{diff, estimate, experiment, live, mmtests, perfetto, presets, replay, report, sweep};
pub use facts::{
    cost, domains, import, input, kernel, machine, metrics, policy, reach, recording, rng, sched_trace, topology,
    trace, views, wake_stats, workload,
};

pub use api::experiment::{Error, Experiment, MachineSpec, Progress};
pub use api::policy::{check_policy, NO_ENGINE, POLICY_ENGINE};
pub use api::report::Report;
pub use api::sweep::{ReportBuilder, RunId, RunResult, Sweep};
pub use facts::kernel::{KernelSpec, KernelVersion, Switch};
pub use facts::recording::WastedMoment;
pub use facts::topology::TopologyInput;
pub use facts::workload::Workload;
