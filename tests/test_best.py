"""best() by a metric with a lower bound (min_loss, max_precision) values
the nodes in order of the bound and stops when none left can do better: it
must choose the node that ranking every anonymous node chooses, with
suppression on and off, weighted, within bounds, on Adult, on cup and on
random tables, and value far fewer nodes."""

from __future__ import annotations

import pickle

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_anon as pa
from tests.test_search import tables


def both_ways(
    result: pa.SearchResult, criterion: str, **kw: object
) -> tuple[dict[str, int], dict[str, int]]:
    """best() valuing by bound, then on a copy whose every node is valued."""
    fast = result.best(criterion, **kw)  # type: ignore[arg-type]
    full = pickle.loads(pickle.dumps(result))
    assert full.anonymous.height == len(result._nodes)  # every node valued first
    return fast, full.best(criterion, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("k", [2, 5, 10])
@pytest.mark.parametrize("sup", [0, 0.01, 0.05, 0.1])
def test_best_by_bound_chooses_as_ranking_every_node_on_adult(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], k: int, sup: float
) -> None:
    df, hs = adult
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS[:7])
    r = pa.search(df, qis, hs, k, sup, algorithm="incognito", progress=False)
    assert r.complete
    for criterion in ("min_loss", "max_precision"):
        fast, full = both_ways(r, criterion)
        assert fast == full, criterion
    fast, full = both_ways(r, "min_loss", weights={"age": 3.0, "sex": 0.5})
    assert fast == full
    fast, full = both_ways(r, "min_loss", bounds={"age": 2, "education": (1, 3)})
    assert fast == full


def test_best_by_bound_values_few_nodes_on_cup() -> None:
    lf, hs = pa.datasets.cup()
    df = lf.collect()
    qis = list(pa.datasets.CUP_QUASI_IDENTIFIERS)
    r = pa.search(df, qis, hs, 2, 0.05, algorithm="incognito", progress=False)
    nodes = [list(n) for n in r._nodes]
    valued, _ = r._prep.problem.best_of(nodes, 2, [], "loss")
    assert 0 < len(valued) * 10 < len(nodes), (len(valued), len(nodes))
    fast, full = both_ways(r, "min_loss")
    assert fast == full


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tables(), k=st.integers(1, 6), share=st.floats(0, 0.2))
def test_best_by_bound_on_random_tables(
    data: tuple[pl.DataFrame, dict[str, pa.Hierarchy], list[str]], k: int, share: float
) -> None:
    df, hs, qis = data
    if k > df.height:
        return
    sup = int(share * df.height)
    r = pa.search(df, qis, hs, k, sup, algorithm="incognito", progress=False)
    if r.anonymous.is_empty():
        return
    r = pa.search(df, qis, hs, k, sup, algorithm="incognito", progress=False)
    for criterion in ("min_loss", "max_precision"):
        fast, full = both_ways(r, criterion)
        assert fast == full, criterion


@pytest.mark.parametrize(("table", "k"), [("cup", 2), ("cup", 10), ("adult", 5)])
def test_best_without_suppression_values_only_the_nodes_of_the_least_loss(
    table: str, k: int
) -> None:
    # with nothing suppressed a node's loss is its bound: the core values
    # the nodes of the least bound alone, read from its own outcome
    lf, hs = pa.datasets.cup() if table == "cup" else pa.datasets.adult()
    qis = list(
        pa.datasets.CUP_QUASI_IDENTIFIERS if table == "cup" else pa.datasets.ADULT_QUASI_IDENTIFIERS
    )
    r = pa.search(lf.collect(), qis, hs, k, 0, progress=False)
    core = r._lists.core()
    assert core is not None
    valued, figures = r._prep.problem.best_of(core, k, [], "loss", None, 0)
    losses = r.anonymous.get_column("loss").to_list()  # every node valued
    least = min(losses)
    assert sorted(valued) == [i for i, v in enumerate(losses) if abs(v - least) <= 1e-9 * least]
    assert figures.values() == pytest.approx([least] * len(valued), rel=1e-12)
    if len(valued) == 1:
        best = core.anonymous_at(valued)[0]
        assert r.best("min_loss") == dict(zip(qis, best, strict=True))
    fast, full = both_ways(r, "min_loss")
    assert fast == full


def test_an_optimal_result_answers_its_own_metric_alone() -> None:
    # best() ranked only the nodes the walk valued: with bounds it answered
    # a node of loss 0.4344 where the lattice holds 0.4329 within them, and
    # by default (min_height) a node that was neither optimum
    lf, hs = pa.datasets.adult()
    df = lf.collect()
    qis = ["age", "sex", "race", "marital-status", "education"]
    walk = pa.search(df, qis, hs, 5, 0.01, algorithm="optimal", progress=False)
    full = pa.search(df, qis, hs, 5, 0.01, algorithm="incognito", progress=False)
    assert walk.proven_optimal
    assert walk.best() == walk.best("min_loss") == full.best("min_loss")
    for kwargs in ({"bounds": {"sex": 0}}, {"weights": {"age": 2.0}}):
        with pytest.raises(pa.ConfigError, match="answers 'min_loss' alone"):
            walk.best("min_loss", **kwargs)  # type: ignore[arg-type]
    with pytest.raises(pa.ConfigError, match=r"metric='height'"):
        walk.best("min_height")
    # the release's default is the walk's own answer
    released = walk.apply().collect()
    assert released.equals(full.apply(levels=full.best("min_loss")).collect())
    by_height = pa.search(df, qis, hs, 5, 0.01, algorithm="optimal", metric="height")
    assert by_height.best() == full.best("min_height")


def test_weights_and_bounds_out_of_place_are_refused_saying_why(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    # weights given to a criterion no weight enters were dropped without a
    # word; a negative level was reported as a pair the user never wrote
    df, hs = adult
    r = pa.search(df, ["age", "sex", "race"], hs, 5, 0.02, progress=False)
    for criterion in ("max_distribution", "min_suppression", "max_precision", "min_aecs"):
        with pytest.raises(pa.ConfigError, match=f"'{criterion}' takes no weights"):
            r.best(criterion, weights={"age": 2.0})
        assert r.best(criterion, weights={}) == r.best(criterion)
    for criterion in ("min_loss", "min_height", "min_relative_distance", "min_entropy"):
        assert set(r.best(criterion, weights={"age": 2.0})) == {"age", "sex", "race"}
    with pytest.raises(pa.ConfigError, match=r"'age' must be a level >= 0 .*got -1$"):
        r.best("min_loss", bounds={"age": -1})
    with pytest.raises(pa.ConfigError, match="got low = 2, high = 1"):
        r.best("min_loss", bounds={"age": (2, 1)})


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(allow_nan=True, allow_infinity=True),
            st.floats(min_value=0, max_value=1),
            # halves at the 12th decimal, where half-to-even and the scaling
            # decide
            st.integers(0, 10**13).map(lambda i: (i + 0.5) / 1e12),
            st.integers(0, 10**13).map(lambda i: i / 1e13 + 5e-13),
        ),
        min_size=1,
        max_size=50,
    )
)
def test_losses_rounded_in_python_as_polars_rounds_them(values: list[float]) -> None:
    # `least_loss` ranks by `rounded`, `least` by Polars' round(12): one order
    from polars_anon.results.best import rounded

    want = pl.Series(values, dtype=pl.Float64).round(12).to_list()
    got = [rounded(v) for v in values]
    assert [str(v) for v in got] == [str(v) for v in want]
