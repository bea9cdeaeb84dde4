//! The state checker run after every event in tests (`SimOptions::check_invariants`).

use super::*;

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
                if task.state != TState::Runnable {
                    return Err(format!("task {t} queued on CPU {c} in state {:?}", task.state));
                }
                if task.cpu != c as u32 {
                    return Err(format!("task {t} queued on CPU {c} but task_cpu is {}", task.cpu));
                }
            }
            if let Phase::Kernel(Cont::Switch(n)) = cpu.phase {
                // The task being switched to is off the queue and not yet curr.
                if n != NONE {
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
        for (l, llc) in self.llcs.iter().enumerate() {
            for (k, sh) in llc.shards.iter().enumerate() {
                for &t in &sh.list {
                    let task = &self.tasks[t as usize];
                    if task.in_shard != Some((l as u32, k as u32)) {
                        return Err(format!("task {t} listed in shard {l}.{k} but in_shard is {:?}", task.in_shard));
                    }
                    // __dequeue_entity() unlinks a task when it is picked to run.
                    if task.state == TState::Running {
                        return Err(format!("task {t} runs but is still listed in shard {l}.{k}"));
                    }
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
