"""ARX's benchmark table "cup": every complete search against a brute force of
the lattice on its smaller quasi-identifiers, and against MinGen on all seven."""

from __future__ import annotations

import polars as pl
import pytest

import polars_anon as pa
from tests.conftest import SEARCHES, brute_anonymous, nodes


@pytest.fixture(scope="module")
def cup() -> tuple[pl.DataFrame, dict[str, pa.Hierarchy]]:
    lf, hs = pa.datasets.cup()
    return lf.collect(), hs


def test_the_table_is_arxs(cup: tuple[pl.DataFrame, dict[str, pa.Hierarchy]]) -> None:
    df, hs = cup
    assert df.shape == (63441, 8)
    qis = list(pa.datasets.CUP_QUASI_IDENTIFIERS)
    assert [hs[q].height for q in qis] == [4, 1, 2, 4, 4, 1, 5]
    assert len(hs["ZIP"].leaves) == 100_000
    # every value is in its hierarchy (encoding would name any that is not)
    assert pa.check(df, [*qis, "RAMNTALL"], 1, hs).rows == 63441


@pytest.mark.parametrize("max_sup", [0, 0.04])
def test_searches_equal_brute_force(
    cup: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], max_sup: float
) -> None:
    df, hs = cup
    qis = ["AGE", "GENDER", "INCOME", "STATE"]
    expect = brute_anonymous(df, qis, hs, 5, int(max_sup * df.height))
    assert expect
    for algorithm, variant in SEARCHES:
        r = pa.search(df, qis, hs, 5, max_sup, algorithm=algorithm, variant=variant)
        assert nodes(r.anonymous, qis) == expect, (algorithm, variant)


@pytest.mark.parametrize("max_sup", [0, 0.04])
def test_all_seven_agree_with_mingen(
    cup: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], max_sup: float
) -> None:
    df, hs = cup
    qis = list(pa.datasets.CUP_QUASI_IDENTIFIERS)
    every = pa.search(df, qis, hs, 5, max_sup, algorithm="mingen", progress=False)
    assert every.stats.nodes_checked == 9000
    cube = pa.search(df, qis, hs, 5, max_sup, progress=False)
    assert cube.anonymous.sort(qis).equals(every.anonymous.sort(qis))
    out = cube.apply().collect()
    sizes = out.select(qis).group_by(qis).len().get_column("len")
    assert int(sizes.min()) >= 5  # type: ignore[arg-type]
    assert df.height - out.height <= int(max_sup * df.height)


def test_a_mapping_that_misses_a_value_of_the_table_is_refused() -> None:
    """A large hierarchy is mapped through the leaves the core counted in F0;
    were one left out (a fault in the core's count), the release fails its
    cast when collected and refuses, naming the value, rather than release."""
    from polars_anon.prepare.f0 import prepare
    from polars_anon.prepare.labels import mapping
    from polars_anon.release.build import generalize_prepared

    lf, hs = pa.datasets.cup()
    qis = list(pa.datasets.CUP_QUASI_IDENTIFIERS)
    prep = prepare(lf, qis, hs)
    z = qis.index("ZIP")
    levels = [hs[q].height for q in qis]
    levels[z] = 2
    leaves, labels, names = mapping(prep, z, 2)
    assert 10_000 < leaves.len() < hs["ZIP"].sizes[0]  # the leaves the table holds
    # every ZIP code the table holds, and no other, is a leaf of the mapping
    held = lf.select(pl.col("ZIP").unique()).collect().to_series()
    assert sorted(leaves.to_list()) == sorted(held.to_list())
    prep.mappings[(z, 2)] = (leaves.slice(1), labels.slice(1), names)
    release = generalize_prepared(prep, levels, 5, 0.01)
    gone = leaves[0]
    with pytest.raises(pa.NotAnonymousError, match=f"column 'ZIP' .* not cover .*{gone}"):
        release.collect()
