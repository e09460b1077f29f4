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
