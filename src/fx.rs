//! Fast hashing for short keys: level vectors in graph generation, leaf
//! labels when encoding a column (std's SipHash cost more than the lookups).

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
