"""The identifiers' transformations on a Polars plan: dropped, keyed
pseudonyms (the core's HMAC-SHA-256, batch by batch in the streaming
engine), pseudonyms looked up in their table, masks."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from polars_anon import _core
from polars_anon.inputs.frames import fresh_name
from polars_anon.roles.ops import Keyed, Mapped, Op
from polars_anon.roles.spec import Drop, Mask


def _hasher(op: Keyed) -> Callable[[pl.Series], pl.Series]:
    # the key stays in this closure: a plan's repr names the function only
    def pseudonyms(s: pl.Series) -> pl.Series:
        return pl.Series(s.name, _core.pseudonyms(op.key, s, op.length), dtype=pl.String)

    return pseudonyms


def masked(expr: pl.Expr, op: Mask) -> pl.Expr:
    """`expr` (text) with every character but the first `keep_first` and the
    last `keep_last` replaced by `char`; masked whole when it has no more."""
    n = expr.str.len_chars()
    kept = op.keep_first + op.keep_last
    head = expr.str.slice(0, op.keep_first)
    tail = expr.str.slice(n - op.keep_last, op.keep_last)
    partial = pl.concat_str([head, pl.lit("").str.pad_start(n - kept, op.char), tail])
    whole = pl.lit("").str.pad_start(n, op.char)
    return pl.when(n > kept).then(partial).otherwise(whole)


def identify(plan: pl.LazyFrame, ops: list[tuple[str, Op]]) -> pl.LazyFrame:
    """`plan` with each identifier transformed in place (or dropped); the
    other columns and the rows' order as they were."""
    names = plan.collect_schema().names()
    exprs: list[pl.Expr] = []
    for c, op in ops:
        text = pl.col(c).cast(pl.String)
        if isinstance(op, Keyed):
            hashed = text.map_batches(_hasher(op), return_dtype=pl.String, is_elementwise=True)
            exprs.append(hashed.alias(c))
        elif isinstance(op, Mask):
            exprs.append(masked(text, op).alias(c))
        elif isinstance(op, Mapped):
            key = fresh_name(f"__polars_anon_value_{c}", names)
            to = fresh_name(f"__polars_anon_pseudonym_{c}", [*names, key])
            mapping = op.mapping.lazy().select(
                pl.col("value").alias(key), pl.col("pseudonym").alias(to)
            )
            plan = (
                plan.with_columns(text.alias(key))
                .join(mapping, on=key, how="left", maintain_order="left")
                .with_columns(pl.col(to).alias(c))
                .drop(key, to)
            )
    if exprs:
        plan = plan.with_columns(exprs)
    dropped = [c for c, op in ops if isinstance(op, Drop)]
    return plan.drop(dropped) if dropped else plan
