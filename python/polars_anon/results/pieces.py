"""How Mondrian's partitions (`polars_anon.mondrian`) reach the records: a
frame mapping each distinct combination of the quasi-identifiers' values (as
text, the keys) to its partition's cells (the labels). Relaxed, a
combination's records may lie in several partitions: the keys are the
sensitive values' too, and each partition holding records of a combination
has a row with the ranks [`START`, `END`) of those records among the
combination's, in the table's order."""

from __future__ import annotations

import polars as pl

from polars_anon._core import AnonError, MondrianOutcome
from polars_anon.inputs.frames import fresh_name
from polars_anon.inputs.nulls import text
from polars_anon.prepare.prepared import Prepared

# a piece's first and past-last rank among its combination's records, and
# (while the frame is built) its partition and records
START, END = "__polars_anon_start", "__polars_anon_end"
PART, COUNT = "__polars_anon_part", "__polars_anon_count"


def mapping(
    prep: Prepared, out: MondrianOutcome, relaxed: bool
) -> tuple[list[str], list[str], pl.DataFrame]:
    """The key and label columns' names (unlike the table's) and the frame."""
    taken = prep.lazy.collect_schema().names()
    names = prep.quasi_identifiers + (prep.sensitive if relaxed else [])
    keys: list[str] = []
    labels: list[str] = []
    for i in range(len(names)):
        keys.append(fresh_name(f"__polars_anon_key_{i}", [*taken, *keys]))
    for i in range(len(prep.quasi_identifiers)):
        labels.append(fresh_name(f"__polars_anon_label_{i}", [*taken, *keys, *labels]))
    # each of the outcome's columns crosses from the core once
    rows = pl.Series(out.rows, dtype=pl.UInt32)
    partition = pl.Series(out.partition, dtype=pl.UInt32)
    domains = [h.leaves for h in prep.hierarchies]
    domains += [prep.sensitive_values[s] for s in prep.sensitive] if relaxed else []
    cols: dict[str, pl.Series] = {}
    for i, (values, codes) in enumerate(zip(domains, out.codes + out.sensitive, strict=False)):
        by_code = pl.Series(values, dtype=pl.String)
        cols[keys[i]] = by_code.gather(pl.Series(codes, dtype=pl.UInt32).gather(rows))
    for i, cells in enumerate(out.labels):
        cols[labels[i]] = pl.Series(cells, dtype=pl.String).gather(partition)
    frame = pl.DataFrame(cols)
    if not relaxed:
        # rows of F0 that differ in their sensitive values only are one key
        return keys, labels, frame.unique(keys, maintain_order=True)
    # a combination's pieces in partition order, each its run of ranks
    end = pl.col(COUNT).cum_sum().over(keys, order_by=PART)
    frame = frame.with_columns(
        pl.Series(PART, out.partition, dtype=pl.UInt32),
        pl.Series(COUNT, out.counts, dtype=pl.UInt64),
    )
    frame = frame.with_columns(end.alias(END)).with_columns(
        (pl.col(END) - pl.col(COUNT)).alias(START)
    )
    return keys, labels, frame.drop(PART, COUNT)


def released(
    prep: Prepared, keys: list[str], labels: list[str], frame: pl.DataFrame
) -> pl.LazyFrame:
    """A relaxed release's records as cells, sensitive values (as text) and
    counts, from the pieces of `frame` (`mapping`), whose records per
    combination of values must be F0's, recounted by Polars."""
    count = prep.count
    qis, sens = prep.quasi_identifiers, prep.sensitive
    pieces = frame.with_columns((pl.col(END) - pl.col(START)).alias(count))
    f0 = prep.f0.lazy().select(
        *[text(pl.col(c)).alias(key) for c, key in zip(qis + sens, keys, strict=True)],
        pl.col(count),
    )
    f0 = f0.group_by(keys).agg(pl.col(count).sum())
    held = pieces.lazy().group_by(keys).agg(pl.col(count).sum())
    differ = f0.join(held, on=keys, how="full", suffix="_held", nulls_equal=True).filter(
        pl.col(count).fill_null(0) != pl.col(f"{count}_held").fill_null(0)
    )
    if differ.collect().height:
        raise AnonError(
            "internal check failed: the partitions' records differ from the table's "
            "counts; refusing to release"
        )
    names = {
        **dict(zip(labels, qis, strict=True)),
        **dict(zip(keys[len(qis) :], sens, strict=True)),
    }
    return pieces.lazy().select([*labels, *keys[len(qis) :], count]).rename(names)
