"""A job as TOML: read with the standard library's ``tomllib``, written by
``tomli_w`` (a maintained writer: strings, keys and paths are escaped as TOML
asks, whatever quotes, backslashes, newlines or non-ASCII text they hold)."""

from __future__ import annotations

import sys
from typing import Any

import tomli_w

from polars_anon._core import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the tests run 3.11
    import tomli as tomllib

__all__ = ["dumps", "tomllib"]


def _without_none(v: Any) -> Any:
    """TOML has no null: a value left unset is not written."""
    if isinstance(v, dict):
        return {k: _without_none(x) for k, x in v.items() if x is not None}
    if isinstance(v, (list, tuple)):
        return [_without_none(x) for x in v]
    return v


def dumps(doc: dict[str, Any]) -> str:
    """TOML for a job (its tables, with the hierarchies' sub-tables)."""
    try:
        return tomli_w.dumps(_without_none(doc))
    except TypeError as e:
        raise ConfigError(f"cannot write the job to TOML: {e}") from None
