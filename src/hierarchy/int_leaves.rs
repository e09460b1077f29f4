//! Integer leaves by value: the leaves of a hierarchy that are integers in
//! their decimal form (ages, years, ZIP codes), found by the value itself.
//! An integer column stands for its values' decimal strings; without this
//! each value past the encoder's few hundred remembered ones had its string
//! written and looked up (cup's ZIP codes: 100,000 leaves, a tenth of the
//! time to prepare 10,000 rows).

use super::encode::decimal;
use super::Labels;

/// Each value's leaf code over `lo..lo + codes.len()` (`NOT_A_LEAF` where the
/// value's decimal string is no leaf).
#[derive(Debug)]
pub(super) struct IntLeaves {
    lo: i64,
    codes: Vec<u32>,
}

/// No leaf has this value's decimal string.
pub(super) const NOT_A_LEAF: u32 = u32::MAX;

/// The table spans at most this many values per integer leaf, or this
/// floor's: a table by value of thinly spread leaves (identifiers up to a
/// billion) would cost more memory than the lookups it saves.
const SPAN_PER_LEAF: usize = 4;
const MIN_SPAN: usize = 4096;

impl IntLeaves {
    /// The table of `leaves`' integer labels, or `None` when none is an
    /// integer in decimal form or they spread too thinly (`SPAN_PER_LEAF`).
    /// Only a label that is exactly its value's decimal string is one: an
    /// integer value never matches "007" or "+7".
    pub(super) fn of(leaves: &Labels) -> Option<IntLeaves> {
        let ints: Vec<(i64, u32)> = leaves
            .iter()
            .zip(0u32..)
            .filter_map(|(label, code)| canonical(label).map(|v| (v, code)))
            .collect();
        let lo = ints.iter().map(|&(v, _)| v).min()?;
        let hi = ints.iter().map(|&(v, _)| v).max()?;
        let span = usize::try_from(hi.abs_diff(lo)).ok()?.checked_add(1)?;
        if span > MIN_SPAN.max(SPAN_PER_LEAF * ints.len()) {
            return None;
        }
        let mut codes = vec![NOT_A_LEAF; span];
        for (v, code) in ints {
            codes[v.abs_diff(lo) as usize] = code;
        }
        Some(IntLeaves { lo, codes })
    }

    /// The leaf code of `v`'s decimal string, or `NOT_A_LEAF`.
    #[inline(always)]
    pub(super) fn code(&self, v: i64) -> u32 {
        // values below `lo` wrap to large offsets, past the table
        let at = v.wrapping_sub(self.lo) as u64;
        match usize::try_from(at) {
            Ok(i) if i < self.codes.len() => self.codes[i],
            _ => NOT_A_LEAF,
        }
    }
}

/// The integer whose decimal string `label` is, if it is one.
fn canonical(label: &str) -> Option<i64> {
    let b = label.as_bytes();
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    if digits.is_empty() || digits.len() > 19 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let v: i64 = label.parse().ok()?;
    let mut text = [0u8; 20];
    (decimal(v, &mut text) == b).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(of: &[&str]) -> Labels {
        let mut l = Labels::with_capacity(of.len(), 64);
        for s in of {
            l.push(s);
        }
        l
    }

    #[test]
    fn only_labels_in_decimal_form_are_found_by_value() {
        let l = labels(&[
            "7",
            "007",
            "+8",
            "-3",
            "x",
            "",
            "-",
            "9223372036854775807",
            "12",
        ]);
        // i64::MAX spreads the leaves too thinly for a table
        assert!(IntLeaves::of(&l).is_none());
        let l = labels(&["7", "007", "+8", "-3", "x", "", "-", "-0", "12", "-9"]);
        let t = IntLeaves::of(&l).unwrap();
        let code = |v| Some(t.code(v)).filter(|&c| c != NOT_A_LEAF);
        assert_eq!(code(7), Some(0));
        assert_eq!(code(-3), Some(3));
        assert_eq!(code(12), Some(8));
        assert_eq!(code(-9), Some(9));
        // "+8" and "-0" are no value's decimal string; 0 and 8 are no leaf
        for v in [8, 0, 13, -10, -4, i64::MIN, i64::MAX] {
            assert_eq!(code(v), None, "{v}");
        }
        assert!(IntLeaves::of(&labels(&["a", "b"])).is_none());
        // the extremes of i64 as leaves of a narrow span
        let t = IntLeaves::of(&labels(&["-9223372036854775808", "-9223372036854775807"])).unwrap();
        assert_eq!((t.code(i64::MIN), t.code(i64::MIN + 1)), (0, 1));
        assert_eq!(t.code(i64::MAX), NOT_A_LEAF);
        let t = IntLeaves::of(&labels(&["9223372036854775807"])).unwrap();
        assert_eq!((t.code(i64::MAX), t.code(i64::MIN)), (0, NOT_A_LEAF));
    }
}
