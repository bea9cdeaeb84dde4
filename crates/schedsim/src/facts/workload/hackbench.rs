//! hackbench (perf bench sched messaging): groups of `fds` senders and `fds`
//! receivers over AF_UNIX sockets or pipes; each sender writes `loops` messages of
//! `datasize` bytes to every receiver of its group, blocking while a receiver's buffer
//! is full. Metric: seconds until every message is read.
//!
//! The two transports differ in what a message costs and in when a blocked sender is
//! woken, as the kernel's code does it (the box of `traces/README.md` runs 6.18):
//! - a stream socket (`net/unix/af_unix.c`): every message is an skb charged to the
//!   sending socket, which all the group's senders share for one receiver
//!   (`sock_alloc_send_pskb()` sleeps in `sock_wait_for_wmem()` while `sk_wmem_alloc`
//!   is at `sk_sndbuf`); the receiver freeing an skb calls `unix_write_space()`, which
//!   wakes every waiting sender (a non-exclusive wait), but only once the queue is down
//!   to a quarter (`unix_writable()`: `sk_wmem_alloc << 2 <= sk_sndbuf`);
//! - a pipe (`fs/pipe.c`): small writes merge into the last page of the ring
//!   (`pipe_write()`, when the pipe is not empty), a writer sleeps while all 16 slots
//!   are used (`pipe_full()`, an exclusive wait), the reader wakes one writer when it
//!   frees a slot of a full ring (`anon_pipe_read()`: `wake_writer |= pipe_full(..)` at
//!   the slot's release, v6.14), and that writer wakes the next if room is left
//!   (`wake_next_writer`). A write wakes the reader only if the pipe was empty.

use super::pipe::SYS_PCT_IPC;
use super::run::{Action, Measured, Sample, Shared, TaskInit};
use super::{check_range, SEC, WS_MAX};
use crate::facts::rng::Pcg64;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// hackbench's parameters: `clients` groups of `fds` senders and `fds` receivers; each
/// sender writes `loops` messages of `datasize` bytes to every receiver of its group.
/// The result is the time until all messages are read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HackbenchParams {
    /// `-f`, default 20.
    #[serde(default = "d_fds")]
    pub fds: u32,
    /// `-l`, default 100 (perf bench sched messaging's default).
    #[serde(default = "d_loops")]
    pub loops: u32,
    /// `-s`, default 100 bytes.
    #[serde(default = "d_datasize")]
    pub datasize: u64,
    /// `-p`: pipes instead of AF_UNIX sockets. Default false.
    #[serde(default)]
    pub pipe: bool,
    /// CPU cost of one write or one read syscall of a message. Default: what
    /// `scripts/probes/ipc-cost.c` measures for 100 bytes on the `kvm-2` box
    /// (`traces/box/ipc-cost.txt`, medians of write and read): 1,100 ns on a socket (an skb allocated, charged,
    /// queued and freed per message), 360 ns on a pipe (a copy into a page of the ring).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_ns: Option<u64>,
    #[serde(default = "d_ws")]
    pub ws_bytes: u64,
}

fn d_fds() -> u32 {
    20
}
fn d_loops() -> u32 {
    100
}
fn d_datasize() -> u64 {
    100
}
fn d_ws() -> u64 {
    64 << 10
}

/// [`HackbenchParams::work_ns`]'s defaults, ns per syscall (`traces/box/ipc-cost.txt`).
const SOCKET_SYSCALL_NS: u64 = 1_100;
const PIPE_SYSCALL_NS: u64 = 360;

impl HackbenchParams {
    /// The CPU cost of one write or one read: the field, or the transport's default.
    pub fn work_ns(&self) -> u64 {
        self.work_ns.unwrap_or(if self.pipe { PIPE_SYSCALL_NS } else { SOCKET_SYSCALL_NS })
    }

    /// Checks the parameters; names the bad one.
    pub(super) fn validate(&self) -> Result<(), String> {
        let pos = |name, v, max| check_range("hackbench", name, v, max);
        pos("fds", self.fds as u64, 1000)?;
        pos("loops", self.loops as u64, 1 << 30)?;
        pos("datasize", self.datasize, 1 << 20)?;
        pos("work_ns", self.work_ns(), SEC)?;
        pos("ws_bytes", self.ws_bytes, WS_MAX)
    }
}

/// The default socket send buffer, `net.core.wmem_default`, bytes.
const WMEM_DEFAULT: u64 = 212_992;
/// Bytes of `skb` truesize a message costs besides its data (estimate).
const SKB_OVERHEAD: u64 = 576;
/// A pipe's ring: 16 slots (`PIPE_DEF_BUFFERS`) of a page each.
const PIPE_SLOTS: usize = 16;
const PAGE_SIZE: u64 = 4096;
/// Sender program counter: set when a write is done and its receiver is to be woken;
/// the low bits are the index of the next receiver.
const WRITE_DONE: u32 = 0x1_0000;
/// Sender program counter: set while the sender sleeps for room (it wakes the next
/// writer of a pipe after its write, `wake_next_writer`).
const WAITED: u32 = 0x2_0000;

/// The receive buffer of one receiver, as the transport counts room.
#[derive(Clone)]
enum Buffer {
    /// Messages queued on the shared sending socket; `cap` of them fill `sk_sndbuf`.
    Socket { queued: u32, cap: u32 },
    /// Per used slot of the ring, the messages written into it and those read; a
    /// page holds `per_page` messages, a message larger than a page takes `slots`
    /// (at most the ring).
    Pipe { ring: VecDeque<(u32, u32)>, per_page: u32, slots: u32 },
}

impl Buffer {
    fn new(pipe: bool, datasize: u64) -> Buffer {
        if pipe {
            let per_page = (PAGE_SIZE / datasize.max(1)).max(1) as u32;
            // A message larger than the ring is written as the kernel streams it, a
            // page at a time while the reader drains: the model lets it take the
            // whole ring at once, when the ring is empty.
            let slots = datasize.div_ceil(PAGE_SIZE).clamp(1, PIPE_SLOTS as u64) as u32;
            Buffer::Pipe { ring: VecDeque::new(), per_page, slots }
        } else {
            let cap = (WMEM_DEFAULT / (datasize + SKB_OVERHEAD)).max(1) as u32;
            Buffer::Socket { queued: 0, cap }
        }
    }

    /// Whether a write must wait: the socket's `sk_wmem_alloc` at `sk_sndbuf`; the
    /// pipe's ring full and the last page without room for a merge.
    fn full(&self) -> bool {
        match self {
            Buffer::Socket { queued, cap } => queued >= cap,
            Buffer::Pipe { ring, per_page, slots } => {
                let merge = *slots == 1 && ring.back().is_some_and(|&(w, _)| w < *per_page);
                !merge && ring.len() + *slots as usize > PIPE_SLOTS
            }
        }
    }

    /// Whether nothing is queued.
    fn empty(&self) -> bool {
        match self {
            Buffer::Socket { queued, .. } => *queued == 0,
            Buffer::Pipe { ring, .. } => ring.is_empty(),
        }
    }

    /// A write (not full): `pipe_write()` merges into the last page when the pipe is
    /// not empty and the page has room, else takes new slots.
    fn write(&mut self) {
        match self {
            Buffer::Socket { queued, .. } => *queued += 1,
            Buffer::Pipe { ring, per_page, slots } => match ring.back_mut() {
                Some((w, _)) if *slots == 1 && *w < *per_page => *w += 1,
                _ => {
                    // The message's first slot, then its continuation slots.
                    ring.push_back((1, 0));
                    ring.extend(std::iter::repeat_n((0, 0), *slots as usize - 1));
                }
            },
        }
    }

    /// A read of one message. Returns whom the transport wakes among the blocked
    /// writers: all of them (a socket back to a quarter of `sk_sndbuf`), one (a pipe
    /// slot freed while the ring was full), or none.
    fn read(&mut self) -> Wakes {
        match self {
            Buffer::Socket { queued, cap } => {
                *queued -= 1;
                if *queued * 4 <= *cap {
                    Wakes::All
                } else {
                    Wakes::None
                }
            }
            Buffer::Pipe { ring, .. } => {
                let was_full = ring.len() >= PIPE_SLOTS;
                let mut freed = false;
                if let Some((w, r)) = ring.front_mut() {
                    *r += 1;
                    if *r >= *w {
                        ring.pop_front();
                        freed = true;
                        while ring.front() == Some(&(0, 0)) {
                            ring.pop_front();
                        }
                    }
                }
                if freed && was_full {
                    Wakes::One
                } else {
                    Wakes::None
                }
            }
        }
    }
}

/// Whom a read wakes among the writers waiting for room.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wakes {
    None,
    One,
    All,
}

#[derive(Clone)]
pub(super) struct Hackbench {
    fds: u32,
    datasize: u64,
    work_ns: u64,
    pipe: bool,
    /// Per receiver, its buffer.
    buf: Vec<Buffer>,
    /// Per receiver, the senders waiting for room in its buffer, in the order they
    /// slept.
    blocked_senders: Vec<VecDeque<u32>>,
    /// Per receiver, the senders its last read is to wake.
    to_wake: Vec<Vec<u32>>,
    /// Per task, messages left to write or read.
    left: Vec<u64>,
}

impl Hackbench {
    /// Group g's senders, then its receivers, group after group.
    pub(super) fn new(p: &HackbenchParams, clients: u32, tasks: &mut Vec<TaskInit>) -> Self {
        let HackbenchParams { fds, loops, datasize, pipe, ws_bytes, .. } = *p;
        for g in 0..clients {
            for s in 0..fds {
                tasks.push(TaskInit::app(format!("sender/{g}.{s}"), ws_bytes, SYS_PCT_IPC));
            }
            for r in 0..fds {
                tasks.push(TaskInit::app(format!("receiver/{g}.{r}"), ws_bytes, SYS_PCT_IPC));
            }
        }
        let n = tasks.len();
        Hackbench {
            fds,
            datasize,
            work_ns: p.work_ns(),
            pipe,
            buf: vec![Buffer::new(pipe, datasize); n],
            blocked_senders: vec![VecDeque::new(); n],
            to_wake: vec![Vec::new(); n],
            // Senders send loops x fds messages; receivers read as many.
            left: vec![loops as u64 * fds as u64; n],
        }
    }

    pub(super) fn step(&mut self, s: &mut Shared, task: u32, now: u64, rng: &mut Pcg64) -> Action {
        let i = task as usize;
        let pc = s.pc[i];
        let f = self.fds as usize;
        let group = i / (2 * f);
        let sender = i % (2 * f) < f;
        if let Some(a) = self.wake_queued(i) {
            return a;
        }
        if sender {
            if self.left[i] == 0 {
                return s.exit_one(now, s.nr_tasks);
            }
            let r_idx = (pc & 0xFFFF) as usize;
            let receiver = group * 2 * f + f + r_idx;
            if pc & WRITE_DONE == 0 {
                if self.buf[receiver].full() {
                    if !self.blocked_senders[receiver].contains(&task) {
                        self.blocked_senders[receiver].push_back(task);
                    }
                    s.pc[i] = pc | WAITED;
                    return Action::Block;
                }
                s.pc[i] = pc | WRITE_DONE;
                return Action::Run(rng.jitter(self.work_ns, 10));
            }
            let was_empty = self.buf[receiver].empty();
            self.buf[receiver].write();
            s.post(receiver as u32);
            self.left[i] -= 1;
            s.pc[i] = ((r_idx + 1) % f) as u32;
            // pipe_write(): after a wait, wake the next writer if room is left.
            if self.pipe && pc & WAITED != 0 && !self.buf[receiver].full() {
                if let Some(w) = self.blocked_senders[receiver].pop_front() {
                    self.to_wake[i].push(w);
                }
            }
            if !self.pipe || was_empty {
                return Action::Wake { task: receiver as u32, sync: true, bytes: self.datasize };
            }
            return self.step(s, task, now, rng);
        }
        if pc == 1 {
            // Read done: the transport decides whom it wakes.
            s.pc[i] = 0;
            match self.buf[i].read() {
                Wakes::None => {}
                Wakes::One => self.to_wake[i].extend(self.blocked_senders[i].pop_front()),
                // A non-exclusive wait queue: the latest sleeper is at its head.
                Wakes::All => self.to_wake[i].extend(self.blocked_senders[i].drain(..)),
            }
            return self.step(s, task, now, rng);
        }
        if self.left[i] == 0 {
            return s.exit_one(now, s.nr_tasks);
        }
        if s.take(task) {
            self.left[i] -= 1;
            s.pc[i] = 1;
            if s.measuring(now) {
                s.ops += 1;
            }
            Action::Run(rng.jitter(self.work_ns, 10))
        } else {
            Action::Block
        }
    }

    /// The next wakeup task `i` owes a blocked sender, if any (one per step; the
    /// latest queued first).
    fn wake_queued(&mut self, i: usize) -> Option<Action> {
        self.to_wake[i].pop().map(|w| Action::Wake { task: w, sync: true, bytes: 0 })
    }
}

/// Seconds from the start to the end of the run; finished only if every task exited.
pub(super) fn sample(s: &Shared, m: &Measured) -> Sample {
    Sample { value: m.end_ns as f64 / 1e9, finished: s.finished_at.is_some() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100-byte messages: 40 to a page, 16 pages; a writer waits only when the last
    /// page is full too, and a read wakes one writer only when it frees a page of a
    /// full ring.
    #[test]
    fn a_pipe_merges_into_pages_and_wakes_one_writer_per_page_freed() {
        let mut b = Buffer::new(true, 100);
        for _ in 0..16 * 40 {
            assert!(!b.full());
            b.write();
        }
        assert!(b.full());
        let wakes: Vec<Wakes> = (0..40).map(|_| b.read()).collect();
        assert!(wakes[..39].iter().all(|&w| w == Wakes::None));
        assert!(wakes[39] == Wakes::One);
        assert!(!b.full());
    }

    /// A socket wakes its waiting writers, all of them, once back to a quarter.
    #[test]
    fn a_socket_wakes_every_writer_at_a_quarter() {
        let mut b = Buffer::new(false, 100);
        let Buffer::Socket { cap, .. } = b else { unreachable!() };
        for _ in 0..cap {
            b.write();
        }
        assert!(b.full());
        let first_all = (1..=cap).find(|_| b.read() == Wakes::All).unwrap();
        assert_eq!(cap - first_all, cap / 4, "cap {cap}");
    }

    /// A message larger than the ring takes the whole ring, when it is empty: the
    /// benchmark still finishes.
    #[test]
    fn a_pipe_message_larger_than_the_ring_fits_an_empty_ring() {
        let mut b = Buffer::new(true, 1 << 20);
        assert!(!b.full());
        b.write();
        assert!(b.full());
        assert!(b.read() == Wakes::One);
        assert!(b.empty() && !b.full());
    }
}
