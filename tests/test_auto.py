"""``algorithm="auto"`` under suppression, and without it where nearly
every record is distinct: the optimal walk answers ``best`` by the metric's
criterion, and the complete search, put off, runs when more is asked; every
answer equals the complete search's and a brute force of every node."""

from __future__ import annotations

import pickle
import random
import re

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import polars_anon as pa
from polars_anon.api.auto import WALK_DISTINCT
from polars_anon.results.best import OF_METRIC
from tests.conftest import brute_anonymous
from tests.test_search import tables


def nodes(result: pa.SearchResult) -> set[tuple[int, ...]]:
    return set(map(tuple, result.anonymous.select(result.quasi_identifiers).rows()))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tables(), k=st.integers(1, 10), share=st.floats(0, 0.2))
def test_auto_answers_as_the_complete_search_on_random_tables(
    data: tuple[pl.DataFrame, dict[str, pa.Hierarchy], list[str]], k: int, share: float
) -> None:
    df, hs, qis = data
    if k > df.height:
        return
    sup = int(share * df.height)
    complete = pa.search(df, qis, hs, k, sup, algorithm="incognito", progress=False)
    for metric, criterion in (("loss", "min_loss"), ("height", "min_height")):
        auto = pa.search(df, qis, hs, k, sup, metric=metric, progress=False)
        put_off = auto.algorithm == "optimal"
        # (a walk that finds no node hands over to the complete search at once)
        distinct = df.unique(qis).height >= WALK_DISTINCT * df.height
        assert put_off == ((sup > 0 or distinct) and not complete.anonymous.is_empty())
        try:
            want = complete.best(criterion)
        except pa.NotAnonymousError:
            with pytest.raises(pa.NotAnonymousError):
                auto.best()
            continue
        # the default is the metric's criterion, answered by the walk alone
        assert auto.best() == auto.best(criterion) == want
        assert auto.algorithm == ("optimal" if put_off else "incognito")
        # another criterion runs the complete search first
        assert auto.best("min_relative_distance") == complete.best("min_relative_distance")
        assert auto.algorithm == "incognito" and auto.complete
    assert nodes(auto) == nodes(complete) == set(brute_anonymous(df, qis, hs, k, sup))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=tables(),
    k=st.integers(1, 6),
    share=st.one_of(st.just(0.0), st.floats(0.01, 0.3)),
    model=st.sampled_from(["distinct_l", "p_sensitive", "average_risk", "p_alpha"]),
    seed=st.integers(0, 2**16),
)
# F0 counts the sensitive values read beside the quasi-identifiers: one
# value of c0 in two rows, yet every row distinct with its sensitive value
@example(
    data=(
        pl.DataFrame({"c0": ["v0", "v0"]}),
        {"c0": pa.Hierarchy.from_rows([["v0"]])},
        ["c0"],
    ),
    k=1,
    share=0.0,
    model="distinct_l",
    seed=0,
)
def test_auto_with_criteria_answers_as_the_complete_search_on_random_tables(
    data: tuple[pl.DataFrame, dict[str, pa.Hierarchy], list[str]],
    k: int,
    share: float,
    model: str,
    seed: int,
) -> None:
    """The criteria monotone under suppression (the walk infers from them
    as Incognito does): the walk first, the same answers; without
    suppression the walk first where nearly every record is distinct."""
    df, hs, qis = data
    if k > df.height:
        return
    values = ["a", "b", "c"]
    df = df.with_columns(
        s=pl.Series([values[((seed >> (i % 16)) + i) % 3] for i in range(df.height)])
    )
    criterion = {
        "distinct_l": pa.DistinctLDiversity(2, "s"),
        "p_sensitive": pa.PSensitive(2, "s"),
        "average_risk": pa.AverageRisk(0.6),
        "p_alpha": pa.PAlphaSensitive(2, 0.5, "s", [["a"], ["b", "c"]]),
    }[model]
    sup = max(1, int(share * df.height)) if share > 0 else 0
    # F0 holds the sensitive values the criterion reads beside the
    # quasi-identifiers (AverageRisk reads none)
    read = qis if model == "average_risk" else [*qis, "s"]
    walked = sup > 0 or df.unique(read).height >= WALK_DISTINCT * df.height
    kw = {"criteria": [criterion], "progress": False}
    try:
        complete = pa.search(df, qis, hs, k, sup, algorithm="incognito", **kw)  # type: ignore[arg-type]
    except pa.ConfigError as e:  # a model no group can meet (l above the values)
        with pytest.raises(pa.ConfigError, match=re.escape(str(e)[:30])):
            pa.search(df, qis, hs, k, sup, **kw)  # type: ignore[arg-type]
        return
    auto = pa.search(df, qis, hs, k, sup, **kw)  # type: ignore[arg-type]
    assert auto.algorithm == (
        "optimal" if walked and not complete.anonymous.is_empty() else "incognito"
    )
    try:
        want = complete.best("min_loss")
    except pa.NotAnonymousError:
        with pytest.raises(pa.NotAnonymousError):
            auto.best()
        return
    assert auto.best() == want
    released = auto.apply().collect()
    assert released.equals(complete.apply(levels=want).collect())
    assert nodes(auto) == nodes(complete)


def test_auto_under_suppression_walks_first_then_completes_when_asked(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS[:9])
    complete = pa.search(df, qis, hs, 2, 0.05, algorithm="incognito", progress=False)
    auto = pa.search(df, qis, hs, 2, 0.05, progress=False)
    assert auto.algorithm == "optimal" and auto.complete and auto.proven_optimal
    assert "under suppression the optimal walk" in (auto.reason or "")
    assert "the optimal walk found the optimum without them" in repr(
        auto
    ) and "optimum (1 of 1)" in repr(auto)
    assert max(len(line) for line in repr(auto).splitlines()) <= 100
    # the answer, and the release it makes by default, from the walk alone:
    # far fewer nodes checked than the complete search (a deterministic count)
    assert auto.best() == auto.best("min_loss") == complete.best("min_loss")
    assert auto.stats.nodes_checked < complete.stats.nodes_checked / 4
    released = auto.apply().collect()
    want = complete.apply(criterion="min_loss").collect()
    assert released.equals(want)
    assert auto.algorithm == "optimal"
    # an unknown criterion or a bad weight is refused before any search runs
    with pytest.raises(pa.ConfigError, match="unknown criterion"):
        auto.best("min_beauty")
    with pytest.raises(pa.ConfigError, match="takes no weights"):
        auto.best("min_suppression", weights={"age": 2})
    assert auto.algorithm == "optimal"
    # a pickle keeps it put off
    again = pickle.loads(pickle.dumps(auto))
    assert again.algorithm == "optimal" and again.best() == auto.best()
    # weights and bounds need every node: the complete search runs, once
    weights = {"age": 3.0, "education": 0.5}
    assert auto.best("min_loss", weights=weights) == complete.best("min_loss", weights=weights)
    assert auto.algorithm == "incognito" and auto.variant == "cube"
    assert auto.stats.nodes_checked == complete.stats.nodes_checked
    assert auto.anonymous.equals(complete.anonymous)
    assert auto.minimal.equals(complete.minimal)
    assert "8,720" in repr(auto) and "the optimal walk found the optimum without them" not in repr(
        auto
    )
    # its time is the complete search's, and the walk's before it is kept
    assert "(after the optimal walk's " in repr(auto)
    assert "optimal walk's" not in repr(complete)
    assert auto.best(bounds={"age": 2}) == complete.best("min_loss", bounds={"age": 2})
    # the unpickled one completes on its own
    assert nodes(again) == nodes(complete) and again.algorithm == "incognito"
    # with a criterion, the walk first too
    l2 = [pa.DistinctLDiversity(2, "occupation")]
    q7 = qis[:7]
    complete = pa.search(df, q7, hs, 5, 0.05, criteria=l2, algorithm="incognito", progress=False)
    auto = pa.search(df, q7, hs, 5, 0.05, criteria=l2, progress=False)
    assert auto.algorithm == "optimal" and auto.best() == complete.best("min_loss")
    assert auto.best("min_height") == complete.best("min_height")


@pytest.mark.parametrize("qis", [9, 7])
def test_auto_without_suppression_or_with_what_the_walk_is_not_checked_on(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], qis: int
) -> None:
    """Without suppression the complete search and best take less than the
    walk; with a time limit or a trace the complete search runs as before.
    In each, the default criterion is the metric's (min_loss)."""
    df, hs = adult
    q = list(pa.datasets.ADULT_QUASI_IDENTIFIERS[:qis])
    cases = [
        pa.search(df, q, hs, 5, progress=False),
        pa.search(df, q, hs, 5, 0.01, time_limit=60, progress=False),
        pa.search(df, q, hs, 5, 0.01, trace=True, progress=False),
    ]
    for result in cases:
        assert result.algorithm == "incognito" and result.complete
        assert result.best() == result.best("min_loss")
    named = pa.search(df, q, hs, 5, 0.01, algorithm="incognito", progress=False)
    assert named.best() == named.best("min_height")


def test_auto_without_suppression_walks_first_where_nearly_every_record_is_distinct() -> None:
    """The share of distinct records decides, just over and just under
    `WALK_DISTINCT`; the answers are the complete search's either way, and
    the walk's result completes when more is asked."""
    data, hs = pa.datasets.census(rows=2_000, quasi_identifiers=6)
    df = data.collect() if isinstance(data, pl.LazyFrame) else data
    qis = list(hs)[:6]
    assert df.unique(qis).height == df.height
    for share in (WALK_DISTINCT + 0.01, WALK_DISTINCT - 0.01):
        # repeat the first records so that `share` of the rows are distinct
        distinct = round(share * df.height)
        table = pl.concat([df.head(distinct), df.head(df.height - distinct)])
        assert table.unique(qis).height == distinct
        complete = pa.search(table, qis, hs, 3, algorithm="incognito", progress=False)
        auto = pa.search(table, qis, hs, 3, progress=False)
        walked = share > WALK_DISTINCT
        assert auto.algorithm == ("optimal" if walked else "incognito")
        assert ("% of the records distinct" in (auto.reason or "")) == walked
        assert auto.best() == complete.best("min_loss")
        assert auto.apply().collect().equals(complete.apply(criterion="min_loss").collect())
        assert auto.best("min_height") == complete.best("min_height")
        assert auto.algorithm == "incognito" and nodes(auto) == nodes(complete)
        assert "the optimal walk ran first" in (auto.reason or "") or not walked


def test_auto_on_duckdb_takes_the_share_of_the_table_it_reads() -> None:
    """On DuckDB F0 is grouped at the floors (each quasi-identifier's lowest
    level that can be anonymous): the share of distinct records is taken
    there, as the searches read it, and the reason says so. The answers are
    the complete search's either way."""
    duckdb = pytest.importorskip("duckdb")
    n, draw = 1000, random.Random(1)
    df = pl.DataFrame(
        {
            "age": [draw.randint(0, 99) for _ in range(n)],
            "zip": [f"{draw.randint(0, 9999):04d}" for _ in range(n)],
            "sex": [draw.choice("MF") for _ in range(n)],
        }
    )
    hs = {
        "age": pa.hierarchy.interval(df["age"], [5, 20, 40]),
        "zip": pa.hierarchy.masking(df["zip"]),
        "sex": pa.Hierarchy.from_rows([["M", "*"], ["F", "*"]]),
    }
    qis = ["age", "zip", "sex"]
    assert df.unique(qis).height >= WALK_DISTINCT * n
    relation = duckdb.connect().from_arrow(df.to_arrow())
    seen: set[bool] = set()
    for k in (2, 5):
        at_leaves = pa.search(df, qis, hs, k, progress=False)
        on_duckdb = pa.search(relation, qis, hs, k, progress=False)
        complete = pa.search(df, qis, hs, k, algorithm="incognito", progress=False)
        assert at_leaves.algorithm == "optimal"
        assert "99% of the records distinct on the quasi-identifiers," in (at_leaves.reason or "")
        share = on_duckdb._prep.problem.distinct / n
        assert on_duckdb._prep.floors is not None and any(on_duckdb._prep.floors[0])
        walked = share >= WALK_DISTINCT
        assert on_duckdb.algorithm == ("optimal" if walked else "incognito")
        said = "distinct on the quasi-identifiers at the levels the search starts from,"
        assert (said in (on_duckdb.reason or "")) == walked
        assert at_leaves.best() == on_duckdb.best() == complete.best("min_loss")
        seen.add(walked)
    assert seen == {True, False}  # k = 2 walks on DuckDB, k = 5 does not


def test_auto_runs_the_complete_search_at_once_where_the_walk_cannot_answer(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    """A walk stopped by the memory budget answered with the node it had
    reached, called complete: the complete search runs at once, and refuses
    as it did before auto walked first. A walk that finds no anonymous node
    hands over too: the complete search says why none is."""
    df, hs = adult
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    with pytest.raises(pa.SearchTooLargeError):
        pa.search(df, qis, hs, 5, 0.05, memory_budget=2**18, progress=False)
    tiny = pl.DataFrame({"a": list("xyzxyz"), "b": list("121212")})
    h = {"a": pa.Hierarchy.from_rows([["x", "*"], ["y", "*"], ["z", "*"]])}
    none = pa.search(tiny, ["a", "b"], h, 4, 1, progress=False)
    assert none.algorithm == "incognito" and none.complete and none.anonymous.is_empty()
    assert "without them" not in repr(none)
    assert (none.reason or "").endswith("under suppression the optimal walk ran first")
    with pytest.raises(pa.NotAnonymousError, match="the complete search found no 4-anonymous"):
        none.best()


def test_auto_checks_bounds_and_weights_before_the_complete_search(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS[:7])
    r = pa.search(df, qis, hs, 5, 0.05, progress=False)
    bad: list[dict[str, object]] = [
        {"bounds": {"age": 9}},
        {"bounds": {"age": (3, 1)}},
        {"bounds": {"age": "x"}},
        {"weights": {"age": -1}},
        {"weights": {"age": float("nan")}},
        {"weights": {"age": "heavy"}},
    ]
    for kw in bad:
        with pytest.raises(pa.ConfigError, match="age"):
            r.best("min_loss", **kw)  # type: ignore[arg-type]
        assert r.algorithm == "optimal", kw
    assert "found when first needed" in (r.reason or "")


def test_a_caller_that_names_its_criterion_gets_the_search_that_answers_it(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line and jobs know the criterion they rank by (their
    preference) before the search: the walk by that criterion's metric
    answers it where one does, the complete search runs at once where none
    does (not the walk first), and a walk that cannot answer it is refused
    before it runs, with the same answers as the complete search."""
    from polars_anon.api import auto as picks
    from polars_anon.api.search import aiming
    from polars_anon.results.call import SearchCall

    def _for(aim: str, *args: object, **kwargs: object) -> pa.SearchResult:
        with aiming(aim):
            return pa.search(*args, **kwargs)  # type: ignore[arg-type]

    df, hs = adult
    q = list(pa.datasets.ADULT_QUASI_IDENTIFIERS[:6])
    complete = pa.search(df, q, hs, 5, 0.05, algorithm="incognito", progress=False)
    cases = {"min_height": "optimal", "max_precision": "optimal", "min_loss": "optimal"}
    cases |= {"min_discernibility": "incognito", "min_suppression": "incognito"}
    for aim, algorithm in cases.items():
        r = _for(aim, df, q, hs, 5, 0.05, progress=False)
        assert r.best(aim) == complete.best(aim), aim
        assert r.algorithm == algorithm and r.complete, aim  # nothing else ran
    no_suppression = _for("min_height", df, q, hs, 5, progress=False)
    assert no_suppression.algorithm == "incognito"
    assert no_suppression.best("min_height") == pa.search(df, q, hs, 5, progress=False).best(
        "min_height"
    )
    # auto's walk above AUTO_COMPLETE nodes (here 100): by the aim's metric
    monkeypatch.setattr(picks, "AUTO_COMPLETE", 100)
    r = _for("min_height", df, q, hs, 5, 0.05, progress=False)
    assert r.algorithm == "optimal" and r.metric == "height"
    assert r.best("min_height") == complete.best("min_height")
    ran = SearchCall.run

    def refused(self: SearchCall, prep: object) -> object:
        raise AssertionError("the search ran before the refusal")

    monkeypatch.setattr(SearchCall, "run", refused)
    for algorithm in ("auto", "optimal", "heuristic"):
        with pytest.raises(pa.ConfigError, match="'min_suppression' ranks every anonymous node"):
            _for("min_suppression", df, q, hs, 5, 0.05, algorithm, progress=False)
    monkeypatch.setattr(SearchCall, "run", ran)
    r = _for("min_ambiguity", df, q, hs, 5, 0.05, algorithm="optimal", progress=False)
    assert r.metric == "ambiguity" and r.best("min_ambiguity") == complete.best("min_ambiguity")


@pytest.mark.parametrize("share", [0, 0.05])
def test_a_walk_auto_chose_for_a_large_lattice_answers_other_walks_criteria(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
    monkeypatch: pytest.MonkeyPatch,
    share: float,
) -> None:
    """Past AUTO_COMPLETE nodes auto answers with the walk by its metric;
    `best` by a criterion another walk answers runs that walk once, on the
    same table, and equals the complete search's answer; criteria no walk
    answers, weights and bounds are still refused, naming the complete
    search; a pickled result answers the same."""
    from polars_anon.api import auto as picks
    from polars_anon.results.call import SearchCall

    df, hs = adult
    q = list(pa.datasets.ADULT_QUASI_IDENTIFIERS[:6])
    complete = pa.search(df, q, hs, 5, share, algorithm="incognito", progress=False)
    monkeypatch.setattr(picks, "AUTO_COMPLETE", 100)
    r = pa.search(df, q, hs, 5, share, progress=False)
    assert r.algorithm == "optimal" and r.metric == "loss"
    runs: list[str] = []
    ran = SearchCall.run

    def counted(self: SearchCall, prep: object) -> object:
        runs.append(self.metric)
        return ran(self, prep)  # type: ignore[arg-type]

    monkeypatch.setattr(SearchCall, "run", counted)
    walked = ("min_height", "max_precision", "min_discernibility", "min_aecs", "min_entropy")
    for criterion in (*walked, "min_ambiguity", "min_loss"):
        assert r.best(criterion) == complete.best(criterion), criterion
    assert runs == ["height", "precision", "discernibility", "aecs", "entropy", "ambiguity"]
    assert r.best("min_height") == complete.best("min_height") and len(runs) == 6  # kept
    assert r.algorithm == "optimal" and r.metric == "loss"  # the result is its own still
    assert re.search(r"walks run for best\(\) +height: proven; precision: proven", repr(r))
    for refused in ({"criterion": "min_suppression"}, {"criterion": "min_relative_distance"}):
        with pytest.raises(pa.ConfigError, match="algorithm='incognito'"):
            r.best(**refused)  # type: ignore[arg-type]
    with pytest.raises(pa.ConfigError, match="algorithm='incognito'"):
        r.best("min_height", weights={"age": 2.0})
    again = pickle.loads(pickle.dumps(r))
    assert again.best("min_aecs") == complete.best("min_aecs")
    # past AUTO_OPTIMAL nodes (the heuristic walk) no complete search is offered
    monkeypatch.setattr(picks, "AUTO_OPTIMAL", 500)  # (720 nodes)
    wide = pa.search(df, q, hs, 5, share, progress=False, time_limit=5)
    assert wide.algorithm == "heuristic"
    with pytest.raises(pa.ConfigError, match="No complete search holds") as refused:
        wide.best("min_suppression")
    assert "incognito" not in str(refused.value)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tables(), k=st.integers(1, 10), share=st.floats(0, 0.2))
def test_the_walks_best_runs_for_other_criteria_equal_the_brute_force_on_random_tables(
    data: tuple[pl.DataFrame, dict[str, pa.Hierarchy], list[str]], k: int, share: float
) -> None:
    """auto's walk of a "large" lattice (the threshold lowered to none)
    answers every other walk's criterion by running that walk: each answer
    is the complete search's, whose anonymous nodes are the brute force's,
    suppression on and off."""
    from polars_anon.api import auto as picks

    df, hs, qis = data
    if k > df.height:
        return
    sup = int(share * df.height)
    complete = pa.search(df, qis, hs, k, sup, algorithm="incognito", progress=False)
    assert nodes(complete) == set(brute_anonymous(df, qis, hs, k, sup))
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(picks, "AUTO_COMPLETE", 0)
        walk = pa.search(df, qis, hs, k, sup, progress=False)
    assert walk.algorithm == "optimal"
    for criterion in OF_METRIC.values():
        try:
            want = complete.best(criterion)
        except pa.NotAnonymousError:
            with pytest.raises(pa.NotAnonymousError):
                walk.best(criterion)
            continue
        assert walk.best(criterion) == want, criterion
