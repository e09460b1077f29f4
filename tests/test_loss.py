"""ARX's loss metric: recomputed here from the released table with plain Polars,
at every anonymous node of several searches, with and without suppression."""

from __future__ import annotations

import math

import polars as pl
import pytest

import polars_anon as pa

QIS = ["sex", "age", "race", "marital-status", "education"]


def loss_by_hand(
    df: pl.DataFrame,
    qis: list[str],
    hs: dict[str, pa.Hierarchy],
    levels: list[int],
    k: int,
    weights: list[float] | None = None,
) -> float:
    """Per attribute: a released record costs (leaves under its label - 1) /
    (leaves - 1), a record of a group smaller than k costs 1; the mean over all
    records; then (prod (1 + l_i)^w_i)^(1 / sum w) - 1."""
    labelled = df.select(
        [
            pl.col(q)
            .cast(pl.String)
            .replace_strict(dict(zip(hs[q].leaves, hs[q].leaf_labels(lvl), strict=True)))
            .alias(q)
            for q, lvl in zip(qis, levels, strict=True)
        ]
    ).with_columns(pl.len().over(qis).alias("__size"))
    w = weights or [1.0] * len(qis)
    log_sum = 0.0
    for q, lvl, wi in zip(qis, levels, w, strict=True):
        h = hs[q]
        labels = h.leaf_labels(lvl)
        under = pl.DataFrame({q: labels}).group_by(q).len(name="__under")
        leaves = len(h.leaves)
        cost = (
            labelled.join(under, on=q, how="left")
            .select(
                pl.when(pl.col("__size") < k)
                .then(1.0)
                .otherwise((pl.col("__under") - 1) / max(leaves - 1, 1))
            )
            .to_series()
        )
        log_sum += wi * math.log1p(float(cost.mean()))  # type: ignore[arg-type]
    return math.exp(log_sum / sum(w)) - 1


@pytest.mark.parametrize(("k", "max_sup"), [(5, 0), (2, 0.05), (10, 0.02)])
def test_loss_equals_a_plain_polars_recomputation(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], k: int, max_sup: float
) -> None:
    df, hs = adult
    r = pa.search(df, QIS, hs, k, max_sup, progress=False)
    frame = r.anonymous
    # a spread of nodes: the minimal ones, the top, and every 37th
    rows = frame.filter(pl.col("minimal")).rows(named=True)[:6] + frame.rows(named=True)[::37]
    for row in rows:
        levels = [row[q] for q in QIS]
        assert row["loss"] == pytest.approx(loss_by_hand(df, QIS, hs, levels, k), abs=1e-12)
        report = pa.check(df, QIS, k, hs, levels, max_sup)
        assert report.loss == pytest.approx(row["loss"], abs=1e-12)
    top = frame.filter(pl.all_horizontal([pl.col(q) == hs[q].height for q in QIS]))
    assert top.get_column("loss").item() == pytest.approx(1.0)


def test_best_by_loss_with_and_without_weights(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    r = pa.search(df, QIS, hs, 5, 0.01, progress=False)
    frame = r.anonymous
    best = r.best("min_loss")
    low = frame.sort(["loss", "height", "suppressed", *QIS]).row(0, named=True)
    assert best == {q: low[q] for q in QIS}
    weights = {"age": 5.0, "sex": 0.5}
    w = [weights.get(q, 1.0) for q in QIS]
    by_hand = [
        loss_by_hand(df, QIS, hs, [row[q] for q in QIS], 5, w)
        for row in frame.filter(pl.col("minimal")).rows(named=True)
    ]
    chosen = r.best("min_loss", weights=weights)
    got = loss_by_hand(df, QIS, hs, [chosen[q] for q in QIS], 5, w)
    # the weighted optimum over every anonymous node is at least as good as
    # each minimal one, and weighting age heavily moves it
    assert got <= min(by_hand) + 1e-12
    assert chosen != best
