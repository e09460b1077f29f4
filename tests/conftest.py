"""Shared helpers: a brute-force check of every lattice node with plain Polars."""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import polars as pl
import pytest

import polars_anon as pa

# the searches that return the complete set of anonymous nodes
SEARCHES = [
    ("incognito", "basic"),
    ("incognito", "super_roots"),
    ("incognito", "cube"),
    ("bottom_up", "rollup"),
    ("bottom_up", "no_rollup"),
    ("mingen", None),
]


def brute_counts(
    frame: pl.DataFrame,
    qis: Sequence[str],
    hierarchies: Mapping[str, pa.Hierarchy],
    node: Sequence[int],
) -> pl.Series:
    """Group sizes of the table generalized to `node`: a plain group-by over labels."""
    exprs = []
    for q, lvl in zip(qis, node, strict=True):
        h = hierarchies[q]
        mapping = dict(zip(h.leaves, h.leaf_labels(lvl), strict=True))
        exprs.append(pl.col(q).cast(pl.String).replace_strict(mapping).alias(q))
    return frame.select(exprs).group_by(list(qis)).len().get_column("len")


def brute_anonymous(
    frame: pl.DataFrame,
    qis: Sequence[str],
    hierarchies: Mapping[str, pa.Hierarchy],
    k: int,
    max_sup: int,
) -> set[tuple[int, ...]]:
    heights = [hierarchies[q].height for q in qis]
    out = set()
    for node in itertools.product(*[range(h + 1) for h in heights]):
        counts = brute_counts(frame, qis, hierarchies, node)
        if int(counts.filter(counts < k).sum()) <= max_sup:
            out.add(tuple(node))
    return out


def random_qis(
    draw: Any, rows: int, attrs: int = 2, leaves: int = 5
) -> tuple[dict[str, list[str]], dict[str, pa.Hierarchy]]:
    """Hypothesis's draw of up to `attrs` quasi-identifier columns of `rows`
    values, each from up to `leaves` leaves of a random hierarchy (height 0
    to 3, its top level a single value)."""
    from hypothesis import strategies as st

    hs: dict[str, pa.Hierarchy] = {}
    columns: dict[str, list[str]] = {}
    for a in range(draw(st.integers(1, attrs))):
        values = [f"v{i}" for i in range(draw(st.integers(1, leaves)))]
        hrows = [[leaf] for leaf in values]
        labels = list(values)
        height = draw(st.integers(0, 3))
        for lvl in range(1, height + 1):
            if lvl == height:
                parent = {lab: "*" for lab in labels}
            else:
                buckets = draw(st.integers(1, len(set(labels))))
                parent = {lab: f"g{lvl}_{draw(st.integers(0, buckets - 1))}" for lab in set(labels)}
            labels = [parent[lab] for lab in labels]
            for row, lab in zip(hrows, labels, strict=True):
                row.append(lab)
        hs[f"q{a}"] = pa.Hierarchy.from_rows(hrows)
        columns[f"q{a}"] = [draw(st.sampled_from(values)) for _ in range(rows)]
    return columns, hs


def nodes(frame: pl.DataFrame, qis: Sequence[str]) -> set[tuple[int, ...]]:
    return {tuple(int(v) for v in row) for row in frame.select(list(qis)).iter_rows()}


@pytest.fixture(scope="session")
def adult() -> tuple[pl.DataFrame, dict[str, pa.Hierarchy]]:
    lf, hs = pa.datasets.adult()
    return lf.collect(), hs


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local Spark session for every test that asks for it."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def to_duckdb(frame: pl.DataFrame) -> Any:
    """`frame` as a table of a fresh DuckDB connection."""
    import duckdb

    con = duckdb.connect()
    arrow = frame.to_arrow()  # noqa: F841 - read by DuckDB's replacement scan
    con.execute("CREATE TABLE t AS SELECT * FROM arrow")
    return con.table("t")
