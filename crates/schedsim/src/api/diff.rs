//! The A/B difference of one wakeup: run kernel A and, at every wakeup A decides
//! (`select_task_rq`), ask kernel B's decision code what it would choose in exactly the
//! same state. B's answer changes nothing: it is computed on a copy of the whole
//! simulation ([`Sim`] is `Clone`), with B's kernel configuration and sched domains
//! swapped in, so whatever B's code writes (`wakee_flips`, `recent_used_cpu`,
//! `avg_scan_cost`, `has_idle_cores`, counters, the wake list, events) is thrown away
//! with the copy. A's run is the same as without the diff, event for event (tested).
//!
//! B reads A's state as it is, including state only B's kernel would have kept up:
//! with A = v3.8 (no `recent_used_cpu` yet), B = v5.15 reads the value A never set.
//! Between two forms of one version (a patch on or off) nothing of the sort arises.
//!
//! A wakee still on its CPU (`p->on_cpu`) is queued there, or waited for, without
//! choosing a CPU; such wakeups are counted but not compared.

use crate::api::experiment::{Checks, Error, Experiment};
use crate::facts::counterfactual::Counterfactual;
use crate::facts::kernel::KernelSpec;
use crate::facts::topology::Distance;
use crate::facts::trace::{TraceWindow, WakeupTrace, TRACE_WAKEUPS_MAX};
use crate::facts::views::CpuView;
use crate::state::Sim;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::fmt::Write;

/// At most this many differences are kept in full (both traces and every CPU's state).
pub const DIFF_DETAILS_MAX: u32 = 1000;

/// What to compare: kernels `a` and `b` (indices into the experiment's kernels) at one
/// client count and iteration, over wakeups `from..from + count` of the run (counted
/// from 0 at its start, warm-up included, as `schedsim trace` counts them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffAsk {
    pub a: u32,
    pub b: u32,
    pub clients: u32,
    pub iteration: u32,
    pub from: u64,
    pub count: u32,
    /// How many differences to keep in full, the first ones (at most
    /// [`DIFF_DETAILS_MAX`]); every difference is listed briefly.
    pub details: u32,
}

/// One wakeup where A and B choose different CPUs, in full.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WakeupDiff {
    /// A's decision (what happened).
    pub a: WakeupTrace,
    /// B's decision in the same state (what would have happened).
    pub b: WakeupTrace,
    /// How far B's CPU is from A's.
    pub relation: Distance,
    /// Every CPU as both decisions saw it, just before deciding.
    pub cpus: Vec<CpuView>,
}

impl WakeupDiff {
    pub fn a_cpu(&self) -> u32 {
        self.a.outcome.as_ref().map_or(u32::MAX, |o| o.chosen_cpu)
    }

    pub fn b_cpu(&self) -> u32 {
        self.b.outcome.as_ref().map_or(u32::MAX, |o| o.chosen_cpu)
    }
}

/// One difference, briefly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffBrief {
    /// The wakeup's index, as in its traces.
    pub index: u64,
    pub time_ns: u64,
    pub wakee: String,
    pub prev_cpu: u32,
    pub a_cpu: u32,
    pub b_cpu: u32,
    pub relation: Distance,
}

/// How the CPU B would choose relates to the CPU A chose, over the compared wakeups.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelationCounts {
    pub same_cpu: u64,
    pub smt_sibling: u64,
    pub same_llc: u64,
    pub cross_llc: u64,
    pub cross_node: u64,
}

impl RelationCounts {
    fn add(&mut self, d: Distance) {
        match d {
            Distance::SameCpu => self.same_cpu += 1,
            Distance::SmtSibling => self.smt_sibling += 1,
            Distance::SameLlc => self.same_llc += 1,
            Distance::CrossLlc => self.cross_llc += 1,
            Distance::CrossNode => self.cross_node += 1,
        }
    }

    /// (distance, count) from near to far.
    pub fn rows(&self) -> [(Distance, u64); 5] {
        [
            (Distance::SameCpu, self.same_cpu),
            (Distance::SmtSibling, self.smt_sibling),
            (Distance::SameLlc, self.same_llc),
            (Distance::CrossLlc, self.cross_llc),
            (Distance::CrossNode, self.cross_node),
        ]
    }
}

/// The result of [`Experiment::diff`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffReport {
    pub ask: DiffAsk,
    pub experiment_name: String,
    pub kernel_a: KernelSpec,
    pub kernel_b: KernelSpec,
    /// What the clients count (`pairs`, `groups`...), for the header.
    pub clients_meaning: String,
    pub warmup_ms: u64,
    /// Wakeups of the window the run reached (fewer than asked when it ended first).
    pub wakeups: u64,
    /// Of those, the ones where A chose a CPU, and B was asked.
    pub compared: u64,
    /// Compared wakeups where B would choose another CPU.
    pub differ: u64,
    /// Compared wakeups where B would choose the same CPU by other steps.
    pub same_cpu_other_path: u64,
    /// B's CPU against A's, over every compared wakeup (`same_cpu`: they agree).
    pub relation: RelationCounts,
    /// Every difference, briefly, in wakeup order.
    pub list: Vec<DiffBrief>,
    /// The first `ask.details` differences in full.
    pub details: Vec<WakeupDiff>,
}

/// Pairs A's traces with B's answers as the run goes.
struct Pairing {
    details_max: usize,
    wakeups: u64,
    compared: u64,
    same_cpu_other_path: u64,
    relation: RelationCounts,
    list: Vec<DiffBrief>,
    details: Vec<WakeupDiff>,
}

impl Pairing {
    fn take(&mut self, sim: &mut Sim) {
        if sim.traces.is_empty() {
            return;
        }
        let traces = std::mem::take(&mut sim.traces);
        let Some(cf) = sim.diff.as_mut() else { return };
        for a in traces {
            self.wakeups += 1;
            // B's answers are in wakeup order; one older than A's trace has no partner
            // (it cannot happen: both are made within one `ttwu_place`).
            while cf.pending.front().is_some_and(|(b, _)| b.index < a.index) {
                cf.pending.pop_front();
            }
            if cf.pending.front().is_none_or(|(b, _)| b.index != a.index) {
                // A did not choose a CPU (the wakee was still on its CPU).
                continue;
            }
            let Some((b, cpus)) = cf.pending.pop_front() else { continue };
            let (Some(ao), Some(bo)) = (&a.outcome, &b.outcome) else { continue };
            self.compared += 1;
            let relation = sim.map.distance(ao.chosen_cpu, bo.chosen_cpu);
            self.relation.add(relation);
            if relation == Distance::SameCpu {
                if a.steps != b.steps {
                    self.same_cpu_other_path += 1;
                }
                continue;
            }
            self.list.push(DiffBrief {
                index: a.index,
                time_ns: a.time_ns,
                wakee: a.wakee.clone(),
                prev_cpu: a.prev_cpu,
                a_cpu: ao.chosen_cpu,
                b_cpu: bo.chosen_cpu,
                relation,
            });
            if self.details.len() < self.details_max {
                self.details.push(WakeupDiff { a, b, relation, cpus });
            }
        }
    }
}

/// Where [`Experiment::diff_run`] stops kernel A's run.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Until {
    /// After the compared window: all a diff needs.
    WindowEnd,
    /// At the run's end (the test that the diff leaves A's run unchanged).
    #[cfg_attr(not(test), allow(dead_code))]
    RunEnd,
}

impl Experiment {
    /// Runs kernel `ask.a` and compares, at every wakeup of the window, its choice of
    /// CPU with the one kernel `ask.b` would make in the same state (see the module
    /// documentation). The run stops after the window.
    pub fn diff(&self, ask: &DiffAsk) -> Result<DiffReport, Error> {
        self.diff_run(ask, Until::WindowEnd).map(|(r, _)| r)
    }

    /// [`Experiment::diff`]; with [`Until::RunEnd`], A's run goes on to its end after the window
    /// (for the test that the diff leaves A's run unchanged). Returns A's simulation.
    pub(crate) fn diff_run(&self, ask: &DiffAsk, until: Until) -> Result<(DiffReport, Sim), Error> {
        let r = self.validate()?;
        let n = self.kernels.len();
        for (which, k) in [("a", ask.a), ("b", ask.b)] {
            if k as usize >= n {
                return Err(Error(format!("diff: kernel {which} index {k}: the experiment has {n} kernel(s)")));
            }
        }
        if !self.clients.contains(&ask.clients) {
            let mut e = self.clone();
            e.clients = vec![ask.clients];
            e.validate()?;
        }
        if ask.count == 0 || ask.count > TRACE_WAKEUPS_MAX {
            return Err(Error(format!("diff: count {} is out of range 1 to {TRACE_WAKEUPS_MAX}", ask.count)));
        }
        if ask.details > DIFF_DETAILS_MAX {
            return Err(Error(format!("diff: details {} is out of range 0 to {DIFF_DETAILS_MAX}", ask.details)));
        }
        let Some(end) = ask.from.checked_add(ask.count as u64) else {
            return Err(Error(format!("diff: from {} is too large", ask.from)));
        };
        let window = TraceWindow { from: ask.from, count: ask.count };
        let mut sim = self.make_sim(&r, ask.a as usize, ask.clients, ask.iteration, Some(window), Checks::Off);
        #[cfg(feature = "policy")]
        if let Some(src) = &self.kernels[ask.b as usize].policy {
            sim.attach_diff_policy(src).map_err(|e| Error(format!("diff: kernel b's policy script {e}")))?;
        }
        #[cfg(not(feature = "policy"))]
        if self.kernels[ask.b as usize].policy.is_some() {
            return Err(Error(crate::api::policy::NO_ENGINE.to_string()));
        }
        let cfg = self.kernels[ask.b as usize].resolve();
        let doms = r.domains(crate::facts::domains::DomainParams::of(&cfg, &r.costs));
        sim.diff = Some(Box::new(Counterfactual { cfg, doms, pending: VecDeque::new() }));
        let mut pairing = Pairing {
            details_max: ask.details as usize,
            wakeups: 0,
            compared: 0,
            same_cpu_other_path: 0,
            relation: RelationCounts::default(),
            list: Vec::new(),
            details: Vec::new(),
        };
        sim.start();
        loop {
            let more = sim.step_event();
            pairing.take(&mut sim);
            if !more {
                break;
            }
            if sim.events_done > sim.opts.max_events {
                return Err(Error(format!(
                    "the run needs more than {} events; shorten the duration or lower the client count",
                    sim.opts.max_events
                )));
            }
            if until == Until::WindowEnd && sim.wake_index >= end && sim.trace.is_none() {
                break;
            }
        }
        if let Some(e) = sim.error.take() {
            return Err(Error(e.into()));
        }
        sim.finish();
        pairing.take(&mut sim);
        let differ = pairing.list.len() as u64;
        let report = DiffReport {
            ask: ask.clone(),
            experiment_name: self.name.clone(),
            kernel_a: self.kernels[ask.a as usize].clone(),
            kernel_b: self.kernels[ask.b as usize].clone(),
            clients_meaning: self.workload.clients_meaning().to_string(),
            warmup_ms: self.effective_warmup_ms(),
            wakeups: pairing.wakeups,
            compared: pairing.compared,
            differ,
            same_cpu_other_path: pairing.same_cpu_other_path,
            relation: pairing.relation,
            list: pairing.list,
            details: pairing.details,
        };
        Ok((report, sim))
    }
}

/// The library's own name of a distance (`same_llc`, `cross_node`...), in words.
pub fn distance_words(d: Distance) -> &'static str {
    match d {
        Distance::SameCpu => "same CPU",
        Distance::SmtSibling => "SMT sibling",
        Distance::SameLlc => "same LLC",
        Distance::CrossLlc => "cross-LLC",
        Distance::CrossNode => "cross-node",
    }
}

/// Where B's CPU is, seen from A's: "an SMT sibling of A's", ...
pub fn relation_words(d: Distance) -> &'static str {
    match d {
        Distance::SameCpu => "A's CPU",
        Distance::SmtSibling => "an SMT sibling of A's (same core)",
        Distance::SameLlc => "on another core of A's LLC",
        Distance::CrossLlc => "in another LLC of A's node",
        Distance::CrossNode => "on another NUMA node than A's",
    }
}

/// Why a trace ended where it did: its last step (the one that returned the CPU, or
/// gave up and left the target), as `function: why`.
pub fn reason(t: &WakeupTrace) -> String {
    match t.steps.last() {
        Some(s) if s.why.is_empty() => s.function.clone(),
        Some(s) => format!("{} ({})", s.why, s.function),
        None => "no step recorded".into(),
    }
}

fn indent(text: &str, by: &str) -> String {
    text.lines().map(|l| format!("{by}{l}\n")).collect()
}

impl DiffReport {
    /// `A (name) chose CPU 4 because …; B (name) would choose CPU 2 because …`.
    pub fn sentence(&self, d: &WakeupDiff) -> String {
        format!(
            "A ({}) chose CPU {} because {}; B ({}) would choose CPU {} because {}",
            self.kernel_a.name,
            d.a_cpu(),
            reason(&d.a),
            self.kernel_b.name,
            d.b_cpu(),
            reason(&d.b)
        )
    }

    /// The text of `schedsim diff`: header, counts, the first `list` differences one
    /// line each, and the first `full` with both traces.
    pub fn render(&self, list: usize, full: usize) -> String {
        let mut s = String::new();
        let a = &self.kernel_a;
        let b = &self.kernel_b;
        let last = self.ask.from.saturating_add(self.ask.count as u64).saturating_sub(1);
        let _ = writeln!(
            s,
            "{}: A = kernel {} {}, B = kernel {} {}, {}, iteration {}, wakeups {} to {} from the start of the run ({} ms of warm-up)",
            if self.experiment_name.is_empty() { "experiment" } else { &self.experiment_name },
            self.ask.a,
            a.name_with_label(),
            self.ask.b,
            b.name_with_label(),
            crate::facts::workload::count_of(self.ask.clients as u64, &self.clients_meaning),
            self.ask.iteration,
            self.ask.from,
            last,
            self.warmup_ms
        );
        let _ = writeln!(s, "A runs; at each wakeup B's decision code is asked in the same state (B changes nothing).");
        s.push('\n');
        let skipped = self.wakeups - self.compared;
        let _ = writeln!(
            s,
            "wakeups {}{}: compared {}, B differs at {} ({:.1}%)",
            self.wakeups,
            if self.wakeups < self.ask.count as u64 { " (the run ended first)" } else { "" },
            self.compared,
            self.differ,
            if self.compared > 0 { self.differ as f64 * 100.0 / self.compared as f64 } else { 0.0 }
        );
        if skipped > 0 {
            let _ = writeln!(s, "  not compared: {skipped} (the wakee was still on its CPU: no CPU was chosen)");
        }
        let _ = writeln!(s, "B's CPU against A's:");
        for (d, n) in self.relation.rows() {
            let note = match d {
                Distance::SameCpu if self.same_cpu_other_path > 0 => {
                    format!("  (by other steps: {})", self.same_cpu_other_path)
                }
                Distance::SameCpu => "  (agree)".to_string(),
                _ => String::new(),
            };
            let _ = writeln!(s, "  {:<12} {:>6}{note}", distance_words(d), n);
        }
        if self.list.is_empty() {
            return s;
        }
        let _ = writeln!(s, "\nDifferences (wakeup, time, wakee, prev -> A's CPU / B's CPU, B from A):");
        for d in self.list.iter().take(list) {
            let _ = writeln!(
                s,
                "  #{:<6} {:>10.3} ms  {:<16} prev {:>3} -> A {:>3} / B {:>3}  {}",
                d.index,
                d.time_ns as f64 / 1e6,
                d.wakee,
                d.prev_cpu,
                d.a_cpu,
                d.b_cpu,
                distance_words(d.relation)
            );
        }
        if self.list.len() > list {
            let _ = writeln!(s, "  ... and {} more (--list N shows more)", self.list.len() - list);
        }
        let n = self.details.len().min(full);
        for (i, d) in self.details.iter().take(n).enumerate() {
            let _ = writeln!(s, "\n=== difference {} of {}: wakeup #{} ===", i + 1, self.differ, d.a.index);
            let _ = writeln!(s, "{}.", self.sentence(d));
            let _ = writeln!(s, "B's CPU is {}.", relation_words(d.relation));
            let _ = writeln!(s, "\n--- A: {}", a.name_with_label());
            s.push_str(&indent(&d.a.render(), "  "));
            let _ = writeln!(s, "--- B: {}, counterfactual", b.name_with_label());
            s.push_str(&indent(&d.b.render(), "  "));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(a: u32, b: u32, clients: u32, count: u32) -> DiffAsk {
        DiffAsk { a, b, clients, iteration: 0, from: 0, count, details: 20 }
    }

    /// A's run with the diff is A's run without it: same traces of the window (against
    /// `Experiment::trace`), and run to its end, the same counters, sample, latency
    /// histograms and event count as a plain run. In seed 003's hackbench, B (the
    /// patch) writes `p->recent_used_cpu = prev` where A would not, and A reads it:
    /// copying B's `recent_used_cpu`, `wakee_flips` and LLC state back into A makes
    /// this test fail (tried).
    #[test]
    fn a_is_unchanged_by_the_diff() {
        let cases = [
            ("seed001", 0, 1, 1),
            ("demo", 1, 0, 8),
            ("demo", 0, 1, 8),
            ("seed003-pipe", 0, 1, 1),
            ("seed003-hackbench", 0, 1, 1),
        ];
        for (preset, a, b, clients) in cases {
            let mut e = crate::api::presets::experiment(preset).unwrap();
            e.duration_ms = 100;
            e.warmup_ms = 10;
            let window = TraceWindow { from: 0, count: 400 };
            let plain_traces = e.trace(a as usize, clients, 0, window).unwrap();
            let (rep, mut sim) = e.diff_run(&ask(a, b, clients, 400), Until::RunEnd).unwrap();
            assert!(rep.compared >= 50, "{preset}: {} compared", rep.compared);
            let r = e.validate().unwrap();
            let mut plain = e.make_sim(&r, a as usize, clients, 0, None, Checks::Off);
            plain.run(&mut |_| true).unwrap();
            let (x, y) = (sim.outcome(), plain.outcome());
            assert_eq!(x.counters, y.counters, "{preset} {a}/{b}");
            assert_eq!((x.sample.value.to_bits(), x.sample.finished), (y.sample.value.to_bits(), y.sample.finished));
            assert_eq!(x.wake_latency, y.wake_latency);
            assert_eq!(x.request_latency, y.request_latency);
            assert_eq!(x.elapsed_ns, y.elapsed_ns);
            // The traces of the differences are A's own, as `trace` prints them.
            for d in &rep.details {
                let t = plain_traces.iter().find(|t| t.index == d.a.index).unwrap();
                assert_eq!(*t, d.a);
            }
        }
    }

    /// Seed 001: v3.8 leaves an idle prev for the first fully idle core; with
    /// sis-prev-idle B would keep the idle prev: they differ, B's CPU is prev, in the
    /// same LLC, and B's trace shows the patch's check of prev.
    #[test]
    fn seed001_differs_where_the_patch_acts() {
        let e = crate::api::presets::experiment("seed001").unwrap();
        let rep = e.diff(&ask(0, 1, 1, 200)).unwrap();
        assert_eq!(rep.wakeups, 200);
        assert!(rep.differ > 0 && rep.differ <= rep.compared, "{rep:?}");
        assert_eq!(rep.relation.same_cpu + rep.differ, rep.compared);
        let d = &rep.details[0];
        assert_ne!(d.a_cpu(), d.b_cpu());
        assert_eq!(d.b_cpu(), d.b.prev_cpu, "B keeps prev");
        // B's select_idle_sibling took the patch's check of prev; A's never makes it.
        let prev_check = |t: &WakeupTrace| {
            t.steps.iter().any(|s| {
                s.function.starts_with("select_idle_sibling") && s.read.iter().any(|r| r.starts_with("idle_cpu(prev="))
            })
        };
        assert!(prev_check(&d.b), "{}", d.b.render());
        assert!(!prev_check(&d.a), "{}", d.a.render());
        assert_eq!(d.relation, rep.list[0].relation);
        assert_eq!(d.a.index, rep.list[0].index);
        // Same wakee, same CPUs seen: the headers agree.
        assert_eq!(
            (d.a.wakee.as_str(), d.a.prev_cpu, d.a.waker_cpu),
            (d.b.wakee.as_str(), d.b.prev_cpu, d.b.waker_cpu)
        );
        assert_eq!(d.cpus.len(), 20);
        let text = rep.render(5, 1);
        assert!(text.contains("B (prev-idle) would choose CPU"), "{text}");
        // The reverse: the patched kernel runs, the old code is asked.
        let rev = e.diff(&ask(1, 0, 1, 200)).unwrap();
        assert!(rev.differ > 0);
    }

    /// Two kernels with the same configuration never differ, by any path.
    #[test]
    fn identical_kernels_never_differ() {
        let mut e = crate::api::presets::experiment("demo").unwrap();
        let mut twin = e.kernels[1].clone();
        twin.name = "twin".into();
        e.kernels.push(twin);
        let rep = e.diff(&ask(1, 2, 4, 500)).unwrap();
        assert!(rep.compared > 400);
        assert_eq!(rep.differ, 0);
        assert_eq!(rep.same_cpu_other_path, 0);
        assert!(rep.list.is_empty() && rep.details.is_empty());
        assert_eq!(rep.relation.same_cpu, rep.compared);
        // And the index against itself.
        assert_eq!(e.diff(&ask(0, 0, 4, 200)).unwrap().differ, 0);
    }

    #[test]
    fn bad_asks_are_refused() {
        let e = crate::api::presets::experiment("seed001").unwrap();
        let msg = |a: DiffAsk| e.diff(&a).unwrap_err().0;
        assert!(msg(ask(0, 2, 1, 10)).contains("kernel b index 2"));
        assert!(msg(ask(5, 1, 1, 10)).contains("kernel a index 5"));
        assert!(msg(ask(0, 1, 1, 0)).contains("count 0"));
        assert!(msg(DiffAsk { details: 5000, ..ask(0, 1, 1, 10) }).contains("details"));
        assert!(msg(DiffAsk { from: u64::MAX, ..ask(0, 1, 1, 10) }).contains("too large"));
        assert!(msg(ask(0, 1, 100_000, 10)).contains("clients"));
    }

    /// The same ask gives the same bytes.
    #[test]
    fn deterministic() {
        let e = crate::api::presets::experiment("demo").unwrap();
        let x = serde_json::to_string(&e.diff(&ask(0, 1, 2, 300)).unwrap()).unwrap();
        let y = serde_json::to_string(&e.diff(&ask(0, 1, 2, 300)).unwrap()).unwrap();
        assert_eq!(x, y);
    }
}
