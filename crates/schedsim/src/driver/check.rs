//! The state checker run after every event in tests (`SimOptions::check_invariants`).
//!
//! Beside the runqueue and accounting invariants it checks affinity (a pinned task is
//! queued or running only on its CPU), the SHARED_RUNQ shards (each listed task once,
//! runnable, knowing its shard), the wake lists (`ttwu_pending` set exactly when the
//! list is non-empty, every listed task waking and on one list), that every waking
//! task is on its way somewhere (a wake list, a pending enqueue, a deferred wakeup or
//! a stopper push), the per-core busy counts against a recount, a bound on the event
//! queue, and a liveness watchdog: an idle CPU with queued work must pick it up within
//! a bound made of the machine's own costs. `rd->overload` and `has_idle_cores` are
//! hints in Linux too (updated lazily by the balancer and the idle scan), so they are
//! not compared with a recount.

use crate::state::*;

impl Sim {
    /// Checks the state invariants: each runnable task on exactly one runqueue, each
    /// running task `curr` of its CPU, counts consistent, accounting complete.
    pub(crate) fn check(&self) -> Result<(), String> {
        let mut seen = vec![0u32; self.tasks.len()];
        for (c, cpu) in self.cpus.iter().enumerate() {
            let mut nr = cpu.queue.len() as u32;
            for &t in &cpu.queue {
                seen[t as usize] += 1;
                let task = &self.tasks[t as usize];
                if task.pinned.is_some_and(|p| p != c as u32) {
                    return Err(format!(
                        "task {t} ({}) pinned to CPU {:?} is queued on CPU {c}",
                        task.name, task.pinned
                    ));
                }
                if task.state != TState::Runnable {
                    return Err(format!("task {t} queued on CPU {c} in state {:?}", task.state));
                }
                if task.cpu != c as u32 {
                    return Err(format!("task {t} queued on CPU {c} but task_cpu is {}", task.cpu));
                }
            }
            if let Phase::Switch(n) = cpu.phase {
                // The task being switched to is off the queue and not yet curr.
                if n != NO_TASK {
                    seen[n as usize] += 1;
                    nr += 1;
                    if self.tasks[n as usize].state != TState::Runnable {
                        return Err(format!(
                            "CPU {c} switches to task {n} in state {:?}",
                            self.tasks[n as usize].state
                        ));
                    }
                }
            }
            if let Some(t) = cpu.curr {
                let task = &self.tasks[t as usize];
                if task.state == TState::Running {
                    nr += 1;
                    seen[t as usize] += 1;
                    if task.pinned.is_some_and(|p| p != c as u32) {
                        return Err(format!(
                            "task {t} ({}) pinned to CPU {:?} runs on CPU {c}",
                            task.name, task.pinned
                        ));
                    }
                    if task.cpu != c as u32 {
                        return Err(format!("task {t} running on CPU {c} but task_cpu is {}", task.cpu));
                    }
                }
            }
            if nr != cpu.nr_running {
                return Err(format!("CPU {c}: nr_running {} but {} tasks found", cpu.nr_running, nr));
            }
            let acct = cpu.user_ns + cpu.sys_ns + cpu.idle_ns + (self.now - cpu.mode_since);
            if self.measuring && acct != self.now - self.measure_start {
                return Err(format!(
                    "CPU {c}: busy + idle = {acct} ns but {} ns elapsed",
                    self.now - self.measure_start
                ));
            }
            if cpu.phase == Phase::User && cpu.curr.is_none() {
                return Err(format!("CPU {c} runs user code without a task"));
            }
        }
        let mut in_shards = vec![0u32; self.tasks.len()];
        for (l, llc) in self.llcs.iter().enumerate() {
            for (k, sh) in llc.shards.iter().enumerate() {
                for &t in &sh.list {
                    let task = &self.tasks[t as usize];
                    in_shards[t as usize] += 1;
                    if in_shards[t as usize] > 1 {
                        return Err(format!("task {t} is listed in SHARED_RUNQ shards more than once"));
                    }
                    if task.in_shard != Some((l as u32, k as u32)) {
                        return Err(format!("task {t} listed in shard {l}.{k} but in_shard is {:?}", task.in_shard));
                    }
                    // __dequeue_entity() unlinks a task when it is picked to run.
                    if task.state == TState::Running {
                        return Err(format!("task {t} runs but is still listed in shard {l}.{k}"));
                    }
                    if !matches!(task.state, TState::Runnable | TState::Waking) {
                        return Err(format!("task {t} in state {:?} is listed in shard {l}.{k}", task.state));
                    }
                }
            }
        }
        for (t, task) in self.tasks.iter().enumerate() {
            if task.in_shard.is_some() && in_shards[t] == 0 {
                return Err(format!("task {t} has in_shard {:?} but no shard lists it", task.in_shard));
            }
        }
        // Wake lists: the pending flag says exactly whether the list has tasks; each
        // listed task is waking towards that CPU and on one list only.
        let mut on_list = vec![0u32; self.tasks.len()];
        for (c, cpu) in self.cpus.iter().enumerate() {
            if cpu.ttwu_pending == cpu.wake_list.is_empty() {
                return Err(format!(
                    "CPU {c}: ttwu_pending is {} but the wake list has {} tasks",
                    cpu.ttwu_pending,
                    cpu.wake_list.len()
                ));
            }
            for &t in &cpu.wake_list {
                on_list[t as usize] += 1;
                let task = &self.tasks[t as usize];
                if task.state != TState::Waking || task.cpu != c as u32 || on_list[t as usize] > 1 {
                    return Err(format!(
                        "task {t} on CPU {c}'s wake list: state {:?}, task_cpu {}, on {} lists",
                        task.state, task.cpu, on_list[t as usize]
                    ));
                }
            }
        }
        // Every waking task is on its way: a wake list, a pending enqueue, a wakeup
        // deferred until it leaves its CPU, or a stopper push.
        let mut enqueues = vec![0u32; self.tasks.len()];
        for e in self.events.iter() {
            if let Ev::Enqueue { task, .. } = e.ev {
                enqueues[task as usize] += 1;
            }
        }
        for (t, task) in self.tasks.iter().enumerate() {
            if task.state == TState::Waking
                && on_list[t] == 0
                && enqueues[t] == 0
                && task.deferred_wake.is_none()
                && task.push_to.is_none()
            {
                return Err(format!("task {t} ({}) is waking but nothing will enqueue it (a lost wakeup)", task.name));
            }
        }
        // Cached per-core busy counts against a recount.
        for (core, cpus) in self.map.core_cpus.iter().enumerate() {
            let busy = cpus.iter().filter(|&&c| self.busy(c)).count();
            if busy != self.core_busy[core] as usize {
                return Err(format!("core {core}: core_busy is {} but {busy} CPUs are busy", self.core_busy[core]));
            }
        }
        // The event queue stays proportional to the machine and the workload.
        let bound = 8 * (self.cpus.len() + self.tasks.len()) + 64;
        if self.events.len() > bound {
            return Err(format!("{} pending events, more than the bound {bound}", self.events.len()));
        }
        // Liveness: an idle CPU with queued work picks it up within a bound built from
        // the machine's costs (a tick, an IPI, an idle exit, a context switch).
        let c = &self.cost;
        let exit = c.cstates.iter().map(|s| s.exit_latency_ns.max(s.wake_ns.unwrap_or(0))).max().unwrap_or(0);
        let watchdog = 2 * c.tick_ns
            + 4 * (c.ipi_send_ns + c.ipi_delivery_ns + c.irq_entry_exit_ns + c.irq_handler_ns + exit)
            + 4 * (c.context_switch_ns + c.ttwu_base_ns + c.enqueue_hold_ns + c.schedule_hold_ns);
        for (ci, cpu) in self.cpus.iter().enumerate() {
            if cpu.phase == Phase::Idle && !cpu.queue.is_empty() {
                let since = cpu.queue.iter().map(|&t| self.tasks[t as usize].queued_at).min().unwrap_or(self.now);
                let since = since.max(cpu.idle_enter);
                if self.now.saturating_sub(since) > watchdog {
                    return Err(format!(
                        "CPU {ci} idle for {} ns with {} queued tasks (watchdog {watchdog} ns)",
                        self.now - since,
                        cpu.queue.len()
                    ));
                }
            }
        }
        for (t, task) in self.tasks.iter().enumerate() {
            let want = matches!(task.state, TState::Running | TState::Runnable) as u32;
            if seen[t] != want {
                return Err(format!("task {t} ({}) in state {:?} is on {} runqueues", task.name, task.state, seen[t]));
            }
        }
        Ok(())
    }
}
