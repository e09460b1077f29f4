"""A release written to a file, proven on the file it wrote: the release's
plan runs on Polars' streaming engine into a temporary file beside the
target; the written file is read back by a streaming group-by and must hold
exactly the groups that were checked (quasi-identifier labels, sensitive
values, sizes); only then is it moved into place, by an atomic rename. On a
mismatch, an error or an interruption the temporary file is removed and
nothing is left at the target. The proof reads what will be released, so a
source changed under the plan cannot leak, and the release is never held in
memory."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import polars as pl

from polars_anon._core import ConfigError, NotAnonymousError
from polars_anon.inputs.nulls import text
from polars_anon.release.guard import Guarded

FORMATS = ("parquet", "csv", "ipc")


def target(path: str | os.PathLike[str]) -> Path:
    """The file to write, checked before any work: its folder exists and is
    writable, and it is not a folder itself."""
    p = Path(path)
    folder = p.parent if str(p.parent) else Path()
    if not folder.is_dir():
        raise ConfigError(f"cannot write the release to {p}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise ConfigError(f"cannot write the release to {p}: folder {folder} is not writable")
    if p.is_dir():
        raise ConfigError(f"cannot write the release to {p}: it is a folder")
    return p


def read_back(path: Path, fmt: str) -> pl.LazyFrame:
    if fmt == "parquet":
        return pl.scan_parquet(path)
    if fmt == "ipc":
        return pl.scan_ipc(path)
    # every column as the text written: compared as text below
    return pl.scan_csv(path, infer_schema=False)


def sink(release: Guarded, path: str | os.PathLike[str], fmt: str) -> Path:
    """Write `release` to `path` as `fmt` (one of `FORMATS`), proven on the
    written file (see the module doc); the path written."""
    if fmt not in FORMATS:
        raise ConfigError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    final = target(path)
    tmp = final.with_name(f".{final.name}.{uuid.uuid4().hex[:12]}.polars-anon.tmp")
    plan = release.plan.with_columns(pl.col(release.labelled).cast(pl.String))
    try:
        try:
            getattr(plan, f"sink_{fmt}")(tmp)
        except BaseException as e:
            # Polars panics (a BaseException) on some sources changed under a
            # plan, such as a Parquet file shorter than when it was scanned
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            raise NotAnonymousError(
                "the source could not be read as it was when this release was checked "
                f"({type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}); "
                "nothing was written. Generalize the current data again."
            ) from None
        by, count = release.by, release.count
        got = (
            read_back(tmp, fmt)
            .select([text(pl.col(c)) for c in by])
            .group_by(by)
            .len(name=count)
            .collect(engine="streaming")
            .sort(by)
        )
        expected = release.expected.with_columns([text(pl.col(c)) for c in by]).sort(by)
        if not got.equals(expected):
            rows, groups = int(expected.get_column(count).sum()), expected.height
            raise NotAnonymousError(
                f"the written file does not hold the release that was checked ({rows} rows "
                f"in {groups} groups; the file has {int(got.get_column(count).sum())} rows in "
                f"{got.height} groups): the source changed since the release was made; "
                "nothing was written. Generalize the current data again."
            )
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)
    return final
