"""A Mondrian release's numeric ranges also as numbers: each numeric
quasi-identifier's cell (``[20-29]``, or its one value ``25``) with two Float64
columns beside it, ``<q>_lower`` and ``<q>_upper``, the smallest and largest
values its partition holds."""

from __future__ import annotations

import polars as pl

from polars_anon._core import ConfigError, MondrianOutcome


def with_bounds(
    lf: pl.LazyFrame, quasi_identifiers: list[str], kinds: dict[str, str], outcome: MondrianOutcome
) -> pl.LazyFrame:
    """`lf` (a release, its quasi-identifiers as cells) with the numeric ones'
    bounds: a cell's text names one range, so a join on it finds them."""
    names = lf.collect_schema().names()
    for i, q in enumerate(quasi_identifiers):
        if kinds[q] != "numeric":
            continue
        low, high = f"{q}_lower", f"{q}_upper"
        taken = [c for c in (low, high) if c in names]
        if taken:
            raise ConfigError(
                f"numeric_bounds: the table already has column(s) {taken}; rename them first"
            )
        ranges = outcome.ranges[i]
        bounds = pl.DataFrame(
            {
                q: pl.Series(outcome.labels[i], dtype=pl.String),
                low: pl.Series([r[0] for r in ranges], dtype=pl.Float64),
                high: pl.Series([r[1] for r in ranges], dtype=pl.Float64),
            }
        ).unique(q)
        lf = lf.join(bounds.lazy(), on=q, how="left", maintain_order="left")
        names += [low, high]
    return lf
