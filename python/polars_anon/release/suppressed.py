"""Which groups a release suppresses, and why: each one's labels, tuples and
the model that made it go (``k`` for a group smaller than k, the name of
the first group criterion it fails, or the models of the whole release
whose thresholds needed it, such as ``AverageRisk``), from the core's
verdicts (`Checker::verdicts`); `reports.suppressed` sums them up."""

from __future__ import annotations

import polars as pl

from polars_anon._core import CoreCriterion
from polars_anon.inputs.frames import fresh_name
from polars_anon.prepare.prepared import Prepared
from polars_anon.release.build import labels_of


def suppressed_groups(
    prep: Prepared, levels: list[int], k: int, model: list[CoreCriterion]
) -> pl.DataFrame:
    """One row a suppressed group: each quasi-identifier's label at
    ``levels``, its ``tuples`` and the ``reason``."""
    return framed(prep, levels, *prep.problem.suppression_reasons(levels, k, model))


def framed(
    prep: Prepared, levels: list[int], codes: list[list[int]], tuples: list[int], reasons: list[str]
) -> pl.DataFrame:
    """`suppressed_groups` of the core's answer."""
    frame = labels_of(prep, levels, codes)
    taken = list(frame.columns)
    count = fresh_name("tuples", taken)
    reason = fresh_name("reason", [*taken, count])
    return frame.with_columns(
        pl.Series(count, tuples, dtype=pl.UInt64), pl.Series(reason, reasons, dtype=pl.String)
    )
