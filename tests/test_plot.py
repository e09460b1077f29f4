"""The pictures: what each draws is checked against the result it draws, and
the committed notebooks carry their figures."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import nbformat
import polars as pl
import pytest
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from nbclient import NotebookClient

import polars_anon as pa
from polars_anon.plot.figure import COLOURS
from polars_anon.plot.lattice import MAX_DRAWN

NOTEBOOKS = Path(__file__).parent.parent / "notebooks"
QIS = ["sex", "age", "race", "marital-status"]


@pytest.fixture(scope="module")
def adult() -> tuple[pl.DataFrame, dict[str, pa.Hierarchy]]:
    lf, hs = pa.datasets.adult()
    return lf.collect(), hs


def _points(fig: Figure) -> dict[str, list[tuple[float, float]]]:
    ax = fig.axes[0]
    return {
        str(c.get_label()): [tuple(p) for p in c.get_offsets()]
        for c in ax.collections
        if isinstance(c, PathCollection)
    }


def test_lattice_draws_every_node_by_status(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    frame, hs = adult
    r = pa.search(frame, QIS, hs, k=5, max_suppression=0.01, progress=False)
    fig = r.plot_lattice()
    assert isinstance(fig, Figure)
    points = _points(fig)
    size = 1
    for q in QIS:
        size *= hs[q].height + 1
    assert sum(len(p) for p in points.values()) == size
    assert len(points["chosen"]) == 1
    anonymous = r.anonymous.height
    assert len(points["anonymous"]) + len(points["minimal"]) + 1 == anonymous
    assert len(points["not anonymous"]) == size - anonymous
    # nodes sit at their height: the chosen one at the height of best()
    assert points["chosen"][0][1] == sum(r.best("min_loss").values())
    # the PNG a notebook shows
    assert fig._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"  # type: ignore[attr-defined]


def test_a_large_lattice_is_summarised_by_height(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    frame, hs = adult
    qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS)
    r = pa.search(frame, qis, hs, k=5, progress=False)
    heights = [hs[q].height for q in qis]
    size = 1
    for h in heights:
        size *= h + 1
    assert size > MAX_DRAWN
    ax = r.plot_lattice().axes[0]
    bars = [p for p in ax.patches]
    assert sum(b.get_height() for b in bars) == size
    minimal = sum(b.get_height() for b in bars if b.get_facecolor()[:3] == _rgb("minimal"))
    assert minimal == r.minimal.height
    # each height's bars stack to the nodes of that height
    per_height = {}
    for b in bars:
        x = round(b.get_x() + b.get_width() / 2)
        per_height[x] = per_height.get(x, 0) + b.get_height()
    counts: dict[int, int] = {}
    for n in itertools.product(*(range(h + 1) for h in heights)):
        counts[sum(n)] = counts.get(sum(n), 0) + 1
    assert per_height == counts
    # the single bottom and top nodes show above the log axis's floor
    assert counts[0] == 1 and ax.get_yscale() == "log" and ax.get_ylim()[0] < 1


def _rgb(name: str) -> tuple[float, ...]:
    from matplotlib.colors import to_rgb

    return to_rgb(COLOURS[name])


def test_tradeoff_plots_every_anonymous_node(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    frame, hs = adult
    r = pa.search(frame, QIS, hs, k=5, max_suppression=0.01, progress=False)
    points = _points(r.plot_tradeoff())
    a = r.anonymous
    assert len(points["anonymous nodes"]) == a.height
    best = r.best("min_loss")
    row = a.filter(pl.all_horizontal([pl.col(q) == v for q, v in best.items()])).row(0, named=True)
    x = row["groups"] / (frame.height - row["suppressed"])
    assert points["chosen (min_loss)"] == [pytest.approx((x, row["loss"]))]
    sup = _points(r.plot_tradeoff(metric="precision", against="suppression"))
    assert sorted(p[1] for p in sup["anonymous nodes"]) == pytest.approx(
        sorted(a.get_column("precision").to_list())
    )
    with pytest.raises(pa.ConfigError, match="against"):
        r.plot_tradeoff(against="utility")
    with pytest.raises(pa.ConfigError, match="unknown metric"):
        r.plot_tradeoff(metric="beauty")


def test_group_sizes_before_and_after_suppression(
    adult: tuple[pl.DataFrame, dict[str, pa.Hierarchy]],
) -> None:
    frame, hs = adult
    report = pa.check(frame, QIS, 10, hs, levels={"age": 1}, max_suppression=0.1)
    assert report.suppressed > 0
    ax = report.plot_group_sizes().axes[0]
    before = [b.get_height() for b in ax.patches if b.get_facecolor()[:3] == _rgb("not anonymous")]
    after = [b.get_height() for b in ax.patches if b.get_facecolor()[:3] == _rgb("minimal")]
    assert sum(before) == frame.height
    assert sum(after) == frame.height - report.suppressed
    # k is marked where the released bars start
    line = ax.lines[0].get_xdata()[0]  # type: ignore[index]
    first_released = min(i for i, h in enumerate(after) if h)
    assert first_released - 0.5 == line


def _images(nb: dict[str, object]) -> int:
    cells = nb["cells"]
    assert isinstance(cells, list)
    return sum("image/png" in out.get("data", {}) for c in cells for out in c.get("outputs", []))


@pytest.mark.parametrize("name", ["02_incognito.ipynb", "04_risk.ipynb"])
def test_committed_notebooks_show_their_figures(name: str) -> None:
    assert _images(json.loads((NOTEBOOKS / name).read_text())) >= (3 if name[:2] == "04" else 1)


def test_the_risk_notebook_draws_its_figures_when_run() -> None:
    nb = nbformat.read(NOTEBOOKS / "04_risk.ipynb", as_version=4)
    for c in nb.cells:
        c.outputs = [] if c.cell_type == "code" else None
        if c.cell_type != "code":
            del c["outputs"]
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    assert _images(nb) == 3
