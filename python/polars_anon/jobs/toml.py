"""A job as TOML: read with the standard library's ``tomllib``, written by
``tomli_w`` (a maintained writer: strings, keys and paths are escaped as TOML
asks, whatever quotes, backslashes, newlines or non-ASCII text they hold)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import tomli_w

from polars_anon._core import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the tests run 3.11
    import tomli as tomllib

__all__ = ["dumps", "read", "tomllib"]


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


def read(path: Path) -> dict[str, Any]:
    """A job file's TOML, parsed; what keeps it from being read, one error
    naming the file."""
    try:
        return tomllib.loads(path.read_text(encoding="utf8"))
    except FileNotFoundError:
        raise ConfigError(f"cannot read job file {str(path)!r}: no such file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"job file {str(path)!r} is not UTF-8 text") from None
    except OSError as e:
        raise ConfigError(f"cannot read job file {str(path)!r}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"job file {str(path)!r} is not valid TOML: {e}") from None
