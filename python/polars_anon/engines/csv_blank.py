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

import mmap
import re
from pathlib import Path

# a line break, then one or more lines holding nothing (CRLF files' too)
BLANK_RUN = re.compile(rb"\n(?:\r?\n)+")


def blank_runs(data: bytes | mmap.mmap, quote: bytes = b'"') -> list[tuple[int, int]]:
    """The spans of `data` from a line break through the blank lines after
    it, outside quoted fields (a quoted field may hold blank lines: an even
    number of quotes before a line break puts it outside, as RFC 4180's
    doubled quotes keep the count even)."""
    runs: list[tuple[int, int]] = []
    quotes, at = 0, 0
    for m in BLANK_RUN.finditer(data):
        quotes += data[at : m.start()].count(quote)
        at = m.start()
        if quotes % 2 == 0:
            runs.append(m.span())
    return runs


def inner_blank_lines(path: Path) -> bool:
    """Whether the file `path` has blank lines between its records (outside
    quoted fields), not only at its end: one pass of its bytes, mapped."""
    if path.stat().st_size == 0:
        return False
    with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        end = len(data)
        while end > 0 and data[end - 1] in b"\r\n":
            end -= 1
        return any(start < end for start, _ in blank_runs(data))


def without_blank_lines(data: bytes) -> bytes:
    """`data` with its blank lines outside quoted fields removed."""
    runs = blank_runs(data)
    if not runs:
        return data
    pieces, at = [], 0
    for start, end in runs:
        pieces.append(data[at : start + 1])
        at = end
    pieces.append(data[at:])
    return b"".join(pieces)


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
