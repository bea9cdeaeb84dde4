//! The decision trace: for chosen wakeups, every step of the wakeup path with the
//! values it read, what it returned and why. Off by default and then free (one branch
//! per step); when on, bounded by [`TRACE_WAKEUPS_MAX`] wakeups of at most
//! [`TRACE_STEPS_MAX`] steps each.

use serde::{Deserialize, Serialize};

pub const TRACE_WAKEUPS_MAX: u32 = 10_000;
pub const TRACE_STEPS_MAX: usize = 64;

/// Most CPUs a wakeup trace lists as probed: a scan of the largest machine.
pub const PROBED_MAX: usize = crate::facts::topology::CPUS_MAX as usize;

/// Which wakeups to record: `count` wakeups starting at the `from`-th (0-based) of the
/// run of one client count, counted from its start (warm-up included).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceWindow {
    pub from: u64,
    pub count: u32,
}

/// One step of the path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// Kernel function, e.g. `wake_affine_idle`.
    pub function: String,
    /// Values it read, as `name=value`.
    pub read: Vec<String>,
    /// What it returned.
    pub result: String,
    /// Why, in words.
    pub why: String,
}

/// How the wakeup ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub chosen_cpu: u32,
    /// `same_cpu`, `smt_sibling`, `same_llc`, `cross_llc`, `cross_node` from prev.
    pub migration: crate::facts::topology::Distance,
    /// Queued on the target's wake list (TTWU_QUEUE).
    pub queued: bool,
    pub ipi: bool,
    /// Idle state the target CPU had to leave, if it was idle.
    pub idle_exit: Option<String>,
    /// Waker-side CPU time of the wakeup, ns.
    pub cost_ns: u64,
}

/// One traced wakeup.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WakeupTrace {
    /// Index among the run's wakeups, from 0 at its start (warm-up included).
    pub index: u64,
    pub time_ns: u64,
    pub wakee: String,
    pub wakee_id: u32,
    /// The waking task, or `irq` / `timer`.
    pub waker: String,
    pub waker_cpu: u32,
    pub prev_cpu: u32,
    /// The target `select_idle_sibling` started from (`this` or `prev` after
    /// `wake_affine`), when the path got that far.
    #[serde(default)]
    pub target_cpu: Option<u32>,
    pub sync: bool,
    /// CPUs whose idleness the path checked, in order.
    /// At most [`PROBED_MAX`].
    pub probed: Vec<u32>,
    pub steps: Vec<Step>,
    pub outcome: Option<Outcome>,
}

impl WakeupTrace {
    /// Readable multi-line form for `schedsim trace`.
    pub fn render(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "wakeup #{} at {:.3} ms: {} woken by {} on CPU {} (prev CPU {}, {})",
            self.index,
            self.time_ns as f64 / 1e6,
            self.wakee,
            self.waker,
            self.waker_cpu,
            self.prev_cpu,
            if self.sync { "sync" } else { "not sync" }
        );
        for (i, st) in self.steps.iter().enumerate() {
            let _ = writeln!(s, "  {}. {} -> {}", i + 1, st.function, st.result);
            if !st.read.is_empty() {
                let _ = writeln!(s, "       read: {}", st.read.join(", "));
            }
            if !st.why.is_empty() {
                let _ = writeln!(s, "       why:  {}", st.why);
            }
        }
        if !self.probed.is_empty() {
            let p: Vec<String> = self.probed.iter().map(|c| c.to_string()).collect();
            let _ = writeln!(s, "  CPUs probed: {}", p.join(" "));
        }
        if let Some(o) = &self.outcome {
            let _ = writeln!(
                s,
                "  => CPU {} ({:?} from prev){}{}{}, waker cost {} ns",
                o.chosen_cpu,
                o.migration,
                if o.queued { ", queued on wake list" } else { "" },
                if o.ipi { ", IPI" } else { "" },
                o.idle_exit.as_ref().map(|x| format!(", leaves {x}")).unwrap_or_default(),
                o.cost_ns
            );
        }
        s
    }
}
