"""A release by partitions (Mondrian's) built where the table lives, on
DuckDB or Spark: each record's labels are a function of its
quasi-identifiers' values, so the release is one null-safe join of the
table with the distinct native combinations F0 holds, each with its
partition's labels. Its groups, counted there, must be the ones checked on
F0 (`MondrianResult.expected`)."""

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
# labels (`MondrianResult.mapping`)
Mapping = tuple[list[str], list[str], pl.DataFrame]


def native_mapping(prep: Prepared, by_text: Mapping) -> tuple[pl.DataFrame, list[str]]:
    """Each distinct combination of the quasi-identifiers' native values in
    F0 (columns named as the table's) with its partition's labels (the
    second element's names), every combination labelled."""
    assert prep.native is not None
    qis = prep.quasi_identifiers
    keys, labels, mapping = by_text
    combos = prep.native.select(qis).unique(maintain_order=True)
    labelled = (
        combos.with_columns([text(pl.col(q)).alias(key) for q, key in zip(qis, keys, strict=True)])
        .join(mapping, on=keys, how="left", maintain_order="left")
        .select(qis + labels)
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
) -> Any:
    """The release of `data` (`prep`'s table when None) built where it
    lives, each quasi-identifier its partition's label (`by_text`), the
    other columns as `roles` say; refused (`NotAnonymousError`) unless its
    groups, counted there, are the ones `checked` returns (checked on F0)."""
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
    mapping, labels = native_mapping(prep, by_text)
    module = engines.module(where)
    released, groups = module.release_by(source, qis, mapping, labels, sens)
    by = qis + sens
    if groups.select(pl.any_horizontal(pl.col(qis).is_null()).any()).item():
        raise NotAnonymousError(
            f"the release {where} built holds records whose quasi-identifiers are in none of "
            "the partitions: the source changed since it was partitioned; refusing to release it"
        )
    same_groups(where, groups, by, count, expected)
    return module.identify(released, resolved.ops)
