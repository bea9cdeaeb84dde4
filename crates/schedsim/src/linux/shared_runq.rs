//! The SHARED_RUNQ shared runqueue (David Vernet's v3 RFC, 2023, on v6.5/6.6 tip):
//! per-LLC sharded FIFO lists with their enqueue and dequeue hooks, and the pop that
//! newidle balancing (`balance/mod.rs`) tries first, gated by K Prateek Nayak's per-shard
//! overload flag (seed 004).

use crate::facts::kernel::Switch;
use crate::facts::topology::Distance;
use crate::state::{Sim, TState};

/// What `shared_runq_pick_next_task()` returned.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Pop {
    /// 0: every shard empty (or, with the overload flag, flagged empty).
    Empty,
    /// 1: the head was queued on another runqueue and moved here.
    Pulled,
    /// -1: a task was taken off a shard but, under its runqueue's lock, was running
    /// (or already here): newidle_balance() returns -1 and pick_next_task_fair()
    /// returns RETRY_TASK.
    Failed,
}

impl Sim {
    /// Shard of `c` in its LLC: `(c >> 1) % num_shards`, keeping SMT pairs together.
    pub(crate) fn shard_of(&self, c: u32) -> u32 {
        let llc = self.map.places[c as usize].llc as usize;
        (c >> 1) % self.llcs[llc].shards.len() as u32
    }

    /// Enqueue hook (v3 `shared_runq_enqueue_task`, called from `__enqueue_entity` for
    /// an unpinned task: a wakeup or migration enqueue, or a preempted `curr` put back
    /// into the tree): push on the tail of the CPU's shard. Returns the time spent.
    #[inline(always)]
    pub(crate) fn shared_runq_enqueue(&mut self, c: u32, t: u32, at: u64, by: u32) -> u64 {
        if !self.cfg.on(Switch::SharedRunq) {
            return 0;
        }
        self.shared_runq_push(c, t, at, by)
    }

    /// [`Sim::shared_runq_enqueue`] with SHARED_RUNQ on.
    fn shared_runq_push(&mut self, c: u32, t: u32, at: u64, by: u32) -> u64 {
        if self.tasks[t as usize].pinned.is_some() || self.tasks[t as usize].in_shard.is_some() {
            return 0;
        }
        let llc = self.map.places[c as usize].llc;
        let shard = self.shard_of(c);
        let cost = self.lock_shard(llc, shard, at, by);
        self.llcs[llc as usize].shards[shard as usize].list.push_back(t);
        self.tasks[t as usize].in_shard = Some((llc, shard));
        cost
    }

    /// Dequeue hook (v3 `shared_runq_dequeue_task`, called from `__dequeue_entity`: the
    /// task is picked to run or migrated away; a task that blocks is `curr` and so no
    /// longer listed): unlink under the shard lock, taken by CPU `by` at `at`. Returns
    /// the time spent; nothing when the task is not listed (a puller took it off).
    pub(crate) fn shared_runq_dequeue(&mut self, t: u32, at: u64, by: u32) -> u64 {
        let Some((llc, shard)) = self.tasks[t as usize].in_shard else { return 0 };
        let cost = self.lock_shard(llc, shard, at, by);
        self.shared_runq_unlink(t);
        cost
    }

    fn shared_runq_unlink(&mut self, t: u32) {
        if let Some((llc, shard)) = self.tasks[t as usize].in_shard.take() {
            let list = &mut self.llcs[llc as usize].shards[shard as usize].list;
            if let Some(i) = list.iter().position(|&x| x == t) {
                list.remove(i);
            }
        }
    }

    /// `shared_runq_pick_next_task()`: pop the head of the first usable shard, lock
    /// its runqueue and pull it if it is queued and not running. One attempt; returns
    /// the time spent and what came of it.
    pub(crate) fn shared_runq_pop(&mut self, c: u32, at: u64) -> (u64, Pop) {
        let llc = self.map.places[c as usize].llc;
        let nshards = self.llcs[llc as usize].shards.len() as u32;
        let own = self.shard_of(c);
        let overload_flag = self.cfg.on(Switch::SharedRunqOverload);
        let peek = self.cost.line_transfer_ns(Distance::SameLlc);
        let mut cost = 0;
        for k in 0..nshards {
            let s = (own + k) % nshards;
            cost += peek;
            let sh = &mut self.llcs[llc as usize].shards[s as usize];
            if overload_flag && !sh.overload {
                self.m.patched[Switch::SharedRunqOverload as usize] += 1;
                continue;
            }
            if sh.list.is_empty() {
                if overload_flag {
                    sh.overload = false;
                }
                continue;
            }
            cost += self.lock_shard(llc, s, at + cost, c);
            let sh = &mut self.llcs[llc as usize].shards[s as usize];
            let Some(&head) = sh.list.front() else { continue };
            if !self.allowed(head, c) {
                continue;
            }
            self.shared_runq_unlink(head);
            self.m.shared_runq_pops += 1;
            let src = self.tasks[head as usize].cpu;
            let pullable = self.tasks[head as usize].state == TState::Runnable
                && self.tasks[head as usize].on_cpu.is_none()
                && src != c;
            // task_rq_lock(p), then the test; a pullable task is moved by
            // move_queued_task(), whose deactivate_task() and set_task_cpu() run under
            // that same lock, so the source runqueue stays locked for the move (as the
            // balancer's detach does), not only for the test.
            let hold = if pullable { self.cost.lb_move_task_ns } else { self.cost.enqueue_hold_ns };
            cost += self.lock_rq(src, at + cost, c, hold);
            if pullable {
                cost += self.detach(src, head, at + cost, c);
                cost += self.attach(c, head, src, at + cost);
                self.m.shared_runq_pulled += 1;
                return (cost, Pop::Pulled);
            }
            return (cost, Pop::Failed);
        }
        (cost, Pop::Empty)
    }
}
