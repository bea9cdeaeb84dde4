//! Spinlocks as the model keeps them: runqueue locks and SHARED_RUNQ shard locks, each
//! FIFO by arrival with its cache line handed from holder to holder. What a holder
//! does under a lock is charged as its hold time (`CostModel`).
//!
//! A lock is a reservation: a CPU whose kernel segment is charged ahead of the events
//! of other CPUs takes a lock at a time later than theirs (a balance pass that reads
//! every runqueue for tens of µs, then locks the busiest). A request that arrives
//! before such a hold begins and is done by then takes the lock in that gap, as it
//! would in the kernel, where the lock is free until the later taker reaches it.

use super::{Sim, Time};

/// Which spinlock.
#[derive(Clone, Copy, Debug)]
enum LockId {
    Rq(u32),
    Shard(u32, u32),
}

/// A spinlock: FIFO by arrival, with the line handed over between holders.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Lock {
    pub free_at: Time,
    pub holder: u32,
    /// Start of the busy stretch that ends at `free_at`.
    pub busy_from: Time,
}

impl Lock {
    /// CPU `c`'s own runqueue lock (this one), taken at `now` by `__schedule()`, stays
    /// held until `until`: through `pick_next_task()` and `context_switch()`, released
    /// only in `finish_task_switch()` (`finish_lock_switch()`), so a waker enqueueing on
    /// `c` or a CPU pulling from it meanwhile waits.
    #[inline(always)]
    pub(crate) fn hold_own(&mut self, c: u32, now: Time, until: Time) {
        if self.free_at < until {
            if self.free_at < now {
                self.busy_from = now;
            }
            self.free_at = until;
            self.holder = c;
        }
    }
}

impl Sim {
    /// Acquires a spinlock at `at` for `hold` ns from CPU `by`: FIFO behind the
    /// current holder, plus the cache-line handoff from the last holder's CPU. Returns
    /// the time until the acquirer is done; the wait beyond the hold is spinning.
    #[inline(always)]
    fn acquire(&mut self, lock: LockId, at: Time, by: u32, hold: u64) -> u64 {
        let lk = match lock {
            LockId::Rq(c) => &mut self.cpus[c as usize].lock,
            LockId::Shard(l, s) => &mut self.llcs[l as usize].shards[s as usize].lock,
        };
        let handoff = self.cost.line_transfer_ns(self.map.distance(lk.holder, by));
        // Plain sums: a validated cost is at most 1 s (CostModel::validate) and a time
        // stays within the run (at most DURATION_MS_MAX plus the costs charged past it),
        // so no sum here comes near 2^64.
        if at + handoff + hold <= lk.busy_from {
            // Done before a hold taken ahead of time begins: no wait.
            return handoff + hold;
        }
        let start = at.max(lk.free_at);
        if start > lk.free_at {
            lk.busy_from = start;
        }
        lk.free_at = start + handoff + hold;
        lk.holder = by;
        let spin = start - at;
        self.m.lock_spin_ns += spin;
        spin + handoff + hold
    }

    /// Takes runqueue `owner`'s lock (see [`Sim::acquire`]).
    #[inline(always)]
    pub(crate) fn lock_rq(&mut self, owner: u32, at: Time, by: u32, hold: u64) -> u64 {
        self.acquire(LockId::Rq(owner), at, by, hold)
    }

    /// Keeps runqueue `owner`'s lock, which `by` holds, held `ns` longer.
    pub(crate) fn extend_rq_hold(&mut self, owner: u32, by: u32, ns: u64) {
        let lk = &mut self.cpus[owner as usize].lock;
        if lk.holder == by {
            lk.free_at = lk.free_at.saturating_add(ns);
        }
    }

    /// Takes a SHARED_RUNQ shard lock for one list operation.
    pub(crate) fn lock_shard(&mut self, llc: u32, shard: u32, at: Time, by: u32) -> u64 {
        let hold = self.cost.shard_lock_hold_ns;
        self.acquire(LockId::Shard(llc, shard), at, by, hold)
    }
}
