"""The release as a LazyFrame that checks itself whenever it is collected,
and written to a file proven on the file it wrote."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import polars as pl
from polars.io.plugins import register_io_source

from polars_anon._core import ConfigError, NotAnonymousError
from polars_anon.inputs.frames import by_position
from polars_anon.inputs.nulls import text
from polars_anon.release.buffers import copied, nested, sink_ipc
from polars_anon.release.quiet import quiet_panics, said, sources
from polars_anon.release.write import FORMATS, read_back, written_beside
from polars_anon.reports.render import levels_text, one_of
from polars_anon.roles import undeclared

# A release of more rows than this is not held in memory to be checked when
# it is collected or sunk: it is written to a temporary Parquet file,
# proven there (`write`), and read back in batches from that very file.
SPOOL_ROWS = 1_000_000
# the batches a spooled release is read back in, when Polars names none
BATCH_ROWS = 100_000


class Guarded:
    """The release as a LazyFrame that checks itself whenever, and however
    often, it is collected. Its plan reads the source again; the rows it gives
    must form exactly the groups (quasi-identifier labels and sensitive values,
    with their sizes) that were checked when the release was made, or nothing
    is released. A source replaced or changed since then is refused, also when
    Polars fails while reading it. Whatever the user chains after the release
    (a projection, a filter, a head) applies after this check."""

    def __init__(
        self,
        plan: pl.LazyFrame,
        by: list[str],
        expected: pl.DataFrame,
        count: str,
        k: int,
        labelled: list[str],
        passed: dict[str, undeclared.Counted] | None = None,
        rows: int = 0,
    ) -> None:
        self.plan, self.by, self.count, self.k = plan, by, count, k
        # the columns with no role passed through, with their distinct
        # values in the table of `rows` rows checked (`roles.undeclared`)
        self.passed, self.rows = passed or {}, rows
        # whether the plan drops rows (suppressed records), whose text its
        # columns' buffers then still hold (`buffers`), and the columns whose
        # dropped values were all short enough to be held in the views
        # themselves, not in buffers: set by its builder
        self.drops_rows, self.inline = True, set(labelled)
        # the rows of the source, counted again whenever it is released
        # (`same_rows`; None for a source in memory, which cannot change)
        self.counted: pl.LazyFrame | None = None
        # columns the plan gives as Enums of their labels: released as text
        self.labelled = labelled
        # what became of every column (`roles.fates`), set by its builder
        self.columns: pl.DataFrame | None = None
        self.expected = expected.sort(by)
        self.schema = plan.collect_schema()
        for q in labelled:
            self.schema[q] = pl.String()

    def lazy(self) -> pl.LazyFrame:
        return register_io_source(
            self.source,
            schema=self.schema,
            explain_name="polars_anon release",
            explain_detail=f"k = {self.k}, re-checked when collected",
        )

    def source(
        self,
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        if int(self.expected.get_column(self.count).sum()) > SPOOL_ROWS:
            yield from self.spooled(with_columns, predicate, n_rows, batch_size)
            return
        self.same_rows()
        # where rows were dropped, the text copied in the plan (`buffers`):
        # each column made once. The labels stay Enums through the check (a
        # group-by of their codes holds a fraction of one of their text).
        # (the schema taken when made: asking a plan read from a pickle
        # reads its source, outside the collect that refuses a changed one)
        plan = copied(self.plan, self.inline, self.schema) if self.drops_rows else self.plan
        frame = self.collect(plan)
        self.check(frame)
        frame = frame.with_columns(pl.col(self.labelled).cast(pl.String))
        if self.drops_rows:
            frame = nested(frame, self.inline)
        yield narrowed(frame.lazy(), with_columns, predicate, n_rows).collect()

    def spooled(
        self,
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        """The release proven on a temporary file (`write`) and read back
        from it in batches: what is checked is what is released, and the
        release is never held whole. The file goes when the batches end."""
        with tempfile.TemporaryDirectory(prefix="polars-anon-") as folder:
            # Parquet, not IPC: read back by row groups, where an IPC file is
            # mapped whole (1.6 GiB of resident pages for 10M rows against
            # 0.4 GiB; bench/README.md)
            lf = pl.scan_parquet(self.write(Path(folder) / "release.parquet", "parquet"))
            lf = narrowed(lf, with_columns, predicate, n_rows)
            yield from lf.collect_batches(chunk_size=batch_size or BATCH_ROWS, engine="streaming")

    def write(self, path: str | os.PathLike[str], fmt: str, separator: str = ",") -> Path:
        """The release written to `path` as `fmt` (one of `FORMATS`), proven
        on the file: the plan runs on Polars' streaming engine into a
        temporary file beside the target; the file is read back by a
        streaming group-by and must hold exactly the checked groups; only
        then is it moved into place (an atomic rename). On a mismatch, an
        error or an interruption the temporary file is removed and nothing
        is left at the target. The proof reads what will be released, so a
        source changed under the plan cannot leak."""
        if fmt not in FORMATS:
            raise ConfigError(f"unknown format {fmt!r}; expected {one_of(FORMATS)}")
        self.same_rows()

        def write(tmp: Path) -> None:
            if fmt == "csv":
                self.stream(lambda plan: plan.sink_csv(tmp, separator=separator), tmp)
            elif fmt == "ipc":
                self.stream(lambda plan: sink_ipc(plan, tmp), tmp)
            else:
                self.stream(lambda plan: getattr(plan, f"sink_{fmt}")(tmp), tmp)
            self.prove(read_back(tmp, fmt, separator, self.schema.names()))

        return written_beside(path, write)

    def stream(self, sink: Callable[[pl.LazyFrame], object], into: Path | None = None) -> None:
        """`sink` given the release's plan (its labels as text), run on
        Polars' streaming engine; a source Polars fails on is refused. A
        file system error writing `into` (permissions, a full disk) is
        raised as one: an OSError naming no file the plan reads, or `into`."""
        plan = self.plan.with_columns(pl.col(self.labelled).cast(pl.String))
        try:
            with quiet_panics():
                sink(plan)
        except BaseException as e:
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            said = str(e)
            if into is not None and isinstance(e, OSError) and written_into(said, into, self.plan):
                first = said.splitlines()[0] if said else type(e).__name__
                raise OSError(f"cannot write the release to {into.parent}: {first}") from None
            raise self.unreadable(e) from None

    def same_rows(self) -> None:
        """A source read again must hold as many rows as were checked: rows
        added to or taken from the groups suppressed leave the released
        groups as checked, and passed their check, releasing a table that
        suppressed more (or fewer) records than were checked against
        max_suppression. (Counted before the release reads it: Parquet from
        its metadata, a CSV by its lines.)"""
        counted = getattr(self, "counted", None)  # (a pickle from before it existed)
        if counted is None:
            return
        now = int(self.collect(counted).item())
        if now != self.rows:
            raise rows_changed(f"source ({', '.join(sources(self.plan))})", self.rows, now)

    def prove(self, written: pl.LazyFrame) -> None:
        prove(written, self.schema, self.by, self.expected, self.count, self.k)
        # a CSV's text read back as the release's values (-0.0 and 0.0: one)
        passed = list(self.passed)
        undeclared.recheck(typed(written, self.schema, passed), self.passed, self.rows)

    def unreadable(self, e: BaseException) -> NotAnonymousError:
        return unreadable(e, self.plan)

    def collect(self, plan: pl.LazyFrame) -> pl.DataFrame:
        """`plan` (the release's, or one made of it) collected; a source
        changed so that Polars cannot read it is refused."""
        try:
            with quiet_panics():
                return plan.collect()
        except BaseException as e:
            # Polars panics (a BaseException) on some sources changed under a
            # plan, such as a Parquet file shorter than when it was scanned
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            raise self.unreadable(e) from None

    def check(self, frame: pl.DataFrame) -> None:
        # grouped by the values as they are, then as text (`as_text`)
        got = as_text(frame.lazy(), self.by, self.count, self.labelled).collect().sort(self.by)
        if not got.equals(self.expected):
            raise mismatch(self.expected, got, self.count, self.k, "refusing to release it")
        undeclared.recheck(frame.lazy(), self.passed, self.rows)


# what the file system says when it will not take a write (ENOSPC, EACCES,
# EROFS, EDQUOT)
REFUSED_WRITES = (
    "No space left",
    "Permission denied",
    "Read-only file system",
    "Disk quota exceeded",
)


def written_into(said: str, into: Path, plan: pl.LazyFrame) -> bool:
    """Whether a file system error's message (`said`) is about writing
    `into` rather than reading `plan`'s source: it names `into`, or names
    none of the files the plan scans and says what a refused write says."""
    if str(into) in said:
        return True
    read = [f for listed in sources(plan) for f in listed.split(", ")]
    if any(f in said for f in read):
        return False
    return any(reason in said for reason in REFUSED_WRITES)


def prove(
    written: pl.LazyFrame,
    schema: pl.Schema,
    by: list[str],
    expected: pl.DataFrame,
    count: str,
    k: int,
) -> None:
    """What was written, read back by a streaming group-by, must hold
    exactly the checked groups (`expected`: `by` and their sizes `count`);
    date-times a file holds as text are read as the release's (`schema`)."""
    got = as_text(typed(written, schema, by), by, count).collect(engine="streaming").sort(by)
    expected = expected.with_columns([text(pl.col(c)) for c in by]).sort(by)
    if not got.equals(expected.with_columns(pl.col(count).cast(got.schema[count]))):
        raise mismatch(expected, got, count, k, "nothing was written")


def typed(written: pl.LazyFrame, schema: pl.Schema, by: list[str]) -> pl.LazyFrame:
    """A written file's date-times, times and floats read back as the
    release's types where the file holds them as text (CSV), and its zoned
    date-times in the release's zone and unit: a writer's text
    for them (ISO, with a T and an offset; DuckDB's nan) is not Polars' cast
    to text, which the checked groups hold. Text that does not parse reads
    as null and fails the proof."""
    have = written.collect_schema()
    at = by_position(have)
    parsed = []
    for c in by:
        dtype, col, got = schema[c], at[c], have[c]
        if isinstance(dtype, pl.Datetime) and isinstance(got, pl.Datetime):
            # the same instants, written in another zone or unit (DuckDB
            # writes a zoned column in UTC whatever its session's zone):
            # read in the release's, whose text the checked groups hold
            if got.time_zone is not None and dtype.time_zone is not None:
                col = col.dt.convert_time_zone(dtype.time_zone)
            if got != dtype:
                parsed.append(col.dt.cast_time_unit(dtype.time_unit).alias(c))
            continue
        if dtype == pl.String and got == pl.Binary:
            # DuckDB writes a UUID to Parquet as its 16 bytes: read as its
            # text (other bytes read as text that the checked groups lack)
            parsed.append(uuid_text(col).alias(c))
            continue
        if have[c] != pl.String:
            continue
        if isinstance(dtype, pl.Datetime):
            unit, zone = dtype.time_unit, dtype.time_zone
            to = col.str.to_datetime(time_unit=unit, time_zone=zone, strict=False)
            parsed.append(to.alias(c))
        elif isinstance(dtype, pl.Time):
            parsed.append(col.str.to_time(strict=False).alias(c))
        elif dtype.is_float():
            # DuckDB writes NaN as nan; one number reads back as one text
            parsed.append(col.cast(dtype, strict=False).alias(c))
    return written.with_columns(parsed) if parsed else written


def uuid_text(column: pl.Expr) -> pl.Expr:
    """16 bytes as a UUID's text (8-4-4-4-12 hex digits); any other length
    as its hex digits."""
    h = column.bin.encode("hex")
    parts = [h.str.slice(a, n) for a, n in ((0, 8), (8, 4), (12, 4), (16, 4), (20, 12))]
    dashed = pl.concat_str(parts, separator="-")
    return pl.when(column.bin.size() == 16).then(dashed).otherwise(h)


def as_text(
    rows: pl.LazyFrame, by: list[str], count: str, labelled: Sequence[str] = ()
) -> pl.LazyFrame:
    """The groups of `rows` by `by` with their sizes (`count`), the keys as
    text as the checked groups hold them. Grouped by the values as they are
    and made text after: a number cast to text for every row first held a
    string per row and value beside the release (a third of a collected
    release's size). One value is one text, so groups that pass this way
    pass as text, except where grouping joins values of two texts: Polars
    groups -0.0 with 0.0, so floats are made text first."""
    schema = rows.collect_schema()
    first = [c for c in by if schema[c].is_float()]
    keys = [pl.col(c).cast(pl.String) if c in labelled else text(pl.col(c)) for c in by]
    return (
        rows.select([text(pl.col(c)) if c in first else pl.col(c) for c in by])
        .group_by(by)
        .len(name=count)
        .with_columns(keys)
    )


def over_budget(
    levels: dict[str, int],
    suppressed: int,
    k: int,
    criteria: bool,
    budget: tuple[int | float, int],
    rows: int,
) -> NotAnonymousError:
    """The error for `levels` that suppress more tuples of the table's
    `rows` (in groups smaller than `k`, or failing the `criteria`) than its
    `budget` allows: max_suppression as given, and in tuples."""
    return NotAnonymousError(
        f"levels {levels_text(levels, ', ')} leave {suppressed:,} "
        f"row{'' if suppressed == 1 else 's'} in groups that are smaller than k = {k}"
        + (" or fail the criteria" if criteria else "")
        + f", more than max_suppression = {budget[0]!r} allows "
        + f"({budget[1]:,} of this table's {rows:,} rows)"
    )


def rows_changed(source: str, checked: int, now: int) -> NotAnonymousError:
    """The error for a `source` (what it is, to name it) read again with
    another number of rows than the release was checked on."""
    return NotAnonymousError(
        f"the {source} changed since this release was checked: it was checked as {checked} "
        f"rows and now holds {now}; refusing to release it. Generalize the current data again."
    )


def unreadable(e: BaseException, plan: pl.LazyFrame | None = None) -> NotAnonymousError:
    """The error for a source Polars could not read as it was, naming the
    files `plan` scans."""
    # (a Python source names no file)
    files = [f for f in sources(plan) if f] if plan is not None else []
    which = f" ({', '.join(files)})" if files else ""
    uncovered = re.search(
        r"to `enum` failed in column '(.*)' for (?:(\d+) out of )?.*: \[(.*)\]", said(e)
    )
    if uncovered:
        # a value the release's labels do not map: new in the source, or
        # one the table's count missed (a fault); never released either way
        # (Polars counts the rows that failed: one is one value)
        column, failed, values = uncovered.groups()
        held, them = ("a value", "it") if failed == "1" else ("values", "them")
        return NotAnonymousError(
            f"the source{which} holds {held} of column '{column}' that this release's labels "
            f"do not cover ({values}): it changed since the release was checked, its plan "
            "gives other rows each time it runs (a sample, a shuffle), or the count it was "
            f"checked on missed {them}; refusing to release it. Generalize the current data "
            "again (a plan that draws a sample or shuffles: collect it first)."
        )
    return NotAnonymousError(
        f"the source{which} could not be read as it was when this release was checked: "
        f"it changed since ({said(e)}); refusing to release it. "
        "Generalize the current data again."
    )


def narrowed(
    lf: pl.LazyFrame,
    with_columns: list[str] | None,
    predicate: pl.Expr | None,
    n_rows: int | None,
) -> pl.LazyFrame:
    """What the user chained after the release, which Polars hands to its
    source: applied after the check."""
    if with_columns is not None:
        lf = lf.select(with_columns)
    if predicate is not None:
        lf = lf.filter(predicate)
    if n_rows is not None:
        lf = lf.head(n_rows)
    return lf


def mismatch(
    expected: pl.DataFrame, got: pl.DataFrame, count: str, k: int, outcome: str
) -> NotAnonymousError:
    """The error for rows that do not form the checked groups, saying which
    of the two causes fits: a source changed since the check, or a plan
    that gives other rows each time it runs (then the numbers can agree)."""
    rows, groups = int(expected.get_column(count).sum()), expected.height
    got_rows = int(got.get_column(count).sum())
    smallest = int(got.get_column(count).min()) if got.height else 0  # type: ignore[arg-type]
    if (got_rows, got.height) == (rows, groups):
        return NotAnonymousError(
            f"the release's rows are not those checked, though as many ({rows} rows in "
            f"{groups} groups, smallest now {smallest}, k = {k}); {outcome}. Its plan gives "
            "other rows each time it runs (a sample, a shuffle, a random filter) or its "
            "source was changed in place: collect the data first and release the DataFrame, "
            "or generalize the current data again."
        )
    return NotAnonymousError(
        f"the source changed since this release was checked: it was checked as {rows} rows "
        f"in {groups} groups, and now gives {got_rows} rows in {got.height} groups "
        f"(smallest {smallest}, k = {k}); {outcome}. Generalize the current data again (or, "
        "for a plan that draws a sample or shuffles, collect it first)."
    )
