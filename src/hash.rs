//! Hashing for short keys: one mixing function for the open-addressed tables
//! (leaf labels, string views, rollup slots), and a hasher for std's maps of
//! level vectors in graph generation (std's SipHash cost more than the lookups).

/// Multiplies by 2^64 / phi (Fibonacci hashing): the top bits of the product
/// depend on every bit of `v`, so a table of 2^b slots takes the top b bits.
/// Callers fold wider keys into `v` first.
#[inline(always)]
pub fn mix(v: u64) -> u64 {
    v.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The slot of `v` in a table of `2^bits` slots: the top bits of `mix(v)`.
#[inline(always)]
pub fn slot(v: u64, bits: u32) -> usize {
    (mix(v) >> (64 - bits)) as usize
}

/// The slot of the two-word key `(a, b)` in a table of `2^bits` slots: each
/// word multiplied by its own odd constant, so that no bits of one cancel
/// bits of the other (rotating one into the other and mixing once put ZIP
/// codes 1.9 probes deep in a half-full table, this 1.3).
#[inline(always)]
pub fn slot2(a: u64, b: u64, bits: u32) -> usize {
    ((mix(a) ^ b.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)) >> (64 - bits)) as usize
}

/// Ask for the cache line holding `slot` (a hint: no effect on results). Tables
/// larger than the first-level cache are probed in batches whose slots are
/// prefetched first, so that their misses overlap instead of queueing.
#[inline(always)]
pub fn prefetch<T>(slot: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that never faults, and the pointer comes
    // from a reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((slot as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}

/// A multiply-rotate hasher (not DoS-resistant; keys here come from the
/// user's own data and hierarchies).
#[derive(Default)]
pub struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

pub type FxBuild = std::hash::BuildHasherDefault<Fx>;

/// `Fx` with a finish that folds the high half of a 128-bit product into the
/// low half. Fx's last step is a multiply, whose low bits see only the low
/// bits of the input: std's tables index by the low bits, so strings that
/// differ in their later bytes (ZIP codes) collided. For sets of strings.
#[derive(Default)]
pub struct Folded(Fx);

impl std::hash::Hasher for Folded {
    fn finish(&self) -> u64 {
        let p = (self.0 .0 as u128) * 0x9E37_79B9_7F4A_7C15;
        (p as u64) ^ ((p >> 64) as u64)
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes)
    }
    fn write_u64(&mut self, v: u64) {
        self.0.write_u64(v)
    }
    fn write_u8(&mut self, v: u8) {
        self.0.write_u64(v as u64)
    }
    fn write_usize(&mut self, v: usize) {
        self.0.write_u64(v as u64);
    }
}

pub type FoldedBuild = std::hash::BuildHasherDefault<Folded>;
