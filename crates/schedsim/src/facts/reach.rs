//! Whether a switch can change a run of a kernel configuration, and if not, why.
//!
//! A switch is a test in the modelled kernel's code; when that code does not run in the
//! configuration chosen (it came with a later release, or another switch decides first)
//! or what the switch adds is already there by another commit, flipping it changes
//! nothing, and a report identical to the kernel without it says nothing about the
//! patch. The facts here are the release gates of the code in `linux/` that reads each
//! switch (each entry names the function and the commit that introduced it);
//! `tests/reach.rs` runs every configuration said to be inert with the switch flipped
//! and checks that the report is byte-identical, and that a partly inert one differs
//! only where the note says.

use crate::facts::kernel::{KernelConfig, Switch};

/// What a switch can do in one kernel configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reach {
    /// The code the switch changes runs in this configuration.
    Acts,
    /// The code it changes does not run here: flipping it gives the same run, for
    /// every workload. The sentence says why.
    Never(String),
    /// Part of what it does is already in this version by another commit: it can
    /// change only the wakeups the sentence names.
    Partly(String),
}

/// The modelled code a switch changes, when that code came with a later release than
/// the oldest one modelled: the function, and the release and commit that added it
/// (the version test in `linux/` that guards it).
struct Needs {
    code: &'static str,
    since: (u32, u32),
    commit: &'static str,
}

impl Switch {
    fn needs(self) -> Option<Needs> {
        let n = |code, since, commit| Some(Needs { code, since, commit });
        match self {
            // `Sim::wake_affine`: before v4.14 the effective_load() form, which reads
            // no WA_ feature and has no wake_affine_idle().
            Switch::WaIdle | Switch::WaWeight => {
                n("wake_affine_idle() and wake_affine_weight()", (4, 14), "d153b153446f")
            }
            Switch::WaBias => n("wake_affine_weight()'s bias", (4, 14), "f2cdd9cc6c97"),
            Switch::WakeAffineNoirq | Switch::WakeAffinePrev | Switch::WakeAffinePrevRfc => {
                n("wake_affine_idle()", (4, 14), "d153b153446f")
            }
            // `Sim::select_idle_sibling`: v3.8's group walk has no select_idle_cpu().
            Switch::SisProp => n("select_idle_cpu()'s scan", (4, 9), "10e2f1acd010"),
            // `Sim::sis_prop_nr` reads SIS_UTIL's depth only in the merged scan.
            Switch::SisUtil => n("the merged idle core/CPU scan", (5, 12), "9fe1f127b913"),
            // `Sim::sis_recent_and_scans`, and the `recent_used_cpu` write after it.
            Switch::RecentUsedPrev => n("recent_used_cpu", (4, 17), "32e839dda3ba"),
            // `linux/eevdf.rs`: read only by EEVDF's pick, placement and dequeue.
            Switch::RunToParity
            | Switch::PlaceLag
            | Switch::PlaceDeadlineInitial
            | Switch::DelayDequeue
            | Switch::DelayZero => n("EEVDF's pick, placement and dequeue", (6, 6), "147f3efaa241"),
            _ => None,
        }
    }

    /// Whether this switch can change a run of `cfg` (its version and its other
    /// switches), and why not when it cannot.
    ///
    /// ```
    /// use schedsim::{reach::Reach, KernelSpec, KernelVersion, Switch};
    /// let cfg = KernelSpec::new("k", KernelVersion::V4_15).resolve();
    /// assert!(matches!(Switch::RecentUsedPrev.reach(&cfg), Reach::Never(_)));
    /// assert_eq!(Switch::SisPrevIdle.reach(&cfg), Reach::Acts);
    /// ```
    pub fn reach(self, cfg: &KernelConfig) -> Reach {
        if let Some(n) = self.needs() {
            if !cfg.since(n.since.0, n.since.1) {
                return Reach::Never(format!(
                    "changes nothing in {}: {} came with {} (v{}.{}), after this version",
                    cfg.version.name(),
                    n.code,
                    n.commit,
                    n.since.0,
                    n.since.1
                ));
            }
        }
        match self {
            // `Sim::sis_prop_nr`: SIS_UTIL's depth is taken first when it is on.
            Switch::SisProp if cfg.on(Switch::SisUtil) && cfg.since(5, 12) => Reach::Never(
                "changes nothing while SIS_UTIL is on: SIS_UTIL sets select_idle_cpu()'s scan depth (70fb5ccf2ebb)"
                    .into(),
            ),
            // `Sim::shared_runq_pop`: the flag is read only when there are shards.
            Switch::SharedRunqOverload if !cfg.on(Switch::SharedRunq) => {
                Reach::Never("changes nothing while SHARED_RUNQ is off: the flag is a shard's".into())
            }
            // `Sim::wake_affine_idle`: from d8fcb81f1acf (v5.10) an idle prev is kept for
            // every wakeup that reaches that rule, which is the RFC's normal-wakeup rule;
            // its other rules all need `idle_cpu(this)`.
            Switch::WakeAffinePrevRfc if cfg.since(5, 10) => Reach::Partly(format!(
                "in {} an idle prev is already kept (d8fcb81f1acf, v5.10): only a wakeup made on an idle CPU (an interrupt's) can differ, by the RFC's CPU 1 or a pull across caches",
                cfg.version.name()
            )),
            // `Rq::finish_delayed_dequeue` and `Rq::requeue_delayed`: only delayed tasks.
            Switch::DelayZero if !cfg.delay_dequeue() => {
                Reach::Never("changes nothing while DELAY_DEQUEUE is off: no task is ever delayed".into())
            }
            sw if sw.inert() => Reach::Never(format!("changes nothing: {}", sw.explain())),
            _ => Reach::Acts,
        }
    }
}
