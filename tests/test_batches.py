"""A LazyFrame of more than ROWS_IN_CORE rows is read in batches, each
encoded and grouped by the core into one F0 (`prepare.batches`): the same
problem as the table read whole, every way a column can come (a hierarchy or
none, strings or integers, nulls as an error or as a value, sensitive
attributes), and the same errors, said of the whole table where the batches
cannot see it."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Any, ClassVar

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_anon as pa
from polars_anon._core import F0Batches
from polars_anon.prepare import batches as batches_module
from polars_anon.prepare import f0
from polars_anon.prepare.prepared import Prepared

LETTERS = ["x", "y", "z", "w"]
HIERARCHIES = {
    "a": pa.Hierarchy.from_rows([[v, "xy" if v in "xy" else "zw", "*"] for v in LETTERS]),
    "b": pa.Hierarchy.from_rows([[str(v), f"{v // 5}", "*"] for v in range(10)]),
}


class Counting:
    """`F0Batches`, counting the batches added."""

    made: ClassVar[list[Counting]] = []

    def __init__(self, *args: Any) -> None:
        self.inner = F0Batches(*args)
        self.added = 0
        Counting.made.append(self)

    def add(self, *args: Any) -> None:
        self.added += 1
        self.inner.add(*args)

    @property
    def rows(self) -> int:
        return self.inner.rows

    def problem(self) -> Any:
        return self.inner.problem()


@pytest.fixture
def batched(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Counting]]:
    """Every LazyFrame read in batches of 6 values (3 rows of 2 columns;
    the batches counted)."""
    monkeypatch.setattr(f0, "ROWS_IN_CORE", 0)
    monkeypatch.setattr(batches_module, "BATCH_VALUES", 6)
    monkeypatch.setattr(batches_module, "F0Batches", Counting)
    Counting.made = []
    yield Counting.made


def same_problem(a: Prepared, b: Prepared, levels: list[int]) -> None:
    """Same rows, distinct rows, hierarchies, sensitive values, and groups
    at the bottom and at `levels`."""
    assert (a.problem.rows, a.problem.distinct) == (b.problem.rows, b.problem.distinct)
    assert [h.rows for h in a.hierarchies] == [h.rows for h in b.hierarchies]
    assert a.sensitive_values == b.sensitive_values
    for node in ([0] * len(levels), levels):
        codes, counts = a.problem.groups(node)
        ref_codes, ref_counts = b.problem.groups(node)
        assert sorted(zip(*codes, counts, strict=True)) == sorted(
            zip(*ref_codes, ref_counts, strict=True)
        )


@st.composite
def tables(draw: st.DrawFn) -> tuple[pl.DataFrame, bool, bool]:
    """Rows of a (letters, a hierarchy), b (Int64 0-9, a hierarchy), c
    (Int32, none) and s (sensitive letters); with nulls in a and c when
    they are to be read as a value."""
    n = draw(st.integers(1, 40))
    nulls = draw(st.booleans())
    sensitive = draw(st.booleans())
    letter = st.sampled_from(LETTERS)
    maybe = (lambda s: st.one_of(st.none(), s)) if nulls else (lambda s: s)
    df = pl.DataFrame(
        {
            "a": draw(st.lists(maybe(letter), min_size=n, max_size=n)),
            "b": draw(st.lists(st.integers(0, 9), min_size=n, max_size=n)),
            "c": draw(st.lists(maybe(st.integers(-3, 3)), min_size=n, max_size=n)),
            "s": draw(st.lists(letter, min_size=n, max_size=n)),
        },
        schema={"a": pl.String, "b": pl.Int64, "c": pl.Int32, "s": pl.String},
    )
    return df, nulls, sensitive


# monkeypatch is used as a context per example
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(tables(), st.lists(st.integers(0, 2), min_size=2, max_size=2))
def test_batches_prepare_the_problem_of_the_table_read_whole(
    monkeypatch: pytest.MonkeyPatch, drawn: tuple[pl.DataFrame, bool, bool], ab: list[int]
) -> None:
    df, with_nulls, with_sensitive = drawn
    qis = ["a", "b", "c"]
    sens = ["s"] if with_sensitive else []
    nulls = "value" if with_nulls else "error"
    whole = f0.prepare(df, qis, HIERARCHIES, sens, nulls=nulls)
    with monkeypatch.context() as m:
        m.setattr(f0, "ROWS_IN_CORE", 0)
        m.setattr(batches_module, "BATCH_VALUES", 3 * len(qis + sens))
        m.setattr(batches_module, "F0Batches", Counting)
        Counting.made = []
        read = f0.prepare(df.lazy(), qis, HIERARCHIES, sens, nulls=nulls)
        assert len(Counting.made) == 1
        assert Counting.made[0].added >= (df.height + 2) // 3 > 0
    assert read.grouped is None and read.table is None
    same_problem(read, whole, [*ab, whole.problem.heights[2]])
    # the Polars F0 that releases are checked on, from the rows
    by = qis + sens
    assert read.f0.sort(by, nulls_last=True).equals(whole.f0.sort(by, nulls_last=True))


def test_a_search_and_its_release_from_batches_equal_the_table_read_whole(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
    monkeypatch: pytest.MonkeyPatch,
    batched: list[Counting],
) -> None:
    df, hs = adult
    qis = ["age", "sex", "race", "education"]
    monkeypatch.setattr(batches_module, "BATCH_VALUES", 1000 * len(qis))
    model = [pa.DistinctLDiversity(2, "salary-class")]
    expect = pa.search(df, qis, hs, 10, 0.01, criteria=model, progress=False)
    got = pa.search(df.lazy(), qis, hs, 10, 0.01, criteria=model, progress=False)
    assert batched and batched[0].added >= df.height // 1000
    assert got.anonymous.sort(qis).equals(expect.anonymous.sort(qis))
    assert got.best() == expect.best()
    released = got.apply().collect().sort(df.columns)
    assert released.equals(expect.apply().collect().sort(df.columns))


def late(column: str, value: Any, rows: int = 20) -> pl.DataFrame:
    """`rows` rows the hierarchies know, with `value` in `column` in the last
    one (a batch after the first)."""
    df = pl.DataFrame(
        {
            "a": [LETTERS[i % 4] for i in range(rows)],
            "b": [i % 10 for i in range(rows)],
            "s": ["x"] * rows,
        }
    )
    return df.with_columns(
        pl.when(pl.int_range(pl.len()) == rows - 1)
        .then(pl.lit(value, dtype=df.schema[column]))
        .otherwise(pl.col(column))
        .alias(column)
    )


def test_a_value_missing_from_its_hierarchy_in_a_late_batch_is_named(
    batched: list[Counting],
) -> None:
    df = late("a", "q")
    counted = r"""column 'a'.*"q" \(counted in a batch of 2 rows"""
    with pytest.raises(pa.MissingValueError, match=counted):
        pa.search(df.lazy(), ["a", "b"], HIERARCHIES, 2, 0, progress=False)
    assert batched[0].added == 7  # 20 rows in batches of 3: the last one failed
    with pytest.raises(pa.MissingValueError, match="column 'b': 1 null value"):
        pa.search(late("b", None).lazy(), ["a", "b"], HIERARCHIES, 2, 0, progress=False)


def test_nulls_are_counted_in_the_whole_table_where_no_hierarchy_places_them(
    batched: list[Counting],
) -> None:
    df = late("a", None).with_columns(
        pl.when(pl.int_range(pl.len()) < 3).then(None).otherwise(pl.col("s")).alias("s")
    )
    hs = {"b": HIERARCHIES["b"]}
    # `a` has no hierarchy: its values are listed first, nulls with them
    with pytest.raises(pa.MissingValueError, match=r"column 'a': 1 null value.*quasi-identifier"):
        pa.search(df.lazy(), ["a", "b"], hs, 2, 0, progress=False)
    with pytest.raises(pa.MissingValueError, match=r"column 's': 3 null value.*sensitive"):
        model = [pa.DistinctLDiversity(1, "s")]
        pa.search(df.lazy(), ["b"], hs, 2, 0, criteria=model, progress=False)
    assert not batched or batched[-1].added == 0  # refused before any batch
    # as a value: a leaf of its own
    r = pa.search(df.lazy(), ["a", "b"], hs, 2, 0, nulls="value", progress=False)
    whole = pa.search(df, ["a", "b"], hs, 2, 0, nulls="value", progress=False)
    assert r.anonymous.equals(whole.anonymous)
    both = df.with_columns(pl.when(pl.col("b") == 0).then(pl.lit("NULL")).otherwise("a").alias("a"))
    with pytest.raises(pa.ConfigError, match="holds both nulls and the value 'NULL'"):
        pa.search(both.lazy(), ["a", "b"], hs, 2, 0, nulls="value", progress=False)


def test_a_value_in_another_unicode_form_gets_the_hint_in_a_batch(
    batched: list[Counting],
) -> None:
    nfd, nfc = (unicodedata.normalize(f, "Zürich") for f in ("NFD", "NFC"))
    hs = {"city": pa.Hierarchy.from_rows([[nfc, "*"], ["Bern", "*"]])}
    df = pl.DataFrame({"city": ["Bern"] * 9 + [nfd]})
    with pytest.raises(pa.MissingValueError, match=r"in a batch of.*normalization"):
        pa.search(df.lazy(), ["city"], hs, 2, 0, progress=False)


def test_a_read_that_ends_early_is_refused_not_prepared(
    batched: list[Counting], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Polars' streaming engine, interrupted, may end its batches early with
    no error: the rows read are checked against the table's count."""
    whole = pl.LazyFrame.collect_batches

    def first_only(self: pl.LazyFrame, **kwargs: Any) -> Iterator[pl.DataFrame]:
        yield next(iter(whole(self, **kwargs)))

    monkeypatch.setattr(pl.LazyFrame, "collect_batches", first_only)
    df = late("a", "x")
    with pytest.raises(pa.AnonError, match="read short: 3 rows in batches, 20 counted"):
        pa.search(df.lazy(), ["a", "b"], HIERARCHIES, 2, 0, progress=False)
