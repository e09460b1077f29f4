"""A frequency set computed elsewhere (`FrequencySet`): F0 already, with no
rows to release."""

from __future__ import annotations

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.inputs.counts import FrequencySet


def schema(data: FrequencySet) -> pl.Schema:
    return data.frame.drop(data.count).schema


def group(
    data: FrequencySet, columns: list[str], count: str, maps: dict[str, pl.DataFrame]
) -> pl.DataFrame:
    if maps:
        raise ConfigError("a frequency set is grouped as it was given")
    frame = data.frame.rename({data.count: count})
    if data.distinct and len(columns) == frame.width - 1:
        # grouped by every column already (`from_counts`)
        return frame.select([*columns, pl.col(count).cast(pl.UInt64)])
    return frame.group_by(columns).agg(pl.col(count).sum().cast(pl.UInt64))
