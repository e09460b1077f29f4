"""A table that Polars reads (a DataFrame, a LazyFrame, a scan): F0 by one
streaming group-by. The release is a lazy plan over the table itself
(`polars_anon.release`), written here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.release.write import format_of


def group_strings(lazy: pl.LazyFrame, columns: list[str], count: str) -> pl.DataFrame:
    """F0 by Polars: the distinct raw values of `columns` and their counts (no
    per-row casts, so the scan stays lean and streaming), then the distinct
    values as strings; should two ever coincide, the core merges their rows
    when it groups the codes. Floats are made strings first: Polars groups
    -0.0 with 0.0, whose strings (what the core and the release's checks
    read) differ."""
    schema = lazy.collect_schema()
    return (
        lazy.select(
            pl.col(c).cast(pl.String) if schema[c].is_float() else pl.col(c) for c in columns
        )
        .group_by(columns)
        .agg(pl.len().cast(pl.UInt64).alias(count))
        .collect(engine="streaming")
        .with_columns([pl.col(c).cast(pl.String) for c in columns])
    )


def write(release: pl.LazyFrame | pl.DataFrame, path: Path, separator: str) -> int:
    """The release in the format `path`'s suffix names (`release.write.SUFFIXES`);
    its rows."""
    fmt = format_of(path, folders=False)
    frame = release.collect() if isinstance(release, pl.LazyFrame) else release
    if fmt == "parquet":
        frame.write_parquet(path)
    elif fmt == "ipc":
        frame.write_ipc(path)
    else:
        frame.write_csv(path, separator=separator)
    return frame.height


def read(path: Path, separator: str, encoding: str) -> pl.LazyFrame:
    """A CSV (with its separator and encoding), a Parquet file or a folder
    of Parquet parts, lazily."""
    if path.is_dir():
        return pl.scan_parquet(path / "*.parquet")
    if path.suffix.lower() == ".parquet":
        return pl.scan_parquet(path)
    if path.is_file() and path.stat().st_size == 0:
        raise ConfigError(f"cannot read {str(path)!r}: the file is empty")
    plain = encoding.lower().replace("-", "").replace("_", "")
    if plain in ("utf8", "utf8lossy"):
        lossy: Literal["utf8", "utf8-lossy"] = "utf8-lossy" if plain == "utf8lossy" else "utf8"
        return numbers_checked(
            lambda **kw: pl.scan_csv(path, separator=separator, encoding=lossy, **kw)
        )
    try:
        text = path.read_bytes().decode(encoding)
    except LookupError:
        raise ConfigError(f"unknown encoding {encoding!r}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path} is not {encoding}: {e}") from None
    return numbers_checked(
        lambda **kw: pl.read_csv(text.encode(), separator=separator, **kw).lazy()
    )


# a number written with a leading zero (a ZIP code, 01069; a code, -007)
LEADING_ZERO = r"^\s*[+-]?0[0-9]"
# an integer as a CSV writes it: a cast would take 3.5 or 1e3 too (DuckDB
# rounds 3.5 to 4), so both engines read integers by this text
INTEGER = r"^[+-]?[0-9]+$"


def is_number(text: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """Whether `text` writes a number of `dtype` (an integer by `INTEGER`)."""
    if dtype.is_integer():
        return text.str.contains(INTEGER)
    return text.cast(dtype, strict=False).is_not_null()


def numbers_checked(scan: Callable[..., pl.LazyFrame]) -> pl.LazyFrame:
    """A CSV read by `scan` (given Polars' reader options) with the types
    Polars infers from its first rows, except that a column of numbers stays
    text when any of its values is written with a leading zero (read as a
    number, ZIP code 01069 would be released as 1069) or is not a number of
    that type at all (a text far down the file, which the reader would fail
    on). One more pass over those columns' text."""
    lazy = scan()
    numbers = {c: t for c, t in lazy.collect_schema().items() if t.is_numeric()}
    if not numbers:
        return lazy
    texts = scan(infer_schema=False).select(
        (
            pl.col(c).str.contains(LEADING_ZERO)
            | (pl.col(c).is_not_null() & ~is_number(pl.col(c), t))
        ).any()
        for c, t in numbers.items()
    )
    found = texts.collect(engine="streaming").row(0)
    kept = [c for c, text in zip(numbers, found, strict=True) if text]
    return scan(schema_overrides=dict.fromkeys(kept, pl.String)) if kept else lazy
