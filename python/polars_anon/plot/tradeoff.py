"""Every anonymous node of a search: a utility metric against the release's
risk or suppression."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.plot.figure import COLOURS, figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

AGAINST = {
    "risk": "average prosecutor risk of the release (groups / records released)",
    "suppression": "share of records suppressed",
}


def tradeoff(
    anonymous: pl.DataFrame,
    quasi_identifiers: list[str],
    column: Callable[[str], str],
    rows: int,
    k: int,
    choose: Callable[[str], dict[str, int]],
    metric: str = "loss",
    against: str = "risk",
    criterion: str = "min_loss",
) -> Figure:
    """Every anonymous node: ``metric`` (a column of `anonymous`, named by
    `column`) against the release's risk or suppression (of `rows`), the
    node ``choose(criterion)`` picks marked."""
    if against not in AGAINST:
        raise ConfigError(f"against must be one of {list(AGAINST)}, got {against!r}")
    frame = anonymous
    qis = quasi_identifiers
    named = column(metric)
    numeric = [c for c, t in frame.schema.items() if t.is_numeric() and c not in qis]
    if named not in numeric:
        raise ConfigError(f"unknown metric {metric!r}; expected one of {numeric}")
    released = rows - pl.col(column("suppressed")).cast(pl.Float64)
    x = (
        pl.col(column("groups")) / released
        if against == "risk"
        else pl.col(column("suppressed")) / rows
    )
    points = frame.select(
        x.alias("x"),
        pl.col(named).cast(pl.Float64).alias("y"),
        *[pl.col(q) for q in qis],
    )
    fig = figure()
    ax = fig.add_subplot()
    ax.scatter(
        points["x"].to_list(),
        points["y"].to_list(),
        s=12,
        color=COLOURS["anonymous"],
        edgecolors="#555555",
        linewidths=0.3,
        label="anonymous nodes",
    )
    if points.height:
        best = choose(criterion)
        chosen = points.filter(pl.all_horizontal([pl.col(q) == v for q, v in best.items()]))
        ax.scatter(
            chosen["x"].to_list(),
            chosen["y"].to_list(),
            s=80,
            marker="*",
            color=COLOURS["chosen"],
            label=f"chosen ({criterion})",
            zorder=3,
        )
    ax.set_xlabel(AGAINST[against])
    ax.set_ylabel(metric)
    ax.set_title(f"{points.height} anonymous nodes, k = {k}", fontsize=10)
    ax.legend(fontsize=8)
    return fig
