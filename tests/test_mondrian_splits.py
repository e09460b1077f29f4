"""Mondrian's recorded splits (#32): a strict result's ``.splits``
re-applied to the same table gives the same release, and to another table
the partitions a router written here finds by walking the same table of
splits, each recounted with plain Polars (k records, the raw values inside
their released cells); a partition below k refuses the whole run."""

from __future__ import annotations

import datetime as dt
import pickle
import random
from typing import Any

import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import polars_anon as pa

QIS = ["age", "sex", "race", "education"]


def adult() -> tuple[pl.DataFrame, dict[str, pa.Hierarchy]]:
    lf, hs = pa.datasets.adult()
    return lf.collect(), {q: hs[q] for q in ("race", "education")}


Children = dict[int, list[dict[str, Any]]]


def tree_of(splits: pl.DataFrame) -> Children:
    children: Children = {}
    for row in splits.iter_rows(named=True):
        if row["parent"] is not None:
            children.setdefault(row["parent"], []).append(row)
    return children


def route(
    children: Children, record: dict[str, Any], up: dict[tuple[str, int], dict[str, str]]
) -> int:
    """The leaf `record` reaches, walking the splits from the root as the
    module doc of `results.mondrian_splits` says (written apart from it);
    `up[(q, level)]` maps q's leaves to their nodes at that level."""
    node = 0
    while node in children:
        for child in children[node]:
            value = record[child["attribute"]]
            if child["test"] == "under":
                passes = up[(child["attribute"], child["level"])].get(str(value)) == child["label"]
            else:
                key = child["number"] if child["number"] is not None else child["label"]
                value = value if child["number"] is not None else str(value)
                passes = value <= key if child["test"] == "<=" else value > key
            if passes:
                node = child["node"]
                break
        else:
            raise AssertionError(f"{record} reaches no child of node {node}")
    return node


def routed_groups(
    splits: pl.DataFrame, table: pl.DataFrame, qis: list[str], hs: dict[str, pa.Hierarchy]
) -> list[int]:
    """The sizes of the groups the router makes of `table`, sorted."""
    up = {
        (q, lvl): dict(zip(h.leaves, h.leaf_labels(lvl), strict=True))
        for q, h in hs.items()
        for lvl in range(h.height + 1)
    }
    children = tree_of(splits)
    leaves: dict[int, int] = {}
    for row in table.group_by(qis).len().iter_rows(named=True):
        leaf = route(children, row, up)
        leaves[leaf] = leaves.get(leaf, 0) + row["len"]
    return sorted(leaves.values())


def holds(result: pa.MondrianResult, raw: pl.DataFrame, k: int) -> pl.DataFrame:
    """The release recounted: every record kept, each group of k or more,
    each raw age inside its released range."""
    out = result.apply().collect()
    assert out.height == raw.height
    sizes = out.group_by(result.quasi_identifiers).len()
    assert sizes.get_column("len").min() >= k  # type: ignore[operator]
    both = out.select(pl.col("age").alias("cell")).with_columns(raw.get_column("age"))
    bounds = both.with_columns(
        pl.col("cell").str.extract(r"^\[?(\d+)", 1).cast(pl.Int64).alias("lo"),
        pl.col("cell").str.extract(r"(\d+)\]?$", 1).cast(pl.Int64).alias("hi"),
    )
    assert bounds.filter((pl.col("age") < pl.col("lo")) | (pl.col("age") > pl.col("hi"))).is_empty()
    return sizes


def test_re_applied_to_its_own_table_it_releases_the_same() -> None:
    df, hs = adult()
    first = pa.mondrian(df, QIS, 5, hs)
    splits = first.splits
    assert splits.columns == [
        "node",
        "parent",
        "attribute",
        "test",
        "number",
        "label",
        "level",
        "partition",
        "unit",
    ]
    assert splits.get_column("partition").drop_nulls().sort().to_list() == list(
        range(first.partitions)
    )
    again = pa.mondrian(df, QIS, 5, hs, splits=splits)
    assert again.partitions == first.partitions and again.loss == pytest.approx(first.loss)
    a, b = first.apply().collect(), again.apply().collect()
    assert a.equals(b)
    # the router written here makes the same groups
    assert routed_groups(splits, df, QIS, hs) == sorted(first.groups.get_column("count").to_list())
    assert again.splits.equals(splits)


def larger() -> tuple[pl.DataFrame, pl.DataFrame, dict[str, pa.Hierarchy]]:
    """January's rows and a table of them and 8,000 more drawn from them
    (no record where January's splits left an empty part: a new combination
    of its values could be)."""
    df, hs = adult()
    january = df.head(20000)
    more = january.select(QIS).sample(8000, seed=1)
    return january, pl.concat([january.select(QIS), more]), hs


def test_a_larger_table_is_routed_and_recounted() -> None:
    january, table, hs = larger()
    splits = pa.mondrian(january, QIS, 5, hs).splits
    result = pa.mondrian(table, QIS, 5, hs, splits=splits)
    sizes = holds(result, table, 5)
    assert sorted(sizes.get_column("len").to_list()) == routed_groups(splits, table, QIS, hs)
    # the splits it holds number its partitions, as its groups list them
    held = result.splits.get_column("partition").drop_nulls()
    assert held.sort().to_list() == list(range(result.partitions))
    # relabelled from the records each partition holds now: no cell wider
    # than its values
    assert result.loss <= 1.0 and result.partitions == sizes.height


def test_a_partition_below_k_refuses_the_run() -> None:
    df, hs = adult()
    splits = pa.mondrian(df.head(20000), QIS, 5, hs).splits
    # the rest of Adult: values under nodes January held none of, and
    # partitions too small
    small = df.tail(10162)
    with pytest.raises(pa.NotAnonymousError, match="recorded partitions that hold its records"):
        pa.mondrian(small, QIS, 5, hs, splits=splits)
    assert min(routed_groups(splits, small, QIS, hs)) < 5


def test_coarsened_the_splits_a_thin_table_cannot_hold_are_undone() -> None:
    df, hs = adult()
    splits = pa.mondrian(df.head(20000), QIS, 5, hs).splits
    rest = df.tail(10162)
    result = pa.mondrian(rest, QIS, 5, hs, splits=splits, coarsen=True)
    sizes = holds(result, rest, 5)
    # each released group is whole leaves of the router: the records of one
    # leaf never in two groups, and fewer groups than leaves reached
    up = {
        (q, lvl): dict(zip(h.leaves, h.leaf_labels(lvl), strict=True))
        for q, h in hs.items()
        for lvl in range(h.height + 1)
    }
    children = tree_of(splits)
    out = result.apply().collect()
    leaves = [
        route(children, dict(zip(QIS, row, strict=True)), up)
        for row in rest.select(QIS).iter_rows()
    ]
    groups = out.select(QIS).with_columns(pl.Series("leaf", leaves))
    per_leaf = groups.group_by("leaf").agg(pl.struct(QIS).n_unique().alias("groups"))
    assert per_leaf.get_column("groups").max() == 1
    assert sizes.height < per_leaf.height
    # the merged nodes carry the partitions in the splits it holds
    held = result.splits.get_column("partition").drop_nulls()
    assert held.sort().to_list() == list(range(result.partitions))
    # a table held whole by the recorded splits is not coarsened
    same = pa.mondrian(df.head(20000), QIS, 5, hs, splits=splits, coarsen=True)
    assert same.partitions == pa.mondrian(df.head(20000), QIS, 5, hs).partitions
    with pytest.raises(pa.ConfigError, match="pass splits= too"):
        pa.mondrian(rest, QIS, 5, hs, coarsen=True)


@settings(max_examples=40, deadline=None)
@given(
    first=st.lists(
        st.tuples(st.integers(0, 30), st.sampled_from("abcdef")), min_size=4, max_size=40
    ),
    second=st.lists(
        st.tuples(st.integers(-5, 35), st.sampled_from("abcdefgh")), min_size=1, max_size=60
    ),
    k=st.integers(1, 4),
)
@example(first=[(1, "a"), (2, "b"), (3, "c"), (4, "d")], second=[(0, "h")], k=1)
def test_random_tables_route_as_the_router_does(
    first: list[tuple[int, str]], second: list[tuple[int, str]], k: int
) -> None:
    a = pl.DataFrame(first, schema=["x", "s"], orient="row")
    b = pl.DataFrame(second, schema=["x", "s"], orient="row")
    if a.height < k:
        return
    splits = pa.mondrian(a, ["x", "s"], k).splits
    if b.height < k:
        with pytest.raises(pa.ConfigError, match="larger than the table"):
            pa.mondrian(b, ["x", "s"], k, splits=splits)
        return
    expected = routed_groups(splits, b, ["x", "s"], {})
    coarse = pa.mondrian(b, ["x", "s"], k, splits=splits, coarsen=True)
    sizes = coarse.apply().collect().group_by(["x", "s"]).len().get_column("len")
    assert sizes.sum() == b.height and sizes.min() >= k
    try:
        result = pa.mondrian(b, ["x", "s"], k, splits=splits)
    except pa.NotAnonymousError:
        assert min(expected) < k
        return
    assert coarse.partitions == result.partitions
    out = result.apply().collect()
    assert out.height == b.height
    assert sorted(out.group_by(["x", "s"]).len().get_column("len").to_list()) == expected
    assert min(expected) >= k


def test_a_hierarchy_value_the_recorded_table_lacked_gets_its_own_part() -> None:
    h = pa.Hierarchy.from_rows(
        [["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]]
    )
    first = pl.DataFrame({"v": ["a", "a", "b", "b"]})
    splits = pa.mondrian(first, ["v"], 2, {"v": h}).splits
    assert "cd" in splits.get_column("label").to_list()
    # the root's node is ab: cd, beside it under *, is an empty leaf
    second = pl.DataFrame({"v": ["a", "a", "c", "d"]})
    out = pa.mondrian(second, ["v"], 2, {"v": h}, splits=splits).apply().collect()
    assert out.get_column("v").to_list() == ["a", "a", "cd", "cd"]
    assert routed_groups(splits, second, ["v"], {"v": h}) == [2, 2]


def test_what_cannot_be_re_applied_is_refused() -> None:
    df, hs = adult()
    relaxed = pa.mondrian(df, QIS, 5, hs, mode="relaxed")
    with pytest.raises(pa.ConfigError, match="relaxed partition divides"):
        _ = relaxed.splits
    splits = pa.mondrian(df.head(5000), QIS, 5, hs).splits
    with pytest.raises(pa.ConfigError, match="mode='relaxed' takes none"):
        pa.mondrian(df, QIS, 5, hs, mode="relaxed", splits=splits)
    with pytest.raises(pa.ConfigError, match="lack column: level;"):
        pa.mondrian(df, QIS, 5, hs, splits=splits.drop("level"))
    renamed = splits.with_columns(pl.col("attribute").replace("sex", "gender"))
    with pytest.raises(pa.ConfigError, match="cut gender, not quasi-identifiers"):
        pa.mondrian(df, QIS, 5, hs, splits=renamed)
    # age cut as a number, split here as a set of values
    with pytest.raises(pa.ConfigError, match="'age' was cut as a number"):
        pa.mondrian(df, QIS, 5, hs, numeric=[], splits=splits)
    with pytest.raises(pa.ConfigError, match="number their nodes"):
        pa.mondrian(df, QIS, 5, hs, splits=splits.reverse())


def test_numbers_split_as_sets_are_cut_in_text_order() -> None:
    df = pl.DataFrame({"n": [9, 9, 9, 10, 10, 10, 11, 11, 11]})
    result = pa.mondrian(df, ["n"], 3, numeric=[])
    assert result.partitions == 3
    splits = result.splits
    # "9" follows "11" as text; 100 falls between "10" and "11"
    assert splits.filter(pl.col("node") == 1).get_column("label").item() == "11"
    again = pa.mondrian(
        pl.DataFrame({"n": [9, 9, 9, 100, 100, 100]}), ["n"], 3, numeric=[], splits=splits
    )
    assert sorted(again.groups.get_column("n").to_list()) == ["100", "9"]


def test_a_pickled_re_applied_result_re_applies_its_splits() -> None:
    january, table, hs = larger()
    splits = pa.mondrian(january, QIS, 5, hs).splits
    result = pa.mondrian(table, QIS, 5, hs, splits=splits)
    back = pickle.loads(pickle.dumps(result))
    assert back.applied is not None and back.applied.equals(result.applied)
    assert back.groups.sort(QIS).equals(result.groups.sort(QIS))


def test_splits_re_applied_on_duckdb_release_the_polars_groups() -> None:
    duckdb = pytest.importorskip("duckdb")
    january, table, hs = larger()
    splits = pa.mondrian(january, QIS, 5, hs).splits
    con = duckdb.connect()
    con.register("t", table.to_arrow())
    there = pa.mondrian(con.table("t"), QIS, 5, hs, splits=splits)
    here = pa.mondrian(table, QIS, 5, hs, splits=splits)
    assert there.partitions == here.partitions and there.loss == pytest.approx(here.loss)
    released = there.apply().pl()
    assert released.height == table.height
    counted = released.group_by(QIS).len().sort(QIS)
    assert counted.equals(here.apply().collect().group_by(QIS).len().sort(QIS))


def test_a_coarsened_results_splits_re_apply_its_release() -> None:
    df, hs = adult()
    splits = pa.mondrian(df.head(20000), QIS, 5, hs).splits
    rest = df.tail(10162)
    coarse = pa.mondrian(rest, QIS, 5, hs, splits=splits, coarsen=True)
    own = coarse.splits
    assert own.height < splits.height
    assert own.get_column("node").to_list() == list(range(own.height))
    again = pa.mondrian(rest, QIS, 5, hs, splits=own)
    assert again.apply().collect().equals(coarse.apply().collect())


def test_odd_splits_tables_are_refused_by_name() -> None:
    df, hs = adult()
    splits = pa.mondrian(df.head(5000), QIS, 5, hs).splits
    half = splits.with_columns(pl.col("level").cast(pl.Float64) + 0.5)
    with pytest.raises(pa.ConfigError, match="splits' column level must hold whole numbers"):
        pa.mondrian(df, QIS, 5, hs, splits=half)
    with pytest.raises(pa.ConfigError, match="got pandas"):
        pa.mondrian(df, QIS, 5, hs, splits=splits.to_pandas())
    # cut short before the right half of the first cut
    first_right = splits.filter(pl.col("test") == ">").get_column("node").min()
    with pytest.raises(pa.ConfigError, match="cut short, or edited"):
        pa.mondrian(df, QIS, 5, hs, splits=splits.head(first_right))  # type: ignore[arg-type]


def test_a_refusal_names_the_criterion_broken() -> None:
    df, _ = adult()
    diverse = [pa.DistinctLDiversity(2, "occupation")]
    splits = pa.mondrian(df.head(20000), ["age", "sex"], 5, criteria=diverse).splits
    stricter = [pa.DistinctLDiversity(5, "occupation")]
    with pytest.raises(pa.NotAnonymousError, match="break DistinctLDiversity"):
        pa.mondrian(df.tail(3000), ["age", "sex"], 5, criteria=stricter, splits=splits)
    nulls = pl.DataFrame({"a": [1, 2, None, 4]})
    with pytest.raises(pa.MissingValueError) as e:
        pa.mondrian(nulls, ["a"], 2)
    assert "nulls='value'" not in str(e.value) and "keep null as a value" not in str(e.value)
    # nor for an empty string, which a search would take as a null
    empty = pl.DataFrame({"a": ["x", "", "y", "x"] * 5})
    with pytest.raises(pa.HierarchyError, match="empty string") as h:
        pa.mondrian(empty, ["a"], 2)
    assert "nulls='value'" not in str(h.value)


def cells(result: Any) -> pl.Series:
    """Each record's released cells as one text, in the table's order."""
    released = result.apply().collect()
    return released["t"] + " " + released["age"]


def test_datetime_splits_re_apply_at_another_time_unit() -> None:
    # recorded in nanoseconds, re-applied to microseconds and milliseconds:
    # the cuts are rescaled, so the partitions are those of the same month
    # read in nanoseconds (unscaled, every record went to one side)
    def month(seed: int) -> pl.DataFrame:
        r = random.Random(seed)
        start = dt.datetime(2021, 3, 1)
        moments = [
            start + dt.timedelta(seconds=r.randrange(30 * 86400), microseconds=r.randrange(10**6))
            for _ in range(300)
        ]
        return pl.DataFrame({"t": moments, "age": [r.randrange(20, 60) for _ in moments]})

    def at(df: pl.DataFrame, unit: str) -> pl.DataFrame:
        return df.with_columns(pl.col("t").cast(pl.Datetime(unit)))  # type: ignore[arg-type]

    first = at(month(1), "ns")
    splits = pa.mondrian(first, ["t", "age"], k=5).splits
    assert set(splits.filter(pl.col("attribute") == "t")["unit"]) == {"ns"}
    second = month(2).with_columns(pl.col("t").dt.truncate("1ms"))
    qis = ["t", "age"]
    as_ns = pa.mondrian(at(second, "ns"), qis, k=5, splits=splits, coarsen=True)
    assert as_ns.partitions > 4
    for unit in ("us", "ms"):
        result = pa.mondrian(at(second, unit), qis, k=5, splits=splits, coarsen=True)
        assert result.partitions == as_ns.partitions
        pairs = pl.DataFrame({"here": cells(result), "ns": cells(as_ns)})
        assert pairs.group_by("here").agg(pl.col("ns").n_unique())["ns"].max() == 1
        assert pairs.group_by("here").len()["len"].min() >= 5
        assert set(result.splits.filter(pl.col("attribute") == "t")["unit"]) == {"us"}
    with pytest.raises(pa.ConfigError, match="cut 't' as datetimes; this table's 't' holds dates"):
        pa.mondrian(second.with_columns(pl.col("t").cast(pl.Date)), qis, k=5, splits=splits)
    # splits recorded before their units were: taken as in this table's unit
    again = pa.mondrian(first, qis, k=5, splits=splits.drop("unit"))
    assert again.partitions == pa.mondrian(first, qis, k=5).partitions


def test_a_nanosecond_cut_inside_a_microsecond_routes_microseconds_as_before() -> None:
    # the cut falls at 1.5 us: a record at 2 us goes '>' in nanoseconds and
    # must in microseconds too (rounded to the nearest, the cut was 2 us)
    start = dt.datetime(2021, 3, 1)
    ns0 = int(pl.Series([start]).cast(pl.Datetime("ns")).to_physical()[0])
    offsets = [0, 1000, 1600, 2000, 3000, 4000]
    recorded = pl.DataFrame({"t": pl.Series([ns0 + o for o in offsets]).cast(pl.Datetime("ns"))})
    splits = pa.mondrian(recorded, ["t"], k=3).splits
    cut = splits.filter(pl.col("number").is_not_null())["number"][0]
    assert 1000 < cut - ns0 < 2000
    moments = [start + dt.timedelta(microseconds=u) for u in [0, 1, 2, 3, 4, 5] * 2]
    micro = pl.DataFrame({"t": moments}).with_columns(pl.col("t").cast(pl.Datetime("us")))
    nano = micro.with_columns(pl.col("t").cast(pl.Datetime("ns")))
    sides = []
    for table in (nano, micro):
        released = pa.mondrian(table, ["t"], k=2, splits=splits).apply().collect()
        cells = released.with_columns(raw=table["t"].dt.microsecond())
        sides.append(cells.group_by("t").agg(pl.col("raw").unique().sort()).sort("raw")["raw"])
    assert sides[0].to_list() == sides[1].to_list() == [[0, 1], [2, 3, 4, 5]]
