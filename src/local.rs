//! Sun et al.'s top-down local recoding (`Localpk`, Algorithm 1): start with every
//! tuple fully generalized, specialize group by group one level down the
//! hierarchies, push back to the parent the tuples of children that break the
//! model, and, if the parent's own tuples then break it, pull more tuples up from
//! the children that can spare them (the last ones first, as in the paper's
//! Figure 1(g)). The result is cell-level: one column may hold values at
//! different levels.
//!
//! With several quasi-identifiers, "one level down" lowers every attribute that
//! is not yet at its leaves at once; with one attribute this is the paper's
//! walk-through exactly.

use crate::check::Model;
use crate::error::{AnonError, Result};
use crate::hierarchy::Hierarchy;

/// What `localpk` returns: per attribute, per row, the level and the code at
/// that level; and the distortion ratio of the recoded table.
#[derive(Clone, Debug)]
pub struct LocalRecoding {
    pub levels: Vec<Vec<u8>>,
    pub codes: Vec<Vec<u32>>,
    pub groups: usize,
    pub distortion: f64,
}

struct Node {
    levels: Vec<u8>,
    members: Vec<u32>,
}

pub struct Tuples<'a> {
    pub hierarchies: &'a [Hierarchy],
    /// Leaf codes, per attribute, per row.
    pub qi: &'a [Vec<u32>],
    /// Value codes, per sensitive attribute, per row.
    pub sensitive: &'a [Vec<u32>],
    /// Table-wide distribution of each sensitive attribute (t-closeness).
    pub global: &'a [Vec<f64>],
}

impl Tuples<'_> {
    fn passes(&self, model: &Model, members: &[u32]) -> bool {
        if (members.len() as u64) < model.k {
            return false;
        }
        model.criteria.iter().all(|c| {
            let col = &self.sensitive[c.attr()];
            let mut values: Vec<u32> = members.iter().map(|&r| col[r as usize]).collect();
            values.sort_unstable();
            let mut hist: Vec<(u32, u64)> = Vec::new();
            for v in values {
                match hist.last_mut() {
                    Some((last, n)) if *last == v => *n += 1,
                    _ => hist.push((v, 1)),
                }
            }
            c.holds(&hist, &self.global[c.attr()])
        })
    }

    fn key(&self, levels: &[u8], row: u32) -> Vec<u32> {
        levels
            .iter()
            .enumerate()
            .map(|(a, &l)| self.hierarchies[a].leaf_map(l)[self.qi[a][row as usize] as usize])
            .collect()
    }

    /// Split `members` by their codes at `levels`, in order of first appearance.
    fn split(&self, levels: &[u8], members: &[u32]) -> Vec<Vec<u32>> {
        let mut index: std::collections::HashMap<Vec<u32>, usize> = Default::default();
        let mut out: Vec<Vec<u32>> = Vec::new();
        for &r in members {
            let k = self.key(levels, r);
            let i = *index.entry(k).or_insert_with(|| {
                out.push(Vec::new());
                out.len() - 1
            });
            out[i].push(r);
        }
        out
    }
}

pub fn localpk(t: &Tuples, model: &Model) -> Result<LocalRecoding> {
    let n_attrs = t.hierarchies.len();
    let rows = t.qi.first().map_or(0, |c| c.len());
    let top: Vec<u8> = t.hierarchies.iter().map(|h| h.height()).collect();
    let all: Vec<u32> = (0..rows as u32).collect();
    let mut frontier: Vec<Node> = Vec::new();
    for members in t.split(&top, &all) {
        if !t.passes(model, &members) {
            return Err(AnonError::NotAnonymous(format!(
                "even fully generalized, a group of {} breaks the model (k = {}{}): \
                 local recoding cannot protect this table",
                crate::error::counted(members.len() as u64, "tuple"),
                model.k,
                if model.criteria.is_empty() {
                    ""
                } else {
                    " and the criteria"
                }
            )));
        }
        frontier.push(Node {
            levels: top.clone(),
            members,
        });
    }
    let mut done: Vec<Node> = Vec::new();
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for p in frontier {
            if p.levels.iter().all(|&l| l == 0) {
                done.push(p);
                continue;
            }
            let down: Vec<u8> = p.levels.iter().map(|&l| l.saturating_sub(1)).collect();
            let mut kept: Vec<u32> = Vec::new();
            let mut good: Vec<Vec<u32>> = Vec::new();
            for child in t.split(&down, &p.members) {
                if t.passes(model, &child) {
                    good.push(child);
                } else {
                    kept.extend(child);
                }
            }
            if !kept.is_empty() && !t.passes(model, &kept) {
                'pull: for child in good.iter_mut() {
                    let mut i = child.len();
                    while i > 0 {
                        i -= 1;
                        let mut rest = child.clone();
                        let moved = rest.remove(i);
                        if t.passes(model, &rest) {
                            *child = rest;
                            kept.push(moved);
                            if t.passes(model, &kept) {
                                break 'pull;
                            }
                        }
                    }
                }
                if !t.passes(model, &kept) {
                    // cannot specialize P at all: it stays whole, one level up
                    kept = p.members.clone();
                    good.clear();
                }
            }
            for members in good.into_iter().filter(|g| !g.is_empty()) {
                next.push(Node {
                    levels: down.clone(),
                    members,
                });
            }
            if !kept.is_empty() {
                kept.sort_unstable();
                done.push(Node {
                    levels: p.levels,
                    members: kept,
                });
            }
        }
        frontier = next;
    }
    let mut levels = vec![vec![0u8; rows]; n_attrs];
    let mut codes = vec![vec![0u32; rows]; n_attrs];
    let mut distortion = 0.0;
    for node in &done {
        for &r in &node.members {
            for a in 0..n_attrs {
                let l = node.levels[a];
                levels[a][r as usize] = l;
                codes[a][r as usize] = t.hierarchies[a].leaf_map(l)[t.qi[a][r as usize] as usize];
                distortion += l as f64;
            }
        }
    }
    let total: f64 = top.iter().map(|&h| h as f64).sum::<f64>() * rows as f64;
    Ok(LocalRecoding {
        levels,
        codes,
        groups: done.len(),
        distortion: if total == 0.0 {
            0.0
        } else {
            distortion / total
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_8_walk_through() {
        // Table 8(a): Zip Code only, Disease sensitive; (p, alpha) = (2, 1), k = 2
        let zip = Hierarchy::from_csv_str(
            "14248;1424*;142**;14***;1****;*****\n14247;1424*;142**;14***;1****;*****\n",
            b';',
            "zip",
        )
        .unwrap();
        // diseases coded: 0 HIV, 1 Indigestion, 2 Flu, 3 Cancer; categories of Table 4
        let category = vec![0, 3, 3, 0];
        let model = Model {
            k: 2,
            criteria: vec![std::sync::Arc::new(
                crate::criteria::PAlphaSensitive::new(2, 1.0, 0, category, 4).unwrap(),
            )],
            ..Default::default()
        };
        let hs = [zip];
        let qi = [vec![0, 0, 0, 1]];
        let sensitive = [vec![0, 1, 2, 3]];
        let global = [vec![0.25; 4]];
        let out = localpk(
            &Tuples {
                hierarchies: &hs,
                qi: &qi,
                sensitive: &sensitive,
                global: &global,
            },
            &model,
        )
        .unwrap();
        // Table 8(c): tuples 1, 2 keep 14248; tuples 3, 4 become 1424*
        assert_eq!(out.levels[0], vec![0, 0, 1, 1]);
        let labels: Vec<&str> = (0..4)
            .map(|r| hs[0].levels()[out.levels[0][r] as usize].get(out.codes[0][r] as usize))
            .collect();
        assert_eq!(labels, vec!["14248", "14248", "1424*", "1424*"]);
        assert!((out.distortion - 2.0 / 20.0).abs() < 1e-12);
        assert_eq!(out.groups, 2);
    }
}
