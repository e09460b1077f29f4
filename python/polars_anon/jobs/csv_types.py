"""Which columns of a job's CSV are read as numbers (`numbers_of`): only
those the job needs as numbers. Every other column is read as the text it
is in the file, and a column released unchanged or pseudonymized is
released byte for byte (a sensitive attribute is read as a number where
it is one: see `numbers_of`): inferred, 1.50 was released as 1.5, TRUE as true,
an integer 5 beside 5.5 as 5.0, 1e3 as 1000.0, and one 1005.0 among the
integer IDs of an identifier made every ID a float and changed every
pseudonym. A Parquet or Arrow IPC input is typed already, and read as it
is."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any


def numbers_of(
    quasi_identifiers: Collection[str],
    hierarchies: Mapping[str, Mapping[str, Any]],
    numeric: Collection[str] | None = None,
    sensitive: Collection[str] = (),
) -> list[str]:
    """The columns a job reads as numbers (`engines.polars.numbers_checked`
    checks that they are, and keeps one as text otherwise): its
    quasi-identifiers, which an interval spec or Mondrian (ranges) cuts as
    numbers, but those whose hierarchy is a file (``path``: its leaves are
    text, which the column's text matches exactly, where 1.50 read as a
    number would be 1.5, no leaf) or a builder spec other than intervals
    (masking, ordered and date specs read text, as ``hierarchy build``
    reads the column); those Mondrian is told to split as numbers
    (`numeric`); and the sensitive attributes: their values are compared
    as numbers (1.5 and 1.50 are one value of a group, not two distinct
    ones that would overstate its diversity). Identifiers, insensitive and
    undeclared columns are text."""
    text = {
        q
        for q, h in hierarchies.items()
        if "path" in h or h.get("builder", "interval") != "interval"
    }
    out = [q for q in quasi_identifiers if q not in text]
    return list(dict.fromkeys([*out, *(numeric or ()), *sensitive]))


def sensitive_of_specs(specs: Collection[Any]) -> list[str]:
    """The attributes a job file's criteria (``{type = ..., attribute = ...}``)
    are about: its sensitive attributes."""
    return [
        a
        for spec in specs
        if isinstance(spec, Mapping) and isinstance(a := spec.get("attribute"), str)
    ]
