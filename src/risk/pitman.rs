//! Pitman's model (Hoshino 2001): the sample's partition into classes is
//! taken as drawn from the two-parameter Poisson-Dirichlet (Pitman-Yor)
//! partition with parameters θ > -α, 0 <= α < 1. Its likelihood for `u`
//! classes over `n` records, with `c_j` classes of size `j`, is
//!
//!   L(θ, α) = Π_{i=1}^{u-1} (θ + iα) / Π_{i=1}^{n-1} (θ + i) · Π_j ((1-α)_{j-1})^{c_j}
//!
//! (`(x)_m` the rising factorial). The partition is consistent under
//! sampling, so the parameters fitted to the sample (by maximum likelihood,
//! Newton's method) are the population's, and the expected number of classes
//! of one in a population of `N` is
//!
//!   E[M_1] = N · (θ + α)_{N-1} / (θ + 1)_{N-1}
//!          = N · Γ(θ + α + N - 1) Γ(θ + 1) / (Γ(θ + α) Γ(θ + N)),
//!
//! which tends to Hoshino's Γ(θ + 1) / Γ(θ + α) · N^α for large N and is
//! Ewens' N θ / (θ + N - 1) at α = 0.

use super::special::{digamma, ln_gamma, trigamma};
use super::Histogram;

/// Sums over the classes are done term by term up to this many classes,
/// in closed form (digamma) beyond: exact where α is tiny, fast where `u`
/// is large.
const TERMWISE: u64 = 100_000;

/// What the likelihood needs of the sample.
struct Sample<'a> {
    hist: &'a Histogram,
    records: f64,
    classes: u64,
}

/// ln L and its gradient and Hessian in (θ, α).
struct Eval {
    value: f64,
    grad: [f64; 2],
    hess: [[f64; 2]; 2],
}

impl Sample<'_> {
    /// Σ_{i=1}^{u-1} of ln(θ + iα), 1/(θ + iα), i/(θ + iα), 1/(θ+iα)²,
    /// i/(θ+iα)², i²/(θ+iα)².
    fn class_sums(&self, t: f64, a: f64) -> [f64; 6] {
        let m = self.classes.saturating_sub(1);
        if m <= TERMWISE || a < 1e-6 {
            let mut s = [0.0; 6];
            for i in 1..=m {
                let i = i as f64;
                let v = t + i * a;
                s[0] += v.ln();
                s[1] += 1.0 / v;
                s[2] += i / v;
                s[3] += 1.0 / (v * v);
                s[4] += i / (v * v);
                s[5] += i * i / (v * v);
            }
            return s;
        }
        // with r = θ/α: θ + iα = α (r + i)
        let (r, m) = (t / a, m as f64);
        let ln = m * a.ln() + ln_gamma(r + m + 1.0) - ln_gamma(r + 1.0);
        let s1 = (digamma(r + m + 1.0) - digamma(r + 1.0)) / a;
        let t1 = (trigamma(r + 1.0) - trigamma(r + m + 1.0)) / (a * a);
        // i = ((θ + iα) - θ) / α
        let s2 = (m - t * s1) / a;
        let t2 = (s1 - t * t1) / a;
        let t3 = (m - 2.0 * t * s1 + t * t * t1) / (a * a);
        [ln, s1, s2, t1, t2, t3]
    }

    fn eval(&self, t: f64, a: f64) -> Eval {
        let [ln_c, s1, s2, t1, t2, t3] = self.class_sums(t, a);
        let n = self.records;
        // Σ_{i=1}^{n-1} ln(θ + i) and its derivatives
        let ln_n = ln_gamma(t + n) - ln_gamma(t + 1.0);
        let d_n = digamma(t + n) - digamma(t + 1.0);
        let dd_n = trigamma(t + 1.0) - trigamma(t + n);
        // Σ_j c_j Σ_{m=1}^{j-1} ln(m - α) and its derivatives
        let (mut ln_s, mut d_s, mut dd_s) = (0.0, 0.0, 0.0);
        let (base_ln, base_d, base_dd) = (ln_gamma(1.0 - a), digamma(1.0 - a), trigamma(1.0 - a));
        for &(size, count) in &self.hist.0 {
            if size > 1 {
                let (j, c) = (size as f64, count as f64);
                ln_s += c * (ln_gamma(j - a) - base_ln);
                d_s += c * (digamma(j - a) - base_d);
                dd_s += c * (base_dd - trigamma(j - a));
            }
        }
        Eval {
            value: ln_c - ln_n + ln_s,
            grad: [s1 - d_n, s2 - d_s],
            hess: [[dd_n - t1, -t2], [-t2, -t3 - dd_s]],
        }
    }
}

/// The expected number of classes of one in a population of `total`.
pub fn expected_uniques(theta: f64, alpha: f64, total: f64) -> f64 {
    (total.ln() + ln_gamma(theta + alpha + total - 1.0) + ln_gamma(theta + 1.0)
        - ln_gamma(theta + alpha)
        - ln_gamma(theta + total))
    .exp()
}

/// The fitted (θ, α), or None when the likelihood has no maximum inside the
/// parameter space (every record unique: α → 1) or Newton's method fails.
pub fn fit(hist: &Histogram) -> Option<(f64, f64)> {
    let records = hist.records() as f64;
    let classes = hist.classes();
    let uniques = hist.of_size(1) as f64;
    if classes < 2 || classes as f64 >= records {
        return None;
    }
    let s = Sample {
        hist,
        records,
        classes,
    };
    // start: the share of classes of one tends to α; θ then from the
    // expected number of classes
    let a0 = (uniques / classes as f64).clamp(0.05, 0.95);
    let t0 = theta_for_classes(a0, records, classes as f64)?;
    newton(&s, t0, a0)
}

/// The θ at which the expected number of classes among `n` records,
/// E[K_n] = θ/α · (Γ(θ+α+n) Γ(θ+1) / (Γ(θ+α+1) Γ(θ+n)) - 1), increasing in
/// θ, is `classes` (by bisection).
fn theta_for_classes(a: f64, n: f64, classes: f64) -> Option<f64> {
    let expected = |t: f64| {
        let ratio =
            (ln_gamma(t + a + n) + ln_gamma(t + 1.0) - ln_gamma(t + a + 1.0) - ln_gamma(t + n))
                .exp();
        t / a * (ratio - 1.0)
    };
    let (mut lo, mut hi) = (-a + 1e-9, 1.0);
    while expected(hi) < classes {
        hi *= 2.0;
        if hi > 1e12 {
            return None;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if expected(mid) < classes {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

fn inside(t: f64, a: f64) -> bool {
    (0.0..1.0).contains(&a) && t > -a && t.is_finite()
}

/// Newton's method on ln L with backtracking, falling back to a gradient
/// step where the Hessian is not negative definite.
fn newton(s: &Sample<'_>, mut t: f64, mut a: f64) -> Option<(f64, f64)> {
    let mut e = s.eval(t, a);
    for _ in 0..500 {
        let [g0, g1] = e.grad;
        let [[h00, h01], [_, h11]] = e.hess;
        let det = h00 * h11 - h01 * h01;
        let (mut dt, mut da) = if h00 < 0.0 && det > 0.0 {
            (-(h11 * g0 - h01 * g1) / det, -(h00 * g1 - h01 * g0) / det)
        } else {
            let scale = 1.0 / (1.0 + g0.abs() + g1.abs());
            (g0 * scale * t.abs().max(1.0), g1 * scale * 0.1)
        };
        let mut moved = false;
        for _ in 0..60 {
            let (nt, na) = (t + dt, a + da);
            if inside(nt, na) {
                let ne = s.eval(nt, na);
                if ne.value.is_finite() && ne.value >= e.value - 1e-12 * e.value.abs() {
                    moved = true;
                    let small = dt.abs() <= 1e-10 * t.abs().max(1.0) && da.abs() <= 1e-12;
                    (t, a, e) = (nt, na, ne);
                    if small {
                        // a step made tiny by backtracking against the
                        // edge α = 0 is not convergence: the maximum is
                        // then on the edge, or there is none
                        return settled(s, &e, t, a);
                    }
                    break;
                }
            }
            dt *= 0.5;
            da *= 0.5;
        }
        if !moved {
            break;
        }
        let tol = 1e-9 * (1.0 + s.records.ln());
        if e.grad[0].abs() * t.abs().max(1.0) < tol && e.grad[1].abs() < tol {
            return Some((t, a));
        }
    }
    settled(s, &e, t, a)
}

/// Where Newton's method stopped, (t, a) with ln L's value and slopes `e`:
/// a maximum inside when the slopes are flat; else, when ln L falls as α
/// grows, the maximum on the edge α = 0 (`on_edge`); else none.
fn settled(s: &Sample<'_>, e: &Eval, t: f64, a: f64) -> Option<(f64, f64)> {
    if a > 0.0 && stationary(s, e, t) {
        return Some((t, a));
    }
    if e.grad[1] < 0.0 {
        return on_edge(s, t);
    }
    None
}

/// The maximum on the edge α = 0 (Ewens' model, which Pitman's holds):
/// θ by Newton's method on ln L(θ, 0), a maximum of the whole space when
/// ln L's slope in α is not positive there.
fn on_edge(s: &Sample<'_>, mut t: f64) -> Option<(f64, f64)> {
    let mut e = s.eval(t, 0.0);
    for _ in 0..200 {
        let (g, h) = (e.grad[0], e.hess[0][0]);
        let mut dt = match h < 0.0 {
            true => -g / h,
            false => g * t.max(1.0) / (1.0 + g.abs()),
        };
        let mut moved = false;
        for _ in 0..60 {
            let nt = t + dt;
            if nt > 0.0 && nt.is_finite() {
                let ne = s.eval(nt, 0.0);
                if ne.value.is_finite() && ne.value >= e.value - 1e-12 * e.value.abs() {
                    (t, e, moved) = (nt, ne, true);
                    break;
                }
            }
            dt *= 0.5;
        }
        if !moved || e.grad[0].abs() * t.max(1.0) < 1e-9 * (1.0 + s.records.ln()) {
            break;
        }
    }
    (stationary_in_theta(s, &e, t) && e.grad[1] <= 0.0).then_some((t, 0.0))
}

/// Whether ln L's slopes at (t, ·) (`e`) are flat, to a tolerance that
/// grows with the records (the terms of ln L's sums).
fn stationary(s: &Sample<'_>, e: &Eval, t: f64) -> bool {
    stationary_in_theta(s, e, t) && e.grad[1].abs() < 1e-6 * s.records
}

fn stationary_in_theta(s: &Sample<'_>, e: &Eval, t: f64) -> bool {
    e.grad[0].abs() * t.abs().max(1.0) < 1e-6 * s.records
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded Chinese-restaurant draw of a Pitman-Yor partition of `n`.
    fn crp(theta: f64, alpha: f64, n: usize, seed: u64) -> Histogram {
        let mut rng = super::super::tests::Rng(seed);
        let mut sizes: Vec<u64> = Vec::new();
        for i in 0..n {
            // new class with probability (θ + Kα) / (θ + i)
            let k = sizes.len() as f64;
            let u = rng.unit() * (theta + i as f64);
            if u < theta + k * alpha || sizes.is_empty() {
                sizes.push(1);
                continue;
            }
            // else class j with probability (n_j - α) / (θ + i)
            let mut acc = theta + k * alpha;
            let mut chosen = sizes.len() - 1;
            for (j, &s) in sizes.iter().enumerate() {
                acc += s as f64 - alpha;
                if u < acc {
                    chosen = j;
                    break;
                }
            }
            sizes[chosen] += 1;
        }
        Histogram::from_sizes(sizes.iter().copied())
    }

    #[test]
    fn recovers_the_parameters_of_a_drawn_partition() {
        for (theta, alpha, seed) in [(50.0, 0.5, 1), (200.0, 0.3, 2), (20.0, 0.7, 3)] {
            let h = crp(theta, alpha, 20_000, seed);
            let (t, a) = fit(&h).expect("a fit");
            assert!((a - alpha).abs() < 0.05, "alpha {a} for {alpha}");
            assert!((t - theta).abs() < 0.5 * theta, "theta {t} for {theta}");
        }
    }

    #[test]
    fn the_fit_is_a_stationary_point() {
        let h = crp(100.0, 0.4, 5_000, 7);
        let (t, a) = fit(&h).unwrap();
        let s = Sample {
            hist: &h,
            records: h.records() as f64,
            classes: h.classes(),
        };
        let e = s.eval(t, a);
        assert!(
            e.grad[0].abs() < 1e-6 && e.grad[1].abs() < 1e-6,
            "{:?}",
            e.grad
        );
        // and a maximum: nearby points are lower
        for (dt, da) in [(1.0, 0.0), (-1.0, 0.0), (0.0, 0.01), (0.0, -0.01)] {
            assert!(s.eval(t + dt, a + da).value < e.value);
        }
    }

    #[test]
    fn a_maximum_on_the_edge_alpha_zero_is_found_there() {
        // class sizes of 5,000 uniform draws over 4,320 cells: ln L rises
        // towards α = 0 (its slope in α is about -255 there), so the
        // maximum is Ewens' model's; backtracking against the edge once
        // stopped at α ≈ 0 with θ still moving (3097 for 3153.7)
        let sizes = [
            (1, 1589),
            (2, 959),
            (3, 330),
            (4, 94),
            (5, 19),
            (6, 3),
            (7, 2),
        ];
        let h = Histogram::from_sizes(
            sizes
                .iter()
                .flat_map(|&(size, n)| std::iter::repeat_n(size, n)),
        );
        let (t, a) = fit(&h).expect("a fit on the edge");
        assert_eq!(a, 0.0);
        let s = Sample {
            hist: &h,
            records: h.records() as f64,
            classes: h.classes(),
        };
        let e = s.eval(t, 0.0);
        assert!(e.grad[0].abs() < 1e-6, "{:?}", e.grad);
        assert!(e.grad[1] < -100.0, "{:?}", e.grad);
        // Ewens' likelihood equation: u / θ = Σ_{i<n} 1 / (θ + i)
        let n = h.records();
        let sum: f64 = (0..n).map(|i| 1.0 / (t + i as f64)).sum();
        assert!((h.classes() as f64 / t - sum).abs() < 1e-9 * sum);
        assert!((t - 3153.7).abs() < 0.1, "{t}");
    }

    #[test]
    fn closed_and_termwise_sums_agree() {
        let h = crp(80.0, 0.5, 3_000, 11);
        let s = Sample {
            hist: &h,
            records: h.records() as f64,
            classes: h.classes(),
        };
        let termwise = s.class_sums(30.0, 0.4);
        let (r, m) = (30.0f64 / 0.4, (h.classes() - 1) as f64);
        let closed_s1 = (digamma(r + m + 1.0) - digamma(r + 1.0)) / 0.4;
        assert!((termwise[1] - closed_s1).abs() < 1e-9 * closed_s1);
    }

    #[test]
    fn ewens_limit_and_large_populations() {
        // α = 0: N θ / (θ + N - 1)
        let (t, n) = (12.5, 1000.0);
        let want = n * t / (t + n - 1.0);
        assert!((expected_uniques(t, 0.0, n) - want).abs() < 1e-9 * want);
        // large N: Γ(θ + 1) / Γ(θ + α) N^α
        let (t, a, n): (f64, f64, f64) = (40.0, 0.5, 1e9);
        let hoshino = (ln_gamma(t + 1.0) - ln_gamma(t + a)).exp() * n.powf(a);
        assert!((expected_uniques(t, a, n) / hoshino - 1.0).abs() < 1e-5);
    }

    #[test]
    fn no_fit_without_a_maximum() {
        // every record unique
        assert_eq!(fit(&Histogram::from_sizes([1u64; 50])), None);
        // a single class
        assert_eq!(fit(&Histogram::from_sizes([7u64])), None);
    }
}
