//! Scenario harness for the wakeup path tests (`tests/scenarios.rs`): builds a
//! simulator in a state written as a few lines of text, then runs ONE wakeup through
//! the real `try_to_wake_up` → `select_task_rq` → `wake_wide` / `wake_affine*` →
//! `select_idle_sibling` code with the decision trace on (the text `schedsim trace`
//! prints), or lets ONE CPU go newly idle through `schedule()` → `newidle_balance()`
//! and renders the counters and what the CPU switches to. Not a stable API.
//!
//! ```text
//! machine 1x1x4x2           # NODESxLLCSxCORESxTHREADS (Linux x86 CPU numbering)
//! numa 40                   # optional: SLIT distance between any two nodes (default 21)
//! kernel v5.15+SIS_PROP     # a KernelSpec label: PRESET[+SWITCH|-SWITCH]...
//! cpu 0 busy queued=1       # CPU 0 runs task cpu0 (or `waker`), one more queued (cpu0.q1);
//!                           # queued tasks on a CPU that is not busy: only on the prev CPU
//!                           # of an `on_cpu` wakee (still switching away from it)
//! cpu 1-3,5 idle=C6         # idle in that C-state (default: every CPU idle in C1)
//! cpu 2 avg_idle=300000 wake_avg_idle=1000 wake_stamp_ago=2 ttwu_pending
//! cpu 2 max_newidle_lb_cost=5000        # every domain, or 1000,90000 bottom up
//! cpu 0 load=2048 task_load=1024   # rq PELT load (default task_load x nr_running)
//! llc 0 has_idle_cores=0 avg_scan_cost=100 nr_idle_scan=2 overload=1,0   # per shard
//! rd_overload 1             # override rd->overload (queued tasks set it)
//! shard_size 2              # SHARED_RUNQ_SHARD_SZ (default 6)
//! cgroup_depth 3             # task-group levels update_blocked_averages() walks (default 0)
//! other_cgroups 20           # other task groups with blocked load on every CPU (default 0)
//! wakee prev=3 recent=5 flips=2 load=512 pinned=3 on_cpu
//! waker task cpu=0 flips=4 load=1024 recent=2 new_partner kthread
//! waker irq cpu=0 flips=3 recent=2 new_partner  # the interrupted task's fields
//! sync
//! newidle cpu=2             # instead of a wakeup: curr of CPU 2 blocks
//! newidle cpu=2 wakeup_during   # ... and a wakeup is queued to it while it balances
//! ```
//!
//! Time is 1 s; every PELT signal is exactly the stated value at that time. The
//! waker's `flips` is its count before `record_wakee()`, which adds one only with
//! `new_partner` (by default the waker last woke this same wakee).

mod build;
mod cfs;
mod spec;
mod wakeup;

pub use cfs::run_cfs;

use crate::facts::kernel::KernelSpec;

/// The time of every scenario: 1 s.
const NOW: u64 = 1_000_000_000;

/// The kernel spec a scenario text names (for the switch-coverage test).
pub fn kernel_of(text: &str) -> Result<KernelSpec, String> {
    let s = spec::parse(text)?;
    KernelSpec::parse(&format!("scenario={}", s.kernel)).map_err(|e| e.0)
}

/// Builds the scenario and runs it; returns the rendered result.
pub fn run(text: &str) -> Result<String, String> {
    let s = spec::parse(text)?;
    let mut b = build::build(&s)?;
    match (&s.waker, b.tasks.wakee) {
        (Some(w), Some(p)) => wakeup::run_wakeup(&s, w, p, &mut b),
        _ => wakeup::run_newidle(&s, &mut b),
    }
}
