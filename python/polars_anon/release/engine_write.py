"""A release built on DuckDB written to a file and proven on it, as a
Polars release is (`Guarded.write`): the engine writes into a temporary
file beside the target, Polars reads the file back by a streaming group-by,
and only a file holding exactly the checked groups is moved into place."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from polars_anon import engines
from polars_anon._core import ConfigError
from polars_anon.release.guard import prove
from polars_anon.release.write import read_back, written_beside

# what an engine's release can be written as, by engine (Spark writes
# folders of parts, which its own writer makes: `result.apply()`)
WRITES = {"duckdb": ("parquet", "csv")}


def writable(engine: str, kind: str) -> None:
    """Refuse, before any work, a file kind (a format, or ``"parts"``) that
    a release on `engine` is not written as here."""
    formats = WRITES.get(engine, ())
    if kind not in formats:
        raise ConfigError(
            f"a release on {engine} is written to "
            + (f"a {' or '.join(formats)} file" if formats else "no file here")
            + f", not {'a folder of parts' if kind == 'parts' else kind}: "
            f"result.apply(data) gives it there, checked, to write with {engine}'s own writer"
        )


@dataclass
class OnEngine:
    """A checked release where the table lives (`released`: a DuckDB
    relation over its snapshot), with the groups it was checked to hold."""

    engine: str
    released: Any
    by: list[str]
    expected: pl.DataFrame
    count: str
    k: int

    def write(self, path: str | os.PathLike[str], fmt: str, separator: str = ",") -> Path:
        """The release written to `path` as `fmt` by the engine, proven on
        the file; on a mismatch, an error or an interruption nothing is
        left at the target."""
        writable(self.engine, fmt)
        engine = engines.module(self.engine)
        schema = engine.schema(self.released)

        def write(tmp: Path) -> None:
            engine.write(self.released, tmp, separator, fmt)
            written = read_back(tmp, fmt, separator, list(schema))
            prove(written, schema, self.by, self.expected, self.count, self.k)

        return written_beside(path, write)
