"""mu-Argus, as Sweeney (2002) describes the seed: generalize each
quasi-identifier until each of its own values occurs k times; test the 2- and
3-combinations of the attributes' groups (Identifying, More, Most) for
outlier cell combinations (fewer than k records); let the data holder's
policy generalize more; finally suppress outlier cells, the value occurring
in the most outlier combinations first. Only the tested combinations are
made safe, so the output can fail k-anonymity over all the quasi-identifiers:
the result reports the k it reaches, and `apply` releases the levels only as
a checked tuple-suppressed table.

Groups (``groups=``): by default the attributes with the most distinct
values are "most" identifying (the first third), then "more", then
"identifying". The combinations tested: every pair of attributes from two
different groups or both "most", and every triple with one attribute of each
group (with fewer groups filled, the pairs only). The default policy
generalizes, while the records in outlier combinations are more than
``max_suppression``, the attribute in the most outlier combinations (by
records) that can still go up, and stops otherwise; a custom ``policy`` is
called with the levels and the outliers and returns an attribute or None.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import polars as pl

from polars_anon._core import ConfigError, SearchOutcome, SearchStats
from polars_anon.inputs.frames import fresh_name
from polars_anon.prepare.prepared import Prepared
from polars_anon.release.exprs import generalization_exprs
from polars_anon.reports.render import plural

GROUPS = ("identifying", "more", "most")
Policy = Callable[[dict[str, int], pl.DataFrame], "str | None"]


@dataclass
class _Outcome:
    """What mu-Argus answers, in the shape of a search's outcome."""

    anonymous: list[list[int]]
    minimal: list[list[int]]
    stats: SearchStats
    rejected: list[list[int]] = field(default_factory=list)
    stopped: str | None = None
    complete: bool = False
    proven_optimal: bool = False
    trace: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class MuArgus:
    """mu-Argus's own output: the levels, the cells it suppressed and the k
    its cell-suppressed table reaches."""

    levels: dict[str, int]
    k_reached: int
    # ARX's loss of the output, a suppressed cell costing 1 for its attribute
    loss: float
    cells_suppressed: int
    records_with_a_suppressed_cell: int
    rounds: int
    masked: pl.DataFrame = field(repr=False)
    """The generalized F0 with suppressed cells as null and ``count`` (the
    records of each row; ``count_1`` if a quasi-identifier is named so)."""


def default_groups(prep: Prepared) -> dict[str, str]:
    qis = prep.quasi_identifiers
    distinct = {q: prep.f0.get_column(q).n_unique() for q in qis}
    order = sorted(qis, key=lambda q: (-distinct[q], qis.index(q)))
    third = -(-len(qis) // 3)
    return {
        q: ("most" if i < third else "more" if i < 2 * third else "identifying")
        for i, q in enumerate(order)
    }


def combinations(groups: Mapping[str, str], qis: list[str]) -> list[tuple[str, ...]]:
    by = {g: [q for q in qis if groups[q] == g] for g in GROUPS}
    pairs = [
        (a, b)
        for a, b in itertools.combinations(qis, 2)
        if groups[a] != groups[b] or groups[a] == "most"
    ]
    triples = [tuple(t) for t in itertools.product(by["identifying"], by["more"], by["most"])]
    return pairs + sorted(triples, key=lambda t: [qis.index(q) for q in t])


def _outliers(
    table: pl.DataFrame, combos: list[tuple[str, ...]], k: int, count: str, row: str
) -> pl.DataFrame:
    """Outlier cell combinations: (combination, values, records), with the
    row ids (`row`) of `table` in them."""
    parts = []
    for i, combo in enumerate(combos):
        cols = list(combo)
        records = fresh_name("records", cols)
        rows = fresh_name("rows", [*cols, records])
        small = (
            table.drop_nulls(cols)
            .group_by(cols)
            .agg(pl.col(count).sum().alias(records), pl.col(row).alias(rows))
            .filter(pl.col(records) < k)
        )
        if small.height:
            parts.append(
                small.select(
                    pl.lit(i).alias("combination"),
                    pl.concat_str(
                        [pl.lit(f"{c}=") + pl.col(c) for c in cols], separator=", "
                    ).alias("values"),
                    *[pl.col(c).alias(f"v_{c}") for c in cols],
                    pl.col(records).alias("records"),
                    pl.col(rows).alias("rows"),
                )
            )
    if not parts:
        return pl.DataFrame(
            schema={
                "combination": pl.Int32,
                "values": pl.String,
                "records": pl.UInt64,
                "rows": pl.List(pl.UInt32),
            }
        )
    return pl.concat(parts, how="diagonal_relaxed")


def run(
    prep: Prepared,
    k: int,
    max_suppression: int,
    groups: Mapping[str, str] | None = None,
    policy: Policy | None = None,
) -> tuple[MuArgus, SearchOutcome]:
    t0 = time.perf_counter()
    qis, hs, count = prep.quasi_identifiers, prep.hierarchies, prep.count
    if policy is not None and not callable(policy):
        raise ConfigError(
            f"policy must be a function of (levels, outliers), got {type(policy).__name__}"
        )
    if groups is None:
        groups = default_groups(prep)
    elif not isinstance(groups, Mapping):
        raise ConfigError(
            f"groups must be a mapping of quasi-identifier to group {list(GROUPS)}, "
            f"got {type(groups).__name__}"
        )
    else:
        unknown = sorted(set(groups) - set(qis))
        bad = sorted({g for g in groups.values() if g not in GROUPS})
        if unknown or bad:
            raise ConfigError(
                f"groups: unknown {plural('quasi-identifier', unknown)} {unknown} or "
                f"{plural('group', bad)} {bad}; "
                f"groups are {list(GROUPS)}"
            )
        groups = {q: groups.get(q, "identifying") for q in qis}
    combos = combinations(groups, qis)
    f0 = prep.f0.select([*qis, count])
    levels = [0] * len(qis)
    checked = 0
    row = fresh_name("__row", [*qis, count])

    def table() -> pl.DataFrame:
        return f0.with_columns(generalization_exprs(prep, levels, strings=True)).with_row_index(row)

    # 2. each attribute until each of its values occurs k times
    for i, q in enumerate(qis):
        while levels[i] < hs[i].height:
            checked += 1
            label = generalization_exprs(prep, levels, strings=True)[i]
            counts = f0.select(label, count).group_by(q).agg(pl.col(count).sum())[count]
            if int(counts.min()) >= k:  # type: ignore[arg-type]
                break
            levels[i] += 1
    # 3.-5. outlier combinations; the policy generalizes or stops
    rounds = 0
    while True:
        rounds += 1
        checked += 1
        current = table()
        outliers = _outliers(current, combos, k, count, row)
        named = dict(zip(qis, levels, strict=True))
        if policy is not None:
            choice = policy(named, outliers.select("combination", "values", "records"))
        else:
            choice = _default_policy(
                outliers, combos, qis, levels, hs, current, max_suppression, count, row
            )
        if choice is None:
            break
        if choice not in qis:
            raise ConfigError(f"the policy chose {choice!r}, not a quasi-identifier {qis}")
        i = qis.index(choice)
        if levels[i] >= hs[i].height:
            raise ConfigError(f"the policy chose '{choice}', already at its top level")
        levels[i] += 1
    # 6. suppress outlier cells, the most frequent value in outliers first
    masked = table()
    while True:
        outliers = _outliers(masked, combos, k, count, row)
        if outliers.is_empty():
            break
        masked = _suppress_once(masked, outliers, combos, qis, row)
    cells = int(
        masked.select(
            (pl.sum_horizontal([pl.col(q).is_null() for q in qis]) * pl.col(count)).sum()
        ).item()
    )
    touched = int(
        masked.filter(pl.any_horizontal([pl.col(q).is_null() for q in qis])).get_column(count).sum()
    )
    k_reached = int(
        masked.with_columns([pl.col(q).fill_null("*") for q in qis])
        .group_by(qis)
        .agg(pl.col(count).sum())
        .get_column(count)
        .min()  # type: ignore[arg-type]
    )
    node = list(levels)
    loss = _cell_loss(prep, masked, levels)
    elapsed = (time.perf_counter() - t0) * 1e3
    stats = SearchStats(
        checked, 0, 0, checked, checked * prep.f0.height, 0, 0, 0, [], [("total", elapsed)]
    )
    own = MuArgus(
        levels=dict(zip(qis, node, strict=True)),
        k_reached=k_reached,
        loss=loss,
        cells_suppressed=cells,
        records_with_a_suppressed_cell=touched,
        rounds=rounds,
        masked=masked.drop(row).rename({count: fresh_name("count", qis)}),
    )
    # an anonymous node of the search's kind only if tuple suppression
    # (what `apply` releases) passes at its levels
    model = prep.model(None, feasible=False)
    if prep.problem.evaluate(node, k, "auto", model).suppressed <= max_suppression:
        return own, cast(SearchOutcome, _Outcome([node], [node], stats))
    return own, cast(SearchOutcome, _Outcome([], [], stats, rejected=[node]))


def _default_policy(
    outliers: pl.DataFrame,
    combos: list[tuple[str, ...]],
    qis: list[str],
    levels: list[int],
    hs: list[Any],
    table: pl.DataFrame,
    max_suppression: int,
    count: str,
    row: str,
) -> str | None:
    """Generalize the attribute in the most outlier combinations (by
    records) while the records in outliers are more than the budget."""
    if outliers.is_empty():
        return None
    rows = outliers.select(pl.col("rows").explode().unique()).get_column("rows")
    at_risk = int(table.filter(pl.col(row).is_in(rows.implode())).get_column(count).sum())
    if at_risk <= max_suppression:
        return None
    weight: dict[str, int] = {}
    for combination, records in outliers.select("combination", "records").iter_rows():
        for q in combos[combination]:
            weight[q] = weight.get(q, 0) + records
    movable = [q for q in weight if levels[qis.index(q)] < hs[qis.index(q)].height]
    if not movable:
        return None
    return max(movable, key=lambda q: (weight[q], -qis.index(q)))


def _suppress_once(
    masked: pl.DataFrame,
    outliers: pl.DataFrame,
    combos: list[tuple[str, ...]],
    qis: list[str],
    row: str,
) -> pl.DataFrame:
    """Each row in an outlier combination loses one cell: of the attributes of
    its outlier combinations, the one whose value is in the most outlier
    combinations (the first quasi-identifier on a tie)."""
    score: dict[tuple[str, str], int] = {}
    for outlier in outliers.iter_rows(named=True):
        for q in combos[outlier["combination"]]:
            key = (q, outlier[f"v_{q}"])
            score[key] = score.get(key, 0) + 1
    values = masked.select(qis).rows()
    candidates: dict[int, set[str]] = {}
    for combination, members in outliers.select("combination", "rows").iter_rows():
        for r in members:
            candidates.setdefault(r, set()).update(combos[combination])
    pick: dict[int, str] = {}
    for r, qs in candidates.items():
        cells = values[r]
        pick[r] = max(sorted(qs, key=qis.index), key=lambda q: score[(q, cells[qis.index(q)])])
    for q in qis:
        rows = [r for r, a in pick.items() if a == q]
        if rows:
            masked = masked.with_columns(
                pl.when(pl.col(row).is_in(rows)).then(None).otherwise(pl.col(q)).alias(q)
            )
    return masked


def _cell_loss(prep: Prepared, masked: pl.DataFrame, levels: list[int]) -> float:
    """ARX's loss with cell suppression: per attribute, the mean over records
    of (leaves under the released value - 1) / (leaves - 1), a suppressed
    cell costing 1; then (prod_i (1 + l_i))^(1/n) - 1."""
    count, rows = prep.count, prep.rows
    logs = 0.0
    for q, h, lvl in zip(prep.quasi_identifiers, prep.hierarchies, levels, strict=True):
        leaves = len(h.leaves)
        if leaves <= 1:
            continue
        under = pl.DataFrame({q: h.leaf_labels(lvl)}).group_by(q).len(name="__under")
        cost = (
            masked.join(under, on=q, how="left")
            .select(
                pl.when(pl.col(q).is_null())
                .then(pl.col(count).cast(pl.Float64))
                .otherwise(pl.col(count) * (pl.col("__under") - 1) / (leaves - 1))
                .sum()
            )
            .item()
        )
        logs += math.log1p(float(cost) / rows)
    return math.expm1(logs / len(levels))
