"""What became of every column of a release, in the table's order: a
quasi-identifier generalized (with the rows suppressed), a sensitive
attribute released as it is, an identifier dropped, pseudonymized or
masked, an insensitive or undeclared column passed through."""

from __future__ import annotations

import polars as pl

from polars_anon.roles.spec import Roles
from polars_anon.roles.undeclared import Counted, described, identifying


def fates(
    columns: list[str],
    levels: dict[str, int],
    heights: dict[str, int],
    suppressed: int,
    rows: int,
    sensitive: list[str],
    roles: Roles,
    undeclared: dict[str, Counted],
    masks_refused: dict[str, Counted] | None = None,
) -> pl.DataFrame:
    """One row per column: ``column``, ``role``, ``released_as``; a masked
    identifier a release would refuse (`masks_refused`) said so."""
    out: list[tuple[str, str, str]] = []
    refused = identifying(undeclared, rows)
    cut = f"; {suppressed:,} of {rows:,} rows suppressed" if suppressed else ""
    for c in columns:
        if c in levels:
            lvl = levels[c]
            what = f"generalized to level {lvl} of {heights[c]}" if lvl else "kept (level 0)"
            if not heights[c]:  # a forgotten hierarchy would go unseen otherwise
                what = "kept as it is (no hierarchy, or one of height 0)"
            out.append((c, "quasi-identifier", what + cut))
        elif c in sensitive:
            out.append((c, "sensitive", "released unchanged" + cut))
        elif c in roles.identifiers:
            what = roles.identifiers[c].describe()
            if c in (masks_refused or {}):
                n, held = (masks_refused or {})[c]
                what += (
                    f"; refused: its masked values would identify records "
                    f"({described(n, held, rows)}{_of(held, rows)})"
                )
            out.append((c, "identifier", what))
        elif c in roles.insensitive:
            out.append((c, "insensitive", "passed through (declared insensitive)"))
        elif c in refused:
            n, held = refused[c]
            out.append(
                (
                    c,
                    "undeclared",
                    f"refused: would identify records ({described(n, held, rows)}"
                    f"{_of(held, rows)}); declare it an identifier or insensitive",
                )
            )
        else:
            found = undeclared.get(c)
            counted = ""
            if found is not None:
                n, held = found if isinstance(found, tuple) else (found, rows)
                plural = "" if n == 1 else "s"
                counted = f": {n:,} distinct value{plural} in {held:,} of {rows:,} rows"
            out.append((c, "undeclared", f"passed through (no role{counted})"))
    return pl.DataFrame(out, schema=["column", "role", "released_as"], orient="row")


def _of(held: int, rows: int) -> str:
    # `described` names the rows that hold a value when some do not
    return f" in {rows:,} rows" if held >= rows else f", of {rows:,}"
