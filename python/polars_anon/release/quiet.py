"""Polars' panics kept off the terminal. A source changed under a plan
(a Parquet file replaced by a shorter one) makes Polars' reader panic; the
panic reaches Python as an exception, which the release turns into a clear
error, but Polars' own panic hook has already printed the panic (and, with
``RUST_BACKTRACE``, its backtrace) on stderr, from a library whose hook this
one cannot reach. So a guarded read runs with file descriptor 2 captured:
output without a panic is written back to stderr when the read ends, and a
panic's text is dropped, the error naming the plan's sources instead."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import polars as pl

PANIC = b"panicked at"


@contextmanager
def quiet_panics() -> Iterator[None]:
    """Run the block with stderr captured; give it back unless it panicked."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        # no file descriptor 2 to capture (an embedding without one)
        yield
        return
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            out = captured.read()
            if out and PANIC not in out:
                os.write(2, out)


def sources(plan: pl.LazyFrame) -> list[str]:
    """The files a plan scans, as its plan names them (``Parquet SCAN
    [path]``), for an error that says which source changed."""
    try:
        shown = plan.explain(optimized=False)
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt | SystemExit):
            raise
        return []
    return re.findall(r"SCAN \[(.*?)\]", shown)


def said(e: BaseException) -> str:
    """What a failed read says, for an error of this package's: its first
    line, or for a panic (whose text is Polars' internals: an unwrap, an
    assertion) that the reader failed."""
    if type(e).__name__ == "PanicException":
        return "Polars' reader failed on it"
    return str(e).splitlines()[0][:200] if str(e) else ""
