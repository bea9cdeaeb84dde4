//! An indexed min-heap of per-CPU segment ends keyed by (time, seq): each CPU has at
//! most one pending segment end, which moves when the segment is retimed (SMT speed
//! changes, interrupts) instead of leaving stale events in the main queue.

use super::{Time, NONE};

pub(crate) struct SegQueue {
    /// (time, seq, cpu), a binary min-heap.
    heap: Vec<(Time, u64, u32)>,
    pos: Vec<u32>,
}

impl SegQueue {
    pub(crate) fn new(n: usize) -> SegQueue {
        SegQueue { heap: Vec::with_capacity(n), pos: vec![NONE; n] }
    }

    #[inline]
    pub(crate) fn peek(&self) -> Option<(Time, u64, u32)> {
        self.heap.first().copied()
    }

    /// The pending (time, seq) of `c`.
    #[inline]
    pub(crate) fn key_of(&self, c: u32) -> Option<(Time, u64)> {
        let i = self.pos[c as usize];
        (i != NONE).then(|| {
            let e = self.heap[i as usize];
            (e.0, e.1)
        })
    }

    /// Sets (or moves) the segment end of `c`.
    pub(crate) fn set(&mut self, c: u32, key: (Time, u64)) {
        let ci = c as usize;
        let e = (key.0, key.1, c);
        if self.pos[ci] == NONE {
            self.pos[ci] = self.heap.len() as u32;
            self.heap.push(e);
            self.up(self.heap.len() - 1);
        } else {
            let i = self.pos[ci] as usize;
            let old = self.heap[i];
            self.heap[i] = e;
            if e < old {
                self.up(i);
            } else {
                self.down(i);
            }
        }
    }

    /// Removes the segment end of `c`, if any.
    pub(crate) fn remove(&mut self, c: u32) {
        let ci = c as usize;
        let i = self.pos[ci];
        if i == NONE {
            return;
        }
        let i = i as usize;
        let last = self.heap.len() - 1;
        self.swap(i, last);
        self.heap.pop();
        self.pos[ci] = NONE;
        if i < self.heap.len() {
            self.up(i);
            self.down(i);
        }
    }

    #[inline]
    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a].2 as usize] = a as u32;
        self.pos[self.heap[b].2 as usize] = b as u32;
    }

    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if self.heap[i] < self.heap[p] {
                self.swap(i, p);
                i = p;
            } else {
                break;
            }
        }
    }

    fn down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < n && self.heap[l] < self.heap[m] {
                m = l;
            }
            if r < n && self.heap[r] < self.heap[m] {
                m = r;
            }
            if m == i {
                break;
            }
            self.swap(i, m);
            i = m;
        }
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
}
