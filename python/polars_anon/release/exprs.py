"""The expressions that replace each quasi-identifier by its label at a
node's levels, read by the release, its checks, mu-Argus and the risk of a
population table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from polars_anon.inputs.frames import SIGNED, by_position
from polars_anon.inputs.nulls import text
from polars_anon.prepare import labels
from polars_anon.prepare.prepared import Prepared


def generalization_exprs(
    prep: Prepared,
    levels: Sequence[int],
    *,
    strings: bool,
    schema: Mapping[str, pl.DataType] | None = None,
    enums: bool = False,
) -> list[pl.Expr]:
    """Expressions replacing each quasi-identifier by its label at `levels`.

    With ``strings=False`` a column at level 0 keeps its own values and dtype
    (and its nulls); with ``strings=True`` every column is text, nulls as
    NULL_LABEL, as the core groups them. `schema`: the dtypes of the frame the
    expressions read, where known: a signed integer column is then mapped by
    its value (`prepare.labels.by_value`), not cast to text row by row
    first. `enums`: the generalized columns' labels as an Enum of them, for
    a check that groups the rows by them (by their codes, not their bytes)
    and casts the groups.
    """

    def typed(names: pl.Series, i: int, lvl: int) -> pl.Series:
        return names.cast(pl.Enum(labels.mapping(prep, i, lvl)[2])) if enums else names

    labels.build(prep, [(i, lvl) for i, lvl in enumerate(levels) if lvl > 0])
    out = []
    for i, (q, lvl) in enumerate(zip(prep.quasi_identifiers, levels, strict=True)):
        if lvl == 0 and not strings:
            continue
        as_str = text(pl.col(q))
        if lvl == 0:
            out.append(as_str.alias(q))
            continue
        dense = (
            labels.by_value(prep, i, lvl)
            if schema is not None and isinstance(schema[q], SIGNED)
            else None
        )
        if dense is not None:
            # a value's offset from the smallest leaf indexes its label: a
            # value below it fails the strict cast, one past the last leaf
            # the gather, and one between leaves that is none gets no label
            # (null), which the release's check refuses
            low, by_offset = dense
            index = (pl.col(q).cast(pl.Int64) - low).cast(pl.UInt32)
            out.append(pl.lit(typed(by_offset, i, lvl)).gather(index).alias(q))
        else:
            # a leaf's position among the leaves is its code as an Enum of
            # them (a value that is no leaf fails the cast), and the label is
            # gathered by it: a third of the time of replace_strict, which
            # hashes the mapping and every value
            leaves, names = labels.as_enum(prep, i, lvl)
            names = typed(names, i, lvl)
            # the Enum named by a literal of it: a dtype given from Python is
            # converted with all its categories at each cast (~1 ms for cup's
            # 13,294 ZIP codes)
            code = as_str.cast(pl.dtype_of(pl.lit(leaves))).to_physical()
            out.append(pl.lit(names).gather(code).alias(q))
    return out


def kept_as_enums(prep: Prepared, levels: Sequence[int], schema: pl.Schema) -> list[pl.Expr]:
    """The text quasi-identifiers kept at their values (level 0), each as an
    Enum of its leaves, for a release that gives them as text again after
    its check: the check then groups the rows by codes, not bytes (a
    group-by of text columns held 40-60 bytes a row, more than the
    release's own views), the suppressed groups are joined on codes, and
    the released text is made from the codes into buffers of its own. A
    value that is no leaf fails the cast and is refused. Only without
    nulls: a null is kept as null, where the suppressed groups name it by
    its label."""
    if prep.nulls != "error":
        return []
    at = by_position(schema)
    out = []
    for i, (q, lvl) in enumerate(zip(prep.quasi_identifiers, levels, strict=True)):
        if lvl == 0 and schema[q] == pl.String:
            leaves, _ = labels.as_enum(prep, i, 0)
            out.append(at[q].cast(pl.dtype_of(pl.lit(leaves))).alias(q))
    return out
