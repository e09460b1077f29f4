//! What a release must satisfy.

/// What a release must satisfy: k-anonymity and the sensitive-attribute criteria.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub k: u64,
    pub criteria: Vec<crate::criteria::CriterionRef>,
}

impl Model {
    pub fn k(k: u64) -> Self {
        Model {
            k,
            criteria: Vec::new(),
        }
    }
}
