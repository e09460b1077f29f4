"""Pictures of a search and a check, drawn with matplotlib (the ``plot``
extra). Each function returns a `matplotlib.figure.Figure` made without
pyplot, so nothing is drawn twice in a notebook and nothing global changes:
a notebook shows it as a cell's value (as a PNG), a script saves it with
``fig.savefig(path)``."""

from __future__ import annotations

import functools
import io
import itertools
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_anon._core import ConfigError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from polars_anon._results import CheckReport, SearchResult

# A Hasse diagram is drawn node by node up to this many nodes; a larger
# lattice is summarised as anonymous and other nodes per height.
MAX_DRAWN = 2_000

COLOURS = {
    "not anonymous": "#c9c9c9",
    "anonymous": "#9ad29a",
    "minimal": "#2e8b3a",
    "chosen": "#d62728",
}


@functools.cache
def _figure_class() -> type[Figure]:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("pictures need matplotlib: pip install 'polars-anon[plot]'") from None

    class Chart(Figure):
        """A matplotlib Figure that a notebook shows as a PNG even when pyplot
        (and with it the inline backend) was never imported."""

        def _repr_png_(self) -> bytes:
            buffer = io.BytesIO()
            self.savefig(buffer, format="png", dpi=90)
            return buffer.getvalue()

    return Chart


def _figure(width: float = 7.0, height: float = 4.5) -> Figure:
    return _figure_class()(figsize=(width, height), layout="constrained")


def _bins(k: int, largest: int) -> list[int]:
    """Lower edges of size bins: 1, 2, 3, 5, 10, 20, 50, ... and k, so
    that k falls on an edge."""
    edges = {1, 3, k}
    step = 1
    while step <= largest:
        edges.update((step, 2 * step, 5 * step))
        step *= 10
    return sorted(e for e in edges if e <= largest) or [1]


def group_sizes(report: CheckReport) -> Figure:
    """Records by the size of their group (in bins growing tenfold), before
    suppression and as released, with k marked."""
    before = report.group_sizes.select(
        pl.col("size").cast(pl.Int64), (pl.col("size") * pl.col("groups")).alias("records")
    )
    after = (
        report.released_sizes.cast(pl.Int64)
        .alias("size")
        .to_frame()
        .select("size", pl.col("size").alias("records"))
    )
    largest = int(before.get_column("size").max() or 1)  # type: ignore[arg-type]
    edges = _bins(report.k, largest)
    labels = []
    for lo, hi in zip(edges, [*edges[1:], largest + 1], strict=True):
        labels.append(str(lo) if hi - lo == 1 else f"{lo}-{hi - 1}")

    def binned(frame: pl.DataFrame) -> list[int]:
        out = [0] * len(edges)
        for size, records in frame.iter_rows():
            i = max(j for j, e in enumerate(edges) if e <= size)
            out[i] += records
        return out

    fig = _figure()
    ax = fig.add_subplot()
    xs = list(range(len(edges)))
    ax.bar(
        [x - 0.2 for x in xs],
        binned(before),
        width=0.4,
        color=COLOURS["not anonymous"],
        label="before suppression",
    )
    ax.bar(
        [x + 0.2 for x in xs], binned(after), width=0.4, color=COLOURS["minimal"], label="released"
    )
    ax.axvline(
        edges.index(report.k) - 0.5,
        color=COLOURS["chosen"],
        linestyle="--",
        label=f"k = {report.k}: smaller groups are suppressed",
    )
    ax.set_xticks(xs, labels, rotation=45 if len(xs) > 8 else 0)
    ax.set_xlabel("group size (records sharing their quasi-identifiers)")
    ax.set_ylabel("records")
    ax.set_title(
        f"Group sizes at {', '.join(f'{q}={v}' for q, v in report.levels.items())}",
        fontsize=10,
    )
    ax.legend(fontsize=8)
    return fig


def lattice(result: SearchResult, criterion: str = "min_loss") -> Figure:
    """The searched lattice by height: each node coloured not anonymous /
    anonymous / minimal / chosen (by ``criterion``), edges joining nodes one
    generalization step apart, as the Incognito paper draws it. Above
    `MAX_DRAWN` nodes, the nodes of each height counted by status."""
    heights = list(result._prep.problem.heights)
    qis = result.quasi_identifiers
    anonymous = {tuple(n) for n in result._nodes}
    minimal = {tuple(n) for n in result._minimal_nodes}
    chosen = tuple(result.best(criterion)[q] for q in qis) if anonymous else None
    size = 1
    for h in heights:
        size *= h + 1
    fig = _figure(8.0, 5.0)
    ax = fig.add_subplot()
    status = "" if result.complete else " (incomplete search: only the nodes it found)"
    if size > MAX_DRAWN:
        return _lattice_summary(fig, ax, result, heights, size, status)
    nodes = list(itertools.product(*(range(h + 1) for h in heights)))
    by_height: dict[int, list[tuple[int, ...]]] = {}
    for n in nodes:
        by_height.setdefault(sum(n), []).append(n)
    pos: dict[tuple[int, ...], tuple[float, int]] = {}
    for height, layer in by_height.items():
        for i, n in enumerate(sorted(layer)):
            pos[n] = ((i + 1) / (len(layer) + 1), height)
    from matplotlib.collections import LineCollection

    edges = []
    for n in nodes:
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
        pts = [pos[n] for n in nodes if kind(n) == name]
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
    if len(nodes) <= 40:
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
    ax.set_title(f"Lattice of {'/'.join(qis)}: {size} nodes, k = {result.k}{status}", fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return fig


def _lattice_summary(
    fig: Figure, ax: Any, result: SearchResult, heights: list[int], size: int, status: str
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
    for n in result._nodes:
        anon[sum(n)] += 1
    for n in result._minimal_nodes:
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
    ax.set_xticks(xs)
    ax.set_xlabel("height (generalization steps)")
    ax.set_ylabel("nodes")
    ax.set_title(
        f"{size:,} nodes of {len(heights)} attributes by height, k = {result.k}{status}",
        fontsize=10,
    )
    ax.legend(fontsize=8)
    return fig


AGAINST = {
    "risk": "average prosecutor risk of the release (groups / records released)",
    "suppression": "share of records suppressed",
}


def tradeoff(
    result: SearchResult, metric: str = "loss", against: str = "risk", criterion: str = "min_loss"
) -> Figure:
    """Every anonymous node: ``metric`` (a column of ``result.anonymous``)
    against the release's risk or suppression, the node ``criterion`` picks
    marked."""
    if against not in AGAINST:
        raise ConfigError(f"against must be one of {list(AGAINST)}, got {against!r}")
    frame = result.anonymous
    column = result.column(metric)
    numeric = [
        c for c, t in frame.schema.items() if t.is_numeric() and c not in result.quasi_identifiers
    ]
    if column not in numeric:
        raise ConfigError(f"unknown metric {metric!r}; expected one of {numeric}")
    rows = result._prep.rows
    released = rows - pl.col(result.column("suppressed")).cast(pl.Float64)
    x = (
        pl.col(result.column("groups")) / released
        if against == "risk"
        else pl.col(result.column("suppressed")) / rows
    )
    points = frame.select(
        x.alias("x"),
        pl.col(column).cast(pl.Float64).alias("y"),
        *[pl.col(q) for q in result.quasi_identifiers],
    )
    fig = _figure()
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
        best = result.best(criterion)
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
    ax.set_title(f"{points.height} anonymous nodes, k = {result.k}", fontsize=10)
    ax.legend(fontsize=8)
    return fig
