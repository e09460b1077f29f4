"""A release written as a folder of Parquet parts (`write_parts`), proven
on the parts as a whole before the folder is moved into place, and where a
release goes when it is written (`destination`, `write_release`): one file
in the format its suffix names, or a folder of parts."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, runtime_checkable

import polars as pl
from polars.io.partition import FileProviderArgs

from polars_anon._core import ConfigError
from polars_anon.inputs.params import path_param
from polars_anon.release.buffers import sink_ipc
from polars_anon.release.write import SUFFIXES, beside, format_of, target, written_beside

# the name of the i-th part of a folder
PART = "part-{:05d}.parquet"
# without partition_rows, parts of about this many bytes (as Polars
# estimates them in memory; smaller on disk once compressed)
PART_BYTES = 512 * 1024 * 1024


class Written(Protocol):
    """A release that writes itself to a file (`OnEngine`: by its engine)."""

    def write(self, path: str | os.PathLike[str], fmt: str, separator: str = ",") -> Path: ...


@runtime_checkable
class Writable(Written, Protocol):
    """A release to write: its plan streamed into a sink, then what was
    written proven against it (`Guarded`, or `Unproven`); also as parts."""

    def stream(self, sink: Callable[[pl.LazyFrame], object], into: Path | None = None) -> None: ...

    def prove(self, written: pl.LazyFrame) -> None: ...


class Unproven:
    """A generalization asked for no k and no criteria: there are no checked
    groups to prove it against, so it is written as it streams (still into
    a temporary file or folder moved into place, so that an error leaves
    nothing at the target)."""

    def __init__(self, plan: pl.LazyFrame) -> None:
        self.plan = plan

    def stream(self, sink: Callable[[pl.LazyFrame], object], into: Path | None = None) -> None:
        sink(self.plan)

    def prove(self, written: pl.LazyFrame) -> None:
        return None

    def write(self, path: str | os.PathLike[str], fmt: str, separator: str = ",") -> Path:

        def write(tmp: Path) -> None:
            if fmt == "csv":
                self.plan.sink_csv(tmp, separator=separator)
            elif fmt == "ipc":
                sink_ipc(self.plan, tmp)
            else:
                getattr(self.plan, f"sink_{fmt}")(tmp)

        return written_beside(path, write)


def is_folder(path: str | os.PathLike[str], partition_rows: int | None = None) -> bool:
    """Whether `path` asks for a folder of parts: it ends with a slash or is
    an existing folder, or `partition_rows` is given."""
    text = os.fspath(path)
    return partition_rows is not None or text.endswith(("/", os.sep)) or Path(text).is_dir()


def folder_target(path: str | os.PathLike[str]) -> Path:
    """The folder to write parts into, checked before any work: its parent
    exists and is writable, and it is either absent or an empty folder."""
    p = Path(os.path.abspath(path))
    where = f"cannot write the release to {os.fspath(path)}"
    if not p.parent.is_dir():
        raise ConfigError(f"{where}: folder {p.parent} does not exist")
    if not os.access(p.parent, os.W_OK):
        raise ConfigError(f"{where}: folder {p.parent} is not writable")
    if p.exists() and not p.is_dir():
        raise ConfigError(f"{where}: it is a file, not a folder for the parts")
    if p.is_dir() and any(p.iterdir()):
        raise ConfigError(f"{where}: the folder is not empty; name a new or empty folder")
    return p


def rows_per_part(partition_rows: int | None) -> int | None:
    if partition_rows is None:
        return None
    if isinstance(partition_rows, bool) or not isinstance(partition_rows, int):
        raise ConfigError(f"partition_rows must be an int; got {partition_rows!r:.60}")
    if partition_rows < 1:
        raise ConfigError(f"partition_rows must be at least 1; got {partition_rows}")
    return partition_rows


def part_name(args: FileProviderArgs) -> str:
    return PART.format(args.index_in_partition)


def scan_parts(folder: Path) -> pl.LazyFrame:
    """The parts written into `folder`, read back as one table."""
    return pl.scan_parquet(folder / "*.parquet")


def write_parts(
    release: Writable, path: str | os.PathLike[str], partition_rows: int | None = None
) -> Path:
    """The release written as Parquet parts (``part-00000.parquet``, ...,
    each of at most `partition_rows` rows, else of about `PART_BYTES`) into
    a temporary folder beside `path`, proven on the parts read back as one
    table by a streaming group-by, then moved into place by one rename.
    On a mismatch, an error or an interruption the temporary folder is
    removed and nothing is left at `path`."""
    rows = rows_per_part(partition_rows)
    final = folder_target(path)
    tmp = beside(final)
    tmp.mkdir()
    try:
        parts = pl.PartitionBy(
            tmp,
            max_rows_per_file=rows,
            approximate_bytes_per_file=PART_BYTES if rows is None else "auto",
            file_path_provider=part_name,
        )
        release.stream(lambda plan: plan.sink_parquet(parts, engine="streaming"), tmp)
        release.prove(scan_parts(tmp))
        try:
            # replaces an empty folder at the target, refuses one filled since
            os.replace(tmp, final)
        except OSError as e:
            raise ConfigError(
                f"cannot move the release into {os.fspath(path)}: {e.strerror}; nothing was written"
            ) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return Path(path)


def destination(path: str | os.PathLike[str], partition_rows: int | None = None) -> str:
    """Where a release goes, checked before any work: ``"parts"`` for a
    folder (`is_folder`), else the format the file's suffix names."""
    path = path_param("out", path)
    if is_folder(path, partition_rows):
        rows_per_part(partition_rows)
        folder_target(path)
        return "parts"
    fmt = format_of(path)
    target(path)
    return fmt


def write_release(
    release: Written,
    path: str | os.PathLike[str],
    kind: str,
    partition_rows: int | None = None,
    separator: str = ",",
) -> Path:
    """`release` written to `path` as `destination` or `sink_kind` found it
    (`kind`; a CSV's fields separated by `separator`)."""
    if kind == "parts":
        if not isinstance(release, Writable):
            raise ConfigError("a folder of parts is written from a release on Polars only")
        return write_parts(release, path, partition_rows)
    return release.write(path, kind, separator)


def sink_kind(path: str | os.PathLike[str], fmt: str, partition_rows: int | None = None) -> str:
    """Where a ``sink_<fmt>`` goes, checked before any work: ``"parts"`` for
    Parquet into a folder (`destination`), else `fmt` at a file target."""
    path = path_param("path", path)
    if fmt == "parquet" and is_folder(path, partition_rows):
        return destination(path, partition_rows)
    suffix = Path(path).suffix.lower()
    # a suffix no format has is the user's to choose; one of another format
    # would leave a file that its own name misreads
    if SUFFIXES.get(suffix, fmt) != fmt:
        named = {"parquet": "Parquet", "csv": "CSV", "ipc": "Arrow IPC"}
        raise ConfigError(
            f"sink_{fmt} writes {named[fmt]}, but {os.fspath(path)!r} ends in {suffix!r}, "
            f"which names {named[SUFFIXES[suffix]]}: use sink_{SUFFIXES[suffix]}, or name the "
            "file for what it holds"
        )
    target(path)
    return fmt
