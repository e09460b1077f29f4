"""check and generalize: the papers' statements, Adult against plain Polars and
pycanon, every kind of input, and clear errors."""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
import pandas as pd
import polars as pl
import pyarrow
import pytest
from pycanon import anonymity

import polars_anon as pa
from polars_anon.inputs.params import max_suppressed, suppression
from tests.conftest import brute_counts

PATIENT_QI = ["Birthdate", "Sex", "Zipcode"]


@pytest.mark.parametrize(
    ("levels", "anonymous"),
    [
        ({"Birthdate": 0}, True),
        ({"Sex": 0}, True),
        ({"Zipcode": 0}, True),
        ({"Sex": 1, "Zipcode": 0}, True),
        ({"Sex": 0, "Zipcode": 2}, True),
        ({"Sex": 0, "Zipcode": 0}, False),
        ({"Sex": 0, "Zipcode": 1}, False),
    ],
)
def test_patients_statements_of_the_incognito_paper(
    levels: dict[str, int], anonymous: bool
) -> None:
    lf, hs = pa.datasets.patients()
    report = pa.check(lf, list(levels), k=2, hierarchies=hs, levels=levels)
    assert report.k_anonymous is anonymous
    assert report.rows == 6


def test_survey_suppresses_the_italic_tuples() -> None:
    lf, hs = pa.datasets.race_zip()
    indexed = lf.with_row_index("row", offset=1)
    # GT[1,0]: asian 94142 (row 1) and black 94138 (row 6) go
    # GT[0,1]: the two white tuples (rows 8, 9) go
    for levels, gone in [({"Race": 1, "ZIP": 0}, {1, 6}), ({"Race": 0, "ZIP": 1}, {8, 9})]:
        report = pa.check(lf, ["Race", "ZIP"], 2, hs, levels, max_suppression=2)
        assert report.k_anonymous and report.suppressed == 2
        out = pa.generalize(indexed, hs, levels, k=2, max_suppression=2).collect()
        assert set(range(1, 10)) - set(out.get_column("row").to_list()) == gone
        assert out.get_column("row").to_list() == sorted(out.get_column("row").to_list())
    assert not pa.check(lf, ["Race", "ZIP"], 2, hs, max_suppression=2).k_anonymous
    with pytest.raises(pa.NotAnonymousError) as caught:
        pa.generalize(lf, hs, {"Race": 0, "ZIP": 0}, k=2, max_suppression=2).collect()
    assert str(caught.value) == (
        "levels Race=0, ZIP=0 leave 6 rows in groups that are smaller than k = 2, more "
        "than max_suppression = 2 allows (2 of this table's 9 rows)"
    )


def test_the_report_says_which_groups_are_kept() -> None:
    # ten records of one zip kept, four singletons suppressed: the report's
    # groups and smallest group count the singletons, and say what is kept
    df = pl.DataFrame({"zip": ["11111"] * 10 + ["22221", "22222", "22223", "22224"]})
    r = pa.check(df, ["zip"], k=5, max_suppression=4)
    assert r.k_anonymous and (r.groups, r.min_group_size, r.suppressed) == (5, 1, 4)
    assert r.released_sizes.to_list() == [10]
    shown = str(r)
    assert re.search(r"groups +5 \(1 kept, 4 suppressed\)\n", shown)
    assert re.search(r"smallest group +1 \(smallest kept: 10\)\n", shown)
    # past the budget, nothing is released: what would be kept
    failing = str(pa.check(df, ["zip"], k=5, max_suppression=3))
    assert re.search(r"groups +5 \(1 would be kept, 4 suppressed\)\n", failing)
    # nothing suppressed: the plain figures
    whole = str(pa.check(df, ["zip"], k=1))
    assert re.search(r"groups +5\n", whole) and re.search(r"smallest group +1\n", whole)


@pytest.mark.parametrize(
    "node",
    [(0, 0, 0, 0, 0), (1, 2, 1, 1, 0), (0, 4, 0, 2, 3), (1, 3, 1, 0, 1), (1, 1, 0, 2, 2)],
)
def test_check_on_adult_agrees_with_a_plain_group_by(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], node: tuple[int, ...]
) -> None:
    df, hs = adult
    qis = ["sex", "age", "race", "marital-status", "education"]
    levels = dict(zip(qis, node, strict=True))
    for k in (2, 5, 10):
        report = df.anon.check(qis, k, hs, levels)
        counts = brute_counts(df, qis, hs, node)
        assert report.groups == counts.len()
        assert report.min_group_size == counts.min()
        assert report.suppressed == counts.filter(counts < k).sum()
        assert report.k_anonymous == (counts.min() >= k)  # type: ignore[operator]
        kept = counts.filter(counts >= k)
        assert report.discernibility == (kept**2).sum() + report.suppressed * len(df)
    assert report.group_sizes.get_column("groups").sum() == report.groups


def test_metrics_on_a_hand_computed_release() -> None:
    lf, hs = pa.datasets.race_zip()
    r = pa.check(lf, ["Race", "ZIP"], 2, hs, {"Race": 1, "ZIP": 0}, max_suppression=2)
    # released groups: person/94139 x5, person/94141 x2; 2 suppressed of 9
    assert (r.groups, r.min_group_size, r.suppressed, r.height) == (4, 1, 2, 1)
    assert r.discernibility == 25 + 4 + 2 * 9
    assert r.cavg == pytest.approx(7 / 2 / 2)
    # Prec = 1 - (7 * (1/1 + 0/2) + 2 * 2) / (9 * 2)
    assert r.precision == pytest.approx(1 - 11 / 18)
    # distortion = (7 * 1 + 2 * 3) / (9 * 3)
    assert r.distortion == pytest.approx(13 / 27)
    assert "k-anonymous" in str(r) and "<table>" in r._repr_html_()


def test_generalize_adult_k5_verified_by_check_and_pycanon(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    qis = ["sex", "age", "race", "marital-status", "education"]
    levels = {"sex": 0, "age": 2, "race": 1, "marital-status": 1, "education": 2}
    out = df.lazy().anon.generalize(hs, levels, k=5, max_suppression=0.02, quasi_identifiers=qis)
    assert isinstance(out, pl.LazyFrame)
    released = out.collect()
    assert released.columns == df.columns
    assert released.get_column("sex").dtype == pl.String
    assert released.get_column("age").dtype == pl.String  # generalized: labels
    assert set(released.get_column("race").unique()) == {"*"}
    # untouched columns pass through, in order
    kept = df.join(released.select(pl.len()), how="cross")
    assert kept.height == df.height
    assert released.get_column("occupation").to_list() == (
        df.filter(pl.Series(_kept_mask(df, hs, qis, levels, 5))).get_column("occupation").to_list()
    )
    again = pa.check(released, qis, 5)
    assert again.k_anonymous and again.min_group_size >= 5
    assert anonymity.k_anonymity(released.to_pandas(), qis) >= 5
    assert df.height - released.height == pa.check(df, qis, 5, hs, levels).suppressed


def _kept_mask(
    df: pl.DataFrame, hs: dict[str, pa.Hierarchy], qis: list[str], levels: dict[str, int], k: int
) -> list[bool]:
    exprs = []
    for q in qis:
        h = hs[q]
        mapping = dict(zip(h.leaves, h.leaf_labels(levels[q]), strict=True))
        exprs.append(pl.col(q).cast(pl.String).replace_strict(mapping).alias(q))
    g = df.select(exprs)
    return g.select((pl.len().over(qis) >= k).alias("m")).get_column("m").to_list()


def test_level_zero_columns_keep_their_dtype() -> None:
    lf, hs = pa.datasets.adult()
    out = pa.generalize(lf, hs, {"age": 0, "sex": 1}).collect()
    assert out.get_column("age").dtype == pl.Int64
    assert out.get_column("sex").unique().to_list() == ["*"]


def test_every_kind_of_input_gives_the_same_report() -> None:
    lf, hs = pa.datasets.patients()
    df = lf.collect()
    expect = pa.check(df, PATIENT_QI, 2, hs, {"Sex": 1})
    inputs = [df, lf, df.to_arrow(), df.to_pandas(), pyarrow.table(df.to_arrow())]
    for data in inputs:
        r = pa.check(data, PATIENT_QI, 2, hs, {"Sex": 1})
        assert (r.groups, r.suppressed, r.min_group_size) == (
            expect.groups,
            expect.suppressed,
            expect.min_group_size,
        ), type(data)
    assert isinstance(df.to_pandas(), pd.DataFrame)
    assert lf.anon.check(PATIENT_QI, 2, hs, {"Sex": 1}).groups == expect.groups
    assert df.anon.generalize_df(hs, {"Sex": 1}).height == 6


def test_errors_name_columns_and_values() -> None:
    lf, hs = pa.datasets.patients()
    with pytest.raises(
        pa.ConfigError, match=r"^unknown column: Age; the data has columns: Birthdate, Sex"
    ):
        pa.check(lf, ["Age"], 2, hs)
    # a slip of case or of a letter is named with the column it stands for;
    # a name like no column gets no guess
    for entry in (pa.check, pa.search, pa.mondrian, pa.local_recoding):
        with pytest.raises(pa.ConfigError) as caught:
            entry(lf, ["sex", "zipcodes", "Nationality"], k=2, hierarchies=hs)  # type: ignore[operator]
        said = str(caught.value)
        assert said.endswith("did you mean 'Sex' for 'sex', 'Zipcode' for 'zipcodes'?"), said
    # a value that is a leaf in other case, or the same number written
    # otherwise, is named with the leaf it missed
    odd = pl.DataFrame({"b": [True, False] * 2, "n": ["12.50", "-0.0"] * 2})
    for q, rows, said in (
        ("b", [["True", "*"], ["False", "*"]], "'true' is in its hierarchy in other case ('True')"),
        ("n", [["12.5", "*"], ["-0.0", "*"]], "'12.50' is in its hierarchy as the same number"),
        ("n", [["12.50", "*"], ["0.0", "*"]], "'-0.0' is in its hierarchy as the same number"),
    ):
        with pytest.raises(pa.MissingValueError, match=re.escape(said)):
            pa.check(odd, [q], 2, {q: pa.Hierarchy.from_rows(rows)})
    with pytest.raises(pa.MissingValueError) as missed:
        pa.check(odd, ["n"], 2, {"n": pa.Hierarchy.from_rows([["12.50", "*"], ["x", "*"]])})
    assert "hierarchy in other case" not in str(missed.value)
    assert "same number" not in str(missed.value)
    # a date column read through pandas arrives as date-times at midnight
    days = pl.DataFrame({"d": [dt.date(2021, 6, 19), dt.date(2021, 6, 20)] * 2})
    by_day = {"d": pa.Hierarchy.from_rows([["2021-06-19", "*"], ["2021-06-20", "*"]])}
    with pytest.raises(pa.MissingValueError, match=r"date-times at midnight .*\.dt\.date\(\)"):
        pa.check(days.to_pandas(), ["d"], 2, by_day)
    zoned = days.with_columns(pl.col("d").cast(pl.Datetime("us", "UTC")))
    with pytest.raises(pa.MissingValueError, match="date-times at midnight"):
        pa.check(zoned, ["d"], 2, by_day)
    assert pa.check(days, ["d"], 2, by_day).k_anonymous
    noon = days.with_columns(pl.col("d").cast(pl.Datetime) + pl.duration(hours=12))
    with pytest.raises(pa.MissingValueError) as missed:
        pa.check(noon, ["d"], 2, by_day)
    assert "midnight" not in str(missed.value)
    with pytest.raises(pa.ConfigError) as caught:
        pa.search(lf, ["Sex", "religion"], 2, hs, progress=False)
    assert str(caught.value).startswith("unknown column: religion; the data has columns: ")
    assert "did you mean" not in str(caught.value)
    with pytest.raises(pa.ConfigError, match=r"^unknown columns: Dept, Name; the data has"):
        pa.check(lf, ["Sex", "Dept", "Name"], 2, hs)
    bad = lf.with_columns(pl.col("Zipcode").replace(53703, 99999))
    with pytest.raises(pa.MissingValueError, match=r"'Zipcode'.*\"99999\""):
        pa.check(bad, ["Zipcode"], 2, hs)
    nulls = lf.with_columns(
        pl.when(pl.col("Sex") == "Male").then(None).otherwise("Sex").alias("Sex")
    )
    with pytest.raises(pa.MissingValueError, match=r"'Sex': 3 null"):
        pa.check(nulls, ["Sex"], 2, hs)
    with pytest.raises(pa.ConfigError, match="larger than the table"):
        pa.check(lf, ["Sex"], 7, hs)
    with pytest.raises(pa.ConfigError, match=r"\[0, 1\)"):
        pa.check(lf, ["Sex"], 2, hs, max_suppression=1.5)
    with pytest.raises(pa.ConfigError, match="above its hierarchy's height"):
        pa.check(lf, ["Sex"], 2, hs, {"Sex": 3})
    with pytest.raises(
        pa.ConfigError,
        match=r"^levels name Zipcode, which is not a quasi-identifier \(quasi-identifiers: Sex\)$",
    ):
        pa.check(lf, ["Sex"], 2, hs, {"Zipcode": 1})
    with pytest.raises(TypeError, match="__arrow_c_stream__"):
        pa.check([1, 2, 3], ["Sex"], 2, hs)


def test_fractional_suppression_is_a_share_of_rows() -> None:
    lf, hs = pa.datasets.race_zip()
    assert pa.check(lf, ["Race", "ZIP"], 2, hs, {"Race": 1}, max_suppression=0.25).k_anonymous
    r = pa.check(lf, ["Race", "ZIP"], 2, hs, {"Race": 1}, max_suppression=0.2)
    assert r.max_suppression == 1 and not r.k_anonymous
    # the share as written: 0.29 of 100 rows is 29 tuples (28.999... in floats)
    df = pl.DataFrame({"z": ["a"] * 71 + [f"u{i}" for i in range(29)]})
    for share in (0.29, 0.57, 0.07):
        report = pa.check(df, ["z"], 2, max_suppression=share)
        assert report.max_suppression == round(share * 100)
    assert pa.check(df, ["z"], 2, max_suppression=0.29).k_anonymous
    assert not pa.check(df, ["z"], 2, max_suppression=0.28).k_anonymous
    assert pa.check(df, ["z"], 2, max_suppression=np.float64(0.29)).k_anonymous
    # NumPy's float32 as written too (it was refused as no number)
    assert pa.check(df, ["z"], 2, max_suppression=np.float32(0.29)).max_suppression == 29
    # as the command line and job files write it: 0.35% of 10,000 is 35
    assert max_suppressed(suppression("0.35%"), 10_000) == 35
    assert max_suppressed(suppression("29%"), 100) == 29


DUCKDB = """
import duckdb, polars_anon as pa
lf, hs = pa.datasets.patients()
df = lf.collect()
rel = duckdb.sql("select * from df")
r = pa.check(rel, ["Sex", "Zipcode"], 2, hs, {"Sex": 1})
print(r.k_anonymous, r.groups, r.rows)
"""


def test_a_duckdb_relation_is_data_too() -> None:
    # in a child process: DuckDB's bindings print reference-leak noise at exit
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", DUCKDB], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "3", "6"]


def test_columns_cross_to_the_core_through_arrow_streams() -> None:
    """Strings (string_view from Polars, string and large_string from pyarrow),
    sliced and in several chunks, and unsigned codes of every width give the
    same problem as the little-endian bytes the core also takes."""
    h = pa.Hierarchy.from_rows(
        [
            ["alpha", "first half", "*"],
            ["beta", "first half", "*"],
            ["a long label, past twelve bytes", "rest", "*"],
        ]
    )
    values = ["beta", "alpha", "a long label, past twelve bytes", "beta", "beta", "alpha"]
    counts = [3, 1, 2, 5, 1, 4]
    strings = pl.concat(
        [pl.Series("v", ["x", *values[:3]]), pl.Series("v", values[3:])], rechunk=False
    )
    assert strings.n_chunks() == 2
    strings = strings.slice(1)  # an offset into the first chunk
    codes = [h.encode("v", [v])[0] for v in values]
    as_bytes = b"".join(c.to_bytes(4, "little") for c in codes)
    counts_bytes = b"".join(c.to_bytes(8, "little") for c in counts)

    def rows(p: pa._core.Problem) -> list[tuple[int, ...]]:
        codes, sizes = p.groups([1])
        return sorted(zip(*codes, sizes, strict=True))

    reference = rows(pa._core.Problem(["v"], [h], [as_bytes], counts_bytes))
    assert reference == [(0, 3 + 1 + 5 + 1 + 4), (1, 2)]  # "first half", "rest"
    columns = [
        strings,
        pyarrow.chunked_array([values], type=pyarrow.string()),
        pyarrow.chunked_array([values[:2], values[2:]], type=pyarrow.large_string()),
        pl.Series(codes, dtype=pl.UInt8),
        pl.Series(codes, dtype=pl.UInt16),
        pl.Series(codes, dtype=pl.UInt64),
    ]
    for column in columns:
        for c in (pl.Series(counts, dtype=pl.UInt64), pl.Series(counts, dtype=pl.UInt32)):
            assert rows(pa._core.Problem(["v"], [h], [column], c)) == reference
    with pytest.raises(pa.MissingValueError, match=r"'v': 2 null"):
        pa._core.Problem(
            ["v"], [h], [pl.Series(["beta", None])], pl.Series([1, 2], dtype=pl.UInt64)
        )
    with pytest.raises(TypeError, match="unsigned integer"):
        pa._core.Problem(["v"], [h], [pl.Series([0.0, 1.0])], counts_bytes[:16])


def test_signed_integer_columns_cross_as_their_decimal_strings() -> None:
    """Int8 to Int64 columns are values, written as Polars casts them to
    strings (extremes included); nulls and values missing from the hierarchy
    are named as for strings. Rows without counts count once each."""
    leaves = ["-128", "0", "7", "127"]
    h = pa.Hierarchy.from_rows([[v, "*"] for v in leaves])
    values = [7, -128, 0, 127, 7, 7]

    def groups(p: pa._core.Problem) -> list[tuple[str, int]]:
        codes, sizes = p.groups([0])
        return sorted((leaves[c], s) for c, s in zip(codes[0], sizes, strict=True))

    def ones(n: int) -> pl.Series:
        return pl.Series([1] * n, dtype=pl.UInt64)

    for dtype in (pl.Int8, pl.Int16, pl.Int32, pl.Int64):
        column = pl.Series(values, dtype=dtype)
        assert [str(v) for v in column.cast(pl.String)] == [str(v) for v in values]
        p = pa._core.Problem(["v"], [h], [column], ones(6))
        assert groups(p) == [("-128", 1), ("0", 1), ("127", 1), ("7", 3)], dtype
        # without counts each row counts once, nulls included
        assert groups(pa._core.Problem(["v"], [h], [column], None)) == groups(p)
        with pytest.raises(pa.MissingValueError, match=r"'v': 2 null"):
            pa._core.Problem(["v"], [h], [pl.Series([None, 7, None], dtype=dtype)], None)
        with pytest.raises(pa.MissingValueError, match=r"'v'.*\"-7\""):
            pa._core.Problem(["v"], [h], [pl.Series([-7, 7], dtype=dtype)], ones(2))
    extremes = [-(2**63), 2**63 - 1, 2**63 - 1]
    wide = pa.Hierarchy.from_rows([[str(v), "*"] for v in extremes[:2]])
    p = pa._core.Problem(["v"], [wide], [pl.Series(extremes, dtype=pl.Int64)], ones(3))
    assert sorted(p.groups([0])[1]) == [1, 2]


def test_levels_are_integers_never_rounded() -> None:
    """A level of 1.7 or True was read as 1: every entry point that takes
    levels refuses them, naming the column; integers of any type pass."""
    import numpy as np

    lf, hs = pa.datasets.patients()
    qis = ["Sex", "Zipcode"]
    for bad, shown in ((1.7, "1.7"), (True, "True"), ("1", "'1'")):
        with pytest.raises(
            pa.ConfigError, match=rf"level of 'Sex' must be an integer, got {shown}"
        ):
            pa.check(lf, qis, 2, hs, {"Sex": bad})
        with pytest.raises(pa.ConfigError, match="level of 'Sex'"):
            pa.check(lf, qis, 2, hs, [bad, 0])
        with pytest.raises(pa.ConfigError, match="level of 'Sex'"):
            pa.generalize(lf, hs, {"Sex": bad}, quasi_identifiers=qis)
        r = pa.search(lf, qis, hs, 2, progress=False)
        with pytest.raises(pa.ConfigError, match="level of 'Sex'"):
            r.apply(levels={"Sex": bad, "Zipcode": 2})
    expect = pa.check(lf, qis, 2, hs, {"Sex": 1})
    assert pa.check(lf, qis, 2, hs, {"Sex": np.int64(1)}).groups == expect.groups
    assert pa.check(lf, qis, 2, hs, [np.uint8(1), 0]).groups == expect.groups


def test_local_recoding_checks_its_columns_as_every_entry_point_does() -> None:
    """A column both quasi-identifier and sensitive, or a quasi-identifier
    named twice, was accepted by local_recoding (which then released a table
    failing its own criterion, or answered in Polars' words)."""
    lf, hs = pa.datasets.adult()
    df = lf.collect().head(500)
    cats = [["<=50K"], [">50K"]]
    with pytest.raises(
        pa.ConfigError, match=r"cannot be both quasi-identifier and sensitive: race$"
    ):
        pa.local_recoding(df, ["race", "sex"], hs, 2, [pa.PPlusSensitive(2, "race", cats)])
    with pytest.raises(pa.ConfigError, match=r"named twice: sex$"):
        pa.local_recoding(df, ["sex", "sex"], hs, 2)
    with pytest.raises(pa.ConfigError, match=r"named twice: sex$"):
        pa.check(df, ["sex", "sex"], k=2, hierarchies=hs)
    with pytest.raises(pa.ConfigError, match=r"named twice: sex$"):
        pa.search(df, ["sex", "sex"], hierarchies=hs, k=2)
    # nulls: named, with the way out (local recoding takes no nulls="value")
    holes = df.with_columns(
        pl.when(pl.int_range(pl.len()) < 3).then(None).otherwise("sex").alias("sex")
    )
    with pytest.raises(pa.MissingValueError, match=r"'sex': 3 null value.*fill or drop") as e:
        pa.local_recoding(holes, ["sex", "race"], hs, 2)
    assert "nulls='value'" not in str(e.value)


def test_reports_say_a_fractions_tuples_and_read_as_text() -> None:
    """A budget given as a fraction is shown with its share of the rows,
    and said when it rounds down to no row (1% of 80 rows); yes/no for
    the verdict, whole numbers grouped by thousands."""
    df = pl.DataFrame({"zip": [str(10000 + i % 20) for i in range(80)]})
    none = pa.check(df, ["zip"], 2, max_suppression=0.01)
    assert re.search(r"allowed 0: 1% of 80 rows rounds down to no row\)\n", str(none))
    assert re.search(r"k-anonymous +yes\n", str(none))
    some = pa.check(df, ["zip"], 5, max_suppression=0.05)
    assert re.search(r"\(in groups < k\) +80 \(allowed 4: 5% of 80 rows\)\n", str(some))
    assert re.search(r"k-anonymous +no\n", str(some)) and "6,400" in str(some)  # DM: 80 x 80
    counted = pa.check(df, ["zip"], 5, max_suppression=4)
    assert re.search(r"\(allowed 4\)\n", str(counted))
    searched = pa.search(df, ["zip"], None, 2, 0.01)
    assert re.search(r"max suppression +0 \(1% of 80 rows rounds down to no row\)\n", str(searched))
    assert re.search(r"max suppression +80\n", str(pa.search(df, ["zip"], None, 2, 80)))
    big = pl.DataFrame({"zip": [str(i % 20) for i in range(2_000)]})
    assert re.search(r"rows +2,000\n", str(pa.check(big, ["zip"], 2, max_suppression=0.015)))
    assert "30 (1.5% of 2,000 rows)" in str(pa.search(big, ["zip"], None, 2, 0.015))
