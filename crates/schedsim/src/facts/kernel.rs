//! Kernel configurations: a version preset (which selects the form of each function on
//! the wakeup path), the sched features of `kernel/sched/features.h`, and the five seed
//! patches as toggles.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The kernel release whose code paths are modelled. Each function on the wakeup path
/// names in its doc comment which form it takes for which version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum KernelVersion {
    /// v3.8: group-walk `select_idle_sibling`, `effective_load` `wake_affine`, no
    /// `wake_wide`, remote queueing only across LLCs.
    #[serde(rename = "v3.8")]
    V3_8,
    /// v4.15: `wake_affine_idle`/`_weight` (bool), core/cpu/smt scans with SIS_PROP.
    #[serde(rename = "v4.15")]
    V4_15,
    /// v5.13: merged core/cpu scan, `select_idle_smt(prev)`, `recent_used_cpu`,
    /// queue-to-own-CPU for on_cpu wakees, SIS_PROP from `avg_idle / 512`.
    #[serde(rename = "v5.13")]
    V5_13,
    /// v5.14: SIS_PROP from aged `wake_avg_idle`; van Riel's newidle skip lands.
    #[serde(rename = "v5.14")]
    V5_14,
    /// v5.15: Gorman's `recent_used_cpu = prev` lands.
    #[serde(rename = "v5.15")]
    V5_15,
    /// v6.5 tip (SHARED_RUNQ v3 era): SIS_UTIL instead of SIS_PROP; queue wakeups to
    /// idle CPUs in the LLC (`ttwu_queue_cond` `!nr_running`).
    #[serde(rename = "v6.5")]
    V6_5,
    /// v6.6: EEVDF replaces CFS's pick and preemption (147f3efaa241, 5e963f2bd465):
    /// `pick_eevdf()`, lag-preserving `place_entity()`, wakeup preemption by
    /// `pick_eevdf() == pse`, a new request when the slice is used (`update_deadline`).
    #[serde(rename = "v6.6")]
    V6_6,
    /// v6.12: the tree sorted by deadline with the leftmost pick (2227a957e1d5,
    /// ee4373dc902c, v6.8: a deadline tie goes to the queued entity, not `curr`), and
    /// delayed dequeue (152e11f6df29 "sched/fair: Implement delayed dequeue" and its
    /// series, v6.12): a task that sleeps while not eligible stays queued
    /// (`sched_delayed`) until it is picked or woken, DELAY_ZERO, and the wakeup of a
    /// delayed task as `ttwu_runnable()`'s requeue on its own CPU. PREEMPT_SHORT
    /// (85e511df3cec) only acts on unequal slices, which nice-0 tasks never have.
    #[serde(rename = "v6.12")]
    V6_12,
    /// v6.18, the kernel of the traces in `traces/`: v6.12's fair class with the base
    /// slice of 0.70 ms (2ae891b82695, v6.15) and RUN_TO_PARITY as a protected vruntime
    /// (`set_protect_slice()`, v6.17), which for equal slices protects `curr` to the
    /// deadline it was picked with, as v6.6's stash did.
    #[serde(rename = "v6.18")]
    V6_18,
}

impl KernelVersion {
    pub const ALL: [KernelVersion; 9] = [
        KernelVersion::V3_8,
        KernelVersion::V4_15,
        KernelVersion::V5_13,
        KernelVersion::V5_14,
        KernelVersion::V5_15,
        KernelVersion::V6_5,
        KernelVersion::V6_6,
        KernelVersion::V6_12,
        KernelVersion::V6_18,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            KernelVersion::V3_8 => "v3.8",
            KernelVersion::V4_15 => "v4.15",
            KernelVersion::V5_13 => "v5.13",
            KernelVersion::V5_14 => "v5.14",
            KernelVersion::V5_15 => "v5.15",
            KernelVersion::V6_5 => "v6.5",
            KernelVersion::V6_6 => "v6.6",
            KernelVersion::V6_12 => "v6.12",
            KernelVersion::V6_18 => "v6.18",
        }
    }

    pub fn parse(s: &str) -> Option<KernelVersion> {
        KernelVersion::ALL.into_iter().find(|v| v.name() == s || v.name()[1..] == *s)
    }

    /// The release as (major, minor).
    pub const fn release(self) -> (u32, u32) {
        match self {
            KernelVersion::V3_8 => (3, 8),
            KernelVersion::V4_15 => (4, 15),
            KernelVersion::V5_13 => (5, 13),
            KernelVersion::V5_14 => (5, 14),
            KernelVersion::V5_15 => (5, 15),
            KernelVersion::V6_5 => (6, 5),
            KernelVersion::V6_6 => (6, 6),
            KernelVersion::V6_12 => (6, 12),
            KernelVersion::V6_18 => (6, 18),
        }
    }

    /// Whether this kernel contains a change first released in `major.minor`. Every
    /// version test of the model is written this way, naming the release of the commit
    /// that introduced the behaviour, so a preset added between two others takes each
    /// behaviour from the release it is, not from its neighbour.
    ///
    /// ```
    /// use schedsim::kernel::KernelVersion;
    /// assert!(KernelVersion::V5_13.since(4, 17));
    /// assert!(!KernelVersion::V4_15.since(4, 17));
    /// assert!(KernelVersion::V4_15.since(4, 15));
    /// ```
    pub const fn since(self, major: u32, minor: u32) -> bool {
        let (a, b) = self.release();
        a > major || (a == major && b >= minor)
    }
}

/// Every switch: sched features and seed patches. Names are the kernel's (features)
/// or the project's (patches: each variant names the patch it models; `docs/seeds.md`
/// gives each seed's author, date and measured result).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Switch {
    #[serde(rename = "WA_IDLE")]
    WaIdle,
    #[serde(rename = "WA_WEIGHT")]
    WaWeight,
    #[serde(rename = "WA_BIAS")]
    WaBias,
    #[serde(rename = "SIS_PROP")]
    SisProp,
    #[serde(rename = "SIS_UTIL")]
    SisUtil,
    #[serde(rename = "TTWU_QUEUE")]
    TtwuQueue,
    #[serde(rename = "SHARED_RUNQ")]
    SharedRunq,
    /// Seed 001, Galbraith 2013, e0a79f529d5b.
    #[serde(rename = "sis-prev-idle")]
    SisPrevIdle,
    /// Gorman 2017, 7332dec055f2 (v4.16), RFC 1/4 of seed 000's series and the seed's
    /// baseline ("noirq"): an interrupt pulls a wakee only to a CPU sharing prev's cache.
    #[serde(rename = "wake-affine-noirq")]
    WakeAffineNoirq,
    /// Gorman 2017, 806486c377e3 (v4.16), seed 000's patch as merged: an interrupt
    /// wakeup keeps an idle cache-affine prev.
    #[serde(rename = "wake-affine-prev")]
    WakeAffinePrev,
    /// Seed 000 as posted and measured (RFC 2/4, Dec 2017, never merged in this form):
    /// `wake_affine()` returns a CPU, an idle prev is kept for normal wakeups, and the
    /// kept `return true` of the now int-returning `wake_affine_idle()` names CPU 1.
    #[serde(rename = "wake-affine-prev-rfc")]
    WakeAffinePrevRfc,
    /// Seed 002, van Riel 2021, e5e678e4fea2.
    #[serde(rename = "newidle-skip-pending")]
    NewidleSkipPending,
    /// Seed 003, Gorman 2021, 89aafd67f28c.
    #[serde(rename = "recent-used-prev")]
    RecentUsedPrev,
    /// Seed 004, Nayak 2023 RFC patch 3.
    #[serde(rename = "shared-runq-overload")]
    SharedRunqOverload,
    /// The preemption models, one at a time: the kernel's `preempt=` names
    /// ([`PreemptModel`]). Off in every version unless set: the machine says its model.
    #[serde(rename = "preempt-none")]
    PreemptNone,
    #[serde(rename = "preempt-voluntary")]
    PreemptVoluntary,
    #[serde(rename = "preempt-full")]
    PreemptFull,
    #[serde(rename = "preempt-lazy")]
    PreemptLazy,
    /// Sched features of `kernel/sched/features.h` (v6.18) that the model's code has.
    #[serde(rename = "WAKEUP_PREEMPTION")]
    WakeupPreemption,
    #[serde(rename = "RUN_TO_PARITY")]
    RunToParity,
    #[serde(rename = "PLACE_LAG")]
    PlaceLag,
    #[serde(rename = "PLACE_DEADLINE_INITIAL")]
    PlaceDeadlineInitial,
    #[serde(rename = "PLACE_REL_DEADLINE")]
    PlaceRelDeadline,
    #[serde(rename = "PREEMPT_SHORT")]
    PreemptShort,
    #[serde(rename = "DELAY_DEQUEUE")]
    DelayDequeue,
    #[serde(rename = "DELAY_ZERO")]
    DelayZero,
    #[serde(rename = "NEXT_BUDDY")]
    NextBuddy,
}

/// The kernel's preemption model (`CONFIG_PREEMPT_NONE`, `_VOLUNTARY`, `CONFIG_PREEMPT`,
/// `_LAZY`; the `preempt=` boot parameter with `CONFIG_PREEMPT_DYNAMIC`, v5.12): where
/// a pending reschedule (`TIF_NEED_RESCHED`) takes effect. `linux/sched.rs`
/// (`Sim::may_preempt`) has the points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum PreemptModel {
    /// When the task blocks, at the return to user mode, at `cond_resched()`.
    None,
    /// As `none`, plus `might_resched()` in `might_sleep()` annotations.
    Voluntary,
    /// At once, wherever preemption is enabled (`preempt_enable()`, interrupt exit).
    /// The model's behaviour before the preemption models existed, so the default of a
    /// machine that names none.
    #[default]
    Full,
    /// v6.13 (7c70cb94d29c "sched: Add Lazy preemption model"): the fair class asks
    /// with `resched_curr_lazy()` (TIF_NEED_RESCHED_LAZY, no IPI to another CPU),
    /// honoured at the return to user mode and promoted to a full reschedule at the
    /// next tick (`sched_tick()`); everything else as `full`.
    Lazy,
}

impl PreemptModel {
    pub const ALL: [PreemptModel; 4] =
        [PreemptModel::None, PreemptModel::Voluntary, PreemptModel::Full, PreemptModel::Lazy];

    pub const fn name(self) -> &'static str {
        match self {
            PreemptModel::None => "none",
            PreemptModel::Voluntary => "voluntary",
            PreemptModel::Full => "full",
            PreemptModel::Lazy => "lazy",
        }
    }

    /// Its switch.
    pub const fn switch(self) -> Switch {
        match self {
            PreemptModel::None => Switch::PreemptNone,
            PreemptModel::Voluntary => Switch::PreemptVoluntary,
            PreemptModel::Full => Switch::PreemptFull,
            PreemptModel::Lazy => Switch::PreemptLazy,
        }
    }

    /// The model a switch names, if it is a preemption switch.
    pub fn of_switch(s: Switch) -> Option<PreemptModel> {
        PreemptModel::ALL.into_iter().find(|m| m.switch() == s)
    }
}

impl Switch {
    pub const ALL: [Switch; 27] = [
        Switch::WaIdle,
        Switch::WaWeight,
        Switch::WaBias,
        Switch::SisProp,
        Switch::SisUtil,
        Switch::TtwuQueue,
        Switch::SharedRunq,
        Switch::SisPrevIdle,
        Switch::WakeAffineNoirq,
        Switch::WakeAffinePrev,
        Switch::WakeAffinePrevRfc,
        Switch::NewidleSkipPending,
        Switch::RecentUsedPrev,
        Switch::SharedRunqOverload,
        Switch::PreemptNone,
        Switch::PreemptVoluntary,
        Switch::PreemptFull,
        Switch::PreemptLazy,
        Switch::WakeupPreemption,
        Switch::RunToParity,
        Switch::PlaceLag,
        Switch::PlaceDeadlineInitial,
        Switch::PlaceRelDeadline,
        Switch::PreemptShort,
        Switch::DelayDequeue,
        Switch::DelayZero,
        Switch::NextBuddy,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Switch::WaIdle => "WA_IDLE",
            Switch::WaWeight => "WA_WEIGHT",
            Switch::WaBias => "WA_BIAS",
            Switch::SisProp => "SIS_PROP",
            Switch::SisUtil => "SIS_UTIL",
            Switch::TtwuQueue => "TTWU_QUEUE",
            Switch::SharedRunq => "SHARED_RUNQ",
            Switch::SisPrevIdle => "sis-prev-idle",
            Switch::WakeAffineNoirq => "wake-affine-noirq",
            Switch::WakeAffinePrev => "wake-affine-prev",
            Switch::WakeAffinePrevRfc => "wake-affine-prev-rfc",
            Switch::NewidleSkipPending => "newidle-skip-pending",
            Switch::RecentUsedPrev => "recent-used-prev",
            Switch::SharedRunqOverload => "shared-runq-overload",
            Switch::PreemptNone => "preempt-none",
            Switch::PreemptVoluntary => "preempt-voluntary",
            Switch::PreemptFull => "preempt-full",
            Switch::PreemptLazy => "preempt-lazy",
            Switch::WakeupPreemption => "WAKEUP_PREEMPTION",
            Switch::RunToParity => "RUN_TO_PARITY",
            Switch::PlaceLag => "PLACE_LAG",
            Switch::PlaceDeadlineInitial => "PLACE_DEADLINE_INITIAL",
            Switch::PlaceRelDeadline => "PLACE_REL_DEADLINE",
            Switch::PreemptShort => "PREEMPT_SHORT",
            Switch::DelayDequeue => "DELAY_DEQUEUE",
            Switch::DelayZero => "DELAY_ZERO",
            Switch::NextBuddy => "NEXT_BUDDY",
        }
    }

    /// A preemption model's switch (`preempt-*`): one at a time, defaulting to the
    /// machine's model.
    pub fn is_preempt_model(self) -> bool {
        PreemptModel::of_switch(self).is_some()
    }

    /// A switch whose kernel code the model does not act on: setting it changes
    /// nothing, and `schedsim presets` and the page say so (with [`Switch::explain`]).
    pub const fn inert(self) -> bool {
        matches!(self, Switch::PreemptShort | Switch::NextBuddy | Switch::PlaceRelDeadline)
    }

    pub fn is_patch(self) -> bool {
        matches!(
            self,
            Switch::SisPrevIdle
                | Switch::WakeAffineNoirq
                | Switch::WakeAffinePrev
                | Switch::WakeAffinePrevRfc
                | Switch::NewidleSkipPending
                | Switch::RecentUsedPrev
                | Switch::SharedRunqOverload
        )
    }

    /// One line for the page and `schedsim presets`.
    pub fn explain(self) -> &'static str {
        match self {
            Switch::WaIdle => "wake_affine: pull the wakee to an idle waking CPU (or a sync waker's CPU)",
            Switch::WaWeight => "wake_affine: compare this and prev CPU load when WA_IDLE has no opinion",
            Switch::WaBias => "wake_affine_weight: bias towards prev by half the imbalance_pct",
            Switch::SisProp => "select_idle_cpu: limit the scan depth by average idle time / scan cost",
            Switch::SisUtil => "select_idle_cpu: limit the scan depth by LLC utilisation (v6.0)",
            Switch::TtwuQueue => "queue remote wakeups on the target's wake list and send an IPI",
            Switch::SharedRunq => "per-LLC sharded shared runqueue that idle CPUs pull from (RFC, 2023)",
            Switch::SisPrevIdle => "seed 001: select_idle_sibling takes prev if cache-affine and idle",
            Switch::WakeAffineNoirq => "7332dec (v4.16): an interrupt pulls a wakee only to a CPU sharing prev's cache",
            Switch::WakeAffinePrev => {
                "seed 000 as merged (806486c, v4.16): an interrupt wakeup keeps an idle cache-affine prev"
            }
            Switch::WakeAffinePrevRfc => {
                "seed 000 as posted and measured (RFC 2/4): keep an idle prev; interrupt pulls name CPU 1"
            }
            Switch::NewidleSkipPending => "seed 002: newidle_balance returns when a wakeup is pending",
            Switch::RecentUsedPrev => "seed 003: p->recent_used_cpu = prev inside select_idle_sibling",
            Switch::SharedRunqOverload => "seed 004: per-shard overload flag lets idle CPUs skip useless shards",
            Switch::PreemptNone => "preemption model none: a wakeup preempts at the return to user mode or a block",
            Switch::PreemptVoluntary => {
                "preemption model voluntary: none's points plus might_resched(); no benchmark model has one after a wakeup, so as none"
            }
            Switch::PreemptFull => "preemption model full: a wakeup preempts at once, in the kernel too",
            Switch::PreemptLazy => {
                "preemption model lazy (v6.13): fair wakeups preempt at the return to user mode, or at the next tick"
            }
            Switch::WakeupPreemption => "a waking task may preempt the running one (check_preempt_wakeup)",
            Switch::RunToParity => "EEVDF: curr keeps the CPU until the deadline it was picked with (v6.6)",
            Switch::PlaceLag => "EEVDF: a waking task keeps the lag it slept with (v6.6)",
            Switch::PlaceDeadlineInitial => "EEVDF: a new task's first request is half a slice (v6.6)",
            Switch::PlaceRelDeadline => {
                "EEVDF: a migrating task keeps its deadline relative to its vruntime (v6.12); not modelled: no effect here"
            }
            Switch::PreemptShort => {
                "EEVDF: a wakee with a shorter slice may preempt (v6.12); no effect here: every task has the base slice"
            }
            Switch::DelayDequeue => "EEVDF: a sleeper that is not eligible stays queued until picked (v6.12)",
            Switch::DelayZero => "EEVDF: a delayed task leaves with its positive lag clipped to 0 (v6.12)",
            Switch::NextBuddy => "prefer the last wakee at the next pick; not modelled: no effect here",
        }
    }

    /// The seed file a patch comes from.
    pub fn seed_file(self) -> Option<&'static str> {
        Some(match self {
            Switch::WakeAffinePrev | Switch::WakeAffinePrevRfc => "000_620a1bee13ca04e9.txt",
            Switch::SisPrevIdle => "001_b01dc0add771867f.txt",
            Switch::NewidleSkipPending => "002_1d345c06dad7f925.txt",
            Switch::RecentUsedPrev => "003_c626c95ba9b88f20.txt",
            Switch::SharedRunqOverload => "004_fcfda7046c9c3317.txt",
            _ => return None,
        })
    }

    pub fn parse(s: &str) -> Option<Switch> {
        Switch::ALL.into_iter().find(|x| x.name().eq_ignore_ascii_case(s))
    }

    /// The kernel's own value of this switch in `v`. `None`: the switch's code does not
    /// exist in that version (setting it is allowed, and labels the run non-historical).
    pub fn default_in(self, v: KernelVersion) -> Option<bool> {
        // (the release whose code the switch lives in, its default there)
        let exists = |major, minor| v.since(major, minor);
        match self {
            // WA_IDLE, WA_WEIGHT (d153b153446f) and WA_BIAS (f2cdd9cc6c97), v4.14.
            Switch::WaIdle | Switch::WaWeight | Switch::WaBias => exists(4, 14).then_some(true),
            // SIS_PROP, 1ad3aaf3fcd2 (v4.13); off by default from SIS_UTIL's 70fb5ccf2ebb
            // (v6.0); removed by 984ffb6a4366 (v6.7).
            Switch::SisProp => (exists(4, 13) && !v.since(6, 7)).then_some(!v.since(6, 0)),
            Switch::SisUtil => exists(6, 0).then_some(true),
            // TTWU_QUEUE, 317f394160e9 (v3.0).
            Switch::TtwuQueue => exists(3, 0).then_some(true),
            // The SHARED_RUNQ RFC (v3, 2023) applies to the v6.5 tip (and its v6.6).
            Switch::SharedRunq | Switch::SharedRunqOverload => (exists(6, 5) && !v.since(6, 7)).then_some(false),
            Switch::SisPrevIdle => Some(v.since(3, 9)),
            // wake_affine_idle() exists from v4.14; both merged patches are v4.16.
            Switch::WakeAffineNoirq | Switch::WakeAffinePrev => exists(4, 14).then_some(v.since(4, 16)),
            Switch::WakeAffinePrevRfc => exists(4, 14).then_some(false),
            // ttwu_pending: 126c2092e5c8 (v5.8); the skip, e5e678e4fea2 (v5.14).
            Switch::NewidleSkipPending => exists(5, 8).then_some(v.since(5, 14)),
            // recent_used_cpu: 32e839dda3ba (v4.17); the patch, 89aafd67f28c (v5.15).
            Switch::RecentUsedPrev => exists(4, 17).then_some(v.since(5, 15)),
            // PREEMPT_NONE, _VOLUNTARY and PREEMPT are older than every version here;
            // PREEMPT_LAZY is 7c70cb94d29c (v6.13). Which one a kernel runs is its
            // build's (or `preempt=`), so the machine's fact: off here.
            Switch::PreemptNone | Switch::PreemptVoluntary | Switch::PreemptFull => Some(false),
            Switch::PreemptLazy => exists(6, 13).then_some(false),
            // WAKEUP_PREEMPTION: as old as CFS (v2.6.23), on.
            Switch::WakeupPreemption => Some(true),
            // EEVDF's placement and RUN_TO_PARITY: 147f3efaa241, 86bfbb7ce4f6,
            // 63304558ba5d (v6.6).
            Switch::RunToParity | Switch::PlaceLag | Switch::PlaceDeadlineInitial => exists(6, 6).then_some(true),
            // 82e9d0456e06 "sched/fair: Avoid re-setting virtual deadline on
            // 'migrations'", 85e511df3cec PREEMPT_SHORT, 152e11f6df29 DELAY_DEQUEUE and
            // 54a58a787791 DELAY_ZERO (v6.12).
            Switch::PlaceRelDeadline | Switch::PreemptShort | Switch::DelayDequeue | Switch::DelayZero => {
                exists(6, 12).then_some(true)
            }
            // NEXT_BUDDY: v2.6.32 (4793241be408), off.
            Switch::NextBuddy => Some(false),
        }
    }
}

/// A kernel configuration as the experiment names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelSpec {
    /// Column name in the report.
    pub name: String,
    /// Version preset, e.g. `v4.15`.
    pub preset: KernelVersion,
    /// Switches set differently from the preset.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub overrides: BTreeMap<Switch, bool>,
    /// A wakeup placement policy written as a Rhai script (the `policy` feature,
    /// [`crate::facts::policy`]): the kernel's functions it defines replace the
    /// modelled kernel's own in this column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
}

/// A bad `NAME=PRESET[+SWITCH][-SWITCH]...` string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSpecError(pub String);

/// The names of `$t::ALL`, in order, as a constant (a `const fn` cannot take
/// `name` as a function pointer).
macro_rules! names_of {
    ($t:ty) => {{
        let mut v = [""; <$t>::ALL.len()];
        let mut i = 0;
        while i < v.len() {
            v[i] = <$t>::ALL[i].name();
            i += 1;
        }
        v
    }};
}

/// serde's "expected one of" lists.
const VERSION_NAMES: [&str; KernelVersion::ALL.len()] = names_of!(KernelVersion);
const SWITCH_NAMES: [&str; Switch::ALL.len()] = names_of!(Switch);

/// Reads one of `names` (exactly as written), for the hand-written `Deserialize` of
/// [`KernelVersion`] and [`Switch`]: a derived one reports a number or `null` as a JSON
/// syntax error ("expected value") and leaves a map key's path as `?`.
struct NameVisitor<T: 'static> {
    what: &'static str,
    names: &'static [&'static str],
    all: &'static [T],
}

impl<T: Copy + 'static> serde::de::Visitor<'_> for NameVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} as a string, one of {}", self.what, self.names.join(", "))
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<T, E> {
        match self.names.iter().position(|&n| n == s) {
            Some(i) => Ok(self.all[i]),
            // A long list would not fit an error line: name the first few and where the
            // rest are.
            None if self.names.len() > 12 => Err(E::custom(format!(
                "unknown {} {:?}, expected one of the {} that `schedsim presets` lists ({}, ...)",
                self.what.trim_start_matches("a "),
                crate::facts::input::clip(s),
                self.names.len(),
                self.names[..6].join(", ")
            ))),
            None => Err(E::unknown_variant(s, self.names)),
        }
    }
}

impl<'de> Deserialize<'de> for KernelVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(NameVisitor { what: "a kernel version", names: &VERSION_NAMES, all: &KernelVersion::ALL })
    }
}

impl<'de> Deserialize<'de> for Switch {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(NameVisitor { what: "a switch", names: &SWITCH_NAMES, all: &Switch::ALL })
    }
}

/// A kernel for people: "mine (v5.15+sis-prev-idle)", or "v4.15" alone when its name
/// is its label, not "v4.15 (v4.15)".
pub fn name_with_label(name: &str, label: &str) -> String {
    if name == label {
        name.to_string()
    } else {
        format!("{name} ({label})")
    }
}

impl fmt::Display for KernelSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl KernelSpec {
    pub fn new(name: &str, preset: KernelVersion) -> KernelSpec {
        KernelSpec { name: name.into(), preset, overrides: BTreeMap::new(), policy: None }
    }

    pub fn with(mut self, s: Switch, on: bool) -> KernelSpec {
        self.overrides.insert(s, on);
        self
    }

    /// Parses `NAME=PRESET[+SWITCH|-SWITCH]...`, e.g. `wakeprev=v4.15+wake-affine-prev`
    /// or `noprop=v5.15-SIS_PROP`. Without `NAME=` the whole string is the name.
    ///
    /// ```
    /// use schedsim::kernel::{KernelSpec, Switch};
    /// let k = KernelSpec::parse("wp=v4.15+wake-affine-prev-WA_BIAS").unwrap();
    /// assert_eq!(k.overrides[&Switch::WakeAffinePrev], true);
    /// assert_eq!(k.overrides[&Switch::WaBias], false);
    /// ```
    pub fn parse(s: &str) -> Result<KernelSpec, KernelSpecError> {
        let (name, rest) = match s.split_once('=') {
            Some((n, r)) => (n.trim(), r.trim()),
            None => (s.trim(), s.trim()),
        };
        if name.is_empty() {
            return Err(KernelSpecError(format!("kernel {s:?}: empty name")));
        }
        // Split into the preset and a list of (+|-)SWITCH, where switch names may
        // contain '-' themselves: scan for the longest known switch name each time.
        let first = rest.find(['+', '-']).unwrap_or(rest.len());
        let preset_str = &rest[..first];
        let preset = KernelVersion::parse(preset_str).ok_or_else(|| {
            KernelSpecError(format!(
                "kernel {s:?}: unknown preset {preset_str:?}, expected one of {}",
                KernelVersion::ALL.map(|v| v.name()).join(", ")
            ))
        })?;
        let mut spec = KernelSpec::new(name, preset);
        let mut tail = &rest[first..];
        while !tail.is_empty() {
            let on = tail.starts_with('+');
            let body = &tail[1..];
            let found = Switch::ALL
                .iter()
                .filter(|sw| {
                    body.len() >= sw.name().len()
                        && body[..sw.name().len()].eq_ignore_ascii_case(sw.name())
                        && body[sw.name().len()..].chars().next().is_none_or(|c| c == '+' || c == '-')
                })
                .max_by_key(|sw| sw.name().len());
            match found {
                Some(sw) => {
                    // A switch given twice: the last one used to win without a word,
                    // so `+WA_IDLE-WA_IDLE` ran with WA_IDLE off.
                    if let Some(was) = spec.overrides.insert(*sw, on) {
                        let sign = |on: bool| if on { '+' } else { '-' };
                        return Err(KernelSpecError(format!(
                            "kernel {s:?}: switch {} given twice ({}{0}, then {}{0}): give each switch once",
                            sw.name(),
                            sign(was),
                            sign(on)
                        )));
                    }
                    tail = &body[sw.name().len()..];
                }
                None => {
                    let word = body.split(['+']).next().unwrap_or(body);
                    return Err(KernelSpecError(format!(
                        "kernel {s:?}: unknown switch {word:?}, expected one of {}",
                        Switch::ALL.map(|x| x.name()).join(", ")
                    )));
                }
            }
        }
        spec.check().map_err(|e| KernelSpecError(format!("kernel {s:?}: {e}")))?;
        Ok(spec)
    }

    /// The name with the label in parentheses, or the name alone when it is the label
    /// (see [`name_with_label`]).
    pub fn name_with_label(&self) -> String {
        name_with_label(&self.name, &self.label())
    }

    /// The `PRESET+A-B` form (without the name), `+policy` last when a script places
    /// the wakeups.
    pub fn label(&self) -> String {
        let mut s = self.preset.name().to_string();
        for (sw, on) in &self.overrides {
            s.push(if *on { '+' } else { '-' });
            s.push_str(sw.name());
        }
        if self.policy.is_some() {
            s.push_str("+policy");
        }
        s
    }

    /// Resolves the switches.
    pub fn resolve(&self) -> KernelConfig {
        self.resolve_on(PreemptModel::default())
    }

    /// Resolves the switches on a machine whose kernel build has `machine`'s preemption
    /// model: a `+preempt-*` switch replaces it.
    pub fn resolve_on(&self, machine: PreemptModel) -> KernelConfig {
        let mut on = [false; Switch::ALL.len()];
        for (i, sw) in Switch::ALL.iter().enumerate() {
            on[i] = self.overrides.get(sw).copied().unwrap_or(sw.default_in(self.preset).unwrap_or(false));
        }
        let preempt = self.preempt_override().unwrap_or(machine);
        for m in PreemptModel::ALL {
            on[m.switch() as usize] = m == preempt;
        }
        let eevdf = self.preset.since(6, 6);
        KernelConfig {
            version: self.preset,
            on,
            eevdf,
            delay_dequeue: eevdf && on[Switch::DelayDequeue as usize],
            preempt,
        }
    }

    /// The preemption model a `+preempt-*` switch sets, if one does.
    pub fn preempt_override(&self) -> Option<PreemptModel> {
        self.overrides.iter().filter(|(_, &on)| on).find_map(|(&sw, _)| PreemptModel::of_switch(sw))
    }

    /// The rules of the switches themselves: one preemption model at a time, and a
    /// model is chosen by setting it (`-preempt-none` says nothing about which one
    /// runs instead).
    pub fn check(&self) -> Result<(), String> {
        let set: Vec<&str> =
            self.overrides.iter().filter(|(sw, &on)| on && sw.is_preempt_model()).map(|(sw, _)| sw.name()).collect();
        if set.len() > 1 {
            return Err(format!("{} at once: one preemption model at a time", set.join(" and ")));
        }
        if let Some((sw, _)) = self.overrides.iter().find(|(sw, &on)| !on && sw.is_preempt_model()) {
            return Err(format!(
                "-{}: choose a preemption model by setting one (+preempt-none, +preempt-voluntary, +preempt-full, \
                 +preempt-lazy), not by clearing one",
                sw.name()
            ));
        }
        Ok(())
    }

    /// Why this combination never existed in a kernel, if it did not.
    pub fn non_historical(&self) -> Vec<String> {
        let mut why = Vec::new();
        for (sw, &on) in &self.overrides {
            match sw.default_in(self.preset) {
                None if on => why.push(format!("{} does not exist in {}", sw.name(), self.preset.name())),
                Some(d) if d != on && sw.is_patch() => why.push(format!(
                    "{} is {} in {}, here {}",
                    sw.name(),
                    if d { "merged" } else { "not merged" },
                    self.preset.name(),
                    if on { "on" } else { "off" }
                )),
                _ => {}
            }
        }
        let c = self.resolve();
        if c.on(Switch::SharedRunqOverload) && !c.on(Switch::SharedRunq) {
            why.push("shared-runq-overload without SHARED_RUNQ has no effect".into());
        }
        if c.on(Switch::WakeAffinePrevRfc) && c.on(Switch::WakeAffinePrev) {
            why.push("wake-affine-prev-rfc replaces wake-affine-prev's form of wake_affine_idle".into());
        }
        why
    }
}

/// Resolved configuration used by the simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelConfig {
    pub version: KernelVersion,
    on: [bool; Switch::ALL.len()],
    /// `version.since(6, 6)`, resolved once: see [`KernelConfig::eevdf`].
    eevdf: bool,
    /// DELAY_DEQUEUE on an EEVDF kernel, resolved once: see [`KernelConfig::delay_dequeue`].
    delay_dequeue: bool,
    /// The preemption model: the machine's, or a `preempt-*` switch's.
    pub preempt: PreemptModel,
}

impl KernelConfig {
    #[inline]
    pub fn on(&self, s: Switch) -> bool {
        self.on[s as usize]
    }

    /// [`KernelVersion::since`] of this configuration's version.
    #[inline]
    pub fn since(&self, major: u32, minor: u32) -> bool {
        self.version.since(major, minor)
    }

    /// `since(6, 6)`: the fair class is EEVDF (147f3efaa241, 5e963f2bd465, v6.6). The
    /// test sits on the paths every event takes (`update_curr`, the pick, enqueue and
    /// dequeue), so it is resolved once into a flag rather than read from the version.
    #[inline(always)]
    pub fn eevdf(&self) -> bool {
        self.eevdf
    }

    /// DELAY_DEQUEUE (152e11f6df29, v6.12; on from v6.12) on an EEVDF kernel, on the
    /// same hot paths as [`KernelConfig::eevdf`], resolved once.
    #[inline(always)]
    pub fn delay_dequeue(&self) -> bool {
        self.delay_dequeue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_equal_to_its_label_is_said_once() {
        assert_eq!(KernelSpec::new("v4.15", KernelVersion::V4_15).name_with_label(), "v4.15");
        assert_eq!(KernelSpec::new("old", KernelVersion::V4_15).name_with_label(), "old (v4.15)");
        assert_eq!(name_with_label("mine", "v5.15+sis-prev-idle"), "mine (v5.15+sis-prev-idle)");
        assert_eq!(name_with_label("v5.15 (2)", "v5.15"), "v5.15 (2) (v5.15)");
    }

    #[test]
    fn patches_default_off_on_their_version_and_on_after() {
        use KernelVersion::*;
        let on = |v, s| KernelSpec::new("k", v).resolve().on(s);
        assert!(!on(V3_8, Switch::SisPrevIdle) && on(V4_15, Switch::SisPrevIdle));
        assert!(!on(V4_15, Switch::WakeAffinePrev) && on(V5_13, Switch::WakeAffinePrev));
        assert!(!on(V4_15, Switch::WakeAffineNoirq) && on(V5_13, Switch::WakeAffineNoirq));
        assert!(KernelVersion::ALL.iter().all(|&v| !on(v, Switch::WakeAffinePrevRfc)));
        assert!(!on(V5_13, Switch::NewidleSkipPending) && on(V5_14, Switch::NewidleSkipPending));
        assert!(!on(V5_14, Switch::RecentUsedPrev) && on(V5_15, Switch::RecentUsedPrev));
        assert!(!on(V6_5, Switch::SharedRunqOverload) && !on(V6_5, Switch::SharedRunq));
        assert!(on(V6_5, Switch::SisUtil) && !on(V6_5, Switch::SisProp));
        // v6.6 changes the fair class, not these switches: SIS_PROP is still there
        // (removed in v6.7, 984ffb6a4366), off; SHARED_RUNQ v3 applies to its tip.
        assert!(on(V6_6, Switch::SisUtil) && !on(V6_6, Switch::SisProp));
        assert_eq!(Switch::SisProp.default_in(V6_6), Some(false));
        assert!(!on(V6_6, Switch::SharedRunq));
    }

    #[test]
    fn eevdf_is_v66_and_later() {
        for v in KernelVersion::ALL {
            assert_eq!(KernelSpec::new("k", v).resolve().eevdf(), v.since(6, 6), "{}", v.name());
        }
        assert_eq!(KernelVersion::parse("v6.6"), Some(KernelVersion::V6_6));
        assert_eq!(KernelVersion::parse("6.6"), Some(KernelVersion::V6_6));
        assert_eq!(KernelSpec::parse("new=v6.6+SHARED_RUNQ").unwrap().label(), "v6.6+SHARED_RUNQ");
    }

    #[test]
    fn delayed_dequeue_is_v612_and_later() {
        for v in KernelVersion::ALL {
            let c = KernelSpec::new("k", v).resolve();
            assert_eq!(c.delay_dequeue(), v.since(6, 12), "{}", v.name());
            assert!(!c.delay_dequeue() || c.eevdf());
        }
        assert!(!KernelVersion::V6_6.since(6, 8) && KernelVersion::V6_12.since(6, 8));
        assert!(!KernelVersion::V6_12.since(6, 15) && KernelVersion::V6_18.since(6, 15));
        assert_eq!(KernelVersion::parse("v6.18"), Some(KernelVersion::V6_18));
        assert_eq!(KernelVersion::parse("6.12"), Some(KernelVersion::V6_12));
    }

    #[test]
    fn parse_and_label_round_trip() {
        let k = KernelSpec::parse("x=v6.5+SHARED_RUNQ+shared-runq-overload-TTWU_QUEUE").unwrap();
        assert_eq!(k.label(), "v6.5-TTWU_QUEUE+SHARED_RUNQ+shared-runq-overload");
        let again = KernelSpec::parse(&format!("x={}", k.label())).unwrap();
        assert_eq!(again, k);
        assert!(KernelSpec::parse("x=v9").unwrap_err().0.contains("unknown preset"));
        assert!(KernelSpec::parse("x=v5.15+FOO").unwrap_err().0.contains("unknown switch \"FOO\""));
    }

    #[test]
    fn a_switch_given_twice_is_refused() {
        // Issue 42: the last one won without a word.
        let e = KernelSpec::parse("x=v6.18+WA_IDLE-WA_IDLE").unwrap_err().0;
        assert_eq!(
            e,
            "kernel \"x=v6.18+WA_IDLE-WA_IDLE\": switch WA_IDLE given twice (+WA_IDLE, then -WA_IDLE): give each \
             switch once"
        );
        assert!(KernelSpec::parse("x=v6.18-wa_idle+WA_IDLE").unwrap_err().0.contains("(-WA_IDLE, then +WA_IDLE)"));
        assert!(KernelSpec::parse("x=v6.18+WA_IDLE+WA_IDLE").is_err());
    }

    #[test]
    fn non_historical_is_labelled_not_refused() {
        let k = KernelSpec::parse("x=v3.8+SIS_UTIL").unwrap();
        assert_eq!(k.non_historical(), ["SIS_UTIL does not exist in v3.8"]);
        assert!(k.resolve().on(Switch::SisUtil));
        assert!(KernelSpec::parse("x=v4.15+wake-affine-prev").unwrap().non_historical().len() == 1);
        assert!(KernelSpec::parse("x=v5.15").unwrap().non_historical().is_empty());
    }
}
