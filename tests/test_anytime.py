"""The anytime searches on wide tables (issue #36): the heuristic, and the
default `auto` that picks it past 10^8 lattice nodes, answer under any time
limit with a node whose release passes when counted again with plain
Polars; an answer never worse than Datafly's once the limit leaves time for
Datafly's path (which the heuristic walks first); with no time at all, the
top node; and a table too small for k is refused with the error that says so.

Each release is checked against a table generalized here, from the
hierarchies' labels: the same groups, every one of at least k rows, the
rows of the smaller groups suppressed and no more than the budget, and
ARX's loss valued again from the released labels."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import polars_anon as pa

Census = tuple[pl.DataFrame, dict[str, pa.Hierarchy]]

# the heuristic's time limits the issue asks about, and none at all
LIMITS = [0, 0.01, 0.1]
SUPPRESSION = [0, 0.01, 0.05]
# what every property test draws
SEEDS = st.integers(0, 2**16)
KS = st.integers(2, 10)
SUPPRESSIONS = st.sampled_from(SUPPRESSION)
ALGORITHMS = st.sampled_from(["heuristic", "auto"])
# `auto` picks the heuristic past this many lattice nodes
# (polars_anon.api.auto.AUTO_OPTIMAL)
AUTO_OPTIMAL = 10**8


def census(rows: int, columns: int, seed: int) -> Census:
    lf, hs = pa.datasets.census(rows, columns, seed=seed)
    return lf.collect(), hs


def top(qis: Sequence[str], hs: Mapping[str, pa.Hierarchy]) -> dict[str, int]:
    return {q: hs[q].height for q in qis}


def generalized(
    df: pl.DataFrame, qis: Sequence[str], hs: Mapping[str, pa.Hierarchy], node: Mapping[str, int]
) -> pl.DataFrame:
    """`df`'s quasi-identifiers replaced by their labels at `node`, each
    value mapped through its hierarchy's leaves (an unknown value fails)."""
    exprs = []
    for q in qis:
        h = hs[q]
        mapping = dict(zip(h.leaves, h.leaf_labels(node[q]), strict=True))
        exprs.append(pl.col(q).cast(pl.String).replace_strict(mapping).alias(q))
    return df.select(exprs)


def recount(
    df: pl.DataFrame,
    qis: Sequence[str],
    hs: Mapping[str, pa.Hierarchy],
    k: int,
    sup: float,
    result: pa.SearchResult,
) -> float:
    """Check the release of `result`'s min-loss answer with plain Polars and
    return ARX's loss valued from the released labels. `sup`: an int is a
    count of rows, a float a fraction of them (as `pa.search` reads it)."""
    node = result.best("min_loss")
    assert set(node) == set(qis)
    assert all(0 <= node[q] <= hs[q].height for q in qis), node
    release = result.apply(df, criterion="min_loss").collect()
    assert set(qis) <= set(release.columns)
    released = release.select([pl.col(q).cast(pl.String) for q in qis])
    rows = df.height
    # every group of the release holds at least k rows
    sizes = released.group_by(qis).len()
    assert released.height == 0 or int(sizes.get_column("len").min()) >= k
    # no more rows suppressed than the budget allows
    suppressed = rows - release.height
    assert 0 <= suppressed <= budget(sup, rows), (suppressed, sup, rows)
    # the release is the input generalized to `node` here, less exactly the
    # groups smaller than k: the same groups with the same sizes
    expect = generalized(df, qis, hs, node).group_by(qis).len()
    kept = expect.filter(pl.col("len") >= k)
    assert int(expect.filter(pl.col("len") < k).get_column("len").sum()) == suppressed
    assert kept.sort(qis).equals(sizes.sort(qis)), node
    # ARX's loss: per attribute, the mean over the rows of (leaves under the
    # released label - 1) / (leaves - 1), a suppressed row costing 1; then
    # the geometric mean of 1 + each, less 1
    log_sum = 0.0
    for q in qis:
        h = hs[q]
        labels = pl.Series(h.leaf_labels(node[q]), dtype=pl.String)
        under = labels.value_counts()
        leaves = len(h.leaves)
        # a label that is not one of this level's fails the mapping
        width = released.get_column(q).replace_strict(
            under.get_column(labels.name), under.get_column("count"), return_dtype=pl.Int64
        )
        cost = 0.0 if leaves <= 1 else float((width - 1).sum()) / (leaves - 1)
        log_sum += math.log1p((cost + suppressed) / rows)
    return math.expm1(log_sum / len(qis))


def listed_loss(result: pa.SearchResult) -> float:
    """The loss `result` lists for its min-loss answer."""
    row = result.anonymous.filter(**result.best("min_loss"))
    assert row.height == 1
    return float(row.get_column("loss").item())


def budget(sup: float, rows: int) -> int:
    """The rows `pa.search` may suppress: an int is a count, a float a fraction."""
    return min(sup, rows) if isinstance(sup, int) else math.floor(sup * rows)


def check_listed(
    df: pl.DataFrame,
    qis: Sequence[str],
    hs: Mapping[str, pa.Hierarchy],
    k: int,
    sup: float,
    result: pa.SearchResult,
) -> set[tuple[int, ...]]:
    """Recount the first, a middle and the last node `result` lists as
    anonymous with plain Polars (their suppressed rows and groups too), and
    return every listed node."""
    listed = result.anonymous
    for i in sorted({0, listed.height // 2, listed.height - 1}):
        row = listed.row(i, named=True)
        node = {q: int(row[q]) for q in qis}
        sizes = generalized(df, qis, hs, node).group_by(qis).len().get_column("len")
        small = int(sizes.filter(sizes < k).sum())
        assert small <= budget(sup, df.height), node
        assert small == row["suppressed"], node
        assert int((sizes >= k).sum()) == row["groups"], node
    return {tuple(int(v) for v in row) for row in listed.select(list(qis)).iter_rows()}


def lattice(qis: Sequence[str], hs: Mapping[str, pa.Hierarchy]) -> int:
    return math.prod(hs[q].height + 1 for q in qis)


def run(
    df: pl.DataFrame,
    qis: list[str],
    hs: dict[str, pa.Hierarchy],
    k: int,
    sup: float,
    algorithm: str,
    limit: float,
) -> pa.SearchResult:
    return pa.search(df, qis, hs, k, sup, algorithm=algorithm, time_limit=limit, progress=False)


@settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    # tens of rows: few nodes anonymous; thousands: many
    rows=st.one_of(st.integers(10, 40), st.integers(41, 3_000)),
    columns=st.integers(20, 60),
    seed=SEEDS,
    k=KS,
    sup=SUPPRESSIONS,
    limit=st.sampled_from(LIMITS),
    algorithm=ALGORITHMS,
)
@example(rows=10, columns=20, seed=0, k=10, sup=0, limit=0.01, algorithm="auto")
@example(rows=3_000, columns=60, seed=1, k=2, sup=0.05, limit=0.1, algorithm="heuristic")
@example(rows=2_000, columns=40, seed=2, k=5, sup=0.01, limit=0, algorithm="auto")
def test_the_answer_under_a_tiny_time_limit_is_anonymous(
    rows: int, columns: int, seed: int, k: int, sup: float, limit: float, algorithm: str
) -> None:
    """Under 0, 0.01 and 0.1 s on 20 to 60 columns: an answer always (the
    top passes), its release valid when counted again, the nodes listed
    anonymous, and with no time the top itself."""
    df, hs = census(rows, columns, seed)
    qis = list(hs)
    assert lattice(qis, hs) > AUTO_OPTIMAL
    r = run(df, qis, hs, k, sup, algorithm, limit)
    assert r.algorithm == "heuristic"
    # every hierarchy has a one-value top and rows >= k: the top is
    # anonymous, so there is always an answer
    assert r.anonymous.height >= 1
    check_listed(df, qis, hs, k, sup, r)
    loss = recount(df, qis, hs, k, sup, r)
    assert loss == pytest.approx(listed_loss(r), rel=1e-9, abs=1e-12)
    # the min-loss answer is the least loss among the nodes listed
    assert listed_loss(r) <= float(r.anonymous.get_column("loss").min()) + 1e-12  # type: ignore[arg-type]
    # bounded: the limit, and the top's valuation (untimed) on top of it
    assert r.stats.phase_ms["total"] < 1_000 * (limit + 5), r.stats.phase_ms
    if r.stopped is None:
        # it ran to its end: Datafly's path and the best-first walk
        # included, so it is proven and no worse than Datafly
        assert r.proven_optimal
        datafly = pa.search(df, qis, hs, k, sup, algorithm="datafly", progress=False)
        assert loss <= recount(df, qis, hs, k, sup, datafly) + 1e-12
    else:
        assert "time limit" in r.stopped and not r.proven_optimal and not r.complete
    if limit == 0:
        # no time at all: the only node proven is the top, valued whatever
        # the limit
        assert r.stopped is not None
        assert r.best("min_loss") == top(qis, hs)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.one_of(st.integers(10, 40), st.integers(41, 600)),
    columns=st.integers(20, 40),
    seed=SEEDS,
    k=KS,
    sup=SUPPRESSIONS,
    algorithm=ALGORITHMS,
)
@example(rows=600, columns=40, seed=3, k=3, sup=0.01, algorithm="heuristic")
def test_given_time_for_datafly_path_the_answer_is_no_worse_than_datafly(
    rows: int, columns: int, seed: int, k: int, sup: float, algorithm: str
) -> None:
    """Given the time Datafly's path takes, the answer's loss (valued again
    from both releases) is at most Datafly's."""
    df, hs = census(rows, columns, seed)
    qis = list(hs)
    started = time.perf_counter()
    datafly = pa.search(df, qis, hs, k, sup, algorithm="datafly", progress=False)
    path = time.perf_counter() - started
    assert datafly.anonymous.height == 1
    datafly_loss = recount(df, qis, hs, k, sup, datafly)
    assert datafly_loss == pytest.approx(listed_loss(datafly), rel=1e-9, abs=1e-12)
    # the heuristic walks Datafly's path first: a limit of twice the time
    # that path took alone here, and a second, leaves it the time even on a
    # loaded machine (as tests/test_optimal.py's hundred columns)
    limit = 1 + 2 * path
    r = run(df, qis, hs, k, sup, algorithm, limit)
    assert r.algorithm == "heuristic" and r.anonymous.height >= 1
    loss = recount(df, qis, hs, k, sup, r)
    assert loss == pytest.approx(listed_loss(r), rel=1e-9, abs=1e-12)
    assert loss <= datafly_loss + 1e-12, (r.best("min_loss"), datafly.best("min_loss"))


@pytest.mark.parametrize("algorithm", ["heuristic", "auto"])
@pytest.mark.parametrize("limit", [None, *LIMITS])
@pytest.mark.parametrize(("rows", "k", "sup"), [(3, 5, 0), (9, 10, 0.05), (4, 5, 4)])
def test_a_table_too_small_for_k_at_the_top_is_refused_saying_so(
    algorithm: str, limit: float | None, rows: int, k: int, sup: float
) -> None:
    # one group of every row at the top, and still fewer than k: no node can
    # be k-anonymous, even with every row allowed to be suppressed
    df, hs = census(rows, 30, 0)
    qis = list(hs)
    with pytest.raises(pa.ConfigError) as err:
        pa.search(df, qis, hs, k, sup, algorithm=algorithm, time_limit=limit, progress=False)
    message = str(err.value)
    assert f"k = {k} is larger than the table ({rows} rows)" in message
    assert f"no generalization can be {k}-anonymous" in message
    # k rows: the top passes, and the search answers under any limit (with
    # the top itself when there is no time)
    df, hs = census(k, 30, 0)
    r = pa.search(df, qis, hs, k, sup, algorithm=algorithm, time_limit=limit, progress=False)
    assert r.algorithm == "heuristic" and r.anonymous.height >= 1
    recount(df, qis, hs, k, sup, r)
    if limit == 0:
        assert r.best("min_loss") == top(qis, hs)


def lowest_common(
    df: pl.DataFrame, qis: Sequence[str], hs: Mapping[str, pa.Hierarchy]
) -> dict[str, int]:
    """Each quasi-identifier's lowest level at which every row has one label."""
    out = {}
    for q in qis:
        h = hs[q]
        values = df.get_column(q).cast(pl.String)
        out[q] = next(
            lvl
            for lvl in range(h.height + 1)
            if values.replace_strict(
                dict(zip(h.leaves, h.leaf_labels(lvl), strict=True))
            ).n_unique()
            == 1
        )
    return out


def split_below_top(rows: int, columns: int, seed: int) -> Census:
    """`rows` rows of `columns` quasi-identifiers over census's hierarchies,
    each with two labels one level below its top, in alternate rows (the
    columns whose hierarchy has a single label there are left out)."""
    pool, hs = census(1_000, min(500, 2 * columns), seed)
    rng = random.Random(seed)
    data: dict[str, pl.Series] = {}
    for q, h in hs.items():
        below = h.leaf_labels(h.height - 1)
        if len(set(below)) < 2:
            continue
        if len(data) == columns:
            break
        first = rng.choice(below)
        sides = [
            [leaf for leaf, lab in zip(h.leaves, below, strict=True) if (lab == first) == side]
            for side in (True, False)
        ]
        shift = rng.randrange(2)
        values = [rng.choice(sides[(i + shift) % 2]) for i in range(rows)]
        data[q] = pl.Series(q, values).cast(pool.schema[q])
    return pl.DataFrame(data), {q: hs[q] for q in data}


@settings(max_examples=14, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    k=KS,
    extra=st.integers(0, 9),
    columns=st.integers(20, 60),
    seed=SEEDS,
    sup=SUPPRESSIONS,
    limit=st.sampled_from([*LIMITS, 1.0]),
    algorithm=ALGORITHMS,
    only_top=st.booleans(),
)
@example(k=10, extra=9, columns=60, seed=0, sup=0.05, limit=0.01, algorithm="auto", only_top=True)
@example(k=2, extra=0, columns=43, seed=7, sup=0, limit=1.0, algorithm="heuristic", only_top=False)
def test_few_rows_the_answer_is_the_lowest_node_where_all_rows_meet(
    k: int,
    extra: int,
    columns: int,
    seed: int,
    sup: float,
    limit: float,
    algorithm: str,
    only_top: bool,
) -> None:
    """Between k and 2k - 1 rows (fewer than 20: nothing may be suppressed),
    a node is anonymous only if every row falls in one group: the anonymous
    nodes are those at or above the lowest levels where the rows meet, and
    that lowest node is the optimum (Datafly's path ends there). Built so
    that the rows meet only at the top, the top is the only anonymous node,
    and the answer under every limit."""
    rows = k + extra % k
    if only_top:
        df, hs = split_below_top(rows, columns, seed)
    else:
        df, hs = census(rows, columns, seed)
    qis = list(hs)
    assert budget(sup, rows) == 0 and rows < 2 * k and len(qis) >= 20
    meet = lowest_common(df, qis, hs)
    if only_top:
        assert meet == top(qis, hs)
    r = run(df, qis, hs, k, sup, algorithm, limit)
    assert r.algorithm == "heuristic" and r.anonymous.height >= 1
    listed = check_listed(df, qis, hs, k, sup, r)
    assert all(n >= m for node in listed for n, m in zip(node, meet.values(), strict=True))
    recount(df, qis, hs, k, sup, r)
    best = r.best("min_loss")
    if only_top:
        assert listed == {tuple(top(qis, hs).values())}
        assert best == top(qis, hs)
    if limit == 0:
        assert best == top(qis, hs)
    if limit == 1.0:
        assert best == meet
