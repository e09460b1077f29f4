"""Engines: the frequency set computed by DuckDB and Spark (local[2], for
real) and the release built there agree with the Polars path as multisets
of rows; nulls, unknown values and empty tables give the same errors; a
user's counts are searched like data and never released as rows."""

from __future__ import annotations

import datetime as dt
import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_anon as pa
from polars_anon.prepare.f0 import prepare
from polars_anon.results.best import CRITERIA
from tests.conftest import SEARCHES, brute_anonymous, nodes, to_duckdb
from tests.test_search import tables

QIS = ["sex", "age", "race", "marital-status"]


@pytest.fixture(params=["duckdb", "spark"])
def on(request: pytest.FixtureRequest) -> Callable[[pl.DataFrame], Any]:
    if request.param == "duckdb":
        return to_duckdb
    session = request.getfixturevalue(request.param)
    return lambda frame: session.createDataFrame(frame.to_arrow())


def rows(x: Any) -> pl.DataFrame:
    """Any engine's table as Polars, sorted: a multiset of rows."""
    if isinstance(x, pl.LazyFrame):
        x = x.collect()
    elif hasattr(x, "toArrow"):
        x = pl.from_arrow(x.toArrow())
    elif hasattr(x, "to_arrow_table"):
        x = pl.from_arrow(x.to_arrow_table())
    assert isinstance(x, pl.DataFrame)
    return x.sort(x.columns, nulls_last=True)


def test_f0_search_and_release_agree_with_polars(
    on: Callable[[pl.DataFrame], Any], adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]
) -> None:
    df, hs = adult
    data = on(df)
    native = pa.frequency_set(data, QIS, hs)
    local = pa.frequency_set(df, QIS, hs)
    assert native.frame.sort(QIS).equals(local.frame.sort(QIS))
    for sup in (0, 0.01):
        engine = pa.search(data, QIS, hs, 5, sup, progress=False)
        polars = pa.search(df, QIS, hs, 5, sup, progress=False)
        assert engine.anonymous.equals(polars.anonymous)
        levels = polars.best("min_loss")
        out = engine.apply(data, levels=levels)
        assert type(out).__module__.split(".")[0] in ("duckdb", "pyspark")
        assert rows(out).equals(rows(polars.apply(df, levels=levels)))
    report = pa.check(data, QIS, 5, hs, levels=levels, max_suppression=0.01)
    assert report.k_anonymous
    risk = pa.risk(data, QIS, hs, levels=levels)
    assert risk.classes == int(report.group_sizes.get_column("groups").sum())
    assert risk.histogram.equals(pa.risk(df, QIS, hs, levels=levels).histogram)


def test_null_groups_are_suppressed_null_safely(on: Callable[[pl.DataFrame], Any]) -> None:
    # the null group is small: a plain anti-join would keep its rows
    df = pl.DataFrame({"zip": ["1", "1", "2", "2", None, "3", "3"], "x": [1, 2, 3, 4, 5, 6, 7]})
    data = on(df)
    polars = pa.search(df, ["zip"], None, 2, 1, nulls="value", progress=False)
    engine = pa.search(data, ["zip"], None, 2, 1, nulls="value", progress=False)
    assert engine.anonymous.equals(polars.anonymous)
    out = rows(engine.apply(data, levels={"zip": 0}))
    assert out.get_column("x").to_list() == [1, 2, 3, 4, 6, 7]
    assert out.equals(rows(polars.apply(df, levels={"zip": 0})))


def test_negative_zero_is_released_as_zero(
    on: Callable[[pl.DataFrame], Any], tmp_path: Path
) -> None:
    # DuckDB and Spark group and join -0.0 with 0.0; a release that handed
    # -0.0 back as it was held a group of one as text (k = 2 met as counted
    # there). Every -0.0 is released as 0.0, in one group with the zeros.
    df = pl.DataFrame(
        {
            "t": [-0.0, 0.0, 0.0, 1.0, 1.0, 1.0],
            "f": pl.Series([-0.0, 0.0, 0.0, 2.5, 2.5, 2.5], dtype=pl.Float32),
            "s": [-0.0, 0.0, 1.0, 1.0, 0.0, -0.0],
        }
    )
    data = on(df)
    r = pa.search(
        data, ["t", "f"], None, 2, 1, criteria=pa.DistinctLDiversity(2, "s"), progress=False
    )
    assert r.best() == {"t": 0, "f": 0}
    out = rows(r.apply(data))
    assert out.schema == df.schema
    assert out.select(pl.all().cast(pl.String).str.starts_with("-").any()).row(0) == (False,) * 3
    groups = (
        out.select(pl.all().cast(pl.String))
        .group_by("t", "f")
        .agg(pl.len(), pl.col("s").n_unique())
    )
    assert groups.sort("t").rows() == [("0.0", "0.0", 3, 2), ("1.0", "2.5", 3, 2)]
    if "duckdb" in type(data).__module__:
        written = r.sink_parquet(tmp_path / "out.parquet")
        assert rows(pl.read_parquet(written)).equals(out)


def test_column_names_with_dots_and_spaces(on: Callable[[pl.DataFrame], Any]) -> None:
    # Spark reads a.b as field b of a struct a unless quoted
    df = pl.DataFrame(
        {"t.x": [-0.0, 0.0, 0.0, 1.0, 1.0, 1.0] * 4, "a.b": list(range(24)), "s p": ["u", "v"] * 12}
    )
    data = on(df)
    key = pa.Pseudonym(key=b"k" * 16)
    r = pa.search(data, ["t.x", "s p"], None, 2, 1, identifiers={"a.b": key}, progress=False)
    local = pa.search(df, ["t.x", "s p"], None, 2, 1, identifiers={"a.b": key}, progress=False)
    out = rows(r.apply(data))
    assert out.columns == ["t.x", "a.b", "s p"]
    # the zeros in one group there (0.0), as -0.0 and 0.0 on Polars
    assert out.group_by("t.x", "s p").len().sort("t.x", "s p").rows() == [
        (0.0, "u", 8),
        (0.0, "v", 4),
        (1.0, "u", 4),
        (1.0, "v", 8),
    ]
    assert set(out.get_column("a.b")) == set(rows(local.apply(df)).get_column("a.b"))
    assert pa.check(data, ["t.x", "s p"], 2).k_anonymous


def test_columns_named_as_the_engines_own_ones(on: Callable[[pl.DataFrame], Any]) -> None:
    # v and l (a mapping's value and label) and n (a group's count) were the
    # engines' own names: such a quasi-identifier or sensitive attribute
    # failed the release with a raw engine error (search and check passed)
    df = pl.DataFrame({"v": ["a", "b"] * 12, "n": ["x", "x", "y", "y"] * 6, "l": list("pqr") * 8})
    hs = {
        "v": pa.Hierarchy.from_rows([["a", "*"], ["b", "*"]]),
        "n": pa.Hierarchy.from_rows([["x", "*"], ["y", "*"]]),
    }
    data = on(df)
    for qis, sensitive in ((["v", "n"], "l"), (["v", "l"], "n")):
        crit = [pa.DistinctLDiversity(2, sensitive)]
        r = pa.search(data, qis, hs, 2, criteria=crit, progress=False)
        local = pa.search(df, qis, hs, 2, criteria=crit, progress=False)
        assert r.anonymous.equals(local.anonymous)
        levels = {q: 0 for q in qis}
        out = rows(r.apply(data, levels=levels))
        assert out.equals(rows(local.apply(df, levels=levels)))
        assert out.group_by(qis).agg(pl.col(sensitive).n_unique())[sensitive].min() >= 2


def test_a_date_of_the_first_millennium_is_released(on: Callable[[pl.DataFrame], Any]) -> None:
    # Spark wrote year 1 as '1-01-01' in a literal, which Java refused
    df = pl.DataFrame({"d": [dt.date(1, 1, 1), dt.date(2000, 2, 29)] * 3})
    h = {"d": pa.hierarchy.date(df["d"], levels=["year"])}
    for level in (0, 1):
        out = rows(pa.generalize(on(df), h, {"d": level}, k=3))
        assert out.equals(rows(pa.generalize(df, h, {"d": level}, k=3)))


def test_kl_divergence_on_an_engine_compares_with_the_leaves(
    on: Callable[[pl.DataFrame], Any],
) -> None:
    # F0 is grouped at floor levels there ('a' at 1); KL divergence compares
    # a node with the input's leaves: by hand, 1.636 at (2, 0), 1.779 at
    # (1, 1), 1.708 at (2, 1); the other nodes are not 2-anonymous
    df = pl.DataFrame({"a": list("432443111"), "b": list("qpqqpqppp")})
    hs = {
        "a": pa.Hierarchy.from_rows(
            [["1", "x", "*"], ["2", "x", "*"], ["3", "y", "*"], ["4", "y", "*"]]
        ),
        "b": pa.Hierarchy.from_rows([["p", "*"], ["q", "*"]]),
    }
    data = on(df)
    engine = pa.search(data, ["a", "b"], hs, 2, progress=False)
    assert engine._prep.floors is not None and engine._prep.floors[0] == [1, 0]
    assert engine.best("min_kl_divergence") == {"a": 2, "b": 0}
    optimal = pa.search(
        data, ["a", "b"], hs, 2, algorithm="optimal", metric="kl_divergence", progress=False
    )
    assert optimal.best("min_kl_divergence") == {"a": 2, "b": 0}
    local = pa.search(df, ["a", "b"], hs, 2, progress=False)
    for criterion in CRITERIA:
        assert engine.best(criterion) == local.best(criterion), criterion
    # a pickle keeps the set at floor levels only: refused, not answered wrong
    kept = pickle.loads(pickle.dumps(engine))
    assert kept.best("min_loss") == engine.best("min_loss")
    with pytest.raises(pa.ConfigError, match="KL divergence compares with the leaves"):
        kept.best("min_kl_divergence")


def test_zoned_date_times_named_at_another_offset_are_explained(tmp_path: Path) -> None:
    # DuckDB gives a zoned Parquet column in UTC: a hierarchy built from the
    # Polars column (Europe/Berlin) names the same instants as other text
    import duckdb

    zoned = pl.DataFrame({"t": [dt.datetime(2021, 1, 1, 12), dt.datetime(2021, 6, 1, 8)] * 3})
    zoned = zoned.with_columns(pl.col("t").dt.replace_time_zone("Europe/Berlin"))
    zoned.write_parquet(tmp_path / "t.parquet")
    h = pa.hierarchy.date(zoned.get_column("t"), levels=["year"])
    rel = duckdb.read_parquet(str(tmp_path / "t.parquet"))
    with pytest.raises(pa.MissingValueError, match="same instants at another offset"):
        pa.search(rel, ["t"], {"t": h}, 2, progress=False)
    # so with nulls read as a value (the null's label was taken for a
    # date-time that no offset names, and the hint left out)
    with_null = pl.concat(
        [zoned, zoned.head(2).with_columns(pl.lit(None).cast(zoned["t"].dtype).alias("t"))]
    )
    with_null.write_parquet(tmp_path / "n.parquet")
    nulls = duckdb.read_parquet(str(tmp_path / "n.parquet"))
    for call in (
        lambda: pa.search(nulls, ["t"], {"t": h}, 2, nulls="value", progress=False),
        lambda: pa.generalize(nulls, {"t": h}, {"t": 1}, 2, nulls="value"),
    ):
        with pytest.raises(pa.MissingValueError, match="same instants at another offset"):
            call()
    utc = zoned.get_column("t").dt.convert_time_zone("UTC")
    r = pa.search(rel, ["t"], {"t": pa.hierarchy.date(utc, levels=["year"])}, 2, progress=False)
    assert r.best() == {"t": 0}


def test_zoned_date_times_written_by_duckdb_in_another_session_zone_are_proven(
    tmp_path: Path,
) -> None:
    # DuckDB writes a zoned column in UTC; in a session of another zone the
    # release's labels (Europe/Paris text) were compared with the file's UTC
    # text, and a correct release was refused as a changing source
    import duckdb

    ts = pl.datetime_range(
        dt.datetime(2024, 3, 30), dt.datetime(2024, 3, 31, 4), "1h", eager=True
    ).dt.replace_time_zone("Europe/Paris", ambiguous="earliest", non_existent="null")
    df = pl.DataFrame({"t": ts.drop_nulls().to_list() * 3})
    df = df.with_columns(sex=pl.Series(["F", "M", "F"] * (df.height // 3)))
    df.write_parquet(tmp_path / "t.parquet")
    hs = {
        "t": pa.hierarchy.date(df.get_column("t"), levels=["day"]),
        "sex": pa.Hierarchy.from_rows([["F", "*"], ["M", "*"]]),
    }
    con = duckdb.connect()
    con.execute("SET TimeZone = 'Europe/Paris'")
    rel = con.read_parquet(str(tmp_path / "t.parquet"))
    levels = {"t": 0, "sex": 1}
    r = pa.search(rel, ["t", "sex"], hs, 2, progress=False)
    for written in (
        r.sink_parquet(tmp_path / "r.parquet", levels=levels),
        pa.generalize(rel, hs, levels, 2, out=tmp_path / "g.parquet"),
    ):
        got = pl.read_parquet(written)
        assert (
            got.get_column("t")
            .dt.convert_time_zone("Europe/Paris")
            .sort()
            .equals(df.get_column("t").sort())
        )
        assert got.get_column("sex").unique().to_list() == ["*"]


WIDE = [*QIS, "education", "native-country", "workclass", "occupation"]


def plain_floors(
    df: pl.DataFrame, hs: dict[str, pa.Hierarchy], qis: list[str], k: int, budget: int
) -> list[int]:
    """Each column's lowest level at which it alone leaves at most `budget`
    rows in groups smaller than k, with plain Polars over the raw rows."""
    out = []
    for q in qis:
        h = hs[q]
        for level in range(h.height + 1):
            labels = pl.DataFrame({q: h.leaves, "label": h.leaf_labels(level)})
            raw = df.select(pl.col(q).cast(pl.String))
            sizes = raw.join(labels, on=q).group_by("label").len()
            if sizes.filter(pl.col("len") < k).get_column("len").sum() <= budget:
                out.append(level)
                break
    return out


def test_a_csv_reads_alike_on_polars_and_duckdb(tmp_path: Path) -> None:
    # a number column with a text far down the file (past both readers'
    # samples) stays text whole instead of failing the read; a quoted empty
    # field is an empty text and an unquoted one null on both; dates stay
    # the text they are (Polars reads no dates from CSV)
    from polars_anon.engines import duckdb as on_duckdb
    from polars_anon.engines import polars as on_polars

    n = 30_000
    ages = [str(20 + i % 50) for i in range(n - 1)] + ["unknown"]
    # and an integer column ending in 3.5, which DuckDB's cast rounds to 4
    counts = [str(i % 9) for i in range(n - 1)] + ["3.5"]
    lines = ["age,score,note,admit,n"]
    for i, (age, count) in enumerate(zip(ages, counts, strict=True)):
        note = '""' if i % 3 == 0 else ("" if i % 3 == 1 else "ok")
        lines.append(f"{age},{i % 7},{note},2024-01-{1 + i % 28:02d},{count}")
    path = tmp_path / "late.csv"
    path.write_text("\n".join(lines) + "\n")
    on_p = on_polars.read(path, ",", "utf8").collect()
    on_d = pl.from_arrow(on_duckdb.read(path, ",", "utf8").arrow())
    assert isinstance(on_d, pl.DataFrame)
    for frame in (on_p, on_d):
        assert frame.schema["age"] == pl.String and frame.schema["admit"] == pl.String
        assert frame.schema["score"].is_integer()
        assert frame.get_column("age").to_list() == ages
        assert frame.get_column("n").to_list() == counts
        notes = frame.get_column("note")
        assert (notes == "").sum() == 10_000 and notes.null_count() == 10_000
    assert on_p.cast(on_d.schema).equals(on_d)


@pytest.mark.parametrize(("k", "sup"), [(5, 0), (20, 0), (100, 0.01)])
def test_f0_at_floor_levels_answers_like_the_leaves(
    on: Callable[[pl.DataFrame], Any],
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
    k: int,
    sup: float,
) -> None:
    """Off Polars a search groups F0 at each attribute's lowest useful level:
    fewer rows cross, and every search answers as on the raw values; the
    release maps the raw values, and nothing below the floors is released."""
    df, hs = adult
    data = on(df)
    budget = int(sup * df.height)
    floors = plain_floors(df, hs, WIDE, k, budget)
    assert any(floors)
    for algorithm in ("incognito", "optimal", "samarati", "bottom_up"):
        engine = pa.search(data, WIDE, hs, k, sup, algorithm=algorithm, progress=False)
        polars = pa.search(df, WIDE, hs, k, sup, algorithm=algorithm, progress=False)
        prep = engine._prep
        assert prep.floors == (floors, k, budget)
        assert prep.problem.distinct < polars._prep.problem.distinct
        assert prep.problem.rows == df.height
        assert prep.problem.heights == [hs[q].height for q in WIDE]
        shown = ", ".join(f"{q} {f}" for q, f in zip(WIDE, floors, strict=True) if f)
        assert f"{shown} ({prep.problem.distinct:,} rows)" in " ".join(repr(engine).split())
        assert engine.anonymous.equals(polars.anonymous), algorithm
    levels = polars.best("min_loss")
    want = rows(polars.apply(df, levels=levels))
    assert rows(engine.apply(levels=levels)).equals(want)
    assert rows(engine.apply(data, levels=levels)).equals(want)
    wide = {q: hs[q] for q in WIDE}
    assert rows(pa.generalize(data, wide, levels, k=k, max_suppression=sup)).equals(want)
    below = {q: 0 for q in WIDE}
    with pytest.raises(pa.NotAnonymousError, match="below level"):
        engine.apply(data, levels=below)
    # a pickled result keeps its frequency set at the floors, and its limits
    again = pickle.loads(pickle.dumps(engine))
    assert again.anonymous.equals(engine.anonymous)
    with pytest.raises(pa.NotAnonymousError, match="below level"):
        again.apply(levels=below)


def test_floors_with_nulls_and_a_value_shared_by_a_label(on: Callable[[pl.DataFrame], Any]) -> None:
    # zip alone is 2-anonymous only from level 1 (5 digits -> 3): the
    # null group (nulls="value", placed by the hierarchy under 130**) is
    # represented by a value of its label, and the release maps the null
    zips = ["13053", "13068", None, "14850", "14853", "14853", "13068"]
    df = pl.DataFrame({"zip": zips, "sex": ["M", "F", "M", "F", "M", "F", "M"]})
    leaves = ["13053", "13068", "NULL", "14850", "14853"]
    h = pa.Hierarchy.from_rows([[z, z[:3] + "**" if z != "NULL" else "130**", "*"] for z in leaves])
    hs = {"zip": h, "sex": pa.Hierarchy.from_rows([["M", "*"], ["F", "*"]])}
    data = on(df)
    engine = pa.search(data, ["zip", "sex"], hs, 2, 0, nulls="value", progress=False)
    polars = pa.search(df, ["zip", "sex"], hs, 2, 0, nulls="value", progress=False)
    assert engine._prep.floors == ([1, 0], 2, 0)
    assert engine.anonymous.equals(polars.anonymous)
    levels = {"zip": 1, "sex": 1}
    out = rows(engine.apply(data, levels=levels))
    assert out.get_column("zip").to_list() == ["130**"] * 4 + ["148**"] * 3
    assert out.equals(rows(polars.apply(df, levels=levels)))


def test_floors_with_nulls_a_hierarchy_has_no_row_for(on: Callable[[pl.DataFrame], Any]) -> None:
    """city's hierarchy has no row for null: nulls="value" places it under
    the top. At level 1 the given hierarchy has one label (CH) and the
    table two (CH, and * for the null); F0 at city's floor (2) was read
    through the given hierarchy, where level 1 is as good as the top, so
    Incognito called (1, 1) anonymous while the null is alone there."""
    ages = [30 + i % 4 for i in range(10)] + [40 + i % 4 for i in range(10)] + [47]
    df = pl.DataFrame({"city": ["Bern"] * 10 + ["Basel"] * 10 + [None], "age": ages})
    hs = {
        "city": pa.Hierarchy.from_rows([["Bern", "CH", "*"], ["Basel", "CH", "*"]]),
        "age": pa.hierarchy.interval(df.get_column("age"), widths=[10, 20]),
    }
    data = on(df)
    polars = pa.search(df, ["city", "age"], hs, 3, 0, nulls="value", progress=False)
    assert nodes(polars.anonymous, ["city", "age"]) == {(2, 1), (2, 2), (2, 3)}
    for algorithm, variant in SEARCHES:
        r = pa.search(
            data,
            ["city", "age"],
            hs,
            3,
            0,
            nulls="value",
            algorithm=algorithm,
            variant=variant,
            progress=False,
        )
        assert r._prep.floors == ([2, 1], 3, 0)
        assert r.anonymous.equals(polars.anonymous), (algorithm, variant)
    out = rows(r.apply(data, criterion="min_loss"))
    assert out.equals(rows(polars.apply(df, criterion="min_loss")))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tables(), k=st.integers(1, 5), sup=st.integers(0, 4))
def test_property_floors_answer_like_brute_force(
    data: tuple[pl.DataFrame, dict[str, pa.Hierarchy], list[str]], k: int, sup: int
) -> None:
    """Random tables and hierarchies on DuckDB (grouped at floor levels):
    every complete search and the optimal one answer as a brute force of
    every node over the raw rows."""
    df, hs, qis = data
    if k > df.height:
        return
    rel = to_duckdb(df)
    expect = brute_anonymous(df, qis, hs, k, sup)
    for algorithm, variant in SEARCHES:
        r = pa.search(rel, qis, hs, k, sup, algorithm=algorithm, variant=variant, progress=False)
        assert nodes(r.anonymous, qis) == expect, (algorithm, variant, r._prep.floors)
    best = pa.search(rel, qis, hs, k, sup, algorithm="optimal", progress=False)
    local = pa.search(df, qis, hs, k, sup, algorithm="optimal", progress=False)
    if expect:
        got, want = best.anonymous.filter(**best.best("min_loss")), local.anonymous
        want = want.filter(**local.best("min_loss"))
        assert got.get_column("loss").item() == pytest.approx(want.get_column("loss").item())
    else:
        assert best.anonymous.height == 0


def test_floors_refuse_values_that_miss_their_representative(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A value whose join to its representative fails reads as null where
    the data lives (a type that does not round-trip, say): F0 is refused
    rather than searched with those tuples moved."""
    from polars_anon.prepare import floors

    df, hs = adult
    find = floors.find

    def lossy(*args: Any, **kwargs: Any) -> Any:
        floored = find(*args, **kwargs)
        assert floored is not None and "age" in floored.maps
        floored.maps["age"] = floored.maps["age"].filter(pl.col("v") != 39)
        return floored

    monkeypatch.setattr(floors, "find", lossy)
    with pytest.raises(pa.AnonError, match=r"'age' has \d+ null tuple"):
        pa.search(to_duckdb(df), WIDE, hs, 5, 0, progress=False)


def test_floors_where_no_level_of_a_column_passes(on: Callable[[pl.DataFrame], Any]) -> None:
    # "a" has no level of one value and every value once: no node is
    # 2-anonymous, and the floors stop at its top instead of failing
    df = pl.DataFrame({"a": ["1", "2", "3", "4", "5", "6"], "b": ["x", "x", "x", "y", "y", "y"]})
    hs = {
        "a": pa.Hierarchy.from_rows([[v] for v in "123456"]),
        "b": pa.Hierarchy.from_rows([["x", "*"], ["y", "*"]]),
    }
    engine = pa.search(on(df), ["a", "b"], hs, 2, 0, progress=False)
    assert engine.anonymous.height == 0
    assert engine.anonymous.equals(pa.search(df, ["a", "b"], hs, 2, 0, progress=False).anonymous)


def test_the_pandas_path_of_spark_before_4(
    spark: Any, adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], monkeypatch: Any
) -> None:
    """Spark 3.5's DataFrame has no toArrow: F0, the floors and the
    release's groups come back through toPandas (run here on Spark 4 with
    toArrow taken away)."""
    df, hs = adult
    data = spark.createDataFrame(df.to_arrow())
    for cls in type(data).__mro__:
        if "toArrow" in vars(cls):
            monkeypatch.delattr(cls, "toArrow")
    assert not hasattr(data, "toArrow")
    engine = pa.search(data, WIDE, hs, 5, 0, progress=False)
    polars = pa.search(df, WIDE, hs, 5, 0, progress=False)
    assert engine._prep.floors is not None
    assert engine.anonymous.equals(polars.anonymous)
    levels = polars.best("min_loss")
    got = pl.from_pandas(engine.apply(data, levels=levels).toPandas())
    assert got.sort(got.columns).equals(rows(polars.apply(df, levels=levels)))


def test_a_duckdb_query_that_reads_other_rows_each_time_is_named() -> None:
    import duckdb

    con = duckdb.connect()
    con.execute(
        "CREATE TABLE t AS SELECT (i % 2000)::VARCHAR AS d, (i % 2)::VARCHAR AS g "
        "FROM range(4000) r(i)"
    )
    hs = {
        "d": pa.Hierarchy.from_rows([[str(v), str(v // 50), "*"] for v in range(2000)]),
        "g": pa.Hierarchy.from_rows([["0", "*"], ["1", "*"]]),
    }
    sampled = con.sql("SELECT * FROM t WHERE random() < 0.5")
    with pytest.raises(pa.AnonError, match="store its result as a table"):
        pa.search(sampled, ["d", "g"], hs, 20, 0, progress=False)


@pytest.mark.parametrize("distinct", [600, 6000])
def test_spark_naive_timestamps_whatever_the_session_time_zone(
    spark: Any, tmp_path: Path, distinct: int
) -> None:
    """A TIMESTAMP_NTZ quasi-identifier under a session time zone other than
    the Python process's: the same nodes and release as Polars (its values
    once moved by the offset between the two and missed their labels), with
    few values (map literals) and many (a broadcast join)."""
    import random
    import time

    rnd = random.Random(distinct)
    start = dt.datetime(2024, 6, 1)
    df = pl.DataFrame(
        {
            "ts": [start + dt.timedelta(minutes=rnd.randrange(distinct)) for _ in range(8000)],
            "g": [rnd.choice("ab") for _ in range(8000)],
        }
    )
    df.write_parquet(tmp_path / "ts.parquet")
    hs = {
        "ts": pa.hierarchy.date(df.get_column("ts"), levels=["day", "month"]),
        "g": pa.Hierarchy.from_rows([["a", "*"], ["b", "*"]]),
    }
    other = "America/New_York" if time.localtime().tm_gmtoff > 0 else "Asia/Tokyo"
    was = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", other)
    try:
        data = spark.read.parquet(str(tmp_path / "ts.parquet"))
        assert data.schema["ts"].dataType.typeName() == "timestamp_ntz"
        for k in (5, 300):
            engine = pa.search(data, ["ts", "g"], hs, k, 0, progress=False)
            polars = pa.search(df, ["ts", "g"], hs, k, 0, progress=False)
            assert engine.anonymous.equals(polars.anonymous)
        levels = polars.best("min_loss")
        assert levels["ts"] < 3  # a date label, not the top
        assert rows(engine.apply(data, levels=levels)).equals(rows(polars.apply(df, levels=levels)))
    finally:
        spark.conf.set("spark.sql.session.timeZone", was)


@pytest.mark.parametrize(
    ("frame", "kwargs", "error", "match"),
    [
        (pl.DataFrame({"zip": ["1", None, "2"]}), {}, pa.MissingValueError, "'zip': 1 null"),
        (pl.DataFrame({"zip": pl.Series([], dtype=pl.String)}), {}, pa.ConfigError, "empty"),
        (
            pl.DataFrame({"zip": ["1", "9"]}),
            {"hierarchies": "h"},
            pa.MissingValueError,
            "'zip'.*missing from its hierarchy.*9",
        ),
        (
            pl.DataFrame({"zip": ["1"]}),
            {"quasi_identifiers": ["nope"]},
            pa.ConfigError,
            "unknown column",
        ),
    ],
)
def test_errors_are_the_same_on_every_engine(
    on: Callable[[pl.DataFrame], Any],
    frame: pl.DataFrame,
    kwargs: dict[str, Any],
    error: type[Exception],
    match: str,
) -> None:
    hs = {"zip": pa.Hierarchy.from_rows([["1", "*"], ["2", "*"]])}
    args = {"quasi_identifiers": ["zip"], "hierarchies": None, **kwargs}
    if args["hierarchies"] == "h":
        args["hierarchies"] = hs
    messages = []
    for data in (frame, on(frame)):
        with pytest.raises(error, match=match) as caught:
            pa.frequency_set(data, **args)
        messages.append(str(caught.value))
        # a search off Polars counts each column first (its floors): the
        # same errors from there
        with pytest.raises(error, match=match) as caught:
            pa.search(data, k=1, progress=False, **args)
        messages.append(str(caught.value))
    assert messages[0] == messages[2] and messages[1] == messages[3]


def test_the_duckdb_release_is_a_snapshot(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    rel = to_duckdb(df.head(2000))
    result = pa.search(rel, QIS, hs, 5, 0.05, progress=False)
    out = result.apply(levels=result.best("min_loss"))
    before = rows(out)
    # the source changes: a row that would make a group of one
    rel.query("t", "INSERT INTO t SELECT * REPLACE ('Other' AS race) FROM t LIMIT 1")
    assert rows(out).equals(before)
    # and a new release re-checks the new data
    assert rows(result.apply(rel, levels=result.best("min_loss"))).height >= before.height - 1


def test_the_duckdb_snapshot_is_held_in_a_file(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    """The snapshot is a table of an attached database file, not of memory,
    and holds the release Polars gives."""
    df, hs = adult
    rel = to_duckdb(df.head(3000))
    result = pa.search(rel, QIS, hs, 5, 0.02, progress=False)
    levels = result.best("min_loss")
    out = rows(result.apply(levels=levels))
    tables = rel.query("x", "SELECT database_name, table_name FROM duckdb_tables()").pl()
    snapshots = tables.filter(pl.col("table_name").str.starts_with("__polars_anon_release_"))
    assert snapshots.get_column("database_name").to_list() == ["__polars_anon_snapshots"]
    files = rel.query("x", "SELECT path FROM duckdb_databases() WHERE NOT internal").pl()
    assert any(p and os.path.getsize(p) > 0 for p in files.get_column("path"))
    local = pa.search(df.head(3000), QIS, hs, 5, 0.02, progress=False)
    assert out.equals(rows(local.apply(levels=levels)))


def test_a_read_only_duckdb_connection_is_released_and_written(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], tmp_path: Path
) -> None:
    """A read-only connection attaches files read-only unless told: the
    snapshot's database is attached writable."""
    import duckdb

    df, hs = adult
    con = duckdb.connect(str(tmp_path / "data.duckdb"))
    arrow = df.head(3000).to_arrow()  # noqa: F841 - read by DuckDB's replacement scan
    con.execute("CREATE TABLE t AS SELECT * FROM arrow")
    con.close()
    con = duckdb.connect(str(tmp_path / "data.duckdb"), read_only=True)
    result = pa.search(con.table("t"), QIS, hs, 5, 0.02, progress=False)
    levels = result.best("min_loss")
    local = rows(pa.search(df.head(3000), QIS, hs, 5, 0.02, progress=False).apply(levels=levels))
    assert rows(result.apply(levels=levels)).equals(local)
    written = result.sink_parquet(tmp_path / "r.parquet", levels=levels)
    assert rows(pl.read_parquet(written).select(local.columns)).equals(local)


def test_a_duckdb_release_sets_back_the_optimizers_a_user_disabled(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    """The release turns DuckDB's join-order optimizer off for its joins
    and sets back the connection's own list after."""
    df, hs = adult
    rel = to_duckdb(df.head(2000))
    rel.query("x", "SET disabled_optimizers = 'filter_pushdown'")
    result = pa.search(rel, QIS, hs, 5, 0.05, progress=False)
    assert rows(result.apply(criterion="min_loss")).height > 0
    optimizers = "SELECT current_setting('disabled_optimizers')"
    assert rel.query("x", optimizers).fetchall()[0][0] == "filter_pushdown"


def test_a_duckdb_release_is_written_by_duckdb_and_proven_on_its_file(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from polars_anon.engines import duckdb as on_duckdb

    df, hs = adult
    rel = to_duckdb(df.head(4000))
    result = pa.search(rel, QIS, hs, 5, 0.02, progress=False)
    levels = result.best("min_loss")
    local = rows(pa.search(df.head(4000), QIS, hs, 5, 0.02, progress=False).apply(levels=levels))
    written = result.sink_parquet(tmp_path / "r.parquet", levels=levels)
    assert rows(pl.read_parquet(written).select(local.columns)).equals(local)
    # the connection's settings are as they were
    setting = "SELECT current_setting('preserve_insertion_order')"
    assert rel.query("x", setting).fetchall()[0][0] in (True, "true")
    optimizers = "SELECT current_setting('disabled_optimizers')"
    assert rel.query("x", optimizers).fetchall()[0][0] in ("", None)
    csv = result.sink_csv(tmp_path / "r.csv", levels=levels)
    assert pl.read_csv(csv).height == local.height
    # a file that does not hold the checked groups is not left anywhere
    real = on_duckdb.write

    def one_row_short(rel: Any, path: Path, separator: str, fmt: str | None = None) -> int:
        return real(rel.limit(local.height - 1), path, separator, fmt)  # type: ignore[no-any-return]

    monkeypatch.setattr(on_duckdb, "write", one_row_short)
    with pytest.raises(pa.NotAnonymousError, match="nothing was written"):
        result.sink_parquet(tmp_path / "bad.parquet", levels=levels)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.parquet"]
    with pytest.raises(pa.ConfigError, match="folder of parts"):
        result.sink_parquet(tmp_path / "parts", levels=levels, partition_rows=1000)


def test_counts_from_elsewhere(adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> None:
    df, hs = adult
    counts = df.group_by(QIS).len(name="people")
    fs = pa.FrequencySet.from_counts(counts, count="people")
    assert fs.rows == df.height
    searched = pa.search(fs, QIS, hs, 5, 0.01, progress=False)
    assert searched.anonymous.equals(pa.search(df, QIS, hs, 5, 0.01, progress=False).anonymous)
    assert pa.check(fs, QIS, 5, hs).groups == pa.check(df, QIS, 5, hs).groups
    assert pa.risk(fs, QIS, hs).classes == pa.risk(df, QIS, hs).classes
    with pytest.raises(pa.ConfigError, match="no rows to release"):
        searched.apply()
    # from_counts adds up equal rows, so a preparation over all its columns
    # does not group again; a set made directly may repeat rows, and is
    # grouped: the same F0 either way, and over fewer columns too
    doubled = pa.FrequencySet(pl.concat([counts, counts]), count="people")
    assert fs.distinct and not doubled.distinct
    for cols in (QIS, QIS[:2]):
        f0s = [prepare(s, cols, hs).problem.groups([0] * len(cols)) for s in (fs, doubled)]
        mine, twice = (sorted(zip(*codes, n, strict=True)) for codes, n in f0s)
        assert [row[:-1] for row in mine] == [row[:-1] for row in twice]
        assert [2 * row[-1] for row in mine] == [row[-1] for row in twice]
        assert len(mine) == df.select(cols).unique().height
        assert prepare(doubled, cols, hs).f0.height == len(mine)  # grouped in Polars too
    release = searched.apply(df, criterion="min_loss").collect()
    assert pa.check(release, QIS, 5).min_group_size >= 5
    # a pickled engine result keeps counts, not rows
    import pickle

    rel = to_duckdb(df)
    again = pickle.loads(pickle.dumps(pa.search(rel, QIS, hs, 5, 0.01, progress=False)))
    with pytest.raises(pa.ConfigError, match="no rows to release"):
        again.apply()


@pytest.mark.parametrize(
    ("frame", "count", "match"),
    [
        (pl.DataFrame({"zip": ["1"], "n": [0]}), "n", "at least 1"),
        (
            pl.DataFrame({"zip": ["1"], "n": [None]}, schema={"zip": pl.String, "n": pl.Int64}),
            "n",
            "at least 1",
        ),
        (pl.DataFrame({"zip": ["1"], "n": [1.5]}), "n", "integers"),
        (pl.DataFrame({"zip": ["1"]}), "n", "no count column 'n'"),
        (pl.DataFrame({"n": [1]}), "n", "no columns besides"),
    ],
)
def test_bad_counts_are_refused(frame: pl.DataFrame, count: str, match: str) -> None:
    with pytest.raises(pa.ConfigError, match=match):
        pa.FrequencySet.from_counts(frame, count=count)


def test_engine_override_must_fit(adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> None:
    df, hs = adult
    with pytest.raises(pa.ConfigError, match="does not fit"):
        pa.frequency_set(df, QIS, hs, engine="duckdb")
    with pytest.raises(pa.ConfigError, match="unknown engine"):
        pa.frequency_set(df, QIS, hs, engine="oracle")


CONNECT = """
import os, sys
os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
from pyspark.sql import SparkSession
import polars as pl
import polars_anon as pa

builder = SparkSession.builder.remote("local[2]")
spark = builder.config("spark.sql.shuffle.partitions", "2").getOrCreate()
assert type(spark).__module__.startswith("pyspark.sql.connect"), type(spark)
lf, hs = pa.datasets.adult()
df = lf.collect()
qis = ["sex", "age", "race", "marital-status"]
sdf = spark.createDataFrame(df.to_arrow())
remote = pa.search(sdf, qis, hs, 5, 0.01, progress=False)
local = pa.search(df, qis, hs, 5, 0.01, progress=False)
assert remote.anonymous.equals(local.anonymous)
wide = qis + ["education", "native-country", "workclass", "occupation"]
remote_wide = pa.search(sdf, wide, hs, 5, 0, progress=False)
assert remote_wide._prep.floors is not None
assert remote_wide.anonymous.equals(pa.search(df, wide, hs, 5, 0, progress=False).anonymous)
levels = local.best("min_loss")
out = remote.apply(sdf, levels=levels)
got = pl.from_arrow(out.toArrow())
want = local.apply(df, levels=levels).collect()
assert got.sort(got.columns).equals(want.sort(want.columns))
spark.stop()
print("connect ok", got.height)
"""


def test_spark_connect_in_local_mode() -> None:
    """Spark Connect (what Databricks serverless and shared clusters allow),
    with a local server and no network; in its own process, since a process
    holds either a classic session or a remote one."""
    import subprocess

    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(
        [sys.executable, "-c", CONNECT], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "connect ok 29918" in done.stdout


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_the_cli_reads_and_releases_on_an_engine(
    engine: str,
    tmp_path: Any,
    request: pytest.FixtureRequest,
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    from polars_anon.cli import main

    if engine == "spark":
        request.getfixturevalue("spark")  # the CLI takes the active session
    df, hs = adult
    data = tmp_path / "adult.parquet"
    df.head(5000).write_parquet(data)
    folder = tmp_path / "h"
    folder.mkdir()
    for q in QIS:
        (folder / f"{q}.csv").write_text(hs[q].to_csv())
    common = [
        "--qi",
        ",".join(QIS),
        "--hierarchies",
        str(folder),
        "--k",
        "5",
        "--max-suppression",
        "2%",
    ]
    assert main(["anonymize", str(data), *common, "--out", str(tmp_path / "p.parquet")]) == 0
    out = tmp_path / f"{engine}.parquet"
    assert main(["anonymize", str(data), *common, "--engine", engine, "--out", str(out)]) == 0
    got = pl.read_parquet(out / "*.parquet" if out.is_dir() else out)
    want = pl.read_parquet(tmp_path / "p.parquet")
    assert got.sort(got.columns).equals(want.sort(want.columns))
    assert f'engine = "{engine}"' in (tmp_path / f"{engine}.parquet.job.toml").read_text()


def test_datasets_through_an_engine_and_cup(on: Callable[[pl.DataFrame], Any]) -> None:
    """ARX's cup table (ZIP codes with leading zeros, a hierarchy of 100,000
    leaves) on the engine: the same F0, answers and release as Polars."""
    lf, hs = pa.datasets.cup()
    df = lf.collect()
    qis = list(pa.datasets.CUP_QUASI_IDENTIFIERS[:5])
    data = on(df)
    assert (
        pa.frequency_set(data, qis, hs)
        .frame.sort(qis)
        .equals(pa.frequency_set(df, qis, hs).frame.sort(qis))
    )
    engine = pa.search(data, qis, hs, 10, 0.01, progress=False)
    polars = pa.search(df, qis, hs, 10, 0.01, progress=False)
    assert engine.anonymous.equals(polars.anonymous)
    levels = polars.best("min_loss")
    assert rows(engine.apply(data, levels=levels)).equals(rows(polars.apply(df, levels=levels)))


def test_datasets_load_on_each_engine(spark: Any) -> None:
    for engine, module in [("duckdb", "duckdb"), ("spark", "pyspark")]:
        data, hs = pa.datasets.cup(engine=engine)
        assert type(data).__module__.startswith(module)
        zips = pa.frequency_set(data, ["ZIP"], hs).frame.get_column("ZIP")
        assert zips.str.len_chars().min() == 5  # leading zeros kept


def test_generalize_takes_a_relation(adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> None:
    df, hs = adult
    two = {"age": hs["age"], "sex": hs["sex"]}
    levels = {"age": 2, "sex": 1}
    out = pa.generalize(to_duckdb(df), two, levels, k=5)  # QIs: the columns with hierarchies
    assert type(out).__module__.startswith("duckdb")
    assert rows(out).equals(rows(pa.generalize(df, two, levels, k=5)))
