//! Floor 1, facts: what a run is made of and what it gives, with no simulation in it.
//! The machine (topology, costs, named machines, sched domains), the kernel's
//! configuration, the workload models, the PRNG, the counters, the readers of user
//! text, and the plain data the floors above fill in (decision traces, recordings, CPU
//! views, kernel B's answers for the A/B diff). Nothing here names `Sim`.

pub mod cost;
pub(crate) mod counterfactual;
pub mod domains;
pub mod import;
pub mod input;
pub mod kernel;
pub mod machine;
pub mod metrics;
pub mod policy;
pub mod reach;
pub mod recording;
pub mod rng;
pub mod sched_trace;
pub mod topology;
pub mod trace;
pub mod views;
pub mod wake_stats;
pub(crate) mod wide;
pub mod workload;
