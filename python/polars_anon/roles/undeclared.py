"""The rule for a column with no role, stated in the README: it is passed
through, unless it would identify records on its own, which is taken to
mean that its distinct values number more than half the rows that hold a
value (nulls aside: an e-mail address given by half the patients names
each of them), in a table of at least `MIN_ROWS` rows. Such a column (a
name, a record number, an e-mail address) is refused until it is declared:
an identifier (dropped, pseudonymized or masked) or insensitive (released
as it is). Counted exactly up to `EXACT_ROWS` rows, on every engine (an
estimate near half the rows decided otherwise on DuckDB than on Polars),
above that estimated in one pass (HyperLogLog), and refused from
`ESTIMATE_LOW` of the share: an estimate may read low."""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Any

import polars as pl

from polars_anon import engines
from polars_anon._core import ConfigError, NotAnonymousError
from polars_anon.exceptions import UndeclaredColumnsWarning
from polars_anon.inputs.frames import by_position
from polars_anon.reports.render import names_text, plural

MIN_ROWS = 20
SHARE = 0.5
EXACT_ROWS = 1_000_000
# Above EXACT_ROWS a release's count is an estimate of other rows (a subset,
# hashed as text where the table's was an Enum's codes), which read 8% higher
# than the one taken when the release was made, of an unchanged source (each
# within about 12% of the count): the rule is put again only to counts this
# much over that one. A source changed from 45% to 54% distinct passes; the
# rule is a safety net, estimated there when made too.
ESTIMATE_SLACK = 1.2
# Above EXACT_ROWS an estimate is taken to identify from this share of the
# rule's bound: Polars' estimate read 2% low (561,000 distinct values of
# 1.1M rows counted 550,000), Spark's is within about 5%.
ESTIMATE_LOW = 0.9

# (distinct values, rows that hold a value) of a column
Counted = tuple[int, int]


def distinct_counts(data: Any, engine: str, columns: list[str], rows: int) -> dict[str, Counted]:
    """Each column's distinct non-null values and non-null rows."""
    if not columns:
        return {}
    exact = rows <= EXACT_ROWS
    if engine != "polars":
        module = engines.module(engine)
        return module.distinct_counts(data, columns, exact)[1]  # type: ignore[no-any-return]
    lazy = data.lazy()
    at = by_position(lazy.collect_schema())

    def count(c: str) -> pl.Expr:
        values = at[c].drop_nulls()
        return values.n_unique() if exact else values.approx_n_unique()

    counts = [count(c).alias(f"count {i}") for i, c in enumerate(columns)]
    held = [at[c].count().alias(f"held {i}") for i, c in enumerate(columns)]
    row = lazy.select(*counts, *held).collect(engine="streaming").row(0)
    n = len(columns)
    return {c: (int(row[i]), int(row[n + i])) for i, c in enumerate(columns)}


def identifying(counts: dict[str, Counted], rows: int) -> dict[str, Counted]:
    """The columns (with their counts) that the rule refuses."""
    if rows < MIN_ROWS:
        return {}
    share = SHARE * (1.0 if rows <= EXACT_ROWS else ESTIMATE_LOW)
    return {c: (n, held) for c, (n, held) in counts.items() if n > share * held}


def described(n: int, held: int, rows: int) -> str:
    """A column's count as a reader reads it: an estimate (above
    `EXACT_ROWS`) said so and kept within the rows that hold a value."""
    if held == 0:
        return "no value: null in every row"
    shown = n if rows <= EXACT_ROWS else min(n, held)
    values = f"{'' if rows <= EXACT_ROWS else 'about '}{shown:,} distinct value"
    values += "" if shown == 1 else "s"
    return values + (f" in the {held:,} rows that hold one" if held < rows else "")


def refuse(found: dict[str, Counted], rows: int) -> None:
    """One error naming every refused column and the ways out."""
    if not found:
        return
    names = list(found)
    listed = ", ".join(f"{c!r} ({described(n, h, rows)})" for c, (n, h) in found.items())
    one = len(names) == 1
    their, have, them = ("its", "has", "it") if one else ("their", "have", "them")
    raise ConfigError(
        f"{plural('column', names)} {listed} of this {rows:,}-row table would identify records "
        f"on {their} own, and {have} no role. Declare {them}: identifiers="
        f"{names!r} to drop {them} (or identifiers={{{names[0]!r}: pa.Pseudonym(key_env=...)}} "
        f"or pa.Mask(...) to transform {them}), or insensitive={names!r} to release {them} "
        "unchanged"
    )


def warn_passed(counts: dict[str, Counted], rows: int) -> None:
    """A release about to pass the columns of `counts` (none refused)
    through unchanged says so as a warning, shown where the caller's code
    called the library (once per set of columns, by Python's default
    filter): the report's column list is read by few, and the rule lets an
    identifier repeated over rows through."""
    if not counts:
        return
    listed = "; ".join(
        f"{names_text([c])} ({described(n, h, rows)})" for c, (n, h) in counts.items()
    )
    names = list(counts)
    one = len(names) == 1
    them, they, are = ("it", "it", "is") if one else ("them", "they", "are")
    said = UndeclaredColumnsWarning(
        f"{plural('column', names)} with no role released unchanged: {listed}. The rule for "
        "such columns refuses only one with more distinct values than half the rows that hold "
        "one: an identifier repeated on several rows (a record number on each visit) passes "
        f"it. Declare {them}: insensitive={names!r} to release {them} as {they} {are} (which "
        f"silences this), or identifiers={names!r} to drop {them}",
        tuple(names),
    )
    warnings.warn(said, stacklevel=_callers_level())


def _callers_level() -> int:
    """The stack level of the first frame outside this package: the
    user's line, which the warning names."""
    package = str(Path(__file__).resolve().parents[1]) + os.sep
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1  # type: ignore[assignment]
    return level


def recheck(released: pl.LazyFrame, counted: dict[str, Any], rows: int) -> None:
    """The rule again on the rows a release gives: every column it passed
    when the release was made (`counted`: its counts then, in a table of
    `rows` rows) must pass it still. The released rows are some of those,
    so only a source changed since can fail it (a column that now names
    each record); the groups' check does not see such a column. `released`
    holds the values as the release does (a file's text read back as them:
    `guard.typed`)."""
    if rows < MIN_ROWS or not counted:
        return
    # (a pickle of before the rows that hold a value were counted: its
    # distinct values alone)
    then = {c: v if isinstance(v, int) else v[0] for c, v in counted.items()}
    now = distinct_counts(released, "polars", list(counted), rows)
    slack = 1.0 if rows <= EXACT_ROWS else ESTIMATE_SLACK
    grown = {c: v for c, v in identifying(now, rows).items() if v[0] > slack * then[c]}
    if grown:
        listed = ", ".join(
            f"{c!r} ({described(n, h, rows)}, {then[c]:,} then)" for c, (n, h) in grown.items()
        )
        raise NotAnonymousError(
            f"{plural('column', list(grown))} {listed} with no role would now identify "
            "records: the source changed since this release was checked on its "
            f"{rows:,} rows; refusing to release it. "
            "Generalize the current data again."
        )
