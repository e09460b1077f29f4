"""Mondrian's release on DuckDB and Spark (local[2], for real): built where
the table lives by one null-safe join with the partitions' labels, it has
the very groups of the Polars release on Adult; identifiers follow their
roles there; a source changed since it was partitioned is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import polars_anon as pa
from tests.conftest import to_duckdb

QIS = ["age", "sex", "race", "education", "marital-status", "native-country", "workclass"]


def frame(x: Any) -> pl.DataFrame:
    out = pl.from_arrow(x.toArrow() if hasattr(x, "toArrow") else x.to_arrow_table())
    assert isinstance(out, pl.DataFrame)
    return out


@pytest.fixture(params=["duckdb", "spark"])
def on(request: pytest.FixtureRequest) -> Callable[[pl.DataFrame], Any]:
    """How a Polars frame becomes the engine's table."""
    if request.param == "duckdb":
        return to_duckdb
    session = request.getfixturevalue("spark")
    return lambda f: session.createDataFrame(f.to_arrow())


def groups(release: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    return release.group_by(by).len().sort(by)


@pytest.mark.parametrize(
    ("k", "criteria"),
    [(5, None), (10, [pa.DistinctLDiversity(3, "occupation")])],
)
def test_engine_release_has_the_polars_groups_on_adult(
    on: Callable[[pl.DataFrame], Any],
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
    k: int,
    criteria: Any,
) -> None:
    df, hs = adult
    by = QIS + (["occupation"] if criteria else [])
    local = pa.mondrian(df, QIS, k, hierarchies=hs, criteria=criteria)
    there = pa.mondrian(on(df), QIS, k, hierarchies=hs, criteria=criteria)
    assert there.partitions == local.partitions and there.loss == local.loss
    released = frame(there.apply())
    assert released.columns == df.columns
    assert released.schema["age"] == pl.String
    assert groups(released, by).equals(groups(local.apply().collect(), by))
    # the records outside the quasi-identifiers are the table's, untouched
    rest = [c for c in df.columns if c not in QIS]
    assert released.select(rest).sort(rest).equals(df.select(rest).sort(rest))


def test_engine_release_follows_the_roles(
    on: Callable[[pl.DataFrame], Any],
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    table = df.head(2000).with_row_index("id").with_columns(pl.col("id").cast(pl.Int64))
    result = pa.mondrian(on(table), ["age", "sex", "race"], 5, hierarchies=hs, identifiers=["id"])
    released = frame(result.apply())
    assert "id" not in released.columns
    mask = {"id": pa.Mask(keep_last=1)}
    masked = frame(result.apply(identifiers=mask)).sort("id")
    local = pa.mondrian(table, ["age", "sex", "race"], 5, hierarchies=hs)
    assert masked.equals(local.apply(identifiers=mask).collect().sort("id"))


def test_a_changed_duckdb_source_is_refused(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    rel = to_duckdb(df.head(1000))
    result = pa.mondrian(rel, ["age", "sex", "race"], 5, hierarchies=hs)
    assert frame(result.apply()).height == 1000
    # a copy of a row: one group a record larger than the checked one
    rel.query("t", "INSERT INTO t SELECT * FROM t LIMIT 1")
    with pytest.raises(pa.NotAnonymousError, match="does not have the groups"):
        result.apply()
    # a combination none of the partitions holds
    rel.query("t", "INSERT INTO t SELECT * REPLACE (200 AS age) FROM t LIMIT 1")
    with pytest.raises(pa.NotAnonymousError, match="in none of the partitions"):
        result.apply()


def test_a_frequency_set_still_has_nothing_to_release(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, _ = adult
    counts = pa.frequency_set(df, ["age", "sex"])
    with pytest.raises(pa.ConfigError, match="no rows to release"):
        pa.mondrian(counts, ["age", "sex"], 5).apply()
