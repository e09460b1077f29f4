"""An Enum's type lists all its categories, those of the records a release
suppressed too, and a Parquet or IPC file keeps the list: a release gives
every Enum column it does not generalize (a quasi-identifier at level 0, a
sensitive attribute, one passed through) as text."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import polars_anon as pa

# one patient from a rare ZIP code, who alone has the rare diagnosis
ZIPS = ["53715"] * 5 + ["53703"] * 5 + ["90210"]
DIAG = ["flu", "cold"] * 5 + ["HIV"]
WARD = ["A", "B"] * 5 + ["Z"]


def enum(values: list[str]) -> pl.Series:
    return pl.Series(values).cast(pl.Enum(sorted(set(values))))


@pytest.fixture
def table() -> pl.DataFrame:
    return pl.DataFrame({"zip": enum(ZIPS), "diag": enum(DIAG), "ward": enum(WARD)})


HS = {"zip": pa.Hierarchy.from_rows([[z, z[:3] + "**", "*"] for z in sorted(set(ZIPS))])}


def test_enum_columns_leave_as_text(table: pl.DataFrame, tmp_path: Path) -> None:
    res = pa.search(
        table,
        ["zip"],
        HS,
        k=5,
        max_suppression=1,
        criteria=[pa.DistinctLDiversity(2, "diag")],
        progress=False,
    )
    levels = res.best("min_loss")
    assert levels == {"zip": 0}
    out = res.apply(table, levels=levels, insensitive=["ward"]).collect()
    # the rare patient is suppressed, and no type names them
    assert out.height == 10
    assert dict(out.schema) == {"zip": pl.String, "diag": pl.String, "ward": pl.String}
    want = table.head(10).select(pl.all().cast(pl.String))
    assert out.sort(out.columns).equals(want.sort(want.columns))
    for fmt in ("parquet", "ipc"):
        path = getattr(res, f"sink_{fmt}")(
            tmp_path / f"out.{fmt}", levels=levels, insensitive=["ward"]
        )
        held = Path(path).read_bytes()
        assert b"90210" not in held and b"HIV" not in held
        back = pl.read_parquet(path) if fmt == "parquet" else pl.read_ipc(path)
        assert all(t == pl.String for t in back.schema.values())


def test_differential_privacy_gives_enums_as_text() -> None:
    zips = ["53715"] * 400 + ["53703"] * 400 + ["90210"]
    df = pl.DataFrame({"zip": enum(zips)})
    r = pa.differential_privacy(
        df, ["zip"], HS, epsilon=2.0, delta=1e-5, seed=1, generalization={"zip": 0}
    )
    out = r.apply().collect()
    assert out.schema["zip"] == pl.String
    assert set(out.get_column("zip")) <= {"53715", "53703"}


def test_enum_generalized_and_at_level_zero_without_suppression() -> None:
    """Nothing suppressed: still text (the type would tell whether anything
    was), the values those of the rows."""
    df = pl.DataFrame({"zip": enum(ZIPS[:10]), "diag": enum(DIAG[:10])})
    out = pa.generalize(df, HS, {"zip": 1}, k=2).collect()
    assert dict(out.schema) == {"zip": pl.String, "diag": pl.String}
    assert out.get_column("zip").to_list() == ["537**"] * 10
    assert out.get_column("diag").to_list() == DIAG[:10]


def test_enums_in_lists_and_structs_leave_as_text(tmp_path: Path) -> None:
    """A passed-through list or struct of Enums kept the category list."""
    df = pl.DataFrame({"zip": ZIPS, "diag": enum(DIAG)}).with_columns(
        seen=pl.concat_list(pl.col("diag")),
        held=pl.struct(pl.col("diag").alias("d")),
    )
    out = pa.generalize(
        df, HS, {"zip": 0}, k=5, max_suppression=1, insensitive=["diag", "seen", "held"]
    )
    got = out.collect()
    assert got.schema["seen"] == pl.List(pl.String)
    assert got.schema["held"] == pl.Struct({"d": pl.String})
    assert got.get_column("seen").to_list() == [[d] for d in DIAG[:10]]
    path = tmp_path / "o.parquet"
    out.sink_parquet(path)
    assert b"HIV" not in path.read_bytes() and b"90210" not in path.read_bytes()


def test_duckdb_enums_leave_as_text() -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute("CREATE TYPE diag_t AS ENUM ('flu', 'cold', 'HIV', 'it''s')")
    con.execute("CREATE TYPE zip_t AS ENUM ('53715', '53703', '90210')")
    con.execute("CREATE TABLE t (zip zip_t, diag diag_t, seen diag_t[])")
    rows = [(z, d, d) for z, d in zip(ZIPS, DIAG, strict=True)]
    con.executemany("INSERT INTO t VALUES (?, ?, [?])", rows)
    out = pa.generalize(
        con.table("t"), HS, {"zip": 0}, k=5, max_suppression=1, insensitive=["diag", "seen"]
    )
    assert [str(t) for t in out.types] == ["VARCHAR", "VARCHAR", "VARCHAR[]"]
    got = out.pl().sort("zip", "diag")
    assert got.height == 10 and "HIV" not in got.get_column("diag").to_list()


@pytest.mark.parametrize("nulls", ["error", "value"])
@pytest.mark.parametrize("source", ["DataFrame", "LazyFrame", "scan"])
def test_kept_text_released_as_it_was(source: str, nulls: str, tmp_path: Path) -> None:
    """A text quasi-identifier kept at its values leaves with the very text
    (and nulls) of the rows released, whichever way the release carries it
    through its check (from a table in memory, as codes of an Enum of its
    leaves): recounted with plain Polars, suppression on and off."""
    import random

    rng = random.Random(7)
    jobs = [f"a job title long enough for a buffer {i}" for i in range(6)] + ["nurse", "cook"]
    n = 400
    job: list[str | None] = [rng.choice(jobs) for _ in range(n)]
    if nulls == "value":
        job[::37] = [None] * len(job[::37])
    table = pl.DataFrame({"job": job, "age": [rng.randrange(20, 70) for _ in range(n)]})
    table = table.with_columns(note=pl.format("note {}", pl.int_range(pl.len())))
    ages = [[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 70)]
    hs = {"age": pa.Hierarchy.from_rows(ages)}
    path = tmp_path / "t.parquet"
    table.write_parquet(path)
    data = {
        "DataFrame": table,
        "LazyFrame": table.lazy().with_columns(pl.col("age") + 0),
        "scan": pl.scan_parquet(path),
    }[source]
    for suppression, k in ((0, 1), (40, 5)):
        res = pa.search(data, ["job", "age"], hs, k, suppression, nulls=nulls, progress=False)  # type: ignore[arg-type]
        out = res.apply(data, levels={"job": 0, "age": 1}, insensitive=["note"]).collect()
        labelled = table.with_columns(
            age=pl.format("{}-{}", pl.col("age") // 10 * 10, pl.col("age") // 10 * 10 + 9)
        )
        want = labelled.filter(pl.len().over("job", "age") >= k)
        assert 0 < want.height and table.height - want.height <= suppression
        assert out.sort("note").equals(want.sort("note"))
