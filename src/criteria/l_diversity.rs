//! l-diversity (Machanavajjhala et al.): distinct, entropy and recursive
//! (c, l). All three are monotone when nothing is suppressed; with
//! suppression only distinct l-diversity stays so (it is "at least l
//! distinct"), while a failing part can drag an entropy or recursive group
//! below the bar.

use super::{bad_parameter, Criterion};
use crate::error::Result;

/// At least `l` distinct sensitive values per group.
#[derive(Clone, Debug, PartialEq)]
pub struct DistinctL {
    pub l: usize,
    pub attr: usize,
}

impl DistinctL {
    pub fn new(l: usize, attr: usize) -> Result<Self> {
        if l == 0 {
            return Err(bad_parameter("DistinctLDiversity", "l", l, "at least 1"));
        }
        Ok(DistinctL { l, attr })
    }
}

impl Criterion for DistinctL {
    fn name(&self) -> &'static str {
        "DistinctLDiversity"
    }
    fn attr(&self) -> usize {
        self.attr
    }
    fn holds(&self, hist: &[(u32, u64)], _global: &[f64]) -> bool {
        hist.len() >= self.l
    }
    fn monotone(&self) -> bool {
        true
    }
    fn monotone_with_suppression(&self) -> bool {
        true
    }
}

/// The entropy of each group's sensitive values is at least ln(l).
#[derive(Clone, Debug, PartialEq)]
pub struct EntropyL {
    pub l: f64,
    pub attr: usize,
}

impl EntropyL {
    pub fn new(l: f64, attr: usize) -> Result<Self> {
        if !(l >= 1.0 && l.is_finite()) {
            return Err(bad_parameter(
                "EntropyLDiversity",
                "l",
                l,
                "a finite number >= 1",
            ));
        }
        Ok(EntropyL { l, attr })
    }
}

impl Criterion for EntropyL {
    fn name(&self) -> &'static str {
        "EntropyLDiversity"
    }
    fn attr(&self) -> usize {
        self.attr
    }
    fn holds(&self, hist: &[(u32, u64)], _global: &[f64]) -> bool {
        let n: u64 = hist.iter().map(|&(_, c)| c).sum();
        let n = n as f64;
        let entropy: f64 = hist
            .iter()
            .map(|&(_, c)| {
                let q = c as f64 / n;
                -q * q.ln()
            })
            .sum();
        entropy >= self.l.ln() - 1e-12
    }
    fn monotone(&self) -> bool {
        true
    }
    fn monotone_with_suppression(&self) -> bool {
        false
    }
}

/// Recursive (c, l)-diversity: r_1 < c (r_l + ... + r_m), the r_i the
/// group's value counts in decreasing order.
#[derive(Clone, Debug, PartialEq)]
pub struct RecursiveCL {
    pub c: f64,
    pub l: usize,
    pub attr: usize,
}

impl RecursiveCL {
    pub fn new(c: f64, l: usize, attr: usize) -> Result<Self> {
        if !(c > 0.0 && c.is_finite()) {
            return Err(bad_parameter(
                "RecursiveCLDiversity",
                "c",
                c,
                "a finite number > 0",
            ));
        }
        if l == 0 {
            return Err(bad_parameter("RecursiveCLDiversity", "l", l, "at least 1"));
        }
        Ok(RecursiveCL { c, l, attr })
    }
}

impl Criterion for RecursiveCL {
    fn name(&self) -> &'static str {
        "RecursiveCLDiversity"
    }
    fn attr(&self) -> usize {
        self.attr
    }
    fn holds(&self, hist: &[(u32, u64)], _global: &[f64]) -> bool {
        let mut counts: Vec<u64> = hist.iter().map(|&(_, n)| n).collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        if counts.len() < self.l {
            return false;
        }
        let tail: u64 = counts[self.l - 1..].iter().sum();
        (counts[0] as f64) < self.c * tail as f64
    }
    fn monotone(&self) -> bool {
        true
    }
    fn monotone_with_suppression(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recursive_and_entropy() {
        let hist = [(0u32, 5u64), (1, 3), (2, 2)];
        // (c, l) = (2, 2): r1 = 5 < 2 * (3 + 2) = 10
        assert!(RecursiveCL::new(2.0, 2, 0).unwrap().holds(&hist, &[]));
        assert!(!RecursiveCL::new(1.0, 2, 0).unwrap().holds(&hist, &[]));
        assert!(EntropyL::new(2.0, 0).unwrap().holds(&hist, &[]));
        assert!(!EntropyL::new(3.0, 0).unwrap().holds(&hist, &[]));
    }

    #[test]
    fn parameters_out_of_range_are_refused_by_name() {
        let e = RecursiveCL::new(3.0, 0, 0).unwrap_err().to_string();
        assert!(
            e.contains("RecursiveCLDiversity") && e.contains("l = 0"),
            "{e}"
        );
        let e = RecursiveCL::new(0.0, 2, 0).unwrap_err().to_string();
        assert!(e.contains("c = 0"), "{e}");
        assert!(EntropyL::new(f64::NAN, 0).is_err() && EntropyL::new(0.5, 0).is_err());
        assert!(DistinctL::new(0, 0).is_err());
    }
}
