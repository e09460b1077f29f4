"""SafePub (#31): k and beta as ARX computes them, the scores ARX gives
every node, the exponential mechanism's frequencies, the Bernoulli sample,
the search against a brute force of the lattice, and releases recounted
with plain Polars."""

from __future__ import annotations

import csv
import math
import pickle
import re
from pathlib import Path

import polars as pl
import pytest
from scipy import stats

import polars_anon as pa
from polars_anon.dp.mechanism import choose, probabilities
from polars_anon.dp.parameters import dp_parameters
from polars_anon.dp.randomness import Draws, key_of, sample_expr
from polars_anon.dp.scores import METRICS, Scorer
from polars_anon.dp.search import walk
from polars_anon.prepare.f0 import prepare
from tests.conftest import to_duckdb

DATA = Path(__file__).parent / "data" / "dp"
QIS5 = ["sex", "age", "race", "marital-status", "education"]
ADULT_QIS = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)


def adult3000() -> tuple[pl.DataFrame, dict[str, pa.Hierarchy]]:
    df = pl.read_csv(DATA / "adult3000.csv", separator=";", infer_schema=False)
    return df, {q: pa.Hierarchy.from_csv(DATA / "h" / f"{q}.csv") for q in QIS5}


@pytest.fixture(scope="module")
def adult() -> tuple[pl.DataFrame, dict[str, pa.Hierarchy]]:
    lf, hs = pa.datasets.adult()
    return lf.collect(), hs


@pytest.mark.parametrize(
    "row", list(csv.DictReader(open(DATA / "arx_parameters.csv"))), ids=lambda r: str(r)
)
def test_k_and_beta_equal_arx(row: dict[str, str]) -> None:
    k, beta = dp_parameters(float(row["epsilon"]), float(row["delta"]))
    assert k == int(row["k"])
    assert beta == float(row["beta"])  # to the last bit, as ARX rounds it


@pytest.mark.parametrize(
    ("epsilon", "delta"),
    [(0, 1e-5), (-1, 1e-5), (math.nan, 1e-5), (math.inf, 1e-5), (5.5, 1e-5), (1, 0), (1, 1)],
)
def test_parameters_refused_by_name(epsilon: float, delta: float) -> None:
    with pytest.raises(pa.ParameterError, match=r"epsilon|delta"):
        dp_parameters(epsilon, delta)


@pytest.mark.parametrize("k", [5, 62])
def test_scores_equal_arx_on_every_node(k: int) -> None:
    df, hs = adult3000()
    prep = prepare(df, QIS5, hs)
    oracle = pl.read_csv(DATA / f"arx_scores_k{k}.csv")
    columns = {
        "loss": "granularity",
        "precision": "intensity",
        "entropy": "entropy",
        "discernibility": "discernibility",
        "aecs": "aecs",
    }
    assert set(columns) == set(METRICS)
    for metric, column in columns.items():
        scorer = Scorer(prep, k, metric, unsampled=0)
        for row in oracle.iter_rows(named=True):
            levels = [row[q] for q in QIS5]
            assert scorer.score(levels) == pytest.approx(row[column], rel=1e-12, abs=1e-12), (
                metric,
                levels,
            )
        kept = prep.problem.evaluate([0] * 5, k).suppressed
        assert kept == oracle.row(0, named=True)["suppressed"]


def test_mechanism_frequencies_match_its_probabilities() -> None:
    """10,000 seeded draws among the scores of a small lattice's nodes: a
    chi-square test of the counts against the exact probabilities."""
    df, hs = adult3000()
    prep = prepare(df, ["sex", "race", "marital-status"], hs)
    scorer = Scorer(prep, 5, "loss")
    nodes = [(a, b, c) for a in range(2) for b in range(2) for c in range(3)]
    scores = [scorer.score(list(n)) for n in nodes]
    # the best node e^3 times likelier than the worst: every node drawn
    epsilon = 6.0 / (max(scores) - min(scores))
    p = probabilities(scores, epsilon, 1.0)
    assert math.fsum(p) == pytest.approx(1.0)
    draws = Draws(key_of(11))
    counts = [0] * len(nodes)
    for _ in range(10_000):
        counts[choose(scores, epsilon, 1.0, draws)] += 1
    expected = [q * 10_000 for q in p]
    assert min(expected) > 5  # the test's approximation holds
    assert stats.chisquare(counts, expected).pvalue > 1e-3
    # a better score is likelier, by exp(epsilon * difference / 2)
    best, worst = (
        max(range(len(nodes)), key=scores.__getitem__),
        min(range(len(nodes)), key=scores.__getitem__),
    )
    assert p[best] / p[worst] == pytest.approx(
        math.exp(epsilon * (scores[best] - scores[worst]) / 2)
    )


def test_mechanism_is_stable_for_any_scores() -> None:
    assert probabilities([-1e9, 0.0], 1.0, 1.0) == [0.0, 1.0]
    assert probabilities([5.0, 5.0, 5.0], 1.0, 1.0) == pytest.approx([1 / 3] * 3)
    with pytest.raises(ValueError):
        probabilities([], 1.0, 1.0)


def test_sample_is_bernoulli_and_the_same_on_every_scan() -> None:
    n, beta = 200_000, 0.3
    lf = pl.LazyFrame({"x": range(n)}).with_row_index("i")
    one = lf.filter(sample_expr(key_of(1), beta, "i"))
    kept = one.collect().get_column("x")
    # a binomial count: within 5 standard deviations of n * beta
    assert abs(kept.len() - n * beta) < 5 * math.sqrt(n * beta * (1 - beta))
    # the same rows however the plan is run or cut
    assert one.collect(engine="streaming").get_column("x").equals(kept)
    halves = pl.concat(
        [
            pl.LazyFrame({"x": range(h, h + n // 2)})
            .with_row_index("i", offset=h)
            .filter(sample_expr(key_of(1), beta, "i"))
            .collect()
            for h in (0, n // 2)
        ]
    )
    assert halves.get_column("x").equals(kept)
    # another key: an independent sample (overlap n * beta^2)
    other = set(lf.filter(sample_expr(key_of(2), beta, "i")).collect().get_column("x"))
    both = len(other & set(kept))
    assert abs(both - n * beta**2) < 5 * math.sqrt(n * beta**2 * (1 - beta**2))
    # neighbours are not alike: P(row i+1 kept | row i kept) is beta
    flags = [0] * n
    for x in kept:
        flags[x] = 1
    pairs = sum(flags[i] & flags[i + 1] for i in range(n - 1))
    assert abs(pairs / kept.len() - beta) < 0.01


def lattice(heights: list[int]) -> list[tuple[int, ...]]:
    nodes: list[tuple[int, ...]] = [()]
    for h in heights:
        nodes = [(*n, lv) for n in nodes for lv in range(h + 1)]
    return nodes


@pytest.mark.parametrize("metric", METRICS)
def test_a_walk_through_the_whole_lattice_answers_its_best_node(metric: str) -> None:
    """With more steps than nodes the search chooses every node, so its
    answer is the best of the lattice by a brute force of every node."""
    df, hs = adult3000()
    qis = ["sex", "race", "marital-status", "education"]
    prep = prepare(df, qis, hs)
    scorer = Scorer(prep, 20, metric, unsampled=0)
    every = lattice(prep.problem.heights)
    brute = {n: scorer.score(list(n)) for n in every}
    path = walk(
        prep.problem.heights,
        lambda nodes: [scorer.score(list(n)) for n in nodes],
        10 * len(every),
        0.1,
        Draws(key_of(3)),
    )
    assert sorted(path.chosen) == sorted(every)
    assert path.scores == pytest.approx(brute)
    top = max(brute.values())
    assert path.answer == min((n for n in every if brute[n] == top), key=sum)


def test_with_a_large_budget_each_step_takes_the_best_candidate() -> None:
    """The exponential mechanism with a budget that dwarfs the score gaps is
    an argmax: the walk equals a greedy walk over brute-forced scores."""
    df, hs = adult3000()
    prep = prepare(df, QIS5, hs)
    scorer = Scorer(prep, 5, "loss", unsampled=0)
    brute = {n: scorer.score(list(n)) for n in lattice(prep.problem.heights)}
    steps = 12
    path = walk(
        prep.problem.heights,
        lambda nodes: [brute[n] for n in nodes],
        steps,
        1e9 * steps,
        Draws(key_of(4)),
    )
    frontier: dict[tuple[int, ...], None] = {}
    node = tuple(prep.problem.heights)
    seen = {node}
    assert path.chosen[0] == node and len(path.chosen) == steps + 1
    for chosen in path.chosen[1:]:
        # a node once a candidate is never one again once chosen
        for a in range(len(node)):
            below = (*node[:a], node[a] - 1, *node[a + 1 :])
            if node[a] > 0 and below not in seen:
                frontier[below] = None
                seen.add(below)
        frontier.pop(node, None)
        # a best candidate (one of them, when several tie)
        assert chosen in frontier and brute[chosen] == max(brute[n] for n in frontier)
        node = chosen


def recount(release: pl.DataFrame, qis: list[str], k: int) -> None:
    sizes = release.group_by(qis).len().get_column("len")
    assert release.height == 0 or int(sizes.min()) >= k  # type: ignore[arg-type]


def test_release_recomputed_with_plain_polars(adult: tuple[pl.DataFrame, dict]) -> None:
    df, hs = adult
    r = pa.differential_privacy(df, ADULT_QIS, hs, epsilon=1.0, delta=1e-5, seed=5)
    assert (r.k, r.beta) == dp_parameters(math.nextafter(0.9, 0.0), 1e-5)
    assert r.epsilon_search == pytest.approx(0.1) and r.epsilon_anonymization < 0.9
    out = r.apply().collect()
    assert out.columns == ADULT_QIS and r.left_out == []
    recount(out, ADULT_QIS, r.k)
    # the sample drawn again by hand, generalized through the hierarchies'
    # rows and its classes of fewer than k records dropped, by plain Polars
    sample = df.with_row_index("i").filter(sample_expr(key_of(5), r.beta, "i")).drop("i")
    assert sample.height == r.sampled
    gen = sample
    for q in ADULT_QIS:
        rows = hs[q].rows
        level = r.levels[q]
        table = pl.DataFrame(
            {q: [row[0] for row in rows], "__to": [row[level] for row in rows]},
            schema={q: pl.String, "__to": pl.String},
        )
        gen = (
            gen.with_columns(pl.col(q).cast(pl.String))
            .join(table, on=q, how="left")
            .drop(q)
            .rename({"__to": q})
        )
    gen = gen.select(ADULT_QIS)
    kept = gen.join(
        gen.group_by(ADULT_QIS).len().filter(pl.col("len") >= r.k).drop("len"),
        on=ADULT_QIS,
        how="semi",
    )
    assert kept.height == r.released == out.height
    text = out.select(pl.col(q).cast(pl.String) for q in ADULT_QIS)
    assert kept.sort(ADULT_QIS).equals(text.sort(ADULT_QIS))
    # about beta of the table sampled
    n = df.height
    assert abs(r.sampled - n * r.beta) < 5 * math.sqrt(n * r.beta * (1 - r.beta))


def test_the_same_seed_the_same_release(adult: tuple[pl.DataFrame, dict]) -> None:
    df, hs = adult
    qis = ADULT_QIS[:5]
    one = pa.differential_privacy(df, qis, hs, 1.0, 1e-5, seed=9, steps=50)
    two = pa.differential_privacy(df.lazy(), qis, hs, 1.0, 1e-5, seed=9, steps=50)
    assert one.levels == two.levels and one.path.equals(two.path)
    assert one.apply().collect().equals(two.apply().collect())
    other = pa.differential_privacy(df, qis, hs, 1.0, 1e-5, seed=10, steps=50)
    assert other.sampled != one.sampled or not other.path.equals(one.path)
    # unseeded: a key from the operating system, still a valid release
    free = pa.differential_privacy(df, qis, hs, 1.0, 1e-5, steps=20)
    recount(free.apply().collect(), qis, free.k)


def test_a_pickled_result_releases_the_same_sample(adult: tuple[pl.DataFrame, dict]) -> None:
    """A pickle keeps the sample's seeded plan: loaded, it draws the same
    records and releases the same rows; on DuckDB it is refused by name."""
    df, hs = adult
    qis = ADULT_QIS[:4]
    r = pa.differential_privacy(df, qis, hs, 1.0, 1e-5, seed=9, steps=30)
    again = pickle.loads(pickle.dumps(r))
    assert (again.levels, again.sampled, again.suppressed) == (r.levels, r.sampled, r.suppressed)
    assert again.path.equals(r.path)
    assert again.apply().collect().equals(r.apply().collect())
    recount(again.apply().collect(), qis, again.k)
    rel = to_duckdb(df)
    on_duck = pa.differential_privacy(rel, qis, hs, 1.0, 1e-5, seed=9, steps=30)
    with pytest.raises(pa.ConfigError, match="a DPResult on duckdb does not pickle"):
        pickle.dumps(on_duck)


def test_a_fixed_scheme_spends_all_of_epsilon_on_the_release(
    adult: tuple[pl.DataFrame, dict],
) -> None:
    df, hs = adult
    qis = ["age", "sex", "race"]
    r = pa.differential_privacy(
        df.lazy(), qis, hs, 1.0, 1e-5, seed=1, generalization={"age": 2, "sex": 0, "race": 1}
    )
    assert r.mode == "data-independent" and r.epsilon_search == 0.0
    assert (r.k, r.beta) == dp_parameters(1.0, 1e-5)
    assert r.levels == {"age": 2, "sex": 0, "race": 1} and r.path.height == 0
    out = r.apply().collect()
    assert set(out.columns) == set(qis)
    assert set(r.left_out) == set(df.columns) - set(qis)
    recount(out, qis, r.k)
    assert out.height == r.released
    assert "data-independent" in repr(r)
    # its levels read as text, as the other reports' do
    assert re.search(r"\n  levels +age=2  sex=0  race=1\n", repr(r))
    assert "age=2  sex=0  race=1" in r._repr_html_() and "{" not in repr(r)


@pytest.mark.parametrize("metric", ["entropy", "discernibility"])
def test_scores_weighing_the_unsampled_count_the_table(
    adult: tuple[pl.DataFrame, dict], metric: str
) -> None:
    df, hs = adult
    r = pa.differential_privacy(
        df.lazy(), ADULT_QIS[:4], hs, 1.0, 1e-5, seed=2, metric=metric, steps=20
    )
    assert r.rows == df.height and r.metric == metric
    recount(r.apply().collect(), ADULT_QIS[:4], r.k)


def test_written_release_is_proven(adult: tuple[pl.DataFrame, dict], tmp_path: Path) -> None:
    df, hs = adult
    r = pa.differential_privacy(df, ADULT_QIS[:4], hs, 1.0, 1e-5, seed=3, steps=20)
    path = r.sink_parquet(tmp_path / "dp.parquet")
    written = pl.read_parquet(path)
    assert written.sort(written.columns).equals(r.apply().collect().sort(written.columns))


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"epsilon": 0}, "epsilon"),
        ({"epsilon": "1"}, "epsilon"),
        ({"delta": 2}, "delta"),
        ({"metric": "height"}, "metric"),
        ({"final": "worst"}, "final"),
        ({"steps": -1}, "steps"),
        ({"search_share": 1.0}, "search_share"),
        ({"seed": 1.5}, "seed"),
        ({"generalization": {"nope": 1}}, "nope"),
        ({"generalization": [1, 2]}, "generalization"),
        ({"quasi_identifiers": ["nope"]}, "nope"),
    ],
)
def test_bad_parameters_refused_by_name(
    adult: tuple[pl.DataFrame, dict], kwargs: dict, named: str
) -> None:
    df, hs = adult
    call = {
        "data": df,
        "quasi_identifiers": ["age", "sex"],
        "hierarchies": hs,
        "epsilon": 1.0,
        "delta": 1e-5,
        **kwargs,
    }
    with pytest.raises(pa.AnonError, match=named):
        pa.differential_privacy(**call)


def test_the_search_refuses_a_column_without_a_hierarchy_and_names_its_budget(
    adult: tuple[pl.DataFrame, dict],
) -> None:
    df, hs = adult
    # an identity hierarchy would be built from the data's own values: the
    # loss score's leaf count then moves with one record (a helper measured
    # a score gap moving by 28.7 where the mechanism assumes at most 2)
    with pytest.raises(pa.ConfigError, match=r"^the quasi-identifier sex has no hierarchy"):
        pa.differential_privacy(df, ["age", "sex"], {"age": hs["age"]}, 1.0, 1e-5, seed=1)
    # with the levels fixed there is no search: the identity is a fixed map
    fixed = pa.differential_privacy(
        df, ["age", "sex"], {"age": hs["age"]}, 1.0, 1e-5, seed=1, generalization={"age": 1}
    )
    assert fixed.levels == {"age": 1, "sex": 0}
    # the budget refused is the one the user gave, with what it leaves
    with pytest.raises(pa.ParameterError, match=r"epsilon = 10 leaves 9 for the anonymization"):
        pa.differential_privacy(df, ["age", "sex"], hs, 10, 1e-5, seed=1)


def test_numpy_numbers_are_numbers(adult: tuple[pl.DataFrame, dict]) -> None:
    import numpy as np

    df, hs = adult
    qis = ["age", "sex"]
    plain = pa.differential_privacy(df, qis, hs, 1.0, 1e-5, seed=3)
    numpy = pa.differential_privacy(
        df, qis, hs, np.float32(1.0), np.float64(1e-5), seed=np.int64(3)
    )
    assert numpy.levels == plain.levels and numpy.k == plain.k
    assert numpy.apply().collect().equals(plain.apply().collect())
