//! The randomness of a differentially private release (SafePub): one
//! ChaCha20 keystream (RustCrypto's `chacha20`, a cryptographically secure
//! generator, never our own) under a 32-byte key, read as 64-bit words.
//!
//! Each use reads its own stream of the key (ChaCha's 64-bit nonce), and a
//! word's place in it is fixed by what it decides, not by the order things
//! are asked: row `i` of the table is kept in the sample when word `i` of
//! stream [`SAMPLE`] is below `beta * 2^64`, so a row's fate does not depend
//! on how the engine cuts the table into batches, and scanning the table
//! again (to write the release) draws the same sample. The exponential
//! mechanism's draws are the words of stream [`MECHANISM`], in turn.
//!
//! With a key drawn from the operating system the sample and the choices are
//! unpredictable; with a key derived from a seed (the Python side hashes it)
//! they are reproducible, which tests and job files need and which a real
//! release should not use.

use chacha20::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

use crate::error::{AnonError, Result};

/// The stream whose word `i` decides whether row `i` is sampled.
pub const SAMPLE: u64 = 0;
/// The stream the exponential mechanism draws from.
pub const MECHANISM: u64 = 1;

/// A key's keystream, positioned by stream and word.
pub struct Keystream {
    rng: ChaCha20Rng,
    /// the 64-bit word the generator reads next, in the current stream
    next: u64,
}

impl Keystream {
    pub fn new(key: &[u8]) -> Result<Self> {
        let seed: [u8; 32] = key.try_into().map_err(|_| {
            AnonError::Config(format!(
                "a differential-privacy key has 32 bytes, not {}",
                key.len()
            ))
        })?;
        Ok(Keystream {
            rng: ChaCha20Rng::from_seed(seed),
            next: 0,
        })
    }

    /// 64-bit word `index` of `stream` (two 32-bit ChaCha words). Reading
    /// consecutive words moves on without repositioning.
    pub fn word(&mut self, stream: u64, index: u64) -> u64 {
        if self.rng.get_stream() != stream || self.next != index {
            // set_stream resets the position, so it goes first
            self.rng.set_stream(stream);
            self.rng.set_word_pos(u128::from(index) * 2);
        }
        self.next = index.wrapping_add(1);
        self.rng.next_u64()
    }

    /// Whether each row (by its index in the table) is in the sample taken
    /// with probability `beta`.
    pub fn sampled(&mut self, rows: impl Iterator<Item = u64>, beta: f64) -> Result<Vec<bool>> {
        let threshold = Threshold::new(beta)?;
        Ok(rows
            .map(|i| threshold.keeps(self.word(SAMPLE, i)))
            .collect())
    }

    /// `n` uniform numbers in [0, 1) of 53 bits each, from word `start` of
    /// `stream` on.
    pub fn uniforms(&mut self, stream: u64, start: u64, n: usize) -> Vec<f64> {
        (0..n as u64)
            .map(|j| (self.word(stream, start + j) >> 11) as f64 * (1.0 / (1u64 << 53) as f64))
            .collect()
    }
}

/// Keep a row when its word is below `beta * 2^64`: the probability is
/// beta to within 2^-64 (exactly 1 for beta = 1, 0 for beta = 0).
#[derive(Clone, Copy, Debug)]
struct Threshold(Option<u64>);

impl Threshold {
    fn new(beta: f64) -> Result<Self> {
        if !(0.0..=1.0).contains(&beta) {
            return Err(AnonError::Config(format!(
                "the sampling probability beta must be in [0, 1], got {beta}"
            )));
        }
        if beta == 1.0 {
            return Ok(Threshold(None));
        }
        // beta < 1, so the product is below 2^64 and the cast cannot saturate
        Ok(Threshold(Some((beta * 2f64.powi(64)) as u64)))
    }

    fn keeps(self, word: u64) -> bool {
        self.0.is_none_or(|t| word < t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_do_not_depend_on_the_order_they_are_read() {
        let key = [7u8; 32];
        let mut a = Keystream::new(&key).unwrap();
        let forward: Vec<u64> = (0..40).map(|i| a.word(SAMPLE, i)).collect();
        let mut b = Keystream::new(&key).unwrap();
        let mut backward: Vec<u64> = (0..40).rev().map(|i| b.word(SAMPLE, i)).collect();
        backward.reverse();
        assert_eq!(forward, backward);
        // another stream, another sequence; the first stream is unchanged after
        let m = b.word(MECHANISM, 0);
        assert_ne!(m, forward[0]);
        assert_eq!(b.word(SAMPLE, 3), forward[3]);
        assert_eq!(b.word(SAMPLE, 4), forward[4]);
    }

    #[test]
    fn the_keystream_is_chacha20s() {
        // RFC 8439 section 2.3.2's block function, key 00..1f, is for the
        // IETF nonce; with the original 64-bit nonce and counter 0 and an
        // all-zero key, ChaCha20's first bytes are 76 b8 e0 ad a0 f1 3d 90
        // (the original test vector, draft-agl-tls-chacha20poly1305).
        let mut s = Keystream::new(&[0u8; 32]).unwrap();
        assert_eq!(
            s.word(SAMPLE, 0).to_le_bytes(),
            [0x76, 0xb8, 0xe0, 0xad, 0xa0, 0xf1, 0x3d, 0x90]
        );
    }

    #[test]
    fn samples_at_the_rate_asked() {
        let mut s = Keystream::new(&[1u8; 32]).unwrap();
        let n = 200_000u64;
        let kept = s.sampled(0..n, 0.25).unwrap();
        let k = kept.iter().filter(|&&b| b).count() as f64;
        // a binomial count: mean n/4, standard deviation sqrt(n * 3/16) ~ 194
        assert!((k - n as f64 / 4.0).abs() < 5.0 * 194.0, "{k}");
        assert!(s.sampled(0..100, 1.0).unwrap().iter().all(|&b| b));
        assert!(s.sampled(0..100, 0.0).unwrap().iter().all(|&b| !b));
        assert!(s.sampled(0..1, 1.5).is_err());
        assert!(s.sampled(0..1, f64::NAN).is_err());
        assert!(Keystream::new(&[0u8; 31]).is_err());
    }

    #[test]
    fn uniforms_are_in_the_unit_interval() {
        let mut s = Keystream::new(&[2u8; 32]).unwrap();
        let u = s.uniforms(MECHANISM, 0, 10_000);
        assert!(u.iter().all(|&x| (0.0..1.0).contains(&x)));
        let mean = u.iter().sum::<f64>() / u.len() as f64;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
        assert_eq!(s.uniforms(MECHANISM, 5, 3), u[5..8].to_vec());
    }
}
