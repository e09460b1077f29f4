"""Where a release is written (`Guarded.write` writes it, proven on the
file): the formats, the target checked before any work, and the written
file read back."""

from __future__ import annotations

import os
import signal
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import polars as pl

from polars_anon._core import ConfigError

FORMATS = ("parquet", "csv", "ipc")
# the format a file's suffix names (`format_of`)
SUFFIXES = {
    ".parquet": "parquet",
    ".csv": "csv",
    ".ipc": "ipc",
    ".arrow": "ipc",
    ".feather": "ipc",
}


def format_of(path: str | os.PathLike[str], folders: bool = True) -> str:
    """The format of the file `path` names, by its suffix (where `folders`
    of parts may be written, the refusal says how to ask for one)."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ConfigError(
            f"cannot tell the format of {os.fspath(path)!r} from its suffix "
            f"{suffix or '(none)'!r}: use one of {', '.join(SUFFIXES)}"
            + (", or end the path with a slash for a folder of Parquet parts" if folders else "")
        )
    return SUFFIXES[suffix]


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


def beside(final: Path) -> Path:
    """A fresh hidden name beside `final`, where a release is written (or a
    folder of parts made) before it is proven and renamed onto `final`."""
    return final.with_name(f".{final.name}.{uuid.uuid4().hex[:12]}.polars-anon.tmp")


def written_beside(path: str | os.PathLike[str], write: Callable[[Path], None]) -> Path:
    """The file `write` makes at a temporary path beside `path` (checked by
    `target`), renamed onto it once `write` returns; on an error, an
    interruption or a failed proof inside `write` the temporary file is
    removed and nothing is left at `path`. Ctrl-C waits for the write to
    end (`interrupt_after`)."""
    final = target(path)
    tmp = beside(final)
    try:
        with interrupt_after() as held:
            write(tmp)
            if held:  # Ctrl-C during the write: nothing is moved into place
                raise KeyboardInterrupt
            os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)
    return final


@contextmanager
def interrupt_after() -> Iterator[list[int]]:
    """Ctrl-C (SIGINT) held until the block ends, then raised; the block
    is given the interrupts held so far (a list), to stop short of what it
    would leave: Polars' sinks wait on threads of their own, and an
    interrupt raised while they ran left the temporary file to be made
    (whole) after it was removed. Only in the main thread, where Python
    handles signals; a block inside another shares its list."""
    if _holding:
        yield _holding[-1]  # (held by the enclosing block, which raises it)
        return
    held: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield held
        return
    before = signal.signal(signal.SIGINT, lambda number, _: held.append(number))
    _holding.append(held)
    try:
        yield held
    finally:
        _holding.pop()
        signal.signal(signal.SIGINT, before if before is not None else signal.default_int_handler)
    if held:
        raise KeyboardInterrupt


# the interrupts `interrupt_after` holds now (one list while it does)
_holding: list[list[int]] = []


def write_text_whole(path: Path, text: str) -> None:
    """`text` written to `path` whole or not at all (a file beside it,
    renamed onto it; Ctrl-C waits for it)."""
    tmp = beside(path)
    try:
        with interrupt_after():
            tmp.write_text(text, encoding="utf8")
            os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_back(
    path: Path, fmt: str, separator: str = ",", names: Sequence[str] | None = None
) -> pl.LazyFrame:
    """The file written at `path`, its columns named `names` (the
    release's, in order) where it is a CSV: Polars reads a quoted header's
    doubled quote twice (`a"b` written `"a""b"` reads `a""b`)."""
    if fmt == "parquet":
        return pl.scan_parquet(path)
    if fmt == "ipc":
        return pl.scan_ipc(path)
    # every column as the text written: compared as text below
    columns = None if names is None else list(names)
    return pl.scan_csv(path, separator=separator, infer_schema=False, new_columns=columns)
