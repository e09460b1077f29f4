//! Zayatz's model (Zayatz 1991): the share of the sample's classes of each
//! size stands for the population's, so the chance that a sample unique is a
//! population unique is
//!
//!   P = (c_1/u) h(1; N, 1, n) / Σ_j (c_j/u) h(1; N, j, n),
//!
//! with h(1; N, j, n) the hypergeometric probability that a sample of n from
//! N holds exactly one member of a class of j. The population's uniques are
//! then c_1 · P / π, π = n / N the sampling fraction.

use super::special::one_drawn;
use super::Histogram;

/// The estimated number of population uniques (None when no class of the
/// sample could have given a sample unique).
pub fn uniques(hist: &Histogram, total: f64) -> Option<f64> {
    let n = hist.records() as f64;
    let c1 = hist.of_size(1) as f64;
    let classes = hist.classes() as f64;
    let denominator: f64 = hist
        .0
        .iter()
        .map(|&(size, count)| count as f64 / classes * one_drawn(total, size as f64, n))
        .sum();
    if denominator <= 0.0 || !denominator.is_finite() {
        return None;
    }
    let p = c1 / classes * one_drawn(total, 1.0, n) / denominator;
    Some(c1 * p * total / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_whole_population_sampled_gives_the_sample_uniques() {
        let h = Histogram::from_sizes([1, 1, 1, 2, 2, 5]);
        let got = uniques(&h, h.records() as f64).unwrap();
        assert!((got - 3.0).abs() < 1e-9, "{got}");
    }

    #[test]
    fn hand_computed_half_sample() {
        // classes 1, 1, 2 (n = 4) from N = 8: h(1; 8, 1, 4) = 1/2,
        // h(1; 8, 2, 4) = 2 · C(6, 3) / C(8, 4) = 40/70
        let h = Histogram::from_sizes([1, 1, 2]);
        let (h1, h2) = (0.5, 40.0 / 70.0);
        let p = (2.0 / 3.0 * h1) / (2.0 / 3.0 * h1 + 1.0 / 3.0 * h2);
        let want = 2.0 * p * 8.0 / 4.0;
        assert!((uniques(&h, 8.0).unwrap() - want).abs() < 1e-12);
    }
}
