"""A Mondrian release's numeric ranges also as numbers: each numeric
quasi-identifier's cell (``[20-29]``, or its one value ``25``) with two Float64
columns beside it, ``<q>_lower`` and ``<q>_upper``, the smallest and largest
values its partition holds (of the column's type for a date or a datetime)."""

from __future__ import annotations

import polars as pl

from polars_anon._core import ConfigError, MondrianOutcome
from polars_anon.prepare.prepared import Prepared
from polars_anon.reports.render import listing
from polars_anon.results.mondrian_cuts import from_instants, instants, temporal


def with_bounds(
    lf: pl.LazyFrame,
    prep: Prepared,
    kinds: dict[str, str],
    outcome: MondrianOutcome,
) -> pl.LazyFrame:
    """`lf` (a release of `prep`'s table, its quasi-identifiers as cells)
    with the numeric ones' bounds: a cell's text names one range, so a join
    on it finds them."""
    quasi_identifiers = prep.quasi_identifiers
    schema = prep.lazy.collect_schema()
    names = lf.collect_schema().names()
    for i, q in enumerate(quasi_identifiers):
        if kinds[q] != "numeric":
            continue
        low, high = f"{q}_lower", f"{q}_upper"
        taken = [c for c in (low, high) if c in names]
        if taken:
            raise ConfigError(
                f"numeric_bounds: the table already has {listing('column', taken)}; rename "
                + ("it" if len(taken) == 1 else "them")
                + " first"
            )
        ranges = outcome.ranges[i]
        lows = pl.Series(low, [r[0] for r in ranges], dtype=pl.Float64)
        highs = pl.Series(high, [r[1] for r in ranges], dtype=pl.Float64)
        dtype = schema[q]
        if temporal(dtype):
            # each bound's exact instant: a nanosecond one is not its float
            leaves = prep.hierarchies[i].leaves
            exact = {float(m): m for m in instants(leaves) or []}
            lows, highs = (
                from_instants(pl.Series([exact[v] for v in s], dtype=pl.Int64), dtype, leaves)
                for s in (lows, highs)
            )
            lows, highs = lows.alias(low), highs.alias(high)
        labels = pl.Series(q, outcome.labels[i], dtype=pl.String)
        bounds = pl.DataFrame([labels, lows, highs]).unique(q)
        lf = lf.join(bounds.lazy(), on=q, how="left", maintain_order="left")
        names += [low, high]
    return lf
