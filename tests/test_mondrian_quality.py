"""`MondrianResult.quality` (issue #32): ARX's quality measures of a Mondrian
release, each record's input value against its output cell. The expected
figures are worked out here from the definitions (in
`polars_anon.utility.mondrian_quality`) on the release `apply` makes, with
plain Python, not by calling the code under test."""

from __future__ import annotations

import math
from collections import Counter

import polars as pl
import pytest

import polars_anon as pa

ZIPS = pa.Hierarchy.from_rows(
    [
        ["1301", "130*", "*"],
        ["1302", "130*", "*"],
        ["1401", "140*", "*"],
        ["1402", "140*", "*"],
        ["1501", "150*", "*"],  # in no record: D = 5 all the same
    ]
)
# the hierarchy table's rows, the numbers ARX's String type reads values as
ZIP_ROWS = {"1301": (0, 0), "1302": (1, 1), "1401": (2, 2), "1402": (3, 3), "1501": (4, 4)}
ZIP_ROWS |= {"130*": (0, 1), "140*": (2, 3), "*": (0, 4)}


def bounds(label: str) -> tuple[float, float]:
    """A released range ``[lo-hi]`` (or one value) as numbers."""
    if label.startswith("["):
        lo, hi = label[1:-1].split("-")
        return float(lo), float(hi)
    return float(label), float(label)


def released(result: pa.MondrianResult, df: pl.DataFrame) -> list[tuple[str, ...]]:
    """Each record's input values and output cells, in `qis` order:
    (input_0, ..., output_0, ...)."""
    qis = result.quasi_identifiers
    out = result.apply().collect()
    inputs = df.select(pl.col(q).cast(pl.String) for q in qis)
    return [(*a, *b) for a, b in zip(inputs.rows(), out.select(qis).rows(), strict=True)]


def numbers_rlse_sse(records: list[list[tuple[float, float, float]]]) -> tuple[float, float]:
    """ARX's record-level squared error and SSE/SST figures, plain: each
    record a list, per attribute, of (input x, output lo, output hi)."""
    n = len(records)
    stats = []  # per attribute: mean, population sd, least and most number
    for j in range(len(records[0])):
        xs = [r[j][0] for r in records]
        mean = sum(xs) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / n)
        stats.append((mean, sd, min(min(r[j]) for r in records), max(max(r[j]) for r in records)))
    real = far = sse = sst = 0.0
    for r in records:
        terms = [0.0, 0.0]
        for (x, lo, hi), (mean, sd, least, most) in zip(r, stats, strict=True):
            sse += (x - (lo + hi) / 2) ** 2
            sst += ((lo + hi) / 2 - mean) ** 2
            end = hi if hi - x > x - lo else lo  # the end farther from x
            edge = most if most - x > x - least else least
            terms[0] += ((x - end) / sd) ** 2 if sd else 0.0
            terms[1] += ((x - edge) / sd) ** 2 if sd else 0.0
        real += math.sqrt(terms[0])
        far += math.sqrt(terms[1])
    return 1 - real / far, 1 - sse / sst


# -- (1) a tiny table, by hand -------------------------------------------------

TINY = pl.DataFrame(
    {
        "age": [21, 27, 26, 27, 31, 31, 33, 35],
        "zip": ["1401", "1401", "1301", "1302", "1402", "1302", "1301", "1302"],
    }
)


def test_a_tiny_release_by_hand() -> None:
    result = pa.mondrian(TINY, ["age", "zip"], k=2, hierarchies={"zip": ZIPS})
    rows = released(result, TINY)
    # the partitions: ranges (one a single value) and nodes at levels 0, 1, 2
    assert [r[2:] for r in rows] == [
        ("[21-27]", "1401"),
        ("[21-27]", "1401"),
        ("[26-27]", "130*"),
        ("[26-27]", "130*"),
        ("31", "*"),
        ("31", "*"),
        ("[33-35]", "130*"),
        ("[33-35]", "130*"),
    ]
    q = result.quality()
    figures = dict(zip(q.attributes.columns, q.attributes.rows()[0], strict=True))
    zips = dict(zip(q.attributes.columns, q.attributes.rows()[1], strict=True))
    assert q.records == 8 and q.suppressed == 0 and q.levels == {}

    # granularity. age: W = 35 - 21 = 14; shares 6/14, 1/14, 0 (31 is [31, 31])
    # and 2/14, two records each; min 0, max 1
    assert figures["granularity"] == pytest.approx(1 - 2 * (6 + 1 + 0 + 2) / 14 / 8)
    # zip: D = 5; 1401 1/5, 130* 2/5 (four records), * 5/5; min 1/5, max 1
    share = (2 * 1 / 5 + 4 * 2 / 5 + 2 * 1) / 8
    assert zips["granularity"] == pytest.approx(1 - (share - 1 / 5) / (1 - 1 / 5))
    # ... which is 1 - the core's cell-level loss
    assert figures["granularity"] == pytest.approx(1 - result.attribute_loss["age"])
    assert zips["granularity"] == pytest.approx(1 - result.attribute_loss["zip"])

    # generalization intensity: zip's levels 0, 1, 2 over the height 2; a
    # range has no level
    assert figures["generalization_intensity"] is None
    assert zips["generalization_intensity"] == pytest.approx(1 - (2 * 0 + 4 * 1 + 2 * 2) / 2 / 8)

    # missings: the two records released as zip's root
    assert figures["missings"] == 0 and zips["missings"] == pytest.approx(2 / 8)

    # non-uniform entropy: -log2(records of the raw value in the cell /
    # records of the cell). age: 21, 27 | 26, 27 | 31, 31 | 33, 35: 1 bit
    # each but the 31s; max: -sum log2(count(raw) / 8): four values once (3
    # bits), 27 and 31 twice (2 bits)
    assert figures["non_uniform_entropy"] == pytest.approx(1 - 6 / (4 * 3 + 4 * 2))
    # zip: 1401 1401 | 1301 1302 1301 1302 | 1402 1302: 0, 4 x 1, 2 x 1 bits;
    # counts 1401: 2, 1301: 2, 1302: 3, 1402: 1
    top = -(4 * math.log2(2 / 8) + 3 * math.log2(3 / 8) + math.log2(1 / 8))
    assert zips["non_uniform_entropy"] == pytest.approx(1 - 6 / top)

    # squared error: the larger squared distance from x to the cell's ends,
    # capped at the larger to the input's [min, max]; max: the caps.
    # age 21 27 26 27 31 31 33 35 in [21,27] [21,27] [26,27] [26,27] 31 31 [33,35] [33,35]
    raw = 36 + 36 + 1 + 1 + 0 + 0 + 4 + 4
    caps = 196 + 64 + 81 + 64 + 100 + 100 + 144 + 196
    assert figures["squared_error"] == pytest.approx(1 - raw / caps)
    # zip as rows: 2 2 0 1 3 1 0 1 in (2,2) (2,2) (0,1) (0,1) (0,4) (0,4) (0,1) (0,1),
    # the inputs' [min, max] = [0, 3]
    raw = 0 + 0 + 1 + 1 + min(9, 9) + min(9, 4) + 1 + 1
    caps = 4 + 4 + 9 + 4 + 9 + 4 + 9 + 4
    assert zips["squared_error"] == pytest.approx(1 - raw / caps)

    # ambiguity: per record, the values each cell may stand for: age's of the
    # table's {21, 26, 27, 31, 33, 35} within the range (3, 2, 1, 2), zip's
    # leaves (1, 2, 5, 2); min N, max N * 6 * 5
    raw = 2 * (3 * 1) + 2 * (2 * 2) + 2 * (1 * 5) + 2 * (2 * 2)
    assert q.ambiguity == pytest.approx(1 - (raw - 8) / (8 * 6 * 5 - 8))

    # AECS and discernibility: 4 groups of 2, 8 distinct input tuples
    assert q.aecs == pytest.approx(1 - (8 / 4 - 8 / 8) / (8 - 8 / 8))
    assert q.discernibility == pytest.approx(1 - (4 * 2**2 - 8) / (8**2 - 8))

    # record-level squared error and SSE/SST, over both attributes as numbers
    records = [
        [(float(a), *bounds(b)), (float(ZIP_ROWS[z][0]), *map(float, ZIP_ROWS[c]))]
        for a, z, b, c in rows
    ]
    rlse, sse_sst = numbers_rlse_sse(records)
    assert q.record_level_squared_error == pytest.approx(rlse)
    assert q.sse_sst == pytest.approx(sse_sst)

    # the report says which figures it lacks, and that there are no levels
    text = str(q)
    assert "none: a cell per partition (Mondrian)" in text
    assert "n/a" in text and "n/a" in q._repr_html_()


# -- (2) where Mondrian's cells are a full-domain node's ------------------------


@pytest.mark.parametrize(("k", "level"), [(1, 0), (4, 1), (7, 2)])
def test_cells_of_one_level_agree_with_full_domain(k: int, level: int) -> None:
    # zip's four values three times each; x is constant (two attributes, so
    # ARX's heuristic, every output alike = suppressed, does not touch a
    # full-domain row with one attribute)
    df = pl.DataFrame({"zip": ["1301", "1302", "1401", "1402"] * 3, "x": ["x"] * 12})
    hs = {"zip": ZIPS, "x": pa.Hierarchy.from_rows([["x", "*"]])}
    result = pa.mondrian(df, ["zip", "x"], k, hs)
    # every final cell is at `level`: the classes of the node (level, 0)
    cells = set(result.groups.get_column("zip"))
    assert cells <= set(ZIPS.leaf_labels(level))
    assert set(result.groups.get_column("x")) == {"x"}
    ours = result.quality()
    arx = pa.quality(df, ["zip", "x"], hs, {"zip": level, "x": 0})
    shared = [
        "generalization_intensity",
        "granularity",
        "non_uniform_entropy",
        "missings",
        "squared_error",
    ]
    for m in shared:
        a, b = ours.attributes.get_column(m).to_list(), arx.attributes.get_column(m).to_list()
        assert a == pytest.approx(b), m
    for m in ["ambiguity", "aecs", "discernibility", "record_level_squared_error", "sse_sst"]:
        assert getattr(ours, m) == pytest.approx(getattr(arx, m)), m
    # x has one value: its granularity and entropy are None in both (ARX's
    # 0 / 0), where the core's loss is 0
    x = ours.attributes.row(1, named=True)
    assert x["granularity"] is None and x["non_uniform_entropy"] is None
    assert result.attribute_loss["x"] == 0


# -- (3) Adult -----------------------------------------------------------------


def expected_aecs(records: int, classes: int, inputs: int) -> float:
    """ARX's AECS figure: raw N / classes, min N / input tuples, max N."""
    return 1 - (records / classes - records / inputs) / (records - records / inputs)


@pytest.mark.parametrize("given", [True, False])
def test_adult(adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], given: bool) -> None:
    df, hs = adult
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    result = pa.mondrian(df, qis, 5, hs if given else None)
    q = result.quality()
    n = df.height
    assert q.records == n and q.suppressed == 0
    for r in q.attributes.iter_rows(named=True):
        kind = result.kinds[r["attribute"]]
        assert r["granularity"] == pytest.approx(1 - result.attribute_loss[r["attribute"]])
        assert (r["generalization_intensity"] is None) == (kind != "hierarchy")
        for m in ("generalization_intensity", "granularity", "non_uniform_entropy"):
            assert r[m] is None or 0 <= r[m] <= 1
        assert 0 <= r["missings"] <= 1 and 0 <= r["squared_error"] <= 1
    for m in ("ambiguity", "aecs", "discernibility", "record_level_squared_error", "sse_sst"):
        assert 0 <= getattr(q, m) <= 1, m
    inputs = df.select(qis).unique().height
    assert q.aecs == pytest.approx(expected_aecs(n, result.partitions, inputs))
    # discernibility: the partitions' sizes squared, min the input tuples'
    sizes = result.groups.get_column(result.groups.columns[-1]).cast(pl.Float64)
    given_sizes = df.group_by(qis).len().get_column("len").cast(pl.Float64)
    low = float((given_sizes**2).sum())
    assert q.discernibility == pytest.approx(1 - (float((sizes**2).sum()) - low) / (n * n - low))


def test_adult_relaxed(adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> None:
    df, hs = adult
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    result = pa.mondrian(df, qis, 5, hs, mode="relaxed")
    q = result.quality()
    for r in q.attributes.iter_rows(named=True):
        assert r["granularity"] == pytest.approx(1 - result.attribute_loss[r["attribute"]])
    # the classes: the release's groups of cells (two partitions with the
    # same cells one group)
    groups = result.apply().collect().group_by(qis).len().height
    assert groups <= result.partitions
    inputs = df.select(qis).unique().height
    assert q.aecs == pytest.approx(expected_aecs(df.height, groups, inputs))


# -- relaxed: a value divided between two cells ------------------------------------


def test_relaxed_value_divided_between_cells() -> None:
    ages = pl.DataFrame({"age": [30, 30, 30, 31, 40, 40, 41]})
    result = pa.mondrian(ages, ["age"], k=2, mode="relaxed")
    out = result.apply().collect().get_column("age").to_list()
    assert out == ["30", "30", "30", "[31-40]", "[31-40]", "[40-41]", "[40-41]"]
    r = result.quality().attributes.row(0, named=True)
    # W = 11: shares 0 (x3), 9/11 (x2), 1/11 (x2)
    assert r["granularity"] == pytest.approx(1 - (2 * 9 / 11 + 2 * 1 / 11) / 7)
    assert r["granularity"] == pytest.approx(1 - result.attribute_loss["age"])
    # 40 is one of two records in each of its cells: 1 bit each, as are 31
    # and 41; max over the counts 30: 3, 31: 1, 40: 2, 41: 1
    counts = Counter([30, 30, 30, 31, 40, 40, 41])
    top = -sum(c * math.log2(c / 7) for c in counts.values())
    assert r["non_uniform_entropy"] == pytest.approx(1 - 4 / top)
    # AECS: 3 groups, 4 distinct input values
    q = result.quality()
    assert q.aecs == pytest.approx(expected_aecs(7, 3, 4))


def test_a_one_value_domain_has_no_granularity() -> None:
    # the core costs a cell of a one-value domain 0; granularity's
    # normalization is 0 / 0 there (ARX's, and `pa.quality`'s for a constant
    # column): None, for a range as for a set
    df = pl.DataFrame({"n": [7] * 4, "s": ["a"] * 4, "v": [1, 2, 3, 4]})
    result = pa.mondrian(df, ["n", "s", "v"], k=2)
    assert result.kinds == {"n": "numeric", "s": "set", "v": "numeric"}
    q = result.quality().attributes
    assert q.get_column("granularity").to_list()[:2] == [None, None]
    assert result.attribute_loss["n"] == 0 and result.attribute_loss["s"] == 0
    assert q.item(2, "granularity") == pytest.approx(1 - result.attribute_loss["v"])
    # released as they are, their one values are not missing (they were
    # taken for the root of a hierarchy of one value)
    assert q.get_column("missings").to_list() == [0.0, 0.0, 0.0]
    assert result.apply().collect().get_column("n").unique().to_list() == ["7"]


def test_the_quality_plot_of_a_mondrian_release_says_it_has_no_levels() -> None:
    pytest.importorskip("matplotlib")
    df = pl.DataFrame({"age": [20, 21, 22, 23, 30, 31, 32, 33]})
    fig = pa.mondrian(df, ["age"], 2).quality().plot()
    assert fig.axes[0].get_title() == "Quality per attribute, a cell per partition"
