"""Blank lines in a CSV file: no records.

A record of a CSV of two columns or more holds its separators (a record of
empty fields is written ``,,``), so a blank line between records holds no
field: editors and exports leave them, and DuckDB and Spark skip them. Polars
2.1 reads each as a record of nulls, which a release would count as people:
three blank lines beside one record of a null quasi-identifier made a group
of three. So a blank line is no record on any engine; in a file of one
column, where a blank line is the one way to write an empty field, only the
blank lines ending the file are no records (`trailing_blank_lines`)."""

from __future__ import annotations

import io
import mmap
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

# a line break, then one or more lines holding nothing (CRLF files' too)
BLANK_RUN = re.compile(rb"\n(?:\r?\n)+")
QUOTE = b'"'
# the blocks a file is copied in
BLOCK = 1 << 24


def blank_runs(data: bytes | mmap.mmap, quotes: int = 0) -> Iterator[tuple[int, int]]:
    """The spans of `data` from a line break through the blank lines after
    it, outside quoted fields (a quoted field may hold blank lines: an even
    number of quotes before a line break puts it outside, as RFC 4180's
    doubled quotes keep the count even); `quotes`: those before `data`."""
    at = 0
    for m in BLANK_RUN.finditer(data):
        quotes += data[at : m.start()].count(QUOTE)
        at = m.start()
        if quotes % 2 == 0:
            yield m.span()


def inner_blank_lines(path: Path) -> bool:
    """Whether the file `path` has blank lines between its records (outside
    quoted fields), not only at its end: a pass of its bytes, mapped, up to
    the first."""
    if path.stat().st_size == 0:
        return False
    with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        end = len(data)
        while end > 0 and data[end - 1] in b"\r\n":
            end -= 1
        if data.find(QUOTE) < 0:
            return BLANK_RUN.search(data, 0, end) is not None
        return any(start < end for start, _ in blank_runs(data))


def without_blank_lines(data: bytes) -> bytes:
    """`data` with its blank lines outside quoted fields removed, and those
    ending it."""
    out = io.BytesIO()
    body = _body(data)
    _end(data[body:], _cut(data[:body], 0, out), out)
    return out.getvalue()


def without_trailing_blank_lines(data: bytes) -> bytes:
    """`data` with only the blank lines ending it cut (a file of one column,
    whose blank lines between records are records of an empty value)."""
    out = io.BytesIO()
    body = _body(data)
    out.write(data[:body])
    _end(data[body:], data[:body].count(QUOTE), out)
    return out.getvalue()


def copy_without_blank_lines(source: Path) -> Path:
    """The file `source` without its blank lines (`without_blank_lines`),
    copied in blocks (a file of any size) into a file of this process's
    temporary folder, which it keeps until it ends (a release's plan reads
    it when collected)."""
    target = spool(source.name)
    quotes, carry = 0, b""
    with source.open("rb") as f, target.open("wb") as out:
        while block := f.read(BLOCK):
            data = carry + block
            # the line breaks ending the block wait for the next one: a run
            # of blank lines may go on there
            body = _body(data)
            quotes = _cut(data[:body], quotes, out)
            carry = data[body:]
        _end(carry, quotes, out)
    return target


def spool(name: str) -> Path:
    """A new file named after `name` in this process's temporary folder."""
    global _FOLDER
    if _FOLDER is None:
        _FOLDER = tempfile.TemporaryDirectory(prefix="polars-anon-csv-")
    handle, path = tempfile.mkstemp(prefix="", suffix=f"-{name}", dir=_FOLDER.name)
    os.close(handle)
    return Path(path)


_FOLDER: tempfile.TemporaryDirectory[str] | None = None


def _body(data: bytes) -> int:
    """Where the line breaks ending `data` begin."""
    return len(data.rstrip(b"\r\n"))


def _end(breaks: bytes, quotes: int, out: BinaryIO) -> None:
    """The line breaks ending a file: one, or inside an open quote (which
    the reader refuses) as they are."""
    if breaks:
        out.write(breaks if quotes % 2 else b"\n")


def _cut(data: bytes, quotes: int, out: BinaryIO) -> int:
    """`data` written to `out` without its runs of blank lines (`quotes`
    before it); the quotes before its end."""
    if quotes % 2 == 0 and data.find(QUOTE) < 0:
        # no quoted field: every run goes, at the regex's pace
        out.write(BLANK_RUN.sub(b"\n", data))
        return quotes
    at = 0
    for start, end in blank_runs(data, quotes):
        out.write(data[at : start + 1])
        at = end
    out.write(data[at:])
    return quotes + data.count(QUOTE)


def trailing_blank_lines(path: Path) -> int:
    """How many blank lines end the file `path`: the line breaks after the
    one that ends its last line of text. No records in a file of one column
    either: a data steward reads a file's end as its last line of text, and
    blank lines after it are how editors and exports pad a file."""
    size = path.stat().st_size
    breaks, end, last = 0, size, b""
    with path.open("rb") as f:
        while end > 0:
            start = max(0, end - (1 << 16))
            f.seek(start)
            block = f.read(end - start)
            last = last or block[-1:]
            text = block.rstrip(b"\r\n")
            breaks += block.count(b"\n", len(text))
            if text:
                break
            end = start
    # a carriage return ending the file after a line break is one more line
    # to Polars (a record), as a line break is
    breaks += int(breaks > 0 and last == b"\r")
    return max(breaks - 1, 0)
