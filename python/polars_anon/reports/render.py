"""How every report and result reads: one label and value a row, as aligned
text in a terminal and as a small HTML table in a notebook."""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import polars as pl

# plain-text reports wrap at this width where they are not printed to a
# terminal (a notebook, a file, a pipe, a test), and at a terminal's own
# width within these bounds where they are
WIDTH = 100
NARROWEST, WIDEST = 60, 160


def width() -> int:
    """The width a report wraps at: the terminal's that standard output is,
    else `WIDTH`."""
    try:
        columns = os.get_terminal_size(sys.stdout.fileno()).columns
    except (AttributeError, OSError, ValueError):  # not a terminal, or no file
        return WIDTH
    return max(NARROWEST, min(columns, WIDEST))


def levels_text(levels: Mapping[str, Any], sep: str = "  ") -> str:
    """Levels (or a class's values) by column, ``zip=1  age=2``: two spaces
    apart in a report's row, ``sep=", "`` in a sentence (an error's)."""
    return sep.join(f"{q}={lvl}" for q, lvl in levels.items())


def names_text(names: Iterable[Any]) -> str:
    """Columns (or other names) in a sentence: ``zip, age``; a name that
    would not read as itself there (empty, with a line break or another
    unprintable character) quoted as Python writes it, ``'a\\nb'``, so
    that a message stays one line."""

    def name(n: Any) -> str:
        text = str(n)
        return text if text and text.isprintable() else repr(text)

    return ", ".join(map(name, names))


def plural(noun: str, names: Sequence[Any]) -> str:
    """`noun` for one of `names`, or its plural (in s) for several."""
    return noun if len(names) == 1 else noun + "s"


def counted(n: int, noun: str) -> str:
    """`n` and `noun`, in its plural (in s) unless `n` is one, the number in
    groups of three digits: ``1 value``, ``1,204 values``."""
    return f"{n:,} {noun if n == 1 else noun + 's'}"


def listing(noun: str, names: Sequence[Any]) -> str:
    """`noun` and the names, ``unknown column: Dept`` or ``unknown columns:
    Dept, Name``."""
    return f"{plural(noun, names)}: {names_text(names)}"


def one_of(choices: Iterable[str]) -> str:
    """The strings a parameter takes, as they are written in Python:
    ``one of 'a', 'b', 'c'``."""
    return "one of " + values_text(choices)


def values_text(values: Iterable[Any]) -> str:
    """Values (a column's, or those a parameter takes) in a sentence, each
    quoted, so that an empty one or one with spaces or commas shows:
    ``'a', ' b'``."""
    return ", ".join(map(repr, values))


def share(x: float) -> str:
    return f"{x:.2%}" if x >= 1e-4 or x == 0 else f"{x:.2e}"


# labels wider than this (long column names) stand on a line of their own,
# their value on the next
LABEL = 40


def shown(text: str) -> str:
    """A label on one line: its line breaks and tabs written as escapes."""
    return text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def value_text(v: Any) -> str:
    """A report's value as a reader writes it: yes and no, whole numbers in
    groups of three digits (a float of a whole number too: DM's sums)."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return f"{int(v):,}"
    return str(v)


def cells(text: str) -> int:
    """The columns `text` takes in a terminal: East Asian wide and
    full-width characters take two, combining marks none."""
    import unicodedata

    wide = ("W", "F")
    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in wide else 1
        for c in text
    )


def aligned(title: str, rows: list[tuple[str, Any]]) -> str:
    """`title`, then one label and value a row, the values aligned and wrapped
    under themselves; a value of several lines (a table) starts on its own,
    as does the value of a label wider than `LABEL`."""
    labels = [(k, cells(k)) for k in (shown(k) for k, _ in rows)]
    labelled = max([n for _, n in labels if n <= LABEL] or [0])
    wide = width()
    lines = [title]
    for (k, n), (_, v) in zip(labels, rows, strict=True):
        text = value_text(v)
        if "\n" in text:
            lines.append(f"  {k}")
            lines += ["    " + line for line in text.splitlines()]
            continue
        indent = labelled + 4
        if n > labelled:
            lines.append(f"  {k}")
            k, n, indent = "", 0, 6
        wrapped = textwrap.wrap(
            text, wide - indent, break_long_words=False, break_on_hyphens=False
        ) or [""]
        lines.append("  " + k + " " * (indent - 2 - n) + wrapped[0])
        lines += [" " * indent + more for more in wrapped[1:]]
    return "\n".join(lines)


def table_html(title: str, rows: list[tuple[str, Any]]) -> str:
    # imported here: html.entities is ~1 ms of a fresh import, for notebooks only
    import html

    def cell(v: Any) -> str:
        text = html.escape(value_text(v))
        # a value of several lines (a table) keeps its lines and columns
        return f"<pre style='margin:0'>{text}</pre>" if "\n" in text else text

    body = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
        f"<td style='text-align:left'>{cell(v)}</td></tr>"
        for k, v in rows
    )
    return f"<div><strong>{html.escape(title)}</strong><table>{body}</table></div>"


def levels_table(quasi_identifiers: list[str], nodes: list[list[int]]) -> str:
    """Nodes' levels as a small table ("none" without nodes)."""
    if not nodes:
        return "none"
    qis = quasi_identifiers
    frame = pl.DataFrame({q: [n[i] for n in nodes] for i, q in enumerate(qis)})
    with pl.Config(
        tbl_hide_dataframe_shape=True,
        tbl_hide_column_data_types=True,
        tbl_width_chars=width() - 6,
        tbl_cols=-1,
    ):
        return str(frame)


def column_rows(columns: pl.DataFrame, most: int = 40) -> list[tuple[str, Any]]:
    """A report's lines for what became of each column (`roles.fates`), the
    first `most` of them."""
    if columns.is_empty():
        return []
    rows: list[tuple[str, Any]] = [
        (f"column {c}", f"{role}: {what}") for c, role, what in columns.head(most).iter_rows()
    ]
    if columns.height > most:
        rows.append(("columns", f"... {columns.height - most} more (.columns lists them all)"))
    return rows
