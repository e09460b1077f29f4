//! What a release must satisfy.

/// What a release must satisfy: k-anonymity, the sensitive-attribute
/// criteria on every group, the criteria against a population table, and
/// the criteria on the whole release.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub k: u64,
    pub criteria: Vec<crate::criteria::CriterionRef>,
    pub dataset: Vec<crate::criteria::DatasetRef>,
    pub population: Vec<crate::criteria::PopulationRef>,
}

impl Model {
    pub fn k(k: u64) -> Self {
        Model {
            k,
            ..Default::default()
        }
    }

    /// k alone: a group's fate then depends on its count alone.
    pub fn only_k(&self) -> bool {
        self.criteria.is_empty() && self.dataset.is_empty() && self.population.is_empty()
    }

    /// Models beyond the groups' own verdicts: against a population table
    /// or on the whole release, which need every class at once (`verdicts`).
    pub fn beyond_groups(&self) -> bool {
        !self.dataset.is_empty() || !self.population.is_empty()
    }
}
