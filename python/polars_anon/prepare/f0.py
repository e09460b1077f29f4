"""Step 2: F0 from the raw quasi-identifiers (and sensitive attributes),
in one scan of the table wherever it lives, and the core problem over it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_anon import engines
from polars_anon._core import ConfigError, Hierarchy
from polars_anon.inputs.frames import (
    SIGNED,
    as_frame,
    check_groupable,
    fresh_name,
    misread,
    one_zero,
    unknown_columns,
)
from polars_anon.inputs.hierarchies import (
    Hierarchies,
    check_names,
    check_zeros,
    own_values,
    resolve_hierarchies,
)
from polars_anon.inputs.nulls import NULLS, Nulls, no_nulls, null_as_value
from polars_anon.inputs.params import columns_of
from polars_anon.prepare.batches import in_batches
from polars_anon.prepare.encode import encode_values, hinted
from polars_anon.prepare.prepared import COUNT, Prepared

# A DataFrame's rows cross to the core, whatever its size: they are in
# memory already, and the core encodes and groups them at 7-12 ns a value
# from 10,000 to 10,000,000 rows, where grouping the strings in Polars first
# cost twice that (bench/f0_curve.json). A LazyFrame of at most this many rows
# is read and goes the same way; a larger one is read in batches, each
# encoded and grouped by the core into one F0 (`prepare.batches`), since its
# rows need not fit in memory. A LazyFrame is asked for one row more than
# this first.
ROWS_IN_CORE = 100_000


def prepare(
    data: Any,
    quasi_identifiers: Sequence[str],
    hierarchies: Hierarchies | None,
    sensitive: Sequence[str] = (),
    nulls: Nulls = "error",
    engine: str = "auto",
    floors_for: tuple[Any, Any] | None = None,
    floored_at: tuple[list[int], int, int] | None = None,
) -> Prepared:
    """F0 from the raw quasi-identifiers (and sensitive attributes): a
    DataFrame, or a LazyFrame of up to ``ROWS_IN_CORE`` rows (read as it
    is), crosses to the core row by row and is encoded and grouped there in
    one pass; a larger LazyFrame is read once in batches, which the core
    encodes and groups into one F0 (`prepare.batches`);
    a DuckDB relation or Spark DataFrame is grouped where it lives, and a
    `FrequencySet` is F0 already (see `polars_anon.engines`).

    `floors_for` (k, max_suppression): for a search on DuckDB or Spark, F0
    grouped at each attribute's lowest useful level for that model (see
    `prepare.floors`): smaller, and only nodes at or above those levels answerable.
    `floored_at` (levels, k, suppressed tuples): a frequency set that was
    grouped so already (a pickled result's)."""
    if not isinstance(nulls, str) or nulls not in NULLS:
        raise ConfigError(f"nulls must be one of {NULLS}, got {nulls!r}")
    qis = columns_of(quasi_identifiers, sensitive)
    where = engines.engine_of(data, engine)
    if floored_at is not None and where not in (*engines.PREFIXES, "counts"):
        raise ConfigError("only a table on DuckDB or Spark, or its frequency set, has floors")
    frame: pl.DataFrame | None = None
    sens = list(sensitive)
    if where == "polars":
        frame = None if isinstance(data, pl.LazyFrame) else as_frame(data)
        lazy = data if frame is None else frame.lazy()
        # a frame's own schema: a plan's is a query of its own
        schema = lazy.collect_schema() if frame is None else frame.schema
        zeros = [c for c in qis + sens if c in schema and schema[c].is_float()]
        if zeros:
            # -0.0 and 0.0 are one number: one value of a quasi-identifier
            # (of a group's key) and one sensitive value (a group of both is
            # not 2-diverse); Polars' text tells them apart. Every path from
            # here (F0, the batches, the release, its check) reads this plan,
            # which makes each -0.0 a 0.0, as DuckDB and Spark do.
            one = [one_zero(s, schema[s]) for s in zeros]
            frame = None if frame is None else frame.with_columns(one)
            lazy = lazy.with_columns(one) if frame is None else frame.lazy()
    else:
        schema = engines.schema(data, where)
    unknown = [q for q in qis + sens if q not in schema]
    if unknown:
        raise ConfigError(unknown_columns(unknown, schema.names()) + misread(schema.names()))
    check_groupable(schema, qis + sens, qis)
    hs_by_col = resolve_hierarchies(hierarchies, qis)
    check_names(hs_by_col, qis, schema.names())
    check_zeros(hs_by_col, [q for q in qis if schema[q].is_float()])
    count = fresh_name(COUNT, schema.names())
    grouped: pl.DataFrame | None = None
    native: pl.DataFrame | None = None
    held: pl.DataFrame | None = None
    floored = None
    if where == "polars" and frame is None:
        # a small LazyFrame's rows are read as they are (a CSV's whole table
        # costs less to read than Polars' group-by of its rows); a large one's
        # first rows only, then it is read in batches. Streaming
        # here too: the plan before the rows may be large (a join, a filter
        # over a big file), and the engine stops once it has the rows.
        head = lazy.select(qis + sens).head(ROWS_IN_CORE + 1).collect(engine="streaming")
        if head.height <= ROWS_IN_CORE:
            frame = head
        else:
            return in_batches(lazy, schema, qis, sens, hs_by_col, nulls, count)
    if floors_for is not None and where in engines.PREFIXES:
        # imported here: only a table on DuckDB or Spark has floors
        from polars_anon.prepare import floors

        floored = floors.find(data, where, qis, hs_by_col, nulls, count, *floors_for)
    if where != "polars":
        # F0 where the data lives: native values, brought back small
        maps = floored.maps if floored is not None else None
        native = engines.group(data, where, qis + sens, count, maps)
        if floored is not None:
            floored.check(native, count)
        lazy = native.lazy()
        grouped = native.with_columns([pl.col(c).cast(pl.String) for c in qis + sens])
        table = {c: grouped.get_column(c) for c in qis + sens}
        counts = grouped.get_column(count)
    else:
        # a Polars table read whole: every row as it is, each counting once:
        # the core encodes strings and (through a hierarchy) 8- to 64-bit
        # signed integers itself, and groups the codes; Polars casts other
        # types to strings first
        assert frame is not None

        def as_value(c: str) -> pl.Series:
            encoded_in_core = c in qis and c in hs_by_col
            # isinstance: a DataType's == is a Python call per comparison,
            # which over the columns cost 3% of preparing Adult
            native = isinstance(schema[c], pl.String) or (
                encoded_in_core and isinstance(schema[c], SIGNED)
            )
            column = frame.get_column(c)
            return column if native else column.cast(pl.String)

        table = {c: as_value(c) for c in qis + sens}
        counts = None
        # kept as it is (a selection of its columns is a query of its own:
        # 5% of preparing Adult)
        held = frame
    if not len(table[qis[0]]):
        raise ConfigError("the table is empty: it has no rows to anonymize, check or assess")
    hs: list[Hierarchy] = []
    codes: list[pl.Series | bytes] = []
    for q in qis:
        col = table[q]
        h = hs_by_col.get(q) if floored is None else floored.with_nulls.get(q, hs_by_col.get(q))
        if nulls == "value" and col.null_count():
            col, h = null_as_value(q, col, h)
        if h is None:
            no_nulls(col, counts, q, "a quasi-identifier")
            distinct = sorted(col.unique().to_list())
            h = own_values(q, distinct)
            codes.append(encode_values(col, distinct))
        else:
            # the core encodes the strings through the hierarchy (one pass, with
            # errors naming the column, its null tuples and unknown values)
            codes.append(col)
        hs.append(h)
    sensitive_cols: list[tuple[str, list[str], pl.Series | bytes]] = []
    values_of: dict[str, list[str]] = {}
    for name in sens:
        col = table[name]
        no_nulls(col, counts, name, "a sensitive attribute")
        values = sorted(col.unique().to_list())
        sensitive_cols.append((name, values, encode_values(col, values)))
        values_of[name] = values
    at = floored_at if floored is None else (floored.levels, floored.k, floored.max_suppressed)
    problem = hinted(table, hs_by_col, qis, qis, hs, codes, counts, sensitive_cols, at)
    return Prepared(
        lazy,
        qis,
        hs,
        grouped,
        problem,
        sens,
        values_of,
        count,
        nulls,
        where,
        None if where == "polars" else data,
        native,
        floors=at,
        values=None if floored is None else floored.values,
        table=held,
    )


def at_leaves(prep: Prepared) -> Prepared:
    """`prep`, or when its F0 was grouped at floor levels above the leaves
    (DuckDB, Spark: `prepare.floors`), the same table prepared at its
    leaves, once: floors answer which nodes are anonymous and every figure
    of a node's classes exactly, but not a figure of the input's own
    distribution below them (KL divergence). One more query where the
    table lives."""
    if not prep.above_leaves or prep.source is None:
        return prep
    assert prep.floors is not None  # above_leaves
    if prep.engine == "counts":
        # a frequency set grouped so (a pickled result's): the leaves are gone
        raise ConfigError(
            f"this table's frequency set is grouped above its leaves (levels {prep.floors[0]}), "
            "as a search on DuckDB or Spark groups it: KL divergence compares with the "
            "leaves; search the table itself again (a pickled result keeps only the set)"
        )
    if prep.leaves is None:
        hs = dict(zip(prep.quasi_identifiers, prep.hierarchies, strict=True))
        leaves = prepare(prep.source, prep.quasi_identifiers, hs, prep.sensitive, prep.nulls)
        object.__setattr__(prep, "leaves", leaves)
    assert prep.leaves is not None
    return prep.leaves
