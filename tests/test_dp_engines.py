"""SafePub's sample drawn on DuckDB and Spark (`polars_anon.dp.engines`):
the same records on every read, each kept on its own with probability beta,
and the releases built there recounted with plain Polars."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

import polars_anon as pa
from polars_anon.dp.engines import boxes, check_order, kept, sample_key, sampled
from polars_anon.dp.parameters import dp_parameters
from polars_anon.dp.randomness import key_of
from tests.conftest import to_duckdb

PLANS = Path(__file__).parent / "data" / "duckdb_plans"
QIS = ["age", "sex", "race", "marital-status", "education"]
N = 100_000
# SafePub's beta for epsilon 1 (0.9 of it for the anonymization), delta 1e-5
BETA = dp_parameters(0.9, 1e-5)[1]


def duck_frame(rel: Any) -> pl.DataFrame:
    frame = pl.from_arrow(rel.to_arrow_table())
    assert isinstance(frame, pl.DataFrame)
    return frame


def spark_frame(df: Any) -> pl.DataFrame:
    frame = pl.from_arrow(df.toArrow())
    assert isinstance(frame, pl.DataFrame)
    return frame


def ids(frame: pl.DataFrame) -> list[int]:
    return sorted(frame.get_column("id").to_list())


def near(count: int, n: int, p: float) -> bool:
    """`count` within 5 sigma of a Binomial(n, p)'s mean."""
    return abs(count - n * p) < 5 * math.sqrt(n * p * (1 - p))


def check_release(r: pa.DPResult, first: pl.DataFrame, second: pl.DataFrame) -> None:
    """The release holds the quasi-identifiers only, every class of at least
    k records (recounted), the records the result counts, and reads the
    same twice."""
    assert sorted(first.columns) == sorted(QIS)
    assert first.height == r.released > 0
    assert int(first.group_by(QIS).len().get_column("len").min()) >= r.k  # type: ignore[arg-type]
    assert first.sort(QIS).equals(second.sort(QIS))


def test_duckdb_places_are_row_positions_drawn_by_the_python_rule() -> None:
    rel = to_duckdb(pl.DataFrame({"id": range(3000)}))
    key = key_of(3)
    got = ids(duck_frame(sampled(rel, "duckdb", key, 0.3)))
    assert got == [i for i in range(3000) if kept(key, 0.3, str(i))]
    assert 0 < len(got) < 3000


@pytest.mark.parametrize("kind", ["parquet", "csv", "json", "arrow", "polars"])
def test_duckdb_sources_of_fixed_order_draw_the_tables_sample(kind: str, tmp_path: Path) -> None:
    """A Parquet (of many row groups), CSV, JSON or Arrow source is numbered in
    its order, with several threads and insertion order not preserved: the
    sample of its table, and the same on a second read."""
    table = pl.DataFrame({"id": range(N), "v": [i % 13 for i in range(N)]})
    con = duckdb.connect()
    arrow = table.to_arrow()  # noqa: F841 - read by DuckDB's replacement scan
    con.execute("CREATE TABLE t AS SELECT * FROM arrow")  # in order: rowid is id
    con.execute("SET threads = 4")
    con.execute("SET preserve_insertion_order = false")
    if kind == "parquet":
        table.write_parquet(tmp_path / "t.parquet", row_group_size=4096)
        rel = con.read_parquet(str(tmp_path / "t.parquet"))
    elif kind == "csv":
        table.write_csv(tmp_path / "t.csv")
        rel = con.read_csv(str(tmp_path / "t.csv"))
    elif kind == "json":
        table.write_ndjson(tmp_path / "t.json")
        rel = con.read_json(str(tmp_path / "t.json"))
    elif kind == "arrow":
        rel = con.from_arrow(table.to_arrow())
    else:
        frame = table  # noqa: F841 - a Polars frame, read by DuckDB's replacement scan
        rel = con.sql("SELECT * FROM frame WHERE v >= 0")
    key = key_of(11)
    want = ids(duck_frame(sampled(con.table("t"), "duckdb", key, BETA)))
    sample = sampled(rel, "duckdb", key, BETA)
    assert ids(duck_frame(sample)) == want
    assert ids(duck_frame(sample)) == want
    assert sample_key(key) not in sample.sql_query()


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT v, count(*) AS n FROM src GROUP BY v",
        "SELECT DISTINCT * FROM src",
        "SELECT * FROM src ORDER BY v",
        "SELECT * FROM src UNION ALL SELECT * FROM src",
        "SELECT a.* FROM src AS a JOIN src AS b USING (id)",
        "SELECT * FROM src USING SAMPLE 50%",
        "SELECT * FROM src LIMIT 100",
    ],
)
def test_duckdb_relations_of_no_fixed_order_are_refused(sql: str) -> None:
    rel = to_duckdb(pl.DataFrame({"id": range(500), "v": [i % 7 for i in range(500)]}))
    with pytest.raises(pa.ConfigError, match=r"to_table"):
        sampled(rel.query("src", sql), "duckdb", key_of(1), 0.5)


def test_duckdb_1_plans_are_read_from_their_text() -> None:
    """DuckDB before 2.0 shows a relation's plan as text only: the boxes
    read as the JSON plan would be."""

    def plan(name: str) -> list[tuple[str, int, str]]:
        return boxes((PLANS / f"{name}.txt").read_text(encoding="utf-8"))

    parquet = plan("parquet")
    assert [(name, inputs) for name, inputs, _ in parquet] == [
        ("PROJECTION", 1),
        ("PROJECTION", 1),
        ("STREAMING_WINDOW", 1),
        ("PROJECTION", 1),
        ("PARQUET_SCAN", 0),
    ]
    check_order(parquet)
    with pytest.raises(pa.ConfigError, match=r"HASH_JOIN"):
        check_order(plan("join"))
    with pytest.raises(pa.ConfigError, match=r"with a sample"):
        check_order(plan("sample"))
    with pytest.raises(pa.ConfigError, match=r"nothing it can read"):
        check_order(boxes(""))


def test_a_frequency_set_has_no_records_to_sample(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    fs = pa.FrequencySet.from_counts(df.group_by(QIS).len(), count="len")
    with pytest.raises(pa.ConfigError, match=r"samples the records"):
        pa.differential_privacy(fs, QIS, hs, 1.0, 1e-5, seed=1)


def test_duckdb_release(adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> None:
    df, hs = adult
    rel = to_duckdb(df)
    r = pa.differential_privacy(rel, QIS, hs, 1.0, 1e-5, seed=7, metric="entropy")
    assert r.rows == df.height
    assert sorted(r.left_out) == sorted(set(df.columns) - set(QIS))
    first = duck_frame(r.apply())
    check_release(r, first, duck_frame(r.apply()))
    # the same seed: the same sample, scheme and release
    again = pa.differential_privacy(rel, QIS, hs, 1.0, 1e-5, seed=7, metric="entropy")
    assert (again.sampled, again.levels, again.suppressed) == (r.sampled, r.levels, r.suppressed)
    assert duck_frame(again.apply()).sort(QIS).equals(first.sort(QIS))
    # another seed, another sample
    other = pa.differential_privacy(rel, QIS, hs, 1.0, 1e-5, seed=8, metric="entropy")
    assert other.sampled != r.sampled
    # the release is checked against the sample's F0: a table changed since
    # then is refused (its sample counted again first)
    rel.query("src", "DELETE FROM t WHERE rowid % 97 = 0")
    with pytest.raises(pa.NotAnonymousError, match=r"checked as \d+ rows and now holds"):
        r.apply()


def test_duckdb_sample_size_and_independence() -> None:
    rel = to_duckdb(pl.DataFrame({"id": range(N)}))
    a = ids(duck_frame(sampled(rel, "duckdb", key_of(1), BETA)))
    b = ids(duck_frame(sampled(rel, "duckdb", key_of(2), BETA)))
    assert near(len(a), N, BETA)
    assert near(len(b), N, BETA)
    # two seeds' samples overlap as two independent draws would
    assert near(len(set(a) & set(b)), N, BETA * BETA)
    # a record repeated is drawn each time on its own
    same = to_duckdb(pl.DataFrame({"x": ["same"] * N}))
    assert near(duck_frame(sampled(same, "duckdb", key_of(1), BETA)).height, N, BETA)


def test_spark_release(spark: Any, adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> None:
    df, hs = adult
    sdf = spark.createDataFrame(df.to_arrow())
    r = pa.differential_privacy(sdf, QIS, hs, 1.0, 1e-5, seed=7, metric="entropy")
    assert r.rows == df.height
    first = spark_frame(r.apply())
    check_release(r, first, spark_frame(r.apply()))
    # the sample does not depend on how the table is partitioned, and its
    # key is in no plan
    key = key_of(7)
    sample = sampled(sdf, "spark", key, r.beta)
    plan = sample._jdf.queryExecution().toString()
    assert sample_key(key) not in plan and key.hex() not in plan
    counts = spark_frame(sample.groupBy(*QIS).count()).sort(QIS)
    assert int(counts.get_column("count").sum()) == r.sampled
    moved = sampled(sdf.repartition(7, "education"), "spark", key, r.beta)
    assert spark_frame(moved.groupBy(*QIS).count()).sort(QIS).equals(counts)


def test_spark_sample_size_and_independence(spark: Any) -> None:
    from pyspark.sql import functions as F

    table = spark.range(N).withColumn("x", F.lit("same"))
    a = ids(spark_frame(sampled(table, "spark", key_of(1), BETA).select("id")))
    b = ids(spark_frame(sampled(table, "spark", key_of(2), BETA).select("id")))
    assert near(len(a), N, BETA)
    assert near(len(b), N, BETA)
    assert near(len(set(a) & set(b)), N, BETA * BETA)
    # a record repeated is drawn each time on its own
    assert near(sampled(table.select("x"), "spark", key_of(1), BETA).count(), N, BETA)


def test_an_engine_release_is_written_there() -> None:
    import duckdb

    lf, hs = pa.datasets.adult()
    con = duckdb.connect()
    rel = con.from_arrow(lf.head(3000).collect().to_arrow())
    r = pa.differential_privacy(rel, ["age", "sex"], hs, 1.0, 1e-5, seed=1, steps=10)
    with pytest.raises(pa.ConfigError, match="written where it lives"):
        r.sink_parquet("never.parquet")


def test_a_job_with_privacy_runs_on_duckdb(tmp_path: Path) -> None:
    from polars_anon.cli import main

    data = pa.datasets.data_dir() / "adult" / "adult.csv"
    out = tmp_path / "dp.parquet"
    qis = ["age", "sex", "race", "marital-status"]
    argv = ["anonymize", str(data), "--sep", ";", "--engine", "duckdb", "--qi", ",".join(qis)]
    argv += ["--hierarchies", str(Path(__file__).parent.parent / "hierarchies" / "adult")]
    argv += ["--epsilon", "1", "--delta", "1e-5", "--seed", "3", "--steps", "20"]
    assert main([*argv, "--out", str(out)]) == 0
    release = pl.read_parquet(out)
    assert set(release.columns) == set(qis) and release.height > 0
    k, _ = pa.dp_parameters(math.nextafter(0.9, 0.0), 1e-5)
    assert int(release.group_by(qis).len().get_column("len").min()) >= k  # type: ignore[arg-type]
    # the job file runs again, drawing the same sample where the table lives
    again = pa.Job.from_toml(f"{out}.job.toml")
    again.output = tmp_path / "again.parquet"
    again.run(write_job=False)
    assert pl.read_parquet(again.output).sort(qis).equals(release.sort(qis))
