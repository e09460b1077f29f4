"""mu-Argus: a hand-computed table, the guarantees it gives (every tested
combination and every attribute's values occur k times), the k it reaches,
and a release only when the check passes."""

from __future__ import annotations

import pickle

import polars as pl
import pytest

import polars_anon as pa
from polars_anon.algorithms.mu_argus import combinations

QIS = ["sex", "age", "race", "marital-status", "education", "native-country"]


def tiny() -> tuple[pl.DataFrame, dict[str, pa.Hierarchy]]:
    df = pl.DataFrame({"A": ["x", "x", "y", "y"], "B": ["p", "q", "p", "q"]})
    hs = {
        "A": pa.Hierarchy.from_rows([["x", "*"], ["y", "*"]]),
        "B": pa.Hierarchy.from_rows([["p", "*"], ["q", "*"]]),
    }
    return df, hs


def test_hand_computed_generalization() -> None:
    df, hs = tiny()
    # every value occurs twice, every (A, B) pair once: the policy generalizes
    # A (tied with B, the first), after which each pair occurs twice
    r = pa.mu_argus(df, ["A", "B"], hs, k=2)
    assert r.mu_argus.levels == {"A": 1, "B": 0}
    assert r.mu_argus.k_reached == 2 and r.mu_argus.cells_suppressed == 0
    assert r.best("min_loss") == {"A": 1, "B": 0}
    assert r.apply().collect().get_column("A").to_list() == ["*"] * 4
    # nothing suppressed: its loss is the check's
    assert r.mu_argus.loss == pytest.approx(
        pa.check(df, ["A", "B"], 2, hs, {"A": 1}).loss, abs=1e-12
    )


def test_hand_computed_cell_suppression() -> None:
    df, hs = tiny()
    # 4 records may be suppressed: no generalization; every row is in an
    # outlier pair, every value in two outlier pairs: A's cells go first
    r = pa.mu_argus(df, ["A", "B"], hs, k=2, max_suppression=4)
    m = r.mu_argus
    assert m.levels == {"A": 0, "B": 0}
    assert m.cells_suppressed == 4 and m.records_with_a_suppressed_cell == 4
    assert m.masked.get_column("A").null_count() == 4
    assert m.k_reached == 2
    # A's cells all suppressed (cost 1 each), B's released as they are (0)
    assert m.loss == pytest.approx(2**0.5 - 1)


@pytest.mark.parametrize("sup", [0, 0.01])
def test_tested_combinations_and_attributes_occur_k_times(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]], sup: float
) -> None:
    df, hs = adult
    k = 5
    r = pa.mu_argus(df, QIS, hs, k=k, max_suppression=sup)
    m = r.mu_argus
    count = "count"
    masked = m.masked
    assert masked.columns == [*QIS, count]
    for q in QIS:
        sizes = masked.drop_nulls(q).group_by(q).agg(pl.col(count).sum()).get_column(count)
        assert sizes.min() >= k, q  # type: ignore[operator]
    from polars_anon.algorithms.mu_argus import default_groups
    from polars_anon.prepare.f0 import prepare

    groups = default_groups(prepare(df, QIS, hs))
    for combo in combinations(groups, QIS):
        cols = list(combo)
        sizes = masked.drop_nulls(cols).group_by(cols).agg(pl.col(count).sum()).get_column(count)
        assert sizes.min() >= k, combo  # type: ignore[operator]
    # k reached over all the quasi-identifiers, recomputed
    full = masked.with_columns([pl.col(q).fill_null("*") for q in QIS])
    assert m.k_reached == full.group_by(QIS).agg(pl.col(count).sum()).get_column(count).min()
    assert int(masked.get_column(count).sum()) == df.height


def test_apply_refuses_unless_the_levels_pass(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    r = pa.search(df, QIS, hs, 5, 0.01, algorithm="mu_argus")
    assert isinstance(r, pa.MuArgusResult)
    report = pa.check(df, QIS, 5, hs, r.mu_argus.levels, 0.01)
    if report.k_anonymous:
        release = r.apply().collect()
        assert pa.check(release, QIS, 5).k_anonymous
    else:
        with pytest.raises(pa.NotAnonymousError):
            r.apply().collect()
    assert "k reached" in repr(r)
    again = pickle.loads(pickle.dumps(r))
    assert again.mu_argus.levels == r.mu_argus.levels
    assert again.rejected == r.rejected
    if report.k_anonymous:
        assert again.best("min_loss") == r.best("min_loss")


def test_a_node_that_fails_tuple_suppression_is_not_listed_anonymous(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    df, hs = adult
    qis = ["sex", "age", "race", "education"]
    r = pa.mu_argus(df, qis, hs, k=5)
    node = [r.mu_argus.levels[q] for q in qis]
    report = pa.check(df, qis, 5, hs, r.mu_argus.levels)
    assert r.mu_argus.k_reached < 5 and not report.k_anonymous
    # listed as tested and rejected, not as an anonymous (or minimal) node
    assert r.anonymous.is_empty() and r.rejected == [node]
    with pytest.raises(pa.NotAnonymousError, match=r"mu_argus\.masked"):
        r.best()
    shown = str(r.release_report(df, levels=r.mu_argus.levels))
    assert f"{report.suppressed}, more than the 0 allowed: apply refuses" in shown
    # at k = 10 its levels pass: the one node, anonymous and minimal
    ten = pa.mu_argus(df, qis, hs, k=10)
    assert pa.check(df, qis, 10, hs, ten.mu_argus.levels).k_anonymous
    assert ten.best() == ten.mu_argus.levels and ten.minimal.height == 1


def test_a_policy_decides_and_groups_are_checked() -> None:
    df, hs = tiny()
    calls: list[dict[str, int]] = []

    def stop_at_once(levels: dict[str, int], outliers: pl.DataFrame) -> str | None:
        calls.append(levels)
        assert outliers.columns == ["combination", "values", "records"]
        return None

    r = pa.mu_argus(df, ["A", "B"], hs, k=2, max_suppression=4, policy=stop_at_once)
    assert calls == [{"A": 0, "B": 0}] and r.mu_argus.cells_suppressed == 4
    with pytest.raises(pa.ConfigError, match="not a quasi-identifier"):
        pa.mu_argus(df, ["A", "B"], hs, k=2, policy=lambda levels, outliers: "C")
    with pytest.raises(pa.ConfigError, match="groups"):
        pa.mu_argus(df, ["A", "B"], hs, k=2, groups={"A": "very"})
    with pytest.raises(pa.ConfigError, match="no variant"):
        pa.search(df, ["A", "B"], hs, 2, algorithm="mu_argus", variant="x")
    # arguments of the wrong kind are named, not an AttributeError or TypeError
    with pytest.raises(pa.ConfigError, match=r"groups must be a mapping .* got list"):
        pa.mu_argus(df, ["A", "B"], hs, k=2, groups=["A"])  # type: ignore[arg-type]
    with pytest.raises(pa.ConfigError, match=r"policy must be a function .* got str"):
        pa.mu_argus(df, ["A", "B"], hs, k=2, policy="A")  # type: ignore[arg-type]
