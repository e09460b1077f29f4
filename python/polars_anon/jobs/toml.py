"""A job as TOML: read with the standard library's ``tomllib``, written by
`dumps` (top-level tables of scalars, lists and inline tables, and the
hierarchies' sub-tables: all a job holds)."""

from __future__ import annotations

import json
import sys
from typing import Any

from polars_anon._core import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the tests run 3.11
    import tomli as tomllib

__all__ = ["dumps", "tomllib"]


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return (
            "{ "
            + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items() if x is not None)
            + " }"
        )
    raise ConfigError(f"cannot write {v!r} to a job file")


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else json.dumps(k)


def dumps(doc: dict[str, Any]) -> str:
    """TOML for a job: top-level tables of scalars, lists and inline tables,
    and the hierarchies' sub-tables."""
    lines: list[str] = []
    for name, table in doc.items():
        if name == "hierarchies":
            for col, h in table.items():
                lines += ["", f"[hierarchies.{_key(col)}]"]
                lines += [f"{_key(k)} = {_value(v)}" for k, v in h.items() if v is not None]
            continue
        lines += ["", f"[{name}]"]
        lines += [f"{_key(k)} = {_value(v)}" for k, v in table.items() if v is not None]
    return "\n".join(lines).lstrip("\n") + "\n"
