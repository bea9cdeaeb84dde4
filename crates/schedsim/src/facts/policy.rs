//! Policy scripts: a kernel column's wakeup placement written by the user in Rhai
//! (<https://rhai.rs>), as sched_ext lets a BPF program answer `ops.select_cpu()`. What
//! a script may define, its budgets and size, and the templates shipped with the
//! crate; the engine and its helpers are the kernel model's (`linux::policy`, feature
//! `policy`). README's "Policy scripts" lists the helpers and what each costs.
//!
//! A script defines any of the wakeup path's functions, named and called as in
//! `kernel/sched/fair.c`: `select_task_rq_fair(p, prev_cpu, wake_flags)`,
//! `wake_wide(p)`, `wake_affine(p, this_cpu, prev_cpu, sync)`,
//! `select_idle_sibling(p, prev, target)`. Functions it does not define stay the
//! modelled kernel's; `kernel::NAME(…)` calls the kernel's own.

/// `select_task_rq_fair` is the script's.
pub const HOOK_SELECT_TASK_RQ: u8 = 1;
/// `wake_wide` is the script's.
pub const HOOK_WAKE_WIDE: u8 = 2;
/// `wake_affine` is the script's.
pub const HOOK_WAKE_AFFINE: u8 = 4;
/// `select_idle_sibling` is the script's.
pub const HOOK_SELECT_IDLE_SIBLING: u8 = 8;

/// The functions a script may define: (name, number of parameters, hook bit).
pub const HOOKS: [(&str, usize, u8); 4] = [
    ("select_task_rq_fair", 3, HOOK_SELECT_TASK_RQ),
    ("wake_wide", 1, HOOK_WAKE_WIDE),
    ("wake_affine", 4, HOOK_WAKE_AFFINE),
    ("select_idle_sibling", 3, HOOK_SELECT_IDLE_SIBLING),
];

/// Largest script, bytes: a page of code, and a bounded share of a permalink.
pub const POLICY_SOURCE_MAX: usize = 16 * 1024;
/// Rhai operations one call may make (a loop over 1,024 CPUs with a few helper calls
/// each fits).
pub const CALL_OPS_MAX: u64 = 200_000;
/// Rhai operations a whole run may make: some 15 s of script natively, and 2 million
/// wakeups of a 250-operation script such as the templates.
pub const RUN_OPS_MAX: u64 = 500_000_000;
/// Deepest call nesting of script functions (Rhai's call levels).
pub const CALL_LEVELS_MAX: usize = 24;
/// Longest string and array a script may build.
pub const STRING_MAX: usize = 4_096;
pub const ARRAY_MAX: usize = 4_096;
/// Most bytes of `trace("…")` text one call leaves in its step's why, and a whole run
/// leaves in all its steps: a script that traces in a loop would otherwise write
/// gigabytes into `schedsim trace` and a Perfetto export. Past either, the why ends
/// with [`TRACE_TEXT_CUT`].
pub const TRACE_TEXT_CALL_MAX: usize = 4_096;
pub const TRACE_TEXT_RUN_MAX: usize = 1 << 20;
/// What ends a why whose `trace()` text was cut.
pub const TRACE_TEXT_CUT: &str = "… (trace() text cut: at most 4,096 bytes a call and 1 MiB a run)";

/// `wake_flags` as `select_task_rq_fair` receives them (v5.10+ values,
/// `kernel/sched/sched.h`): every wakeup is WF_TTWU, a sync one adds WF_SYNC.
pub const WF_TTWU: i64 = 0x08;
pub const WF_SYNC: i64 = 0x10;

/// A template: (name, what it does, the script).
pub type Template = (&'static str, &'static str, &'static str);

/// The templates shipped in `crates/schedsim/policies/`, each tested
/// (`tests/policy.rs`).
pub const TEMPLATES: [Template; 6] = [
    ("always-prev", "always the CPU the task last ran on", include_str!("../../policies/always-prev.rhai")),
    ("waker-cpu", "always the waker's CPU", include_str!("../../policies/waker-cpu.rhai")),
    ("first-idle-llc", "the first idle CPU of the LLC, else prev", include_str!("../../policies/first-idle-llc.rhai")),
    (
        "scx-default",
        "sched_ext's default select_cpu (scx_select_cpu_dfl, v6.12)",
        include_str!("../../policies/scx-default.rhai"),
    ),
    (
        "sis-v5.15",
        "v5.15's select_idle_sibling written as a script (run it on v5.15)",
        include_str!("../../policies/sis-v5.15.rhai"),
    ),
    (
        "seed001-v3.8",
        "seed 001's patch (e0a79f529d5b) as a script on v3.8's select_idle_sibling",
        include_str!("../../policies/seed001-v3.8.rhai"),
    ),
];

/// The template named `name`.
pub fn template(name: &str) -> Option<&'static str> {
    TEMPLATES.iter().find(|t| t.0 == name).map(|t| t.2)
}

/// Whether scripts compiled from now on run in Rhai's own evaluator only, not in the
/// compiled form (`linux::policy::fast`) that gives the same results faster: for tests
/// that compare the two (`tests/policy_fuzz.rs`) and for measuring what compiling saves.
static INTERPRET_ONLY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// See [`INTERPRET_ONLY`].
#[doc(hidden)]
pub fn set_interpret_only(on: bool) {
    INTERPRET_ONLY.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// See [`INTERPRET_ONLY`].
pub fn interpret_only() -> bool {
    INTERPRET_ONLY.load(std::sync::atomic::Ordering::Relaxed)
}

/// Operations the policy scripts of this process have made, all runs together, once
/// [`take_ops_counted`] was first called: for tests that compare a script compiled and
/// interpreted (`tests/policy_fuzz.rs`). Until then nothing is added, so the runs of a
/// sweep's threads do not all write one shared counter at every script call.
static OPS_COUNTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static OPS_COUNTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Adds a call's operations to [`OPS_COUNTED`] if it is counting.
#[cfg(feature = "policy")]
pub(crate) fn count_ops(n: u64) {
    if OPS_COUNTING.load(std::sync::atomic::Ordering::Relaxed) {
        OPS_COUNTED.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Takes [`OPS_COUNTED`], leaving 0, and counts from now on.
#[doc(hidden)]
pub fn take_ops_counted() -> u64 {
    OPS_COUNTING.store(true, std::sync::atomic::Ordering::Relaxed);
    OPS_COUNTED.swap(0, std::sync::atomic::Ordering::Relaxed)
}

/// The run's operation budget, [`RUN_OPS_MAX`] but for tests that need a run to spend
/// it quickly (`tests/policy_fuzz.rs`).
static RUN_OPS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(RUN_OPS_MAX);

/// Sets the run budget of runs started from now on (see [`RUN_OPS`]).
#[doc(hidden)]
pub fn set_run_ops_max(n: u64) {
    RUN_OPS.store(n, std::sync::atomic::Ordering::Relaxed);
}

/// The run budget of a run starting now (see [`RUN_OPS`]).
pub fn run_ops_max() -> u64 {
    RUN_OPS.load(std::sync::atomic::Ordering::Relaxed)
}
