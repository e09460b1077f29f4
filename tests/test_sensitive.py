"""Sensitive-attribute models: Sun et al.'s tables, every search against a brute
force written here in plain Python, and pycanon on released tables."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import polars as pl
import pytest
from pycanon import anonymity

import polars_anon as pa
from polars_anon.prepare.f0 import ROWS_IN_CORE
from tests.conftest import SEARCHES, nodes

TABLE_4 = [
    ["HIV", "Cancer"],
    ["Phthisis", "Hepatitis"],
    ["Obesity", "Asthma"],
    ["Flu", "Indigestion"],
]
QI = ["Age", "Country", "Zip"]


def sun(rows: str) -> pl.DataFrame:
    data = [line.split() for line in rows.strip().splitlines()]
    return pl.DataFrame(data, schema=[*QI, "Disease"], orient="row")


TABLE_5 = sun("""
<30 America 142** HIV
<30 America 142** HIV
<30 America 142** Cancer
<30 America 142** Cancer
>40 Asia 130** Hepatitis
>40 Asia 130** Phthisis
>40 Asia 130** Asthma
>40 Asia 130** Obesity
3* America 142** Flu
3* America 142** Flu
3* America 142** Flu
3* America 142** Indigestion
""")
TABLE_6 = sun("""
<40 America 1424* HIV
<40 America 1424* Cancer
<40 America 1424* Flu
<40 America 1424* Indigestion
>40 Asia 130** Hepatitis
>40 Asia 130** Phthisis
>40 Asia 130** Asthma
>40 Asia 130** Obesity
<40 America 1420* HIV
<40 America 1420* Cancer
<40 America 1420* Flu
<40 America 1420* Flu
""")
TABLE_7 = sun("""
<40 America 142** HIV
<40 America 142** HIV
<40 America 142** Cancer
<40 America 142** Flu
>40 Asia 130** Hepatitis
>40 Asia 130** Phthisis
>40 Asia 130** Asthma
>40 Asia 130** Obesity
<40 America 14*** Cancer
<40 America 14*** Flu
<40 America 14*** Flu
<40 America 14*** Indigestion
""")


def ok(table: pl.DataFrame, k: int, criterion: pa.Criterion) -> bool:
    return pa.check(table, QI, k, criteria=[criterion]).k_anonymous


def test_sun_tables_hold_and_their_reverse_cases_fail() -> None:
    assert ok(TABLE_5, 4, pa.PSensitive(2, "Disease"))
    assert not ok(TABLE_5, 4, pa.PSensitive(3, "Disease"))
    assert not ok(TABLE_5, 4, pa.PPlusSensitive(2, "Disease", TABLE_4))
    assert ok(TABLE_6, 4, pa.PPlusSensitive(2, "Disease", TABLE_4))
    assert not ok(TABLE_6, 4, pa.PPlusSensitive(3, "Disease", TABLE_4))
    assert ok(TABLE_7, 4, pa.PAlphaSensitive(3, 1, "Disease", TABLE_4))
    assert not ok(TABLE_7, 4, pa.PAlphaSensitive(3, 1.01, "Disease", TABLE_4))
    assert not ok(TABLE_5, 4, pa.PAlphaSensitive(3, 1, "Disease", TABLE_4))
    r = pa.check(TABLE_5, QI, 4, criteria=[pa.PPlusSensitive(2, "Disease", TABLE_4)])
    assert r.suppressed == 8 and "PPlusSensitive" in str(r)


def test_categories_must_cover_the_values() -> None:
    with pytest.raises(pa.ConfigError, match=r"'Disease' in no category: 'Flu', 'Indigestion'$"):
        pa.check(TABLE_5, QI, 4, criteria=[pa.PPlusSensitive(2, "Disease", TABLE_4[:3])])
    with pytest.raises(pa.ConfigError, match="both quasi-identifier and sensitive"):
        pa.check(TABLE_5, QI, 4, criteria=[pa.PSensitive(2, "Zip")])
    # a category given as one text is that one value, not its letters
    values = [v for category in TABLE_4 for v in category]
    for table in (TABLE_5, TABLE_6, TABLE_7):
        for p in (2, 3):
            texts = pa.check(table, QI, 4, criteria=[pa.PPlusSensitive(p, "Disease", values)])
            lists = pa.check(
                table, QI, 4, criteria=[pa.PPlusSensitive(p, "Disease", [[v] for v in values])]
            )
            plain = pa.check(table, QI, 4, criteria=[pa.PSensitive(p, "Disease")])
            assert texts.suppressed == lists.suppressed == plain.suppressed


# ---- brute force ------------------------------------------------------------


def emd(hist: dict[str, int], glob: dict[str, float], how: str, h: pa.Hierarchy | None) -> float:
    n = sum(hist.values())
    diff = {v: hist.get(v, 0) / n - q for v, q in glob.items()}
    if how == "equal":
        return 0.5 * sum(abs(d) for d in diff.values())
    if how == "ordered":
        order = sorted(diff, key=float)
        acc, total = 0.0, 0.0
        for v in order[:-1]:
            acc += diff[v]
            total += abs(acc)
        return total / (len(order) - 1)
    assert h is not None
    cost = 0.0
    extra = {v: diff.get(v, 0.0) for v in h.leaves}
    for level in range(1, h.height + 1):
        up = dict(zip(h.leaf_labels(level - 1), h.leaf_labels(level), strict=True))
        pos: dict[str, float] = {}
        neg: dict[str, float] = {}
        nxt: dict[str, float] = {}
        for child, e in extra.items():
            p = up[child]
            pos[p] = pos.get(p, 0.0) + max(e, 0.0)
            neg[p] = neg.get(p, 0.0) + max(-e, 0.0)
            nxt[p] = nxt.get(p, 0.0) + e
        cost += sum(level / h.height * min(pos[p], neg[p]) for p in pos)
        extra = nxt
    return cost


def holds(c: pa.Criterion, hist: dict[str, int], glob: dict[str, float]) -> bool:
    counts = sorted(hist.values(), reverse=True)
    n = sum(counts)
    if isinstance(c, pa.PSensitive):
        return len(hist) >= c.p
    if isinstance(c, pa.DistinctLDiversity):
        return len(hist) >= c.l
    if isinstance(c, pa.EntropyLDiversity):
        return -sum(x / n * math.log(x / n) for x in counts) >= math.log(c.l) - 1e-12
    if isinstance(c, pa.RecursiveCLDiversity):
        return len(counts) >= c.l and counts[0] < c.c * sum(counts[c.l - 1 :])
    if isinstance(c, (pa.PPlusSensitive, pa.PAlphaSensitive)):
        h, level = c.categories
        order = h.levels[level]
        cat = {v: order.index(lab) for v, lab in zip(h.leaves, h.leaf_labels(level), strict=True)}
        m = len(order)
        if isinstance(c, pa.PPlusSensitive):
            return len({cat[v] for v in hist}) >= c.p
        weight = sum(((cat[v]) / (m - 1) if cat[v] < m - 1 else 1.0) * x for v, x in hist.items())
        return len(hist) >= c.p and weight >= c.alpha - 1e-9
    if isinstance(c, pa.TCloseness):
        return emd(hist, glob, c.distance, c.hierarchy) <= c.t + 1e-12
    raise AssertionError(c)


def brute(
    df: pl.DataFrame,
    qis: Sequence[str],
    hs: dict[str, pa.Hierarchy],
    k: int,
    sup: int,
    c: pa.Criterion,
) -> set[tuple[int, ...]]:
    s = c.attribute
    glob = {str(v): n / df.height for v, n in df.group_by(s).len().cast({s: pl.String}).iter_rows()}
    out = set()
    for node in itertools.product(*[range(hs[q].height + 1) for q in qis]):
        exprs = []
        for q, lvl in zip(qis, node, strict=True):
            mapping = dict(zip(hs[q].leaves, hs[q].leaf_labels(lvl), strict=True))
            exprs.append(pl.col(q).cast(pl.String).replace_strict(mapping))
        counts = df.select([*exprs, pl.col(s).cast(pl.String)]).group_by([*qis, s]).len()
        groups: dict[tuple[str, ...], dict[str, int]] = {}
        for row in counts.iter_rows():
            groups.setdefault(row[: len(qis)], {})[row[len(qis)]] = row[-1]
        suppressed = sum(
            sum(h.values()) for h in groups.values() if sum(h.values()) < k or not holds(c, h, glob)
        )
        if suppressed <= sup:
            out.add(node)
    return out


QIS = ["sex", "age", "race", "marital-status"]


def occupation() -> pa.Hierarchy:
    return pa.datasets.adult().hierarchies["occupation"]


CASES: list[tuple[Callable[[], pa.Criterion], int, list[str]]] = [
    (lambda: pa.PSensitive(3, "occupation"), 0, QIS),
    (lambda: pa.PSensitive(3, "occupation"), 100, QIS),
    (lambda: pa.PPlusSensitive(3, "occupation", (occupation(), 1)), 100, QIS),
    (lambda: pa.PAlphaSensitive(3, 2.0, "occupation", (occupation(), 1)), 0, QIS),
    (lambda: pa.DistinctLDiversity(6, "occupation"), 100, QIS),
    (lambda: pa.EntropyLDiversity(4.0, "occupation"), 0, QIS),
    (lambda: pa.RecursiveCLDiversity(2.0, 3, "occupation"), 0, QIS),
    (lambda: pa.TCloseness(0.12, "occupation", "equal"), 0, QIS),
    (lambda: pa.TCloseness(0.08, "occupation", "hierarchical", occupation()), 0, QIS),
    (
        lambda: pa.TCloseness(0.1, "age", "ordered"),
        0,
        ["sex", "race", "marital-status", "education"],
    ),
]


@pytest.mark.parametrize(("make", "sup", "qis"), CASES)
def test_every_search_equals_brute_force_with_criteria(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
    make: Callable[[], pa.Criterion],
    sup: int,
    qis: list[str],
) -> None:
    df, hs = adult
    c = make()
    expect = brute(df, qis, hs, 3, sup, c)
    assert expect, "the case should admit some nodes"
    assert len(expect) < math.prod(hs[q].height + 1 for q in qis), "and reject some"
    for algorithm, variant in SEARCHES:
        r = pa.search(df, qis, hs, 3, sup, algorithm=algorithm, variant=variant, criteria=[c])
        assert nodes(r.anonymous, qis) == expect, (algorithm, variant)
    best = pa.search(df, qis, hs, 3, sup, criteria=[c]).best("min_discernibility")
    assert pa.check(df, qis, 3, hs, best, sup, criteria=[c]).k_anonymous
    # Polars' engine for the rollups: the same nodes
    on_polars = pa.search(df, qis, hs, 3, sup, criteria=[c], engine="polars", progress=False)
    assert nodes(on_polars.anonymous, qis) == expect


def test_non_monotone_criteria_with_suppression_need_an_exhaustive_search(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    c = pa.EntropyLDiversity(3.0, "occupation")
    assert not c.monotone_with_suppression and pa.PSensitive(2, "x").monotone_with_suppression
    with pytest.raises(pa.ConfigError, match="not monotone"):
        pa.incognito(df, QIS, hs, 3, 100, criteria=[c])
    r = pa.search(df, QIS, hs, 3, 100, algorithm="mingen", criteria=[c])
    assert nodes(r.anonymous, QIS) == brute(df, QIS, hs, 3, 100, c)


def test_releases_meet_the_criteria_and_agree_with_pycanon(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    qis = ["sex", "age", "race"]
    crit = [pa.DistinctLDiversity(3, "salary-class"), pa.TCloseness(0.2, "occupation")]
    levels = {"sex": 0, "age": 2, "race": 1}
    # salary-class has two values: no group can hold three
    with pytest.raises(pa.ConfigError, match="l = 3 but 'salary-class' has only 2 distinct"):
        pa.generalize(df, hs, levels, k=5, criteria=[pa.DistinctLDiversity(3, "salary-class")])
    crit = [pa.DistinctLDiversity(2, "salary-class"), pa.TCloseness(0.4, "occupation")]
    released = pa.generalize(
        df, hs, levels, k=5, max_suppression=0.05, quasi_identifiers=qis, criteria=crit
    ).collect()
    assert pa.check(released, qis, 5, criteria=crit).k_anonymous
    pdf = released.select([*qis, "salary-class", "occupation"]).to_pandas()
    assert anonymity.k_anonymity(pdf, qis) >= 5
    l_div = anonymity.l_diversity(pdf, qis, ["salary-class"])
    assert l_div >= 2
    # our checks on the release agree with pycanon's l and t exactly at the boundary
    assert pa.check(
        released, qis, 1, criteria=[pa.DistinctLDiversity(l_div, "salary-class")]
    ).k_anonymous
    assert not pa.check(
        released, qis, 1, criteria=[pa.DistinctLDiversity(l_div + 1, "salary-class")]
    ).k_anonymous
    t = anonymity.t_closeness(pdf, qis, ["occupation"])
    assert pa.check(released, qis, 1, criteria=[pa.TCloseness(t + 1e-9, "occupation")]).k_anonymous
    assert not pa.check(
        released, qis, 1, criteria=[pa.TCloseness(t - 1e-6, "occupation")]
    ).k_anonymous
    ent = anonymity.entropy_l_diversity(pdf, qis, ["occupation"])  # floor(exp(min entropy))
    assert pa.check(
        released, qis, 1, criteria=[pa.EntropyLDiversity(ent, "occupation")]
    ).k_anonymous
    assert not pa.check(
        released, qis, 1, criteria=[pa.EntropyLDiversity(ent + 1, "occupation")]
    ).k_anonymous


def test_local_recoding_reproduces_table_8_and_protects_adult(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    zip_h = pa.Hierarchy.from_rows(
        [
            ["14248", "1424*", "142**", "14***", "1****", "*****"],
            ["14247", "1424*", "142**", "14***", "1****", "*****"],
        ]
    )
    table_8a = pl.DataFrame(
        {
            "Age": [27, 35, 33, 25],
            "Zip Code": ["14248", "14248", "14248", "14247"],
            "Disease": ["HIV", "Indigestion", "Flu", "Cancer"],
        }
    )
    crit = [pa.PAlphaSensitive(2, 1, "Disease", TABLE_4)]
    out = pa.local_recoding(table_8a, ["Zip Code"], {"Zip Code": zip_h}, 2, crit)
    # Table 8(c)
    assert out.data.get_column("Zip Code").to_list() == ["14248", "14248", "1424*", "1424*"]
    assert out.data.get_column("Age").to_list() == [27, 35, 33, 25]
    assert out.levels.get_column("Zip Code").to_list() == [0, 0, 1, 1]
    assert out.distortion_ratio == pytest.approx(2 / 20)

    df, hs = adult
    qis = ["sex", "age", "race", "marital-status"]
    cats = (hs["occupation"], 1)
    crit = [pa.PPlusSensitive(2, "occupation", cats)]
    rec = pa.local_recoding(df, qis, hs, 5, crit)
    # every group of the recoded table (identical recoded cells) meets the model
    assert pa.check(rec.data, qis, 5, criteria=crit).k_anonymous
    assert anonymity.k_anonymity(rec.data.select(qis).to_pandas(), qis) >= 5
    # cells at several levels in one column, and less distortion than any
    # full-domain generalization meeting the same model
    assert rec.levels.get_column("age").n_unique() > 1
    full = pa.search(df, qis, hs, 5, criteria=crit).anonymous
    assert rec.distortion_ratio < full.get_column("distortion").min()
    with pytest.raises(pa.ConfigError, match="only 3 distinct categories"):
        # occupation has three categories at level 1: four cannot be met
        pa.local_recoding(df, qis, hs, 5, [pa.PPlusSensitive(4, "occupation", cats)])


def test_criteria_are_frozen_values() -> None:
    """Shown, compared and hashed by their parameters, pickled whole, and
    never changed after they are made (a search keeps the ones it was given)."""
    import pickle

    h = pa.Hierarchy.from_rows([["a", "*"], ["b", "*"]])

    def make() -> list[pa.Criterion]:
        return [
            pa.PSensitive(2, "s"),
            pa.DistinctLDiversity(2, "s"),
            pa.EntropyLDiversity(1.5, "s"),
            pa.RecursiveCLDiversity(3, 2, "s"),
            pa.TCloseness(0.3, "s", "hierarchical", h),
            pa.PAlphaSensitive(2, 0.5, "s", (("a",), ("b",))),
        ]

    made, again = make(), make()
    assert all(a is not b for a, b in zip(made, again, strict=True))
    assert made == again and made != again[::-1]
    assert pa.PSensitive(2, "s") != pa.DistinctLDiversity(2, "s")  # same fields, other model
    assert pa.PSensitive(2, "s") != pa.PSensitive(3, "s")
    assert pa.PSensitive(2, "s") != pa.PSensitive(2, "t")
    # a hierarchy (and so a TCloseness holding one) is not hashable
    hashable = [c for c in made if not isinstance(c, pa.TCloseness)]
    assert len({*hashable, *again[:4], again[5]}) == len(hashable)
    assert [pickle.loads(pickle.dumps(c)) for c in made] == made
    assert repr(made[0]) == "PSensitive(attribute='s', p=2)"
    assert repr(made[3]) == "RecursiveCLDiversity(attribute='s', c=3.0, l=2)"
    for c in made:
        with pytest.raises(AttributeError, match="frozen"):
            c.attribute = "other"  # type: ignore[misc]
        with pytest.raises(AttributeError, match="frozen"):
            del c.attribute
        assert c.attribute == "s"


def test_criteria_read_as_text_in_reports() -> None:
    """A report (a search's summary, as text and HTML; a check's; Mondrian's)
    names each criterion in words; repr stays the Python call."""
    h = pa.Hierarchy.from_rows([["a", "*"], ["b", "*"]])
    texts = [
        (pa.PSensitive(2, "salary-class"), "2-sensitive salary-class"),
        (pa.DistinctLDiversity(3, "occupation"), "distinct 3-diversity of occupation"),
        (pa.EntropyLDiversity(1.5, "s"), "entropy 1.5-diversity of s"),
        (pa.RecursiveCLDiversity(3, 2, "s"), "recursive (3, 2)-diversity of s"),
        (
            pa.TCloseness(0.2, "salary-class", "ordered"),
            "t-closeness 0.2 of salary-class (ordered distance)",
        ),
        (pa.TCloseness(0.3, "s"), "t-closeness 0.3 of s (equal distance)"),
        (
            pa.TCloseness(0.3, "s", "hierarchical", h),
            "t-closeness 0.3 of s (hierarchical distance)",
        ),
        (pa.PPlusSensitive(2, "s", [["a"], ["b"]]), "2+-sensitive s (2 categories)"),
        (
            pa.PPlusSensitive(2, "s", (h, 1)),
            "2+-sensitive s (categories at level 1 of a hierarchy)",
        ),
        (pa.PAlphaSensitive(2, 0.5, "s", (("a",), ("b",))), "(2, 0.5)-sensitive s (2 categories)"),
    ]
    for c, text in texts:
        assert c.describe() == str(c) == f"{c}" == text
        assert repr(c).startswith(type(c).__name__ + "(attribute='")
    df = pl.DataFrame({"zip": ["1", "1", "2", "2"], "s": ["a", "b", "a", "b"]})
    hs = {"zip": pa.Hierarchy.from_rows([["1", "*"], ["2", "*"]])}
    criteria = [pa.DistinctLDiversity(2, "s"), pa.TCloseness(0.5, "s")]
    said = "distinct 2-diversity of s; t-closeness 0.5 of s (equal distance)"
    r = pa.search(df, ["zip"], hs, 2, criteria=criteria, progress=False)
    for shown in (repr(r), r._repr_html_()):
        # (the text wraps the row)
        assert said in " ".join(shown.split()) and "DistinctLDiversity(" not in shown
    report = str(pa.check(df, ["zip"], 2, hs, criteria=criteria))
    assert re.search(r"criteria +" + re.escape(said), " ".join(report.split()))
    assert "TCloseness(" not in report
    m = pa.mondrian(df, ["zip"], 2, hs, criteria=criteria[:1])
    assert "model" in repr(m) and "k = 2; distinct 2-diversity of s" in repr(m)


def test_too_wide_for_a_sensitive_model_says_how_wide_and_the_ways_out() -> None:
    # five columns of 5,000 values (13 bits each), one of 1,000 (10) and a
    # sensitive one (2): 77 bits where the models pack into 63
    cols = {f"q{i}": [(r * (7 + 2 * i)) % 5000 for r in range(20_000)] for i in range(6)}
    df = pl.DataFrame(cols).with_columns(diag=pl.Series(["flu", "hiv", "cold", "flu"] * 5000))
    qis = list(cols)
    with pytest.raises(pa.ConfigError, match=r"these take 77 \('q0' 13, .*'diag' 2\)"):
        pa.search(df, qis, None, 2, 0.05, criteria=[pa.DistinctLDiversity(2, "diag")])
    # the way out it names: the widest rounded (to 1,000 and 500 values: 59 bits)
    rounded = df.with_columns(pl.col(q) // 5 for q in qis)
    report = pa.check(rounded, qis, 2, criteria=[pa.DistinctLDiversity(2, "diag")])
    groups = rounded.group_by(qis).agg(pl.len(), pl.col("diag").n_unique())
    failing = groups.filter((pl.col("len") < 2) | (pl.col("diag") < 2))
    assert report.suppressed == failing.get_column("len").sum()


def test_negative_zero_is_one_sensitive_value_on_polars(tmp_path: Path) -> None:
    # -0.0 and 0.0 are one number: a group whose sensitive values are only
    # those is one value, not two distinct ones. Polars' text kept them apart
    # (and so overstated l) in every path a Polars table takes: a DataFrame,
    # a LazyFrame read in batches, a check, Mondrian; DuckDB and Spark fold
    # them (test_engines). The release writes the zero as 0.0.
    n = ROWS_IN_CORE // 4 + 1
    df = pl.DataFrame(
        {
            "t": ["a", "a", "b", "b"] * n,
            "s": pl.Series([-0.0, 0.0, 1.0, 2.0] * n, dtype=pl.Float32),
        }
    )
    l2 = pa.DistinctLDiversity(2, "s")
    hs = {"t": pa.hierarchy.masking(["a", "b"])}
    for data in (df, df.lazy(), df.head(8), df.head(8).lazy()):
        r = pa.search(data, ["t"], hs, 2, 0, criteria=l2, progress=False)
        assert r.best() == {"t": 1}, type(data)
        assert not pa.check(data, ["t"], 2, hs, criteria=l2).k_anonymous
        assert pa.check(data, ["t"], 2, hs, levels={"t": 1}, criteria=l2).k_anonymous
        m = pa.mondrian(data, ["t"], 2, criteria=l2)
        assert m.groups.height == 1
    r = pa.search(df, ["t"], hs, 2, 0, criteria=l2, progress=False)
    out = pl.read_parquet(r.sink_parquet(tmp_path / "out.parquet"))
    # counted again with plain Polars, a zero as one value
    assert out.get_column("s").cast(pl.String).str.starts_with("-").sum() == 0
    assert out.group_by("t").agg(pl.col("s").n_unique()).get_column("s").min() == 3
    assert out.height == df.height
