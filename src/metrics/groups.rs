//! Statistics of one node's groups: what the checker finds (`check`) and
//! every metric reads, so they live with the metrics and the checker
//! imports them (metrics never import the checker).

/// Statistics of one node's groups under k (tuples of groups smaller than k are
/// the ones suppression would remove).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct GroupStats {
    pub groups: u64,
    pub min_group: u64,
    pub suppressed: u64,
    pub kept_groups: u64,
    pub kept_sum_sq: u128,
}

impl GroupStats {
    pub fn of_counts(counts: &[u64], k: u64) -> Self {
        Self::of_counts_iter(counts.iter().copied(), k)
    }

    pub fn of_counts_iter(counts: impl Iterator<Item = u64>, k: u64) -> Self {
        let mut s = GroupStats {
            min_group: u64::MAX,
            ..Default::default()
        };
        for c in counts {
            s.groups += 1;
            s.min_group = s.min_group.min(c);
            if c < k {
                s.suppressed += c;
            } else {
                s.kept_groups += 1;
                s.kept_sum_sq += (c as u128) * (c as u128);
            }
        }
        if s.groups == 0 {
            s.min_group = 0;
        }
        s
    }
}
