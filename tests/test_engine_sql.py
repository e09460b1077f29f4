"""DuckDB's and Spark's SQL read a table their own way: text compared by a
collation, names that differ only in case taken for one, and (DuckDB) a
table that may change between a search and its release (helper-87's
trial)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polars_anon as pa

duckdb = pytest.importorskip("duckdb")

NAMES = ["smith"] * 3 + ["SMITH"] * 3 + ["jones"] * 10
HS = {"g": pa.Hierarchy.from_rows([["smith", "*"], ["SMITH", "*"], ["jones", "*"]])}


def frame(rel: object) -> pl.DataFrame:
    out = pl.from_arrow(rel.to_arrow_table())  # type: ignore[attr-defined]
    assert isinstance(out, pl.DataFrame)
    return out


def sizes(df: pl.DataFrame) -> dict[str, int]:
    return dict(df.group_by("g").len().iter_rows())  # type: ignore[arg-type]


@pytest.mark.parametrize("how", ["column", "connection"])
def test_a_collation_does_not_join_texts_released_apart(how: str, tmp_path: Path) -> None:
    """`smith` and `SMITH` under NOCASE were one group of 6 in DuckDB's F0
    and two of 3 in the release: apply() handed back groups under k."""
    con = duckdb.connect()
    if how == "column":
        con.execute("CREATE TABLE t (g VARCHAR COLLATE NOCASE)")
    else:
        con.execute("SET default_collation = 'nocase'")
        con.execute("CREATE TABLE t (g VARCHAR)")
    con.execute("INSERT INTO t VALUES " + ", ".join(f"('{v}')" for v in NAMES))
    df = pl.DataFrame({"g": NAMES})
    for k, suppression in ((5, 0), (3, 0), (5, 6)):
        on_duck = pa.search(con.table("t"), ["g"], HS, k, suppression, progress=False)
        on_polars = pa.search(df, ["g"], HS, k, suppression, progress=False)
        assert on_duck.best("min_loss") == on_polars.best("min_loss")
        levels = on_duck.best("min_loss")
        released = frame(on_duck.apply(levels=levels))
        assert sizes(released) == sizes(on_polars.apply(levels=levels).collect())
        assert min(sizes(released).values()) >= k
        path = on_duck.sink_csv(tmp_path / f"{how}{k}{suppression}.csv", levels=levels)
        assert sizes(pl.read_csv(path)) == sizes(released)


def test_columns_named_alike_are_refused() -> None:
    """A join's `zip` and `ZIP` are one name to DuckDB's SQL: the release
    read one for the other and gave a quasi-identifier's raw values under
    the other's name."""
    con = duckdb.connect()
    zip_of = "['53715', '53703'][i % 2 + 1]"
    con.execute(f"CREATE TABLE a AS SELECT i AS k, {zip_of} AS zip FROM range(40) r(i)")
    con.execute("CREATE TABLE b AS SELECT i AS k, 'home-' || i AS ZIP FROM range(40) r(i)")
    zips = {"zip": pa.Hierarchy.from_rows([["53715", "5371*", "*"], ["53703", "5370*", "*"]])}
    for sql in (
        "SELECT * EXCLUDE (k) FROM a JOIN b USING (k)",
        "SELECT a.zip, b.ZIP AS zip FROM a JOIN b USING (k)",
    ):
        with pytest.raises(pa.ConfigError, match="DuckDB's SQL does not tell apart"):
            pa.search(con.sql(sql), ["zip"], zips, 20, progress=False)
    renamed = con.sql("SELECT a.zip, b.ZIP AS home FROM a JOIN b USING (k)")
    r = pa.search(renamed, ["zip"], zips, 20, identifiers=["home"], progress=False)
    out = frame(r.apply(levels={"zip": 2}))
    assert out.columns == ["zip"] and set(out.get_column("zip")) == {"*"}


def test_rows_added_to_a_suppressed_group_are_refused(tmp_path: Path) -> None:
    """Rows inserted under a suppressed value since the search leave the
    released groups as checked: the release suppressed 5 records where 2
    were allowed, in apply() and in a written file."""
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT ['a', 'b'][i % 2 + 1] AS g FROM range(100) r(i)")
    con.execute("INSERT INTO t SELECT 'rare' FROM range(2)")
    hs = {"g": pa.Hierarchy.from_rows([["a", "*"], ["b", "*"], ["rare", "*"]])}
    r = pa.search(con.table("t"), ["g"], hs, 5, 2, progress=False)
    assert r.best("min_loss") == {"g": 0}
    assert frame(r.apply(levels={"g": 0})).height == 100
    con.execute("INSERT INTO t SELECT 'rare' FROM range(3)")
    with pytest.raises(pa.NotAnonymousError, match="checked as 102 rows and now holds 105"):
        r.apply(levels={"g": 0})
    target = tmp_path / "out.parquet"
    with pytest.raises(pa.NotAnonymousError, match="now holds 105"):
        r.sink_parquet(target, levels={"g": 0})
    assert not target.exists()
    con.execute("DELETE FROM t WHERE g = 'rare'")
    with pytest.raises(pa.NotAnonymousError, match="now holds 100"):
        r.apply(levels={"g": 0})


def test_spark_rows_added_to_a_suppressed_group_are_refused(spark: Any, tmp_path: Path) -> None:
    """The same on Spark, whose DataFrame is read again by the release: its
    checkpoint counts the rows it read, suppressed ones too."""
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps(["a", "b"] * 50 + ["rare"] * 2))
    path = str(rows)

    def read(_: int) -> list[tuple[str]]:  # each evaluation reads the file as it is then
        with open(path) as f:
            return [(g,) for g in json.load(f)]

    df = spark.createDataFrame(spark.sparkContext.parallelize([0], 1).flatMap(read), "g string")
    hs = {"g": pa.Hierarchy.from_rows([["a", "*"], ["b", "*"], ["rare", "*"]])}
    r = pa.search(df, ["g"], hs, 5, 2, progress=False)
    assert r.best("min_loss") == {"g": 0}
    assert r.apply(levels={"g": 0}).count() == 100
    rows.write_text(json.dumps(["a", "b"] * 50 + ["rare"] * 5))
    with pytest.raises(pa.NotAnonymousError, match="checked as 102 rows and now holds 105"):
        r.apply(levels={"g": 0})
    rows.write_text(json.dumps(["a", "b"] * 50))
    with pytest.raises(pa.NotAnonymousError, match="now holds 100"):
        r.apply(levels={"g": 0})


def test_spark_collations_and_names_alike(spark: Any) -> None:
    """The same on Spark: a UTF8_LCASE column counted smith and SMITH as
    one value, and a join's zip and ZIP failed as an ambiguous reference."""
    lcase = spark.createDataFrame([(v,) for v in NAMES], "g string collate UTF8_LCASE")
    df = pl.DataFrame({"g": NAMES})
    for k, suppression in ((5, 0), (3, 0), (5, 6)):
        on_spark = pa.search(lcase, ["g"], HS, k, suppression, progress=False)
        on_polars = pa.search(df, ["g"], HS, k, suppression, progress=False)
        levels = on_polars.best("min_loss")
        assert on_spark.best("min_loss") == levels
        released = pl.from_pandas(on_spark.apply(levels=levels).toPandas())
        assert sizes(released) == sizes(on_polars.apply(levels=levels).collect())
    a = spark.createDataFrame([(i, "5371" + str(i % 2)) for i in range(40)], "k int, zip string")
    b = spark.createDataFrame([(i, f"home-{i}") for i in range(40)], "k int, ZIP string")
    zips = {"zip": pa.Hierarchy.from_rows([["53710", "5371*", "*"], ["53711", "5371*", "*"]])}
    with pytest.raises(pa.ConfigError, match="Spark's SQL does not tell apart"):
        pa.search(a.join(b, "k"), ["zip"], zips, 20, progress=False)


def test_an_interval_column_is_refused_naming_it() -> None:
    """Polars does not read DuckDB's INTERVAL: reading the relation's schema
    was a Rust panic out of Polars' Arrow import."""
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE t AS SELECT ['a', 'b'][i % 2 + 1] AS g, INTERVAL (i) DAY AS waited "
        "FROM range(40) r(i)"
    )
    hs = {"g": pa.Hierarchy.from_rows([["a", "*"], ["b", "*"]])}
    with pytest.raises(pa.ConfigError, match=r"column: waited: DuckDB INTERVAL"):
        pa.search(con.table("t"), ["g"], hs, 5, identifiers=["waited"], progress=False)
    cast = con.sql("SELECT g, CAST(waited AS VARCHAR) AS waited FROM t")
    r = pa.search(cast, ["g"], hs, 5, identifiers=["waited"], progress=False)
    assert frame(r.apply(levels={"g": 0})).columns == ["g"]


def test_a_value_changed_in_place_is_named_so() -> None:
    """A release whose groups differ from the checked ones in the same
    numbers (12 rows in 4 groups) said that the source changed or the
    engine differs; it names values changed in place. Its snapshot, made
    before the groups were compared, is dropped."""
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE t AS SELECT ['a', 'b'][i % 2 + 1] AS g, ['x', 'y'][i // 2 % 2 + 1] AS s "
        "FROM range(12) r(i)"
    )
    hs = {"g": pa.Hierarchy.from_rows([["a", "*"], ["b", "*"]])}
    l2 = [pa.DistinctLDiversity(2, "s")]
    r = pa.search(con.table("t"), ["g"], hs, 3, criteria=l2, progress=False)
    con.execute(
        "UPDATE t SET s = 'y' WHERE rowid = (SELECT min(rowid) FROM t WHERE g = 'a' AND s = 'x')"
    )
    snapshots = "SELECT count(*) FROM duckdb_tables() WHERE database_name LIKE '__polars_anon%'"
    held = con.sql(snapshots).fetchall()
    with pytest.raises(
        pa.NotAnonymousError,
        match=r"4 groups of 12 rows, expected 4 of 12\): values changed in place",
    ):
        r.apply(levels={"g": 0})
    # the refused release's snapshot is dropped, not left on the connection
    assert con.sql(snapshots).fetchall() == held


def test_a_uuid_released_to_parquet_by_duckdb(tmp_path: Path) -> None:
    """DuckDB writes a UUID to Parquet as its 16 bytes, which the proof read
    as other text than the checked groups' and refused, blaming a plan
    that draws other rows."""
    con = duckdb.connect()
    ids = ["00000000-0000-0000-0000-000000000001", "12345678-1234-5678-1234-567812345678"]
    con.execute(
        f"CREATE TABLE t AS SELECT {ids}[i % 2 + 1]::UUID AS uid, "
        f"{ids}[i // 2 % 2 + 1]::UUID AS other, ['a', 'b'][i % 2 + 1] AS g FROM range(100) r(i)"
    )
    hs = {"uid": pa.Hierarchy.from_rows([[u, "*"] for u in ids])}
    r = pa.search(
        con.table("t"),
        ["uid"],
        hs,
        5,
        criteria=[pa.DistinctLDiversity(2, "other")],
        insensitive=["g"],
        progress=False,
    )
    path = r.sink_parquet(tmp_path / "r.parquet", levels={"uid": 0})
    back = pl.read_parquet(path)
    assert back.schema["uid"] == pl.Binary  # DuckDB's own layout
    texts = back.select(pl.col("uid").bin.encode("hex")).get_column("uid")
    assert sorted(set(texts)) == sorted(u.replace("-", "") for u in ids)
    assert back.height == 100
