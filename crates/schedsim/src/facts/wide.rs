//! 128-bit products without 128-bit multiplies on WebAssembly.
//!
//! wasm32 has no 64 x 64 -> 128-bit multiply, so LLVM lowers every `u128` product to a
//! call to compiler-rt's general `__multi3` (128 x 128 bits). The PRNG's step, PELT's
//! decay and the idle governor's sums of squares make several per simulated wakeup:
//! 7.8% of a tbench run's time in V8 (Node 20, `--cpu-prof`) went to `__multi3`. Here the
//! wide product is four 32 x 32 -> 64-bit multiplies, inlined. Natively (x86-64, aarch64)
//! it stays the one multiply instruction the hardware has. Both give the exact product,
//! so results are the same bits everywhere.

/// `a * b` as a full 128-bit product.
#[inline(always)]
pub(crate) fn mul_wide(a: u64, b: u64) -> u128 {
    #[cfg(target_arch = "wasm32")]
    {
        by_halves(a, b)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        a as u128 * b as u128
    }
}

/// `a.saturating_mul(b)`. On wasm32 the overflow test of a 64-bit product is itself a
/// `__multi3` call; factors below 2^32 cannot overflow, and that test is a shift.
#[inline(always)]
pub(crate) fn saturating_mul(a: u64, b: u64) -> u64 {
    #[cfg(target_arch = "wasm32")]
    {
        saturating_by_halves(a, b)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        a.saturating_mul(b)
    }
}

/// [`saturating_mul`] without a 128-bit multiply.
#[inline(always)]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn saturating_by_halves(a: u64, b: u64) -> u64 {
    if (a | b) >> 32 == 0 {
        return a * b;
    }
    let p = by_halves(a, b);
    if p >> 64 == 0 {
        p as u64
    } else {
        u64::MAX
    }
}

/// `a * b` modulo 2^128: one wide product of the low halves and two low products of
/// the cross terms (the product of the high halves only reaches bits past 128).
#[inline(always)]
pub(crate) fn mul_wrapping(a: u128, b: u128) -> u128 {
    let (al, ah) = (a as u64, (a >> 64) as u64);
    let (bl, bh) = (b as u64, (b >> 64) as u64);
    let cross = al.wrapping_mul(bh).wrapping_add(ah.wrapping_mul(bl));
    mul_wide(al, bl).wrapping_add((cross as u128) << 64)
}

/// The 128-bit product from 32-bit halves (schoolbook multiplication).
#[inline(always)]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn by_halves(a: u64, b: u64) -> u128 {
    const LO: u64 = 0xffff_ffff;
    let (a0, a1) = (a & LO, a >> 32);
    let (b0, b1) = (b & LO, b >> 32);
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    // The middle column: the carry out of the low word's top half, plus both cross
    // products' low halves; at most 3 * (2^32 - 1), which fits 64 bits.
    let mid = (p00 >> 32) + (p01 & LO) + (p10 & LO);
    let lo = (p00 & LO) | (mid << 32);
    let hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    ((hi as u128) << 64) | lo as u128
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The halves give the native product, at the edges and on a pseudo-random walk.
    #[test]
    fn halves_equal_the_native_product() {
        let edges = [0u64, 1, 2, 0xffff_ffff, 0x1_0000_0000, u64::MAX - 1, u64::MAX];
        for &a in &edges {
            for &b in &edges {
                assert_eq!(by_halves(a, b), a as u128 * b as u128, "{a} * {b}");
            }
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (a, b) = (x, x.rotate_left(29) ^ 0x5555_5555_5555_5555);
            assert_eq!(by_halves(a, b), a as u128 * b as u128);
            assert_eq!(by_halves(a >> 40, b), (a >> 40) as u128 * b as u128);
        }
    }

    #[test]
    fn saturating_equals_the_native_product() {
        let edges = [0u64, 1, 3, 0xffff_ffff, 0x1_0000_0000, 0x1_0000_0001, u64::MAX / 3, u64::MAX];
        for &a in &edges {
            for &b in &edges {
                assert_eq!(saturating_mul(a, b), a.saturating_mul(b), "{a} * {b}");
                assert_eq!(saturating_by_halves(a, b), a.saturating_mul(b), "{a} * {b}");
            }
        }
    }

    #[test]
    fn wrapping_equals_the_native_product() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let a = ((x as u128) << 64) | x.rotate_left(17) as u128;
            let b = ((x.rotate_left(41) as u128) << 64) | (x ^ 0xdead_beef) as u128;
            assert_eq!(mul_wrapping(a, b), a.wrapping_mul(b));
        }
    }
}
