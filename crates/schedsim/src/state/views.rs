//! The simulation's CPUs as [`CpuView`]s, for live mode and the A/B diff.

use super::{Phase, Sim, TState};
use crate::facts::views::CpuView;

impl Sim {
    /// Every CPU's state now, as live mode and the A/B diff show it.
    pub(crate) fn cpu_views(&self) -> Vec<CpuView> {
        let s = self;
        s.cpus
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let p = s.map.places[i];
                let phase = match c.phase {
                    Phase::Idle => "idle",
                    Phase::Waking => "waking",
                    Phase::User => "user",
                    Phase::TaskSys | Phase::Irq | Phase::Switch(_) | Phase::Newidle { .. } => "kernel",
                };
                let idle = matches!(c.phase, Phase::Idle | Phase::Waking);
                CpuView {
                    cpu: i as u32,
                    node: p.node,
                    llc: p.llc,
                    core: p.core,
                    thread: p.thread,
                    running: c
                        .curr
                        .filter(|&t| s.tasks[t as usize].state == TState::Running)
                        .map(|t| s.tasks[t as usize].name.clone()),
                    phase: phase.into(),
                    idle_state: idle.then(|| s.cost.cstates[c.cstate as usize].name.clone()),
                    nr_running: c.nr_running,
                    queued: c.queue.iter().map(|&t| s.tasks[t as usize].name.clone()).collect(),
                    ttwu_pending: c.ttwu_pending,
                }
            })
            .collect()
    }
}
