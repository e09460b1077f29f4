//! The special functions the population models need: ln Γ, ψ (digamma) and
//! ψ' (trigamma) for positive arguments, and the hypergeometric probability of
//! drawing exactly one member of a class, all in logarithms so that
//! populations of hundreds of millions do not overflow.

/// ln Γ(x) for x > 0, by Lanczos' approximation (g = 7, 9 terms), with the
/// reflection-free shift for x < 0.5: relative error about 1e-15.
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // ln Γ(x) = ln Γ(x + 1) - ln x keeps the series in its accurate range
        return ln_gamma(x + 1.0) - x.ln();
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Arguments below this are raised by the recurrences before the asymptotic
/// series, whose terms then fall below 1e-15.
const ASYMPTOTIC: f64 = 10.0;

/// ψ(x) = d ln Γ(x) / dx for x > 0: ψ(x) = ψ(x + 1) - 1/x up to 10, then the
/// asymptotic series ln x - 1/(2x) - Σ B_2j / (2j x^2j).
pub fn digamma(mut x: f64) -> f64 {
    let mut acc = 0.0;
    while x < ASYMPTOTIC {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    let series = z
        * (1.0 / 12.0
            - z * (1.0 / 120.0
                - z * (1.0 / 252.0
                    - z * (1.0 / 240.0 - z * (1.0 / 132.0 - z * (691.0 / 32760.0))))));
    acc + x.ln() - 0.5 / x - series
}

/// ψ'(x) for x > 0: ψ'(x) = ψ'(x + 1) + 1/x² up to 10, then
/// 1/x + 1/(2x²) + Σ B_2j / x^(2j+1).
pub fn trigamma(mut x: f64) -> f64 {
    let mut acc = 0.0;
    while x < ASYMPTOTIC {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    let series = (1.0 / x)
        * z
        * (1.0 / 6.0
            - z * (1.0 / 30.0
                - z * (1.0 / 42.0 - z * (1.0 / 30.0 - z * (5.0 / 66.0 - z * (691.0 / 2730.0))))));
    acc + 1.0 / x + 0.5 * z + series
}

/// ln C(a, b), the binomial coefficient, for 0 <= b <= a.
pub fn ln_choose(a: f64, b: f64) -> f64 {
    ln_gamma(a + 1.0) - ln_gamma(b + 1.0) - ln_gamma(a - b + 1.0)
}

/// The probability that a sample of `n` records drawn without replacement
/// from a population of `total` holds exactly one of a class of `size`:
/// size · C(total - size, n - 1) / C(total, n).
pub fn one_drawn(total: f64, size: f64, n: f64) -> f64 {
    if size > total || n > total || n < 1.0 || total - size < n - 1.0 {
        return 0.0;
    }
    (size.ln() + ln_choose(total - size, n - 1.0) - ln_choose(total, n)).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_matches_factorials_and_half_integers() {
        let mut fact = 1.0f64;
        for n in 1..30u32 {
            // Γ(n + 1) = n!
            fact *= n as f64;
            let got = ln_gamma(n as f64 + 1.0);
            assert!((got - fact.ln()).abs() < 1e-12 * fact.ln().max(1.0), "{n}");
        }
        // Γ(1/2) = √π
        let half = ln_gamma(0.5);
        assert!((half - std::f64::consts::PI.sqrt().ln()).abs() < 1e-14);
        assert!(ln_gamma(1.0).abs() < 1e-14 && ln_gamma(2.0).abs() < 1e-14);
    }

    #[test]
    fn digamma_and_trigamma_known_values() {
        // ψ(1) = -γ, ψ(1/2) = -γ - 2 ln 2, ψ'(1) = π²/6, ψ'(1/2) = π²/2
        let euler = 0.577_215_664_901_532_9;
        let pi2 = std::f64::consts::PI.powi(2);
        assert!((digamma(1.0) + euler).abs() < 1e-13);
        assert!((digamma(0.5) + euler + 2.0 * 2f64.ln()).abs() < 1e-13);
        assert!((trigamma(1.0) - pi2 / 6.0).abs() < 1e-13);
        assert!((trigamma(0.5) - pi2 / 2.0).abs() < 1e-12);
        // the recurrences agree with the series at large arguments
        for x in [0.3, 2.7, 11.0, 1234.5] {
            assert!((digamma(x + 1.0) - digamma(x) - 1.0 / x).abs() < 1e-12);
            assert!((trigamma(x) - trigamma(x + 1.0) - 1.0 / (x * x)).abs() < 1e-12);
        }
    }

    /// (x, ln Γ(x), ψ(x), ψ'(x)), computed with mpmath at 40 digits and
    /// rounded to the nearest double.
    const REFERENCE: [(f64, f64, f64, f64); 8] = [
        (
            0.1,
            2.252712651734206,
            -10.423754940411076,
            101.43329915079275,
        ),
        (
            0.5,
            0.5723649429247001,
            -1.9635100260214235,
            4.934802200544679,
        ),
        (
            1.5,
            -0.12078223763524522,
            0.03648997397857652,
            0.9348022005446793,
        ),
        (
            3.7,
            1.428072326665388,
            1.1671535393615113,
            0.3100378576700383,
        ),
        (
            10.25,
            13.368023671476045,
            2.277704790686724,
            0.10247452151799187,
        ),
        (
            123.456,
            469.6055471299295,
            4.811829323828985,
            0.008132945834278198,
        ),
        (
            1e5,
            1051287.7089736569,
            11.512920464961896,
            1.0000050000166667e-05,
        ),
        (
            3.3e8,
            6142819051.211821,
            19.61460321090965,
            3.0303030348943986e-09,
        ),
    ];

    #[test]
    fn reference_values_to_1e_13() {
        let close = |got: f64, want: f64| (got - want).abs() <= 1e-13 * want.abs().max(0.1);
        for (x, lg, psi, psi1) in REFERENCE {
            assert!(
                close(ln_gamma(x), lg),
                "ln Γ({x}) = {} not {lg}",
                ln_gamma(x)
            );
            assert!(close(digamma(x), psi), "ψ({x}) = {} not {psi}", digamma(x));
            assert!(
                close(trigamma(x), psi1),
                "ψ'({x}) = {} not {psi1}",
                trigamma(x)
            );
        }
    }

    #[test]
    fn one_drawn_is_the_hypergeometric_probability() {
        // 10 balls, 3 red, draw 4: P(one red) = 3 · C(7, 3) / C(10, 4) = 105/210
        assert!((one_drawn(10.0, 3.0, 4.0) - 0.5).abs() < 1e-12);
        // the whole population drawn: a class of one is always drawn once
        assert!((one_drawn(50.0, 1.0, 50.0) - 1.0).abs() < 1e-12);
        assert_eq!(one_drawn(50.0, 2.0, 50.0), 0.0);
    }
}
