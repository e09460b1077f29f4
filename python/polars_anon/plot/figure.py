"""The figure every picture is drawn on, and the colours they share."""

from __future__ import annotations

import functools
import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

COLOURS = {
    "not anonymous": "#c9c9c9",
    "anonymous": "#9ad29a",
    "minimal": "#2e8b3a",
    "chosen": "#d62728",
}


@functools.cache
def figure_class() -> type[Figure]:
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


def figure(width: float = 7.0, height: float = 4.5) -> Figure:
    return figure_class()(figsize=(width, height), layout="constrained")
