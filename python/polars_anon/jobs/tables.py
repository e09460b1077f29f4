"""A job's tables: read (CSV or Parquet, with Polars, DuckDB or Spark) and
written (a release, wherever it was built), and the checksums a resolved
job records of both."""

from __future__ import annotations

import csv
import hashlib
import io
import os
import warnings
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, Protocol

from polars_anon import engines
from polars_anon._core import ConfigError
from polars_anon.exceptions import InputChangedWarning
from polars_anon.release.write import format_of, target
from polars_anon.roles.spec import Roles


def sha256(path: Path) -> str:
    """Of a file, or of a folder's files in name order (Spark writes parts)."""
    h = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        with file.open("rb") as f:
            for block in iter(lambda f=f: f.read(1 << 20), b""):  # type: ignore[misc]
                h.update(block)
    return h.hexdigest()


# files that are not tables the jobs and the command line can read
IPC = (".ipc", ".arrow", ".feather")
NOT_TABLES = (".json", ".jsonl", ".ndjson", ".xlsx", ".xls", ".ods", ".toml", ".zip", ".gz")


def read_table(
    path: Path,
    separator: str = ",",
    encoding: str = "utf8",
    engine: str = "polars",
    numbers: Collection[str] | None = None,
) -> Any:
    """A CSV (with its separator and encoding), Parquet or Arrow IPC file: lazily with
    Polars, or as a DuckDB relation or Spark DataFrame (``engine``), so the
    table is read and grouped where that engine runs (the engine's ``read``).
    A CSV's columns of `numbers` are read as numbers where they hold numbers
    (none written with a leading zero), every other one as the text it is in
    the file (`jobs.csv_types.numbers_of`: the columns a job needs as
    numbers); None: every column that holds numbers, for a caller that does
    not know the columns' roles. A Parquet or IPC file is read as typed."""
    if not path.exists():
        raise ConfigError(f"cannot read {path}: no such file")
    if path.is_dir() and not any(path.glob("*.parquet")):
        raise ConfigError(
            f"cannot read {path}: a folder is read as Parquet parts (*.parquet), "
            "and this one holds none"
        )
    if path.is_file() and path.suffix.lower() in NOT_TABLES:
        raise ConfigError(
            f"cannot read {path}: a table is a CSV or Parquet file (or a folder of Parquet "
            f"parts), not {path.suffix}; read it with Polars and pass the DataFrame "
            "(pa.search, pa.generalize) instead"
        )
    readers = [e for e in engines.ENGINES if e != "counts"]
    if engine not in readers:
        raise ConfigError(
            f"unknown engine {engine!r}; expected {', '.join(readers[:-1])} or {readers[-1]}"
        )
    if path.is_file() and path.suffix.lower() in IPC:
        # what a release written as .ipc/.arrow/.feather is read back as
        if engine != "polars":
            raise ConfigError(
                f"cannot read {path} on {engine}: an Arrow IPC file is read on the polars "
                "engine; read it there, or convert it to Parquet"
            )
        import polars as pl

        return pl.scan_ipc(path)
    if path.is_file() and path.suffix.lower() != ".parquet":
        check_header(path, separator, encoding)
    return engines.module(engine).read(path, separator, encoding, numbers)


def check_header(path: Path, separator: str, encoding: str) -> None:
    """A CSV whose header names a column twice is refused: readers rename
    the second (Polars ``zip_duplicated_0``, DuckDB ``zip_1``), which then
    has no role it was given and was released as it was."""
    with path.open("rb") as f:
        # the first record, whatever its length: lines up to one that
        # closes every quote (a quoted name may hold a line break)
        head = f.readline()
        while head.count(b'"') % 2 and (line := f.readline()):
            head += line
    try:
        text = head.decode(encoding if encoding.lower() != "utf8-lossy" else "utf8", "replace")
        names = next(csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=separator), [])
    except (csv.Error, LookupError, TypeError, ValueError):
        return  # the reader says what is wrong with it
    seen: dict[str, int] = {}
    for i, name in enumerate(names, 1):
        if name in seen:
            raise ConfigError(
                f"{path}: its header names the column {name!r} twice (columns {seen[name]} "
                f"and {i}); give each column a name of its own"
            )
        seen[name] = i


def write_table(release: Any, path: Path, separator: str = ",") -> int:
    """Write a release as Parquet or CSV where it was built (the engine's
    ``write``: Polars, a DuckDB relation, a Spark DataFrame, which writes a
    folder of parts); its rows."""
    where = engines.engine_of(release)
    return engines.module(where).write(release, path, separator)  # type: ignore[no-any-return]


def output_format(path: Path, engine: str = "polars") -> str:
    """The release's format, named by `path`'s suffix (`release.write.SUFFIXES`:
    .csv, .parquet, .arrow/.ipc/.feather for Arrow IPC), refused before any
    work when the suffix names none, or names Arrow IPC off Polars (DuckDB
    and Spark write Parquet or CSV)."""
    try:
        fmt = format_of(path, folders=False)
    except ConfigError as e:
        raise ConfigError(f"the output: {e}") from None
    if fmt == "ipc" and engine != "polars":
        raise ConfigError(
            f"cannot write the output {str(path)!r}: a release on {engine} is written "
            f"as .parquet or .csv, not {path.suffix}"
        )
    return fmt


def same_file(a: Path, b: Path, inside: bool = True) -> bool:
    """Whether `a` and `b` name one file (or, `inside`, `a` lies in the
    folder `b`)."""
    try:
        ra, rb = a.resolve(), b.resolve()
        if ra == rb or (inside and rb.is_dir() and ra.is_relative_to(rb)):
            return True
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def refuse_overwrite(writes: Mapping[str, Path], reads: Mapping[str, Path]) -> None:
    """Refuse, before any work, a file the run writes (`writes`: what it is
    -> its path) that is a file it reads (`reads`), naming both."""
    for what, out in writes.items():
        for source, path in reads.items():
            if same_file(out, path):
                raise ConfigError(
                    f"cannot write {what} to {str(out)!r}: it is {source} {str(path)!r}, "
                    "which the run reads; write it elsewhere"
                )


# beside a Mondrian job's output: the splits of its partition
SPLITS = ".splits.parquet"


class JobPaths(Protocol):
    """What `before_work` reads of a `polars_anon.Job`."""

    input: Path
    output: Path
    engine: str
    hierarchies: dict[str, dict[str, Any]]
    criteria: list[dict[str, Any]]
    roles: Roles
    splits: Path | None


def before_work(job: JobPaths, digest: bool = True) -> str | None:
    """What a job's run checks before any work: the release's format
    (`output_format`), and that neither the release nor its resolved job
    (``<output>.job.toml``) is a file the run reads: its input, a hierarchy,
    a population table, a key file, a pseudonym table or Mondrian's recorded
    splits. Then, with `digest`, the input's checksum, taken before
    anything is written (None without, or when there is no input: its read
    says so)."""
    output_format(job.output, job.engine)
    reads = {"the input": job.input}
    for column, h in job.hierarchies.items():
        if "path" in h:
            reads[f"the hierarchy of {column!r}"] = Path(h["path"])
    for c in job.criteria:
        if isinstance(c.get("population"), str):
            reads[f"the population table of {c.get('type')}"] = Path(c["population"])
    for column, t in job.roles.identifiers.items():
        for name in ("key_file", "table"):
            if getattr(t, name, None) is not None:
                reads[f"the {name.replace('_', ' ')} of identifier {column!r}"] = Path(
                    getattr(t, name)
                )
    if job.splits is not None:
        reads["the recorded splits"] = job.splits
    writes = {"the release": job.output, "the resolved job": Path(f"{job.output}.job.toml")}
    refuse_overwrite(writes, reads)
    # and none a folder where a file goes (nor the splits Mondrian writes):
    # found only after the release was in place, the run failed having
    # written it
    splits = Path(f"{job.output}{SPLITS}")
    target(job.output)
    for what, path in (("the resolved job", writes["the resolved job"]), ("the splits", splits)):
        if path.is_dir():
            raise ConfigError(f"cannot write {what} to {str(path)!r}: it is a folder")
        # an existing file the run could not rewrite (read-only, immutable)
        # failed the run after the release had replaced the last one, left
        # beside a job file that no longer describes it
        if path.exists():
            try:
                open(path, "a").close()
            except OSError as e:
                raise ConfigError(
                    f"cannot write {what} to {str(path)!r}: {e.strerror or e}"
                ) from None
    return sha256(job.input) if digest and job.input.exists() else None


def input_changed(input: Path, recorded: tuple[Path, str] | None, digest: str | None) -> None:
    """An `InputChangedWarning` when `input` is the file a resolved job
    recorded (`recorded`: its path and sha256) and its checksum now
    (`digest`, or taken here) differs. Unlike a changed hierarchy, splits
    or population file (refused: they are the model), the input is the data
    a job is run again on: its change is noted, not refused."""
    if recorded is None or not same_file(input, recorded[0]) or not input.exists():
        return
    was = recorded[1]
    now = digest or sha256(input)
    if now != was:
        message = (
            f"job file: [input] {str(input)!r} changed since the job was resolved: its "
            f"recorded sha256 ({was[:16]}...) and its current one ({now[:16]}...) differ; "
            "the run reads the file as it is now and re-checks the release on it (to "
            "silence this, delete sha256 under [input])"
        )
        warnings.warn(InputChangedWarning(message, input, was, now), stacklevel=3)
