//! The simulator's one PRNG: PCG-XSL-RR 128/64 ("Pcg64", O'Neill 2014), the same
//! stream on every platform (native and wasm32), seeded from the experiment's seed.

/// PCG-XSL-RR 128/64 with the reference multiplier and a fixed odd increment.
#[derive(Clone, Debug)]
pub struct Pcg64 {
    state: u128,
}

use crate::facts::wide::{mul_wide, mul_wrapping};

const MUL: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;
const INC: u128 = 0x5851_F42D_4C95_7F2D_1405_7B7E_F767_814F;

impl Pcg64 {
    /// Seeds the generator; each (seed, stream) pair gives an independent sequence.
    pub fn new(seed: u64, stream: u64) -> Pcg64 {
        let mut r = Pcg64 { state: 0 };
        r.state = r.state.wrapping_mul(MUL).wrapping_add(INC);
        r.state = r.state.wrapping_add(((seed as u128) << 64) | stream as u128);
        r.state = r.state.wrapping_mul(MUL).wrapping_add(INC);
        r
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = mul_wrapping(self.state, MUL).wrapping_add(INC);
        let rot = (self.state >> 122) as u32;
        let xsl = ((self.state >> 64) as u64) ^ (self.state as u64);
        xsl.rotate_right(rot)
    }

    /// Uniform in `0..n` (n > 0), by Lemire's multiply-shift (tiny bias is fine here).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        (mul_wide(self.next_u64(), n) >> 64) as u64
    }

    /// True with probability `num / den`.
    #[inline]
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    /// Uniform in `mean ± mean * spread_pct / 100`: integer jitter around a mean.
    #[inline]
    pub fn jitter(&mut self, mean: u64, spread_pct: u64) -> u64 {
        let w = mean * spread_pct / 100;
        if w == 0 {
            return mean;
        }
        mean - w + self.below(2 * w + 1)
    }

    /// Exponentially distributed with the given mean, from integer arithmetic only
    /// (inverse CDF on a 2^-32 grid with a 16-step log2 table), so it is bit-identical
    /// everywhere.
    pub fn exp(&mut self, mean: u64) -> u64 {
        // -ln(u) = -log2(u) * ln 2, u in (0,1]. log2 via leading zeros + table.
        let u = (self.next_u64() >> 32) | 1; // 1..2^32, as u / 2^32
        let lz = u.leading_zeros() - 32; // integer part of -log2(u)
        let norm = u << lz; // in [2^31, 2^32)
        let frac_idx = ((norm >> 27) & 0xF) as usize; // top 4 bits after the leading 1
        let within = (norm >> 19) & 0xFF; // next 8 bits, for linear interpolation
                                          // log2(1 + i/16) in 1/65536 units, i = 0..=16.
        const T: [u64; 17] = [
            0, 5732, 11136, 16248, 21098, 25711, 30109, 34312, 38336, 42196, 45904, 49472, 52911, 56229, 59434, 62534,
            65536,
        ];
        let log2_frac = T[frac_idx] + (T[frac_idx + 1] - T[frac_idx]) * within / 256;
        // u / 2^32 = (norm / 2^32) / 2^lz and norm / 2^32 = (1 + f) / 2.
        let neg_log2_q16 = (lz as u64 + 1) * 65536 - log2_frac;
        // ln 2 = 45426 / 65536; neg_log2_q16 < 2^22, so its product with 45426 fits 64 bits.
        (mul_wide(mean, neg_log2_q16 * 45426) >> 32) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_is_fixed() {
        let mut r = Pcg64::new(1, 0);
        let v: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        let mut r2 = Pcg64::new(1, 0);
        assert_eq!(v, (0..3).map(|_| r2.next_u64()).collect::<Vec<_>>());
        assert_ne!(Pcg64::new(2, 0).next_u64(), v[0]);
    }

    #[test]
    fn exp_has_roughly_the_right_mean() {
        let mut r = Pcg64::new(7, 0);
        let n = 100_000u64;
        let s: u64 = (0..n).map(|_| r.exp(1000)).sum();
        let mean = s / n;
        assert!((900..1100).contains(&mean), "mean {mean}");
    }

    #[test]
    fn below_and_jitter_stay_in_range() {
        let mut r = Pcg64::new(3, 1);
        for _ in 0..1000 {
            assert!(r.below(10) < 10);
            let j = r.jitter(100, 20);
            assert!((80..=120).contains(&j));
        }
    }
}
