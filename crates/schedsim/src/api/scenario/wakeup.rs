//! A built scenario run: one wakeup, traced, or one CPU going newly idle, and what
//! each changed.

use super::build::Built;
use super::spec::{Spec, WakerSpec};
use super::NOW;

use crate::state::{Phase, Sim, TState, NO_TASK};
use std::fmt::Write;

/// One wakeup from the waker's CPU, traced, and what it changed.
pub(super) fn run_wakeup(s: &Spec, w: &WakerSpec, p: u32, b: &mut Built) -> Result<String, String> {
    let (sim, waker, running) = (&mut b.sim, b.waker, &b.tasks.running);
    let mut out = String::new();
    let this = w.cpu as usize;
    let llc_this = sim.map.places[this].llc as usize;
    let snap = |sim: &Sim| {
        (
            sim.llcs[llc_this].avg_scan_cost,
            sim.cpus[this].wake_avg_idle,
            sim.llcs.iter().map(|l| l.has_idle_cores as u8).collect::<Vec<_>>(),
            (sim.m.sis_recent_hits, sim.m.sis_recent_attempts),
        )
    };
    let before = snap(sim);
    sim.try_to_wake_up(w.cpu, waker, p, s.sync, 0);
    let tr = sim.traces.pop().ok_or("the wakeup was not traced")?;
    out.push_str(&tr.render());
    let after = snap(sim);
    if sim.tasks[p as usize].deferred_wake.is_some() {
        // The waker spun on p->on_cpu: the rest of try_to_wake_up() runs when the
        // switch away completes, outside the traced wakeup. Run to that point.
        for _ in 0..1_000 {
            if sim.tasks[p as usize].deferred_wake.is_none() || !sim.step_event() {
                break;
            }
        }
        let t = &sim.tasks[p as usize];
        let _ = writeln!(
            out,
            "  after the spin (untraced): select_task_rq put the wakee on CPU {} at +{} ns",
            t.cpu,
            sim.now - NOW
        );
    }
    if before.0 != after.0 {
        let _ = writeln!(out, "  after: this_sd->avg_scan_cost {} -> {}", before.0, after.0);
    }
    if before.1 != after.1 {
        let _ = writeln!(out, "  after: wake_avg_idle({this}) {} -> {}", before.1, after.1);
    }
    if before.2 != after.2 {
        let _ = writeln!(out, "  after: has_idle_cores per LLC {:?} -> {:?}", before.2, after.2);
    }
    if before.3 != after.3 {
        // Gorman's SIS statistics (July 2021 form): a hit, or a miss for every other
        // candidate that is neither prev nor the target.
        let (hits, tries) = (after.3 .0 - before.3 .0, after.3 .1 - before.3 .1);
        let _ = writeln!(out, "  after: sis_recent_hit +{hits}, sis_recent_miss +{}", tries - hits);
    }
    let _ = write!(out, "  after: p->recent_used_cpu={}", sim.tasks[p as usize].recent_used_cpu);
    if let Some(wt) = waker {
        let t = &sim.tasks[wt as usize];
        let _ = write!(out, ", waker->recent_used_cpu={}, waker->wakee_flips={}", t.recent_used_cpu, t.wakee.flips);
    } else if let Some(curr) = running[this] {
        // The task the interrupt interrupted (`current` in the kernel).
        let t = &sim.tasks[curr as usize];
        let _ = write!(
            out,
            ", interrupted {}->recent_used_cpu={}, ->wakee_flips={}",
            t.name, t.recent_used_cpu, t.wakee.flips
        );
    }
    out.push('\n');
    Ok(out)
}

/// The CPU's task blocks and the CPU goes newly idle; the balance runs to its end.
pub(super) fn run_newidle(s: &Spec, b: &mut Built) -> Result<String, String> {
    let (sim, cfg, running, late) = (&mut b.sim, &b.cfg, &b.tasks.running, b.tasks.late);
    let mut out = String::new();
    let c = s.newidle.unwrap_or(0);
    let cu = c as usize;
    let _ = writeln!(
        out,
        "newidle on CPU {c} ({}): avg_idle={} rd->overload={} ttwu_pending={} max_newidle_lb_cost={:?}",
        s.kernel,
        sim.cpus[cu].avg_idle,
        sim.rd_overload as u8,
        sim.cpus[cu].ttwu_pending as u8,
        lb_costs(sim, c)
    );
    let shards = |sim: &Sim| -> String {
        let mut s = String::new();
        for (l, llc) in sim.llcs.iter().enumerate() {
            for (k, sh) in llc.shards.iter().enumerate() {
                let names: Vec<&str> = sh.list.iter().map(|&t| sim.tasks[t as usize].name.as_str()).collect();
                let _ = write!(s, " {l}.{k}{}[{}]", if sh.overload { "!" } else { "" }, names.join(" "));
            }
        }
        s
    };
    if cfg.on(crate::facts::kernel::Switch::SharedRunq) {
        let _ = writeln!(out, "  shards before (! = overload):{}", shards(sim));
    }
    let t = running[cu].ok_or_else(|| format!("cpu {c}: the CPU going idle runs no task"))?;
    sim.block(c, t, TState::Sleeping);
    sim.schedule(c);
    if let Some(l) = late {
        // What __ttwu_queue_wakelist() leaves behind for a wakeup queued to c from
        // another LLC while c balances (the IPI waits: interrupts are off).
        if matches!(sim.cpus[cu].phase, Phase::Newidle { .. }) {
            let task = &mut sim.tasks[l as usize];
            task.state = TState::Waking;
            task.cpu = c;
            sim.cpus[cu].wake_list.push(l);
            sim.cpus[cu].ttwu_pending = true;
            let _ = writeln!(out, "  (a wakeup of `late` is queued on CPU {c}'s wake list during the balance)");
        }
    }
    for _ in 0..1_000 {
        if !matches!(sim.cpus[cu].phase, Phase::Newidle { .. }) {
            break;
        }
        if !sim.step_event() {
            break;
        }
    }
    let m = serde_json::to_value(&sim.m).map_err(|e| e.to_string())?;
    let mut counters = Vec::new();
    if let Some(obj) = m.as_object() {
        for (k, v) in obj {
            if let Some(x) = v.as_u64().filter(|&x| x > 0) {
                counters.push(format!("{k}={x}"));
            }
        }
    }
    let _ = writeln!(out, "  counters: {}", counters.join(" "));
    match sim.cpus[cu].phase {
        Phase::Switch(next) if next != NO_TASK => {
            let t = &sim.tasks[next as usize];
            let _ = writeln!(out, "  => switches to {} at +{} ns", t.name, sim.cpus[cu].seg_end - NOW);
        }
        Phase::Switch(_) => {
            let _ = writeln!(out, "  => switches to idle at +{} ns", sim.cpus[cu].seg_end - NOW);
        }
        ph => {
            let _ = writeln!(out, "  => still {ph:?}");
        }
    }
    let _ = writeln!(
        out,
        "  after: idle_stamp={} max_newidle_lb_cost={:?} nr_running={:?}",
        sim.cpus[cu].idle_stamp,
        lb_costs(sim, c),
        sim.cpus.iter().map(|x| x.nr_running).collect::<Vec<_>>()
    );
    if cfg.on(crate::facts::kernel::Switch::SharedRunq) {
        let _ = writeln!(out, "  shards after:{}", shards(sim));
    }
    Ok(out)
}

/// `sd->max_newidle_lb_cost` of each domain of `c`, bottom up.
fn lb_costs(sim: &Sim, c: u32) -> Vec<u64> {
    (0..sim.doms.chain[c as usize].len())
        .map(|d| sim.dom_state[c as usize * sim.depth_max + d].max_newidle_lb_cost)
        .collect()
}
