"""Mondrian (#32): every release recounted with plain Polars (each group of
at least k records, no record lost, one group a partition), every final
partition tried again by a brute-force split test written here, the loss
recomputed from the released labels, and hand-computed examples; a
pickle partitions its table again and gives the same release."""

from __future__ import annotations

import datetime as dt
import pickle
import random
import re
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_anon as pa

ADULT_QIS = ["age", "sex", "race", "education"]
# [lo-hi], or [lo, hi] when a bound holds a minus sign
RANGE = re.compile(r"\[(-?[0-9.e+-]+?)(?:-|, )(-?[0-9.e+-]+)\]")


def released(
    result: pa.MondrianResult, raw: pl.DataFrame, sensitive: list[str] | None = None
) -> pl.DataFrame:
    """The release beside the raw quasi-identifiers (``raw_<q>``), row by row."""
    qis = result.quasi_identifiers
    out = result.apply().collect()
    assert out.height == raw.height, "no record lost"
    extra = [raw.get_column(q).alias(f"raw_{q}") for q in qis]
    return out.select(qis + (sensitive or [])).with_columns(extra)


def ordered_cut_exists(values: list[tuple[object, int, set[str]]], k: int, l_: int) -> bool:
    """Is there a cut between two distinct values (in order) leaving each
    side k records and l distinct sensitive values?"""
    values = sorted(values, key=lambda v: v[0])  # type: ignore[arg-type, return-value]
    total = sum(n for _, n, _ in values)
    left, seen = 0, set[str]()
    for i in range(len(values) - 1):
        left += values[i][1]
        seen |= values[i][2]
        right = set().union(*(s for _, _, s in values[i + 1 :]))
        if left >= k and total - left >= k and len(seen) >= l_ and len(right) >= l_:
            return True
    return False


def node_split_exists(
    h: pa.Hierarchy, leaves: dict[str, tuple[int, set[str]]], k: int, l_: int
) -> bool:
    """Does every child of the lowest node over `leaves` keep k records and
    l distinct sensitive values?"""
    if len(leaves) < 2:
        return False
    maps = [dict(zip(h.leaves, h.leaf_labels(lvl), strict=True)) for lvl in range(h.height + 1)]
    level = next(lvl for lvl in range(h.height + 1) if len({maps[lvl][v] for v in leaves}) == 1)
    children: dict[str, tuple[int, set[str]]] = {}
    for v, (n, s) in leaves.items():
        m, t = children.get(maps[level - 1][v], (0, set()))
        children[maps[level - 1][v]] = (m + n, t | s)
    return all(n >= k and len(s) >= l_ for n, s in children.values())


def check_release(
    result: pa.MondrianResult,
    raw: pl.DataFrame,
    hierarchies: dict[str, pa.Hierarchy],
    k: int,
    sensitive: str | None = None,
    l_: int = 1,
) -> None:
    """Groups >= k (and l distinct sensitive values), one a partition, and
    no partition that a split test finds splittable."""
    qis = result.quasi_identifiers
    sens = [sensitive] if sensitive else []
    rel = released(result, raw, sens)
    if not sensitive:
        sensitive = "__sensitive"
        rel = rel.with_columns(pl.lit("x").alias(sensitive))
    groups = rel.group_by(qis).len()
    assert groups.height == result.partitions
    assert int(groups.get_column("len").min()) >= k  # type: ignore[arg-type]
    assert int(groups.get_column("len").sum()) == raw.height
    # the labels are the partition's: each raw combination in one group only
    per_raw = rel.group_by([f"raw_{q}" for q in qis]).agg(pl.struct(qis).n_unique().alias("n"))
    assert per_raw.get_column("n").max() == 1
    for part in rel.partition_by(qis):
        assert part.get_column(sensitive).n_unique() >= l_
        for q in qis:
            kind = result.kinds[q]
            cnt = part.group_by(f"raw_{q}").agg(
                pl.len().alias("n"),
                pl.col(sensitive).unique().alias("s"),
            )
            items = [(v, n, set(s)) for v, n, s in cnt.iter_rows()]
            if kind == "hierarchy":
                leaves = {str(v): (n, s) for v, n, s in items}
                assert not node_split_exists(hierarchies[q], leaves, k, l_), (q, part.row(0))
            else:
                key = [(v if kind == "numeric" else str(v), n, s) for v, n, s in items]
                assert not ordered_cut_exists(key, k, l_), (q, part.row(0))


def loss_from_labels(
    result: pa.MondrianResult, raw: pl.DataFrame, hierarchies: dict[str, pa.Hierarchy]
) -> float:
    """The cell-level loss recomputed from the released labels alone."""
    rel = released(result, raw)
    costs = []
    for q in result.quasi_identifiers:
        kind = result.kinds[q]
        values = raw.get_column(q)
        total = 0.0
        for label, n in rel.get_column(q).value_counts().iter_rows():
            if kind == "numeric":
                found = RANGE.fullmatch(label)
                lo, hi = found.groups() if found else (label, label)
                span = float(values.max()) - float(values.min())  # type: ignore[arg-type]
                cost = (float(hi) - float(lo)) / span if span else 0.0
            elif kind == "set":
                size = len(label[1:-1].split(",")) if label.startswith("{") else 1
                distinct = values.n_unique()
                cost = (size - 1) / (distinct - 1) if distinct > 1 else 0.0
            else:
                h = hierarchies[q]
                level = next(lvl for lvl in range(h.height + 1) if label in h.levels[lvl])
                under = h.leaf_labels(level).count(label)
                cost = (under - 1) / (len(h.leaves) - 1) if len(h.leaves) > 1 else 0.0
            total += cost * n
        costs.append(total / raw.height)
    return sum(costs) / len(costs)


def test_eight_rows_split_at_the_medians() -> None:
    df = pl.DataFrame({"x": [5, 1, 8, 3, 2, 7, 4, 6]})
    result = pa.mondrian(df, ["x"], k=2)
    assert result.partitions == 4
    labels = result.apply().collect().get_column("x").to_list()
    assert labels == ["[5-6]", "[1-2]", "[7-8]", "[3-4]", "[1-2]", "[7-8]", "[3-4]", "[5-6]"]
    assert result.loss == pytest.approx(1 / 7)
    assert result.groups.get_column("count").to_list() == [2, 2, 2, 2]
    three = pa.mondrian(df, ["x"], k=3)
    assert sorted(three.groups.get_column("x").to_list()) == ["[1-4]", "[5-8]"]
    check_release(three, df, {}, 3)
    # the split test here finds what a smaller k could still split
    with pytest.raises(AssertionError, match="x"):
        check_release(three, df, {}, 2)


def test_loss_by_hand_for_ranges_sets_and_nodes() -> None:
    df = pl.DataFrame({"x": [1, 2, 3, 4], "c": ["a", "b", "a", "b"]})
    # x is cut at its median; then neither attribute can be cut again
    result = pa.mondrian(df, ["x", "c"], k=2)
    out = result.apply().collect()
    ab = "{a,b}"
    assert out.rows() == [("[1-2]", ab), ("[1-2]", ab), ("[3-4]", ab), ("[3-4]", ab)]
    # x: 1 of the range 3; c: a set of 2 of 2 values, (2 - 1) / (2 - 1)
    assert result.attribute_loss == pytest.approx({"x": 1 / 3, "c": 1.0})
    assert result.loss == pytest.approx(2 / 3)
    h = pa.Hierarchy.from_rows([["a", "ab", "*"], ["b", "ab", "*"], ["z", "z", "*"]])
    result = pa.mondrian(df, ["x", "c"], k=2, hierarchies={"c": h})
    assert set(result.apply().collect().get_column("c")) == {"ab"}
    # the node ab: (2 leaves - 1) / (3 leaves - 1)
    assert result.attribute_loss == pytest.approx({"x": 1 / 3, "c": 0.5})
    assert result.loss == pytest.approx(5 / 12)


@pytest.mark.parametrize("k", [2, 5, 50])
def test_adult_release_holds_k_and_partitions_are_final(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], k: int
) -> None:
    df, hs = adult
    result = pa.mondrian(df, ADULT_QIS, k, hierarchies=hs)
    assert result.kinds == {
        "age": "numeric",
        "sex": "hierarchy",
        "race": "hierarchy",
        "education": "hierarchy",
    }
    check_release(result, df.select(ADULT_QIS), hs, k)
    assert result.loss == pytest.approx(loss_from_labels(result, df.select(ADULT_QIS), hs))
    assert 0 < result.loss < 1


def test_adult_sets_and_distinct_l_diversity(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    crit = pa.DistinctLDiversity(3, "occupation")
    result = pa.mondrian(df, ADULT_QIS, 5, criteria=crit)
    assert set(result.kinds.values()) == {"numeric", "set"}
    check_release(result, df.select([*ADULT_QIS, "occupation"]), hs, 5, "occupation", 3)
    assert result.loss == pytest.approx(loss_from_labels(result, df.select(ADULT_QIS), hs))


def test_other_criteria_hold_in_every_partition(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    for crit in [pa.TCloseness(0.3, "salary-class"), pa.PSensitive(2, "salary-class")]:
        result = pa.mondrian(df, ADULT_QIS, 5, hierarchies=hs, criteria=crit)
        check = pa.check(result.apply().collect(), ADULT_QIS, 5, criteria=crit)
        assert check.k_anonymous, crit


@st.composite
def tables(draw: st.DrawFn) -> tuple[pl.DataFrame, int, bool]:
    rows = draw(st.integers(1, 40))
    n = draw(st.lists(st.integers(-5, 12), min_size=rows, max_size=rows))
    c = draw(st.lists(st.sampled_from("abcdef"), min_size=rows, max_size=rows))
    k = draw(st.integers(1, rows))
    return pl.DataFrame({"n": n, "c": c}), k, draw(st.booleans())


HIERARCHY = pa.Hierarchy.from_rows([[v, "abc" if v in "abc" else "def", "*"] for v in "abcdef"])


@settings(max_examples=80, deadline=None)
@given(tables())
def test_random_tables(table: tuple[pl.DataFrame, int, bool]) -> None:
    df, k, with_hierarchy = table
    hs = {"c": HIERARCHY} if with_hierarchy else {}
    result = pa.mondrian(df, ["n", "c"], k, hierarchies=hs)
    check_release(result, df, hs, k)
    assert result.loss == pytest.approx(loss_from_labels(result, df, hs))


def test_modes_and_numeric_columns() -> None:
    df = pl.DataFrame({"x": [1, 2, 3, 4], "c": ["a", "b", "a", "b"]})
    with pytest.raises(pa.ConfigError, match="mode must be"):
        pa.mondrian(df, ["x"], 2, mode="loose")
    with pytest.raises(pa.ConfigError, match="numeric"):
        pa.mondrian(df, ["x", "c"], 2, numeric=["c"])
    with pytest.raises(pa.ConfigError, match="unknown column"):
        pa.mondrian(df, ["x", "nope"], 2)
    # x as a set of values: sorted as text
    result = pa.mondrian(df, ["x"], 2, numeric=[])
    assert result.kinds == {"x": "set"}
    labels = result.apply().collect().get_column("x").to_list()
    assert labels == ["{1,2}", "{1,2}", "{3,4}", "{3,4}"]


def test_roles_and_a_changed_source() -> None:
    df = pl.DataFrame({"x": [i % 6 + 1 for i in range(30)], "id": [f"p{i}" for i in range(30)]})
    with pytest.raises(pa.AnonError, match="id"):
        pa.mondrian(df, ["x"], 2).apply()
    result = pa.mondrian(df, ["x"], 2, identifiers=["id"])
    assert result.apply().collect().columns == ["x"]
    assert result.apply().collect().get_column("x").n_unique() == result.partitions
    changed = df.with_columns(pl.col("x").replace(6, 1))
    with pytest.raises(pa.NotAnonymousError):
        result.apply(changed).collect()


def test_repr_and_a_frequency_set() -> None:
    df = pl.DataFrame({"x": [1, 2, 3, 4], "n": [2, 2, 2, 2]})
    result = pa.mondrian(pa.FrequencySet.from_counts(df), ["x"], 4)
    assert result.partitions == 2
    assert "partitions" in repr(result) and "MondrianResult" in result._repr_html_()
    with pytest.raises(pa.ConfigError, match="frequency set"):
        result.apply()


def test_a_pickle_partitions_again_and_applies_the_same_release(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    df = df.with_row_index("id")
    crit = pa.DistinctLDiversity(2, "occupation")
    result = pa.mondrian(df, ADULT_QIS, 5, hierarchies=hs, criteria=crit, identifiers=["id"])
    again = pickle.loads(pickle.dumps(result))
    assert isinstance(again, pa.MondrianResult)
    assert (again.k, again.mode, again.kinds, again.criteria) == (
        result.k,
        result.mode,
        result.kinds,
        result.criteria,
    )
    assert again.loss == result.loss and again.attribute_loss == result.attribute_loss
    assert again.groups.equals(result.groups)
    release = result.apply().collect()
    # the roles travel with it: id is dropped again
    assert "id" not in release.columns
    assert again.apply().collect().equals(release)
    # the pickle holds the table's plan and the hierarchies, not F0 nor the partition
    assert len(pickle.dumps(result)) < len(pickle.dumps(df)) + len(pickle.dumps(hs)) + 100_000


def test_a_pickle_of_a_scan_refuses_a_changed_file(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    pl.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8], "c": list("aabbaabb")}).write_csv(path)
    result = pa.mondrian(pl.scan_csv(path), ["x", "c"], 2)
    blob = pickle.dumps(result)
    assert pickle.loads(blob).apply().collect().equals(result.apply().collect())
    pl.DataFrame({"x": [1, 1, 1, 1, 5, 6, 7, 8], "c": list("aabbaabb")}).write_csv(path)
    with pytest.raises(pa.AnonError, match="source changed since it was pickled"):
        pickle.loads(blob)


def test_a_pickle_of_a_frequency_set() -> None:
    fs = pa.FrequencySet.from_counts(pl.DataFrame({"x": [1, 2, 3, 4], "n": [2, 2, 2, 2]}))
    result = pa.mondrian(fs, ["x"], 4)
    again = pickle.loads(pickle.dumps(result))
    assert again.kinds == {"x": "numeric"}
    assert again.groups.equals(result.groups) and again.loss == result.loss
    with pytest.raises(pa.ConfigError, match="frequency set"):
        again.apply()


def test_the_namespaces_wrap_mondrian(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    direct = pa.mondrian(df, ADULT_QIS, 10, hierarchies=hs, numeric=[])
    for frame in (df, df.lazy()):
        result = frame.anon.mondrian(ADULT_QIS, 10, hierarchies=hs, numeric=[])
        assert result.kinds == direct.kinds and result.groups.equals(direct.groups)


def test_a_value_that_reads_as_a_set_is_quoted_apart_from_the_set() -> None:
    # the partitions {a,b} (of a and b) and the one value "{a,b}" once had
    # one label: the release then merged them (refused as an internal fault)
    df = pl.DataFrame({"q": ["{a,b}"] * 3 + ["a"] * 2 + ["b"] * 2, "row": range(7)})
    r = pa.mondrian(df, ["q"], 3, insensitive=["row"])
    assert sorted(r.groups.rows()) == [('"{a,b}"', 3), ("{a,b}", 4)]
    out = r.apply().collect().sort("row")
    assert out.get_column("q").to_list() == ['"{a,b}"'] * 3 + ["{a,b}"] * 4
    assert out.group_by("q").len().get_column("len").min() == 3


def test_a_negative_bound_is_set_off_by_a_comma() -> None:
    # [-17--12] read as a range from -17 to --12
    df = pl.DataFrame({"t": [-17, -15, -12, -3, 0, 4, 8, 9]})
    r = pa.mondrian(df, ["t"], 2)
    assert sorted(r.groups.rows()) == [
        ("[-12, -3]", 2),
        ("[-17, -15]", 2),
        ("[0-4]", 2),
        ("[8-9]", 2),
    ]
    assert r.loss == pytest.approx(loss_from_labels(r, df, {}))


@pytest.mark.parametrize("k", [2, 5])
def test_dates_and_datetimes_are_cut_into_ranges_of_their_instants(k: int) -> None:
    rng = random.Random(k)
    start = dt.datetime(2021, 3, 27, 22)  # across a change of summer time
    df = pl.DataFrame(
        {
            "day": [dt.date(2020, 1, 1) + dt.timedelta(days=rng.randrange(500)) for _ in range(60)],
            "at": [start + dt.timedelta(minutes=rng.randrange(9000)) for _ in range(60)],
            "zoned": [start + dt.timedelta(minutes=rng.randrange(9000)) for _ in range(60)],
            "row": range(60),
        }
    ).with_columns(pl.col("zoned").dt.replace_time_zone("UTC").dt.convert_time_zone("Europe/Paris"))
    qis = ["day", "at", "zoned"]
    r = pa.mondrian(df, qis, k, insensitive=["row"])
    assert r.kinds == dict.fromkeys(qis, "numeric")
    out = r.apply(numeric_bounds=True).collect().sort("row")
    assert out.group_by(qis).len().get_column("len").min() >= k
    raw = df.rename({q: f"raw_{q}" for q in qis}).drop("row")
    both = pl.concat([out, raw], how="horizontal")
    loss = 0.0
    for q in qis:
        assert both.schema[f"{q}_lower"] == df.schema[q] == both.schema[f"{q}_upper"]
        # each label is its partition's least and greatest value, as text
        per = both.group_by(q).agg(
            pl.col(f"raw_{q}").min().alias("lo"),
            pl.col(f"raw_{q}").max().alias("hi"),
            pl.col(f"{q}_lower").first(),
            pl.col(f"{q}_upper").first(),
            pl.len(),
        )
        for label, lo, hi, lower, upper, _ in per.iter_rows():
            lo_text, hi_text = pl.Series([lo, hi], dtype=df.schema[q]).cast(pl.String)
            assert label == (lo_text if lo == hi else f"[{lo_text}, {hi_text}]")
            assert (lower, upper) == (lo, hi)
        # the loss of a range: its width over the table's, in instants
        span = df.get_column(q).to_physical()
        width = per.select(pl.col("hi").to_physical() - pl.col("lo").to_physical()).to_series()
        loss += float((width * per.get_column("len")).sum()) / (span.max() - span.min()) / 60
    assert r.loss == pytest.approx(loss / len(qis))
    # numeric= names them too, and refuses a text column
    assert pa.mondrian(df, qis, k, numeric=["day"]).kinds["at"] == "set"
    with pytest.raises(pa.ConfigError, match="integer, float, date or datetime"):
        pa.mondrian(df.with_columns(pl.col("day").cast(pl.String)), qis, k, numeric=["day"])


def test_nanosecond_bounds_are_the_partitions_own_values() -> None:
    # as floats, nanosecond instants lie on a grid of 256 ns: the bounds were
    # rounded, and a record could fall outside its own partition's
    base = dt.datetime(2021, 3, 28, 1, 30)
    ns = [int(base.timestamp()) * 10**9 + 3001 + 2000 * i for i in range(12)]
    df = pl.DataFrame({"t": pl.Series(ns).cast(pl.Datetime("ns"))})
    out = pa.mondrian(df, ["t"], 3).apply(numeric_bounds=True).collect()
    both = out.with_columns(df.get_column("t").alias("raw"))
    assert both.schema["t_lower"] == pl.Datetime("ns")
    per = both.group_by("t").agg(
        pl.col("raw").min().alias("lo"),
        pl.col("raw").max().alias("hi"),
        pl.col("t_lower", "t_upper").first(),
    )
    assert per.filter(
        (pl.col("lo") != pl.col("t_lower")) | (pl.col("hi") != pl.col("t_upper"))
    ).is_empty()
    # a date Polars writes with a sign is no number Mondrian can cut: refused,
    # and cut as value sets when left out of numeric=
    far = pl.DataFrame({"d": pl.Series([-800000, 18262, 3000000], dtype=pl.Int32).cast(pl.Date)})
    with pytest.raises(
        pa.ConfigError, match=r"column 'd': the value '[-+][0-9]+-09-[0-9]+' is neither"
    ):
        pa.mondrian(far, ["d"], 1)
    assert pa.mondrian(far, ["d"], 1, numeric=[]).kinds == {"d": "set"}


def test_roles_given_to_apply_add_to_mondrians() -> None:
    # an identifier given to mondrian stays one (apply's roles once replaced
    # them, and insensitive=["ssn"] released the numbers)
    df = pl.DataFrame({"age": [30 + i % 4 for i in range(8)], "ssn": [f"s{i}" for i in range(8)]})
    df = df.with_columns(note=pl.lit("n"))
    r = pa.mondrian(df, ["age"], 2, identifiers=["ssn"])
    with pytest.raises(pa.ConfigError, match="column ssn, declared an identifier, now"):
        r.apply(insensitive=["ssn"])
    assert r.apply(insensitive=["note"]).collect().columns == ["age", "note"]


def test_integers_past_2_to_53_are_refused_as_numbers() -> None:
    # as binary floats, 2^53 + 3 is 2^53 + 4: neighbours merged, and a
    # cell showed a value its records did not have
    t0 = 1_700_000_000_000_000_000
    df = pl.DataFrame({"ts": [t0, t0 + 1, t0 + 100, t0 + 101]})
    match = r"column 'ts': the values 1700000000000000000 and 1700000000000000001 are one"
    with pytest.raises(pa.ConfigError, match=match):
        pa.mondrian(df, ["ts"], 1)
    # decimals of more digits than a float holds merged alike
    dec = pl.DataFrame({"d": ["1234567890.1234567891", "1234567890.1234567892", "5", "6"]}).select(
        pl.col("d").cast(pl.Decimal(20, 10))
    )
    with pytest.raises(pa.ConfigError, match=r"column 'd': the values 1234567890\.123"):
        pa.mondrian(dec, ["d"], 1)
    # -0.0 and 0.0 are one number: no refusal
    zeros = pa.mondrian(pl.DataFrame({"z": [-0.0, 0.0, 1.0, 2.0]}), ["z"], 2)
    assert zeros.groups.get_column("count").sum() == 4
    # as values of a set they are exact, and so are they less an origin
    assert pa.mondrian(df, ["ts"], 1, numeric=[]).groups.height == 4
    shifted = pa.mondrian(df.select(pl.col("ts") - t0), ["ts"], 2)
    assert sorted(shifted.groups.rows()) == [("[0-1]", 2), ("[100-101]", 2)]


def test_a_nan_is_refused_as_what_it_is_and_the_way_out_works() -> None:
    # NaN was refused as "the values NaN and NaN are one number", with a
    # remedy (round them) that left it as it was
    df = pl.DataFrame({"los": [1.0, 2.5, float("nan"), 3.0, 7.0, float("nan")] * 5})
    with pytest.raises(pa.ConfigError, match=r"column 'los' holds NaN, which has no place"):
        pa.mondrian(df, ["los"], 2)
    dropped = df.filter(~pl.col("los").is_nan())
    assert pa.mondrian(dropped, ["los"], 5).partitions == 4
    as_sets = pa.mondrian(df, ["los"], 5, numeric=[])
    out = as_sets.apply().collect()
    assert as_sets.kinds == {"los": "set"} and out.group_by("los").len()["len"].min() >= 5
