"""Risk thresholds on the whole release (#30): the average
re-identification risk and the share of sample uniques, as ARX enforces
them (the smallest kept classes suppressed until the model holds). Every
search against a brute force of every node written here from plain
Polars group counts in exact arithmetic, hand-computed examples, and
releases recounted."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import polars_anon as pa
from tests.conftest import SEARCHES, brute_counts, nodes, random_qis

Risk = pa.AverageRisk | pa.SampleUniqueness
QIS = ["age", "sex", "race", "marital-status", "education"]


def holds(c: Risk, sizes: Sequence[int]) -> bool:
    """The model on the kept classes' sizes, exactly; a figure within a
    billionth of the bound meets it (as ARX's division in doubles does: 3
    classes of 9 records meet a bound of 1/3). An empty release passes."""
    n = sum(sizes)
    if n == 0:
        return True
    if isinstance(c, pa.AverageRisk):
        figure, bound = Fraction(len(sizes), n), Fraction(repr(c.max_risk))
    else:
        figure, bound = Fraction(sum(1 for s in sizes if s == 1), n), Fraction(repr(c.max_share))
    return figure <= bound or abs(figure - bound) <= Fraction(1, 10**9) * bound


def suppressed_of(sizes: Sequence[int], k: int, criteria: Sequence[Risk]) -> int:
    """The tuples suppressed at a node whose classes have these sizes: the
    classes smaller than k, then the fewest smallest kept classes after
    which every model holds (found by trying each count in turn)."""
    small = sum(s for s in sizes if s < k)
    kept = sorted(s for s in sizes if s >= k)
    for j in range(len(kept) + 1):
        if all(holds(c, kept[j:]) for c in criteria):
            return small + sum(kept[:j])
    raise AssertionError("suppressing every class always holds")


def brute(
    df: pl.DataFrame, qis: Sequence[str], hs: Mapping[str, pa.Hierarchy]
) -> dict[tuple[int, ...], list[int]]:
    """Each node's class sizes, from a plain group-by over the labels."""
    heights = [hs[q].height for q in qis]
    return {
        node: brute_counts(df, qis, hs, node).to_list()
        for node in itertools.product(*[range(h + 1) for h in heights])
    }


def test_arx_examples_by_hand() -> None:
    # classes of 1, 2, 3 and 4 records: average risk 4/10 = 0.4, one unique
    df = pl.DataFrame({"q": ["a", "b", "b", "c", "c", "c", "d", "d", "d", "d"]})
    hs = {"q": pa.Hierarchy.from_rows([[v, "*"] for v in "abcd"])}
    levels = {"q": 0}

    def gone(c: Risk) -> int:
        return pa.check(df, ["q"], 1, hs, levels, 10, criteria=[c]).suppressed

    assert gone(pa.AverageRisk(0.4)) == 0
    assert gone(pa.AverageRisk(0.3)) == 3  # the classes of 1 and 2: 2 classes of 7 records
    assert gone(pa.AverageRisk(0.25)) == 6
    assert gone(pa.SampleUniqueness(0.1)) == 0
    assert gone(pa.SampleUniqueness(0.05)) == 1
    # beyond the suppression limit the node fails
    assert not pa.check(df, ["q"], 1, hs, levels, 2, criteria=[pa.AverageRisk(0.3)]).k_anonymous
    # the release: the classes of c and d, recounted
    out = pa.generalize(
        df, hs, levels, k=1, max_suppression=3, criteria=[pa.AverageRisk(0.3)]
    ).collect()
    assert sorted(out.get_column("q").to_list()) == list("cccdddd")


ADULT_CRITERIA: list[Risk] = [
    pa.AverageRisk(0.05),
    pa.AverageRisk(0.2),
    pa.SampleUniqueness(0.002),
    pa.SampleUniqueness(0.0),
]


@pytest.fixture(scope="module")
def adult_sizes(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> dict[tuple[int, ...], list[int]]:
    df, hs = adult
    return brute(df, QIS, hs)


@pytest.mark.parametrize("c", ADULT_CRITERIA, ids=repr)
@pytest.mark.parametrize("max_sup", [0, 0.05])
def test_searches_on_adult_equal_the_brute_force(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
    adult_sizes: dict[tuple[int, ...], list[int]],
    c: Risk,
    max_sup: float,
) -> None:
    df, hs = adult
    sup = int(max_sup * df.height)
    found = []
    for k in (1, 5, 10):
        expect = {n for n, s in adult_sizes.items() if suppressed_of(s, k, [c]) <= sup}
        found.append(len(expect))
        searches = SEARCHES if k == 5 else [("incognito", "basic"), ("mingen", None)]
        for algorithm, variant in searches:
            r = pa.search(
                df,
                QIS,
                hs,
                k,
                max_sup,
                algorithm=algorithm,
                variant=variant,
                criteria=[c],
                progress=False,
            )
            assert r.complete
            assert nodes(r.anonymous, QIS) == expect, (k, algorithm, variant)
        if expect:
            # the optimal search's answer is the best of the brute force's
            full = pa.search(df, QIS, hs, k, max_sup, criteria=[c], progress=False)
            best = float(full.anonymous.get_column("loss").min())  # type: ignore[arg-type]
            opt = pa.search(
                df, QIS, hs, k, max_sup, algorithm="optimal", criteria=[c], progress=False
            )
            assert float(opt.anonymous.get_column("loss").min()) == pytest.approx(best)  # type: ignore[arg-type]
    assert max(found) > 0 and min(found) < len(adult_sizes), found


def test_check_counts_the_suppressed_tuples_of_the_brute_force(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
    adult_sizes: dict[tuple[int, ...], list[int]],
) -> None:
    df, hs = adult
    both = [pa.AverageRisk(0.1), pa.SampleUniqueness(0.001)]
    for node in [(0, 0, 0, 0, 0), (1, 0, 1, 1, 2), (2, 1, 0, 2, 1), (4, 1, 1, 2, 3)]:
        levels = dict(zip(QIS, node, strict=True))
        for k, criteria in [(1, both[:1]), (3, both[1:]), (2, both)]:
            r = pa.check(df, QIS, k, hs, levels, df.height, criteria=criteria)
            assert r.suppressed == suppressed_of(adult_sizes[node], k, criteria), (node, k)


def test_releases_meet_the_models_by_plain_polars(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    for c in ADULT_CRITERIA:
        r = pa.search(df, QIS, hs, 2, 0.05, criteria=[c], progress=False)
        levels = r.best("min_loss")
        out = r.apply(df, levels).collect()
        sizes = out.group_by(QIS).len().get_column("len")
        assert int(sizes.min()) >= 2  # type: ignore[arg-type]
        assert holds(c, sizes.to_list()), c
        assert df.height - out.height <= int(0.05 * df.height)


def test_parameters_and_where_they_are_refused(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    with pytest.raises(pa.ConfigError, match="max_risk"):
        pa.AverageRisk(1.5)
    # met only by a release of no record: refused when made, not at a search
    with pytest.raises(pa.ConfigError, match=r"max_risk = 0 .*in \(0, 1\].*no record"):
        pa.AverageRisk(0.0)
    with pytest.raises(pa.ConfigError, match="max_share"):
        pa.SampleUniqueness("x")  # type: ignore[arg-type]
    c = pa.AverageRisk(0.1)
    assert c.monotone and c.monotone_with_suppression and c == pa.AverageRisk(0.1)
    assert repr(c) == "AverageRisk(max_risk=0.1)"
    # and in words, as reports show them
    assert str(c) == "average re-identification risk at most 0.1"
    assert str(pa.SampleUniqueness(0.02)) == "share of sample uniques at most 0.02"
    assert (
        str(pa.PopulationUniqueness(0.01, 1_000_000, "pitman"))
        == "share of population uniques at most 0.01 in a population of 1,000,000 records "
        "(pitman model)"
    )
    assert (
        str(pa.KMap(5, 250_000, estimator="zero_truncated_poisson"))
        == "5-map in a population of 250,000 records (estimated: zero-truncated-poisson, "
        "significance 0.05)"
    )
    df, hs = adult
    with pytest.raises(pa.ConfigError, match="AverageRisk is a model of the whole release"):
        pa.mondrian(df.head(500), ["age", "sex"], 2, hs, criteria=[c])
    with pytest.raises(pa.ConfigError, match="AverageRisk is a model of the whole release"):
        pa.local_recoding(df.head(500), ["age", "sex"], hs, 2, criteria=[c])


def test_a_population_smaller_than_the_data_is_refused_as_risk_refuses_it() -> None:
    # 300 records cannot be a sample of 100: pa.risk refuses it, and so
    # must every model that takes the sampling fraction from it
    df = pl.DataFrame({"age": [20 + i % 60 for i in range(300)], "sex": ["M", "F"] * 150})
    qis = ["age", "sex"]
    with pytest.raises(pa.ConfigError, match="must hold the sample"):
        pa.risk(df, qis, population=100)
    for c in (pa.PopulationUniqueness(0.05, population=100, model="zayatz"), pa.KMap(3, 100)):
        name = type(c).__name__
        match = rf"{name}: the population \(100 records\) must hold the data \(300 records\)"
        with pytest.raises(pa.ConfigError, match=match):
            pa.check(df, qis, k=1, criteria=c, max_suppression=0.9)
        with pytest.raises(pa.ConfigError, match=match):
            pa.search(df, qis, None, 1, 0.9, criteria=[c], algorithm="mingen", progress=False)
    # as many as the data: a census, accepted, also as a NumPy integer
    assert pa.check(df, qis, k=1, criteria=pa.KMap(1, 300)).k_anonymous
    import numpy as np

    assert pa.KMap(1, np.uint64(300)) == pa.KMap(1, 300)
    assert pa.PopulationUniqueness(0.1, np.int64(500)).population == 500.0


# ---- random tables ----------------------------------------------------------


@st.composite
def tables(draw: st.DrawFn) -> tuple[pl.DataFrame, dict[str, pa.Hierarchy], list[str]]:
    columns, hs = random_qis(draw, draw(st.integers(1, 30)), leaves=6)
    return pl.DataFrame(columns), hs, list(columns)


criteria_st = st.lists(
    st.one_of(
        # simple fractions meet the bounds exactly on small tables
        st.builds(pa.AverageRisk, st.sampled_from([0.05, 0.1, 0.25, 1 / 3, 0.5, 1.0])),
        st.builds(pa.SampleUniqueness, st.sampled_from([0.0, 0.1, 0.2, 0.5])),
    ),
    min_size=1,
    max_size=2,
)

# classes of 1, 2, 3 and 4: average risk exactly 0.4 and 1/3 after the unique goes
BOUNDS = (
    pl.DataFrame({"q0": ["a", "b", "b", "c", "c", "c", "d", "d", "d", "d"]}),
    {"q0": pa.Hierarchy.from_rows([[v, "*"] for v in "abcd"])},
    ["q0"],
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tables(), k=st.integers(1, 4), sup=st.integers(0, 6), criteria=criteria_st)
@example(data=BOUNDS, k=1, sup=1, criteria=[pa.AverageRisk(1 / 3)])
@example(data=BOUNDS, k=1, sup=0, criteria=[pa.AverageRisk(0.4)])
@example(data=BOUNDS, k=2, sup=6, criteria=[pa.AverageRisk(0.25), pa.SampleUniqueness(0.0)])
def test_property_searches_equal_the_brute_force(
    data: tuple[pl.DataFrame, dict[str, pa.Hierarchy], list[str]],
    k: int,
    sup: int,
    criteria: list[Risk],
) -> None:
    df, hs, qis = data
    if k > df.height:
        return
    sizes = brute(df, qis, hs)
    gone = {node: suppressed_of(s, k, criteria) for node, s in sizes.items()}
    expect = {node for node, n in gone.items() if n <= sup}
    for algorithm, variant in SEARCHES:
        r = pa.search(
            df,
            qis,
            hs,
            k,
            sup,
            algorithm=algorithm,
            variant=variant,
            criteria=criteria,
            progress=False,
        )
        assert nodes(r.anonymous, qis) == expect, (algorithm, variant)
    for node, n in gone.items():
        levels = dict(zip(qis, node, strict=True))
        assert pa.check(df, qis, k, hs, levels, sup, criteria=criteria).suppressed == n, node


def test_from_the_command_line_and_a_job_file(tmp_path: Path) -> None:
    from polars_anon.cli import main
    from polars_anon.jobs.criteria import criterion

    data = pa.datasets.data_dir() / "adult" / "adult.csv"
    out = tmp_path / "out.parquet"
    qis = ["age", "sex", "race"]
    code = main(
        [
            "anonymize",
            str(data),
            "--sep",
            ";",
            "--hierarchies",
            str(Path(__file__).parent.parent / "hierarchies" / "adult"),
            "--qi",
            ",".join(qis),
            "--k",
            "1",
            "--average-risk",
            "0.01",
            "--sample-uniqueness",
            "0",
            "--max-suppression",
            "0.02",
            "--identifier",
            "marital-status,education,native-country,workclass,occupation,salary-class",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    release = pl.read_parquet(out)
    sizes = release.group_by(qis).len().get_column("len").to_list()
    assert holds(pa.AverageRisk(0.01), sizes) and min(sizes) >= 2
    job = pa.Job.from_toml(tmp_path / "out.parquet.job.toml")
    assert {criterion(c) for c in job.criteria} == {pa.AverageRisk(0.01), pa.SampleUniqueness(0)}
    again = job.run(write_job=False)
    assert isinstance(again, pa.JobRun) and again.rows_released == release.height
    bad = ["anonymize", str(data), "--sep", ";", "--qi", "age", "--average-risk", "x"]
    bad += ["--out", str(out)]
    assert main(bad) == 2


# ---- k-map and population uniqueness ---------------------------------------


def poisson_threshold(k: int, rows: int, population: float, alpha: float, truncated: bool) -> int:
    """k' of estimated k-map, from the definition (El Emam and Dankar 2008):
    the sample count a population class of k exceeds with probability at
    most alpha, plus one (D4) or two (D3), at most k and the rows."""
    lam = rows / population * k
    if alpha >= 1:
        return 1
    pmf = [math.exp(-lam)]
    for j in range(1, k + 3):
        pmf.append(pmf[-1] * lam / j)
    cap = min(k, rows)
    if truncated:
        norm = 1 - pmf[0]
        for m in range(1, k + 2):
            if sum(pmf[1 : m + 1]) / norm >= 1 - alpha:
                return min(m + 1, cap)
        return cap
    for m in range(0, k + 2):
        if sum(pmf[: m + 1]) >= 1 - alpha:
            return min(m + 2, cap)
    return cap


def test_kmap_thresholds_by_hand() -> None:
    # ARX 3.9.2's figures (k, alpha, sampling fraction) -> (D3, D4)
    for k, alpha, f, d3, d4 in [
        (5, 0.05, 0.1, 4, 3),
        (10, 0.05, 0.1, 5, 4),
        (10, 0.05, 0.01, 3, 2),
        (20, 0.05, 0.5, 17, 16),
        (5, 0.05, 0.5, 5, 5),
        (5, 0.1, 0.1, 3, 3),
    ]:
        assert poisson_threshold(k, 1000, 1000 / f, alpha, False) == d3
        assert poisson_threshold(k, 1000, 1000 / f, alpha, True) == d4
    # classes of 1, 2, 3 and 4 records of 10, population 100, k = 5: k' = 4 (D3)
    df = pl.DataFrame({"q": ["a", "b", "b", "c", "c", "c", "d", "d", "d", "d"]})
    hs = {"q": pa.Hierarchy.from_rows([[v, "*"] for v in "abcd"])}
    for estimator, gone in [("poisson", 6), ("zero_truncated_poisson", 3)]:
        c = pa.KMap(5, population=100, estimator=estimator)
        assert pa.check(df, ["q"], 1, hs, {"q": 0}, 10, criteria=[c]).suppressed == gone


def zayatz_share(sizes: Sequence[int], population: float) -> float | None:
    """Zayatz's estimate of the population's uniques, as a share, from the
    hypergeometric P(one of j population records drawn in n)."""
    n, c1 = sum(sizes), sum(1 for s in sizes if s == 1)
    hist: dict[int, int] = {}
    for s in sizes:
        hist[s] = hist.get(s, 0) + 1

    def ln_choose(a: float, b: float) -> float:
        return math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)

    def drawn(j: int) -> float:
        return math.exp(math.log(j) + ln_choose(population - j, n - 1) - ln_choose(population, n))

    denominator = sum(c * drawn(j) for j, c in hist.items())
    if denominator <= 0:
        return None
    uniques = c1 * (c1 * drawn(1) / denominator) * population / n
    share = uniques / population
    return share if 0 < share <= 1 else None


def pop_holds(c: pa.PopulationUniqueness, sizes: Sequence[int]) -> bool:
    if not sizes or 1 not in sizes:
        return True
    if sum(sizes) >= c.population:
        return sum(1 for s in sizes if s == 1) / c.population <= c.max_share
    share = zayatz_share(sizes, c.population)
    return share is not None and share <= c.max_share * (1 + 1e-9)


def bisected(sizes: Sequence[int], k: int, c: pa.PopulationUniqueness) -> int:
    """The suppressed tuples as ARX finds them for a model not monotone
    under suppression: the classes smaller than k, then a prefix of the kept
    ones by size found by bisection (the least where it holds, when holding
    is monotone; some prefix where it holds otherwise)."""
    small = sum(s for s in sizes if s < k)
    kept = sorted(s for s in sizes if s >= k)
    if pop_holds(c, kept):
        return small
    lo, hi = 0, len(kept)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if pop_holds(c, kept[mid:]):
            hi = mid
        else:
            lo = mid
    return small + sum(kept[:hi])


def test_population_uniqueness_by_hand() -> None:
    # classes of 1, 2, 3 and 4 in a population of 20: Zayatz estimates
    # 0.59926 uniques (ARX), a share of 0.02996
    assert zayatz_share([1, 2, 3, 4], 20) == pytest.approx(0.59926 / 20, rel=1e-4)
    df = pl.DataFrame({"q": ["a", "b", "b", "c", "c", "c", "d", "d", "d", "d"]})
    hs = {"q": pa.Hierarchy.from_rows([[v, "*"] for v in "abcd"])}
    for t, gone in [(0.05, 0), (0.01, 1)]:
        c = pa.PopulationUniqueness(t, population=20, model="zayatz")
        assert pa.check(df, ["q"], 1, hs, {"q": 0}, 10, criteria=[c]).suppressed == gone
    assert not pa.PopulationUniqueness(0.1, 100).monotone_with_suppression
    assert not pa.PopulationUniqueness(0.1, 100, model="zayatz").monotone
    assert not pa.PopulationUniqueness(0.1, 100, model="pitman").monotone
    with pytest.raises(pa.ConfigError, match="model must be one of"):
        pa.PopulationUniqueness(0.1, 100, model="laplace")
    # population uniqueness is estimated: a table of the population is refused
    with pytest.raises(pa.ConfigError, match="population's number of records, got DataFrame"):
        pa.PopulationUniqueness(0.1, population=df)  # type: ignore[arg-type]


@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("max_sup", [0, 0.05])
def test_kmap_and_zayatz_on_adult_equal_the_brute_force(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
    adult_sizes: dict[tuple[int, ...], list[int]],
    k: int,
    max_sup: float,
) -> None:
    df, hs = adult
    sup = int(max_sup * df.height)
    kmap = pa.KMap(8, population=10 * df.height)
    kp = poisson_threshold(8, df.height, 10 * df.height, 0.05, False)
    expect = {n for n, s in adult_sizes.items() if sum(x for x in s if x < max(k, kp)) <= sup}
    for algorithm, variant in [("incognito", "basic"), ("optimal", None), ("mingen", None)]:
        r = pa.search(
            df,
            QIS,
            hs,
            k,
            max_sup,
            algorithm=algorithm,
            variant=variant,
            criteria=[kmap],
            progress=False,
        )
        if algorithm == "optimal":
            assert nodes(r.anonymous, QIS) <= expect
        else:
            assert nodes(r.anonymous, QIS) == expect, (algorithm, k, max_sup)
    pop = pa.PopulationUniqueness(0.0005, population=20 * df.height, model="zayatz")
    expect = {n for n, s in adult_sizes.items() if bisected(s, k, pop) <= sup}
    for algorithm, variant in [("mingen", None), ("auto", None)]:
        r = pa.search(
            df,
            QIS,
            hs,
            k,
            max_sup,
            algorithm=algorithm,
            variant=variant,
            criteria=[pop],
            progress=False,
        )
        assert nodes(r.anonymous, QIS) == expect, (algorithm, k, max_sup)
        assert r.algorithm == "mingen", r.reason
    with pytest.raises(pa.ConfigError, match="PopulationUniqueness is not monotone"):
        pa.search(df, QIS, hs, k, max_sup, algorithm="incognito", criteria=[pop])


def test_zayatz_can_rise_as_classes_merge_so_only_mingen_takes_it() -> None:
    # classes of 1, 2 and 2 in a population of 100: a share of 0.0413; b and
    # c merged (level 1), classes of 1 and 4: 0.0442; all merged, no unique.
    # Incognito once took Zayatz's model as monotone and listed level 1.
    assert zayatz_share([1, 2, 2], 100) == pytest.approx(0.041336, rel=1e-4)
    assert zayatz_share([1, 4], 100) == pytest.approx(0.044151, rel=1e-4)
    df = pl.DataFrame({"q": ["a", "b", "b", "c", "c"]})
    hs = {"q": pa.Hierarchy.from_rows([["a", "a", "*"], ["b", "bc", "*"], ["c", "bc", "*"]])}
    pop = pa.PopulationUniqueness(0.043, population=100, model="zayatz")
    r = pa.search(df, ["q"], hs, 1, 0, criteria=[pop], progress=False)
    assert r.algorithm == "mingen" and "not monotone" in (r.reason or "")
    assert r.anonymous.get_column("q").to_list() == [0, 2]
    assert not pa.check(df, ["q"], 1, hs, {"q": 1}, criteria=[pop]).k_anonymous
    for algorithm in ("incognito", "optimal", "heuristic"):
        with pytest.raises(pa.ConfigError, match="PopulationUniqueness is not monotone"):
            pa.search(df, ["q"], hs, 1, 0, algorithm=algorithm, criteria=[pop], progress=False)
    # past a million nodes MinGen would check every one: auto runs Datafly,
    # which checks each node of its path (it once ran the heuristic, refused)
    cols = [f"c{i}" for i in range(8)]
    wide = pl.DataFrame(
        {c: [str((r * (i + 3)) % 7) for r in range(60)] for i, c in enumerate(cols)}
    )
    chain = pa.Hierarchy.from_rows(
        [[str(v), *[f"{v // 2**j}" for j in range(1, 6)], "*"] for v in range(7)]
    )
    r = pa.search(wide, cols, dict.fromkeys(cols, chain), 1, 0, criteria=[pop], progress=False)
    assert r.algorithm == "datafly" and "Datafly's path" in (r.reason or ""), r.reason
    best = r.best("min_loss")
    assert pa.check(wide, cols, 1, dict.fromkeys(cols, chain), best, criteria=[pop]).k_anonymous


def test_the_reports_say_which_model_bound_each_suppressed_group(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
    adult_sizes: dict[tuple[int, ...], list[int]],
) -> None:
    df, hs = adult
    node = (1, 0, 0, 1, 1)
    levels = dict(zip(QIS, node, strict=True))
    criteria = [pa.AverageRisk(0.01), pa.DistinctLDiversity(2, "salary-class")]
    r = pa.check(df, QIS, 3, hs, levels, df.height, criteria=criteria)
    groups = r.suppressed_groups
    assert int(groups.get_column("tuples").sum()) == r.suppressed > 0
    reasons = dict(groups.group_by("reason").agg(pl.col("tuples").sum()).iter_rows())
    assert set(reasons) == {"k", "DistinctLDiversity", "AverageRisk"}, reasons
    # the groups smaller than k are those the brute force counts
    small = sum(s for s in adult_sizes[node] if s < 3)
    assert reasons["k"] == small
    # the groups the risk threshold took are no larger than any released one
    by_risk = groups.filter(pl.col("reason") == "AverageRisk").get_column("tuples")
    assert int(by_risk.max()) <= int(r.released_sizes.min())  # type: ignore[arg-type]
    assert "suppressed by" in repr(r) and "AverageRisk:" in repr(r)
    # the release's own report says the same
    result = pa.search(df, QIS, hs, 3, 0.2, criteria=criteria, algorithm="mingen", progress=False)
    report = result.release_report(levels=levels)
    assert report.suppressed_groups.sort(QIS).equals(groups.sort(QIS))
    assert "AverageRisk:" in str(report)


def test_population_models_on_the_command_line(tmp_path: Path) -> None:
    from polars_anon.cli import main

    data = pa.datasets.data_dir() / "adult" / "adult.csv"
    base = ["anonymize", str(data), "--sep", ";", "--qi", "age,sex,race", "--k", "1"]
    base += ["--hierarchies", str(Path(__file__).parent.parent / "hierarchies" / "adult")]
    base += ["--max-suppression", "0.05", "--algorithm", "mingen"]
    out = tmp_path / "out.parquet"
    argv = [*base, "--kmap", "5:300000", "--population-uniqueness", "0.001:300000:zayatz"]
    assert main([*argv, "--out", str(out)]) == 0
    sizes = pl.read_parquet(out).group_by(["age", "sex", "race"]).len().get_column("len")
    kp = poisson_threshold(5, 30162, 300000, 0.05, False)
    assert int(sizes.min()) >= kp  # type: ignore[arg-type]
    for bad in ["5", "5:x:0.05", "5:300000:0.05:gamma", "::"]:
        assert main([*base, "--kmap", bad, "--out", str(tmp_path / "no.parquet")]) == 2
    assert not (tmp_path / "no.parquet").exists()
