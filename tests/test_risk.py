"""Re-identification risk: hand-computed tables, plain-Polars recomputation on
Adult, population tables, the population models' limiting cases, errors."""

from __future__ import annotations

import polars as pl
import pytest

import polars_anon as pa
from tests.conftest import brute_counts

QIS = ["age", "sex", "race", "marital-status"]


@pytest.fixture(scope="module")
def adult() -> tuple[pl.DataFrame, dict[str, pa.Hierarchy]]:
    lf, hs = pa.datasets.adult()
    return lf.collect(), hs


def test_hand_computed_table() -> None:
    # classes: 537 x3, 541 x2, 600 x1  -> n = 6, u = 3
    df = pl.DataFrame({"zip": ["537", "537", "537", "541", "541", "600"]})
    r = pa.risk(df, ["zip"], threshold=0.4)
    assert (r.records, r.classes) == (6, 3)
    assert r.highest_prosecutor_risk == 1.0
    assert r.average_prosecutor_risk == pytest.approx(3 / 6)
    # risks 1/3, 1/2, 1: above 0.4 are the classes of 2 and 1 (3 records)
    assert r.records_at_risk == pytest.approx(3 / 6)
    assert r.classes_at_risk == pytest.approx(2 / 3)
    assert r.sample_uniques == pytest.approx(1 / 6)
    assert r.marketer_risk == pytest.approx(3 / 6)
    assert r.population_model == "census"
    assert r.population_uniques == pytest.approx(1 / 6)
    h = r.histogram
    assert h.get_column("class_size").to_list() == [1, 2, 3]
    assert h.get_column("records").to_list() == [1, 2, 3]
    assert h.get_column("share_at_this_risk_or_above").to_list() == pytest.approx(
        [1 / 6, 3 / 6, 1.0]
    )


def test_hierarchy_levels_hand_computed() -> None:
    lf, hs = pa.datasets.patients()
    frame = lf.collect()
    # at Sex=1 every patient is a Person: classes are Zipcode's
    zips = frame.group_by("Zipcode").len().get_column("len")
    r = pa.risk(frame, ["Sex", "Zipcode"], hs, levels={"Sex": 1})
    assert r.classes == zips.len()
    assert r.highest_prosecutor_risk == pytest.approx(1 / zips.min())  # type: ignore[operator]
    assert r.levels == {"Sex": 1, "Zipcode": 0}


@pytest.mark.parametrize(
    "node", [(0, 0, 0, 0), (1, 0, 0, 0), (2, 1, 1, 1), (1, 1, 0, 2), (4, 1, 1, 2)]
)
def test_agrees_with_plain_polars_on_adult(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], node: tuple[int, ...]
) -> None:
    frame, hs = adult
    sizes = brute_counts(frame, QIS, hs, node).cast(pl.Float64)
    n = float(sizes.sum())
    r = pa.risk(frame, QIS, hs, levels=dict(zip(QIS, node, strict=True)))
    assert r.records == frame.height
    assert r.highest_prosecutor_risk == pytest.approx(1 / sizes.min())  # type: ignore[operator]
    assert r.average_prosecutor_risk == pytest.approx(sizes.len() / n)
    assert r.records_at_risk == pytest.approx(float(sizes.filter(1 / sizes > 0.2).sum()) / n)
    assert r.classes_at_risk == pytest.approx((1 / sizes > 0.2).sum() / sizes.len())
    assert r.sample_uniques == pytest.approx((sizes == 1).sum() / n)
    assert r.marketer_risk == pytest.approx(sizes.len() / n)
    assert int(r.histogram.get_column("records").sum()) == frame.height


def test_population_table_journalist_and_marketer(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    frame, hs = adult
    sample = frame.gather_every(5)
    node = {"age": 1, "sex": 0, "race": 1, "marital-status": 1}
    r = pa.risk(sample, QIS, hs, levels=node, population=frame.lazy())
    lv = [node[q] for q in QIS]

    def classes(f: pl.DataFrame) -> pl.DataFrame:
        exprs = []
        for q, lvl in zip(QIS, lv, strict=True):
            mapping = dict(zip(hs[q].leaves, hs[q].leaf_labels(lvl), strict=True))
            exprs.append(pl.col(q).cast(pl.String).replace_strict(mapping))
        return f.select(exprs).group_by(QIS).len()

    s, p = classes(sample), classes(frame)
    j = s.join(p, on=QIS, suffix="_pop")
    f, big = j.get_column("len").cast(pl.Float64), j.get_column("len_pop").cast(pl.Float64)
    assert r.highest_journalist_risk == pytest.approx(1 / big.min())  # type: ignore[operator]
    assert r.marketer_risk == pytest.approx(float((f / big).sum()) / sample.height)
    assert r.journalist_records_at_risk == pytest.approx(
        float(f.filter(1 / big > 0.2).sum()) / sample.height
    )
    assert r.population_size == frame.height
    assert r.sampling_fraction == pytest.approx(sample.height / frame.height)
    assert r.population_model == "population table"
    pop_sizes = p.get_column("len")
    assert r.population_uniques == pytest.approx((pop_sizes == 1).sum() / frame.height)


def test_population_size_and_dankars_rule(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    frame, hs = adult
    small = pa.risk(frame, QIS, hs, population=100 * frame.height)
    assert small.sampling_fraction == pytest.approx(0.01)
    assert small.population_model == "pitman"
    assert small.population_uniques == small.estimates["pitman"]
    # each class of f sample records stands for f / pi in the population
    assert small.highest_journalist_risk == pytest.approx(0.01 / 1)
    large = pa.risk(frame, QIS, hs, population=2 * frame.height)
    z, s = large.estimates["zayatz"], large.estimates["snb"]
    assert z is not None
    assert large.population_model in ("zayatz", "snb")
    assert large.population_uniques == (s if s is not None and s < z else z)
    # estimates are shares of the population, below the sample's own share
    # of uniques scaled to the population
    for v in large.estimates.values():
        assert v is None or 0 <= v <= 1
    # the whole population given: the sample's uniques, no model
    whole = pa.risk(frame, QIS, hs, population=frame.height)
    assert whole.population_model == "census"
    assert whole.population_uniques == whole.sample_uniques


def test_pitmans_fit_with_its_maximum_on_the_edge_alpha_zero_is_ewens() -> None:
    # class sizes of 5,000 uniform draws (ages 18-89, two sexes, 30 ZIPs):
    # ln L rises towards alpha = 0, so Pitman's maximum is Ewens' model
    # (alpha = 0), whose theta solves u / theta = sum_{i<n} 1 / (theta + i);
    # the fit once stopped at alpha ~ 0 with theta still moving (0.0583)
    sizes = {1: 1589, 2: 959, 3: 330, 4: 94, 5: 19, 6: 3, 7: 2}
    each = [size for size, many in sizes.items() for _ in range(many)]
    rows = [f"c{i}" for i, size in enumerate(each) for _ in range(size)]
    df = pl.DataFrame({"q": rows})
    n, u, population = df.height, len(each), 50_000
    assert n == 5000

    def excess(theta: float) -> float:
        return u / theta - sum(1 / (theta + i) for i in range(n))

    lo, hi = 1.0, 1e6
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
    theta = (lo + hi) / 2
    # Ewens: N theta / (theta + N - 1) classes of one among N, as a share
    want = theta / (theta + population - 1)
    r = pa.risk(df, ["q"], population=population)
    assert r.population_model == "pitman"  # sampling fraction 0.1
    assert r.estimates["pitman"] == pytest.approx(want, rel=1e-9)
    assert r.population_uniques == pytest.approx(0.059333, abs=1e-6)


def test_no_sample_uniques_means_no_population_uniques() -> None:
    df = pl.DataFrame({"zip": ["1", "1", "2", "2", "2"]})
    r = pa.risk(df, ["zip"], population=1_000_000)
    assert r.population_model == "none (no sample uniques)"
    assert r.population_uniques == 0.0


def test_check_report_risk_is_the_releases(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    frame, hs = adult
    levels = {"age": 1, "sex": 0, "race": 0, "marital-status": 1}
    report = pa.check(frame, QIS, 10, hs, levels=levels, max_suppression=0.05)
    assert report.k_anonymous and report.suppressed > 0
    release = pa.generalize(
        frame, hs, levels, k=10, max_suppression=0.05, quasi_identifiers=QIS
    ).collect()
    via_check = report.risk()
    via_release = pa.risk(release, QIS)
    assert via_check.records == release.height == frame.height - report.suppressed
    assert via_check.highest_prosecutor_risk == via_release.highest_prosecutor_risk <= 1 / 10
    assert via_check.average_prosecutor_risk == pytest.approx(via_release.average_prosecutor_risk)
    assert via_check.histogram.equals(via_release.histogram)
    # and the namespace
    assert frame.anon.risk(QIS, hs, levels=levels).classes == report.groups


def test_criteria_suppression_is_left_out() -> None:
    df = pl.DataFrame(
        {"zip": ["1"] * 3 + ["2"] * 3, "disease": ["flu", "cold", "flu", "flu", "flu", "flu"]}
    )
    report = pa.check(df, ["zip"], 2, max_suppression=3, criteria=pa.PSensitive(2, "disease"))
    # zip 2 has one disease: suppressed although of size 3
    assert report.suppressed == 3
    assert report.risk().records == 3 and report.risk().classes == 1


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"threshold": 0}, "threshold"),
        ({"threshold": 1.5}, "threshold"),
        ({"threshold": "high"}, "threshold"),
        ({"population": 3}, "population"),
        ({"population": "many"}, "population"),
        ({"population": pl.DataFrame({"other": ["1"]})}, "no column"),
        ({"population": pl.DataFrame({"zip": ["537", "541"]})}, "not in the population"),
    ],
)
def test_bad_parameters_are_named(kwargs: dict[str, object], match: str) -> None:
    df = pl.DataFrame({"zip": ["537", "537", "541", "600"]})
    with pytest.raises(pa.ConfigError, match=match):
        pa.risk(df, ["zip"], **kwargs)  # type: ignore[arg-type]


def test_population_values_outside_the_hierarchy() -> None:
    lf, hs = pa.datasets.patients()
    frame = lf.collect()
    population = pl.concat(
        [
            frame,
            frame.head(1).with_columns(
                pl.lit(99999).cast(frame.schema["Zipcode"]).alias("Zipcode")
            ),
        ]
    )
    with pytest.raises(pa.MissingValueError, match=r"Zipcode.*99999"):
        pa.risk(frame, ["Zipcode"], hs, levels={"Zipcode": 1}, population=population)


def test_empty_table_is_refused() -> None:
    with pytest.raises(pa.ConfigError, match="empty"):
        pa.risk(pl.DataFrame({"zip": pl.Series([], dtype=pl.String)}), ["zip"])


def test_report_reads_in_a_terminal_and_a_notebook(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    frame, hs = adult
    r = pa.risk(frame, QIS, hs, population=1_000_000)
    text = repr(r)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "highest prosecutor risk" in text and "pitman" in text
    assert "-0.00" not in text
    assert "<table>" in r._repr_html_()


def test_a_release_is_read_as_it_is_nulls_and_all() -> None:
    """Without hierarchies the table's values are the classes: the report
    names no levels, and a null (which a release made with nulls='value'
    keeps in a column at its leaves) is a value of its own, unless
    nulls='error' asks otherwise; with hierarchies nulls stay an error."""
    table = pl.DataFrame({"q": ["a", None, "a", None, "b"], "r": ["x"] * 5})
    r = pa.risk(table, ["q", "r"])
    assert (r.records, r.classes, r.sample_uniques) == (5, 3, 0.2)
    assert "levels                   q=0  r=0  (as is)" in repr(r)
    with pytest.raises(pa.MissingValueError, match="null"):
        pa.risk(table, ["q", "r"], nulls="error")
    hs = {"q": pa.Hierarchy.from_rows([["a", "*"], ["b", "*"]])}
    with pytest.raises(pa.MissingValueError, match="null"):
        pa.risk(table, ["q"], hs)
    generalized = pa.risk(table, ["q"], hs, levels={"q": 1}, nulls="value")
    assert generalized.classes == 1 and "levels                   q=1\n" in repr(generalized)


def test_a_population_is_mapped_through_its_own_values() -> None:
    """A population holds values its sample does not: with a large hierarchy
    (cup's ZIP codes, mapped through the leaves a table holds) they are
    labelled too, and the classes are those counted in plain Polars."""
    lf, hs = pa.datasets.cup()
    frame = lf.collect()
    qis = ["ZIP", "GENDER"]
    sample = frame.gather_every(50)
    assert frame.get_column("ZIP").n_unique() > sample.get_column("ZIP").n_unique()
    node = {"ZIP": 2, "GENDER": 0}
    r = pa.risk(sample, qis, hs, levels=node, population=frame.lazy())
    mapping = dict(zip(hs["ZIP"].leaves, hs["ZIP"].leaf_labels(2), strict=True))

    def classes(f: pl.DataFrame) -> pl.DataFrame:
        return f.select(pl.col("ZIP").replace_strict(mapping), "GENDER").group_by(qis).len()

    j = classes(sample).join(classes(frame), on=qis, suffix="_pop")
    big = j.get_column("len_pop").cast(pl.Float64)
    assert r.highest_journalist_risk == pytest.approx(1 / big.min())  # type: ignore[operator]
    assert r.population_size == frame.height


def test_a_population_table_on_duckdb_as_a_number_of_numpy_and_with_nulls() -> None:
    import duckdb
    import numpy as np

    df = pl.DataFrame({"age": [20, 20, 30, 30, 40], "sex": list("MFMFM")})
    pop = pl.concat([df, df, pl.DataFrame({"age": [50], "sex": ["F"]})])
    on_polars = pa.risk(df, ["age", "sex"], population=pop)
    # counted by hand: 11 records, one of them alone in its class
    assert on_polars.population_uniques == pytest.approx(1 / 11)
    con = duckdb.connect()
    con.register("pop", pop.to_arrow())
    on_duckdb = pa.risk(df, ["age", "sex"], population=con.sql("select * from pop"))
    assert on_duckdb.population_uniques == on_polars.population_uniques
    assert on_duckdb.highest_journalist_risk == on_polars.highest_journalist_risk == 0.5
    assert pa.risk(df, ["age", "sex"], population=np.uint64(50)).population_size == 50
    # a population's nulls are refused as the table's are, unless they are a
    # value (without hierarchies, by default)
    holes = pop.with_columns(pl.when(pl.col("age") == 50).then(None).otherwise("sex").alias("sex"))
    with pytest.raises(pa.MissingValueError, match="population's column sex holds null"):
        pa.risk(df, ["age", "sex"], population=holes, nulls="error")
    for nulls in ("value", None):
        assert pa.risk(df, ["age", "sex"], population=holes, nulls=nulls).population_uniques == (
            pytest.approx(1 / 11)
        )


def test_a_table_on_duckdb_against_a_population_counts_its_records(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    """On DuckDB the table's classes were counted from its F0, each distinct
    row once: 379 records where the table had 600; every figure as on Polars."""
    import duckdb

    frame, hs = adult
    sample = frame.gather_every(5).select(QIS)
    node = {"age": 1, "sex": 0, "race": 1, "marital-status": 1}
    on_polars = pa.risk(sample, QIS, hs, levels=node, population=frame.lazy())
    rel = duckdb.connect().from_arrow(sample.to_arrow())
    on_duckdb = pa.risk(rel, QIS, hs, levels=node, population=frame.lazy())
    assert on_duckdb.records == on_polars.records == sample.height
    for figure in (
        "marketer_risk",
        "highest_journalist_risk",
        "journalist_records_at_risk",
        "sampling_fraction",
        "population_uniques",
        "average_prosecutor_risk",
        "sample_uniques",
    ):
        assert getattr(on_duckdb, figure) == pytest.approx(getattr(on_polars, figure)), figure


def test_a_table_on_duckdb_with_negative_zeros_against_a_population() -> None:
    """DuckDB groups -0.0 with 0.0: the table's classes did, the
    population's (read by Polars) did not, and a class of the table was
    'not in the population'. The population is read as the table was."""
    import duckdb

    zeros = [0.0, -0.0, 1.5] * 20
    base = pl.DataFrame({"f": zeros, "age": [20 + i % 3 for i in range(60)]})
    pop = pl.concat([base, base, base.head(7)])
    rel = duckdb.connect().from_arrow(base.to_arrow())
    on_duckdb = pa.risk(rel, ["f", "age"], population=pop)
    folded = [pl.col("f").abs().alias("f"), pl.col("age")]
    want = pa.risk(base.select(folded), ["f", "age"], population=pop.select(folded))
    assert on_duckdb.records == want.records == 60
    assert on_duckdb.marketer_risk == pytest.approx(want.marketer_risk)
    assert on_duckdb.population_uniques == pytest.approx(want.population_uniques)
