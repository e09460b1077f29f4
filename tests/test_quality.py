"""ARX's quality statistics (`polars_anon.utility.quality`): the worked
examples in the notes on ARX 3.9's `StatisticsQuality` (figures recomputed
by hand from ARX's definitions, and checked in ARX 3.9.2), ARX 3.9.2's own
figures for nodes of Adult's 9-QI lattice (tests/data/arx_quality.json,
made by tests/data/arx_quality/generate.py), and the same figures from
DuckDB, a LazyFrame, a frequency set and a search on DuckDB."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polars_anon as pa
from polars_anon.prepare.f0 import prepare
from polars_anon.utility.quality import quality_prepared
from polars_anon.utility.report import QualityReport

ARX_FIGURES = Path(__file__).parent / "data" / "arx_quality.json"
MEASURES = ["generalization_intensity", "granularity", "non_uniform_entropy", "missings"]
ATTRIBUTE = [*MEASURES, "squared_error"]
DATASET = ["ambiguity", "aecs", "discernibility", "record_level_squared_error", "sse_sst"]
H = pa.Hierarchy.from_rows


def figures(q: QualityReport) -> dict[str, float | None]:
    """Every figure of a report by name: ``attribute.measure``, the dataset
    measures, and ``mean.measure``."""
    out: dict[str, float | None] = {}
    for row in q.attributes.iter_rows(named=True):
        out |= {f"{row['attribute']}.{m}": row[m] for m in ATTRIBUTE}
    out |= {m: getattr(q, m) for m in DATASET}
    out |= {f"mean.{m}": v for m, v in q.means.items()}
    return out


def assert_figures(got: dict[str, float | None], want: dict[str, float | None], tol: float) -> None:
    for name, value in want.items():
        if value is None:
            assert got[name] is None, name
        else:
            assert got[name] is not None, name
            assert abs(got[name] - value) <= tol, (name, got[name], value)  # type: ignore[operator]


# -- the worked example (ARX 3.9 StatisticsQuality; notes on issue #29) -------

AGE = H(
    [
        ["20", "20-29", "*"],
        ["28", "20-29", "*"],
        ["31", "30-39", "*"],
        ["39", "30-39", "*"],
        ["45", "40-49", "*"],
    ]
)
SEX = H([["M", "*"], ["F", "*"]])
EXAMPLE = pl.DataFrame({"age": [20, 28, 31, 39, 31, 39], "sex": ["M", "M", "F", "F", "M", "F"]})


def example(age_as: type[pl.DataType] = pl.Int64, **kw: Any) -> QualityReport:
    data = EXAMPLE.with_columns(pl.col("age").cast(age_as))
    levels = kw.pop("levels", {"age": 1, "sex": 0})
    return pa.quality(data, ["age", "sex"], {"age": AGE, "sex": SEX}, levels, **kw)


def test_worked_example_by_hand() -> None:
    # age at level 1, k = 2: classes (20-29,M) x2, (30-39,F) x3 and (30-39,M)
    # x1, whose record r5 is suppressed (ARX: an outlier, "*" in every QI)
    q = example(k=2, max_suppression=1)
    assert (q.records, q.suppressed) == (6, 1)
    got = figures(q)
    log2 = math.log2
    want = {
        # StatisticsQuality.getMissings: ARX reports 1 - (1 - share missing)
        "age.missings": 1 - (1 - 1 / 6),
        "sex.missings": 1 - (1 - 1 / 6),
        # QualityModelColumnOrientedPrecision: level 1 of 0..2 costs 1/2, the
        # outlier 1
        "age.generalization_intensity": 1 - (5 * 0.5 + 1) / 6,
        "sex.generalization_intensity": 1 - (5 * 0 + 1) / 6,
        # QualityModelColumnOrientedLoss, QualityDomainShareRaw: "20-29" and
        # "30-39" stand for 2 of D = 5 leaves (45 is in the hierarchy only)
        "age.granularity": 1 - ((5 * 0.4 + 1) / 6 - 1 / 5) / (1 - 1 / 5),
        "sex.granularity": 1 - ((5 * 0.5 + 1) / 6 - 1 / 2) / (1 - 1 / 2),
        # QualityModelColumnOrientedNonUniformEntropy: -log2 of 1/2, 1/2, 2/4
        # x4 at level 1, then 0 for r5 at level 2; max 2 log2 6 + 4 log2 3
        "age.non_uniform_entropy": 1 - 6 / (2 * log2(6) + 4 * log2(3)),
        "sex.non_uniform_entropy": 1.0,
        "mean.non_uniform_entropy": 1 - 6 / (2 * log2(6) + 4 * log2(3) + 6),
        # QualityModelColumnOrientedSquaredError, age an Integer: "20-29" is
        # [20, 28], "30-39" [31, 39] (the values released so), r5 [20, 39]
        "age.squared_error": 1 - 441 / 1446,
        "sex.squared_error": 1 - 1 / 6,
        "mean.squared_error": 1 - 442 / 1452,
        "mean.generalization_intensity": 0.625,
        # QualityModelRowOrientedAmbiguity: 2 leaves x 1 per record, r5 5 x 2
        "ambiguity": 1 - (20 - 6) / (60 - 6),
        # QualityModelRowOrientedAECS: 5 input tuples, 2 released classes
        "aecs": 1 - (2.5 - 1.2) / (6 - 1.2),
        # QualityModelRowOrientedDiscernibility: 2^2 + 3^2 + 1 x 6
        "discernibility": 1 - (19 - 8) / (36 - 8),
        # QualityModelRowOrientedSquaredError and SSESST (ARX 3.9.2's figures)
        "record_level_squared_error": 0.5262797709727693,
        "sse_sst": 1 - 82.5 / 152.5,
    }
    assert_figures(got, want, 1e-12)


def test_worked_example_age_as_string() -> None:
    # ARX's default String type numbers values by hierarchy rows: 20 -> 0,
    # ..., 45 -> 4; "20-29" = [0, 1], "30-39" = [2, 3], "*" = [0, 4]
    q = example(pl.String, k=2, max_suppression=1)
    got = figures(q)
    assert q.data_types == {"age": "String", "sex": "String"}
    assert_figures(
        got,
        {
            "age.squared_error": 1 - 9 / 39,
            "mean.squared_error": 1 - 10 / 45,
            "record_level_squared_error": 1 - 7.426051254293332 / 20.080035917233964,
            "sse_sst": 1 - 1.5 / (4.916666666666667 + 1.25),
            "age.non_uniform_entropy": 0.47870397138568,
        },
        1e-12,
    )


def test_corner_cases_checked_in_arx() -> None:
    # (a) one QI: ARX's row heuristic calls every record suppressed
    one = pa.quality(EXAMPLE, ["age"], {"age": AGE}, {"age": 1}, k=2)
    assert_figures(
        figures(one),
        {
            "age.generalization_intensity": 0.0,
            "age.granularity": 0.0,
            "age.non_uniform_entropy": 0.47870397138568,
            "age.squared_error": 0.7344398340248963,
            "ambiguity": 0.75,
            "aecs": 0.6666666666666667,
            "discernibility": 0.6153846153846154,
            "record_level_squared_error": 0.4666666666666667,
            "sse_sst": 0.4049586776859504,
        },
        1e-12,
    )
    # (b) level 0, k = 2: r1, r2, r3 and r5 suppressed
    b = example(levels={"age": 0, "sex": 0}, k=2, max_suppression=4)
    assert b.suppressed == 4
    assert_figures(
        figures(b),
        {
            "age.missings": 0.6666666666666666,
            "age.generalization_intensity": 0.33333333333333337,
            "age.granularity": 0.33333333333333326,
            "age.non_uniform_entropy": 0.47870397138568,
            "age.squared_error": 0.49930843706777317,
            "sex.non_uniform_entropy": 0.45914791702724467,
            "sex.squared_error": 0.33333333333333337,
            "ambiguity": 0.33333333333333337,
            "aecs": 0.8333333333333333,
            "discernibility": 0.2857142857142857,
            "record_level_squared_error": 0.3828828486127204,
            "sse_sst": 0.2547528517110266,
        },
        1e-12,
    )
    # (e) every record suppressed: AECS and discernibility unavailable
    e = example(levels={"age": 0, "sex": 0}, k=6, max_suppression=6)
    everything = {f"{a}.{m}": 0.0 for a in ("age", "sex") for m in ATTRIBUTE}
    everything |= {"age.missings": 1.0, "sex.missings": 1.0, "aecs": None}
    everything |= {"discernibility": None, "ambiguity": 0.0, "sse_sst": 0.0}
    assert_figures(figures(e), everything | {"record_level_squared_error": 0.0}, 0.0)
    # (f) level 0, nothing suppressed: nothing lost
    f = figures(example(levels={"age": 0, "sex": 0}))
    assert_figures(f, {n: 0.0 if n.endswith("missings") else 1.0 for n in f}, 1e-12)


def test_coinciding_values_labels_at_two_levels_and_a_constant() -> None:
    # (c): rows 1 and 2 release (1, 1, z), not all equal strings; b's "1" is
    # a leaf and a label; c has one value (D = 1: NaN in ARX, None here)
    data = pl.DataFrame(
        {
            "a": [1, 1, 2, 2, 3, 3],
            "b": ["1", "1a", "x", "y", "x", "x"],
            "c": ["z"] * 6,
        }
    )
    hs = {
        "a": H([["1", "low", "*"], ["2", "low", "*"], ["3", "high", "*"]]),
        "b": H([["1", "1", "ANY"], ["1a", "1", "ANY"], ["x", "xy", "ANY"], ["y", "xy", "ANY"]]),
        "c": H([["z", "*"]]),
    }
    q = pa.quality(data, ["a", "b", "c"], hs, {"a": 0, "b": 1, "c": 0})
    want: dict[str, float | None] = {f"a.{m}": 1.0 for m in ATTRIBUTE if m != "missings"}
    want |= {
        "b.generalization_intensity": 0.6666666666666667,
        "b.granularity": 0.6666666666666667,
        "b.non_uniform_entropy": 0.6982662536280607,
        "b.squared_error": 0.8235294117647058,
        "c.generalization_intensity": 1.0,
        "c.granularity": None,
        "c.non_uniform_entropy": None,
        "c.squared_error": None,
        "mean.generalization_intensity": 0.8888888888888888,
        "mean.granularity": 0.8235294117647061,
        "mean.non_uniform_entropy": 0.839863481723558,
        "mean.squared_error": 0.8846153846153846,
        "ambiguity": 0.9090909090909091,
        "aecs": 0.8333333333333333,
        "discernibility": 0.8571428571428572,
        "record_level_squared_error": 0.675237538068364,
        "sse_sst": 0.8666666666666667,
    }
    assert_figures(figures(q), want, 1e-12)
    top = pa.quality(data, ["a", "b", "c"], hs, {"a": 1, "b": 2, "c": 1})
    assert_figures(
        figures(top),
        {
            "b.missings": 1.0,  # the root "ANY" counts as missing
            "c.missings": 1.0,
            "a.generalization_intensity": 0.5,
            "a.granularity": 0.6666666666666666,
            "a.non_uniform_entropy": 0.579380164285695,
            "a.squared_error": 0.7777777777777778,
            **{f"b.{m}": 0.0 for m in ATTRIBUTE if m != "missings"},
            "sse_sst": 0.0,  # SSE > SST: clamped
        },
        1e-12,
    )


@pytest.mark.parametrize("null", [None, "NULL"])
def test_null_counts_as_missing(null: str | None) -> None:
    # (d): a null (nulls="value") or the string "NULL" is missing; a's fixed
    # table is ARX's for `1;low`, `2;low`, `3;high` (two roots, "*" appended)
    data = pl.DataFrame({"a": [1, 2, 2, 3], "b": [null, "x", "y", "x"]})
    hs = {
        "a": H([["1", "low", "*"], ["2", "low", "*"], ["3", "high", "*"]]),
        "b": H([["NULL", "n", "*"], ["x", "xy", "*"], ["y", "xy", "*"]]),
    }
    q = pa.quality(data, ["a", "b"], hs, {"a": 1, "b": 0}, nulls="value")
    assert_figures(
        figures(q),
        {
            "a.generalization_intensity": 0.5,
            "a.granularity": 0.625,
            "a.non_uniform_entropy": 0.5408520829727552,
            "a.squared_error": 0.7,
            "b.missings": 0.25,
            "ambiguity": 0.90625,
            "record_level_squared_error": 0.6557570981795586,
            "sse_sst": 0.8,
        },
        1e-12,
    )


def test_beyond_the_budget_is_refused_as_generalize_refuses_it() -> None:
    # ARX would still report this release (its outlier suppressed); a
    # polars-anon release at these levels does not exist
    with pytest.raises(pa.NotAnonymousError) as ours:
        example(k=2)
    with pytest.raises(pa.NotAnonymousError) as theirs:
        pa.generalize(EXAMPLE, {"age": AGE, "sex": SEX}, {"age": 1, "sex": 0}, k=2).collect()
    assert str(ours.value) == str(theirs.value)


def test_prints_aligned_and_as_html() -> None:
    q = example(k=2, max_suppression=1)
    text = str(q)
    assert repr(q) == text
    assert "gen. intensity" in text and "0.4167" in text and "n/a" not in text
    assert max(len(line) for line in text.splitlines()) <= 100
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.strip().startswith("attribute "))
    # the figures' columns end at the same place on every row
    ends = {len(line.rstrip()) for line in lines[header : header + 4]}
    assert len(ends) == 1, lines[header : header + 4]
    html = q._repr_html_()
    assert html.startswith("<div>") and "<th>non-uniform entropy</th>" in html
    assert "0.4787" in html
    everything = example(levels={"age": 0, "sex": 0}, k=6, max_suppression=6)
    assert "n/a" in str(everything)


# -- ARX 3.9.2's own figures for Adult ------------------------------------


@pytest.fixture(scope="module")
def adult() -> tuple[pl.DataFrame, dict[str, pa.Hierarchy]]:
    lf, hs = pa.datasets.adult()
    return lf.collect(), hs


def arx_jobs() -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = json.loads(ARX_FIGURES.read_text(encoding="utf8"))["results"]
    return results


def arx_figures(job: dict[str, Any]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for attr, values in job["attributes"].items():
        out |= {f"{attr}.{m}": values[m] for m in ATTRIBUTE}
    out |= {m: job[m] for m in DATASET}
    out |= {f"mean.{m}": v for m, v in job["means"].items()}
    return out


def arguments(job: dict[str, Any], rows: int) -> tuple[list[str], Any, Any]:
    """A job's quasi-identifiers, max_suppression (ARX's 100% is every row)
    and criteria."""
    criteria = None
    if job["l_diversity"] != "-":
        attr, level = job["l_diversity"].split("=")
        criteria = [pa.DistinctLDiversity(int(level), attr)]
    limit = job["suppression_limit"]
    return list(job["levels"]), rows if limit == 1.0 else limit, criteria


def test_the_reference_says_how_it_was_made() -> None:
    meta = json.loads(ARX_FIGURES.read_text(encoding="utf8"))
    assert meta["arx"]["version"] == "3.9.2"
    assert (Path(__file__).parent.parent / meta["driver"]).is_file()
    jobs = arx_jobs()
    # 20 random nodes with nothing suppressed, 20 with suppression
    assert sum(j["name"] == "k1" and j["suppressed"] == 0 for j in jobs) == 20
    assert sum(j["name"] == "k5_limit5" and j["anonymity"] == "ANONYMOUS" for j in jobs) == 20
    assert sum(j["suppressed"] > 0 for j in jobs if j["name"] == "k5_limit5") >= 15


def test_equals_arx_on_adult(adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> None:
    df, hs = adult
    prepared: dict[tuple[str, str], Any] = {}
    compared = refused = 0
    for job in arx_jobs():
        qis, budget, criteria = arguments(job, df.height)
        key = (job["types"], job["l_diversity"])
        if key not in prepared:
            # ARX's default type for age (String) where the job did not declare Integer
            data = df if job["types"] == "age=int" else df.with_columns(pl.col("age").cast(str))
            sensitive = [c.attribute for c in criteria or []]
            prepared[key] = prepare(data, qis, hs, sensitive)
        levels = [job["levels"][q] for q in qis]
        if job["anonymity"] != "ANONYMOUS" and job["suppression_limit"] < 1.0:
            with pytest.raises(pa.NotAnonymousError):
                quality_prepared(prepared[key], levels, job["k"], budget, criteria)
            refused += 1
            continue
        q = quality_prepared(prepared[key], levels, job["k"], budget, criteria)
        assert q.suppressed == job["suppressed"], job["levels"]
        assert_figures(figures(q), arx_figures(job), 1e-9)
        compared += 1
    assert (compared, refused) == (69, 4)


def test_duckdb_lazy_and_counts_give_the_same_figures(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    pytest.importorskip("duckdb")
    df, hs = adult
    jobs = [j for j in arx_jobs() if j["name"] in ("k5_limit5", "edge_all_suppressed")]
    jobs = [j for j in jobs if j["anonymity"] == "ANONYMOUS"][:2] + jobs[-1:]
    relation, _ = pa.datasets.adult(engine="duckdb")
    # counts with the columns' own types (pa.frequency_set's are text: ARX
    # String)
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    counts = pa.FrequencySet.from_counts(df.group_by(qis).len(), count="len")
    for job in jobs:
        qis, budget, _ = arguments(job, df.height)
        want = arx_figures(job)
        for data in (relation, df.lazy(), counts):
            q = pa.quality(data, qis, hs, job["levels"], k=job["k"], max_suppression=budget)
            assert q.suppressed == job["suppressed"]
            assert q.data_types["age"] == "Integer"
            assert_figures(figures(q), want, 1e-9)


def test_a_search_on_duckdb_is_measured_on_its_raw_values(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    # a search on DuckDB groups F0 at floor levels; its quality regroups
    pytest.importorskip("duckdb")
    df, hs = adult
    qis = ["age", "sex", "race", "marital-status"]
    relation, _ = pa.datasets.adult(engine="duckdb")
    result = pa.search(relation, qis, hs, 50, 0.01, progress=False)
    levels = result.best("min_loss")
    prep = result._prep
    assert prep.floors is not None and any(prep.floors[0])
    got = quality_prepared(prep, prep.levels(levels), 50, 0.01)
    want = pa.quality(df, qis, hs, levels, k=50, max_suppression=0.01)
    assert want.suppressed > 0
    assert got.suppressed == want.suppressed
    assert_figures(figures(got), figures(want), 1e-12)


def test_a_result_and_a_check_report_measure_the_release_they_describe(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    qis = ["sex", "age", "race", "education"]
    r = pa.search(df, qis, hs, 5, 0.05, progress=False)
    levels = r.best("min_loss")
    want = pa.quality(df, qis, hs, levels, k=5, max_suppression=0.05)
    for got in (r.quality(levels), pa.check(df, qis, 5, hs, levels, 0.05).quality()):
        assert got.attributes.equals(want.attributes)
        assert (got.aecs, got.discernibility, got.sse_sst) == (
            want.aecs,
            want.discernibility,
            want.sse_sst,
        )
