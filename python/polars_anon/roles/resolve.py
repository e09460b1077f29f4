"""The roles of a table about to be released: checked against its columns,
the undeclared ones put to the rule (`roles.undeclared`), and each
identifier's transformation resolved for the engine (the key read, the
pseudonym table extended by the table's values)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import polars as pl

from polars_anon import engines
from polars_anon._core import AnonError
from polars_anon.release.guard import unreadable
from polars_anon.release.quiet import quiet_panics
from polars_anon.roles import table, undeclared
from polars_anon.roles.masked import identifying_masks, refuse_identifying_masks
from polars_anon.roles.ops import Keyed, Mapped, Op
from polars_anon.roles.spec import Drop, Mask, Pseudonym, Roles
from polars_anon.roles.undeclared import Counted

# Arrow's plain strings (not views): a copy holds only its rows' bytes
OLDEST = pl.CompatLevel.oldest()


@dataclass(frozen=True)
class Resolved:
    """What a release does with the columns that are neither
    quasi-identifiers nor sensitive."""

    columns: list[str]
    ops: list[tuple[str, Op]] = field(default_factory=list)
    # undeclared columns passed through, with their distinct values and
    # the rows that hold one
    undeclared: dict[str, Counted] = field(default_factory=dict)
    # masked identifiers a release would refuse (`roles.masked`), counted
    # for a check's report
    masks_refused: dict[str, Counted] = field(default_factory=dict)


def columns_of(data: Any, engine: str) -> list[str]:
    if engine == "polars":
        return data.lazy().collect_schema().names()  # type: ignore[no-any-return]
    return engines.schema(data, engine).names()


def undeclared_of(
    roles: Roles, columns: list[str], quasi_identifiers: list[str], sensitive: list[str]
) -> list[str]:
    known = {*quasi_identifiers, *sensitive, *roles.identifiers, *roles.insensitive}
    return [c for c in columns if c not in known]


def resolve(
    data: Any,
    engine: str,
    rows: int,
    quasi_identifiers: list[str],
    sensitive: list[str],
    roles: Roles,
    refuse: bool = True,
) -> Resolved:
    """The roles of `data` (on `engine`, `rows` rows) checked and resolved;
    an undeclared identifying column, or a masked one that still identifies
    records (`roles.masked`), refused (or, with ``refuse=False``,
    only counted: a check reports it)."""
    columns = columns_of(data, engine)
    roles.validate(columns, quasi_identifiers, sensitive)
    rest = undeclared_of(roles, columns, quasi_identifiers, sensitive)
    with _read(data, engine):
        counts = undeclared.distinct_counts(data, engine, rest, rows)
        if not refuse:
            return Resolved(columns, [], counts, identifying_masks(data, engine, roles, rows))
        undeclared.refuse(undeclared.identifying(counts, rows), rows)
        refuse_identifying_masks(data, engine, roles, rows)
    # outside: a warning made an error by the caller's filter is theirs;
    # before the ops, which extend a pseudonym table by the release's values
    undeclared.warn_passed(counts, rows)
    with _read(data, engine):
        return Resolved(columns, _ops(data, engine, roles), counts)


@contextlib.contextmanager
def _read(data: Any, engine: str) -> Iterator[None]:
    """Reading `data`: our errors as they are, a source Polars cannot read
    as it was (it panics, a BaseException, on some sources changed since
    they were scanned, such as a Parquet file shorter than it was) as
    `unreadable`."""
    try:
        with quiet_panics():
            yield
    except AnonError:
        raise
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt | SystemExit | GeneratorExit):
            raise
        raise unreadable(e, data.lazy() if engine == "polars" else None) from None


def _distinct(data: Any, engine: str) -> Callable[[str], pl.Series]:
    def values(column: str) -> pl.Series:
        if engine != "polars":
            return engines.module(engine).distinct(data, column)  # type: ignore[no-any-return]
        frame: pl.DataFrame = (
            data.lazy()
            .select(pl.col(column).cast(pl.String).drop_nulls().unique())
            .collect(engine="streaming")
        )
        return frame.to_series()

    return values


def _ops(data: Any, engine: str, roles: Roles) -> list[tuple[str, Op]]:
    distinct = _distinct(data, engine)
    # columns sharing a pseudonym table share its pseudonyms: extended once
    tables: dict[Path, list[str]] = {}
    for c, t in roles.identifiers.items():
        if isinstance(t, Pseudonym) and t.table is not None:
            tables.setdefault(t.table.resolve(), []).append(c)
    mapped: dict[str, pl.DataFrame] = {}
    for path, cols in tables.items():
        length = max(p.length for c in cols if isinstance(p := roles.identifiers[c], Pseudonym))
        values = pl.concat([distinct(c) for c in cols])
        # the plan holds this release's values only: the table's others
        # (earlier releases') would travel with a pickled or serialized plan,
        # also as bytes of string buffers a filter still points into (an
        # Arrow copy of plain strings keeps the bytes its rows hold)
        mapping = table.extended(path, values, length)
        mine = mapping.filter(pl.col("value").is_in(values.cast(pl.String).implode()))
        mapping = cast(pl.DataFrame, pl.from_arrow(mine.to_arrow(compat_level=OLDEST)))
        mapped.update(dict.fromkeys(cols, mapping))
    ops: list[tuple[str, Op]] = []
    for c, t in roles.identifiers.items():
        if isinstance(t, Drop | Mask):
            ops.append((c, t))
        elif c in mapped:
            ops.append((c, Mapped(mapped[c])))
        else:
            ops.append((c, Keyed(t.key(), t.length, t)))
    return ops
