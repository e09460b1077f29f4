//! What a release must satisfy.

/// What a release must satisfy: k-anonymity, the sensitive-attribute
/// criteria on every group, and the criteria on the whole release.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub k: u64,
    pub criteria: Vec<crate::criteria::CriterionRef>,
    pub dataset: Vec<crate::criteria::DatasetRef>,
}

impl Model {
    pub fn k(k: u64) -> Self {
        Model {
            k,
            ..Default::default()
        }
    }
}
