//! An indexed min-heap of per-CPU segment ends (or, for a CPU waking from idle, the end
//! of its wake-up) keyed by (time, seq): each CPU has at
//! most one pending segment end, which moves when the segment is retimed (SMT speed
//! changes, interrupts) instead of leaving stale events in the main queue.
//!
//! An entry is one `u128`, `time << 64 | seq << 10 | cpu`: it orders by (time, seq),
//! which is unique, so the order is that of the (time, seq) tuples, and it carries its
//! CPU. Sifting moves a hole instead of swapping.

use super::Time;

/// No entry: the index of a CPU that has no segment end in the heap.
const NONE: u32 = u32::MAX;

/// Bits of an entry that hold the CPU.
const CPU_BITS: u32 = 10;
const CPU_MASK: usize = (1 << CPU_BITS) - 1;
const _: () = assert!(crate::facts::topology::CPUS_MAX <= 1 << CPU_BITS);

#[inline]
fn cpu_of(e: u128) -> usize {
    (e as usize) & CPU_MASK
}

#[derive(Clone)]
pub(crate) struct SegQueue {
    /// Entries, a binary min-heap.
    heap: Vec<u128>,
    /// Per CPU: its entry's index in `heap`, or `NONE`. Sized for every CPU number an
    /// entry can hold, so that indexing by a masked CPU needs no bounds check.
    pos: Box<[u32; 1 << CPU_BITS]>,
}

impl SegQueue {
    pub(crate) fn new(n: usize) -> SegQueue {
        debug_assert!(n <= 1 << CPU_BITS);
        SegQueue { heap: Vec::with_capacity(n), pos: Box::new([NONE; 1 << CPU_BITS]) }
    }

    /// The earliest (time, seq, cpu).
    #[inline]
    pub(crate) fn peek(&self) -> Option<(Time, u64, u32)> {
        self.heap.first().map(|&e| ((e >> 64) as Time, (e as u64) >> CPU_BITS, cpu_of(e) as u32))
    }

    /// The pending (time, seq) of `c`.
    #[inline]
    pub(crate) fn key_of(&self, c: u32) -> Option<(Time, u64)> {
        let i = self.pos[c as usize & CPU_MASK];
        (i != NONE).then(|| {
            let e = self.heap[i as usize];
            ((e >> 64) as Time, (e as u64) >> CPU_BITS)
        })
    }

    /// Sets (or moves) the segment end of `c`.
    pub(crate) fn set(&mut self, c: u32, key: (Time, u64)) {
        debug_assert!(key.1 < 1 << (64 - CPU_BITS), "segment sequence number overflow");
        let e = ((key.0 as u128) << 64) | ((key.1 << CPU_BITS) | c as u64) as u128;
        let i = self.pos[c as usize & CPU_MASK];
        if i == NONE {
            self.heap.push(e);
            self.up(self.heap.len() - 1, e);
        } else if e < self.heap[i as usize] {
            self.up(i as usize, e);
        } else {
            self.down(i as usize, e);
        }
    }

    /// Removes the segment end of `c`, if any.
    pub(crate) fn remove(&mut self, c: u32) {
        let i = self.pos[c as usize & CPU_MASK];
        if i == NONE {
            return;
        }
        self.pos[c as usize & CPU_MASK] = NONE;
        let i = i as usize;
        let Some(last) = self.heap.pop() else { return };
        if i < self.heap.len() {
            // The last entry fills the hole at i.
            if last < self.heap[i] {
                self.up(i, last);
            } else {
                self.down(i, last);
            }
        }
    }

    /// Puts `e` at hole `i` or above it.
    #[inline]
    fn up(&mut self, mut i: usize, e: u128) {
        let heap = &mut self.heap[..];
        let pos = &mut *self.pos;
        while i > 0 {
            let p = (i - 1) / 2;
            let pe = heap[p];
            if e >= pe {
                break;
            }
            heap[i] = pe;
            pos[cpu_of(pe)] = i as u32;
            i = p;
        }
        heap[i] = e;
        pos[cpu_of(e)] = i as u32;
    }

    /// Puts `e` at hole `i` or below it.
    #[inline]
    fn down(&mut self, mut i: usize, e: u128) {
        let heap = &mut self.heap[..];
        let pos = &mut *self.pos;
        loop {
            let l = 2 * i + 1;
            let Some(&le) = heap.get(l) else { break };
            let (m, me) = match heap.get(l + 1) {
                Some(&re) if re < le => (l + 1, re),
                _ => (l, le),
            };
            if e <= me {
                break;
            }
            heap[i] = me;
            pos[cpu_of(me)] = i as u32;
            i = m;
        }
        heap[i] = e;
        pos[cpu_of(e)] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_moves_and_removes() {
        let mut q = SegQueue::new(8);
        for (c, t) in [(0u32, 50u64), (1, 10), (2, 30), (3, 20)] {
            q.set(c, (t, c as u64));
        }
        assert_eq!(q.peek().unwrap().2, 1);
        q.set(1, (60, 9));
        assert_eq!(q.peek().unwrap().2, 3);
        q.remove(3);
        assert_eq!(q.peek().unwrap().2, 2);
        q.set(0, (5, 10));
        let mut order = Vec::new();
        while let Some((_, _, c)) = q.peek() {
            order.push(c);
            q.remove(c);
        }
        assert_eq!(order, [0, 2, 1]);
    }

    /// Random sets, moves and removes on odd and power-of-two sizes agree with a
    /// plain minimum over the pending keys after every operation.
    #[test]
    fn agrees_with_a_linear_scan() {
        for n in [1usize, 2, 3, 7, 8, 20, 33] {
            let mut q = SegQueue::new(n);
            let mut reference: Vec<Option<(Time, u64)>> = vec![None; n];
            let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ n as u64;
            let mut seq = 0;
            for _ in 0..5_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let c = (x % n as u64) as u32;
                if (x >> 20).is_multiple_of(4) {
                    q.remove(c);
                    reference[c as usize] = None;
                } else {
                    seq += 1;
                    let k = ((x >> 32) % 64, seq);
                    q.set(c, k);
                    reference[c as usize] = Some(k);
                }
                let want = reference.iter().enumerate().filter_map(|(c, k)| k.map(|k| (k.0, k.1, c as u32))).min();
                assert_eq!(q.peek(), want);
                assert_eq!(q.key_of(c), reference[c as usize]);
            }
        }
    }
}
