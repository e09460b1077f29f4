"""Every search against brute force, against each other, and on the papers' examples."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_anon as pa
from tests.conftest import SEARCHES, brute_anonymous, nodes

ADULT = ["sex", "age", "race", "marital-status", "education", "native-country"]


# n = 6 is brute-forced (600 nodes) for k = 5 only, to keep the suite quick
@pytest.mark.parametrize(("n", "k"), [(3, 2), (3, 5), (3, 10), (4, 2), (4, 5), (4, 10), (6, 5)])
@pytest.mark.parametrize("max_sup", [0, 0.01])
def test_all_searches_return_the_brute_force_set_on_adult(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], n: int, k: int, max_sup: float
) -> None:
    df, hs = adult
    qis = ADULT[:n]
    sup = int(max_sup * df.height)
    expect = brute_anonymous(df, qis, hs, k, sup)
    results = {}
    for algorithm, variant in SEARCHES:
        r = pa.search(df, qis, hs, k, max_sup, algorithm=algorithm, variant=variant)
        assert r.complete
        assert nodes(r.anonymous, qis) == expect, (algorithm, variant)
        results[(algorithm, variant)] = r
    first = results[SEARCHES[0]]
    minimal = nodes(first.minimal, qis)
    for r in results.values():
        assert nodes(r.minimal, qis) == minimal
        for criterion in pa.CRITERIA:
            assert r.best(criterion) == first.best(criterion), criterion
        assert r.anonymous.sort(qis).equals(first.anonymous.sort(qis))
    # a minimal node has no anonymous direct specialization
    for m in minimal:
        for i in range(n):
            if m[i] > 0:
                below = (*m[:i], m[i] - 1, *m[i + 1 :])
                assert below not in expect
    sam = pa.search(df, qis, hs, k, max_sup, algorithm="samarati")
    assert not sam.complete
    assert nodes(sam.anonymous, qis) <= expect
    ev = sam.evaluated
    assert nodes(ev.filter(pl.col("anonymous")), qis) == nodes(sam.anonymous, qis)
    assert not nodes(ev.filter(~pl.col("anonymous")), qis) & expect
    lowest = min(sum(x) for x in expect)
    assert nodes(sam.minimal, qis) == {x for x in expect if sum(x) == lowest}


def test_engines_agree(adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> None:
    df, hs = adult
    a = pa.search(df, ADULT[:5], hs, 5, 100, engine="polars")
    b = pa.search(df, ADULT[:5], hs, 5, 100, engine="native")
    assert a.anonymous.equals(b.anonymous)
    with pytest.raises(pa.ConfigError, match="engine"):
        pa.search(df, ADULT[:3], hs, 5, engine="gpu")


def test_metrics_of_the_result_agree_with_check(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    qis = ADULT[:4]
    r = pa.incognito(df, qis, hs, k=10, max_suppression=50)
    for row in r.anonymous.head(25).iter_rows(named=True):
        levels = {q: row[q] for q in qis}
        c = pa.check(df, qis, 10, hs, levels, max_suppression=50)
        assert c.k_anonymous
        assert (c.suppressed, c.height) == (row["suppressed"], row["height"])
        assert c.precision == pytest.approx(row["precision"])
        assert c.discernibility == row["discernibility"]
        assert c.distortion == pytest.approx(row["distortion"])


def test_best_criteria_weights_and_bounds(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    qis = ADULT[:5]
    r = df.anon.incognito(qis, hs, k=5, max_suppression=0.01)
    frame = r.anonymous
    best = r.best("min_height")
    assert sum(best.values()) == frame.get_column("height").min()
    assert r.best("max_precision") == _argbest(frame, qis, "precision", True)
    assert r.best("min_discernibility") == _argbest(frame, qis, "discernibility", False)
    assert r.best("min_suppression") == _argbest(frame, qis, "suppressed", False)
    assert r.best("max_distribution") == _argbest(frame, qis, "groups", True)
    keep_sex = r.best("min_height", bounds={"sex": 0})
    assert keep_sex["sex"] == 0
    heavy = r.best("min_height", weights={"age": 100.0})
    assert heavy["age"] == frame.get_column("age").min()
    with pytest.raises(pa.ConfigError, match="criterion"):
        r.best("fastest")
    with pytest.raises(pa.ConfigError, match="unknown quasi-identifier"):
        r.best(weights={"zip": 1.0})
    applied = r.apply(df).collect()
    assert pa.check(applied, qis, 5).min_group_size >= 5
    assert "incognito (cube)" in repr(r) and "<table>" in r._repr_html_()


def test_best_by_levels_ranks_as_every_anonymous_nodes_figures_do(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    """min_height and min_relative_distance evaluate only the nodes tied on
    their key and height; the answer is the first of every anonymous node
    ranked by key, height, suppressed tuples and levels."""
    df, hs = adult
    heights = {q: hs[q].height for q in ADULT}
    for qis, k, sup in ((ADULT[:5], 5, 0.01), (ADULT, 2, 0.05), (ADULT[:4], 10, 0)):
        r = pa.search(df, qis, hs, k, sup, progress=False)
        frame = r.anonymous
        for weights in ({}, {qis[0]: 2.5, qis[-1]: 0.3}):
            w = {q: weights.get(q, 1.0) for q in qis}
            keys = {
                "min_height": sum(pl.col(q) * w[q] for q in qis).round(12),
                "min_relative_distance": sum(
                    pl.col(q) * (w[q] / heights[q]) for q in qis if heights[q]
                ).round(12),
            }
            for criterion, key in keys.items():
                for bounds in ({}, {qis[1]: (1, heights[qis[1]])}):
                    kept = frame.filter(
                        *[pl.col(q).is_between(*b) for q, b in bounds.items()] or [pl.lit(True)]
                    )
                    top = (
                        kept.with_columns(key.alias("key"))
                        .sort(["key", "height", "suppressed", *qis])
                        .row(0, named=True)
                    )
                    got = r.best(criterion, weights=weights, bounds=bounds)
                    assert got == {q: top[q] for q in qis}, (qis, criterion, weights, bounds)


def test_weighted_steps_equal_but_for_float_rounding_tie_and_go_by_height() -> None:
    """3 steps of weight 0.3 and 1 of 0.9 are 0.9 steps each (as floats
    0.8999999999999999 and 0.9): tied, broken by height as documented, and
    the same answer as the weights scaled by 10 give (helper-81)."""
    ha = pa.Hierarchy.from_rows([["a0", "x0", "y0", "*"], ["a1", "x1", "y1", "*"]])
    hb = pa.Hierarchy.from_rows([["b0", "*"], ["b1", "*"]])
    df = pl.DataFrame({"a": ["a0", "a0", "a1", "a1"], "b": ["b0", "b1", "b0", "b1"]})
    r = pa.search(df, ["a", "b"], {"a": ha, "b": hb}, k=2, progress=False)
    assert {(3, 0), (0, 1)} <= {tuple(n) for n in r.anonymous.select("a", "b").rows()}
    assert r.best("min_height", weights={"a": 0.3, "b": 0.9}) == {"a": 0, "b": 1}
    assert r.best("min_height", weights={"a": 3, "b": 9}) == {"a": 0, "b": 1}


def test_minimal_nodes_alone_have_the_figures_of_every_anonymous_node(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    """`minimal` asked first evaluates the minimal nodes only, with the rows
    `anonymous` has for them."""
    df, hs = adult
    first = pa.search(df, ADULT, hs, 2, 0.05, progress=False)
    alone = first.minimal
    assert first._anonymous is None  # nothing else was evaluated
    everything = pa.search(df, ADULT, hs, 2, 0.05, progress=False).anonymous
    assert alone.height == len(first._minimal_nodes) < everything.height
    assert alone.equals(everything.filter(pl.col("minimal")))


def _argbest(frame: pl.DataFrame, qis: list[str], col: str, descending: bool) -> dict[str, int]:
    top = frame.sort(
        [col, "height", "suppressed", *qis],
        descending=[descending, False, False] + [False] * len(qis),
    ).row(0, named=True)
    return {q: top[q] for q in qis}


def test_patients_figures_and_survey_example() -> None:
    lf, hs = pa.datasets.patients()
    qis = ["Birthdate", "Sex", "Zipcode"]
    r = pa.incognito(lf, qis, hs, k=2, variant="basic", trace=True, infer_projections=False)
    assert pa.incognito(lf, ["Sex"], hs, k=2).trace == []
    # the same answer without building candidates with Birthdate or Sex at their top
    inferred = pa.incognito(lf, qis, hs, k=2, variant="basic", trace=True)
    assert nodes(inferred.anonymous, qis) == nodes(r.anonymous, qis)
    assert len(inferred.trace) == 2 and inferred.stats.nodes_projected == 5
    assert inferred.stats.nodes_checked < r.stats.nodes_checked
    three = r.trace[2]
    roots = sorted(tuple(v) for v, root in zip(three.levels, three.root, strict=True) if root)
    assert roots == [(0, 1, 2), (1, 0, 2), (1, 1, 0)]
    assert sorted(map(tuple, three.levels)) == [
        (0, 1, 2),
        (1, 0, 2),
        (1, 1, 0),
        (1, 1, 1),
        (1, 1, 2),
    ]
    lf2, hs2 = pa.datasets.race_zip()
    for algorithm, variant in [*SEARCHES, ("samarati", None)]:
        s = pa.search(lf2, ["Race", "ZIP"], hs2, 2, 2, algorithm=algorithm, variant=variant)
        assert nodes(s.minimal, ["Race", "ZIP"]) == {(1, 0), (0, 1)}


def test_statistics_follow_the_paper(adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> None:
    df, hs = adult
    qis = ADULT[:5]
    basic = pa.incognito(df, qis, hs, 2, variant="basic").stats
    roots = pa.incognito(df, qis, hs, 2, variant="super_roots").stats
    cube = pa.incognito(df, qis, hs, 2, variant="cube").stats
    bu = pa.search(df, qis, hs, 2, algorithm="bottom_up", variant="no_rollup").stats
    assert basic.nodes_checked == roots.nodes_checked == cube.nodes_checked
    # candidates with sex (or race) at "*" are their projections: not checked
    assert basic.nodes_projected == cube.nodes_projected > 0
    assert cube.table_scans == 1 and 5 < cube.cuboids <= 2**5 - 1
    assert roots.table_scans < basic.table_scans
    assert bu.table_scans == bu.nodes_checked > basic.nodes_checked
    assert set(cube.phase_ms) >= {"cube", "search", "total"}


def test_search_errors() -> None:
    lf, hs = pa.datasets.patients()
    with pytest.raises(pa.ConfigError, match="unknown algorithm"):
        pa.search(lf, ["Sex"], hs, 2, algorithm="no_such_search")
    with pytest.raises(pa.ConfigError, match="no variant"):
        pa.search(lf, ["Sex"], hs, 2, algorithm="incognito", variant="rollup")
    with pytest.raises(pa.ConfigError, match="larger than the table"):
        pa.search(lf, ["Sex"], hs, 100)


@st.composite
def tables(draw: st.DrawFn) -> tuple[pl.DataFrame, dict[str, pa.Hierarchy], list[str]]:
    n_attrs = draw(st.integers(1, 3))
    hs: dict[str, pa.Hierarchy] = {}
    columns: dict[str, list[str]] = {}
    rows = draw(st.integers(1, 40))
    for a in range(n_attrs):
        leaves = [f"v{i}" for i in range(draw(st.integers(1, 6)))]
        height = draw(st.integers(0, 3))
        hrows = [[leaf] for leaf in leaves]
        # each level groups the previous level's labels into fewer buckets
        labels = list(leaves)
        for lvl in range(1, height + 1):
            if lvl == height:
                parent = {lab: "*" for lab in labels}
            else:
                buckets = draw(st.integers(1, max(1, len(set(labels)))))
                parent = {lab: f"g{lvl}_{draw(st.integers(0, buckets - 1))}" for lab in set(labels)}
            labels = [parent[lab] for lab in labels]
            for row, lab in zip(hrows, labels, strict=True):
                row.append(lab)
        name = f"c{a}"
        hs[name] = pa.Hierarchy.from_rows(hrows)
        columns[name] = [draw(st.sampled_from(leaves)) for _ in range(rows)]
    return pl.DataFrame(columns), hs, list(columns)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=tables(), k=st.integers(1, 5), sup=st.integers(0, 4))
def test_property_every_search_equals_brute_force(
    data: tuple[pl.DataFrame, dict[str, pa.Hierarchy], list[str]], k: int, sup: int
) -> None:
    df, hs, qis = data
    if k > df.height:
        with pytest.raises(pa.ConfigError):
            pa.search(df, qis, hs, k)
        return
    expect = brute_anonymous(df, qis, hs, k, sup)
    for algorithm, variant in SEARCHES:
        r = pa.search(df, qis, hs, k, sup, algorithm=algorithm, variant=variant)
        assert nodes(r.anonymous, qis) == expect, (algorithm, variant)
    sam = pa.search(df, qis, hs, k, sup, algorithm="samarati")
    lowest = min((sum(x) for x in expect), default=None)
    assert nodes(sam.minimal, qis) == {x for x in expect if sum(x) == lowest}


def test_progress_is_called_and_can_stop_a_long_search(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    from polars_anon.prepare.f0 import prepare

    df, hs = adult
    prep = prepare(df, list(pa.datasets.ADULT_QUASI_IDENTIFIERS), hs)
    calls: list[tuple[int, float, float | None]] = []

    def stop(checked: int, elapsed: float, best: float | None) -> None:
        calls.append((checked, elapsed, best))
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        prep.problem.search("bottom_up", "no_rollup", 2, 1500, "auto", False, stop)
    assert len(calls) == 1 and calls[0][1] >= 0.2 and calls[0][0] >= 0
    # a complete search values no node as it goes: no best value to show
    assert calls[0][2] is None


def test_rows_in_the_core_and_a_polars_scan_prepare_the_same_f0(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table of up to ROWS_IN_CORE rows is encoded and grouped by the core
    row by row, a larger one a batch at a time: same F0, same answers,
    whatever integer type the ages come in (signed ones cross as values,
    others are cast), and whether the small table is a DataFrame or a
    LazyFrame (whose rows are read as they are)."""
    from polars_anon.prepare import f0

    df, hs = adult
    qis = ADULT[:5]
    with monkeypatch.context() as m:
        m.setattr(f0, "ROWS_IN_CORE", 1000)
        scanned = f0.prepare(df.lazy(), qis, hs)
        expect = pa.search(df.lazy(), qis, hs, 5, 0.01)
    assert scanned.grouped is None and scanned.table is None  # read in batches
    ages = [pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.String]
    frames = [df.with_columns(pl.col("age").cast(t)) for t in ages]
    for data in [*frames, frames[0].lazy(), frames[-1].lazy()]:
        prep = f0.prepare(data, qis, hs)
        assert prep.grouped is None and prep.table is not None  # the core grouped the rows
        assert (prep.problem.distinct, prep.problem.rows) == (
            scanned.problem.distinct,
            scanned.problem.rows,
        )
        codes, counts = prep.problem.groups([0] * len(qis))
        ref_codes, ref_counts = scanned.problem.groups([0] * len(qis))
        assert sorted(zip(*codes, counts, strict=True)) == sorted(
            zip(*ref_codes, ref_counts, strict=True)
        )
        # the Polars F0 that releases are checked on, made when first asked for
        assert prep.f0.sort(qis).equals(scanned.f0.sort(qis))
        r = pa.search(data, qis, hs, 5, 0.01)
        assert r.anonymous.sort(qis).equals(expect.anonymous.sort(qis)), data.collect_schema()
        # and the same release, checked on the rows rather than on F0
        assert_frame_equal(r.apply().collect(), expect.apply().collect(), check_row_order=False)


def test_a_dataframe_of_any_size_goes_to_the_core_and_a_large_lazyframe_is_scanned(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A DataFrame is in memory already: its rows cross to the core whatever
    its size (there is no cliff at ``ROWS_IN_CORE``). A LazyFrame of more rows
    than that is read in batches (its rows need not fit in memory); one of
    exactly ``ROWS_IN_CORE`` rows is read as it is. The same F0 and answers
    every way."""
    from polars_anon.prepare import f0

    df, hs = adult
    qis = ADULT[:4]
    monkeypatch.setattr(f0, "ROWS_IN_CORE", df.height)
    in_core = f0.prepare(df.lazy(), qis, hs)
    b = pa.search(df.lazy(), qis, hs, 10, 0.02)
    assert in_core.grouped is None and in_core.table is not None
    monkeypatch.setattr(f0, "ROWS_IN_CORE", df.height - 1)
    scanned = f0.prepare(df.lazy(), qis, hs)
    assert scanned.grouped is None and scanned.table is None  # read in batches
    frame = f0.prepare(df, qis, hs)
    assert frame.grouped is None and frame.table is not None
    for prep, data in ((scanned, df.lazy()), (frame, df)):
        assert prep.problem.distinct == in_core.problem.distinct
        assert prep.f0.sort(qis).equals(in_core.f0.sort(qis))
        a = pa.search(data, qis, hs, 10, 0.02)
        assert a.anonymous.sort(qis).equals(b.anonymous.sort(qis))


def test_reports_print_any_column_name() -> None:
    # a name of 99 characters made every report's repr raise (a negative
    # wrap width); a wide character and a line break broke the alignment;
    # a table inside the HTML lost its lines
    import html.parser

    long = "patient_reported_outcome_measure_" * 3
    df = pl.DataFrame(
        {
            "年齢層": ["a", "b"] * 20,
            "sex": ["M", "F"] * 20,
            long: ["x"] * 40,
            "two\nlines": [1] * 40,
        }
    )
    report = pa.check(df, ["年齢層", "sex"], k=2, insensitive=[long, "two\nlines"])
    lines = repr(report).splitlines()
    assert f"  column {long}" in lines
    assert max(len(line) for line in lines if long not in line) <= 100
    starts = {
        sum(2 if "\u4e00" <= c <= "\u9fff" else 1 for c in line[: line.index(value)])
        for line in lines
        for value in ("quasi-identifier: kept", "True", "2 (allowed")
        if value in line
    }
    assert len(starts) == 1, lines
    assert "  column two\\nlines" in "\n".join(lines)
    r = pa.search(df, ["年齢層", "sex"], None, 2, progress=False)
    page = r._repr_html_()

    opened: list[str] = []

    class Tags(html.parser.HTMLParser):
        def handle_starttag(self, tag: str, attrs: object) -> None:
            opened.append(tag)

        def handle_endtag(self, tag: str) -> None:
            assert opened.pop() == tag, page

    Tags().feed(page)
    assert opened == []  # every element closed, in order
    assert "<pre" in page and "\n" in page.split("<pre")[1].split("</pre>")[0]


def test_results_print_as_short_aligned_text(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    r = pa.search(df, qis, hs, 5, 0.01, algorithm="incognito", progress=False)
    text = repr(r)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert f"minimal (5 of {r.minimal.height})" in text
    assert "kept as they are" not in text
    # a quasi-identifier given no hierarchy is never generalized: said so
    bare = pa.search(df, ["age", "sex", "education"], {"age": hs["age"]}, 5, 0.01, progress=False)
    assert bare.minimal.get_column("education").unique().to_list() == [0]
    said = [line for line in repr(bare).splitlines() if "kept as they are" in line]
    assert said and said[0].split("kept as they are")[1].strip().startswith("sex, education (no")
    # the first minimal node's levels are a row of the table
    first = r.minimal.row(0, named=True)
    assert any(
        [c.strip() for c in line.strip("│ ").split("┆")] == [str(first[q]) for q in qis]
        for line in text.splitlines()
    )
    report = pa.check(df, qis, 5, hs, r.best())
    assert repr(report) == str(report) and "CheckReport(" not in repr(report)
    lines = repr(report).splitlines()
    assert max(len(line) for line in lines) <= 100
    assert "native-country=" in repr(report)
    assert any(line.strip().startswith("loss (ARX)") for line in lines)


def test_a_summary_wraps_at_the_terminals_width_or_at_100_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Printed to a terminal, a report wraps at its width (60 to 160
    columns); elsewhere (a notebook, a pipe, a file) at 100."""
    import io
    import os
    import sys

    from polars_anon.reports import render

    lf, hs = pa.datasets.adult()
    r = pa.search(lf, list(pa.datasets.ADULT_QUASI_IDENTIFIERS), hs, 5, 0.01, progress=False)
    wide = str(r).splitlines()
    assert max(map(len, wide)) > 80 and max(map(len, wide)) <= render.WIDTH

    class Terminal(io.StringIO):
        """A standard output on a file descriptor (pytest's capture at sys
        level has none), whose size the patch below gives."""

        def fileno(self) -> int:
            return 1

    monkeypatch.setattr(sys, "stdout", Terminal())
    for columns, most in ((72, 72), (30, render.NARROWEST), (400, render.WIDEST)):
        size = os.terminal_size((columns, 24))
        monkeypatch.setattr(os, "get_terminal_size", lambda fd, size=size: size)
        lines = str(r).splitlines()
        assert max(map(len, lines)) <= most, (columns, lines)
        # nothing lost: the quasi-identifiers' row holds every name, wrapped
        text = " ".join(" ".join(lines).split())
        named = text.split("quasi-identifiers ")[1].split(" anonymous generalizations")[0]
        assert named == ", ".join(pa.datasets.ADULT_QUASI_IDENTIFIERS), named
