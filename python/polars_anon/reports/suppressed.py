"""The suppressed groups of a release summed up by the reason each went
(`release.suppressed` finds them): for the reports."""

from __future__ import annotations

import polars as pl


def by_reason(groups: pl.DataFrame) -> pl.DataFrame:
    """The suppressed groups and tuples of each reason, most tuples first."""
    if groups.is_empty():
        return pl.DataFrame(
            {"reason": [], "groups": [], "tuples": []},
            schema={"reason": pl.String, "groups": pl.UInt32, "tuples": pl.UInt64},
        )
    count, reason = groups.columns[-2], groups.columns[-1]
    return (
        groups.group_by(reason)
        .agg(pl.len().alias("groups"), pl.col(count).sum().alias("tuples"))
        .rename({reason: "reason"})
        .sort(["tuples", "reason"], descending=[True, False])
        .select("reason", "groups", "tuples")
    )


def reasons_text(groups: pl.DataFrame) -> str:
    """``k: 85 tuples in 40 groups; AverageRisk: 30 in 12``."""
    parts = []
    for i, (why, g, t) in enumerate(by_reason(groups).iter_rows()):
        parts.append(f"{why}: {t} tuples in {g} groups" if i == 0 else f"{why}: {t} in {g}")
    return "; ".join(parts)


def informative(groups: pl.DataFrame) -> bool:
    """Whether the reasons say more than "smaller than k"."""
    return not groups.is_empty() and bool((groups.get_column(groups.columns[-1]) != "k").any())
