"""Models against a population table (#30): k-map, exact, and
delta-presence (Nergiz, Atzori and Clifton, SIGMOD 2007), the data a
research subset of the population. Every search against a brute force of
every node written here from plain Polars group counts of both tables,
hand-computed examples, and releases recounted in the population."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import polars_anon as pa
from tests.conftest import SEARCHES, nodes, random_qis

Model = pa.KMap | pa.DPresence
# a model before its population: ("kmap", k) or ("dpresence", d_min, d_max)
Spec = tuple[str, int] | tuple[str, float, float]


def build(specs: Sequence[Spec], population: pl.DataFrame) -> list[Model]:
    return [
        pa.KMap(s[1], population=population)
        if s[0] == "kmap"
        else pa.DPresence(s[1], s[2], population=population)  # type: ignore[misc]
        for s in specs
    ]


def classes(
    frame: pl.DataFrame, qis: Sequence[str], hs: Mapping[str, pa.Hierarchy], node: Sequence[int]
) -> dict[tuple[str, ...], int]:
    """The table's classes at `node` (labels -> records); a value a
    hierarchy lacks (a column without one: identity) is its own label."""
    exprs = []
    for q, lvl in zip(qis, node, strict=True):
        h = hs.get(q)
        col = pl.col(q).cast(pl.String)
        if h is not None:
            col = col.replace_strict(dict(zip(h.leaves, h.leaf_labels(lvl), strict=True)))
        exprs.append(col.alias(q))
    counts = frame.select(exprs).group_by(list(qis)).len()
    return {tuple(r[:-1]): r[-1] for r in counts.iter_rows()}


def suppressed_of(
    data: dict[tuple[str, ...], int],
    pop: dict[tuple[str, ...], int],
    k: int,
    models: Sequence[Model],
) -> int:
    """The records suppressed at a node: classes smaller than k or failing a
    model on (f, F); every record when, under delta-presence with d_min > 0,
    a class of the population holds none of the data's."""
    n = sum(data.values())
    for m in models:
        if isinstance(m, pa.DPresence) and m.d_min > 0 and set(pop) - set(data):
            return n
    gone = 0
    for key, f in data.items():
        big_f = pop[key]
        ok = f >= k
        for m in models:
            if isinstance(m, pa.KMap):
                ok = ok and big_f >= m.k
            else:
                ok = ok and m.d_min <= f / big_f <= m.d_max
        gone += 0 if ok else f
    return gone


def brute(
    df: pl.DataFrame,
    population: pl.DataFrame,
    qis: Sequence[str],
    hs: Mapping[str, pa.Hierarchy],
    k: int,
    models: Sequence[Model],
) -> dict[tuple[int, ...], int]:
    """Each node's suppressed records."""
    heights = [hs[q].height if q in hs else 0 for q in qis]
    out = {}
    for node in itertools.product(*[range(h + 1) for h in heights]):
        data, pop = classes(df, qis, hs, node), classes(population, qis, hs, node)
        out[node] = suppressed_of(data, pop, k, models)
    return out


# The population: 8 people by age and ZIP; the study holds 4 of them.
PEOPLE = pl.DataFrame(
    {
        "age": ["30", "31", "32", "33", "30", "31", "32", "33"],
        "zip": ["10", "10", "10", "10", "20", "20", "20", "20"],
    }
)
AGES = pa.Hierarchy.from_rows(
    [[a, "30-31" if a < "32" else "32-33", "*"] for a in "30 31 32 33".split()]
)
ZIPS = pa.Hierarchy.from_rows([["10", "*"], ["20", "*"]])
HS = {"age": AGES, "zip": ZIPS}
STUDY = PEOPLE[[0, 1, 2, 4]]  # (30,10) (31,10) (32,10) (30,20)


def test_by_hand() -> None:
    qis = ["age", "zip"]

    def gone(levels: tuple[int, int], k: int, *models: Model) -> int:
        lv = dict(zip(qis, levels, strict=True))
        return pa.check(STUDY, qis, k, HS, lv, 4, criteria=list(models)).suppressed

    # ages 30-31 / 32-33 and ZIP kept: classes (30-31, 10): f 2 of F 2,
    # (32-33, 10): 1 of 2, (30-31, 20): 1 of 2, and (32-33, 20): 0 of 2
    assert gone((1, 0), 1, pa.KMap(2, population=PEOPLE)) == 0
    assert gone((1, 0), 1, pa.KMap(3, population=PEOPLE)) == 4
    assert gone((1, 0), 1, pa.DPresence(0.0, 0.5, population=PEOPLE)) == 2
    # the class of the population without the study's records: delta 0
    assert gone((1, 0), 1, pa.DPresence(0.1, 1.0, population=PEOPLE)) == 4
    # ZIP to *: (30-31): 3 of 4 = 0.75, (32-33): 1 of 4 = 0.25
    assert gone((1, 1), 1, pa.DPresence(0.25, 0.75, population=PEOPLE)) == 0
    assert gone((1, 1), 1, pa.DPresence(0.3, 0.75, population=PEOPLE)) == 1
    assert gone((1, 1), 2, pa.DPresence(0.0, 0.5, population=PEOPLE)) == 4
    # everything to *: 4 of 8
    assert gone((2, 1), 1, pa.DPresence(0.5, 0.5, population=PEOPLE), pa.KMap(8, PEOPLE)) == 0
    assert gone((2, 1), 1, pa.KMap(9, population=PEOPLE)) == 4


def test_searches_find_the_brute_force_nodes_and_releases_hold() -> None:
    qis = ["age", "zip"]
    for models, sup in [
        ([pa.DPresence(0.2, 0.6, population=PEOPLE)], 0),
        ([pa.KMap(2, population=PEOPLE)], 1),
        ([pa.KMap(3, population=PEOPLE), pa.DPresence(0.0, 0.8, population=PEOPLE)], 0),
    ]:
        expect = {n for n, g in brute(STUDY, PEOPLE, qis, HS, 1, models).items() if g <= sup}
        assert expect
        r = pa.search(STUDY, qis, HS, 1, sup, criteria=models, progress=False)
        assert nodes(r.anonymous, qis) == expect, models
        levels = r.best("min_loss")
        out = r.apply(STUDY, levels).collect()
        pop = classes(PEOPLE, qis, HS, [levels[q] for q in qis])
        for key, f in classes(out, qis, {}, [0, 0]).items():
            for m in models:
                if isinstance(m, pa.KMap):
                    assert pop[key] >= m.k
                else:
                    assert m.d_min <= f / pop[key] <= m.d_max


@pytest.fixture(scope="module")
def adult_study(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, pa.Hierarchy]]:
    """Adult as the population, one record in five of it as the study."""
    df, hs = adult
    return df.gather_every(5), df, hs


ADULT_QIS = ["age", "sex", "race", "marital-status", "education"]


@pytest.mark.parametrize(
    ("k", "specs", "max_sup"),
    [
        (1, [("kmap", 10)], 0),
        (5, [("kmap", 10)], 0.05),
        (1, [("dpresence", 0.05, 0.3)], 0),
        (2, [("dpresence", 0.0, 0.25)], 0.05),
    ],
    ids=["kmap", "kmap-k5-sup", "dpresence", "dpresence-k2-sup"],
)
def test_adult_equals_the_brute_force(
    adult_study: tuple[pl.DataFrame, pl.DataFrame, dict[str, pa.Hierarchy]],
    k: int,
    specs: list[Spec],
    max_sup: float,
) -> None:
    study, people, hs = adult_study
    models = build(specs, people)
    sup = int(max_sup * study.height)
    gone = brute(study, people, ADULT_QIS, hs, k, models)
    expect = {n for n, g in gone.items() if g <= sup}
    assert 0 < len(expect) < len(gone)
    monotone = all(m.monotone_with_suppression if sup else m.monotone for m in models)
    searches = SEARCHES if monotone else [("mingen", None)]
    for algorithm, variant in searches:
        r = pa.search(
            study,
            ADULT_QIS,
            hs,
            k,
            max_sup,
            algorithm=algorithm,
            variant=variant,
            criteria=models,
            progress=False,
        )
        assert nodes(r.anonymous, ADULT_QIS) == expect, (algorithm, variant)
    if monotone:
        # the optimal search's answer is the least loss of the brute force's nodes
        best = float(r.anonymous.get_column("loss").min())  # type: ignore[arg-type]
        opt = pa.search(
            study, ADULT_QIS, hs, k, max_sup, algorithm="optimal", criteria=models, progress=False
        )
        assert float(opt.anonymous.get_column("loss").min()) == pytest.approx(best)  # type: ignore[arg-type]
    for node in list(gone)[::37]:
        levels = dict(zip(ADULT_QIS, node, strict=True))
        r = pa.check(study, ADULT_QIS, k, hs, levels, study.height, criteria=models)
        assert r.suppressed == gone[node], node


def test_parameters_and_refusals(
    adult_study: tuple[pl.DataFrame, pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    study, people, hs = adult_study
    with pytest.raises(pa.ConfigError, match="d_max"):
        pa.DPresence(0.5, 0.4, population=people)
    with pytest.raises(pa.ConfigError, match="population is a table"):
        pa.DPresence(0.0, 0.5, population=100)  # type: ignore[arg-type]
    with pytest.raises(pa.ConfigError, match="number of records or a table"):
        pa.KMap(2, population="people.csv")
    d = pa.DPresence(0.0, 0.5, population=people)
    assert d.monotone and not d.monotone_with_suppression
    assert pa.KMap(2, population=people).monotone_with_suppression
    assert d == pa.DPresence(0.0, 0.5, population=people)
    assert d != pa.DPresence(0.0, 0.5, population=people.clone())
    assert (
        repr(d)
        == f"DPresence(d_min=0.0, d_max=0.5, population=<DataFrame of {people.height} rows>)"
    )
    # and in words, as reports show them
    table = f"a population table of {people.height:,} records"
    assert str(d) == f"delta-presence 0 to 0.5 against {table}"
    assert str(pa.KMap(2, population=people)) == f"2-map against {table}"
    assert str(pa.KMap(2, population=people.lazy())) == "2-map against a population table"
    qis = ["age", "sex"]
    # the study must be a subset of the population
    with pytest.raises(pa.ConfigError, match="not a subset of the population"):
        pa.search(people, qis, hs, 1, criteria=[pa.KMap(2, population=study)], progress=False)
    with pytest.raises(pa.ConfigError, match="no column"):
        pa.search(study, qis, hs, 1, criteria=[pa.KMap(2, people.drop("sex"))], progress=False)
    odd = people.with_columns(
        pl.when(pl.int_range(pl.len()) == 3).then(200).otherwise(pl.col("age")).alias("age")
    )
    with pytest.raises(pa.MissingValueError, match=r"'age'.*missing from its hierarchy.*200"):
        pa.search(study, qis, hs, 1, criteria=[pa.KMap(2, odd)], progress=False)
    with pytest.raises(pa.ConfigError, match="not supported here"):
        pa.mondrian(study.head(500), qis, 2, hs, criteria=[d])
    with pytest.raises(pa.ConfigError, match="DPresence is not monotone when failing"):
        pa.search(study, qis, hs, 1, 0.05, criteria=[d], algorithm="incognito", progress=False)


def test_values_the_study_lacks_in_a_column_without_hierarchy() -> None:
    # ZIP has no hierarchy: the population's "30" is no value of the study's,
    # so its class never holds a study record, at any node
    people = pl.DataFrame({"age": ["30", "31", "30", "31"], "zip": ["10", "10", "20", "30"]})
    study = people.head(3)
    hs = {"age": pa.Hierarchy.from_rows([["30", "*"], ["31", "*"]])}
    qis = ["age", "zip"]
    for d_min, expect in [(0.0, {(0, 0), (1, 0)}), (0.1, set())]:
        models = [pa.DPresence(d_min, 1.0, population=people)]
        gone = brute(study, people, qis, hs, 1, models)
        assert {n for n, g in gone.items() if g == 0} == expect
        r = pa.search(study, qis, hs, 1, criteria=models, progress=False)
        assert nodes(r.anonymous, qis) == expect
    # ages to *: (*, 10) matches 2 people, (*, 20) one, suppressed
    kmap = [pa.KMap(2, population=people)]
    r = pa.search(study, qis, hs, 1, 1, criteria=kmap, progress=False)
    assert (
        nodes(r.anonymous, qis)
        == {(1, 0)}
        == {n for n, g in brute(study, people, qis, hs, 1, kmap).items() if g <= 1}
    )


# ---- random tables ----------------------------------------------------------


@st.composite
def studies(
    draw: st.DrawFn,
) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, pa.Hierarchy], list[str]]:
    """A random population, and a random subset of its rows as the study."""
    columns, hs = random_qis(draw, draw(st.integers(1, 30)), leaves=5)
    people = pl.DataFrame(columns)
    keep = draw(st.lists(st.booleans(), min_size=people.height, max_size=people.height))
    if not any(keep):
        keep[0] = True
    return people.filter(pl.Series(keep)), people, hs, list(columns)


specs_st = st.lists(
    st.one_of(
        st.tuples(st.just("kmap"), st.integers(1, 5)),
        st.builds(
            lambda lo, width: ("dpresence", lo, min(1.0, lo + width)),
            st.sampled_from([0.0, 0.1, 0.25, 0.5]),
            st.sampled_from([0.25, 0.5, 1.0]),
        ),
    ),
    min_size=1,
    max_size=2,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=studies(), k=st.integers(1, 3), sup=st.integers(0, 4), specs=specs_st)
@example(data=(STUDY, PEOPLE, HS, ["age", "zip"]), k=1, sup=0, specs=[("dpresence", 0.25, 0.75)])
def test_property_searches_equal_the_brute_force(
    data: tuple[pl.DataFrame, pl.DataFrame, dict[str, pa.Hierarchy], list[str]],
    k: int,
    sup: int,
    specs: list[Spec],
) -> None:
    study, people, hs, qis = data
    if k > study.height:
        return
    models = build(specs, people)
    gone = brute(study, people, qis, hs, k, models)
    expect = {node for node, n in gone.items() if n <= sup}
    monotone = all(m.monotone_with_suppression if sup else m.monotone for m in models)
    for algorithm, variant in SEARCHES if monotone else [("mingen", None)]:
        r = pa.search(
            study,
            qis,
            hs,
            k,
            sup,
            algorithm=algorithm,
            variant=variant,
            criteria=models,
            progress=False,
        )
        assert nodes(r.anonymous, qis) == expect, (algorithm, variant)
    for node, n in gone.items():
        levels = dict(zip(qis, node, strict=True))
        assert pa.check(study, qis, k, hs, levels, sup, criteria=models).suppressed == n, node


def test_a_population_holding_negative_zero_counts_it_as_zero() -> None:
    """-0.0 is 0.0 in the table (every engine folds it); a population table
    holding -0.0 was refused as a value missing from the hierarchy, even
    when it was the table itself twice."""
    data = pl.DataFrame({"x": [0.0, -0.0, 1.5, 1.5] * 5})
    population = pl.concat([data, data])
    hs = {"x": pa.Hierarchy.from_rows([["0.0", "low", "*"], ["1.5", "high", "*"]])}
    for criterion in (
        pa.KMap(2, population=population),
        pa.DPresence(0.0, 0.6, population=population),
    ):
        r = pa.search(data, ["x"], hs, 2, criteria=[criterion], progress=False)
        assert r.best("min_loss") == {"x": 0}
    # 10 of 20 table rows are 0.0 and 20 of 40 population rows: a class of
    # 20 in the population, so k-map 21 fails at the leaves
    r = pa.search(data, ["x"], hs, 2, criteria=[pa.KMap(21, population=population)], progress=False)
    assert r.best("min_loss") == {"x": 2}
