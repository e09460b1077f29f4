"""A release by partitions (Mondrian's) built where the table lives, on
DuckDB or Spark: each record's labels are a function of its
quasi-identifiers' values, so the release is one null-safe join of the
table with the distinct native combinations F0 holds, each with its
partition's labels. Its groups, counted there, must be the ones checked on
F0 (`MondrianResult.expected`).

Relaxed, a combination of values (quasi-identifiers and sensitive values)
may be divided between partitions, each holding a run of ranks [start, end)
of its records: the rows are numbered 0, 1, ... within their combination
where they live (``row_number()`` over the combination) and joined on the
combination and the run holding their number. A table there has no order,
but the records of one combination are interchangeable for anonymity (they
share every value a released group is made of): any numbering gives the
same released groups, though not always the same records in each as the
Polars release (numbered in the table's order)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from polars_anon import engines
from polars_anon._core import AnonError, ConfigError, NotAnonymousError
from polars_anon.inputs.nulls import text
from polars_anon.prepare.prepared import Prepared
from polars_anon.release.build import same_groups
from polars_anon.roles.resolve import resolve
from polars_anon.roles.spec import Roles

# the key and label columns' names and the frame: each distinct combination
# of the quasi-identifiers' values as text (the keys) with its partition's
# labels (`MondrianResult.mapping`); relaxed, the combinations are of the
# sensitive values too, with a row per partition holding some of a
# combination's records and its run of ranks (`results.pieces`)
Mapping = tuple[list[str], list[str], pl.DataFrame]


def native_mapping(
    prep: Prepared, by_text: Mapping, ranks: tuple[str, str] | None = None
) -> tuple[pl.DataFrame, list[str]]:
    """Each distinct combination of the quasi-identifiers' native values in
    F0 (columns named as the table's) with its partition's labels (the
    second element's names), every combination labelled. With `ranks` (the
    mapping's columns of a run's first and past-last rank, relaxed), the
    combinations are of the sensitive values too, one row a run, the ranks
    kept (as Int64, which every engine holds)."""
    assert prep.native is not None
    names = prep.quasi_identifiers + (prep.sensitive if ranks else [])
    keys, labels, mapping = by_text
    runs = [pl.col(r).cast(pl.Int64) for r in ranks or ()]
    combos = prep.native.select(names).unique(maintain_order=True)
    labelled = (
        combos.with_columns(
            [text(pl.col(c)).alias(key) for c, key in zip(names, keys, strict=True)]
        )
        .join(mapping, on=keys, how="left", maintain_order="left")
        .select(*names, *labels, *runs)
    )
    if labelled.select(pl.any_horizontal(pl.col(labels).is_null()).any()).item():
        raise AnonError(
            "internal check failed: the partitions do not cover the table's values; "
            "refusing to release"
        )
    return labelled, labels


def on_engine(
    prep: Prepared,
    by_text: Mapping,
    checked: Callable[[], pl.DataFrame],
    data: Any,
    roles: Roles,
    ranks: tuple[str, str] | None = None,
) -> Any:
    """The release of `data` (`prep`'s table when None) built where it
    lives, each quasi-identifier its partition's label (`by_text`), the
    other columns as `roles` say; refused (`NotAnonymousError`) unless its
    groups, counted there, are the ones `checked` returns (checked on F0).
    With `ranks` (relaxed: `native_mapping`), each row goes to the
    partition whose run holds its number within its combination."""
    source = prep.source if data is None else data
    where = engines.engine_of(source)
    if where != prep.engine:
        raise ConfigError(
            f"this was partitioned on {prep.engine}; its release is built on the same engine, "
            f"got a {where} table"
        )
    qis, sens, count = prep.quasi_identifiers, prep.sensitive, prep.count
    resolved = resolve(source, where, prep.rows, qis, sens, roles)
    expected = checked()
    mapping, labels = native_mapping(prep, by_text, ranks)
    module = engines.module(where)
    if ranks is None:
        released, groups = module.release_by(source, qis, mapping, labels, sens)
    else:
        released, groups = module.release_by(source, qis + sens, mapping, labels, [], ranks)
    by = qis + sens
    if groups.select(pl.any_horizontal(pl.col(qis).is_null()).any()).item():
        # relaxed, also a record numbered past its combination's runs: the
        # source holds more records of it than were partitioned
        which = "quasi-identifiers are" if ranks is None else "values (or their number) are"
        raise NotAnonymousError(
            f"the release {where} built holds records whose {which} in none of the partitions: "
            "the source changed since it was partitioned; refusing to release it"
        )
    same_groups(where, groups, by, count, expected)
    return module.identify(released, resolved.ops)
