"""beta-likeness (Cao and Karras 2012) and delta-disclosure privacy (Brickell
and Shmatikov 2008), as ARX checks them: hand-computed tables, every search
against a brute force written here from the definitions in exact arithmetic,
and releases re-checked with plain Polars and with pycanon."""

from __future__ import annotations

import itertools
import math
import pickle
from collections.abc import Mapping, Sequence
from fractions import Fraction

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pycanon import anonymity

import polars_anon as pa
from polars_anon.criteria import BetaLikeness, DeltaDisclosure
from tests.conftest import SEARCHES, nodes, random_qis

Likeness = BetaLikeness | DeltaDisclosure

# ---- the definitions, in exact arithmetic -----------------------------------


def fails(c: Likeness, count: int, size: int, total: int, rows: int) -> bool:
    """Does a value held by `count` of a group's `size` tuples, and by `total`
    of the table's `rows`, break `c`? q = count / size, p = total / rows.
    Decided in floating point away from the bound, exactly near it."""
    approx = count * rows / (size * total)  # q / p
    if isinstance(c, BetaLikeness):
        # (q - p) / p <= beta, or <= min(beta, -ln p) when enhanced
        ln_bound = -math.log(total / rows)
        bound = min(c.beta, ln_bound) if c.enhanced else c.beta
        if abs(approx - 1 - bound) > 1e-6 * (1 + bound):
            return approx - 1 > bound
        gain = Fraction(count * rows, size * total) - 1
        if c.enhanced and ln_bound < c.beta:
            return float(gain) > ln_bound  # an irrational bound: never met exactly
        return gain > Fraction(repr(c.beta))
    # |log2(q / p)| < delta, strictly
    if abs(abs(math.log2(approx)) - c.delta) > 1e-6:
        return abs(math.log2(approx)) >= c.delta
    ratio = Fraction(count * rows, size * total)
    if c.delta.is_integer():
        bound = Fraction(2) ** int(c.delta)
        return ratio >= bound or ratio <= 1 / bound
    return abs(math.log2(ratio)) >= c.delta  # 2^delta irrational: never met exactly


Group = tuple[int, list[tuple[int, int]]]  # size, (count, table total) of each value


def groups_at(
    df: pl.DataFrame,
    qis: Sequence[str],
    hs: Mapping[str, pa.Hierarchy],
    s: str,
    node: Sequence[int],
) -> list[dict[str, int]]:
    """The histograms of `s` in the groups of the table generalized to `node`,
    from a plain group-by over the hierarchies' labels."""
    exprs = []
    for q, lvl in zip(qis, node, strict=True):
        mapping = dict(zip(hs[q].leaves, hs[q].leaf_labels(lvl), strict=True))
        exprs.append(pl.col(q).cast(pl.String).replace_strict(mapping))
    counts = df.select([*exprs, pl.col(s).cast(pl.String)]).group_by([*qis, s]).len()
    groups: dict[tuple[str, ...], dict[str, int]] = {}
    for row in counts.iter_rows():
        groups.setdefault(row[: len(qis)], {})[row[len(qis)]] = row[-1]
    return list(groups.values())


def totals_of(df: pl.DataFrame, s: str) -> dict[str, int]:
    """Each value's tuples in the whole table (the distribution p)."""
    return {str(v): n for v, n in df.group_by(s).len().cast({s: pl.String}).iter_rows()}


def group_fails(c: Likeness, hist: Mapping[str, int], totals: Mapping[str, int], rows: int) -> bool:
    size = sum(hist.values())
    # only the values present in the group are checked
    return any(fails(c, n, size, totals[v], rows) for v, n in hist.items())


def brute_suppressed(
    df: pl.DataFrame,
    qis: Sequence[str],
    hs: Mapping[str, pa.Hierarchy],
    criteria: Sequence[Likeness],
    ks: Sequence[int],
) -> dict[tuple[Likeness, int], dict[tuple[int, ...], int]]:
    """Every node of the lattice checked: for each criterion and k, the tuples
    of each node in groups smaller than k or failing the criterion."""
    out: dict[tuple[Likeness, int], dict[tuple[int, ...], int]] = {
        (c, k): {} for c in criteria for k in ks
    }
    totals = {s: totals_of(df, s) for s in {c.attribute for c in criteria}}
    # each criterion's answer for a (count, size, total), computed once
    memo: list[dict[tuple[int, int, int], bool]] = [{} for _ in criteria]
    for node in itertools.product(*[range(hs[q].height + 1) for q in qis]):
        cache: dict[str, list[Group]] = {}
        for s, t in totals.items():
            cache[s] = [
                (sum(h.values()), [(n, t[v]) for v, n in h.items()])
                for h in groups_at(df, qis, hs, s, node)
            ]
        for c, seen in zip(criteria, memo, strict=True):
            groups = cache[c.attribute]
            bad = []
            for size, values in groups:
                failed = False
                for n, total in values:
                    key = (n, size, total)
                    if key not in seen:
                        seen[key] = fails(c, n, size, total, df.height)
                    if seen[key]:
                        failed = True
                        break
                bad.append(failed)
            for k in ks:
                gone = sum(n for (n, _), b in zip(groups, bad, strict=True) if n < k or b)
                out[(c, k)][node] = gone
    return out


def brute(
    df: pl.DataFrame,
    qis: Sequence[str],
    hs: Mapping[str, pa.Hierarchy],
    criteria: Sequence[Likeness],
    ks: Sequence[int],
    sups: Sequence[int],
) -> dict[tuple[Likeness, int, int], set[tuple[int, ...]]]:
    """For each criterion, k and suppression limit, the anonymous nodes: those
    whose suppressed tuples are at most the limit."""
    gone = brute_suppressed(df, qis, hs, criteria, ks)
    return {
        (c, k, sup): {node for node, n in gone[(c, k)].items() if n <= sup}
        for c in criteria
        for k in ks
        for sup in sups
    }


def exact_searches(c: Likeness, sup: int) -> list[tuple[str, str | None]]:
    """The complete searches that are exact for `c`: those that infer nodes
    only when it is monotone (with suppression, when it stays so)."""
    if c.monotone_with_suppression if sup else c.monotone:
        return SEARCHES
    return [("mingen", None)]


# ---- hand-computed tables ---------------------------------------------------

# Ten patients: Flu 5, HIV 2, Cancer 3, so p = (0.5, 0.2, 0.3); G separates
# three groups, merged "ab" one level up and "*" at the top:
#   a (4): HIV 2, Flu 1, Cancer 1   gains 1.5, -0.5, -1/6; |log2| 1.32, 1, 0.26
#   b (2): Flu 2                    gain 1;               |log2| 1
#   c (4): Flu 2, Cancer 2          gains 0, 2/3;         |log2| 0, 0.74
HAND = pl.DataFrame(
    {
        "G": list("aaaabbcccc"),
        "Disease": ["HIV", "HIV", "Flu", "Cancer", "Flu", "Flu", "Flu", "Flu", "Cancer", "Cancer"],
    }
)
HAND_H = {"G": pa.Hierarchy.from_rows([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]])}


def suppressed(c: Likeness, level: int = 0) -> int:
    return pa.check(HAND, ["G"], 1, HAND_H, {"G": level}, criteria=[c]).suppressed


def test_basic_and_enhanced_beta_likeness_by_hand() -> None:
    # a's HIV gain (0.5 - 0.2) / 0.2 = 1.5: the bound is not strict
    assert suppressed(BetaLikeness(1.5, "Disease")) == 0
    assert suppressed(BetaLikeness(1.49, "Disease")) == 4
    # b's Flu gain (1 - 0.5) / 0.5 = 1
    assert suppressed(BetaLikeness(0.99, "Disease")) == 6
    # enhanced: b's Flu gain 1 exceeds min(1.5, -ln 0.5 = 0.693); a's HIV gain
    # 1.5 is within min(1.5, -ln 0.2 = 1.609); c's Cancer 2/3 within -ln 0.3 = 1.204
    assert suppressed(BetaLikeness(1.5, "Disease", enhanced=True)) == 2
    assert suppressed(BetaLikeness(0.69, "Disease", enhanced=True)) == 6
    # one level up, ab (6) = HIV 2, Flu 3, Cancer 1: gains 2/3, 0, -4/9
    assert suppressed(BetaLikeness(2 / 3, "Disease"), 1) == 0
    assert suppressed(BetaLikeness(0.66, "Disease"), 1) == 10
    # the whole table is one group with gain 0
    assert suppressed(BetaLikeness(1e-9, "Disease"), 2) == 0
    r = pa.check(HAND, ["G"], 1, HAND_H, {"G": 0}, criteria=[BetaLikeness(1.0, "Disease")])
    assert not r.k_anonymous and "BetaLikeness" in str(r)


def test_delta_disclosure_by_hand() -> None:
    # a: log2(0.5 / 0.2) = log2 2.5 = 1.3219
    assert suppressed(DeltaDisclosure(1.33, "Disease")) == 0
    assert suppressed(DeltaDisclosure(1.32, "Disease")) == 4
    # b: log2(1 / 0.5) = 1 exactly: the bound is strict (and a's Flu is 1 too)
    assert suppressed(DeltaDisclosure(1, "Disease")) == 6
    assert suppressed(DeltaDisclosure(1.0001, "Disease")) == 4
    # c: log2(0.5 / 0.3) = 0.737; HIV, absent from c, is not checked
    assert suppressed(DeltaDisclosure(0.74, "Disease")) == 6
    # ab: HIV log2(1/3 / 0.2) = 0.737, Cancer |log2(1/6 / 0.3)| = 0.848
    assert suppressed(DeltaDisclosure(0.85, "Disease"), 1) == 0
    assert suppressed(DeltaDisclosure(0.8, "Disease"), 1) == 6


def test_likeness_catches_what_t_closeness_lets_pass() -> None:
    """Cao and Karras's point: a rare value may gain a lot within a small EMD.
    HIV is 5 of 100; in a group of 10 it is 2: EMD 0.15, gain 3, log2(0.2 / 0.05) = 2."""
    df = pl.DataFrame(
        {
            "G": ["x"] * 10 + ["y"] * 90,
            "Disease": ["HIV"] * 2 + ["Flu"] * 8 + ["HIV"] * 3 + ["Flu"] * 87,
        }
    )

    def passes(c: pa.Criterion) -> bool:
        return pa.check(df, ["G"], 1, criteria=[c]).k_anonymous

    assert passes(pa.TCloseness(0.15, "Disease"))
    assert not passes(BetaLikeness(2.9, "Disease")) and passes(BetaLikeness(3, "Disease"))
    # y: HIV 3/90 over 0.05 is 2/3, log2 1.5 = 0.585: x's 2 is the largest
    assert not passes(DeltaDisclosure(2, "Disease")) and passes(DeltaDisclosure(2.01, "Disease"))


def test_delta_disclosure_is_not_monotone_under_generalization() -> None:
    """One Cancer (p = 0.3) and nineteen Flu (p = 0.6) pass delta = 2 apart
    (log2(1 / 0.3) = 1.74 and log2(1 / 0.6) = 0.74) but not merged: Cancer
    log2(1/20 / 0.3) = log2(1/6) = -2.58."""
    df = pl.DataFrame(
        {
            "G": ["a"] + ["b"] * 19 + ["c"] * 20,
            "Disease": ["Cancer"] + ["Flu"] * 19 + ["Cancer"] * 11 + ["Flu"] * 5 + ["HIV"] * 4,
        }
    )
    hs = {"G": pa.Hierarchy.from_rows([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]])}
    # table: Cancer 12, Flu 24, HIV 4 of 40 -> p = 0.3, 0.6, 0.1; c: |log2| of
    # 0.55 / 0.3, 0.25 / 0.6, 0.2 / 0.1 = 0.87, 1.26, 1
    c = DeltaDisclosure(2, "Disease")
    assert pa.check(df, ["G"], 1, hs, {"G": 0}, criteria=[c]).k_anonymous
    assert not pa.check(df, ["G"], 1, hs, {"G": 1}, criteria=[c]).k_anonymous
    with pytest.raises(
        pa.ConfigError, match="DeltaDisclosure is not monotone under generalization"
    ):
        pa.search(df, ["G"], hs, 1, algorithm="incognito", criteria=[c])
    # auto checks every node, as mingen does
    assert pa.search(df, ["G"], hs, 1, criteria=[c]).algorithm == "mingen"
    r = pa.search(df, ["G"], hs, 1, algorithm="mingen", criteria=[c])
    assert nodes(r.anonymous, ["G"]) == {(0,), (2,)}
    # minimal: no anonymous node anywhere below, not only one step below
    assert nodes(r.minimal, ["G"]) == {(0,)}
    assert r.anonymous.filter(pl.col("minimal")).height == 1


# ---- the values themselves --------------------------------------------------


def test_parameters_are_checked_by_name() -> None:
    for bad in [0, -1, math.nan, math.inf]:
        with pytest.raises(pa.ConfigError, match=r"BetaLikeness: beta = .* finite number > 0"):
            BetaLikeness(bad, "s")
        with pytest.raises(pa.ConfigError, match=r"DeltaDisclosure: delta = .* finite number > 0"):
            DeltaDisclosure(bad, "s")
    with pytest.raises(pa.ConfigError, match="beta must be a number"):
        BetaLikeness("1", "s")  # type: ignore[arg-type]
    with pytest.raises(pa.ConfigError, match="delta must be a number"):
        DeltaDisclosure(True, "s")
    with pytest.raises(pa.ParameterError, match="enhanced must be True or False"):
        BetaLikeness(1, "s", enhanced="yes")  # type: ignore[arg-type]


def test_values_monotonicity_and_pickles() -> None:
    made = [BetaLikeness(1, "s"), BetaLikeness(1, "s", True), DeltaDisclosure(1.5, "s")]
    again = [BetaLikeness(1.0, "s"), BetaLikeness(1, "s", enhanced=True), DeltaDisclosure(1.5, "s")]
    assert made == again and len({*made, *again}) == 3
    assert made[0] != made[1] and made[0] != BetaLikeness(1, "t")
    assert repr(made[1]) == "BetaLikeness(attribute='s', beta=1.0, enhanced=True)"
    assert repr(made[2]) == "DeltaDisclosure(attribute='s', delta=1.5)"
    # and in words, as reports show them
    assert [str(c) for c in made] == [
        "basic beta-likeness 1 of s",
        "enhanced beta-likeness 1 of s",
        "delta-disclosure privacy 1.5 of s",
    ]
    assert [pickle.loads(pickle.dumps(c)) for c in made] == made
    with pytest.raises(AttributeError, match="frozen"):
        made[0].beta = 2  # type: ignore[misc]
    # as ARX declares them
    assert [(c.monotone, c.monotone_with_suppression) for c in made] == [
        (True, False),
        (True, False),
        (False, False),
    ]


# ---- every search against the brute force ----------------------------------

QIS = ["sex", "age", "race", "marital-status", "education"]
ADULT_CRITERIA: list[Likeness] = [
    BetaLikeness(10, "occupation"),
    BetaLikeness(10, "occupation", enhanced=True),
    BetaLikeness(2, "salary-class"),
    BetaLikeness(2, "salary-class", enhanced=True),
    DeltaDisclosure(5, "occupation"),
    DeltaDisclosure(4, "salary-class"),
]
KS = range(1, 11)


@pytest.fixture(scope="module")
def adult_brute(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> dict[tuple[Likeness, int, int], set[tuple[int, ...]]]:
    df, hs = adult
    return brute(df, QIS, hs, ADULT_CRITERIA, KS, [0, int(0.05 * df.height)])


@pytest.mark.parametrize("c", ADULT_CRITERIA, ids=repr)
@pytest.mark.parametrize("max_sup", [0, 0.05])
def test_searches_on_adult_equal_the_brute_force(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
    adult_brute: dict[tuple[Likeness, int, int], set[tuple[int, ...]]],
    c: Likeness,
    max_sup: float,
) -> None:
    df, hs = adult
    sup = int(max_sup * df.height)
    lattice = math.prod(hs[q].height + 1 for q in QIS)
    sizes = []
    for k in KS:
        expect = adult_brute[(c, k, sup)]
        sizes.append(len(expect))
        # every exact search at k = 1, 5, 10; incognito (when exact) and mingen at every k
        searches = exact_searches(c, sup)
        if k not in (1, 5, 10):
            searches = [s for s in searches if s in (("incognito", "basic"), ("mingen", None))]
        for algorithm, variant in searches:
            r = pa.search(
                df, QIS, hs, k, max_sup, algorithm=algorithm, variant=variant, criteria=[c]
            )
            assert r.complete
            assert nodes(r.anonymous, QIS) == expect, (k, algorithm, variant)
    # the case admits some nodes and rejects others
    assert 0 < min(sizes) and max(sizes) < lattice, sizes
    if ("incognito", "basic") not in exact_searches(c, sup):
        with pytest.raises(pa.ConfigError, match="is not monotone"):
            pa.search(df, QIS, hs, 5, max_sup, algorithm="incognito", criteria=[c])


def test_check_agrees_with_the_brute_force_on_adult(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
    adult_brute: dict[tuple[Likeness, int, int], set[tuple[int, ...]]],
) -> None:
    df, hs = adult
    sup = int(0.05 * df.height)
    for c, node in itertools.product(
        ADULT_CRITERIA, [(0, 1, 0, 1, 1), (1, 2, 1, 1, 2), (0, 3, 1, 2, 3)]
    ):
        for k, s in [(1, 0), (5, sup), (10, 0)]:
            levels = dict(zip(QIS, node, strict=True))
            r = pa.check(df, QIS, k, hs, levels, s, criteria=[c])
            assert r.k_anonymous == (node in adult_brute[(c, k, s)]), (c, node, k, s)


def test_releases_meet_the_criteria_by_plain_polars_and_pycanon(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
    adult_brute: dict[tuple[Likeness, int, int], set[tuple[int, ...]]],
) -> None:
    df, hs = adult
    sup = int(0.05 * df.height)
    totals = {s: totals_of(df, s) for s in ("occupation", "salary-class")}
    for c in ADULT_CRITERIA:
        s = c.attribute
        # the anonymous node with the fewest generalization steps, then most tuples kept
        node = min(adult_brute[(c, 5, sup)], key=sum)
        levels = dict(zip(QIS, node, strict=True))
        released = pa.generalize(
            df, hs, levels, k=5, max_suppression=0.05, quasi_identifiers=QIS, criteria=[c]
        ).collect()
        assert df.height - sup <= released.height <= df.height
        # every released group: at least 5 tuples, and the criterion against
        # the input table's distribution
        groups = released.group_by([*QIS, s]).len()
        hist: dict[tuple[str, ...], dict[str, int]] = {}
        for row in groups.cast({s: pl.String}).iter_rows():
            hist.setdefault(row[: len(QIS)], {})[row[len(QIS)]] = row[-1]
        for h in hist.values():
            assert sum(h.values()) >= 5
            assert not group_fails(c, h, totals[s], df.height), (c, h)
        # pycanon reads the release alone (its own distribution), and delta in ln
        pdf = released.select([*QIS, s]).to_pandas()
        if isinstance(c, BetaLikeness) and not c.enhanced:
            b = anonymity.basic_beta_likeness(pdf, QIS, [s])
            assert pa.check(released, QIS, 1, criteria=[BetaLikeness(b + 1e-9, s)]).k_anonymous
            assert not pa.check(released, QIS, 1, criteria=[BetaLikeness(b - 1e-6, s)]).k_anonymous
        if isinstance(c, DeltaDisclosure):
            d = anonymity.delta_disclosure(pdf, QIS, [s]) / math.log(2)
            assert pa.check(released, QIS, 1, criteria=[DeltaDisclosure(d + 1e-6, s)]).k_anonymous
            assert not pa.check(released, QIS, 1, criteria=[DeltaDisclosure(d, s)]).k_anonymous


# ---- random tables ----------------------------------------------------------


@st.composite
def tables(draw: st.DrawFn) -> tuple[pl.DataFrame, dict[str, pa.Hierarchy], list[str]]:
    rows = draw(st.integers(1, 24))
    columns, hs = random_qis(draw, rows)
    # few sensitive values, some common, so that shares meet the bounds exactly
    values = [f"s{i}" for i in range(draw(st.integers(1, 3)))]
    weights = [draw(st.integers(1, 3)) for _ in values]
    pool = [v for v, w in zip(values, weights, strict=True) for _ in range(w)]
    columns["s"] = [draw(st.sampled_from(pool)) for _ in range(rows)]
    return pl.DataFrame(columns), hs, [c for c in columns if c != "s"]


criteria_st = st.one_of(
    # whole numbers and halves often meet the bounds exactly on small tables
    st.builds(BetaLikeness, st.sampled_from([0.2, 0.5, 1, 2, 3]), st.just("s"), st.booleans()),
    st.builds(DeltaDisclosure, st.sampled_from([0.5, 1, 2]), st.just("s")),
)


# a table whose group b holds y at twice its share: gain 1 and log2 2 = 1,
# exactly on the bounds (beta's passes, delta's fails)
ON_THE_BOUNDS = (
    pl.DataFrame({"q0": ["a", "a", "b", "b"], "s": ["x", "x", "x", "y"]}),
    {"q0": pa.Hierarchy.from_rows([["a", "*"], ["b", "*"]])},
    ["q0"],
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tables(), k=st.integers(1, 4), sup=st.integers(0, 4), c=criteria_st)
@example(data=ON_THE_BOUNDS, k=1, sup=0, c=BetaLikeness(1, "s"))
@example(data=ON_THE_BOUNDS, k=1, sup=0, c=DeltaDisclosure(1, "s"))
def test_property_searches_equal_the_brute_force(
    data: tuple[pl.DataFrame, dict[str, pa.Hierarchy], list[str]], k: int, sup: int, c: Likeness
) -> None:
    df, hs, qis = data
    if k > df.height:
        return
    gone = brute_suppressed(df, qis, hs, [c], [k])[(c, k)]
    expect = {node for node, n in gone.items() if n <= sup}
    for algorithm, variant in exact_searches(c, sup):
        r = pa.search(df, qis, hs, k, sup, algorithm=algorithm, variant=variant, criteria=[c])
        assert nodes(r.anonymous, qis) == expect, (algorithm, variant)
    # and the checker, node by node, tuple for tuple
    for node, n in gone.items():
        levels = dict(zip(qis, node, strict=True))
        assert pa.check(df, qis, k, hs, levels, sup, criteria=[c]).suppressed == n, node
