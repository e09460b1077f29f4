//! The one error type of the core. The Python layer maps each variant to one
//! exception class (see `src/python/mod.rs`).

use thiserror::Error;

/// `n` and `noun`, singular for one and plural (in s) otherwise, `n` with
/// thousands separated: "1 tuple", "1,204 tuples".
pub(crate) fn counted(n: u64, noun: &str) -> String {
    let digits = n.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(d);
    }
    format!("{grouped} {noun}{}", if n == 1 { "" } else { "s" })
}

#[derive(Debug, Error)]
pub enum AnonError {
    /// A hierarchy that cannot be used: ragged, not a tree, duplicated leaves...
    #[error("{0}")]
    Hierarchy(String),
    /// Values in the data that the hierarchy of their column does not know.
    #[error(
        "column '{column}': {} missing from its hierarchy, first: {shown}",
        counted(*.count as u64, "distinct value")
    )]
    MissingValues {
        column: String,
        count: usize,
        shown: String,
    },
    /// Null values in a quasi-identifier.
    #[error("column '{column}': {} in a quasi-identifier; fill or drop {} first (a value the hierarchy knows: in the file, or by Polars' fill_null), or pass nulls='value' (--nulls value) to keep null as a value of its own", counted(*.count, "null value"), if *.count == 1 { "it" } else { "them" })]
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
    /// A column of the wrong type or layout (Python: `ParameterError`, a
    /// `ConfigError` that is also a `TypeError`).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_singular_for_one_and_plural_otherwise() {
        assert_eq!(counted(1, "tuple"), "1 tuple");
        assert_eq!(counted(0, "tuple"), "0 tuples");
        assert_eq!(counted(2, "null value"), "2 null values");
        assert_eq!(counted(1_234_567, "value"), "1,234,567 values");
        assert_eq!(counted(100, "row"), "100 rows");
        let e = AnonError::NullValues {
            column: "age".into(),
            count: 1,
        };
        assert!(e.to_string().starts_with(
            "column 'age': 1 null value in a quasi-identifier; fill or drop it first"
        ));
        let e = AnonError::NullValues {
            column: "age".into(),
            count: 2,
        };
        assert!(e
            .to_string()
            .contains("2 null values in a quasi-identifier; fill or drop them"));
    }
}
