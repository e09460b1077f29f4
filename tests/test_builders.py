"""Hierarchy builders: hand-computed hierarchies, round trips, edge values and
refusals, and a property test that every built hierarchy is a tree over
exactly its values."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_anon as pa
from polars_anon.hierarchy import Date, Interval, Masking, Ordered, from_dict, from_json


def is_tree_over(h: pa.Hierarchy, values: list[str]) -> None:
    """Every level a function of the one below, one top, the leaves exactly `values`."""
    assert sorted(h.leaves) == sorted(set(values))
    rows = h.rows
    for i in range(h.height):
        parent: dict[str, str] = {}
        for r in rows:
            assert parent.setdefault(r[i], r[i + 1]) == r[i + 1]
    assert len({r[-1] for r in rows}) == 1


def test_interval_hand_computed() -> None:
    h = pa.hierarchy.interval(
        pl.Series("age", [17, 23, 25, 44, 90]), widths=[5, 10, 20], bottom=18, top=90
    )
    assert {r[0]: r[1:] for r in h.rows} == {
        "17": ["<18", "<18", "<18", "*"],
        "23": ["[20-25)", "[20-30)", "[20-40)", "*"],
        "25": ["[25-30)", "[20-30)", "[20-40)", "*"],
        "44": ["[40-45)", "[40-50)", "[40-60)", "*"],
        "90": [">=90", ">=90", ">=90", "*"],
    }
    # a bin cut by the bottom says so
    cut = pa.hierarchy.interval([18, 19], widths=[5], bottom=18)
    assert cut.rows == [["18", "[18-20)", "*"], ["19", "[18-20)", "*"]]


def test_interval_floats_negative_and_anchor() -> None:
    h = pa.hierarchy.interval([-1.5, 0.25, 2.0], widths=[0.5, 1.0], anchor=0)
    rows = {r[0]: r[1:] for r in h.rows}
    assert rows["-1.5"] == ["[-1.5, -1)", "[-2, -1)", "*"]
    assert rows["0.25"] == ["[0-0.5)", "[0-1)", "*"]
    assert rows["2.0"] == ["[2-2.5)", "[2-3)", "*"]
    anchored = pa.hierarchy.interval([3, 7], widths=[4], anchor=1)
    assert [r[1] for r in anchored.rows] == ["[1-5)", "[5-9)"]


def test_negative_zero_is_zero() -> None:
    # -0.0 and 0.0 are one number, read as 0.0 on every engine (DuckDB and
    # Spark group them so); Polars' text tells them apart. Every builder
    # gives one leaf 0.0, and the search, from a DataFrame or a LazyFrame
    # grouped by Polars (more rows than ROWS_IN_CORE), counts them as one,
    # as the release gives them.
    values = [-0.0, 0.0, 1.0, 2.5]
    assert sorted(pa.hierarchy.interval(values, widths=[1]).leaves) == ["0.0", "1.0", "2.5"]
    assert sorted(pa.hierarchy.masking(values).leaves) == ["0.0", "1.0", "2.5"]
    assert pa.hierarchy.interval([-0.0, 1.0], widths=[1]).leaves == ["0.0", "1.0"]
    rows = 150_000
    df = pl.DataFrame(
        {
            "x": [-0.0, 0.0, 1.0, 1.0, 2.5, 2.5] * (rows // 6),
            "y": [0.0, -0.0, -0.0] * (rows // 3),
        }
    )
    hs = {
        "x": pa.hierarchy.interval(df["x"], widths=[1]),
        "y": pa.hierarchy.interval(df["y"], widths=[1]),
    }
    assert hs["y"].leaves == ["0.0"]
    # (no value is below 0.0: each -0.0's absolute value is 0.0)
    want = df.select(pl.col("x", "y").abs().cast(pl.String)).group_by("x", "y").len()
    want = want.sort("x", "y")
    assert want.rows() == [("0.0", "0.0", 50_000), ("1.0", "0.0", 50_000), ("2.5", "0.0", 50_000)]
    for data in (df, df.lazy()):
        r = pa.search(data, ["x", "y"], hs, 2, 0.0, progress=False)
        out = r.apply(levels={"x": 0, "y": 0}).collect()
        got = out.select(pl.col("x", "y").cast(pl.String)).group_by("x", "y").len()
        assert got.sort("x", "y").equals(want)
    # a hierarchy of -0.0 without 0.0 is refused, saying why
    minus = pa.Hierarchy.from_rows([["-0.0", "*"], ["1.0", "*"], ["2.5", "*"]])
    with pytest.raises(pa.ConfigError, match=r"leaf -0\.0 and none 0\.0"):
        pa.search(df, ["x"], {"x": minus}, 2, progress=False)
    # the paths that read the rows again: a Mondrian release of the table
    # given again, local recoding (which materializes the table)
    small = pl.DataFrame({"x": [-0.0, 0.0, -0.0, 0.0, 1.5, 1.5, 2.5, 2.5]})
    zeros = ["0.0"] * 4 + ["1.5", "1.5", "2.5", "2.5"]
    partition = pa.mondrian(small, ["x"], 2)
    assert partition.apply(small).collect().get_column("x").to_list() == zeros
    built = {"x": pa.hierarchy.interval(small["x"], widths=[10])}
    assert pa.local_recoding(small, ["x"], built, 2).data.get_column("x").to_list() == zeros


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"widths": [5, 7]}, "multiple"),
        ({"widths": [10, 5]}, "grow"),
        ({"widths": [0]}, "positive"),
        ({"widths": []}, "empty"),
        ({"widths": [float("nan")]}, "finite"),
        ({"widths": [5], "bottom": 50, "top": 10}, "below"),
    ],
)
def test_interval_bad_specs(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(pa.ConfigError, match=match):
        pa.hierarchy.interval([1, 2], **kwargs)  # type: ignore[arg-type]


def test_interval_bad_values() -> None:
    with pytest.raises(pa.ConfigError, match=r"1 value is not a finite number.*inf"):
        pa.hierarchy.interval(pl.Series("x", [1.0, float("inf")]), widths=[5])
    with pytest.raises(pa.ConfigError, match=r"need numbers.*'ten'"):
        pa.hierarchy.interval(pl.Series("x", ["1", "ten"]), widths=[5])
    with pytest.raises(pa.ConfigError, match=r"'x'.*null") as nulls:
        pa.hierarchy.interval(pl.Series("x", [1, None]), widths=[5])
    # the builder takes the values without nulls whichever way the search
    # reads them (it said "or search with nulls='value'", which it refused too)
    assert ".drop_nulls()" in str(nulls.value) and "nulls='value'" in str(nulls.value)
    built = pa.hierarchy.interval(pl.Series("x", [1, None]).drop_nulls(), widths=[5])
    df = pl.DataFrame({"x": [1, None, 1, None]})
    r = pa.search(df, ["x"], {"x": built}, 2, nulls="value", progress=False)
    assert r.best() == {"x": 0}
    with pytest.raises(pa.ConfigError, match="no values"):
        pa.hierarchy.interval(pl.Series("x", [], dtype=pl.Int64), widths=[5])
    # 1e60 + 1 is 1e60 at 60 digits: the bin [1e60-1e60) held nothing
    with pytest.raises(pa.ConfigError, match=r"'x': width 1 is too fine for the value 1000"):
        pa.hierarchy.interval(pl.Series("x", [1e60, 3e61]), widths=[1, 2])
    assert pa.hierarchy.interval(pl.Series("x", [1e60]), widths=[1e59]).rows[0][1] == (
        "[1" + "0" * 60 + "-11" + "0" * 59 + ")"
    )


def test_date_hand_computed() -> None:
    days = pl.Series("d", [dt.date(1999, 12, 31), dt.date(2004, 2, 29), dt.date(2004, 5, 1)])
    h = pa.hierarchy.date(days, levels=["month", "quarter", "year", "decade", "century"])
    assert {r[0]: r[1:] for r in h.rows} == {
        "1999-12-31": ["1999-12", "1999-Q4", "1999", "1990s", "1900-1999", "*"],
        "2004-02-29": ["2004-02", "2004-Q1", "2004", "2000s", "2000-2099", "*"],
        "2004-05-01": ["2004-05", "2004-Q2", "2004", "2000s", "2000-2099", "*"],
    }
    times = pl.Series("t", [dt.datetime(2020, 1, 2, 13, 45), dt.datetime(2020, 1, 2, 14, 5)])
    h = pa.hierarchy.date(times, levels=["hour", "day"])
    assert [r[1:] for r in h.rows] == [
        ["2020-01-02 13:00", "2020-01-02", "*"],
        ["2020-01-02 14:00", "2020-01-02", "*"],
    ]
    assert h.leaves == times.cast(pl.String).to_list()
    parsed = pa.hierarchy.date(["31/12/1999", "01/01/2000"], levels=["year"], format="%d/%m/%Y")
    assert [r[1] for r in parsed.rows] == ["1999", "2000"]
    # written in UTC itself (Z, +00:00): labelled in UTC, as it says
    utc = pa.hierarchy.date(["2020-01-05T01:00:00Z", "2020-12-31T23:00:00+00:00"], ["day"])
    assert [r[1] for r in utc.rows] == ["2020-01-05", "2020-12-31"]
    # an ISO week date names its day by the weekday
    week = pa.hierarchy.date(["2020-W02-3"], ["day", "month"], format="%G-W%V-%u")
    assert week.rows == [["2020-W02-3", "2020-01-08", "2020-01", "*"]]


@pytest.mark.parametrize(
    ("values", "kwargs", "match"),
    [
        ([dt.date(2020, 1, 1)], {"levels": ["year", "month"]}, "fine to coarse"),
        ([dt.date(2020, 1, 1)], {"levels": ["week"]}, "unknown date level"),
        ([dt.date(2020, 1, 1)], {"levels": ["hour"]}, "no 'hour'"),
        (["2020-01-01", "yesterday"], {"levels": ["year"]}, "1 value is not a date.*yesterday"),
        ([1, 2], {"levels": ["year"]}, "need dates"),
        # labels may not claim more than a value says: '2020' has no month,
        # a date no hour; a written offset names no calendar (2020-01-01T01
        # +09:00 was labelled 2019, in UTC)
        (["2020"], {"levels": ["month", "year"], "format": "%Y"}, "to the year.*no 'month'"),
        (["2020-01-05"], {"levels": ["hour", "day"]}, "to the day: they have no 'hour'"),
        (["2020-01"], {"levels": ["day"], "format": "%Y-%m"}, "to the month.*no 'day'"),
        (
            ["2020-01-01T01:00:00+0900"],
            {"levels": ["year"], "format": "%Y-%m-%dT%H:%M:%S%z"},
            "UTC offsets",
        ),
        (["2020-01-01T01:00:00+09:00"], {"levels": ["year"]}, "UTC offsets"),
    ],
)
def test_date_refusals(values: list[object], kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(pa.ConfigError, match=match):
        pa.hierarchy.date(values, **kwargs)  # type: ignore[arg-type]


def test_masking_hand_computed() -> None:
    h = pa.hierarchy.masking(pl.Series("zip", ["53715", "53706", "5370"]))
    assert {r[0]: r[1:] for r in h.rows} == {
        "53715": ["5371*", "537**", "53***", "5****", "*****", "*"],
        "53706": ["5370*", "537**", "53***", "5****", "*****", "*"],
        "5370": ["537*", "53**", "5***", "****", "****", "*"],
    }
    padded = pa.hierarchy.masking(pl.Series("zip", [2134, 53715]), masked=[2, 5], width=5)
    assert padded.rows == [["2134", "021**", "*"], ["53715", "537**", "*"]]
    hashes = pa.hierarchy.masking(["ab", "abc"], masked=[1], char="#")
    assert hashes.rows == [["ab", "a#", "#"], ["abc", "ab#", "#"]]


def test_masking_has_one_top() -> None:
    """Values of one length masked whole are one value, as the top is: that
    level gives way to the top, so no two levels in a row hold one value."""
    h = pa.hierarchy.masking(["53715", "53706", "53703"])
    assert h.rows[0] == ["53715", "5371*", "537**", "53***", "5****", "*"]
    assert h.height == 5
    assert pa.hierarchy.masking(["53715", "53706"], masked=[2, 5, 6]).rows == [
        ["53715", "537**", "*"],
        ["53706", "537**", "*"],
    ]
    for values in [["53715", "63706", "73703"], ["1", "22", "333"]]:
        sizes = [len(level) for level in pa.hierarchy.masking(values).levels]
        assert sizes == [3] * (len(sizes) - 1) + [1], sizes
    single = pa.hierarchy.masking(["7", "8"])
    assert single.rows == [["7", "*"], ["8", "*"]]


def test_a_value_that_is_the_top_label_keeps_the_height() -> None:
    # the top was added only where a row did not end with it, so a column
    # holding just "*" lost a level: a job's levels meant something else
    # (or fell out of range) on a file of other values
    spec = Ordered(order=("a", "b", "*"), sizes=(2,))
    assert spec.build(pl.Series("c", ["a"])).height == 2
    assert spec.build(pl.Series("c", ["*"])).rows == [["*", "*", "*"]]
    assert spec.build(pl.Series("c", ["*"])).height == 2
    assert pa.hierarchy.masking(["*"]).height == pa.hierarchy.masking(["a"]).height == 1


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"masked": [2, 1]}, "growing"),
        ({"masked": [0]}, "growing"),
        ({"char": "**"}, "one character"),
        ({"width": 3}, "longer than width 3.*12345"),
    ],
)
def test_masking_refusals(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(pa.ConfigError, match=match):
        pa.hierarchy.masking(["12345"], **kwargs)  # type: ignore[arg-type]


def test_ordered_hand_computed() -> None:
    order = ["none", "primary", "secondary", "bachelor", "master", "doctorate"]
    h = pa.hierarchy.ordered(["primary", "master", "doctorate"], order=order, sizes=[2, 2])
    assert {r[0]: r[1:] for r in h.rows} == {
        "primary": ["none..primary", "none..bachelor", "*"],
        "master": ["master..doctorate", "master..doctorate", "*"],
        "doctorate": ["master..doctorate", "master..doctorate", "*"],
    }
    # the top is there even when the last groups span the whole order, so
    # the spec alone fixes the height
    whole = pa.hierarchy.ordered(["primary"], order=order, sizes=[2, 3])
    assert whole.rows == [["primary", "none..primary", "none..doctorate", "*"]]
    # a last group shorter than its size
    h = pa.hierarchy.ordered(["a", "e"], order=list("abcde"), sizes=[2])
    assert h.rows == [["a", "a..b", "*"], ["e", "e", "*"]]
    with pytest.raises(pa.ConfigError, match=r"not in the order.*'z'"):
        pa.hierarchy.ordered(["a", "z"], order=list("abc"), sizes=[2])
    with pytest.raises(pa.ConfigError, match="twice"):
        pa.hierarchy.ordered(["a"], order=list("aba"), sizes=[2])
    with pytest.raises(pa.ConfigError, match="at least 2"):
        pa.hierarchy.ordered(["a"], order=list("ab"), sizes=[1])


@pytest.mark.parametrize(
    "spec",
    [
        Interval((5, 10), anchor=1, bottom=0, top=100),
        Date(("day", "year")),
        Masking((1, 2), char="#", width=6),
        Ordered(("a", "b", "c"), (2,)),
    ],
)
def test_specs_round_trip_through_json(spec: pa.hierarchy.Spec) -> None:
    again = from_json(spec.to_json())
    assert again == spec
    assert from_dict(spec.to_dict()) == spec


def test_the_spec_fixes_the_height() -> None:
    spec = Interval((5, 10))
    assert spec.build([1, 2]).height == spec.build([1, 99]).height == 3


def test_unknown_builders_and_parameters() -> None:
    with pytest.raises(pa.ConfigError, match="unknown hierarchy builder 'spline'"):
        from_dict({"builder": "spline"})
    with pytest.raises(pa.ConfigError, match=r"unknown parameter.*'width'"):
        from_dict({"builder": "interval", "widths": [5], "width": 3})
    with pytest.raises(pa.ConfigError, match="not JSON"):
        from_json("{")


def test_built_hierarchies_export_to_arx_csv_and_work_in_a_search() -> None:
    lf, hs = pa.datasets.adult()
    frame = lf.collect()
    age = pa.hierarchy.interval(frame.get_column("age"), widths=[5, 10, 20], bottom=20, top=80)
    assert pa.Hierarchy.from_csv_text(age.to_csv()) == age
    built = {**hs, "age": age}
    qis = ["age", "sex", "race"]
    result = pa.search(frame, qis, built, k=10, progress=False)
    levels = result.best("min_loss")
    release = result.apply(frame, levels=levels).collect()
    assert pa.check(release, qis, 10).k_anonymous
    if levels["age"] in (1, 2, 3):
        assert set(release.get_column("age").to_list()) <= set(age.levels[levels["age"]])


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(-1000, 1000), min_size=1, max_size=40),
    base=st.integers(1, 7),
    factors=st.lists(st.integers(2, 4), max_size=3),
    anchor=st.integers(-10, 10),
    bounds=st.tuples(st.none() | st.integers(-500, 0), st.none() | st.integers(1, 500)),
)
def test_interval_is_always_a_tree(
    values: list[int],
    base: int,
    factors: list[int],
    anchor: int,
    bounds: tuple[int | None, int | None],
) -> None:
    widths = [base]
    for f in factors:
        widths.append(widths[-1] * f)
    h = pa.hierarchy.interval(values, widths=widths, anchor=anchor, bottom=bounds[0], top=bounds[1])
    is_tree_over(h, [str(v) for v in values])


def holds(label: str, value: Decimal) -> bool:
    """Whether an interval label ([lo-hi), [lo, hi), <b, >=t) holds `value`."""
    if label.startswith("<"):
        return value < Decimal(label[1:])
    if label.startswith(">="):
        return value >= Decimal(label[2:])
    inner = label[1:-1]
    lo, hi = inner.split(", ") if ", " in inner else inner.split("-", 1)
    return Decimal(lo) <= value < Decimal(hi)


def test_interval_labels_hold_their_values() -> None:
    # 0.3 / 0.1 is 2.999... in binary floats, and 2^63 - 1 as a float is 2^63
    assert pa.hierarchy.interval([0.3, 0.7], widths=[0.1]).rows == [
        ["0.3", "[0.3-0.4)", "*"],
        ["0.7", "[0.7-0.8)", "*"],
    ]
    big = pl.Series("n", [2**63 - 1, -(2**63)], dtype=pl.Int64)
    assert [r[1] for r in pa.hierarchy.interval(big, widths=[10]).rows] == [
        "[9223372036854775800-9223372036854775810)",
        "[-9223372036854775810, -9223372036854775800)",
    ]
    top = pl.Series("u", [2**64 - 1], dtype=pl.UInt64)
    assert pa.hierarchy.interval(top, widths=[10]).rows[0][1] == (
        "[18446744073709551610-18446744073709551620)"
    )
    # a Float32 0.7 is 0.7, not the 0.69999998... it widens to
    assert pa.hierarchy.interval(
        pl.Series("f", [0.7, 0.9], dtype=pl.Float32), widths=[0.3], top=0.7
    ).rows == [["0.7", ">=0.7", "*"], ["0.9", ">=0.7", "*"]]
    # bounds are written exactly, not to 15 digits
    assert pa.hierarchy.interval([12345678901234.56], widths=[0.01]).rows[0][1] == (
        "[12345678901234.56-12345678901234.57)"
    )
    assert pa.hierarchy.interval([0.3], widths=[1], bottom=0.1 + 0.2).rows[0][1] == (
        "<0.30000000000000004"
    )
    money = pl.Series("m", ["12345678901234567.5"]).cast(pl.Decimal(30, 2))
    assert pa.hierarchy.interval(money, widths=[1]).rows[0][1] == (
        "[12345678901234567-12345678901234568)"
    )


@settings(max_examples=80, deadline=None)
@given(
    values=st.lists(
        st.decimals(-1000, 1000, places=3, allow_nan=False, allow_infinity=False),
        min_size=1,
        max_size=30,
    ),
    width=st.sampled_from(["0.1", "0.2", "0.3", "0.25", "1.1", "3", "0.001"]),
    factors=st.lists(st.integers(2, 4), max_size=2),
    anchor=st.sampled_from(["0", "0.1", "-0.7", "5"]),
)
def test_interval_bins_hold_their_values(
    values: list[Decimal], width: str, factors: list[int], anchor: str
) -> None:
    widths = [float(width)]
    for f in factors:
        widths.append(float(Decimal(repr(widths[-1])) * f))
    floats = [float(v) for v in values]
    for dtype in (pl.Float64, pl.Float32):
        column = pl.Series("x", floats, dtype=dtype)
        h = pa.hierarchy.interval(column, widths=widths, anchor=float(anchor))
        for row in h.rows:
            value = Decimal(row[0])  # the value as Polars writes it, at its width
            for label in row[1:-1]:
                assert holds(label, value), (row, widths, anchor, dtype)


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.text("0123456789ab", min_size=1, max_size=8), min_size=1, max_size=30),
    masked=st.none() | st.lists(st.integers(1, 9), min_size=1, max_size=4, unique=True),
)
def test_masking_is_always_a_tree(values: list[str], masked: list[int] | None) -> None:
    h = pa.hierarchy.masking(values, masked=sorted(masked) if masked else None)
    is_tree_over(h, values)


@settings(max_examples=60, deadline=None)
@given(
    order=st.lists(
        st.text("abcdefgh", min_size=1, max_size=3), min_size=1, max_size=20, unique=True
    ),
    sizes=st.lists(st.integers(2, 4), min_size=1, max_size=3),
    data=st.data(),
)
def test_ordered_is_always_a_tree(order: list[str], sizes: list[int], data: st.DataObject) -> None:
    values = data.draw(st.lists(st.sampled_from(order), min_size=1))
    is_tree_over(pa.hierarchy.ordered(values, order=order, sizes=sizes), values)


@settings(max_examples=40, deadline=None)
@given(
    days=st.lists(st.dates(dt.date(1900, 1, 1), dt.date(2100, 12, 31)), min_size=1, max_size=30),
    levels=st.lists(
        st.sampled_from(["day", "month", "quarter", "year", "decade", "century"]),
        min_size=1,
        unique=True,
    ),
)
def test_date_is_always_a_tree(days: list[dt.date], levels: list[str]) -> None:
    order = ["day", "month", "quarter", "year", "decade", "century"]
    h = pa.hierarchy.date(days, levels=sorted(levels, key=order.index))
    is_tree_over(h, [d.isoformat() for d in days])


def test_date_hierarchies_search_date_and_datetime_columns() -> None:
    days = [dt.date(2020, 1, i % 28 + 1) for i in range(40)] + [dt.date(2021, 5, 3)] * 5
    times = [dt.datetime(2020, 1, 1, i % 24, 5) for i in range(45)]
    df = pl.DataFrame({"d": days, "t": times})
    hs = {
        "d": pa.hierarchy.date(df.get_column("d")),
        "t": pa.hierarchy.date(df.get_column("t"), levels=["hour", "day", "year"]),
    }
    result = pa.search(df, ["d", "t"], hs, k=5, progress=False)
    assert result.best("min_loss") == {"d": 1, "t": 2}
    release = result.apply(df).collect()
    assert release.group_by(["d", "t"]).len().get_column("len").min() >= 5  # type: ignore[operator]
    assert set(release.get_column("d")) == {"2020-01", "2021-05"}
