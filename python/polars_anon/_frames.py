"""Inputs: turning user data and hierarchies into the core's frequency set."""

from __future__ import annotations

import math
import operator
import os
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias

import polars as pl

from polars_anon import _floors, engines
from polars_anon._core import (
    ConfigError,
    Hierarchy,
    MissingValueError,
    Problem,
)

HierarchyLike: TypeAlias = "Hierarchy | str | os.PathLike[str] | Sequence[Sequence[str]]"
Hierarchies: TypeAlias = "Mapping[str, HierarchyLike] | str | os.PathLike[str]"
Levels: TypeAlias = "Mapping[str, int] | Sequence[int]"

COUNT = "__polars_anon_count"

# With nulls="value", a null quasi-identifier is this value (ARX's label for a
# missing value): a hierarchy row for it places it, else it generalizes
# straight to the top. Wherever quasi-identifiers are compared as strings
# (F0, the release's keys and its guard), null reads as this label.
NULL_LABEL = "NULL"
NULLS = ("error", "value")
Nulls: TypeAlias = 'Literal["error", "value"]'


def fresh_name(base: str, taken: Iterable[str]) -> str:
    """`base`, or `base` with a numeric suffix, so that it is none of `taken`:
    the library's own columns never collide with the user's."""
    names = set(taken)
    name, i = base, 0
    while name in names:
        i += 1
        name = f"{base}_{i}"
    return name


# A table of at most this many rows crosses to the core row by row and is
# grouped there after encoding; a larger one is grouped by Polars first (a
# streaming scan): row by row is cheaper for small tables, Polars' parallel
# group-by for large ones, and the two cost about the same near this size
# (bench/README.md). A LazyFrame is asked for one row more than this first.
ROWS_IN_CORE = 100_000
SIGNED = (pl.Int8, pl.Int16, pl.Int32, pl.Int64)
# A release maps a hierarchy of at most this many leaves through all of them,
# and a mapping of at most this many values is built in Python lists (each
# Polars call on a Series costs ~0.1 ms, a query of its own: more than the
# loop); larger ones through the leaves the table holds, in Polars.
SMALL = 1024


def as_lazy(data: Any) -> pl.LazyFrame:
    """A LazyFrame over `data`: a Polars frame or anything with `__arrow_c_stream__`."""
    if isinstance(data, pl.LazyFrame):
        return data
    return as_frame(data).lazy()


def as_frame(data: Any) -> pl.DataFrame:
    """`data` in memory: a Polars DataFrame, or anything with `__arrow_c_stream__`."""
    if isinstance(data, pl.DataFrame):
        return data
    if hasattr(data, "__arrow_c_stream__"):
        return pl.DataFrame(data)
    raise TypeError(
        "data must be a polars DataFrame or LazyFrame, or an object exposing "
        f"__arrow_c_stream__ (pandas, pyarrow, DuckDB); got {type(data).__name__}"
    )


def to_hierarchy(value: HierarchyLike, column: str, sep: str = ";") -> Hierarchy:
    if isinstance(value, Hierarchy):
        return value
    if isinstance(value, (str, os.PathLike)):
        return Hierarchy.from_csv(os.fspath(value), sep=sep)
    if isinstance(value, Sequence):
        return Hierarchy.from_rows([[str(v) for v in row] for row in value], source=column)
    raise TypeError(
        f"hierarchy for column '{column}' must be a Hierarchy, a CSV path or rows; "
        f"got {type(value).__name__}"
    )


def read_hierarchies(source: Hierarchies, sep: str = ";") -> dict[str, Hierarchy]:
    """Hierarchies by column: from a directory of ``<column>.csv`` files (ARX's
    ``*_hierarchy_<column>.csv`` and ``hierarchy_<column>.csv`` names work too), or
    from a mapping of column to Hierarchy, CSV path or rows.

    >>> from polars_anon import datasets
    >>> hs = read_hierarchies(datasets.data_dir() / "patients" / "hierarchies")
    >>> sorted(hs), hs["Zipcode"].height
    (['Birthdate', 'Sex', 'Zipcode'], 2)
    """
    if isinstance(source, Mapping):
        return {str(c): to_hierarchy(h, str(c), sep) for c, h in source.items()}
    path = Path(source)
    if not path.is_dir():
        raise ConfigError(f"{path}: not a directory of hierarchy CSV files")
    out: dict[str, Hierarchy] = {}
    for file in sorted(path.glob("*.csv")):
        stem = file.stem
        if "hierarchy_" in stem:
            stem = stem.split("hierarchy_", 1)[1]
        if stem in out:
            raise ConfigError(f"{path}: two hierarchy files for column '{stem}'")
        out[stem] = Hierarchy.from_csv(str(file), sep=sep)
    if not out:
        raise ConfigError(f"{path}: no .csv hierarchy files in this directory")
    return out


def resolve_hierarchies(hierarchies: Hierarchies | None) -> dict[str, Hierarchy]:
    if hierarchies is None:
        return {}
    return read_hierarchies(hierarchies)


def as_int(name: str, value: Any) -> int:
    """`value` as an int: any integer type (Python, NumPy, ...) through
    ``operator.index``; bools, floats and strings are refused by name."""
    if isinstance(value, bool):
        raise ConfigError(f"{name} must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ConfigError(
            f"{name} must be an integer, got {value!r} ({type(value).__name__})"
        ) from None


def check_k(k: Any, rows: int) -> int:
    """`k` as an int in [1, rows]."""
    n = as_int("k", k)
    if n < 1:
        raise ConfigError(f"k must be a positive integer, got {n!r}")
    if n > rows:
        raise ConfigError(
            f"k = {n} is larger than the table ({rows} rows): "
            f"no generalization can be {n}-anonymous"
        )
    return n


def max_suppressed(max_suppression: Any, rows: int) -> int:
    """Tuples that may be suppressed: an integer is a count (more than the rows
    means all of them), a float in [0, 1) a fraction of the rows."""
    if isinstance(max_suppression, bool):
        raise ConfigError("max_suppression must be an int (tuples) or a float in [0, 1)")
    if isinstance(max_suppression, float):
        if not 0.0 <= max_suppression < 1.0:
            raise ConfigError(
                f"max_suppression as a fraction must be in [0, 1), got {max_suppression}"
            )
        return math.floor(max_suppression * rows)
    try:
        count = operator.index(max_suppression)
    except TypeError:
        raise ConfigError(
            f"max_suppression must be an int (tuples) or a float in [0, 1), got {max_suppression!r}"
        ) from None
    if count < 0:
        raise ConfigError(f"max_suppression must be >= 0, got {count}")
    return min(count, rows)


@dataclass(frozen=True)
class Prepared:
    """A table's quasi-identifiers, their hierarchies, F0 and the core problem."""

    lazy: pl.LazyFrame
    quasi_identifiers: list[str]
    hierarchies: list[Hierarchy]
    # raw values as strings + COUNT, grouped by Polars; None until first asked
    # for when the core grouped the rows itself
    grouped: pl.DataFrame | None
    problem: Problem
    sensitive: list[str] = field(default_factory=list)
    sensitive_values: dict[str, list[str]] = field(default_factory=dict)
    # the count column of `grouped` and `f0`: unlike any of the table's columns
    count: str = COUNT
    # "error" or "value" (see NULL_LABEL)
    nulls: Nulls = "error"
    # where the table lives ("polars", "duckdb", "spark", or "counts" for a
    # frequency set, which has no rows to release); off Polars, the table
    # itself and F0 with its native values
    engine: str = "polars"
    source: Any = None
    native: pl.DataFrame | None = None
    # (attribute, level) -> the leaves a release maps (`_map`), their labels
    # and the distinct labels; and those as an Enum or a table by value
    # (`generalization_exprs`): built once per table and level
    mappings: dict[tuple[int, int], tuple[pl.Series, pl.Series, list[str]]] = field(
        default_factory=dict
    )
    enums: dict[tuple[int, int], tuple[pl.Series, pl.Series]] = field(default_factory=dict)
    dense: dict[tuple[int, int], tuple[int, pl.Series] | None] = field(default_factory=dict)
    # when F0 was grouped at floor levels (`_floors`): each quasi-identifier's
    # floor with the k and suppressed tuples they were found for, and its
    # distinct native values (F0 holds one value per floor-level label)
    floors: tuple[list[int], int, int] | None = None
    values: dict[str, pl.Series] | None = None
    # the rows, raw (a frame holding at least the quasi-identifier and
    # sensitive columns), when the core grouped them itself (a table of up to
    # ROWS_IN_CORE rows)
    table: pl.DataFrame | None = None
    # whether `problem` counted this table's rows (its marginals then name
    # the leaves the table holds); not so for another table mapped through
    # these hierarchies (a population's, in risk)
    counted: bool = True

    @property
    def rows(self) -> int:
        return self.problem.rows

    @property
    def f0(self) -> pl.DataFrame:
        """F0 grouped by Polars from the raw values (as strings, with `count`),
        independently of the core's codes; from the rows the core grouped,
        when it grouped them."""
        if self.grouped is None:
            source = self.lazy if self.table is None else self.table.lazy()
            object.__setattr__(
                self,
                "grouped",
                group_strings(source, self.quasi_identifiers + self.sensitive, self.count),
            )
        assert self.grouped is not None
        return self.grouped

    @property
    def weighted(self) -> pl.DataFrame:
        """What releases are checked on, independently of the core's codes:
        F0 when Polars grouped it, else the rows the core grouped, each
        counting once (grouping them first, only to group them again at the
        release's levels, cost as much as the check)."""
        if self.grouped is not None or self.table is None:
            return self.f0
        # the quasi-identifiers are read through `text` by the release's
        # expressions; the sensitive values are grouped as text
        return self.table.select(
            self.quasi_identifiers
            + [pl.col(c).cast(pl.String) for c in self.sensitive]
            + [pl.lit(1, dtype=pl.UInt64).alias(self.count)]
        )

    def levels(self, levels: Levels | None) -> list[int]:
        qis = self.quasi_identifiers
        if levels is None:
            out = [0] * len(qis)
        elif isinstance(levels, Mapping):
            unknown = sorted(set(levels) - set(qis))
            if unknown:
                raise ConfigError(
                    f"levels name column(s) that are not quasi-identifiers: {unknown}; "
                    f"quasi-identifiers: {qis}"
                )
            out = [int(levels.get(q, 0)) for q in qis]
        else:
            out = [int(v) for v in levels]
        if any(v < 0 for v in out):
            raise ConfigError(f"levels must be >= 0, got {out}")
        self.problem.check_levels(out)
        return out


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
    """F0 from the raw quasi-identifiers (and sensitive attributes): a table
    of up to ``ROWS_IN_CORE`` rows (in memory, or a LazyFrame read as it is)
    crosses to the core row by row and is encoded and grouped there in one
    pass; a larger one is grouped by one streaming Polars scan first and its
    distinct values encoded;
    a DuckDB relation or Spark DataFrame is grouped where it lives, and a
    `FrequencySet` is F0 already (see `polars_anon.engines`).

    `floors_for` (k, max_suppression): for a search on DuckDB or Spark, F0
    grouped at each attribute's lowest useful level for that model (see
    `_floors`): smaller, and only nodes at or above those levels answerable.
    `floored_at` (levels, k, suppressed tuples): a frequency set that was
    grouped so already (a pickled result's)."""
    if nulls not in NULLS:
        raise ConfigError(f"nulls must be one of {NULLS}, got {nulls!r}")
    if isinstance(quasi_identifiers, str):
        quasi_identifiers = [quasi_identifiers]
    qis = list(quasi_identifiers)
    if not qis:
        raise ConfigError("at least one quasi-identifier is needed")
    if len(set(qis)) != len(qis):
        raise ConfigError(f"quasi-identifiers named twice: {qis}")
    where = engines.engine_of(data, engine)
    frame: pl.DataFrame | None = None
    if where == "polars":
        frame = None if isinstance(data, pl.LazyFrame) else as_frame(data)
        lazy = data if frame is None else frame.lazy()
        schema = lazy.collect_schema()
    else:
        schema = engines.schema(data, where)
    sens = list(sensitive)
    both = sorted(set(sens) & set(qis))
    if both:
        raise ConfigError(f"column(s) {both} cannot be both quasi-identifier and sensitive")
    unknown = [q for q in qis + sens if q not in schema]
    if unknown:
        raise ConfigError(f"unknown column(s) {unknown}; the data has {list(schema.names())}")
    for c in qis + sens:
        if not _groupable(schema[c]):
            role = "quasi-identifier" if c in qis else "sensitive attribute"
            raise ConfigError(
                f"column '{c}' is of type {schema[c]}, which cannot be a {role}: its values "
                "must be strings, numbers, booleans or dates (cast or extract a value first)"
            )
    hs_by_col = resolve_hierarchies(hierarchies)
    count = fresh_name(COUNT, schema.names())
    grouped: pl.DataFrame | None = None
    native: pl.DataFrame | None = None
    held: pl.DataFrame | None = None
    floored = None
    if where == "polars" and frame is None:
        # a small LazyFrame's rows are read as they are (a CSV's whole table
        # costs less to read than Polars' group-by of its rows); a large one's
        # first rows only, then it is grouped by a streaming scan. Streaming
        # here too: the plan before the rows may be large (a join, a filter
        # over a big file), and the engine stops once it has the rows.
        head = lazy.select(qis + sens).head(ROWS_IN_CORE + 1).collect(engine="streaming")
        if head.height <= ROWS_IN_CORE:
            frame = head
    if floors_for is not None and where in ("duckdb", "spark"):
        floored = _floors.find(data, where, qis, hs_by_col, nulls, count, *floors_for)
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
    elif frame is not None and frame.height <= ROWS_IN_CORE:
        # every row as it is, each counting once: the core encodes strings and
        # (through a hierarchy) 8- to 64-bit signed integers itself, and groups
        # the codes; Polars casts other types to strings first
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
    else:
        grouped = group_strings(lazy, qis + sens, count)
        table = {c: grouped.get_column(c) for c in qis + sens}
        counts = grouped.get_column(count)
    if not len(table[qis[0]]):
        raise ConfigError("the table is empty: it has no rows to anonymize, check or assess")
    hs: list[Hierarchy] = []
    codes: list[pl.Series | bytes] = []
    for q in qis:
        col = table[q]
        h = hs_by_col.get(q)
        if nulls == "value" and col.null_count():
            col, h = _null_as_value(q, col, h)
        if h is None:
            _no_nulls(col, counts, q, "a quasi-identifier")
            distinct = sorted(col.unique().to_list())
            h = Hierarchy.from_rows([[v] for v in distinct], source=f"identity of '{q}'")
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
        _no_nulls(col, counts, name, "a sensitive attribute")
        values = sorted(col.unique().to_list())
        sensitive_cols.append((name, values, encode_values(col, values)))
        values_of[name] = values
    at = floored_at if floored is None else (floored.levels, floored.k, floored.max_suppressed)
    if at is not None and where not in ("duckdb", "spark", "counts"):
        raise ConfigError("only a table on DuckDB or Spark, or its frequency set, has floors")
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


def _groupable(dtype: pl.DataType) -> bool:
    """Values a quasi-identifier or sensitive column can hold: they are grouped
    and compared as text."""
    return not (dtype.is_nested() or isinstance(dtype, (pl.Binary, pl.Object, pl.Null)))


def hinted(
    table: Mapping[str, pl.Series],
    hs: Mapping[str, Hierarchy],
    qis: list[str],
    *args: Any,
) -> Problem:
    """``Problem(*args)`` over `table`'s columns `qis`; a value missing from a
    hierarchy in another Unicode form is reported with a hint to normalize
    (see `_normalization_hint`)."""
    try:
        return Problem(*args)
    except MissingValueError as e:
        hint = _normalization_hint(table, hs, qis)
        if hint:
            raise MissingValueError(f"{e}; {hint}") from None
        raise


def _normalization_hint(
    table: Mapping[str, pl.Series], hs: Mapping[str, Hierarchy], qis: list[str]
) -> str:
    """When values missing from a hierarchy are there in another Unicode form
    (NFC against NFD, say), say so: they look the same and differ by bytes."""
    for q in qis:
        h = hs.get(q)
        if h is None:
            continue
        leaves = set(h.leaves)
        normal = {unicodedata.normalize("NFC", v) for v in leaves}
        for v in table[q].cast(pl.String).drop_nulls().unique().to_list():
            if v not in leaves and unicodedata.normalize("NFC", v) in normal:
                return (
                    f"column '{q}': {v!r} is in its hierarchy in another Unicode normalization "
                    "form (the same letters as other bytes); normalize both, e.g. "
                    "pl.col(c).str.normalize('NFC') and the hierarchy's labels"
                )
    return ""


def group_strings(lazy: pl.LazyFrame, columns: list[str], count: str) -> pl.DataFrame:
    """F0 by Polars: the distinct raw values of `columns` and their counts (no
    per-row casts, so the scan stays lean and streaming), then the distinct
    values as strings; should two ever coincide, the core merges their rows
    when it groups the codes."""
    return (
        lazy.select(columns)
        .group_by(columns)
        .agg(pl.len().cast(pl.UInt64).alias(count))
        .collect(engine="streaming")
        .with_columns([pl.col(c).cast(pl.String) for c in columns])
    )


def _null_as_value(
    q: str, col: pl.Series, h: Hierarchy | None
) -> tuple[pl.Series, Hierarchy | None]:
    """`col` with its nulls as NULL_LABEL, and a hierarchy that has a leaf for
    it: the given one if it has a NULL row, else one extended by a row that
    takes NULL straight to the top."""
    as_text = col.cast(pl.String)
    if (as_text == NULL_LABEL).any():
        raise ConfigError(
            f"column '{q}' holds both nulls and the value {NULL_LABEL!r}, which nulls='value' "
            "reads nulls as; rename one of them first"
        )
    filled = as_text.fill_null(NULL_LABEL)
    if h is None or NULL_LABEL in h.leaves:
        return filled, h
    top = h.labels_at(h.height)[0]
    rows = [*h.rows, [NULL_LABEL] + [top] * h.height]
    return filled, Hierarchy.from_rows(rows, source=f"hierarchy of '{q}' with a row for nulls")


def _no_nulls(col: pl.Series, counts: pl.Series | None, column: str, role: str) -> None:
    """`counts`: the tuples each row stands for (None: one each)."""
    if not col.null_count():
        return
    nulls = col.null_count() if counts is None else int(counts.filter(col.is_null()).sum())
    if nulls:
        raise MissingValueError(
            f"column '{column}': {nulls} null value(s) in {role}; fill or drop them first "
            "(e.g. fill_null with a value the hierarchy knows)"
            + (", or pass nulls='value'" if role == "a quasi-identifier" else "")
        )


def encode_values(col: pl.Series, values: list[str], codes: list[int] | None = None) -> pl.Series:
    """`col` (strings, each one of `values`) as u32 codes for the core:
    ``codes[i]`` for ``values[i]`` (by default the position in `values`). The
    Series crosses to the core through the Arrow C stream interface."""
    # an Enum's physical values are the positions in its categories: a fast lookup
    position = col.cast(pl.Enum(values)).to_physical()
    if codes is None:
        return position.cast(pl.UInt32)
    return pl.Series(codes, dtype=pl.UInt32).gather(position)


def text(column: pl.Expr) -> pl.Expr:
    """A quasi-identifier as the core sees it: text, null as NULL_LABEL (with
    nulls="error" a quasi-identifier has no nulls, and this changes nothing)."""
    return column.cast(pl.String).fill_null(NULL_LABEL)


def generalization_exprs(
    prep: Prepared,
    levels: Sequence[int],
    *,
    strings: bool,
    schema: Mapping[str, pl.DataType] | None = None,
    enums: bool = False,
) -> list[pl.Expr]:
    """Expressions replacing each quasi-identifier by its label at `levels`.

    With ``strings=False`` a column at level 0 keeps its own values and dtype
    (and its nulls); with ``strings=True`` every column is text, nulls as
    NULL_LABEL, as the core groups them. `schema`: the dtypes of the frame the
    expressions read, where known: a signed integer column is then mapped by
    its value (`_by_value`), not cast to text row by row first. `enums`: the
    generalized columns' labels as an Enum of them, for a check that groups
    the rows by them (by their codes, not their bytes) and casts the groups.
    """

    def typed(labels: pl.Series, i: int, lvl: int) -> pl.Series:
        return labels.cast(pl.Enum(_mapping(prep, i, lvl)[2])) if enums else labels

    _map(prep, [(i, lvl) for i, lvl in enumerate(levels) if lvl > 0])
    out = []
    for i, (q, lvl) in enumerate(zip(prep.quasi_identifiers, levels, strict=True)):
        if lvl == 0 and not strings:
            continue
        as_str = text(pl.col(q))
        if lvl == 0:
            out.append(as_str.alias(q))
            continue
        dense = (
            _by_value(prep, i, lvl)
            if schema is not None and isinstance(schema[q], SIGNED)
            else None
        )
        if dense is not None:
            # a value's offset from the smallest leaf indexes its label: a
            # value below it fails the strict cast, one past the last leaf
            # the gather, and one between leaves that is none gets no label
            # (null), which the release's check refuses
            low, labels = dense
            index = (pl.col(q).cast(pl.Int64) - low).cast(pl.UInt32)
            out.append(pl.lit(typed(labels, i, lvl)).gather(index).alias(q))
        else:
            # a leaf's position among the leaves is its code as an Enum of
            # them (a value that is no leaf fails the cast), and the label is
            # gathered by it: a third of the time of replace_strict, which
            # hashes the mapping and every value
            leaves, labels = _as_enum(prep, i, lvl)
            labels = typed(labels, i, lvl)
            # the Enum named by a literal of it: a dtype given from Python is
            # converted with all its categories at each cast (~1 ms for cup's
            # 13,294 ZIP codes)
            code = as_str.cast(pl.dtype_of(pl.lit(leaves))).to_physical()
            out.append(pl.lit(labels).gather(code).alias(q))
    return out


def _mapping(prep: Prepared, i: int, level: int) -> tuple[pl.Series, pl.Series, list[str]]:
    """Attribute `i`'s leaves, their labels at `level`, and those labels'
    distinct values (the leaves' first); see `_map`."""
    _map(prep, [(i, level)])
    return prep.mappings[(i, level)]


def _map(prep: Prepared, keys: Sequence[tuple[int, int]]) -> None:
    """The mappings (attribute, level) -> leaves, labels and distinct labels
    that `keys` lack, into `prep.mappings`. A hierarchy of at most SMALL
    leaves maps all of them; a larger one only the leaves the table holds
    (cup's ZIP codes: 13,294 of 100,000; copying every leaf into Python and
    building an Enum of them cost more than the release): those the core
    counted in F0, read off its marginal, or else the table's distinct
    values. The labels are read off the hierarchy's rows either way, so a
    release's check does not share the lookup that encoded the table: a
    value the core took for another leaf fails the cast to the Enum of the
    leaves and is refused, and so is a value a source gains later."""
    todo = [key for key in dict.fromkeys(keys) if key not in prep.mappings]
    asked = []
    for i, level in todo:
        h = prep.hierarchies[i]
        large = h.sizes[0] > SMALL
        codes = prep.problem.present_leaves(i) if large and prep.counted else None
        if codes is not None:
            leaves, labels, names = h.leaf_mapping(level, codes)
            prep.mappings[(i, level)] = (
                pl.Series(leaves, dtype=pl.String),
                _by_code(names, labels),
                names,
            )
        elif large:
            asked.append((i, level))
        else:
            prep.mappings[(i, level)] = _all_leaves(h, level)
    present = _present(prep, sorted({i for i, _ in asked}))
    for i, level in asked:
        h, values = prep.hierarchies[i], present[i]
        prep.mappings[(i, level)] = (
            _all_leaves(h, level) if values is None else present_labels(h, level, values)
        )


def _all_leaves(h: Hierarchy, level: int) -> tuple[pl.Series, pl.Series, list[str]]:
    leaves = pl.Series(h.leaves, dtype=pl.String)
    return leaves, pl.Series(h.leaf_labels(level), dtype=pl.String), h.labels_at(level)


def _present(prep: Prepared, attributes: Sequence[int]) -> dict[int, pl.Series | None]:
    """The distinct values, as text, that the table holds of each attribute
    (None when only the leaves are known): from F0, or the rows the core
    grouped, in one query for all; at floor levels, F0 holds one value per
    label, and the values are kept apart from the column's counts."""
    qis = prep.quasi_identifiers
    out: dict[int, pl.Series | None] = {}
    if not attributes:
        return out
    if prep.values is not None:
        for i in attributes:
            out[i] = prep.values[qis[i]].unique().cast(pl.String).fill_null(NULL_LABEL)
        return out
    held = prep.grouped if prep.grouped is not None else prep.table
    if held is None:
        return dict.fromkeys(attributes)
    # the distinct values first, then as text (fewer casts)
    lists = held.select([text(pl.col(qis[i]).unique()).implode() for i in attributes])
    return {i: lists.get_column(qis[i]).explode() for i in attributes}


def present_labels(
    h: Hierarchy, level: int, values: pl.Series
) -> tuple[pl.Series, pl.Series, list[str]]:
    """The leaves among `values` (text), in leaf order, their labels at
    `level`, and those labels' distinct values (in order of first use);
    values that are no leaf are left out."""
    listed = values.to_list()
    positions, codes, names = h.leaf_positions(level, listed)
    if len(listed) <= SMALL:
        leaves = pl.Series([listed[p] for p in positions], dtype=pl.String)
    else:
        leaves = values.gather(pl.Series(positions, dtype=pl.UInt32))
    return leaves, _by_code(names, codes), names


def _by_code(names: list[str], codes: list[int]) -> pl.Series:
    """The label of each code into the distinct labels `names`."""
    if len(codes) <= SMALL:
        return pl.Series([names[c] for c in codes], dtype=pl.String)
    return pl.Series(names, dtype=pl.String).gather(pl.Series(codes, dtype=pl.UInt32))


def _as_enum(prep: Prepared, i: int, level: int) -> tuple[pl.Series, pl.Series]:
    """`_mapping`'s leaves as a Series of an Enum of them, and their labels
    in its order."""
    key = (i, level)
    if key not in prep.enums:
        leaves, labels, _ = _mapping(prep, i, level)
        prep.enums[key] = (leaves.cast(pl.Enum(leaves)), labels)
    return prep.enums[key]


def _by_value(prep: Prepared, i: int, level: int) -> tuple[int, pl.Series] | None:
    """`_mapping` as a table by value, from the smallest leaf on (nulls where
    no leaf is), when there are at most SMALL leaves, each an integer as
    Polars writes it, and they span at most 8 values per leaf (or 4,096): an
    integer column is then labelled without casting each of its values to
    text (a millisecond a column on cup)."""
    key = (i, level)
    if key not in prep.dense:
        prep.dense[key] = None
        leaves, labels, _ = _mapping(prep, i, level)
        listed = leaves.to_list() if 0 < len(leaves) <= SMALL else []
        try:
            values = [int(v) for v in listed]
        except ValueError:
            values = []
        # "+5", " 5" or "05" read as 5, but Polars writes 5 as "5"
        if values and all(str(v) == leaf for v, leaf in zip(values, listed, strict=True)):
            low, span = min(values), max(values) - min(values) + 1
            if span <= max(4096, 8 * len(values)):
                table: list[str | None] = [None] * span
                for v, label in zip(values, labels.to_list(), strict=True):
                    table[v - low] = label
                prep.dense[key] = (low, pl.Series(table, dtype=pl.String))
    return prep.dense[key]


def group_frame(prep: Prepared, levels: Sequence[int]) -> pl.DataFrame:
    """The node's QI groups as the core's codes (columns ``q0``, ``q1``, ...)
    and their sizes (``n``), from the core's rollup; with sensitive attributes
    a group spans several rows of the set, summed here. The frame is the
    library's own, so its column names cannot meet the user's."""
    codes, counts = prep.problem.groups(list(levels))
    cols: dict[str, Any] = {f"q{i}": pl.Series(c, dtype=pl.UInt32) for i, c in enumerate(codes)}
    cols["n"] = pl.Series(counts, dtype=pl.UInt64)
    frame = pl.DataFrame(cols)
    keys = [c for c in frame.columns if c != "n"]
    return frame.group_by(keys).agg(pl.col("n").sum())


def group_sizes(prep: Prepared, levels: Sequence[int]) -> pl.Series:
    """The sizes of the node's QI groups."""
    return group_frame(prep, levels).get_column("n").alias("count")
