//! Keyed pseudonyms of a column of values: HMAC-SHA-256 (RFC 2104, from
//! RustCrypto's `hmac` and `sha2`, never our own) of each value's UTF-8
//! bytes, written as lowercase hex and cut to `length` characters. The
//! DuckDB and Spark releases compute the same function from their built-in
//! SHA-256, so a key gives one pseudonym per value on every engine.
//!
//! A null stays null. Values are strings (`Utf8View`, `Utf8`, `LargeUtf8`);
//! the Python side casts other types to text first, as the engines do.

use hmac::{Hmac, KeyInit, Mac};
use polars_arrow::array::{Array, MutableBinaryViewArray, Utf8Array, Utf8ViewArray};
use polars_arrow::bitmap::Bitmap;
use rayon::prelude::*;
use sha2::Sha256;

use crate::error::{AnonError, Result};

/// The longest pseudonym: all 64 hex digits of a SHA-256 digest.
pub const MAX_LENGTH: usize = 64;
/// Rows hashed by one task of the pool.
const CHUNK: usize = 1 << 14;

/// HMAC-SHA-256 under one key, cut to `length` hex digits.
pub struct Pseudonymizer {
    mac: Hmac<Sha256>,
    length: usize,
}

impl Pseudonymizer {
    pub fn new(key: &[u8], length: usize) -> Result<Self> {
        if !(1..=MAX_LENGTH).contains(&length) {
            return Err(AnonError::Config(format!(
                "a pseudonym has 1 to {MAX_LENGTH} hex digits, not {length}"
            )));
        }
        // HMAC takes a key of any length (a long one is hashed first)
        let mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key)
            .map_err(|_| AnonError::Config("the key cannot key HMAC-SHA-256".into()))?;
        Ok(Pseudonymizer { mac, length })
    }

    /// The pseudonym of `value`, written into `out` (`length` bytes).
    pub fn write(&self, value: &[u8], out: &mut [u8]) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut mac = self.mac.clone();
        mac.update(value);
        let digest = mac.finalize().into_bytes();
        for (i, slot) in out.iter_mut().enumerate() {
            let byte = digest[i / 2];
            *slot = HEX[usize::from(if i % 2 == 0 { byte >> 4 } else { byte & 15 })];
        }
    }

    /// The pseudonym of `value` as text.
    pub fn of(&self, value: &[u8]) -> String {
        let mut out = vec![0; self.length];
        self.write(value, &mut out);
        String::from_utf8(out).expect("hex digits")
    }

    /// The pseudonyms of a column's chunk (nulls kept), hashed on the pool,
    /// as `Utf8View` arrays of `CHUNK` rows: the type Polars holds text in, so
    /// that handing them over copies nothing.
    pub fn column(&self, array: &dyn Array) -> Result<Vec<Box<dyn Array>>> {
        let any = array.as_any();
        if let Some(a) = any.downcast_ref::<Utf8ViewArray>() {
            Ok(self.views(a.len(), a.validity(), |i| a.value(i).as_bytes()))
        } else if let Some(a) = any.downcast_ref::<Utf8Array<i64>>() {
            Ok(self.views(a.len(), a.validity(), |i| a.value(i).as_bytes()))
        } else if let Some(a) = any.downcast_ref::<Utf8Array<i32>>() {
            Ok(self.views(a.len(), a.validity(), |i| a.value(i).as_bytes()))
        } else {
            Err(AnonError::Column(format!(
                "pseudonyms are made of text, not of {:?} (cast the column to a string first)",
                array.dtype()
            )))
        }
    }

    fn views<'a, F>(&self, rows: usize, validity: Option<&Bitmap>, value: F) -> Vec<Box<dyn Array>>
    where
        F: Fn(usize) -> &'a [u8] + Sync,
    {
        let width = self.length;
        let starts: Vec<usize> = (0..rows.max(1)).step_by(CHUNK).collect();
        starts
            .par_iter()
            .map(|&start| {
                let end = (start + CHUNK).min(rows);
                let mut out = MutableBinaryViewArray::<str>::with_capacity(end - start);
                let mut buf = [0u8; MAX_LENGTH];
                for i in start..end {
                    if validity.is_none_or(|v| v.get_bit(i)) {
                        self.write(value(i), &mut buf[..width]);
                        let text = std::str::from_utf8(&buf[..width]).expect("hex digits");
                        out.push_value(text);
                    } else {
                        out.push_null();
                    }
                }
                let done: Utf8ViewArray = out.freeze();
                done.boxed()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_4231_case_2() {
        // RFC 4231, test case 2: key "Jefe", data "what do ya want for nothing?"
        let p = Pseudonymizer::new(b"Jefe", 64).unwrap();
        assert_eq!(
            p.of(b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let short = Pseudonymizer::new(b"Jefe", 7).unwrap();
        assert_eq!(short.of(b"what do ya want for nothing?"), "5bdcc14");
    }

    #[test]
    fn rfc_4231_case_6_long_key() {
        // a key longer than the block is hashed first
        let key = [0xaau8; 131];
        let p = Pseudonymizer::new(&key, 64).unwrap();
        assert_eq!(
            p.of(b"Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn columns_keep_nulls_and_order() {
        let p = Pseudonymizer::new(b"k", 16).unwrap();
        let values: Vec<Option<String>> = (0..40_000)
            .map(|i| (i % 7 != 0).then(|| format!("v{i}")))
            .collect();
        let view = Utf8ViewArray::from_slice(&values);
        let large = Utf8Array::<i64>::from(&values);
        for array in [view.boxed(), large.boxed()] {
            let chunks = p.column(array.as_ref()).unwrap();
            assert_eq!(chunks.len(), values.len().div_ceil(CHUNK));
            let mut i = 0;
            for chunk in chunks {
                let out = chunk.as_any().downcast_ref::<Utf8ViewArray>().unwrap();
                for j in 0..out.len() {
                    match &values[i] {
                        None => assert!(out.is_null(j)),
                        Some(v) => assert_eq!(out.value(j), p.of(v.as_bytes())),
                    }
                    i += 1;
                }
            }
            assert_eq!(i, values.len());
        }
        let empty = Utf8ViewArray::from_slice::<&str, _>(&[]);
        assert_eq!(p.column(&empty).unwrap().len(), 1);
        assert!(Pseudonymizer::new(b"k", 0).is_err());
        assert!(Pseudonymizer::new(b"k", 65).is_err());
        let ints = polars_arrow::array::PrimitiveArray::<i64>::from_slice([1, 2]);
        assert!(p.column(&ints).is_err());
    }
}
