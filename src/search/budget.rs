//! What a search will hold in memory, estimated before it holds it.
//!
//! A search's memory follows the nodes it keeps at once: the whole lattice
//! (bottom-up, MinGen's answer lists), one layer of it (Samarati), or one
//! graph per iteration (Incognito). Each is estimated from the lattice's
//! shape before it is built and refused past the budget, with the numbers,
//! instead of growing until the machine gives out. The bytes per node are a
//! generous estimate of the structures the searches allocate for it (levels,
//! attributes, edges and the breadth-first search's per-node state).

use crate::error::{AnonError, Result};
use crate::lattice::Lattice;

/// The default memory budget: safe on a laptop.
pub const DEFAULT_BYTES: u64 = 2 << 30;

/// Bytes a search holds per node of a graph of `width` attributes.
pub fn graph_node_bytes(width: usize) -> u128 {
    200 + 26 * width as u128
}

/// Bytes a node costs in an answer list (a vector of levels).
pub fn listed_node_bytes(width: usize) -> u128 {
    32 + width as u128
}

/// Bytes a node costs in a complete search's answer: its levels in the
/// list (a vector's header and its allocation) and its entry in the index
/// that finds the minimal nodes (`minimal_of_complete`: a hash, and a slot of
/// a map from hashes to positions).
pub fn answer_node_bytes(width: usize) -> u128 {
    24 + (width as u128 + 16).max(32) + 8 + 80
}

/// Refuse `nodes` nodes at `bytes_per_node` when they and the `held` bytes
/// exceed `budget` bytes.
pub fn check(
    what: &str,
    lattice: &Lattice,
    (nodes, bytes_per_node): (u128, u128),
    held: u64,
    budget: u64,
) -> Result<()> {
    let bytes = nodes.saturating_mul(bytes_per_node);
    if bytes.saturating_add(held as u128) <= budget as u128 {
        return Ok(());
    }
    let besides = match held >= 1 << 20 {
        true => format!(" besides the {} it holds", bytes_text(held as u128)),
        false => String::new(),
    };
    Err(AnonError::TooLarge(format!(
        "{what} would hold {} nodes (about {}) in memory{besides}, over the memory budget of {}; \
         the lattice of these {} quasi-identifiers has {} nodes. Search fewer \
         quasi-identifiers or lower hierarchies, or raise memory_budget",
        approx(nodes),
        bytes_text(bytes),
        bytes_text(budget as u128),
        lattice.heights().len(),
        approx(lattice.size()),
    )))
}

/// A count for a message: exact below a million, else in powers of ten.
pub(super) fn approx(n: u128) -> String {
    if n < 1_000_000 {
        n.to_string()
    } else {
        format!("{:.2e}", n as f64)
    }
}

pub(super) fn bytes_text(b: u128) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    if b as f64 >= 1e4 * GIB {
        format!("{:.2e} bytes", b as f64)
    } else if b as f64 >= GIB {
        format!("{:.1} GiB", b as f64 / GIB)
    } else if b < 1 << 10 {
        // a budget of 10 bytes is not "0.0 MiB"
        format!("{b} bytes")
    } else if b < 1 << 20 {
        format!("{:.1} KiB", b as f64 / 1024.0)
    } else {
        // 256 MiB, not 0.2 GiB
        let mib = b as f64 / (1u64 << 20) as f64;
        format!("{:.*} MiB", usize::from(mib < 10.0), mib)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_their_unit() {
        assert_eq!(bytes_text(10), "10 bytes");
        assert_eq!(bytes_text(1536), "1.5 KiB");
        assert_eq!(bytes_text(5 << 20), "5.0 MiB");
        assert_eq!(bytes_text(256 << 20), "256 MiB");
        assert_eq!(bytes_text(3 << 30), "3.0 GiB");
    }

    #[test]
    fn refuses_past_the_budget_naming_the_numbers() {
        let lat = Lattice::new(vec![3; 25]);
        let e = check(
            "bottom-up search",
            &lat,
            (lat.size(), 100),
            0,
            DEFAULT_BYTES,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("1.13e15 nodes") && e.contains("2.0 GiB"), "{e}");
        assert!(e.contains("25 quasi-identifiers"), "{e}");
        let small = Lattice::new(vec![3; 5]);
        assert!(check("x", &small, (small.size(), 100), 0, DEFAULT_BYTES).is_ok());
        // what the search holds counts against the budget too
        let held = DEFAULT_BYTES - 1000;
        let e = check("x", &small, (small.size(), 100), held, DEFAULT_BYTES).unwrap_err();
        assert!(
            e.to_string().contains("besides the 2.0 GiB it holds"),
            "{e}"
        );
    }
}
