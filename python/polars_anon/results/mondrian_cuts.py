"""Mondrian's partitions of F0, cut in the core: each quasi-identifier's
kind (numeric, hierarchy, set) and, for a numeric one, its values as the
core compares them."""

from __future__ import annotations

from decimal import Decimal

import polars as pl

from polars_anon import _core
from polars_anon._core import ConfigError, CoreCriterion, MondrianOutcome
from polars_anon.prepare.prepared import Prepared
from polars_anon.results import mondrian_splits


def partition(
    prep: Prepared,
    kinds: dict[str, str],
    k: int,
    model: list[CoreCriterion],
    relaxed: bool = False,
    splits: pl.DataFrame | None = None,
    coarsen: bool = False,
) -> MondrianOutcome:
    """Mondrian's final partitions of `prep`'s F0, in the core: `kinds` says
    how each quasi-identifier (in order) is split ("numeric": by the values
    of its leaves; "hierarchy"; "set"), strict or `relaxed`. Deterministic:
    the same F0, in any row order, gives the same partitions. With `splits`
    (`mondrian_splits`), F0 is partitioned by those instead."""
    values = [
        numbers(q, h.leaves) if kinds[q] == "numeric" else None
        for q, h in zip(prep.quasi_identifiers, prep.hierarchies, strict=True)
    ]
    order = [kinds[q] for q in prep.quasi_identifiers]
    if splits is not None:
        qis = prep.quasi_identifiers
        args = (prep.problem, qis, order, values, k, model, splits, coarsen)
        return mondrian_splits.reapplied(*args)
    return _core.mondrian(prep.problem, order, values, k, model, relaxed)


def numbers(column: str, leaves: list[str]) -> list[float]:
    """A numeric column's values as the core cuts them (binary floats),
    refused where two values become one float: integers past 2^53, decimals
    of more digits than a float holds. Merged, a cell would show a value its
    records lack. (-0.0 and 0.0 are one number and may merge.)"""
    out = [float(v) for v in leaves]
    seen: dict[float, str] = {}
    for v, f in zip(leaves, out, strict=True):
        other = seen.setdefault(f, v)
        if other != v and Decimal(other) != Decimal(v):
            raise ConfigError(
                f"column '{column}': the values {other} and {v} are one number in binary "
                "floating point, where Mondrian's numeric cuts are made; subtract an origin "
                "or round them first, or pass the column as categorical (leave it out of "
                "numeric=)"
            )
    return out
