"""A job's tables: read (CSV or Parquet, with Polars, DuckDB or Spark) and
written (a release, wherever it was built), and the checksums a resolved
job records of both."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from polars_anon import engines
from polars_anon._core import ConfigError


def sha256(path: Path) -> str:
    """Of a file, or of a folder's files in name order (Spark writes parts)."""
    h = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        with file.open("rb") as f:
            for block in iter(lambda f=f: f.read(1 << 20), b""):  # type: ignore[misc]
                h.update(block)
    return h.hexdigest()


# files that are not tables the jobs and the command line can read
NOT_TABLES = (".json", ".jsonl", ".ndjson", ".xlsx", ".xls", ".ods", ".toml", ".zip", ".gz")


def read_table(
    path: Path, separator: str = ",", encoding: str = "utf8", engine: str = "polars"
) -> Any:
    """A CSV (with its separator and encoding) or Parquet file: lazily with
    Polars, or as a DuckDB relation or Spark DataFrame (``engine``), so the
    table is read and grouped where that engine runs (the engine's ``read``)."""
    if not path.exists():
        raise ConfigError(f"cannot read {path}: no such file")
    if path.is_dir() and not any(path.glob("*.parquet")):
        raise ConfigError(
            f"cannot read {path}: a folder is read as Parquet parts (*.parquet), "
            "and this one holds none"
        )
    if path.is_file() and path.suffix.lower() in NOT_TABLES:
        raise ConfigError(
            f"cannot read {path}: a table is a CSV or Parquet file (or a folder of Parquet "
            f"parts), not {path.suffix}; read it with Polars and pass the DataFrame "
            "(pa.search, pa.generalize) instead"
        )
    readers = [e for e in engines.ENGINES if e != "counts"]
    if engine not in readers:
        raise ConfigError(
            f"unknown engine {engine!r}; expected {', '.join(readers[:-1])} or {readers[-1]}"
        )
    return engines.module(engine).read(path, separator, encoding)


def write_table(release: Any, path: Path, separator: str = ",") -> int:
    """Write a release as Parquet or CSV where it was built (the engine's
    ``write``: Polars, a DuckDB relation, a Spark DataFrame, which writes a
    folder of parts); its rows."""
    where = engines.engine_of(release)
    return engines.module(where).write(release, path, separator)  # type: ignore[no-any-return]
