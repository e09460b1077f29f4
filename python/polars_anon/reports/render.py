"""How every report and result reads: one label and value a row, as aligned
text in a terminal and as a small HTML table in a notebook."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

import polars as pl

# plain-text reports wrap at this width, as a terminal shows them
WIDTH = 100


def levels_text(levels: Mapping[str, int]) -> str:
    return "  ".join(f"{q}={lvl}" for q, lvl in levels.items())


def share(x: float) -> str:
    return f"{x:.2%}" if x >= 1e-4 or x == 0 else f"{x:.2e}"


def aligned(title: str, rows: list[tuple[str, Any]]) -> str:
    """`title`, then one label and value a row, the values aligned and wrapped
    under themselves; a value of several lines (a table) starts on its own."""
    width = max(len(k) for k, _ in rows)
    lines = [title]
    for k, v in rows:
        text = str(v)
        if "\n" in text:
            lines.append(f"  {k}")
            lines += ["    " + line for line in text.splitlines()]
            continue
        wrapped = textwrap.wrap(
            text, WIDTH - width - 4, break_long_words=False, break_on_hyphens=False
        ) or [""]
        lines.append(f"  {k:<{width}}  {wrapped[0]}")
        lines += [" " * (width + 4) + more for more in wrapped[1:]]
    return "\n".join(lines)


def table_html(title: str, rows: list[tuple[str, Any]]) -> str:
    # imported here: html.entities is ~1 ms of a fresh import, for notebooks only
    import html

    body = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
        f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>"
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
        tbl_width_chars=WIDTH - 6,
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
