//! What every search shares: the checker, batching of rollups, progress and
//! interruption between batches, and the statistics of the work done.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::time::Instant;

use super::early::Early;
use super::{Algorithm, Config, IterationTrace, Outcome, Stats};
use crate::check::{Checked, Checker, Model};
use crate::error::{AnonError, Result};
use crate::freq::rollup::serial;
use crate::freq::{Blocks, FreqSet, Problem, RollupJob};
use crate::lattice::{Graph, Lattice, Node};

/// Rollups handed to the engine at once: large enough to keep both cores
/// busy on small sets, small enough that progress and Ctrl-C are heard
/// between batches.
const BATCH: usize = 256;
/// How often the process's resident memory is read against the budget.
const RESIDENT_EVERY: std::time::Duration = std::time::Duration::from_millis(20);

/// Called between batches of rollups with the number of nodes checked so far;
/// returning `false` stops the search with `AnonError::Interrupted`.
pub type Progress<'p> = Box<dyn FnMut(u64, Option<f64>) -> bool + Send + 'p>;

pub struct Searcher<'p> {
    pub(super) checker: Checker<'p>,
    pub(super) config: Config,
    pub(super) stats: Stats,
    pub(super) trace: Vec<IterationTrace>,
    /// Full-lattice nodes known anonymous so far: the answer if the search
    /// stops at its time limit.
    pub(super) confirmed: Vec<Node>,
    /// F0 in blocks for checks that read it (`early.rs`).
    pub(super) early: Early,
    deadline: Option<Instant>,
    /// Seconds per row read by the walks' rollups so far (`affords`).
    pace: Option<f64>,
    /// The core's bytes in use when the search began (`held`).
    held_from: usize,
    /// The process's resident bytes when the search began, and when it was
    /// last read (`in_memory` reads it at most every `RESIDENT_EVERY`).
    resident_from: Option<usize>,
    resident_read: std::cell::Cell<Instant>,
    /// The objective's best value among the anonymous nodes found, for the
    /// searches that value nodes as they go (what the progress shows).
    pub(super) best: Option<f64>,
    progress: Option<Progress<'p>>,
}

pub(super) fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

impl<'p> Searcher<'p> {
    pub fn new(problem: &'p Problem, config: Config) -> Result<Self> {
        if config.k == 0 {
            return Err(AnonError::Config("k must be at least 1".into()));
        }
        if config.k > problem.rows {
            return Err(AnonError::Config(format!(
                "k = {} is larger than the table ({} rows): no generalization can be {}-anonymous",
                config.k, problem.rows, config.k
            )));
        }
        if let Some(floors) = &problem.floors {
            floors.allow(config.k, config.max_suppression)?;
        }
        let model = Model {
            k: config.k,
            criteria: config.criteria.clone(),
            dataset: config.dataset.clone(),
            population: config.population.clone(),
        };
        let mut checker = Checker::new(problem, model, config.engine)?;
        checker.figures = config.objective.figures();
        Ok(Searcher {
            checker,
            early: Early::new(config.memory_budget),
            config,
            stats: Stats::default(),
            trace: Vec::new(),
            confirmed: Vec::new(),
            deadline: None,
            pace: None,
            held_from: crate::alloc::live(),
            resident_from: None,
            resident_read: std::cell::Cell::new(Instant::now()),
            best: None,
            progress: None,
        })
    }

    pub fn with_progress(mut self, progress: Progress<'p>) -> Self {
        self.progress = Some(progress);
        self
    }

    pub fn problem(&self) -> &'p Problem {
        self.checker.problem
    }

    pub(super) fn anonymous(&self, suppressed: u64) -> bool {
        suppressed <= self.config.max_suppression
    }

    /// Roll many jobs up, batching, and account rows read.
    pub(super) fn compute(&mut self, jobs: Vec<RollupJob<'_>>) -> Result<Vec<FreqSet>> {
        let mut out = Vec::with_capacity(jobs.len());
        let mut start = 0;
        while start < jobs.len() {
            let chunk = &jobs[start..start + self.batch_len(&jobs[start..])];
            start += chunk.len();
            self.tick_and_account(chunk)?;
            out.extend(self.problem().rollup_many(chunk, self.config.engine)?);
        }
        Ok(out)
    }

    /// How many of `jobs` to roll up at once: at most `BATCH`, and no more
    /// than half the memory budget left can hold (a set is at most its
    /// source's size; the other half for the tables that build them), so
    /// that one batch cannot carry the search far past its budget between
    /// two looks at what it holds. At least one.
    fn batch_len(&self, jobs: &[RollupJob<'_>]) -> usize {
        let room = self.config.memory_budget.saturating_sub(self.held()) / 2;
        let mut bytes = 0u64;
        let fits = jobs
            .iter()
            .take(BATCH)
            .take_while(|j| {
                bytes += j.from.bytes() as u64;
                bytes <= room
            })
            .count();
        fits.max(1)
    }

    /// Roll nodes up and check them: statistics of each, and the set of each
    /// failing node that `keep` marks (one a later node will read).
    pub(super) fn check(
        &mut self,
        jobs: Vec<RollupJob<'_>>,
        keep: &[bool],
    ) -> Result<Vec<Checked>> {
        let mut out = Vec::with_capacity(jobs.len());
        let mut start = 0;
        while start < jobs.len() {
            let end = start + self.batch_len(&jobs[start..]);
            let (chunk, keep) = (&jobs[start..end], &keep[start..end]);
            start = end;
            self.tick_and_account(chunk)?;
            out.extend(
                self.checker
                    .check_many(chunk, keep, self.config.max_suppression)?,
            );
        }
        Ok(out)
    }

    /// Between batches: the time limit, the progress callback (which may
    /// stop the search) and the rows the batch reads.
    fn tick_and_account(&mut self, chunk: &[RollupJob<'_>]) -> Result<()> {
        self.tick()?;
        let base = &self.checker.problem.base;
        for job in chunk {
            if std::ptr::eq(job.from, base) {
                self.stats.table_scans += 1;
                self.stats.rows_scanned += job.from.rows() as u64;
            } else {
                self.stats.rows_rolled_up += job.from.rows() as u64;
            }
        }
        Ok(())
    }

    /// Run `f` with no time limit (the limit then applies again): for the
    /// one step an anytime search takes before it holds an answer.
    pub(super) fn untimed<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let deadline = self.deadline.take();
        let out = f(self);
        self.deadline = deadline;
        out
    }

    /// Stop at the time limit, or when the progress callback says so.
    pub(super) fn tick(&mut self) -> Result<()> {
        self.in_time()?;
        self.in_memory()?;
        if let Some(tick) = &mut self.progress {
            if !tick(self.stats.nodes_checked, self.best) {
                return Err(AnonError::Interrupted);
            }
        }
        Ok(())
    }

    /// The time limit alone (no progress call): cheap enough for every
    /// candidate a walk looks at, where the candidates known without a
    /// rollup can take longer than the limit (a walk on 500 attributes
    /// looks at 250,000 neighbours of a node).
    pub(super) fn in_time(&self) -> Result<()> {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(AnonError::TimeLimit);
        }
        Ok(())
    }

    /// Stop at the limit now when a read of `rows` rows at the pace seen so
    /// far would end past it: on a million rows one read of F0 takes about
    /// a second, which a check between reads would overrun.
    pub(super) fn affords(&self, rows: usize) -> Result<()> {
        if let (Some(d), Some(pace)) = (self.deadline, self.pace) {
            let left = d.saturating_duration_since(Instant::now()).as_secs_f64();
            if rows as f64 * pace > left {
                return Err(AnonError::TimeLimit);
            }
        }
        Ok(())
    }

    /// Note that a read of `rows` rows took `seconds`: a slower read sets
    /// the pace, a faster one takes it halfway there (a read stopped early
    /// counts all its rows: the pace errs slow, stopping early rather than
    /// late).
    pub(super) fn paced(&mut self, rows: usize, seconds: f64) {
        if rows == 0 {
            return;
        }
        let now = seconds / rows as f64;
        self.pace = Some(self.pace.map_or(now, |p| now.max((p + now) / 2.0)));
    }

    /// Bytes the core holds beyond what it held when the search began:
    /// what the memory budget bounds.
    pub(super) fn held(&self) -> u64 {
        crate::alloc::live().saturating_sub(self.held_from) as u64
    }

    /// Stop once the search holds more than its memory budget.
    pub(super) fn in_memory(&self) -> Result<()> {
        let mut held = self.held();
        if held <= self.config.memory_budget {
            // what the process keeps resident besides, now and then
            if self.resident_read.get().elapsed() < RESIDENT_EVERY {
                return Ok(());
            }
            self.resident_read.set(Instant::now());
            let grown = match (crate::alloc::resident(), self.resident_from) {
                (Some(now), Some(from)) => now.saturating_sub(from) as u64,
                _ => 0,
            };
            if grown <= self.config.memory_budget {
                return Ok(());
            }
            held = grown;
        }
        let lattice = Lattice::new(self.problem().heights());
        Err(AnonError::TooLarge(format!(
            "the search came to hold {} in memory, past its memory budget of {}; the \
             lattice of these {} quasi-identifiers has {} nodes. Search fewer \
             quasi-identifiers or lower hierarchies, or raise memory_budget",
            super::budget::bytes_text(held as u128),
            super::budget::bytes_text(self.config.memory_budget as u128),
            lattice.heights().len(),
            super::budget::approx(lattice.size()),
        )))
    }

    /// Refuse to hold `nodes` nodes of `bytes_per_node` past the budget,
    /// besides what the search holds already.
    pub(super) fn within_budget(
        &self,
        what: &str,
        nodes: u128,
        bytes_per_node: u128,
    ) -> Result<()> {
        let lattice = Lattice::new(self.problem().heights());
        super::budget::check(
            what,
            &lattice,
            (nodes, bytes_per_node),
            self.held(),
            self.config.memory_budget,
        )
    }

    /// Run `algorithm`, first making sure it may: a search that infers nodes
    /// is exact only when every criterion is monotone (with suppression, when
    /// it stays monotone with failing groups suppressed).
    pub fn run(mut self, algorithm: &dyn Algorithm) -> Result<Outcome> {
        let suppressing = self.config.max_suppression > 0;
        if algorithm.infers() {
            let flags = self
                .config
                .criteria
                .iter()
                .map(|c| (c.name(), c.monotone(), c.monotone_with_suppression()))
                .chain(
                    (self.config.dataset.iter())
                        .map(|c| (c.name(), c.monotone(), c.monotone_with_suppression())),
                )
                .chain(
                    (self.config.population.iter())
                        .map(|c| (c.name(), c.monotone(), c.monotone_with_suppression())),
                );
            let not_monotone = flags
                .filter(|&(_, plain, with)| if suppressing { !with } else { !plain })
                .map(|(name, _, _)| name)
                .next();
            if let Some(name) = not_monotone {
                let when = if suppressing {
                    "when failing groups are suppressed"
                } else {
                    "under generalization"
                };
                return Err(AnonError::Config(format!(
                    "{} is not monotone {when}, so {} could miss or wrongly infer nodes; \
                     use algorithm=\"mingen\" (every node checked){}",
                    name,
                    algorithm.label(),
                    if suppressing {
                        " or max_suppression=0"
                    } else {
                        ""
                    }
                )));
            }
        }
        self.held_from = crate::alloc::live();
        self.resident_from = crate::alloc::resident();
        algorithm
            .estimate(&self)
            .map_err(|e| way_out(algorithm, e))?;
        let t = Instant::now();
        self.deadline = self.config.time_limit.map(|d| t + d);
        let mut out = match algorithm.run(&mut self) {
            Err(AnonError::TimeLimit) => {
                let limit = self.config.time_limit.unwrap_or_default().as_secs_f64();
                self.partial_outcome(format!("time limit of {limit} s reached"))
            }
            // a search that answers as it goes keeps what it found
            Err(AnonError::TooLarge(why))
                if !algorithm.complete() && !self.confirmed.is_empty() =>
            {
                self.partial_outcome(format!("memory budget reached: {why}"))
            }
            out => out.map_err(|e| way_out(algorithm, e))?,
        };
        if algorithm.complete() && out.stopped.is_none() {
            out.proven_optimal = true;
        }
        self.stats.phase_ms.push(("total".into(), ms(t)));
        out.stats = self.stats;
        out.trace = self.trace;
        Ok(out)
    }

    /// The outcome of a complete search over one graph: the nodes left in S.
    pub(super) fn finish_complete(&self, g: &Graph, in_s: &[bool]) -> Outcome {
        let anonymous: Vec<Node> = (0..g.len())
            .filter(|&v| in_s[v])
            .map(|v| g.levels(v).to_vec())
            .collect();
        self.complete_outcome(anonymous)
    }

    /// The outcome of a complete search: every anonymous node, in lattice
    /// order, and the minimal ones among them.
    pub(super) fn complete_outcome(&self, mut anonymous: Vec<Node>) -> Outcome {
        Lattice::sort(&mut anonymous);
        let minimal = minimal_of_complete(&anonymous);
        Outcome {
            anonymous,
            stopped: None,
            rejected: Vec::new(),
            minimal,
            complete: true,
            proven_optimal: false,
            stats: Stats::default(),
            trace: Vec::new(),
        }
    }

    /// What a search stopped at its time limit has: the nodes confirmed
    /// anonymous so far, and the minimal ones among them (not proven minimal
    /// in the lattice).
    fn partial_outcome(&mut self, stopped: String) -> Outcome {
        let mut anonymous = std::mem::take(&mut self.confirmed);
        Lattice::sort(&mut anonymous);
        anonymous.dedup();
        let minimal = minimal_of_complete(&anonymous);
        Outcome {
            anonymous,
            stopped: Some(stopped),
            rejected: Vec::new(),
            minimal,
            complete: false,
            proven_optimal: false,
            stats: Stats::default(),
            trace: Vec::new(),
        }
    }

    /// Check `nodes` of the full lattice, each from the table; sorts them into
    /// `anonymous` and `rejected`.
    pub(super) fn check_from_table(
        &mut self,
        nodes: &[Node],
        anonymous: &mut Vec<Node>,
        rejected: &mut Vec<Node>,
    ) -> Result<bool> {
        let problem: &'p Problem = self.problem();
        let all: Vec<usize> = (0..problem.n_attrs()).collect();
        let mut any = false;
        for chunk in nodes.chunks(BATCH) {
            let jobs: Vec<RollupJob<'_>> = chunk
                .iter()
                .map(|nd| RollupJob::new(&problem.base, all.clone(), nd.clone()))
                .collect();
            self.tick_and_account(&jobs)?;
            let passes = self.passes_from_table(chunk, jobs)?;
            for (nd, pass) in chunk.iter().zip(passes) {
                self.stats.nodes_checked += 1;
                if pass {
                    any = true;
                    anonymous.push(nd.clone());
                    self.confirmed.push(nd.clone());
                } else {
                    rejected.push(nd.clone());
                }
            }
        }
        Ok(any)
    }

    /// Whether each node of a batch read from F0 (`jobs`) is anonymous: read
    /// from F0 in blocks until it is known to fail where a copy serves it
    /// (`early.rs`), the nodes spread over the cores; the others checked as
    /// one batch.
    fn passes_from_table(&mut self, nodes: &[Node], jobs: Vec<RollupJob<'_>>) -> Result<Vec<bool>> {
        self.early
            .ready(&self.checker, nodes.iter().map(Vec::as_slice))?;
        let this: &Self = self;
        let (early, checker) = (&this.early, &this.checker);
        let max = this.config.max_suppression;
        let picked: Vec<_> = nodes.iter().map(|n| early.pick(n)).collect();
        let serial = serial(&jobs);
        let rest: Vec<RollupJob<'_>> = jobs
            .into_iter()
            .zip(&picked)
            .filter(|(_, p)| p.is_none())
            .map(|(j, _)| j)
            .collect();
        let mut rest = checker
            .check_many(&rest, &vec![false; rest.len()], max)?
            .into_iter();
        // per node read in blocks: its suppressed tuples, or `None` when it
        // stopped once known to fail
        let one = |(node, picked): (&Node, &Option<&Blocks>)| -> Result<Option<Option<u64>>> {
            let Some(b) = picked else {
                return Ok(None);
            };
            Ok(Some(match checker.fails_early(b, node, max)? {
                Some(fs) => Some(checker.group_stats(&fs)?.suppressed),
                None => None,
            }))
        };
        let early: Vec<Option<Option<u64>>> = if serial {
            nodes.iter().zip(&picked).map(one).collect::<Result<_>>()?
        } else {
            use rayon::prelude::*;
            (nodes.par_iter().zip(&picked).with_max_len(1))
                .map(one)
                .collect::<Result<_>>()?
        };
        Ok(early
            .into_iter()
            .map(|e| match e {
                Some(read) => read.is_some_and(|sup| this.anonymous(sup)),
                None => this.anonymous(rest.next().expect("one result per job").0),
            })
            .collect())
    }
}

pub(super) fn minimal_of_complete(anonymous: &[Node]) -> Vec<Node> {
    // A node is minimal when none of its predecessors (one level lower in
    // one attribute) is anonymous. Each predecessor is looked up by an
    // additive hash of (attribute, level) terms, changed by one term, not
    // copied and hashed whole: 5,000 nodes of 500 attributes took over half
    // a second that way, past an anytime search's time limit.
    let term = |a: usize, l: u8| crate::hash::mix(((a as u64) << 8 | l as u64) ^ 0x5bd1_e995);
    let hash = |n: &Node| {
        n.iter()
            .enumerate()
            .fold(0u64, |h, (a, &l)| h.wrapping_add(term(a, l)))
    };
    let hashes: Vec<u64> = anonymous.iter().map(hash).collect();
    let mut by_hash: HashMap<u64, Vec<usize>, BuildHasherDefault<crate::hash::Fx>> =
        HashMap::default();
    for (i, &h) in hashes.iter().enumerate() {
        by_hash.entry(h).or_default().push(i);
    }
    let below = |m: &Node, n: &Node, a: usize| {
        m[a] + 1 == n[a]
            && m.iter()
                .zip(n)
                .enumerate()
                .all(|(b, (x, y))| b == a || x == y)
    };
    anonymous
        .iter()
        .zip(&hashes)
        .filter(|&(n, &h)| {
            !n.iter().enumerate().any(|(a, &l)| {
                l > 0
                    && by_hash
                        .get(&h.wrapping_sub(term(a, l)).wrapping_add(term(a, l - 1)))
                        .is_some_and(|c| c.iter().any(|&j| below(&anonymous[j], n, a)))
            })
        })
        .map(|(n, _)| n.clone())
        .collect()
}

/// A search refused or stopped by the memory budget (but the walks, which
/// hold least), with the searches that hold less: Incognito's graphs of subsets of the
/// quasi-identifiers against the whole lattice (bottom-up, MinGen) or a
/// layer of it (Samarati), and the optimal walk, which finds the best node
/// alone, not every anonymous node.
fn way_out(algorithm: &dyn Algorithm, e: AnonError) -> AnonError {
    let label = algorithm.label();
    match e {
        AnonError::TooLarge(m)
            if !["optimal", "heuristic"]
                .iter()
                .any(|w| label.starts_with(w)) =>
        {
            let incognito = label.starts_with("incognito");
            AnonError::TooLarge(format!(
                "{m}; {}for the best node alone, algorithm=\"optimal\" holds far less \
                 (it lists none of the other anonymous nodes)",
                match incognito {
                    true => "",
                    false => "every anonymous node with less held: algorithm=\"incognito\"; ",
                }
            ))
        }
        e => e,
    }
}
