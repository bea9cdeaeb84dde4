//! Floor 5, the API: experiments and their validation, the run-size estimate, sweeps
//! and their reports, live mode, the A/B diff, the Perfetto export, the mmtests results layout, the presets and
//! the scenario builder of the wakeup-path tests. Everything a caller outside the
//! crate uses is here or on floor 1.

pub mod diff;
pub mod estimate;
pub mod experiment;
pub mod live;
pub mod mmtests;
pub mod perfetto;
pub mod policy;
pub mod presets;
pub mod replay;
pub mod report;
#[doc(hidden)]
pub mod scenario;
pub mod sweep;
pub mod trace_vs;
