//! What a CPU and a task are doing at one moment, as live mode, the A/B diff and the
//! page show them (made from the simulation's state by `state::views`).

use serde::{Deserialize, Serialize};

/// What one CPU is doing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuView {
    pub cpu: u32,
    pub node: u32,
    pub llc: u32,
    pub core: u32,
    pub thread: u32,
    /// The task it runs (or is switching away from).
    pub running: Option<String>,
    /// `idle`, `waking`, `user` or `kernel`.
    pub phase: String,
    /// C-state name while idle or waking from it.
    pub idle_state: Option<String>,
    pub nr_running: u32,
    pub queued: Vec<String>,
    pub ttwu_pending: bool,
}

/// Where one of the benchmark's tasks is: its `task_cpu` (the CPU it runs or waits
/// on, or last ran on while asleep) and that CPU's LLC and node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskView {
    pub name: String,
    pub cpu: u32,
    pub llc: u32,
    pub node: u32,
    /// `running`, `runnable`, `waking`, `sleeping` or `exited`.
    pub state: String,
}
