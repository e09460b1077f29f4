"""A check's groups by size, before suppression and as released."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_anon.plot.figure import COLOURS, figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _bins(k: int, largest: int) -> list[int]:
    """Lower edges of size bins: 1, 2, 3, 5, 10, 20, 50, ... and k, so
    that k falls on an edge."""
    edges = {1, 3, k}
    step = 1
    while step <= largest:
        edges.update((step, 2 * step, 5 * step))
        step *= 10
    return sorted(e for e in edges if e <= largest) or [1]


def group_sizes(k: int, levels: dict[str, int], sizes: pl.DataFrame, released: pl.Series) -> Figure:
    """Records by the size of their group (in bins growing tenfold), before
    suppression and as released, with k marked: `sizes` holds the groups
    of each ``size``, `released` the size of each group released."""
    before = sizes.select(
        pl.col("size").cast(pl.Int64), (pl.col("size") * pl.col("groups")).alias("records")
    )
    after = (
        released.cast(pl.Int64)
        .alias("size")
        .to_frame()
        .select("size", pl.col("size").alias("records"))
    )
    largest = int(before.get_column("size").max() or 1)  # type: ignore[arg-type]
    edges = _bins(k, largest)
    labels = []
    for lo, hi in zip(edges, [*edges[1:], largest + 1], strict=True):
        labels.append(str(lo) if hi - lo == 1 else f"{lo}-{hi - 1}")

    def binned(frame: pl.DataFrame) -> list[int]:
        out = [0] * len(edges)
        for size, records in frame.iter_rows():
            i = max(j for j, e in enumerate(edges) if e <= size)
            out[i] += records
        return out

    fig = figure()
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
        edges.index(k) - 0.5,
        color=COLOURS["chosen"],
        linestyle="--",
        label=f"k = {k}: smaller groups are suppressed",
    )
    ax.set_xticks(xs, labels, rotation=45 if len(xs) > 8 else 0)
    ax.set_xlabel("group size (records sharing their quasi-identifiers)")
    ax.set_ylabel("records")
    ax.set_title(
        f"Group sizes at {', '.join(f'{q}={v}' for q, v in levels.items())}",
        fontsize=10,
    )
    ax.legend(fontsize=8)
    return fig
