"""Mondrian multidimensional k-anonymity (LeFevre, DeWitt and Ramakrishnan,
ICDE 2006) over F0: recursive median splits, in the core."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_anon import engines
from polars_anon._core import ConfigError, HierarchyError, MissingValueError
from polars_anon.criteria.base import Criteria, listed, sensitive_of, specs
from polars_anon.inputs.frames import as_frame, unknown_columns
from polars_anon.inputs.hierarchies import Hierarchies, resolve_hierarchies
from polars_anon.inputs.params import as_bool, check_k, columns_of
from polars_anon.prepare.f0 import prepare
from polars_anon.reports.render import names_text, one_of
from polars_anon.results import mondrian_splits
from polars_anon.results.mondrian import MondrianResult
from polars_anon.results.mondrian_cuts import partition, temporal, units_of
from polars_anon.roles.spec import Identifiers, roles_of

MODES = ("strict", "relaxed")


def mondrian(
    data: Any,
    quasi_identifiers: Sequence[str],
    k: int,
    hierarchies: Hierarchies | None = None,
    criteria: Criteria = None,
    mode: str = "strict",
    numeric: Sequence[str] | None = None,
    identifiers: Identifiers | None = None,
    insensitive: Sequence[str] | None = None,
    splits: pl.DataFrame | None = None,
    coarsen: bool = False,
) -> MondrianResult:
    """Partition the table as Mondrian does (strict multidimensional
    partitioning), reading only F0: its distinct quasi-identifier
    combinations (and sensitive values) with their counts.

    Each quasi-identifier is one of:

    - numeric (``numeric``: by default every integer, float, date or
      datetime column, a date or a datetime by its instant): cut in two at
      the weighted median into ranges. The left part takes the
      values up to the first whose cumulative count reaches half the
      partition's records; where that cut is not allowed, the allowed cut
      nearest to it. A hierarchy given for a numeric column is not used.
    - categorical with a hierarchy: split along the children of the
      partition's node (the lowest node covering the values it holds), one
      part per child that holds values.
    - categorical without one: cut in two at the weighted median of its
      values in sorted (text) order, as value sets.

    A partition is split on the quasi-identifier of the widest normalised
    range (numeric: its range over the table's; categorical: its distinct
    values over the table's), or, when that one allows no split, the next
    widest; a split is allowed when every part has at least ``k`` records and
    meets the ``criteria``. A partition no attribute can split is final.

    The loss (``result.loss``) is ARX's cell-level loss of the release: a
    numeric cell ``[lo-hi]`` costs ``(hi - lo) / (max - min)`` (the table's
    smallest and largest values), a hierarchy node ``(leaves under it - 1) /
    (leaves of the hierarchy - 1)``, a set ``(values in it - 1) / (distinct
    values in the table - 1)`` (0 where the denominator is); each attribute's
    cost is averaged over the records, and ``loss`` is the mean over the
    attributes (``result.attribute_loss`` has each).

    ``mode="relaxed"``: an ordered attribute (numeric, or a set) is cut at
    its median record, the records of the median value divided between the
    halves as that needs (each record of a divided value combination goes
    to a partition by its rank among the records of that combination, in
    the table's order): smaller partitions, ranges that may share their
    end values. On DuckDB or Spark the records of a divided combination are
    numbered there, in no particular order: the same groups as a Polars
    release's. The other columns are released as their roles say
    (``identifiers``, ``insensitive``: see `polars_anon.search`).

    ``splits`` (another strict result's ``.splits``): partition this table
    by those recorded splits instead of splitting it anew, each record
    routed down the same tests (`polars_anon.results.mondrian_splits`); the
    cells are the values each partition now holds, and every partition
    must hold ``k`` records and meet the criteria, or nothing is released
    (`NotAnonymousError`, naming the partition). ``coarsen=True``: instead,
    from the leaves up, undo each recorded split one of whose parts fails
    (as Mondrian splits only where every part holds) or that has no part
    for a record, its parts' records one partition at its node: the same
    boxes where the table supports them, larger ones where it is thin.

    >>> import polars as pl
    >>> import polars_anon as pa
    >>> df = pl.DataFrame({"age": [21, 22, 23, 24, 35, 36, 37, 38]})
    >>> result = pa.mondrian(df, ["age"], k=2)
    >>> result.partitions, round(result.loss, 4)
    (4, 0.0588)
    >>> result.apply().collect().get_column("age").to_list()
    ['[21-22]', '[21-22]', '[23-24]', '[23-24]', '[35-36]', '[35-36]', '[37-38]', '[37-38]']
    """
    if not isinstance(mode, str) or mode not in MODES:
        raise ConfigError(f"mode must be {one_of(MODES)}, got {mode!r}")
    if splits is not None:
        if mode != "strict":
            raise ConfigError("recorded splits are re-applied strictly: mode='relaxed' takes none")
        splits = mondrian_splits.frame_of(splits)
    sens = sensitive_of(criteria)
    qis = columns_of(quasi_identifiers, sens)
    where = engines.engine_of(data)
    if where == "polars" and not isinstance(data, pl.LazyFrame):
        data = as_frame(data)
    schema = data.collect_schema() if where == "polars" else engines.schema(data, where)
    unknown = [q for q in qis + sens if q not in schema]
    if unknown:
        raise ConfigError(unknown_columns(unknown, schema.names()))
    if numeric is None:
        numbers = [q for q in qis if ordered(schema[q])]
    else:
        numbers = [numeric] if isinstance(numeric, str) else list(numeric)
        bad = [q for q in numbers if q not in qis or not ordered(schema[q])]
        if bad:
            types = ", ".join(f"{q}: {schema[q]}" for q in bad if q in schema)
            raise ConfigError(
                f"numeric names {names_text(bad)}, not quasi-identifiers of an integer, "
                f"float, date or datetime type ({types or 'not in the table'}; a CSV's "
                "dates are read as text: cast them, or read Parquet); quasi-identifiers: "
                + names_text(qis)
            )
    given = resolve_hierarchies(hierarchies, qis)
    hs = {q: h for q, h in given.items() if q in qis and q not in numbers}
    try:
        prep = prepare(data, qis, hs, sens)
    except MissingValueError as e:
        # Mondrian takes no nulls="value" (a null has no place in a range)
        message = str(e).replace(", or pass nulls='value' to keep null as a value of its own", "")
        raise MissingValueError(message.replace(", or pass nulls='value'", "")) from None
    except HierarchyError as e:
        # Mondrian takes no nulls="value": drop that way out of the message
        message = str(e).replace(", or make them nulls and search with nulls='value'", "")
        raise HierarchyError(message) from None
    k = check_k(k, prep.rows)
    kinds = {q: "numeric" if q in numbers else "hierarchy" if q in hs else "set" for q in qis}
    model = specs(criteria, prep.sensitive_values, rows=prep.rows)
    coarsen = as_bool("coarsen", coarsen)
    if coarsen and splits is None:
        raise ConfigError("coarsen=True undoes recorded splits: pass splits= too")
    if splits is not None:
        leaves = [list(h.leaves) for h in prep.hierarchies]
        units = units_of(qis, [kinds[q] for q in qis], leaves)
        splits = mondrian_splits.in_units(splits, units)
    outcome = partition(prep, kinds, k, model, mode == "relaxed", splits, coarsen)
    return MondrianResult(
        prep,
        k,
        listed(criteria),
        mode,
        kinds,
        outcome,
        model,
        roles_of(identifiers, insensitive),
        splits,
        coarsen,
    )


def ordered(dtype: pl.DataType) -> bool:
    """Cut into ranges by default: numbers, dates and datetimes (by their
    instants: a range of days is narrower than a set of them, and its loss
    its width)."""
    return dtype.is_numeric() or temporal(dtype)
