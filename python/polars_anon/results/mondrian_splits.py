"""Mondrian's splits as a table (``MondrianResult.splits``), and another
table partitioned by them (``pa.mondrian(..., splits=...)``, a job's
recorded partition).

A row a node of the split tree, each after its parent, the root first:

- ``node``: its number (its row); ``parent``: the node it was split from
  (null at the root);
- ``attribute``: the quasi-identifier its parent was split on; ``test``:
  what its records passed there, ``"<="`` or ``">"`` the ``number`` (a
  numeric cut) or the ``label`` (a set's cut, in the values' text order),
  or ``"under"``: the value's hierarchy node at ``level`` is ``label``;
- ``partition``: at a leaf, its final partition (its row of ``groups``);
- ``unit``: what a numeric cut's ``number`` counts for a date or a datetime,
  ``"d"`` (days since 1970-01-01), ``"us"`` or ``"ns"`` (micro- or
  nanoseconds since then, UTC); null for plain numbers. Re-applied to a
  datetime column of the other unit, the cuts are rescaled (from
  nanoseconds, to the last microsecond the cut lets through, so each record
  goes the side it went); dates against datetimes or numbers are
  refused. A table recorded without ``unit`` is taken as in this table's.

Re-applied, every distinct combination of the new table follows the tests
from the root to one leaf; the leaves it reaches are the partitions, each
labelled by the values it now holds and each checked for k and the
criteria; when one fails, the whole run is refused, unless ``coarsen``:
then, from the leaves up, a split one of whose parts fails is undone (as
Mondrian makes a split only when every part holds), its parts one
partition at its node. A value under a hierarchy node the recorded
hierarchy lacks has no part to go to: the run is refused, or, coarsened,
the split that has no part for it is undone.
"""

from __future__ import annotations

import math

import polars as pl

from polars_anon import _core
from polars_anon._core import ConfigError, CoreCriterion, MondrianOutcome
from polars_anon.reports.render import listing, names_text, plural

COLUMNS: dict[str, type[pl.DataType]] = {
    "node": pl.UInt32,
    "parent": pl.UInt32,
    "attribute": pl.String,
    "test": pl.String,
    "number": pl.Float64,
    "label": pl.String,
    "level": pl.UInt8,
    "partition": pl.UInt32,
}


UNIT = "unit"
#: nanoseconds in a unit of a datetime's cut numbers
NANOS = {"us": 1_000, "ns": 1}
#: what a cut's unit says a column holds, for messages
HOLDS = {None: "numbers", "d": "dates", "us": "datetimes", "ns": "datetimes"}


def frame(
    outcome: MondrianOutcome, quasi_identifiers: list[str], units: dict[str, str | None]
) -> pl.DataFrame:
    """The core's split tree as the table described above (`units`: each
    numeric quasi-identifier's, `mondrian_cuts.unit_of`)."""
    names = [None if a is None else quasi_identifiers[a] for a in outcome.tree_attribute]
    columns = {
        "node": range(len(outcome.tree_parent)),
        "parent": outcome.tree_parent,
        "attribute": names,
        "test": [t or None for t in outcome.tree_test],
        "number": outcome.tree_number,
        "label": outcome.tree_label,
        "level": outcome.tree_level,
        "partition": outcome.tree_partition,
    }
    unit = _units_of_cuts(names, outcome.tree_number, units)
    return pl.DataFrame(
        {
            name: pl.Series(name, list(values), dtype=COLUMNS[name])
            for name, values in columns.items()
        }
    ).with_columns(pl.Series(UNIT, unit, dtype=pl.String))


def in_units(splits: pl.DataFrame, units: dict[str, str | None]) -> pl.DataFrame:
    """Recorded `splits` (`frame_of`) with each numeric cut counted in this
    table's `units` (`frame`'s), as the module doc says."""
    names = splits.get_column("attribute").to_list()
    numbers = splits.get_column("number").to_list()
    if UNIT not in splits.columns:
        recorded = _units_of_cuts(names, numbers, units)
    else:
        recorded = splits.get_column(UNIT).to_list()
    out, now = list(numbers), list(recorded)
    for i, (a, x, was) in enumerate(zip(names, numbers, recorded, strict=True)):
        if x is None or a not in units or was == units[a]:
            continue
        unit = units[a]
        if was not in NANOS or unit not in NANOS:
            raise ConfigError(
                f"the recorded splits cut '{a}' as {HOLDS.get(was, repr(was))}; this table's "
                f"'{a}' holds {HOLDS[unit]}: cast it to the type it was recorded with"
            )
        out[i], now[i] = (_micros(x) if unit == "us" else x * NANOS[was]), unit
    return splits.with_columns(
        pl.Series("number", out, dtype=pl.Float64), pl.Series(UNIT, now, dtype=pl.String)
    )


def unroutable(
    splits: pl.DataFrame, quasi_identifiers: list[str], kinds: list[str], leaves: list[list[str]]
) -> str | None:
    """Why `splits` could not route another table, if they could not: a
    set cut whose values are not in text order (numbers split as sets),
    which the recorded text keys cannot stand for."""
    cut = set(
        splits.filter(pl.col("label").is_not_null() & (pl.col("test") != "under"))["attribute"]
    )
    for q, kind, values in zip(quasi_identifiers, kinds, leaves, strict=True):
        if q in cut and kind == "set" and values != sorted(values):
            return (
                f"'{q}' is a set of values whose order is not their text order (numbers split "
                "as sets?): its cuts cannot be recorded as text"
            )
    return None


def pruned(splits: pl.DataFrame) -> pl.DataFrame:
    """`splits` without the nodes below a node that holds a partition (a
    split a coarsened re-application undid), renumbered: the tree of the
    partition it released, which routes the same table to the same
    partitions."""
    parents = splits.get_column("parent").to_list()
    held = splits.get_column("partition").to_list()
    drop = [False] * len(parents)
    for node, parent in enumerate(parents):
        if parent is not None:
            drop[node] = drop[parent] or held[parent] is not None
    if not any(drop):
        return splits
    kept = [i for i, d in enumerate(drop) if not d]
    number = {old: new for new, old in enumerate(kept)}
    out = splits.filter(~pl.Series(drop))
    return out.with_columns(
        pl.Series("node", range(len(kept)), dtype=pl.UInt32),
        pl.Series(
            "parent", [None if p is None else number[p] for p in out["parent"]], dtype=pl.UInt32
        ),
    )


def _units_of_cuts(
    names: list[str | None], numbers: list[float | None], units: dict[str, str | None]
) -> list[str | None]:
    """Each node's unit: its attribute's in `units` at a numeric cut, else None."""
    return [
        None if x is None or a is None else units.get(a)
        for a, x in zip(names, numbers, strict=True)
    ]


def _micros(cut: float) -> float:
    """A nanosecond cut as microseconds: the largest whole microsecond whose
    nanoseconds are at most `cut` as the cut compared them (as floats, 256
    ns apart at today's instants), so every record goes the side it went."""
    u = math.floor(cut / 1000)
    while float(u * 1000) > cut:
        u -= 1
    while float((u + 1) * 1000) <= cut:
        u += 1
    return float(u)


def frame_of(splits: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """Recorded `splits` checked and cast to the table's types."""
    if isinstance(splits, pl.LazyFrame):
        splits = splits.collect()
    if not isinstance(splits, pl.DataFrame):
        kind = type(splits)
        raise ConfigError(
            f"splits must be a polars DataFrame (a MondrianResult's .splits), got "
            f"{kind.__module__}.{kind.__qualname__}"
        )
    missing = [c for c in COLUMNS if c not in splits.columns]
    if missing:
        raise ConfigError(
            f"the recorded splits lack {listing('column', missing)}; a MondrianResult's "
            f".splits has {names_text(COLUMNS)}"
        )
    fractional = [
        c
        for c, dtype in COLUMNS.items()
        if dtype.is_integer()
        and splits.schema[c].is_float()
        and bool(splits.select((pl.col(c) % 1 != 0).any()).item())
    ]
    if fractional:
        raise ConfigError(
            f"the recorded splits' {plural('column', fractional)} {names_text(fractional)} "
            "must hold whole numbers"
        )
    kept: dict[str, type[pl.DataType]] = dict(COLUMNS)
    if UNIT in splits.columns:
        kept[UNIT] = pl.String
    try:
        t = splits.select(pl.col(c).cast(dtype) for c, dtype in kept.items())
    except pl.exceptions.PolarsError as e:
        raise ConfigError(f"the recorded splits' columns have the wrong types: {e}") from None
    if not t.height or t.get_column("node").to_list() != list(range(t.height)):
        raise ConfigError(
            "the recorded splits must number their nodes 0, 1, 2, ... in order, the root first"
        )
    return t


def reapplied(
    problem: _core.Problem,
    quasi_identifiers: list[str],
    kinds: list[str],
    values: list[list[float] | None],
    k: int,
    model: list[CoreCriterion],
    splits: pl.DataFrame,
    coarsen: bool = False,
) -> MondrianOutcome:
    """`problem`'s F0 partitioned by recorded `splits` (see the module doc),
    in the core, each partition checked for k and the criteria (`coarsen`:
    a split whose parts fail them undone)."""
    t = frame_of(splits)
    names = t.get_column("attribute").to_list()
    unknown = sorted({a for a in names if a is not None and a not in quasi_identifiers})
    if unknown:
        raise ConfigError(
            f"the recorded splits cut {names_text(unknown)}, not quasi-identifiers of this "
            f"run; quasi-identifiers: {names_text(quasi_identifiers)}"
        )
    index = {q: i for i, q in enumerate(quasi_identifiers)}
    return _core.mondrian_reapply(
        problem,
        kinds,
        values,
        k,
        t.get_column("parent").to_list(),
        [None if a is None else index[a] for a in names],
        [x or "" for x in t.get_column("test").to_list()],
        t.get_column("number").to_list(),
        t.get_column("label").to_list(),
        t.get_column("level").to_list(),
        model,
        coarsen,
    )
