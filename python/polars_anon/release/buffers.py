"""A release's text in buffers of its own. Polars holds text as views into
shared buffers, and a filter or a join keeps the views of the rows it keeps
pointing into the table's buffers: the text of the suppressed records (and
of any row the table's buffers held) stays in them. An Arrow IPC file or a
pickle of the frame writes such buffers whole (a CSV or Parquet writer
writes values, not buffers). So an in-memory release's text columns are
copied into buffers of their own, and IPC files are written in Arrow's
classic layout (offsets and one buffer of the values written)."""

from __future__ import annotations

import io
from collections.abc import Collection
from pathlib import Path
from typing import Any

import polars as pl

from polars_anon.inputs.frames import by_position

# Arrow's layout without views: a writer copies each value it writes
IPC_LEVEL = pl.CompatLevel.oldest()


def sink_ipc(plan: pl.LazyFrame, path: Path) -> Any:
    """`plan` streamed into an IPC file at `path` (`IPC_LEVEL`), its text
    columns rebuilt first (`copied`): Polars' writer copies the bytes a
    null's view points at (Parquet's reader leaves a null's view on a
    neighbour's text), and a released row's null carried a suppressed
    record's note."""
    return copied(plan).sink_ipc(path, compat_level=IPC_LEVEL)


# text of at most this many bytes is held in its 16-byte view, not in a buffer
INLINE = 12


def copied(
    plan: pl.LazyFrame, kept: Collection[str] = (), schema: pl.Schema | None = None
) -> pl.LazyFrame:
    """`plan` with its text columns (but the `kept` ones) rebuilt value by
    value after its rows are chosen, into buffers of their own. In the plan,
    not after it: collected so, each column's views into the table's buffers
    are dropped as its copy is made, where copying a collected frame held
    the release's text twice (and Polars' allocator kept the freed half).
    The `kept` columns are left as they are: a generalized one's text is a
    level's labels (cast from an Enum of them, not the table's), and one
    whose dropped values were all of at most INLINE bytes left none in its
    buffers. Text inside other kinds: `nested`. `schema`: the plan's, when
    known (asking the plan may read its source)."""
    schema = plan.collect_schema() if schema is None else schema
    at = by_position(schema)
    flat = [
        pl.concat_str([at[c], pl.lit("")]).alias(c)
        for c, t in schema.items()
        if c not in kept and t == pl.String
    ]
    return plan.with_columns(flat) if flat else plan


def nested(frame: pl.DataFrame, kept: Collection[str] = ()) -> pl.DataFrame:
    """`frame` with its columns holding text or bytes inside other kinds
    (lists, structs, binary: rare) in buffers of their own, through an
    in-memory IPC copy in the classic layout (`kept`: as `copied`)."""
    at = by_position(frame.schema)
    other = [
        at[c]
        for c, t in frame.schema.items()
        if c not in kept and t != pl.String and holds_bytes(t)
    ]
    if not other:
        return frame
    buffer = io.BytesIO()
    frame.select(other).write_ipc(buffer, compat_level=IPC_LEVEL)
    buffer.seek(0)
    return frame.with_columns(pl.read_ipc(buffer).get_columns())


def compacted(frame: pl.DataFrame, kept: Collection[str] = ()) -> pl.DataFrame:
    """`frame` with every column holding text (or bytes, nested too) in
    buffers of its own (`copied`, `nested`)."""
    return nested(copied(frame.lazy(), kept).collect(), kept)


def holds_bytes(dtype: Any) -> bool:
    """Whether `dtype` holds text or bytes, at any depth (an Enum's or a
    Categorical's are its categories, not views of its rows)."""
    if dtype in (pl.String, pl.Binary):
        return True
    if isinstance(dtype, pl.List | pl.Array):
        return holds_bytes(dtype.inner)
    if isinstance(dtype, pl.Struct):
        return any(holds_bytes(f.dtype) for f in dtype.fields)
    return False
