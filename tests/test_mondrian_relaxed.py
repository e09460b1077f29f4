"""Relaxed Mondrian (#32): ordered attributes cut at the median record, the
records of the median value divided between the halves; and the numeric
ranges also as bounds. Releases recounted
with plain Polars: every class of at least k records (and the criteria),
every record's cell holding its own value, and a hand-computed example."""

from __future__ import annotations

import pickle
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_anon as pa
from tests.conftest import to_duckdb


def test_by_hand() -> None:
    # four records of 1 and two of 2, k = 3: strict cannot cut (4 | 2), relaxed
    # cuts at the third record: the first three 1s, then the fourth 1 with the 2s
    df = pl.DataFrame({"age": [1, 2, 1, 1, 2, 1], "id": [0, 1, 2, 3, 4, 5]})
    strict = pa.mondrian(df, ["age"], 3, insensitive=["id"])
    assert strict.partitions == 1
    relaxed = pa.mondrian(df, ["age"], 3, mode="relaxed", insensitive=["id"])
    assert relaxed.partitions == 2
    out = relaxed.apply().collect()
    assert out.get_column("age").to_list() == ["1", "[1-2]", "1", "1", "[1-2]", "[1-2]"]
    assert out.get_column("id").to_list() == list(range(6))
    # loss: the range [1-2] is the table's whole range: 3 of 6 records cost 1
    assert relaxed.loss == pytest.approx(0.5) and strict.loss == pytest.approx(1.0)


def holds(value: str, cell: str) -> bool:
    """Whether a released cell (a range, a set or a value) holds `value`."""
    if cell.startswith("[") and cell.endswith("]"):
        low, high = cell[1:-1].split("-")
        return float(low) <= float(value) <= float(high)
    if cell.startswith("{") and cell.endswith("}"):
        return value in cell[1:-1].split(",")
    return value == cell


def check_release(
    df: pl.DataFrame,
    qis: list[str],
    k: int,
    result: pa.MondrianResult,
    sensitive: str | None = None,
    hs: dict[str, pa.Hierarchy] | None = None,
) -> pl.DataFrame:
    """Recount the release: the table's records in their order, each cell
    holding the record's value (a hierarchy's: one of its ancestors), every
    class of at least k records."""
    out = result.apply().collect()
    assert out.height == df.height
    for q in qis:
        pairs = zip(df.get_column(q).cast(pl.String), out.get_column(q), strict=True)
        if hs and q in hs:
            h = hs[q]
            up = [
                dict(zip(h.leaves, h.leaf_labels(lvl), strict=True)) for lvl in range(h.height + 1)
            ]
            assert all(c in {m[v] for m in up} for v, c in pairs), q
        else:
            assert all(holds(v, c) for v, c in pairs), q
    sizes = out.group_by(qis).len().get_column("len")
    assert int(sizes.min()) >= k  # type: ignore[arg-type]
    # relaxed partitions may share their cells: one class of the release
    assert sizes.len() <= result.partitions
    if sensitive is not None:
        distinct = out.group_by(qis).agg(pl.col(sensitive).n_unique()).get_column(sensitive)
        assert int(distinct.min()) >= 2  # type: ignore[arg-type]
    return out


@pytest.mark.parametrize("k", [2, 5, 20])
def test_adult_relaxed_releases_recount(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], k: int
) -> None:
    df, hs = adult
    qis = ["age", "sex", "race", "education", "marital-status"]
    table = df.select(*qis, "salary-class").with_columns(pl.col("age").cast(pl.Int64))
    given = {q: hs[q] for q in ("education", "marital-status")}
    strict = pa.mondrian(table, qis, k, given)
    relaxed = pa.mondrian(table, qis, k, given, mode="relaxed")
    check_release(table, qis, k, relaxed, hs=given)
    check_release(table, qis, k, strict, hs=given)
    # the repr counts the release's groups where partitions share their cells
    groups = relaxed.apply().collect().group_by(qis).len().height
    shared = f"; {groups} groups in the release (some share their cells)"
    text = " ".join(repr(relaxed).split())  # the repr wraps its lines
    assert (shared in text) == (groups < relaxed.partitions), text
    assert "groups in the release" not in repr(strict)
    # with l-diversity on the salary class
    diverse = pa.mondrian(
        table, qis, k, given, mode="relaxed", criteria=[pa.DistinctLDiversity(2, "salary-class")]
    )
    check_release(table, qis, k, diverse, sensitive="salary-class", hs=given)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ages=st.lists(st.integers(0, 6), min_size=1, max_size=40),
    k=st.integers(1, 6),
    data=st.data(),
)
def test_random_tables(ages: list[int], k: int, data: st.DataObject) -> None:
    colors = data.draw(st.lists(st.sampled_from("abc"), min_size=len(ages), max_size=len(ages)))
    df = pl.DataFrame({"age": ages, "color": colors})
    if k > df.height:
        return
    r = pa.mondrian(df, ["age", "color"], k, mode="relaxed")
    check_release(df, ["age", "color"], k, r)
    # a final partition of 2k records or more holds one value of each attribute
    for row in r.groups.iter_rows(named=True):
        if row["count"] >= 2 * k:
            assert not row["age"].startswith("[") and not row["color"].startswith("{"), row


def test_pickles_and_engines(adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> None:
    df, _ = adult
    table = df.select("age", "sex").head(2000).with_columns(pl.col("age").cast(pl.Int64))
    r = pa.mondrian(table, ["age", "sex"], 5, mode="relaxed")
    again = pickle.loads(pickle.dumps(r))
    assert again.groups.sort(["age", "sex"]).equals(r.groups.sort(["age", "sex"]))
    assert again.apply().collect().equals(r.apply().collect())
    on_duckdb = pa.mondrian(to_duckdb(table), ["age", "sex"], 5, mode="relaxed")
    assert on_duckdb.partitions == r.partitions
    # released where it lives (tests/test_mondrian_relaxed_engines.py)
    released = pl.from_arrow(on_duckdb.apply().to_arrow_table())
    assert isinstance(released, pl.DataFrame)
    assert (
        released.group_by("age", "sex")
        .len()
        .sort("age", "sex")
        .equals(r.apply().collect().group_by("age", "sex").len().sort("age", "sex"))
    )


def test_a_job_file_partitions_relaxed_and_replays(tmp_path: Path) -> None:
    df = pl.DataFrame({"age": [1, 2, 1, 1, 2, 1] * 3, "id": list(range(18))})
    df.write_csv(tmp_path / "people.csv")
    (tmp_path / "job.toml").write_text(
        """
[input]
path = "people.csv"

[model]
quasi_identifiers = ["age"]
k = 4

[columns]
insensitive = ["id"]

[search]
algorithm = "mondrian"
mode = "relaxed"

[output]
path = "out.csv"
"""
    )
    run = pa.Job.from_toml(tmp_path / "job.toml").run()
    out = pl.read_csv(tmp_path / "out.csv", infer_schema=False)
    expect = pa.mondrian(df, ["age"], 4, mode="relaxed", insensitive=["id"]).apply().collect()
    assert out.get_column("age").to_list() == expect.get_column("age").to_list()
    assert int(out.group_by("age").len().get_column("len").min()) >= 4  # type: ignore[arg-type]
    again = pa.Job.from_toml(run.job_file).run(write_job=False)
    assert again.rows_released == run.rows_released == 18


@pytest.mark.parametrize("mode", ["strict", "relaxed"])
def test_numeric_bounds_beside_the_ranges(mode: str) -> None:
    df = pl.DataFrame({"age": [1, 2, 1, 1, 2, 1, 7, 9, 8, 8], "c": list("aabbaabbab")})
    r = pa.mondrian(df, ["age", "c"], 3, mode=mode)
    out = r.apply(numeric_bounds=True).collect()
    assert out.columns == ["age", "c", "age_lower", "age_upper"]
    for cell, low, high, age in zip(
        out.get_column("age"),
        out.get_column("age_lower"),
        out.get_column("age_upper"),
        df.get_column("age"),
        strict=True,
    ):
        assert low <= age <= high
        assert cell == (str(int(low)) if low == high else f"[{int(low)}-{int(high)}]")
    assert "age_lower" not in r.apply().collect().columns
    with pytest.raises(pa.ConfigError, match="already has column"):
        pa.mondrian(df.with_columns(age_lower=pl.lit(0)), ["age"], 3, mode=mode).apply(
            numeric_bounds=True
        )


def test_the_command_line_asks_for_relaxed(tmp_path: Path) -> None:
    from polars_anon.cli import main

    df = pl.DataFrame({"age": [1, 2, 1, 1, 2, 1] * 3, "id": list(range(18))})
    df.write_csv(tmp_path / "people.csv")
    out = tmp_path / "out.csv"
    base = ["anonymize", str(tmp_path / "people.csv"), "--qi", "age", "--k", "4"]
    args = [*base, "--insensitive", "id", "--algorithm", "mondrian", "--out", str(out)]
    assert main([*args, "--mode", "relaxed"]) == 0
    expect = pa.mondrian(df, ["age"], 4, mode="relaxed", insensitive=["id"]).apply().collect()
    written = pl.read_csv(out, infer_schema=False)
    assert written.get_column("age").to_list() == expect.get_column("age").to_list()
    assert main([*base, "--mode", "relaxed", "--out", str(tmp_path / "x.csv")]) == 2
