//! ARX's loss (Iyengar's loss metric as ARX reports it). For attribute i at
//! level g, a released record costs (leaves under its value - 1) / (leaves of
//! the hierarchy - 1), and a suppressed record costs 1; l_i is the mean over
//! all records; the node's loss is (prod_i (1 + l_i))^(1/n) - 1, and with
//! weights w_i, (prod_i (1 + l_i)^w_i)^(1 / sum_i w_i) - 1. An attribute with a
//! single leaf costs 0. Monotone under generalization when nothing is
//! suppressed (a value's leaves only grow); suppression can lower it.

/// Each attribute's mean cost per record, from `extra[i]`, the sum over the
/// released records of (leaves under the value - 1), an integer, so that the
/// result does not depend on the order of the rows; suppressed records cost 1.
pub fn attribute_loss(extra: &[u128], leaves: &[usize], suppressed: u64, rows: u64) -> Vec<f64> {
    extra
        .iter()
        .zip(leaves)
        .map(|(&e, &l)| {
            if rows == 0 {
                return 0.0;
            }
            let released = if l <= 1 {
                0.0
            } else {
                e as f64 / (l - 1) as f64
            };
            (released + suppressed as f64) / rows as f64
        })
        .collect()
}

/// The node's loss from its attributes' mean costs, weighted (`None`: each 1).
pub fn loss(attribute_loss: &[f64], weights: Option<&[f64]>) -> f64 {
    let (mut log_sum, mut total) = (0.0, 0.0);
    for (i, &l) in attribute_loss.iter().enumerate() {
        let w = weights.map_or(1.0, |w| w[i]);
        log_sum += log_term(l, w);
        total += w;
    }
    from_log_sum(log_sum, total)
}

/// An attribute's term in the loss: its weight times ln(1 + its cost).
pub fn log_term(attribute_loss: f64, weight: f64) -> f64 {
    weight * (1.0 + attribute_loss).ln()
}

/// The loss from the sum of the attributes' `log_term`s and of their
/// weights (0 when the weights sum to 0, or there are no attributes): a
/// weighted geometric mean of 1 + cost, less 1.
pub fn from_log_sum(log_sum: f64, total: f64) -> f64 {
    if total == 0.0 {
        return 0.0;
    }
    (log_sum / total).exp() - 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_hand() {
        // 10 records, 2 suppressed; attribute 0 of 5 leaves: 8 released records
        // whose values stand for 3 leaves each: (3 - 1) / (5 - 1) = 0.5 each
        let l = attribute_loss(&[8 * 2, 0], &[5, 7], 2, 10);
        assert!((l[0] - (4.0 + 2.0) / 10.0).abs() < 1e-12);
        assert!((l[1] - 0.2).abs() < 1e-12);
        // (1.6 * 1.2)^(1/2) - 1
        assert!((loss(&l, None) - (1.6f64 * 1.2).sqrt() + 1.0).abs() < 1e-12);
        // weights 3 and 1: (1.6^3 * 1.2)^(1/4) - 1
        let w = loss(&l, Some(&[3.0, 1.0]));
        assert!((w - (1.6f64.powi(3) * 1.2).powf(0.25) + 1.0).abs() < 1e-12);
        assert_eq!(attribute_loss(&[0], &[1], 0, 10), vec![0.0]);
        assert_eq!(loss(&[0.0, 0.0], None), 0.0);
        assert!((loss(&[1.0, 1.0], None) - 1.0).abs() < 1e-12);
    }
}
