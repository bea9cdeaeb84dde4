//! Per-entity load tracking (PELT), after `kernel/sched/pelt.c` (v5.x): geometric
//! averages with a 1024 µs period and y^32 = 1/2, kept in integers.
//!
//! The kernel accumulates per-period segments; here a signal that stayed constant over
//! `delta` decays the old average by y^(delta/period) and moves towards the constant by
//! the rest. For a constant input this equals the kernel's series; the fractional period
//! is interpolated linearly.

use crate::facts::wide::mul_wide;

/// `SCHED_CAPACITY_SCALE` (`include/linux/sched.h`: `1L << SCHED_CAPACITY_SHIFT`,
/// 10): the capacity of one CPU at full speed, and the full scale of a utilisation
/// signal (`util_avg`).
pub(crate) const SCHED_CAPACITY_SCALE: u64 = 1024;

/// The load weight of a nice-0 task as PELT averages it: `scale_load_down(NICE_0_LOAD)`,
/// which is `sched_prio_to_weight[20]` = 1024 (`kernel/sched/sched.h`, `core.c`). Every
/// modelled task is nice 0, so a runqueue's load is this times its runnable tasks.
pub(crate) const NICE_0_LOAD: u64 = 1024;

/// PELT period: 1024 µs in ns (the kernel shifts ns by 10 twice).
pub const PERIOD_NS: u64 = 1 << 20;

/// y^k in Q32 for k = 0..31 (`runnable_avg_yN_inv`, with 2^32 for k = 0).
const Y_INV: [u64; 32] = [
    4294967296, 4202935003, 4112874773, 4024744348, 3938502376, 3854108391, 3771522796, 3690706840, 3611622603,
    3534232978, 3458501653, 3384393094, 3311872529, 3240905930, 3171459999, 3103502151, 3037000500, 2971923842,
    2908241642, 2845924021, 2784941738, 2725266179, 2666869345, 2609723834, 2553802834, 2499080105, 2445529972,
    2393127307, 2341847524, 2291666561, 2242560872, 2194507417,
];
/// (1 - y) in Q32, y = 2^(-1/32) ~ 0.97857 (PELT's decay per period, y^32 = 1/2).
const ONE_MINUS_Y: u64 = 92_032_293;

/// y^(delta / PERIOD) in Q32.
#[inline]
pub fn decay_q32(delta_ns: u64) -> u64 {
    if delta_ns < PERIOD_NS {
        // Within one period the whole part is y^0 = 2^32 and the product below is
        // the linear part itself.
        return (1u64 << 32) - ((ONE_MINUS_Y * delta_ns) >> 20);
    }
    let periods = delta_ns / PERIOD_NS;
    if periods >= 32 * 63 {
        return 0;
    }
    let whole = Y_INV[(periods % 32) as usize] >> (periods / 32);
    let frac = delta_ns % PERIOD_NS; // in 0..2^20
                                     // y^f ~= 1 - f (1 - y) for f in [0, 1).
    let part = (1u64 << 32) - ((ONE_MINUS_Y * frac) >> 20);
    (mul_wide(whole, part) >> 32) as u64
}

/// Fixed-point fraction bits of a [`Signal`]: the kernel accumulates `*_sum` over
/// 1024 µs periods; an average kept as a bare integer would lose every update that
/// moves it by less than one (a few µs of running moves it by ~0.02), so it is kept
/// with 20 fractional bits.
const FRAC: u32 = 20;

/// One PELT signal in 0..=1024 per unit of input (input is 0..=1024 scaled by count).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Signal {
    /// The average in Q20.
    q: u64,
    pub last_ns: u64,
}

impl Signal {
    /// A signal whose average is `avg` as of `now` (scenario tests set PELT loads).
    pub(crate) fn at(avg: u64, now: u64) -> Signal {
        Signal { q: avg << FRAC, last_ns: now }
    }

    /// The average, 0..=1024 per unit of input.
    #[inline]
    pub fn avg(&self) -> u64 {
        self.q >> FRAC
    }

    /// Advances to `now` with the input `level` held constant since the last update.
    #[inline]
    pub fn update(&mut self, now: u64, level: u64) {
        if now <= self.last_ns {
            return;
        }
        self.advance(now, level, decay_q32(now - self.last_ns));
    }

    /// [`Signal::update`] of two signals at once (a runqueue's load and util): when
    /// they were last updated together, one decay factor serves both. Always inlined:
    /// it runs three times per wakeup (block, idle entry, enqueue), 47 instructions as
    /// a call, and inlined the three cost about 40 fewer.
    #[inline(always)]
    pub fn update_pair(a: &mut Signal, a_level: u64, b: &mut Signal, b_level: u64, now: u64) {
        if a.last_ns != b.last_ns {
            a.update(now, a_level);
            b.update(now, b_level);
            return;
        }
        if now <= a.last_ns {
            return;
        }
        let d = decay_q32(now - a.last_ns);
        a.advance(now, a_level, d);
        b.advance(now, b_level, d);
    }

    /// Decays the average by `d` (Q32) and adds `level`'s share of the rest.
    #[inline]
    fn advance(&mut self, now: u64, level: u64, d: u64) {
        let keep = mul_wide(self.q, d) >> 32;
        // level << FRAC times (2^32 - d), shifted right by 32: d <= 2^32, so 2^32 - d
        // fits 64 bits and the product with any level is below 2^96; shifting it left by
        // FRAC then right by 32 is one shift right by 32 - FRAC.
        let add = mul_wide(level, (1u64 << 32) - d) >> (32 - FRAC);
        self.q = (keep + add) as u64;
        self.last_ns = now;
    }

    /// The value an update to `now` would give, without changing the signal.
    #[inline]
    pub fn peek(&self, now: u64, level: u64) -> u64 {
        let mut s = *self;
        s.update(now, level);
        s.avg()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-period shortcut equals the general form.
    #[test]
    fn decay_within_a_period_is_the_linear_part() {
        for delta in (0..PERIOD_NS).step_by(997).chain([PERIOD_NS - 1]) {
            let whole = Y_INV[0];
            let part = (1u64 << 32) - ((ONE_MINUS_Y * delta) >> 20);
            assert_eq!(decay_q32(delta), ((whole as u128 * part as u128) >> 32) as u64);
        }
    }

    /// Two signals updated as a pair equal the same two updated one by one, whether
    /// they were last updated together or not.
    #[test]
    fn a_pair_updates_as_two() {
        let mut x = 7u64;
        let (mut a, mut b) = (Signal::default(), Signal::at(300, 0));
        let (mut a2, mut b2) = (a, b);
        let mut now = 0;
        for i in 0..5_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            now += (x >> 40) % (3 * PERIOD_NS);
            let (la, lb) = ((x >> 20) % 4 * 1024, (x >> 30) % 2 * 1024);
            if i % 7 == 3 {
                // Only one of them: the pair falls apart until the next joint update.
                a.update(now, la);
                a2.update(now, la);
                continue;
            }
            Signal::update_pair(&mut a, la, &mut b, lb, now);
            a2.update(now, la);
            b2.update(now, lb);
            assert_eq!((a, b), (a2, b2));
        }
    }

    #[test]
    fn half_life_is_32_periods() {
        let d = decay_q32(32 * PERIOD_NS);
        assert_eq!(d, 1 << 31);
        assert!(decay_q32(0) == 1 << 32);
        assert!(decay_q32(PERIOD_NS / 2) < 1 << 32 && decay_q32(PERIOD_NS / 2) > Y_INV[1]);
    }

    #[test]
    fn converges_to_input() {
        let mut s = Signal::default();
        s.update(1_000_000_000, 1024);
        assert!(s.avg() >= 1020, "{}", s.avg());
        s.update(1_000_000_000 + 32 * PERIOD_NS, 0);
        assert!((505..=515).contains(&s.avg()), "{}", s.avg());
    }

    /// Frequent short updates add up as one long one does (the kernel's sums do).
    #[test]
    fn short_updates_accumulate() {
        let (mut fine, mut coarse) = (Signal::default(), Signal::default());
        for i in 1..=10_000u64 {
            fine.update(i * 10_000, 1024);
        }
        coarse.update(100_000_000, 1024);
        // 100 ms of running: 1024 (1 - y^97.7) ~ 894; the linear fraction of a period
        // (see decay_q32) costs a few units over 10,000 steps.
        assert!((890..=905).contains(&fine.avg()), "{}", fine.avg());
        assert!(fine.avg().abs_diff(coarse.avg()) <= 5, "{} vs {}", fine.avg(), coarse.avg());
    }
}
