"""A table that Polars reads (a DataFrame, a LazyFrame, a scan): F0 by one
streaming group-by. The release is a lazy plan over the table itself
(`polars_anon.release`), written here."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, Literal

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.engines.csv_blank import (
    copy_without_blank_lines,
    inner_blank_lines,
    spool,
    trailing_blank_lines,
    without_blank_lines,
    without_trailing_blank_lines,
)
from polars_anon.inputs.frames import by_position
from polars_anon.release.buffers import IPC_LEVEL
from polars_anon.release.quiet import sources
from polars_anon.release.write import format_of


def group_strings(
    lazy: pl.LazyFrame, columns: list[str], count: str, weight: str | None = None
) -> pl.DataFrame:
    """F0 by Polars: the distinct raw values of `columns` and their counts (no
    per-row casts, so the scan stays lean and streaming), then the distinct
    values as strings; should two ever coincide, the core merges their rows
    when it groups the codes. Floats are made strings first: Polars groups
    -0.0 with 0.0, whose strings (what the core and the release's checks
    read) differ. `weight`: a column of `lazy` counting each row's records
    (a frequency set's), summed, where each row is otherwise one."""
    schema = lazy.collect_schema()
    size = pl.len() if weight is None else pl.col(weight).sum()
    return (
        lazy.select(
            *(pl.col(c).cast(pl.String) if schema[c].is_float() else pl.col(c) for c in columns),
            *([] if weight is None else [pl.col(weight)]),
        )
        .group_by(columns)
        .agg(size.cast(pl.UInt64).alias(count))
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
        frame.write_ipc(path, compat_level=IPC_LEVEL)
    else:
        frame.write_csv(path, separator=separator)
    return frame.height


def read(
    path: Path, separator: str, encoding: str, numbers: Collection[str] | None = None
) -> pl.LazyFrame:
    """A CSV (with its separator and encoding), a Parquet file or a folder
    of Parquet parts, lazily. A CSV's columns are typed by `numbers_checked`
    (`numbers`: the columns that may be read as numbers, None for all);
    its blank lines are no records (`engines.csv_blank`)."""
    if path.is_dir():
        return pl.scan_parquet(path / "*.parquet")
    if path.suffix.lower() == ".parquet":
        return pl.scan_parquet(path)
    if path.is_file() and path.stat().st_size == 0:
        raise ConfigError(f"cannot read {str(path)!r}: the file is empty")
    plain = encoding.lower().replace("-", "").replace("_", "")
    if plain in ("utf8", "utf8lossy"):
        lossy: Literal["utf8", "utf8-lossy"] = "utf8-lossy" if plain == "utf8lossy" else "utf8"

        def scan(**kw: Any) -> pl.LazyFrame:
            return pl.scan_csv(path, separator=separator, encoding=lossy, **kw)

        single = len(scan(infer_schema=False).collect_schema()) == 1
        if not single and inner_blank_lines(path):
            # a rare file: read from a copy without them, as a scan cannot
            # skip them
            copy = copy_without_blank_lines(path)
            return numbers_checked(
                lambda **kw: pl.scan_csv(copy, separator=separator, encoding=lossy, **kw),
                numbers,
                str(path),
            )
        blank = trailing_blank_lines(path)
        if blank and blank_lines_are_records(separator, single):
            # the reader's records of them are its last: read up to them
            rows = scan(infer_schema=False).select(pl.len()).collect().item()
            return numbers_checked(lambda **kw: scan(n_rows=rows - blank, **kw), numbers)
        return numbers_checked(scan, numbers)
    try:
        text = path.read_bytes().decode(encoding)
    except LookupError:
        raise ConfigError(f"unknown encoding {encoding!r}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path} is not {encoding}: {e}") from None
    return from_bytes(text.encode(), separator, numbers, str(path))


def from_bytes(
    data: bytes, separator: str, numbers: Collection[str] | None, name: str | None = None
) -> pl.LazyFrame:
    """A CSV's bytes (UTF-8), read from a copy in this process's temporary
    folder, its blank lines no records (`engines.csv_blank`): those ending
    it cut, and in a file of two columns or more those between its records
    too."""
    header = pl.read_csv(data, separator=separator, n_rows=0, infer_schema=False)
    if header.width > 1:
        data = without_blank_lines(data)
    else:
        data = without_trailing_blank_lines(data)
    copy = spool("table.csv")
    copy.write_bytes(data)
    return numbers_checked(lambda **kw: pl.scan_csv(copy, separator=separator, **kw), numbers, name)


@functools.cache
def blank_lines_are_records(separator: str, single: bool) -> bool:
    """Whether Polars reads a blank line at the end of a CSV (of one column,
    `single`, or more) as a record: then `read` reads up to it. Asked of
    the reader, not assumed: were it to skip them, cutting as many records
    off would drop real ones."""
    head = "a\n1\n\n" if single else f"a{separator}b\n1{separator}2\n\n"
    return pl.read_csv(head.encode(), separator=separator, infer_schema=False).height == 2


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


def numbers_checked(
    scan: Callable[..., pl.LazyFrame],
    numbers: Collection[str] | None = None,
    name: str | None = None,
) -> pl.LazyFrame:
    """A CSV read by `scan` (given Polars' reader options; `name`: the file
    its errors name, when `scan` reads a copy of it) with the types
    Polars infers from its first rows, except that a column of numbers stays
    text when any of its values is written with a leading zero (read as a
    number, ZIP code 01069 would be released as 1069) or is not a number of
    that type at all (a text far down the file, which the reader would fail
    on). One more pass over those columns' text.

    With `numbers`, only those columns may be numbers (the rest is read as
    the text it is in the file, released byte for byte: no 1.50 made 1.5,
    TRUE true, 5 5.0); None: any column."""
    lazy = scan()
    schema = lazy.collect_schema()
    wanted = set(schema.names() if numbers is None else numbers)
    candidates = {c: t for c, t in schema.items() if t.is_numeric() and c in wanted}
    # with `numbers`, every other column as its text (a Boolean, TRUE, too)
    kept = [] if numbers is None else [c for c in schema.names() if c not in candidates]
    at = by_position(schema)
    texts = scan(infer_schema=False).select(
        *(
            (at[c].str.contains(LEADING_ZERO) | (at[c].is_not_null() & ~is_number(at[c], t)))
            .any()
            .alias(f"number {i}")
            for i, (c, t) in enumerate(candidates.items())
        ),
        # every column read: Polars refuses a record of more fields than
        # the header only when it reads them all, and a plan that reads
        # fewer (an identifier dropped) cuts the record's last value short
        *(
            e.null_count().alias(f"read {i}")
            for i, (c, e) in enumerate(at.items())
            if c not in candidates
        ),
    )
    try:
        found = texts.collect(engine="streaming").row(0)
    except pl.exceptions.ComputeError as e:
        which = name or ", ".join(sources(lazy)) or "the CSV"
        if "more fields" in str(e):
            raise ConfigError(
                f"{which}: a record holds more fields than the header's {len(schema)} "
                "columns (a separator inside a value that is not quoted, or one ending the "
                "line?): quote such values, or give the separator the file uses"
            ) from None
        if "utf-8" in str(e):
            raise ConfigError(
                f"{which} is not UTF-8 (invalid utf-8 sequence): give its encoding with "
                "--encoding (latin-1, cp1252, ...), or as encoding under [input] in a job file"
            ) from None
        if "malformed" not in str(e):
            raise
        first = str(e).splitlines()[0][:200]
        raise ConfigError(f"{which}: the CSV reader refused it: {first}") from None
    kept += [c for c, text in zip(candidates, found, strict=False) if text]
    return scan(schema_overrides=dict.fromkeys(kept, pl.String)) if kept else lazy
