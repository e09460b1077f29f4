//! Which engine runs a rollup: the Polars plans or the native kernel.

use std::sync::Arc;

use super::{Layout, Problem};
use crate::error::{AnonError, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Engine {
    #[default]
    Auto,
    Polars,
    Native,
}

impl std::str::FromStr for Engine {
    type Err = AnonError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Engine::Auto),
            "polars" => Ok(Engine::Polars),
            "native" => Ok(Engine::Native),
            _ => Err(AnonError::Config(format!(
                "unknown engine {s:?}; expected one of \"auto\", \"polars\", \"native\""
            ))),
        }
    }
}

impl Problem {
    /// The one place that picks the engine: the packed layout when the native
    /// kernel runs (`Auto` takes it whenever the codes pack into 63 bits),
    /// `None` for Polars plans. `Native` on codes that do not pack is an error.
    pub(crate) fn native_layout(&self, engine: Engine) -> Result<Option<&Arc<Layout>>> {
        match (engine, &self.layout) {
            (Engine::Polars, _) => Ok(None),
            (_, Some(layout)) => Ok(Some(layout)),
            (Engine::Native, None) => Err(AnonError::Config(
                "the codes of these hierarchies do not pack into 63 bits; use engine=\"polars\""
                    .into(),
            )),
            (Engine::Auto, None) => Ok(None),
        }
    }

    /// Without a packed layout, `Auto` still runs the native kernel for each
    /// rollup whose target's codes pack (`wide.rs`); `Polars` never does.
    pub(crate) fn wide(&self, engine: Engine) -> bool {
        engine == Engine::Auto && self.layout.is_none()
    }
}
