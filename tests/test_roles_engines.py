"""Identifiers on DuckDB and Spark (local[2], for real): keyed pseudonyms,
masks, pseudonym tables and dropped columns give exactly the values of the
Polars path (and of Python's `hmac` for the keyed ones); the key is in no
SQL text or Spark plan; the distinct values and their estimated counts
agree with Polars."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import sys
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import polars_anon as pa
from polars_anon.engines import duckdb as duck_engine
from polars_anon.engines import spark as spark_engine
from polars_anon.roles import polars as polars_roles
from polars_anon.roles.ops import Keyed, Mapped, Op
from polars_anon.roles.spec import Drop, Mask
from tests.conftest import to_duckdb

KEY = b"a-secret-key-16b"  # 16 bytes: shorter than a block
LONG_KEY = bytes(range(100))  # longer than a block: hashed first
NAMES = ["Zoë", "", None, "Ana", "François", "日本語テキスト", "x", "ab", None, "Zoë", "O'Brien"]

TABLE = pl.DataFrame(
    {
        "id": range(len(NAMES)),
        "name": NAMES,
        "num": [7, None, -3, 0, 123456789012, 7, None, 5, 42, -1, 10],
        "day": [dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in range(len(NAMES))],
    }
)


Engine = tuple[Callable[[pl.DataFrame], Any], Any]


@pytest.fixture(params=["duckdb", "spark"])
def on(request: pytest.FixtureRequest) -> Engine:
    """How a Polars frame becomes the engine's table, and the engine module."""
    if request.param == "duckdb":
        return to_duckdb, duck_engine
    session = request.getfixturevalue(request.param)
    return (lambda frame: session.createDataFrame(frame.to_arrow())), spark_engine


def frame(x: Any) -> pl.DataFrame:
    """An engine's table as Polars, in the order of ``id``."""
    out = pl.from_arrow(x.toArrow() if hasattr(x, "toArrow") else x.to_arrow_table())
    assert isinstance(out, pl.DataFrame)
    return out.sort("id")


def polars_identify(ops: list[tuple[str, Op]], table: pl.DataFrame = TABLE) -> pl.DataFrame:
    return polars_roles.identify(table.lazy(), ops).collect().sort("id")


def text(v: object) -> str | None:
    return None if v is None else str(v)


def hmac_hex(key: bytes, v: object, length: int) -> str | None:
    t = text(v)
    return None if t is None else hmac.new(key, t.encode(), hashlib.sha256).hexdigest()[:length]


def masked(v: object, op: Mask) -> str | None:
    t = text(v)
    if t is None:
        return None
    if len(t) <= op.keep_first + op.keep_last:
        return op.char * len(t)
    return (
        t[: op.keep_first]
        + op.char * (len(t) - op.keep_first - op.keep_last)
        + t[len(t) - op.keep_last :]
    )


@pytest.mark.parametrize("key", [KEY, LONG_KEY], ids=["16-bytes", "100-bytes"])
@pytest.mark.parametrize("length", [8, 32, 64])
def test_keyed_pseudonyms_are_hmac_sha256_as_on_polars(on: Engine, key: bytes, length: int) -> None:
    to_native, engine = on
    ops: list[tuple[str, Op]] = [(c, Keyed(key, length)) for c in ("name", "num", "day")]
    got = frame(engine.identify(to_native(TABLE), ops))
    want = polars_identify(ops)
    assert got.columns == TABLE.columns
    assert got.equals(want)
    for c in ("name", "num", "day"):
        assert got.schema[c] == pl.String
        assert got.get_column(c).to_list() == [hmac_hex(key, v, length) for v in TABLE[c]]


def test_another_key_gives_other_pseudonyms(on: Engine) -> None:
    to_native, engine = on
    native = to_native(TABLE)
    a = frame(engine.identify(native, [("name", Keyed(KEY, 32))])).get_column("name")
    b = frame(engine.identify(native, [("name", Keyed(LONG_KEY, 32))])).get_column("name")
    assert a.is_null().equals(b.is_null())
    assert not (a == b).any()
    # the same value, the same pseudonym; different values, different ones
    assert a.drop_nulls().n_unique() == TABLE["name"].drop_nulls().n_unique()


MASKS = [
    Mask(),
    Mask(0, 0),
    Mask(1, 1, "#"),
    Mask(2, 3),
    Mask(3, 0, "é"),
    Mask(0, 2, "'"),
    Mask(10, 10),
]


@pytest.mark.parametrize("op", MASKS, ids=repr)
def test_masks_are_as_on_polars(on: Engine, op: Mask) -> None:
    to_native, engine = on
    ops: list[tuple[str, Op]] = [("name", op), ("num", op)]
    got = frame(engine.identify(to_native(TABLE), ops))
    assert got.equals(polars_identify(ops))
    for c in ("name", "num"):
        assert got.get_column(c).to_list() == [masked(v, op) for v in TABLE[c]]


def test_pseudonym_tables_are_looked_up_as_on_polars(on: Engine) -> None:
    to_native, engine = on
    names = TABLE["name"].drop_nulls().unique().sort()
    nums = TABLE["num"].drop_nulls().cast(pl.String).unique().sort()
    by_name = pl.DataFrame({"value": names, "pseudonym": [f"n{i}" for i in range(names.len())]})
    by_num = pl.DataFrame({"value": nums, "pseudonym": [f"m{i}" for i in range(nums.len())]})
    ops: list[tuple[str, Op]] = [("name", Mapped(by_name)), ("num", Mapped(by_num))]
    got = frame(engine.identify(to_native(TABLE), ops))
    assert got.columns == TABLE.columns
    assert got.equals(polars_identify(ops))
    lookup = dict(by_name.iter_rows())
    assert got["name"].to_list() == [None if v is None else lookup[v] for v in TABLE["name"]]


def test_dropped_and_transformed_together(on: Engine) -> None:
    """Column order kept, the dropped ones left out, every row kept."""
    to_native, engine = on
    mapping = pl.DataFrame({"value": TABLE["day"].cast(pl.String), "pseudonym": TABLE["name"]})
    ops: list[tuple[str, Op]] = [
        ("num", Keyed(LONG_KEY, 16)),
        ("name", Drop()),
        ("day", Mapped(mapping)),
    ]
    got = frame(engine.identify(to_native(TABLE), ops))
    assert got.columns == ["id", "num", "day"]
    assert got.height == TABLE.height
    assert got.equals(polars_identify(ops))
    only_drop = frame(engine.identify(to_native(TABLE), [("name", Drop()), ("day", Drop())]))
    assert only_drop.equals(TABLE.select("id", "num"))


def secrets_of(key: bytes) -> list[str]:
    """The key and its pads as they could show in a query or a plan."""
    out = [key.decode("latin-1"), key.hex(), key.hex().upper()]
    for pad in duck_engine.hmac_pads(key):
        out += [pad.hex(), pad.hex().upper(), pad.decode("latin-1")]
    return out


class Recording:
    """A DuckDB relation that records the SQL run on it."""

    def __init__(self, rel: Any) -> None:
        self.rel, self.sql = rel, []

    def query(self, name: str, sql: str) -> Any:
        self.sql.append(sql)
        # the caller's frame's Arrow table, for DuckDB's replacement scan
        arrow = sys._getframe(1).f_locals.get("arrow")  # noqa: F841
        return self.rel.query(name, sql)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rel, name)


@pytest.mark.parametrize("key", [KEY, LONG_KEY], ids=["16-bytes", "100-bytes"])
def test_the_key_is_in_no_duckdb_sql(key: bytes) -> None:
    rel = to_duckdb(TABLE)
    recording = Recording(rel)
    out = duck_engine.identify(recording, [("name", Keyed(key, 32)), ("num", Mask())])
    assert frame(out).equals(polars_identify([("name", Keyed(key, 32)), ("num", Mask())]))
    con = rel.query("x", "SELECT 1")  # any query reads the same connection's catalog
    catalog = con.query("x", "SELECT table_name, sql FROM duckdb_tables()").fetchall()
    # the pads' table is gone: what is left is the table and the snapshot
    assert len(catalog) == 2
    texts = [*recording.sql, out.sql_query(), *(sql for _, sql in catalog)]
    assert any("sha256" in t for t in texts)
    for secret in secrets_of(key):
        assert not any(secret in t for t in texts)


@pytest.mark.parametrize("key", [KEY, LONG_KEY], ids=["16-bytes", "100-bytes"])
def test_the_key_is_in_no_spark_plan(spark: Any, key: bytes) -> None:
    out = spark_engine.identify(spark.createDataFrame(TABLE.to_arrow()), [("name", Keyed(key, 32))])
    plans = out._jdf.queryExecution().toString()
    assert "sha2" in plans
    for secret in secrets_of(key):
        assert secret not in plans
    assert frame(out).equals(polars_identify([("name", Keyed(key, 32))]))


def test_distinct_values_as_text(on: Engine) -> None:
    to_native, engine = on
    native = to_native(TABLE)
    for c in TABLE.columns:
        got = engine.distinct(native, c)
        assert got.dtype == pl.String
        want = TABLE[c].drop_nulls().cast(pl.String).unique()
        assert got.sort().to_list() == want.sort().to_list()


def test_distinct_counts_estimate_the_polars_counts(on: Engine) -> None:
    to_native, engine = on
    n = 5000
    table = pl.DataFrame(
        {
            "record": [f"r{i}" for i in range(n)],
            "few": [i % 7 for i in range(n)],
            "mostly_null": [i if i % 10 == 0 else None for i in range(n)],
            "none": pl.Series([None] * n, dtype=pl.String),
            "half": [i // 2 for i in range(n)],
        }
    )
    columns = table.columns
    rows, counts = engine.distinct_counts(to_native(table), columns)
    assert rows == n
    assert list(counts) == columns
    for c in columns:
        exact = table[c].drop_nulls().n_unique()
        # Spark's default relative error is 5%: two of them
        assert abs(counts[c][0] - exact) <= 0.1 * exact, (c, counts[c], exact)
        assert counts[c][1] == table[c].count(), c  # the rows that hold a value
    assert counts["few"][0] == 7 and counts["none"] == (0, 0)
    assert counts["record"][0] > n / 2 and counts["few"][0] < n / 2
    assert engine.distinct_counts(to_native(table), []) == (n, {})


def test_the_undeclared_rule_counts_exactly_on_every_engine(on: Engine) -> None:
    """16 distinct names in 28 rows: more than half, refused on Polars; the
    estimates said 14 (DuckDB) or so, and the names went out unchanged."""
    to_native, engine = on
    names = [f"p{1424 + i}" for i in range(16)]
    table = pl.DataFrame({"zip": ["53715", "53703"] * 14, "name": names + names[:12]})
    rows, counts = engine.distinct_counts(to_native(table), ["name"], exact=True)
    assert (rows, counts) == (28, {"name": (16, 28)})
    hs = {"zip": pa.Hierarchy.from_rows([["53715", "537**", "*"], ["53703", "537**", "*"]])}
    for data in (table, to_native(table)):
        result = pa.search(data, ["zip"], hs, k=2, progress=False)
        with pytest.raises(pa.ConfigError, match=r"'name' \(16 distinct values\)"):
            result.apply(data, levels={"zip": 0})


def test_a_mask_that_leaves_each_record_named_is_refused_on_every_engine(on: Engine) -> None:
    """Record numbers masked but their last 4 digits kept still name each of
    100 records: refused on Polars and on the engine alike, the masked
    values counted as each engine masks them (equal to Polars' own count);
    keeping 1 digit leaves 9 values and passes."""
    from polars_anon.roles.masked import masked_counts

    to_native, engine = on
    table = pl.DataFrame(
        {
            "zip": ["53715", "53703"] * 50,
            "mrn": [f"MRN-{i:06d}" if i % 10 else None for i in range(100)],
        }
    )
    masks = {"mrn": Mask(keep_last=4)}
    name = engine.__name__.rsplit(".", 1)[-1]
    expected = (90, 90)  # 90 values held, each its own last 4 digits
    assert masked_counts(table, "polars", masks, 100) == {"mrn": expected}
    assert masked_counts(to_native(table), name, masks, 100) == {"mrn": expected}
    assert masked_counts(to_native(table), name, {"mrn": Mask(keep_last=1)}, 100) == {
        "mrn": (9, 90)  # the last digits 1-9 (those of 0 are null)
    }
    hs = {"zip": pa.Hierarchy.from_rows([["53715", "537**", "*"], ["53703", "537**", "*"]])}
    for data in (table, to_native(table)):
        result = pa.search(data, ["zip"], hs, k=2, progress=False)
        with pytest.raises(pa.ConfigError, match=r"masked identifier 'mrn'.*90 distinct"):
            result.apply(data, levels={"zip": 0}, identifiers={"mrn": Mask(keep_last=4)})
        kept_one = result.apply(data, levels={"zip": 0}, identifiers={"mrn": Mask(keep_last=1)})
        assert kept_one is not None
    # a check reports what a release would refuse
    report = pa.check(table, ["zip"], 2, hs, {"zip": 0}, identifiers={"mrn": Mask(keep_last=4)})
    fate = dict(report.columns.select("column", "released_as").rows())["mrn"]
    assert "refused: its masked values would identify records (90 distinct values" in fate
