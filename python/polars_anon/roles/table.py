"""Pseudonym tables: random pseudonyms kept in a file for the data owner
(columns ``value`` and ``pseudonym``, text), apart from the release. A
release reads the table, adds a fresh pseudonym for each value it has not
seen, and writes it back whole (beside it first, then renamed into place)
before the release is built; a value keeps its pseudonym for good."""

from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.reports.render import names_text


def read(path: Path) -> pl.DataFrame:
    """The table at `path` (empty when there is none yet), checked."""
    if not path.exists():
        return pl.DataFrame(schema={"value": pl.String, "pseudonym": pl.String})
    try:
        frame = (
            pl.read_parquet(path)
            if path.suffix.lower() == ".parquet"
            else pl.read_csv(path, schema_overrides={"value": pl.String, "pseudonym": pl.String})
        )
    except (OSError, pl.exceptions.PolarsError) as e:
        raise ConfigError(f"cannot read the pseudonym table {str(path)!r}: {e}") from None
    if frame.columns != ["value", "pseudonym"]:
        raise ConfigError(
            f"the pseudonym table {str(path)!r} has columns {names_text(frame.columns)}, "
            "expected value, pseudonym"
        )
    frame = frame.with_columns(pl.all().cast(pl.String))
    for c in frame.columns:
        if frame.get_column(c).null_count() or frame.get_column(c).is_duplicated().any():
            raise ConfigError(
                f"the pseudonym table {str(path)!r} has a null or repeated {c}: "
                "each value has one pseudonym, each pseudonym one value"
            )
    return frame


def _fresh(n: int, length: int, taken: pl.Series) -> pl.Series:
    """`n` random pseudonyms of `length` hex digits, distinct from each
    other and from `taken`."""
    out = pl.Series("pseudonym", [], dtype=pl.String)
    while out.len() < n:
        need = n - out.len()
        width = (length + 1) // 2
        blob = secrets.token_bytes(need * width)
        drawn = (
            pl.Series([blob[i * width : (i + 1) * width] for i in range(need)], dtype=pl.Binary)
            .bin.encode("hex")
            .str.slice(0, length)
        )
        out = pl.concat([out, drawn.alias("pseudonym")]).unique(maintain_order=True)
        out = out.filter(~out.is_in(taken.implode()))
    return out


def extended(path: Path, values: pl.Series, length: int) -> pl.DataFrame:
    """The table at `path` with a pseudonym for every value of `values`
    (text, nulls ignored), written back when it grew."""
    table = read(path)
    new = values.drop_nulls().cast(pl.String).unique(maintain_order=True)
    new = new.filter(~new.is_in(table.get_column("value").implode()))
    if new.is_empty():
        return table
    if 16**length < 4 * (table.height + new.len()):
        raise ConfigError(
            f"pseudonyms of {length} hex digits are too few for {table.height + new.len()} "
            f"values in {str(path)!r}: give a larger Pseudonym(length=...)"
        )
    added = pl.DataFrame(
        {"value": new, "pseudonym": _fresh(new.len(), length, table.get_column("pseudonym"))}
    )
    table = pl.concat([table, added])
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        if path.suffix.lower() == ".parquet":
            table.write_parquet(tmp)
        else:
            table.write_csv(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return table
