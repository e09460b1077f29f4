//! The "at least p distinct" family of Sun et al.: p-sensitive, p+-sensitive
//! and (p, alpha)-sensitive k-anonymity. Monotone also with suppression: a
//! merged group passes as soon as one of its parts passed.

use super::{bad_parameter, check_table, Criterion};
use crate::error::Result;

/// At least `p` distinct sensitive values per group.
#[derive(Clone, Debug, PartialEq)]
pub struct PSensitive {
    pub p: usize,
    pub attr: usize,
}

impl PSensitive {
    pub fn new(p: usize, attr: usize) -> Result<Self> {
        if p == 0 {
            return Err(bad_parameter("PSensitive", "p", p, "at least 1"));
        }
        Ok(PSensitive { p, attr })
    }
}

impl Criterion for PSensitive {
    fn name(&self) -> &'static str {
        "PSensitive"
    }
    fn attr(&self) -> usize {
        self.attr
    }
    fn holds(&self, hist: &[(u32, u64)], _global: &[f64]) -> bool {
        hist.len() >= self.p
    }
    fn monotone(&self) -> bool {
        true
    }
    fn monotone_with_suppression(&self) -> bool {
        true
    }
}

/// At least `p` distinct categories per group; `category[code]` is each
/// value's category.
#[derive(Clone, Debug, PartialEq)]
pub struct PPlusSensitive {
    pub p: usize,
    pub attr: usize,
    pub category: Vec<u32>,
}

impl PPlusSensitive {
    pub fn new(p: usize, attr: usize, category: Vec<u32>) -> Result<Self> {
        if p == 0 {
            return Err(bad_parameter("PPlusSensitive", "p", p, "at least 1"));
        }
        Ok(PPlusSensitive { p, attr, category })
    }
}

impl Criterion for PPlusSensitive {
    fn name(&self) -> &'static str {
        "PPlusSensitive"
    }
    fn attr(&self) -> usize {
        self.attr
    }
    fn holds(&self, hist: &[(u32, u64)], _global: &[f64]) -> bool {
        let mut cats: Vec<u32> = hist
            .iter()
            .map(|&(v, _)| self.category[v as usize])
            .collect();
        cats.sort_unstable();
        cats.dedup();
        cats.len() >= self.p
    }
    fn monotone(&self) -> bool {
        true
    }
    fn monotone_with_suppression(&self) -> bool {
        true
    }
    fn check_values(&self, values: usize) -> Result<()> {
        check_table(
            self.name(),
            "category",
            &self.category,
            values,
            u32::MAX as usize,
        )
    }
}

/// At least `p` distinct values and a total weight of at least `alpha`: the
/// i-th of m categories (most sensitive first) weighs (i - 1) / (m - 1) per
/// tuple, the last weighs 1.
#[derive(Clone, Debug, PartialEq)]
pub struct PAlphaSensitive {
    pub p: usize,
    pub alpha: f64,
    pub attr: usize,
    pub category: Vec<u32>,
    pub categories: usize,
}

impl PAlphaSensitive {
    pub fn new(
        p: usize,
        alpha: f64,
        attr: usize,
        category: Vec<u32>,
        categories: usize,
    ) -> Result<Self> {
        if p == 0 {
            return Err(bad_parameter("PAlphaSensitive", "p", p, "at least 1"));
        }
        if categories == 0 {
            return Err(bad_parameter(
                "PAlphaSensitive",
                "categories",
                0,
                "at least 1",
            ));
        }
        if !(alpha >= 0.0 && alpha.is_finite()) {
            return Err(bad_parameter(
                "PAlphaSensitive",
                "alpha",
                alpha,
                "a finite number >= 0",
            ));
        }
        Ok(PAlphaSensitive {
            p,
            alpha,
            attr,
            category,
            categories,
        })
    }

    fn weight(&self, cat: u32) -> f64 {
        let m = self.categories;
        let i = cat as usize + 1; // categories numbered from 1, most sensitive first
        if i >= m {
            1.0
        } else {
            (i - 1) as f64 / (m - 1) as f64
        }
    }
}

impl Criterion for PAlphaSensitive {
    fn name(&self) -> &'static str {
        "PAlphaSensitive"
    }
    fn attr(&self) -> usize {
        self.attr
    }
    fn holds(&self, hist: &[(u32, u64)], _global: &[f64]) -> bool {
        let total_weight: f64 = hist
            .iter()
            .map(|&(v, c)| self.weight(self.category[v as usize]) * c as f64)
            .sum();
        hist.len() >= self.p && total_weight >= self.alpha - 1e-9
    }
    fn monotone(&self) -> bool {
        true
    }
    fn monotone_with_suppression(&self) -> bool {
        true
    }
    fn check_values(&self, values: usize) -> Result<()> {
        check_table(
            self.name(),
            "category",
            &self.category,
            values,
            self.categories,
        )
    }
}
