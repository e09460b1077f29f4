"""A release's quality per attribute (ARX's `StatisticsQuality`): one bar
group per quasi-identifier, one bar per measure."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import TYPE_CHECKING

import polars as pl

from polars_anon.plot.figure import figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# one colour per measure (matplotlib's tab10, in the measures' order)
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"]


def quality_bars(
    attributes: pl.DataFrame, labels: Mapping[str, str], levels: Mapping[str, int]
) -> Figure:
    """Each measure of `labels` (a column of `attributes`, one row per
    ``attribute``, with its label) as a bar per attribute, the bars of an
    attribute side by side; a measure without a value (null) is marked
    n/a at the foot of its place."""
    measures = [m for m in labels if m in attributes.columns]
    names = attributes.get_column("attribute").to_list()
    fig = figure(max(7.0, 1.2 * len(names) + 2), 4.5)
    ax = fig.add_subplot()
    width = 0.8 / max(len(measures), 1)
    for j, m in enumerate(measures):
        values = attributes.get_column(m).to_list()
        xs = [i - 0.4 + width * (j + 0.5) for i in range(len(names))]
        ax.bar(
            [x for x, v in zip(xs, values, strict=True) if v is not None],
            [v for v in values if v is not None],
            width=width,
            color=PALETTE[j % len(PALETTE)],
            label=labels[m],
        )
        for x, v in zip(xs, values, strict=True):
            if v is None:
                ax.text(x, 0.01, "n/a", rotation=90, ha="center", va="bottom", fontsize=7)
    turned = len(names) > 5
    ax.set_xticks(
        range(len(names)), names, rotation=30 if turned else 0, ha="right" if turned else "center"
    )
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("ARX's quality (1 = best)")
    at = ", ".join(f"{q}={v}" for q, v in levels.items())
    # no levels: a release of a cell per partition (Mondrian's)
    title = "Quality per attribute" + (f" at {at}" if at else ", a cell per partition")
    ax.set_title(textwrap.fill(title, 110), fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig
