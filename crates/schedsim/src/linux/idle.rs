//! Idle: entering it with a menu-like governor (`drivers/cpuidle/governors/menu.c`),
//! `has_idle_cores` upkeep, waking a CPU from a C-state, and what it does first when it
//! runs again (v5.x `kernel/sched/idle.c`).

use crate::facts::wide::mul_wide;
use crate::state::*;

/// How an idle CPU learns it has work: an IPI from another CPU (paid unless the idle
/// state polls `need_resched`), or no IPI (its own interrupt, or a polling idle loop
/// that sees the flag).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum WakeSignal {
    Ipi,
    NoIpi,
}

impl Sim {
    /// Enters idle: drain queued wakeups first (`flush_smp_call_function_from_idle`),
    /// else pick a C-state and sleep.
    pub(crate) fn go_idle(&mut self, c: u32) {
        let cpu = &self.cpus[c as usize];
        if cpu.ttwu_pending {
            return self.drain_wake_list(c);
        }
        if cpu.nr_running > 0 {
            return self.schedule(c);
        }
        let state = self.menu_select(c);
        let now = self.now;
        // One lookup of the CPU for the mode, busy(c), the idle state and update_load(c).
        let cpu = &mut self.cpus[c as usize];
        cpu.set_mode(now, Mode::Idle);
        let was_busy = cpu.phase.busy();
        cpu.phase = Phase::Idle;
        cpu.cstate = state;
        cpu.idle_enter = now;
        cpu.need_resched = false;
        // NOHZ: the pending tick finds the CPU idle and is not re-armed.
        cpu.update_load(now);
        if was_busy {
            self.core_busy[self.map.places[c as usize].core as usize] -= 1;
        }
        self.clear_seg(c);
        self.rec_idle_begin(c, state);
        self.siblings_changed(c);
        self.update_idle_core(c);
    }

    /// `__update_idle_core()`: set `has_idle_cores` when this core is wholly idle. As in
    /// the kernel (`if (test_idle_cores(core, true)) goto unlock;`), a flag already set
    /// ends it before the siblings are looked at.
    fn update_idle_core(&mut self, c: u32) {
        if !self.map.smt {
            return;
        }
        let llc = self.map.places[c as usize].llc as usize;
        if self.llcs[llc].has_idle_cores {
            return;
        }
        if self.map.siblings(c).iter().all(|&s| s == c || self.idle_cpu(s)) {
            self.llcs[llc].has_idle_cores = true;
        }
    }

    /// menu governor (`drivers/cpuidle/governors/menu.c`), reduced: the expected
    /// idle time is the next timer scaled by a learned correction factor (a 1/8 decay
    /// average of measured/expected, which with a tick-less fixed horizon is an
    /// average of the measured intervals), lowered to the typical interval of the last
    /// eight when they are consistent (`get_typical_interval`: drop the largest until
    /// the spread is small, keeping at least six). Then the deepest state whose target
    /// residency fits.
    fn menu_select(&self, c: u32) -> u8 {
        let cpu = &self.cpus[c as usize];
        let n = cpu.idle_hist_len.min(8) as usize;
        let mut predicted = cpu.idle_ema;
        if n >= 6 {
            if let Some(avg) = typical_interval(&cpu.idle_sorted[..n], cpu.idle_sum, cpu.idle_sq) {
                predicted = predicted.min(avg);
            }
        }
        // The last listed state whose target residency fits (the deepest), else state 0.
        self.cost.cstates.iter().rposition(|s| s.target_residency_ns <= predicted).unwrap_or(0) as u8
    }

    /// Starts waking `c` from idle: ready after the IPI (unless polling) and the state's
    /// wake time (its declared exit latency unless the machine gives its own).
    /// `signal_at` is when the wakeup signal was sent.
    pub(crate) fn kick(&mut self, c: u32, signal_at: Time, signal: WakeSignal) {
        let cpu = &self.cpus[c as usize];
        if !matches!(cpu.phase, Phase::Idle) {
            return;
        }
        let st = &self.cost.cstates[cpu.cstate as usize];
        let ipi = if signal == WakeSignal::Ipi && !st.polling { self.cost.ipi_delivery_ns } else { 0 };
        let ready = signal_at.max(self.now) + ipi + st.wake_ns.unwrap_or(st.exit_latency_ns);
        let cpu = &mut self.cpus[c as usize];
        cpu.phase = Phase::Waking;
        cpu.ready_at = ready;
        cpu.wake_signal_at = signal_at.max(self.now);
        // A waking CPU has no segment: the end of its wake-up is its segment end.
        self.set_seg(c, ready);
    }

    /// Whether waking idle `c` needs an IPI (not when polling on need_resched).
    pub(crate) fn needs_ipi(&self, c: u32) -> bool {
        let cpu = &self.cpus[c as usize];
        !(matches!(cpu.phase, Phase::Idle) && self.cost.cstates[cpu.cstate as usize].polling)
    }

    /// The CPU is executing again: record the idle interval, handle what woke it.
    pub(crate) fn idle_exit_done(&mut self, c: u32) {
        self.rec_idle_end(c);
        let cpu = &mut self.cpus[c as usize];
        let cs = cpu.cstate as usize;
        // menu_reflect(): the interval that counts is until the wakeup event, not
        // including the exit latency.
        let interval = cpu.wake_signal_at.max(cpu.idle_enter) - cpu.idle_enter;
        // The last eight intervals, oldest first at `idle_hist_head`, and sorted.
        let len = cpu.idle_hist_len.min(8) as usize;
        if len < 8 {
            cpu.idle_hist[len] = interval;
            sorted_replace(&mut cpu.idle_sorted[..len + 1], None, interval);
        } else {
            let h = cpu.idle_hist_head as usize % 8;
            let oldest = std::mem::replace(&mut cpu.idle_hist[h], interval);
            cpu.idle_hist_head = ((h + 1) % 8) as u8;
            sorted_replace(&mut cpu.idle_sorted, Some(oldest), interval);
            cpu.idle_sum -= oldest;
            cpu.idle_sq -= mul_wide(oldest, oldest);
        }
        cpu.idle_sum += interval;
        cpu.idle_sq += mul_wide(interval, interval);
        cpu.idle_hist_len = cpu.idle_hist_len.saturating_add(1).min(8);
        cpu.idle_ema = cpu.idle_ema - cpu.idle_ema / 8 + interval.min(IDLE_HORIZON_NS) / 8;
        cpu.phase = Phase::Irq;
        // Counted after the CPU's updates: a write through the counters' vector would
        // make them look the CPU up again.
        if self.m.idle_exits.len() < self.cost.cstates.len() {
            self.m.idle_exits.resize(self.cost.cstates.len(), 0);
        }
        self.m.idle_exits[cs] += 1;
        self.core_busy[self.map.places[c as usize].core as usize] += 1;
        self.set_mode(c, Mode::Sys);
        self.siblings_changed(c);
        self.arm_tick(c);
        let irqs = std::mem::take(&mut self.cpus[c as usize].pending_irqs);
        let handled_irqs = !irqs.is_empty();
        let mut cost = self.cost.irq_entry_exit_ns;
        for irq in irqs {
            cost += self.handle_irq(c, irq);
        }
        if self.cpus[c as usize].ttwu_pending {
            cost += self.drain_cost(c);
        }
        if self.cpus[c as usize].nohz_kick {
            cost += self.nohz_balance(c);
        }
        if !handled_irqs
            && self.cpus[c as usize].nr_running > 0
            && !self.cfg.on(crate::facts::kernel::Switch::SharedRunq)
        {
            // Woken for a task already on this runqueue (reschedule IPI, polling, or a
            // drained wake list): the interrupt exit and schedule() run back to back, so
            // they are one kernel segment ending in the switch. Not with SHARED_RUNQ:
            // there the drained wakee sits in its shard until schedule() picks it, and
            // newly idle CPUs may pop it in between.
            self.cpus[c as usize].carry_ns += cost;
            return self.schedule(c);
        }
        self.kernel(c, cost, Phase::Irq);
    }

    /// After an interrupt: resume the interrupted task, or schedule.
    pub(crate) fn after_irq(&mut self, c: u32) {
        if self.cpus[c as usize].curr.is_some() {
            return self.continue_task(c);
        }
        if self.cpus[c as usize].nr_running > 0 {
            return self.schedule(c);
        }
        self.go_idle(c);
    }
}

/// `get_typical_interval()` on the ascending intervals `v`, whose sum and sum of
/// squares are `sum` and `sq` (kept by the caller as intervals come and go): drop the
/// largest until the spread is small (variance <= 400 us^2 or average > 6 standard
/// deviations), keeping at least six; the average then, if any. The sum and sum of
/// squares of the kept ones give the variance exactly:
/// sum (x - avg)^2 = sum x^2 - 2 avg sum x + len avg^2.
fn typical_interval(v: &[u64], mut sum: u64, mut sq: u128) -> Option<u64> {
    debug_assert_eq!(sum, v.iter().sum::<u64>());
    let mut len = v.len();
    while len >= 6 {
        let cnt = len as u64;
        let avg = sum / cnt;
        // cnt * avg <= sum: the products are 64 x 64-bit (crate::facts::wide).
        let dev = sq + mul_wide(cnt * avg, avg) - (mul_wide(avg, sum) << 1);
        // The same quotient in 64 bits when it fits (intervals under ~1.5 ms do): no
        // 128-bit division call at every idle entry.
        let var = match u64::try_from(dev) {
            Ok(d) => (d / cnt) as u128,
            Err(_) => dev / cnt as u128,
        };
        // 36 var as shifts: a constant u128 product is a __multi3 call on wasm32.
        if var <= 400_000_000u128 || mul_wide(avg, avg) > (var << 5).wrapping_add(var << 2) {
            return Some(avg);
        }
        len -= 1;
        sum -= v[len];
        sq -= mul_wide(v[len], v[len]);
    }
    None
}

/// Replaces `old` (or, when `None`, the unused last slot) by `new` in the ascending
/// slice `s`, keeping it ascending.
fn sorted_replace(s: &mut [u64], old: Option<u64>, new: u64) {
    let last = s.len() - 1;
    let mut i = old.and_then(|o| s.iter().position(|&x| x == o)).unwrap_or(last);
    while i < last && s[i + 1] < new {
        s[i] = s[i + 1];
        i += 1;
    }
    while i > 0 && s[i - 1] > new {
        s[i] = s[i - 1];
        i -= 1;
    }
    s[i] = new;
}

#[cfg(test)]
mod tests {
    use super::{sorted_replace, typical_interval};

    /// The direct form: sort, then per length the average and the variance summed
    /// from the deviations.
    fn typical_direct(v: &[u64]) -> Option<u64> {
        let mut v = v.to_vec();
        v.sort_unstable();
        let mut len = v.len();
        while len >= 6 {
            let w = &v[..len];
            let cnt = len as u64;
            let avg = w.iter().sum::<u64>() / cnt;
            let var = w.iter().map(|&x| (x as i128 - avg as i128).pow(2) as u128).sum::<u128>() / cnt as u128;
            if var <= 400_000_000u128 || (avg as u128 * avg as u128) > 36 * var {
                return Some(avg);
            }
            len -= 1;
        }
        None
    }

    #[test]
    fn typical_interval_equals_the_direct_form() {
        let mut x = 99u64;
        for round in 0..20_000u64 {
            let n = 6 + (round % 3) as usize;
            let scale = [1_000u64, 30_000, 1_000_000, 600_000_000_000][(round / 3 % 4) as usize];
            let v: Vec<u64> = (0..n)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (x >> 20) % scale
                })
                .collect();
            let mut sorted = v.clone();
            sorted.sort_unstable();
            let sum = v.iter().sum();
            let sq = v.iter().map(|&x| x as u128 * x as u128).sum();
            assert_eq!(typical_interval(&sorted, sum, sq), typical_direct(&v), "{v:?}");
        }
    }

    /// The kept-sorted intervals stay the sorted last eight, duplicates included.
    #[test]
    fn sorted_window_follows_the_ring() {
        let mut ring: Vec<u64> = Vec::new();
        let mut sorted = [0u64; 8];
        let mut x = 12345u64;
        for _ in 0..2_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let v = (x >> 33) % 40;
            if ring.len() < 8 {
                let n = ring.len();
                sorted_replace(&mut sorted[..n + 1], None, v);
                ring.push(v);
            } else {
                let old = ring.remove(0);
                sorted_replace(&mut sorted, Some(old), v);
                ring.push(v);
            }
            let mut want = ring.clone();
            want.sort_unstable();
            assert_eq!(&sorted[..ring.len()], &want[..]);
        }
    }
}
