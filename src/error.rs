//! The one error type of the core. The Python layer maps each variant to one
//! exception class (see `src/python/mod.rs`).

use thiserror::Error;

#[derive(Debug, Error)]
pub enum AnonError {
    /// A hierarchy that cannot be used: ragged, not a tree, duplicated leaves...
    #[error("{0}")]
    Hierarchy(String),
    /// Values in the data that the hierarchy of their column does not know.
    #[error(
        "column '{column}': {count} distinct value(s) missing from its hierarchy, first: {shown}"
    )]
    MissingValues {
        column: String,
        count: usize,
        shown: String,
    },
    /// Null values in a quasi-identifier.
    #[error("column '{column}': {count} null value(s) in a quasi-identifier; fill or drop them first (a value the hierarchy knows: in the file, or by Polars' fill_null), or pass nulls='value' (--nulls value) to keep null as a value of its own")]
    NullValues { column: String, count: u64 },
    /// A request that does not fit the data: unknown column, bad k, bad levels.
    #[error("{0}")]
    Config(String),
    /// The requested release would break the model (too much suppression...).
    #[error("{0}")]
    NotAnonymous(String),
    /// A search that would hold more than its memory budget.
    #[error("{0}")]
    TooLarge(String),
    /// A column of the wrong type or layout (Python: `TypeError`).
    #[error("reading an Arrow column: {0}")]
    Column(String),
    /// The progress callback asked to stop (Ctrl-C in Python).
    #[error("search interrupted")]
    Interrupted,
    /// The search's time limit passed; it stops with what it has.
    #[error("time limit reached")]
    TimeLimit,
    #[error(transparent)]
    Polars(#[from] polars::error::PolarsError),
}

pub type Result<T> = std::result::Result<T, AnonError>;

/// Quote and join the first few values for an error message.
pub fn show_values<S: AsRef<str>>(values: &[S], most: usize) -> String {
    let mut out: Vec<String> = values
        .iter()
        .take(most)
        .map(|v| format!("{:?}", v.as_ref()))
        .collect();
    if values.len() > most {
        out.push(format!("... ({} more)", values.len() - most));
    }
    out.join(", ")
}
