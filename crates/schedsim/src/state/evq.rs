//! The main event queue: pending events kept sorted latest first, so that the next
//! event is the last one and taking it is a `Vec::pop`.
//!
//! Most events are due within microseconds of now (an enqueue on the wakee's CPU, an
//! IPI), earlier than nearly everything pending (ticks, timers, samples), so an insert
//! usually lands at or next to the end: it is placed by moving the earlier entries up
//! one by one from that end. An event due after more than [`LINEAR_MAX`] pending ones
//! finds its place by bisection instead, and the entries after it move at once.
//!
//! Keys, `time << 64 | seq`, are unique, so the order is that of the (time, seq)
//! tuples, as a binary heap on the same keys would give it.

use crate::facts::workload::IrqToken;

/// An event of the main queue (segment ends have their own, `segq`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ev {
    Enqueue {
        cpu: u32,
        task: u32,
    },
    WakeIpi {
        cpu: u32,
    },
    Resched {
        cpu: u32,
    },
    /// Workload interrupt on a CPU.
    Irq {
        cpu: u32,
        token: IrqToken,
    },
    Timer {
        task: u32,
    },
    /// The scheduler tick; at most one is pending per CPU (`tick_armed`).
    Tick {
        cpu: u32,
    },
    /// A sample of the wasted-core invariant.
    Sample,
    /// The stopper of `src` runs `active_load_balance_cpu_stop()` towards `dst`.
    ActiveBalance {
        src: u32,
        dst: u32,
    },
}

/// Entries an insert moves one by one before it bisects for its place.
const LINEAR_MAX: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Event {
    /// `time << 64 | seq`: orders as (time, seq) in one comparison.
    pub key: u128,
    pub ev: Ev,
}

#[derive(Clone, Default)]
pub(crate) struct EventQueue {
    /// Pending events by descending key: the earliest is last.
    v: Vec<Event>,
}

impl EventQueue {
    /// The key of the earliest event.
    #[inline]
    pub(crate) fn peek(&self) -> Option<u128> {
        self.v.last().map(|e| e.key)
    }

    /// Takes the earliest event.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Event> {
        self.v.pop()
    }

    /// How many events are pending.
    pub(crate) fn len(&self) -> usize {
        self.v.len()
    }

    /// The pending events, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Event> {
        self.v.iter()
    }

    /// Adds `e`.
    #[inline]
    pub(crate) fn push(&mut self, e: Event) {
        self.v.push(e);
        let v = &mut self.v[..];
        let mut i = v.len() - 1;
        let mut moved = 0;
        while i > 0 && v[i - 1].key < e.key {
            if moved == LINEAR_MAX {
                let j = v[..i].partition_point(|x| x.key > e.key);
                v.copy_within(j..i, j + 1);
                i = j;
                break;
            }
            v[i] = v[i - 1];
            i -= 1;
            moved += 1;
        }
        v[i] = e;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BinaryHeap;

    /// Random pushes and pops, near and far, come out in the order of a binary heap of
    /// the same keys.
    #[test]
    fn pops_in_key_order() {
        let mut q = EventQueue::default();
        let mut reference = BinaryHeap::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut seq = 0u64;
        let mut now = 0u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if (x >> 60) < 9 {
                seq += 1;
                let ahead = if (x >> 8).is_multiple_of(4) { (x >> 16) % 1_000_000 } else { (x >> 16) % 50 };
                let key = ((now + ahead) as u128) << 64 | seq as u128;
                q.push(Event { key, ev: Ev::Sample });
                reference.push(std::cmp::Reverse(key));
            } else {
                let got = q.pop().map(|e| e.key);
                let want = reference.pop().map(|r| r.0);
                assert_eq!(got, want);
                if let Some(k) = got {
                    now = (k >> 64) as u64;
                }
            }
            assert_eq!(q.peek(), reference.peek().map(|r| r.0));
        }
    }
}
