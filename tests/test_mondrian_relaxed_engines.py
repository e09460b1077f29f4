"""Relaxed Mondrian released on DuckDB and Spark (local[2], for real) (#32):
a combination of values divided between partitions is joined by each
record's number within it, numbered where the table lives. Recounted with
plain Polars on what the engine hands back: the multiset of released
(quasi-identifier cells, sensitive values) groups is the Polars release's,
every group holds at least k records, every record is released once; a
source changed since it was partitioned is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_anon as pa
from tests.conftest import to_duckdb


def frame(x: Any) -> pl.DataFrame:
    out = pl.from_arrow(x.toArrow() if hasattr(x, "toArrow") else x.to_arrow_table())
    assert isinstance(out, pl.DataFrame)
    return out


def spark_table(session: Any) -> Callable[[pl.DataFrame], Any]:
    return lambda f: session.createDataFrame(f.to_arrow())


@pytest.fixture(params=["duckdb", "spark"])
def on(request: pytest.FixtureRequest) -> Callable[[pl.DataFrame], Any]:
    """How a Polars frame becomes the engine's table."""
    if request.param == "duckdb":
        return to_duckdb
    return spark_table(request.getfixturevalue("spark"))


def groups(release: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """The release's groups with their sizes, sorted: a multiset."""
    return release.group_by(by).len().sort(by)


def check(
    df: pl.DataFrame,
    on: Callable[[pl.DataFrame], Any],
    qis: list[str],
    k: int,
    criteria: Any = None,
    hierarchies: Any = None,
) -> pl.DataFrame:
    """Release `df` relaxed on the engine and recount it against the Polars
    release of the same table; the engine's release, collected."""
    by = qis + [c.attribute for c in criteria or []]
    rest = [c for c in df.columns if c not in by]
    args = {"criteria": criteria, "mode": "relaxed", "insensitive": rest}
    local = pa.mondrian(df, qis, k, hierarchies, **args)
    there = pa.mondrian(on(df), qis, k, hierarchies, **args)
    assert there.partitions == local.partitions and there.loss == local.loss
    released = frame(there.apply())
    assert released.columns == df.columns
    assert released.height == df.height
    assert groups(released, by).equals(groups(local.apply().collect(), by))
    assert int(groups(released, qis).get_column("len").min()) >= k  # type: ignore[arg-type]
    # the columns outside the quasi-identifiers are the table's, each record once
    rest = [c for c in df.columns if c not in qis]
    assert released.select(rest).sort(rest).equals(df.select(rest).sort(rest))
    return released


def test_a_divided_combination_lands_in_both_partitions(
    on: Callable[[pl.DataFrame], Any],
) -> None:
    # four records of 1 and two of 2, k = 3: the median cut divides the 1s,
    # three in the partition of 1, one with the 2s in [1-2]; a column of the
    # name the engines number the records by is the table's own
    df = pl.DataFrame(
        {
            "age": [1, 2, 1, 1, 2, 1],
            "id": [0, 1, 2, 3, 4, 5],
            "__polars_anon_rank": ["a", "b", "c", "d", "e", "f"],
        }
    )
    released = check(df, on, ["age"], 3)
    assert groups(released, ["age"]).rows() == [("1", 3), ("[1-2]", 3)]
    joined = df.select("id", pl.col("age").alias("value")).join(released, on="id")
    by_value = groups(joined, ["value", "age"]).rows()
    assert by_value == [(1, "1", 3), (1, "[1-2]", 1), (2, "[1-2]", 2)]


def test_a_divided_combination_with_a_sensitive_value(
    on: Callable[[pl.DataFrame], Any],
) -> None:
    # the combinations are of the sensitive values too: six records of 1 (x
    # four times, y twice) and four of 2, k = 4, 2-diverse: the cut after
    # the fifth record divides (1, y), one in the partition of 1, one in [1-2]
    df = pl.DataFrame(
        {
            "age": [1, 1, 1, 1, 1, 2, 2, 2, 1, 2],
            "disease": ["x", "x", "y", "x", "x", "y", "x", "y", "y", "x"],
            "id": range(10),
        }
    )
    criteria = [pa.DistinctLDiversity(2, "disease")]
    released = check(df, on, ["age"], 4, criteria)
    sizes = groups(released, ["age", "disease"]).rows()
    assert sizes == [("1", "x", 4), ("1", "y", 1), ("[1-2]", "x", 2), ("[1-2]", "y", 3)]
    joined = df.select("id", pl.col("age").alias("value")).join(released, on="id")
    by_value = groups(joined, ["value", "disease", "age"]).rows()
    assert by_value == [
        (1, "x", "1", 4),
        (1, "y", "1", 1),
        (1, "y", "[1-2]", 1),
        (2, "x", "[1-2]", 2),
        (2, "y", "[1-2]", 2),
    ]


def test_adult_relaxed_on_engines_has_the_polars_groups(
    on: Callable[[pl.DataFrame], Any],
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    qis = ["age", "sex", "race", "education", "marital-status"]
    given = {q: hs[q] for q in ("education", "marital-status")}
    check(df, on, qis, 5, hierarchies=given)
    check(df, on, qis, 10, [pa.DistinctLDiversity(2, "salary-class")], given)


@st.composite
def tables(draw: Any) -> tuple[pl.DataFrame, int, bool]:
    """A table of small integer ages (many records of each, so that median
    cuts divide them), colours and a disease, with an id; a k; whether the
    disease is to be 2-diverse."""
    rows = draw(st.integers(1, 40))
    ages = draw(st.lists(st.integers(0, 6), min_size=rows, max_size=rows))
    colors = draw(st.lists(st.sampled_from("abc"), min_size=rows, max_size=rows))
    diseases = draw(st.lists(st.sampled_from("xyz"), min_size=rows, max_size=rows))
    df = pl.DataFrame({"age": ages, "color": colors, "disease": diseases, "id": range(rows)})
    return df, draw(st.integers(1, 6)), draw(st.booleans())


def check_random(table: tuple[pl.DataFrame, int, bool], on: Callable[[pl.DataFrame], Any]) -> None:
    df, k, diverse = table
    if k > df.height or (diverse and df.get_column("disease").n_unique() < 2):
        return
    criteria = [pa.DistinctLDiversity(2, "disease")] if diverse else None
    check(df, on, ["age", "color"], k, criteria)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables())
def test_random_tables_on_duckdb(table: tuple[pl.DataFrame, int, bool]) -> None:
    check_random(table, to_duckdb)


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(table=tables())
def test_random_tables_on_spark(spark: Any, table: tuple[pl.DataFrame, int, bool]) -> None:
    check_random(table, spark_table(spark))


def test_the_pandas_path_of_spark_before_4(spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spark 3.5's DataFrame has no toArrow: the runs' table is built from
    rows with the ranks as longs (run here on Spark 4 with toArrow taken
    away)."""
    df = pl.DataFrame({"age": [1, 2, 1, 1, 2, 1], "id": [0, 1, 2, 3, 4, 5]})
    data = spark.createDataFrame(df.to_arrow())
    for cls in type(data).__mro__:
        if "toArrow" in vars(cls):
            monkeypatch.delattr(cls, "toArrow")
    assert not hasattr(data, "toArrow")
    result = pa.mondrian(data, ["age"], 3, mode="relaxed", insensitive=["id"])
    released = pl.from_pandas(result.apply().toPandas())
    joined = df.select("id", pl.col("age").alias("value")).join(released, on="id")
    by_value = groups(joined, ["value", "age"]).rows()
    assert by_value == [(1, "1", 3), (1, "[1-2]", 1), (2, "[1-2]", 2)]


def test_roles_and_numeric_bounds_on_engines(on: Callable[[pl.DataFrame], Any]) -> None:
    df = pl.DataFrame({"age": [1, 2, 1, 1, 2, 1], "id": [0, 1, 2, 3, 4, 5]})
    result = pa.mondrian(on(df), ["age"], 3, mode="relaxed", identifiers=["id"])
    released = frame(result.apply())
    assert released.columns == ["age"]
    assert groups(released, ["age"]).rows() == [("1", 3), ("[1-2]", 3)]
    # the bounds columns are still Polars' alone
    with pytest.raises(pa.ConfigError, match="numeric_bounds"):
        result.apply(numeric_bounds=True)


def test_a_changed_duckdb_source_is_refused() -> None:
    df = pl.DataFrame({"age": [1, 2, 1, 1, 2, 1], "id": [0, 1, 2, 3, 4, 5]})

    def partitioned() -> tuple[Any, pa.MondrianResult]:
        rel = to_duckdb(df)
        result = pa.mondrian(rel, ["age"], 3, mode="relaxed", insensitive=["id"])
        assert frame(result.apply()).height == 6
        return rel, result

    # a copy of a record of the divided combination: numbered past its runs
    rel, result = partitioned()
    rel.query("t", "INSERT INTO t SELECT * FROM t WHERE age = 1 LIMIT 1")
    with pytest.raises(pa.NotAnonymousError, match="in none of the partitions"):
        result.apply()
    # a record fewer: each in a partition, one group a record smaller
    rel, result = partitioned()
    rel.query("t", "DELETE FROM t WHERE id = 0")
    with pytest.raises(pa.NotAnonymousError, match="does not have the groups"):
        result.apply()
    # a combination none of the partitions holds
    rel, result = partitioned()
    rel.query("t", "INSERT INTO t SELECT * REPLACE (200 AS age) FROM t LIMIT 1")
    with pytest.raises(pa.NotAnonymousError, match="in none of the partitions"):
        result.apply()
