//! The workloads at run time: each task's program (what it does next), the shared
//! state between tasks (inboxes, pipe buffers, the journal, the request queue) and the
//! interrupts the workload raises.

use super::{Housekeeping, Workload};
use crate::rng::Pcg64;
use std::collections::VecDeque;

/// What a task asks the simulator to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// Run in user mode for this long at full speed with a warm cache.
    Run(u64),
    /// Wake another task, handing it `bytes` of data written by this one.
    Wake { task: u32, sync: bool, bytes: u64 },
    /// Sleep until woken.
    Block,
    /// Sleep until a timer fires after this long.
    Sleep(u64),
    /// Submit I/O and sleep; after `ns` the device interrupts `irq_cpu` with `token`,
    /// and the request completes where `rq_affinity` says (see `Workload::Dbench`).
    Io { ns: u64, irq_cpu: u32, token: u32, rq_affinity: u8 },
    /// Finish.
    Exit,
}

/// How a task is created.
#[derive(Clone, Debug)]
pub(crate) struct TaskInit {
    pub name: String,
    pub pinned: Option<u32>,
    pub percpu_kthread: bool,
    pub ws_bytes: u64,
    /// Share of its work spent in the kernel, percent (kernel threads: 100).
    pub sys_pct: u8,
}

/// What an interrupt handler did: the tasks it wakes.
#[derive(Debug, Default)]
pub(crate) struct IrqOut {
    pub wakes: Vec<u32>,
}

const TOKEN_ARRIVAL: u32 = u32::MAX;

// Share of each benchmark's work done in the kernel, percent (estimates: dbench and
// the IPC benchmarks spend nearly all their time in syscalls, as the seeds' User and
// System rows show; tbench's work is mostly the loopback TCP stack; a memcache worker
// parses and hashes in user space and sends in the kernel).
const SYS_FS: u8 = 85;
const SYS_IPC: u8 = 90;
const SYS_NET: u8 = 80;
const SYS_MEMCACHE: u8 = 40;

/// Runtime state of a workload.
#[derive(Clone)]
pub(crate) struct WorkloadState {
    pub spec: Workload,
    /// Per task: a program counter and a count of undelivered messages.
    pc: Vec<u32>,
    inbox: Vec<u32>,
    /// Bytes done (throughput workloads) and ops done.
    pub bytes: u64,
    pub ops: u64,
    /// Request latencies (memcache).
    pub req_latency: crate::metrics::Histogram,
    /// Tasks that exited (hackbench); time when the last finished.
    pub exited: u32,
    pub finished_at: Option<u64>,
    /// The benchmark's own tasks; housekeeping kworkers come after them.
    nr_tasks: u32,
    nr_cpus: u32,
    hk: Housekeeping,
    /// Tasks below this id are the workload's clients (memcache workers).
    workers: u32,
    // hackbench: per receiver, senders blocked on its full buffer; per task, messages left.
    blocked_senders: Vec<Vec<u32>>,
    left: Vec<u64>,
    // dbench: journal waiters, tasks whose I/O is pending per kworker, jbd2 id.
    jbd2_waiters: Vec<u32>,
    jbd2_committing: Vec<u32>,
    kworker_queue: Vec<VecDeque<u32>>,
    // memcache: queued request arrival times, idle workers (LIFO), current request.
    requests: VecDeque<u64>,
    /// Arrival times of raised but not yet handled request interrupts.
    arrived: VecDeque<u64>,
    idle_workers: Vec<u32>,
    serving: Vec<u64>,
    // schbench: worker rounds left per worker
    pub measure_from: u64,
}

impl WorkloadState {
    /// Builds the tasks for `clients`.
    pub(crate) fn new(
        spec: &Workload,
        clients: u32,
        nr_cpus: u32,
        hk: &Housekeeping,
    ) -> (WorkloadState, Vec<TaskInit>) {
        let mut tasks = Vec::new();
        let t =
            |name: String, ws, sys_pct| TaskInit { name, pinned: None, percpu_kthread: false, ws_bytes: ws, sys_pct };
        match spec {
            Workload::Tbench { ws_bytes, .. } => {
                for i in 0..clients {
                    tasks.push(t(format!("tbench/{i}"), *ws_bytes, SYS_NET));
                    tasks.push(t(format!("tbench_srv/{i}"), *ws_bytes, SYS_NET));
                }
            }
            Workload::Pipe { ws_bytes, .. } => {
                for i in 0..clients {
                    tasks.push(t(format!("pipe-a/{i}"), *ws_bytes, SYS_IPC));
                    tasks.push(t(format!("pipe-b/{i}"), *ws_bytes, SYS_IPC));
                }
            }
            Workload::Dbench { ws_bytes, .. } => {
                for i in 0..clients {
                    tasks.push(t(format!("dbench/{i}"), *ws_bytes, SYS_FS));
                }
                tasks.push(t("jbd2".into(), 32 << 10, 100));
                for c in 0..nr_cpus {
                    tasks.push(TaskInit {
                        name: format!("kworker/{c}"),
                        pinned: Some(c),
                        percpu_kthread: true,
                        ws_bytes: 8 << 10,
                        sys_pct: 100,
                    });
                }
            }
            Workload::Hackbench { fds, ws_bytes, .. } => {
                for g in 0..clients {
                    for s in 0..*fds {
                        tasks.push(t(format!("sender/{g}.{s}"), *ws_bytes, SYS_IPC));
                    }
                    for r in 0..*fds {
                        tasks.push(t(format!("receiver/{g}.{r}"), *ws_bytes, SYS_IPC));
                    }
                }
            }
            Workload::Schbench { workers, ws_bytes, .. } => {
                for m in 0..clients {
                    tasks.push(t(format!("message/{m}"), 32 << 10, 50));
                    for w in 0..*workers {
                        tasks.push(t(format!("worker/{m}.{w}"), *ws_bytes, 0));
                    }
                }
            }
            Workload::Memcache { ws_bytes, background_threads, background_cpus, .. } => {
                for w in 0..clients {
                    tasks.push(t(format!("worker/{w}"), *ws_bytes, SYS_MEMCACHE));
                }
                for b in 0..*background_threads {
                    let mut bt = t(format!("background/{b}"), 256 << 10, 0);
                    if *background_cpus > 0 {
                        bt.pinned = Some(nr_cpus - 1 - b % background_cpus);
                    }
                    tasks.push(bt);
                }
            }
        }
        let app_tasks = tasks.len() as u32;
        if hk.enabled {
            for c in 0..nr_cpus {
                tasks.push(TaskInit {
                    name: format!("kworker/{c}:hk"),
                    pinned: Some(c),
                    percpu_kthread: true,
                    ws_bytes: 16 << 10,
                    sys_pct: 100,
                });
            }
        }
        let n = tasks.len();
        let mut left = vec![0u64; n];
        if let Workload::Hackbench { fds, loops, .. } = spec {
            let f = *fds as usize;
            // Senders send loops x fds messages; receivers read as many.
            left.fill(*loops as u64 * f as u64);
        }
        let st = WorkloadState {
            spec: spec.clone(),
            pc: vec![0; n],
            inbox: vec![0; n],
            bytes: 0,
            ops: 0,
            req_latency: Default::default(),
            exited: 0,
            finished_at: None,
            nr_tasks: app_tasks,
            nr_cpus,
            hk: hk.clone(),
            workers: clients,
            blocked_senders: vec![Vec::new(); n],
            left,
            jbd2_waiters: Vec::new(),
            jbd2_committing: Vec::new(),
            kworker_queue: vec![VecDeque::new(); nr_cpus as usize],
            requests: VecDeque::new(),
            arrived: VecDeque::new(),
            idle_workers: Vec::new(),
            serving: vec![0; n],
            measure_from: 0,
        };
        (st, tasks)
    }

    /// The order in which the tasks are forked at the start (task ids). tbench
    /// (dbench-4.0 `tbench.c`/`tbench_srv.c`): the `tbench` parent forks all its
    /// clients in a loop, and `tbench_srv` forks one server child per accepted
    /// connection, so the servers come after the clients, not interleaved with them.
    /// Interleaving would let the fork balancer alternate nodes and put every client on
    /// one node and every server on the other. Other workloads: creation order.
    pub(crate) fn fork_order(&self, nr_tasks: u32) -> Vec<u32> {
        match self.spec {
            Workload::Tbench { .. } => {
                let app = self.nr_tasks;
                (0..app).step_by(2).chain((1..app).step_by(2)).chain(app..nr_tasks).collect()
            }
            _ => (0..nr_tasks).collect(),
        }
    }

    /// The benchmark's own tasks (housekeeping kworkers excluded).
    pub(crate) fn app_tasks(&self) -> u32 {
        self.nr_tasks
    }

    /// Interrupts the workload generates by itself at the start.
    pub(crate) fn initial_irqs(&self, rng: &mut Pcg64) -> Vec<(u64, u32, u32)> {
        match &self.spec {
            Workload::Memcache { rps_per_worker, .. } => {
                let gap = self.arrival_gap(*rps_per_worker, rng);
                vec![(gap, rng.below(self.nr_cpus as u64) as u32, TOKEN_ARRIVAL)]
            }
            _ => Vec::new(),
        }
    }

    fn arrival_gap(&self, rps_per_worker: u64, rng: &mut Pcg64) -> u64 {
        let rate = rps_per_worker * self.workers as u64; // per second
        rng.exp(1_000_000_000 / rate.max(1)).max(1)
    }

    /// Delivers a message to `task`; returns true if it was waiting for one.
    fn post(&mut self, task: u32) {
        self.inbox[task as usize] += 1;
    }

    fn take(&mut self, task: u32) -> bool {
        let b = &mut self.inbox[task as usize];
        if *b > 0 {
            *b -= 1;
            true
        } else {
            false
        }
    }

    /// The next action of `task` at `now`.
    pub(crate) fn step(&mut self, task: u32, now: u64, rng: &mut Pcg64) -> Action {
        let i = task as usize;
        let pc = self.pc[i];
        if task >= self.nr_tasks {
            // Housekeeping kworker: sleep on a timer, then run a work item.
            self.pc[i] ^= 1;
            return if pc == 0 {
                Action::Sleep(rng.jitter(self.hk.period_ns, 50))
            } else {
                Action::Run(rng.jitter(self.hk.run_ns, 50))
            };
        }
        match self.spec.clone() {
            Workload::Tbench { msg_bytes, work_ns, .. } => {
                let client = task.is_multiple_of(2);
                let partner = task ^ 1;
                // Client: work, send, wait for reply. Server: wait, work, reply.
                match (client, pc) {
                    (true, 0) | (false, 1) => {
                        self.pc[i] = 2;
                        Action::Run(rng.jitter(work_ns, 20))
                    }
                    (_, 2) => {
                        self.pc[i] = 3;
                        self.post(partner);
                        Action::Wake { task: partner, sync: true, bytes: msg_bytes / 2 }
                    }
                    (_, _) => {
                        // Waiting for the partner.
                        if self.take(task) {
                            if client && now >= self.measure_from {
                                self.bytes += msg_bytes;
                                self.ops += 1;
                            }
                            self.pc[i] = if client { 0 } else { 1 };
                            self.step(task, now, rng)
                        } else {
                            Action::Block
                        }
                    }
                }
            }
            Workload::Pipe { loops, work_ns, .. } => {
                let a = task.is_multiple_of(2);
                let partner = task ^ 1;
                match (a, pc) {
                    (true, 0) | (false, 1) => {
                        self.pc[i] = 2;
                        Action::Run(rng.jitter(work_ns, 10))
                    }
                    (_, 2) => {
                        self.pc[i] = 3;
                        self.post(partner);
                        Action::Wake { task: partner, sync: true, bytes: 8 }
                    }
                    _ => {
                        if self.take(task) {
                            if a {
                                if now >= self.measure_from {
                                    self.ops += 1;
                                }
                                self.left[i] += 1;
                                if self.left[i] >= loops {
                                    return self.exit_one(now);
                                }
                            }
                            self.pc[i] = if a { 0 } else { 1 };
                            self.step(task, now, rng)
                        } else {
                            Action::Block
                        }
                    }
                }
            }
            Workload::Hackbench { fds, datasize, work_ns, pipe, .. } => {
                let f = fds as usize;
                let group = i / (2 * f);
                let sender = i % (2 * f) < f;
                // Socket buffer: net.core.wmem_default 212992 / (datasize + ~576 bytes of
                // skb truesize); a pipe holds 16 pages.
                let cap = if pipe { (65536 / datasize.max(1)).max(1) } else { 212_992 / (datasize + 576) } as u32;
                if sender {
                    if self.left[i] == 0 {
                        return self.exit_one(now);
                    }
                    // pc = index of the next receiver, high bit = "write done, wake next".
                    let r_idx = (pc & 0xFFFF) as usize;
                    let receiver = (group * 2 * f + f + r_idx) as u32;
                    if pc & 0x1_0000 == 0 {
                        if self.inbox[receiver as usize] >= cap {
                            if !self.blocked_senders[receiver as usize].contains(&task) {
                                self.blocked_senders[receiver as usize].push(task);
                            }
                            return Action::Block;
                        }
                        self.pc[i] = pc | 0x1_0000;
                        return Action::Run(rng.jitter(work_ns, 10));
                    }
                    self.post(receiver);
                    self.left[i] -= 1;
                    self.pc[i] = ((r_idx + 1) % f) as u32;
                    Action::Wake { task: receiver, sync: true, bytes: datasize }
                } else {
                    if pc == 1 {
                        // Read done: wake a sender blocked on our full buffer.
                        self.pc[i] = 0;
                        if let Some(s) = self.blocked_senders[i].pop() {
                            return Action::Wake { task: s, sync: true, bytes: 0 };
                        }
                    }
                    if self.left[i] == 0 {
                        return self.exit_one(now);
                    }
                    if self.take(task) {
                        self.left[i] -= 1;
                        self.pc[i] = 1;
                        if now >= self.measure_from {
                            self.ops += 1;
                        }
                        Action::Run(rng.jitter(work_ns, 10))
                    } else {
                        Action::Block
                    }
                }
            }
            Workload::Schbench { workers, sleep_ns, cpu_ns, .. } => {
                let per = 1 + workers as usize;
                if i.is_multiple_of(per) {
                    // Message thread: sleep, then wake every worker.
                    if pc == 0 {
                        self.pc[i] = 1;
                        return Action::Sleep(sleep_ns);
                    }
                    let w = pc as usize; // 1..=workers
                    self.pc[i] = if w == workers as usize { 0 } else { pc + 1 };
                    let t = (i + w) as u32;
                    self.post(t);
                    Action::Wake { task: t, sync: false, bytes: 64 }
                } else if pc == 1 {
                    self.pc[i] = 0;
                    if now >= self.measure_from {
                        self.ops += 1;
                    }
                    Action::Run(cpu_ns)
                } else if self.take(task) {
                    // Collapse a backlog: schbench workers handle one message at a time.
                    self.inbox[i] = 0;
                    self.pc[i] = 1;
                    Action::Run(2_000)
                } else {
                    Action::Block
                }
            }
            Workload::Memcache { service_ns, background_run_ns, background_sleep_ns, .. } => {
                if task >= self.workers {
                    self.pc[i] ^= 1;
                    return if pc == 0 {
                        Action::Run(rng.jitter(background_run_ns, 50))
                    } else {
                        Action::Sleep(rng.jitter(background_sleep_ns, 50))
                    };
                }
                if pc == 1 {
                    // Response sent.
                    self.pc[i] = 0;
                    if self.serving[i] >= self.measure_from {
                        self.req_latency.record(now - self.serving[i]);
                        self.ops += 1;
                    }
                }
                match self.requests.pop_front() {
                    Some(arrived) => {
                        self.serving[i] = arrived;
                        self.pc[i] = 1;
                        Action::Run(rng.exp(service_ns).max(1_000))
                    }
                    None => {
                        self.idle_workers.push(task);
                        Action::Block
                    }
                }
            }
            Workload::Dbench {
                work_ns, op_bytes, fsync_every, read_miss_every, io_ns, irq_cpu, rq_affinity, ..
            } => {
                let clients = self.nr_tasks - 1 - self.nr_cpus;
                if task < clients {
                    match pc {
                        0 => {
                            self.pc[i] = 1;
                            Action::Run(rng.jitter(work_ns, 30))
                        }
                        1 => {
                            if now >= self.measure_from {
                                self.bytes += op_bytes;
                                self.ops += 1;
                            }
                            if rng.chance(1, fsync_every) {
                                self.jbd2_waiters.push(task);
                                self.pc[i] = 2;
                                Action::Wake { task: clients, sync: false, bytes: 0 }
                            } else if rng.chance(1, read_miss_every) {
                                self.pc[i] = 2;
                                Action::Io { ns: rng.jitter(io_ns, 20), irq_cpu, token: task, rq_affinity }
                            } else {
                                self.pc[i] = 0;
                                self.step(task, now, rng)
                            }
                        }
                        _ => {
                            if self.take(task) {
                                self.pc[i] = 0;
                                self.step(task, now, rng)
                            } else {
                                Action::Block
                            }
                        }
                    }
                } else if task == clients {
                    // jbd2: commit everything waiting, write it, then wake the waiters.
                    match pc {
                        0 => {
                            if self.jbd2_waiters.is_empty() {
                                return Action::Block;
                            }
                            self.jbd2_committing = std::mem::take(&mut self.jbd2_waiters);
                            self.pc[i] = 1;
                            Action::Run(10_000 + 1_000 * self.jbd2_committing.len() as u64)
                        }
                        1 => {
                            self.pc[i] = 2;
                            Action::Io { ns: rng.jitter(io_ns, 20), irq_cpu, token: task, rq_affinity }
                        }
                        2 => {
                            if !self.take(task) {
                                return Action::Block;
                            }
                            self.pc[i] = 3;
                            self.step(task, now, rng)
                        }
                        _ => match self.jbd2_committing.pop() {
                            Some(w) => {
                                self.post(w);
                                Action::Wake { task: w, sync: false, bytes: 0 }
                            }
                            None => {
                                self.pc[i] = 0;
                                self.step(task, now, rng)
                            }
                        },
                    }
                } else {
                    // kworker: wake whoever the completion was for.
                    let cpu = (task - clients - 1) as usize;
                    if pc == 1 {
                        self.pc[i] = 0;
                        if let Some(t) = self.kworker_queue[cpu].pop_front() {
                            self.post(t);
                            return Action::Wake { task: t, sync: false, bytes: 0 };
                        }
                    }
                    if self.take(task) {
                        self.pc[i] = 1;
                        Action::Run(3_000)
                    } else {
                        Action::Block
                    }
                }
            }
        }
    }

    fn exit_one(&mut self, now: u64) -> Action {
        self.exited += 1;
        // Pipe pairs finish when every first task has done its loops.
        let all = if matches!(self.spec, Workload::Pipe { .. }) { self.nr_tasks / 2 } else { self.nr_tasks };
        if self.exited == all {
            self.finished_at = Some(now);
        }
        Action::Exit
    }

    /// An interrupt is raised (before any idle-exit delay): open-loop arrivals schedule
    /// the next one from here, so the rate does not depend on how fast the CPU wakes.
    pub(crate) fn on_raise(&mut self, token: u32, now: u64, rng: &mut Pcg64) -> Option<(u64, u32, u32)> {
        match &self.spec {
            Workload::Memcache { rps_per_worker, .. } if token == TOKEN_ARRIVAL => {
                let gap = self.arrival_gap(*rps_per_worker, rng);
                self.arrived.push_back(now);
                Some((now + gap, rng.below(self.nr_cpus as u64) as u32, TOKEN_ARRIVAL))
            }
            _ => None,
        }
    }

    /// An interrupt with `token` on `cpu` is handled.
    pub(crate) fn irq(&mut self, token: u32, cpu: u32, now: u64, _rng: &mut Pcg64) -> IrqOut {
        let mut out = IrqOut::default();
        match &self.spec {
            Workload::Memcache { rps_per_worker, .. } => {
                let _ = rps_per_worker;
                self.requests.push_back(self.arrived.pop_front().unwrap_or(now));
                if let Some(w) = self.idle_workers.pop() {
                    out.wakes.push(w);
                }
            }
            Workload::Dbench { .. } => {
                let clients = self.nr_tasks - 1 - self.nr_cpus;
                if token < clients {
                    // A page-cache read completes: end_page_read wakes the reader from
                    // interrupt context.
                    self.post(token);
                    out.wakes.push(token);
                } else {
                    // A journal write completes: the work is finished in this CPU's
                    // kworker, which wakes jbd2.
                    let kw = clients + 1 + cpu;
                    self.kworker_queue[cpu as usize].push_back(token);
                    self.post(kw);
                    out.wakes.push(kw);
                }
            }
            _ => {}
        }
        out
    }

    /// Whether the workload has finished by itself (hackbench, pipe loops).
    pub(crate) fn done(&self) -> bool {
        self.finished_at.is_some()
    }
}
