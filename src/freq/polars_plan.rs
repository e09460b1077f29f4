//! The Polars engine: each rollup a lazy group-by plan, a batch of them run by
//! one `collect_all`.

use polars::prelude::*;

use super::{code_col, FreqSet, Problem, RollupJob, SetData, COUNT};
use crate::error::Result;

impl Problem {
    pub(super) fn rollup_polars(&self, jobs: &[RollupJob<'_>]) -> Result<Vec<FreqSet>> {
        let mut plans = Vec::with_capacity(jobs.len());
        for RollupJob {
            from,
            attrs,
            levels,
        } in jobs
        {
            let frame = from.frame()?;
            let mut columns = Vec::with_capacity(attrs.len() + 1);
            for (&a, &l) in attrs.iter().zip(levels) {
                let name = code_col(a);
                let c = frame.column(&name)?;
                match self.level_map(from, a, l) {
                    None => columns.push(c.clone()),
                    Some(map) => {
                        let mapped = c.u32()?.apply_values(|v| map[v as usize]);
                        columns.push(mapped.into_column());
                    }
                }
            }
            for &c in &from.carry {
                columns.push(frame.column(&code_col(c))?.clone());
            }
            columns.push(frame.column(COUNT)?.clone());
            let df = DataFrame::new(frame.height(), columns)?;
            let keys: Vec<Expr> = attrs
                .iter()
                .chain(&from.carry)
                .map(|&a| col(code_col(a)))
                .collect();
            plans.push(
                df.lazy()
                    .group_by(keys)
                    .agg([col(COUNT).sum()])
                    .logical_plan,
            );
        }
        let frames = LazyFrame::collect_all_with_engine(
            plans,
            polars::prelude::Engine::InMemory,
            OptFlags::default(),
        )?;
        Ok(frames
            .into_iter()
            .zip(jobs)
            .map(|(df, job)| FreqSet {
                attrs: job.attrs.clone(),
                levels: job.levels.clone(),
                carry: job.from.carry.clone(),
                data: SetData::Frame(df),
            })
            .collect())
    }
}
