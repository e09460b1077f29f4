"""Datafly against its path recomputed here with plain Polars, against the
complete search, and its release re-checked."""

from __future__ import annotations

import polars as pl
import pytest

import polars_anon as pa
from tests.conftest import nodes

QIS = ["sex", "age", "race", "marital-status", "education", "native-country"]


def datafly_by_hand(
    df: pl.DataFrame, qis: list[str], hs: dict[str, pa.Hierarchy], k: int, max_sup: int
) -> tuple[list[int], int]:
    """Sweeney's loop: while the tuples in groups smaller than k exceed the
    budget, raise the attribute with the most distinct (generalized) values,
    the first one on a tie. Returns the node and the nodes checked."""
    levels = [0] * len(qis)
    checked = 0
    while True:
        exprs = []
        for q, lvl in zip(qis, levels, strict=True):
            h = hs[q]
            mapping = dict(zip(h.leaves, h.leaf_labels(lvl), strict=True))
            exprs.append(pl.col(q).cast(pl.String).replace_strict(mapping).alias(q))
        gen = df.select(exprs)
        checked += 1
        sizes = gen.group_by(qis).len().get_column("len")
        if int(sizes.filter(sizes < k).sum()) <= max_sup:
            return levels, checked
        open_ = [i for i, q in enumerate(qis) if levels[i] < hs[q].height]
        assert open_, "the top is not anonymous"
        distinct = [gen.get_column(qis[i]).n_unique() for i in open_]
        levels[open_[distinct.index(max(distinct))]] += 1


@pytest.mark.parametrize(("k", "max_sup"), [(2, 0), (5, 0), (10, 0), (5, 0.01), (10, 0.05)])
def test_datafly_takes_sweeneys_path(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], k: int, max_sup: float
) -> None:
    df, hs = adult
    budget = int(max_sup * df.height)
    expect, checked = datafly_by_hand(df, QIS, hs, k, budget)
    r = pa.search(df, QIS, hs, k, max_sup, algorithm="datafly", progress=False)
    assert not r.complete and r.stats.nodes_checked == checked
    assert r.best() == dict(zip(QIS, expect, strict=True))
    # one node, anonymous by the complete search, and never below its minimal ones
    full = pa.search(df, QIS, hs, k, max_sup, progress=False)
    assert nodes(r.anonymous, QIS) == {tuple(expect)} <= nodes(full.anonymous, QIS)
    # the path it walked: every node but the last failed
    ev = r.evaluated
    assert ev.height == checked and ev.get_column("anonymous").sum() == 1
    out = r.apply().collect()
    sizes = out.select(QIS).group_by(QIS).len().get_column("len")
    assert int(sizes.min()) >= k  # type: ignore[arg-type]
    assert df.height - out.height <= budget


def test_datafly_meets_criteria_it_is_given(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    crit = pa.EntropyLDiversity(2, "occupation")  # not monotone with suppression
    r = pa.search(df, QIS[:4], hs, 5, 0.02, algorithm="datafly", criteria=crit, progress=False)
    assert pa.check(df, QIS[:4], 5, hs, r.best(), 0.02, criteria=crit).k_anonymous
    out = r.apply().collect()
    assert pa.check(out, QIS[:4], 5, max_suppression=0, criteria=crit).k_anonymous


def test_datafly_on_a_wide_table_takes_sweeneys_path() -> None:
    """80 quasi-identifiers (the path runs on its own classes, a step
    costing the classes whatever the attributes): the same path as the
    loop above, and the heuristic, which starts from Datafly's answer, is
    never worse than it."""
    lf, hs = pa.datasets.census(3_000, 80, seed=3)
    df = lf.collect()
    qis = df.columns
    budget = int(0.01 * df.height)
    expect, checked = datafly_by_hand(df, qis, hs, 5, budget)
    r = pa.search(df, qis, hs, 5, 0.01, algorithm="datafly", progress=False)
    assert r.best() == dict(zip(qis, expect, strict=True))
    assert r.stats.nodes_checked == checked
    loss = r.anonymous.get_column("loss").item()
    h = pa.search(df, qis, hs, 5, 0.01, algorithm="heuristic", time_limit=3, progress=False)
    best = h.anonymous.filter(**h.best("min_loss"))
    assert best.get_column("loss").item() <= loss
    out = h.apply().collect()
    sizes = out.select(qis).group_by(qis).len().get_column("len")
    assert int(sizes.min()) >= 5  # type: ignore[arg-type]
    assert df.height - out.height <= budget
