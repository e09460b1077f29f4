"""A locally recoded table (`polars_anon.local_recoding`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl


@dataclass(frozen=True)
class LocalRecoding:
    """A locally recoded table: each quasi-identifier cell holds its value's label
    at the level the algorithm left it (``levels`` says which), so one column may
    mix levels."""

    data: pl.DataFrame = field(repr=False)
    levels: pl.DataFrame = field(repr=False)
    groups: int
    distortion_ratio: float

    def __repr__(self) -> str:
        return (
            f"LocalRecoding(rows={self.data.height}, groups={self.groups}, "
            f"distortion_ratio={self.distortion_ratio:.4f})"
        )

    def _repr_html_(self) -> str:
        return f"<pre>{self!r}</pre>" + self.data.head(10)._repr_html_()
