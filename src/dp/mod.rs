//! (epsilon, delta)-differential privacy by SafePub: the keyed randomness
//! that samples the table and drives the exponential mechanism
//! ([`keystream`]), and the score functions the mechanism weighs nodes by
//! ([`scores`]). The search itself, the parameters and the mechanism are
//! small and live on the Python side (`python/polars_anon/dp/`).

pub mod keystream;
pub mod scores;

pub use keystream::{Keystream, MECHANISM, SAMPLE};
pub use scores::{score_nodes, Score};
