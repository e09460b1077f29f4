"""The identifiers' transformations as an engine applies them, resolved from
their `spec` at release time: the key read, the pseudonym table extended.
Each engine turns a list of ``(column, op)`` into its own plan: Polars in
`roles.polars`, DuckDB and Spark in their engine modules (``identify``).

A value is hashed or masked as text: the engine's cast of it to a string
(the same on every engine for strings, integers and dates)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.roles.spec import Drop, Mask, Pseudonym


@dataclass(frozen=True)
class Keyed:
    """HMAC-SHA-256 of the value's UTF-8 text under `key`, its first
    `length` lowercase hex digits; `source`, where the key was read."""

    key: bytes = field(repr=False)
    length: int
    source: Pseudonym | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        return f"Keyed(key=<hidden>, length={self.length})"

    def __reduce__(self) -> Any:
        # a release plan holds this op in its hashing function: its pickle
        # (or Polars' serialization of the plan) keeps where the key is read,
        # never the key; a key given in code refuses (Pseudonym.__reduce__)
        if self.source is None:
            raise ConfigError(
                "a keyed pseudonym is pickled as where its key is read: give the key as "
                "Pseudonym(key_env=...) or Pseudonym(key_file=...)"
            )
        return (_keyed, (self.source, self.length))


def _keyed(source: Pseudonym, length: int) -> Keyed:
    return Keyed(source.key(), length, source)


@dataclass(frozen=True)
class Mapped:
    """The value (as text) looked up in `mapping` (columns ``value`` and
    ``pseudonym``, both text, every value of the column listed)."""

    mapping: pl.DataFrame


Op: TypeAlias = "Drop | Mask | Keyed | Mapped"
