"""A search's lattice: its Hasse diagram, or its nodes counted by height."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from polars_anon.plot.figure import COLOURS, figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# A Hasse diagram is drawn node by node up to this many nodes; a larger
# lattice is summarised as anonymous and other nodes per height.
MAX_DRAWN = 2_000


def lattice(
    heights: Sequence[int],
    quasi_identifiers: list[str],
    nodes: list[list[int]],
    minimal_nodes: list[list[int]],
    chosen: tuple[int, ...] | None,
    k: int,
    complete: bool,
) -> Figure:
    """The searched lattice by height: each node coloured not anonymous /
    anonymous (`nodes`) / minimal / `chosen`, edges joining nodes one
    generalization step apart, as the Incognito paper draws it. Above
    `MAX_DRAWN` nodes, the nodes of each height counted by status."""
    heights = list(heights)
    qis = quasi_identifiers
    anonymous = {tuple(n) for n in nodes}
    minimal = {tuple(n) for n in minimal_nodes}
    size = 1
    for h in heights:
        size *= h + 1
    fig = figure(8.0, 5.0)
    ax = fig.add_subplot()
    status = "" if complete else " (incomplete search: only the nodes it found)"
    if size > MAX_DRAWN:
        return _lattice_summary(fig, ax, nodes, minimal_nodes, k, heights, size, status)
    every = list(itertools.product(*(range(h + 1) for h in heights)))
    by_height: dict[int, list[tuple[int, ...]]] = {}
    for n in every:
        by_height.setdefault(sum(n), []).append(n)
    pos: dict[tuple[int, ...], tuple[float, int]] = {}
    for height, layer in by_height.items():
        for i, n in enumerate(sorted(layer)):
            pos[n] = ((i + 1) / (len(layer) + 1), height)
    from matplotlib.collections import LineCollection

    edges = []
    for n in every:
        for i in range(len(n)):
            if n[i] < heights[i]:
                up = (*n[:i], n[i] + 1, *n[i + 1 :])
                edges.append([pos[n], pos[up]])
    ax.add_collection(LineCollection(edges, colors="#dddddd", linewidths=0.6, zorder=1))

    def kind(n: tuple[int, ...]) -> str:
        if n == chosen:
            return "chosen"
        if n in minimal:
            return "minimal"
        return "anonymous" if n in anonymous else "not anonymous"

    for name in COLOURS:
        pts = [pos[n] for n in every if kind(n) == name]
        if pts:
            ax.scatter(
                [p[0] for p in pts],
                [p[1] for p in pts],
                s=60 if name == "chosen" else 25,
                color=COLOURS[name],
                label=name,
                zorder=2,
                edgecolors="#555555",
                linewidths=0.3,
            )
    if len(every) <= 40:
        for n, (x, y) in pos.items():
            ax.annotate(
                "".join(map(str, n)),
                (x, y),
                textcoords="offset points",
                xytext=(0, 6),
                ha="center",
                fontsize=7,
            )
    ax.set_xticks([])
    ax.set_ylabel("height (generalization steps)")
    ax.set_title(f"Lattice of {'/'.join(qis)}: {size} nodes, k = {k}{status}", fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return fig


def _lattice_summary(
    fig: Figure,
    ax: Any,
    nodes: list[list[int]],
    minimal_nodes: list[list[int]],
    k: int,
    heights: list[int],
    size: int,
    status: str,
) -> Figure:
    top = sum(heights)
    # nodes per height: the coefficients of prod_i (1 + x + ... + x^h_i)
    layer = [1]
    for h in heights:
        nxt = [0] * (len(layer) + h)
        for i, c in enumerate(layer):
            for j in range(h + 1):
                nxt[i + j] += c
        layer = nxt
    anon = [0] * (top + 1)
    mini = [0] * (top + 1)
    for n in nodes:
        anon[sum(n)] += 1
    for n in minimal_nodes:
        mini[sum(n)] += 1
    xs = list(range(top + 1))
    other = [layer[i] - anon[i] for i in xs]
    ax.bar(xs, other, color=COLOURS["not anonymous"], label="not anonymous")
    ax.bar(
        xs,
        [anon[i] - mini[i] for i in xs],
        bottom=other,
        color=COLOURS["anonymous"],
        label="anonymous",
    )
    ax.bar(
        xs,
        mini,
        bottom=[other[i] + anon[i] - mini[i] for i in xs],
        color=COLOURS["minimal"],
        label="minimal",
    )
    if max(layer) > 100:
        ax.set_yscale("log")
        # a bar of one node (the bottom, the top) is drawn from 1 to 1 on a
        # log axis whose floor is 1: below it, it shows
        ax.set_ylim(bottom=0.5)
    ax.set_xticks(xs)
    ax.set_xlabel("height (generalization steps)")
    ax.set_ylabel("nodes")
    ax.set_title(
        f"{size:,} nodes of {len(heights)} attributes by height, k = {k}{status}",
        fontsize=10,
    )
    ax.legend(fontsize=8)
    return fig
