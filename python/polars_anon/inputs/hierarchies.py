"""Hierarchies as they are handed in: a `Hierarchy`, an ARX CSV path, rows,
or a folder of ``<column>.csv`` files, resolved to one Hierarchy per column."""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TypeAlias

from polars_anon._core import AnonError, ConfigError, Hierarchy
from polars_anon.exceptions import ParameterError

HierarchyLike: TypeAlias = "Hierarchy | str | os.PathLike[str] | Sequence[Sequence[str]]"
Hierarchies: TypeAlias = "Mapping[str, HierarchyLike] | str | os.PathLike[str]"


def to_hierarchy(value: HierarchyLike, column: str, sep: str = ";") -> Hierarchy:
    if isinstance(value, Hierarchy):
        return value
    if isinstance(value, (str, os.PathLike)):
        try:
            return Hierarchy.from_csv(os.fspath(value), sep=sep)
        except AnonError as e:
            raise type(e)(f"hierarchy for column '{column}': {e}") from None
    if isinstance(value, Sequence) and all(
        isinstance(row, Sequence) and not isinstance(row, str | bytes) for row in value
    ):
        return Hierarchy.from_rows([[str(v) for v in row] for row in value], source=column)
    raise ParameterError(
        f"hierarchy for column '{column}' must be a Hierarchy, a CSV path or rows; "
        f"got {type(value).__name__}"
    )


def read_hierarchies(
    source: Hierarchies, sep: str = ";", columns: Collection[str] | None = None
) -> dict[str, Hierarchy]:
    """Hierarchies by column: from a directory of ``<column>.csv`` files (ARX's
    ``*_hierarchy_<column>.csv`` and ``hierarchy_<column>.csv`` names work too), or
    from a mapping of column to Hierarchy, CSV path or rows. With `columns`,
    a directory's files of other columns are not read (it may hold other
    CSV files).

    >>> from polars_anon import datasets
    >>> hs = read_hierarchies(datasets.data_dir() / "patients" / "hierarchies")
    >>> sorted(hs), hs["Zipcode"].height
    (['Birthdate', 'Sex', 'Zipcode'], 2)
    """
    if isinstance(source, Mapping):
        return {str(c): to_hierarchy(h, str(c), sep) for c, h in source.items()}
    if not isinstance(source, str | os.PathLike):
        raise ParameterError(
            "hierarchies must be a mapping of column to Hierarchy (or CSV path, or rows), "
            f"or a folder of hierarchy CSV files; got {type(source).__name__} {source!r:.60}"
        )
    path = Path(source)
    if not path.is_dir():
        raise ConfigError(f"hierarchies: {str(path)!r} is not a directory of hierarchy CSV files")
    files = sorted(path.glob("*.csv"))
    if not files:
        raise ConfigError(f"hierarchies: no .csv hierarchy files in the folder {str(path)!r}")
    out: dict[str, Hierarchy] = {}
    others: dict[str, Path] = {}
    for file in files:
        stem = column_of(file, columns)
        if stem in out:
            raise ConfigError(f"{path}: two hierarchy files for column '{stem}'")
        if columns is None or stem in columns:
            out[stem] = Hierarchy.from_csv(str(file), sep=sep)
        else:
            others[stem] = file
    # a column with no file while one is named close to it (sex.csv for
    # Sex) is a slip, as a mapping's near key is (`check_names`)
    for c in [c for c in columns or () if c not in out]:
        near = [stem for stem in others if similar(stem, c)]
        if near:
            raise ConfigError(
                f"hierarchies: no file for column '{c}' in {str(path)!r}, which has "
                f"{others[near[0]].name!r}: is the column named {near[0]!r}, or is that file "
                f"meant for '{c}' (then name it '{c}.csv': a file is named by its column, "
                "case included)?"
            )
    return out


def column_of(file: Path, columns: Collection[str] | None = None) -> str:
    """The column a folder's hierarchy file is of: ``<column>.csv`` (first,
    when `columns` holds the whole name), or ARX's
    ``*_hierarchy_<column>.csv`` and ``hierarchy_<column>.csv``."""
    stem = file.stem
    if "hierarchy_" not in stem or (columns is not None and stem in columns):
        return stem
    return stem.split("hierarchy_", 1)[1]


def resolve_hierarchies(
    hierarchies: Hierarchies | None, columns: Collection[str] | None = None
) -> dict[str, Hierarchy]:
    """`read_hierarchies` (a folder's files of `columns` only, if given)."""
    if hierarchies is None:
        return {}
    return read_hierarchies(hierarchies, columns=columns)


def check_names(
    hs: Mapping[str, Hierarchy],
    qis: Sequence[str],
    columns: Collection[str],
    undeclared: Sequence[str] = (),
) -> None:
    """A quasi-identifier given no hierarchy while one is given under a
    name that is no column and is close to its own (``sex`` for ``Sex``,
    ``zipcode`` for ``zip``) is a typing slip, not a column to keep at its
    own values: refused, naming both (`similar`). So is a column with no role
    (`undeclared`, released as it is) where the hierarchies name the
    quasi-identifiers."""
    stray = [c for c in hs if c not in columns]
    for q in [*qis, *undeclared]:
        near = [c for c in stray if similar(c, q)] if q not in hs else []
        if near:
            what = (
                f"quasi-identifier '{q}'"
                if q in qis
                else f"column '{q}' (so it is no quasi-identifier: it would be released as it is)"
            )
            raise ConfigError(
                f"no hierarchy for {what}; one is given for {near[0]!r}, which is no column "
                f"of the data: did you mean '{q}'? (If {near[0]!r} is another table's, leave "
                "it out of the hierarchies.)"
            )


def check_zeros(hs: Mapping[str, Hierarchy], floats: Sequence[str]) -> None:
    """A float column's hierarchy with a leaf -0.0 and none 0.0 is refused,
    saying why: every engine reads -0.0 as 0.0, one number (its label
    would be missing)."""
    for q in floats:
        h = hs.get(q)
        # which of the two are leaves, looked up in the core (not every
        # leaf copied into Python)
        if h is not None and h.leaf_positions(0, ["-0.0", "0.0"])[0] == [0]:
            raise ConfigError(
                f"the hierarchy of column '{q}' has a leaf -0.0 and none 0.0: -0.0 and 0.0 "
                "are one number, read as 0.0 on every engine; name that leaf 0.0"
            )


def similar(key: str, column: str) -> bool:
    """Whether a hierarchy's name (`key`, no column of the table) is
    `column` mistyped: equal but for case, spaces and punctuation (``sex``,
    ``Sex``; ``zip_code``, ``ZipCode``), or that name lengthened (``zipcode``
    for ``zip``, of 3 characters or more). Not the other way round, nor a
    name merely alike: ``education`` of a table is not ``education-num`` of
    another, nor ``age`` ``wage``."""
    k, c = (re.sub(r"[\W_]+", "", s).casefold() for s in (key, column))
    if not k or not c:
        return key.strip().casefold() == column.strip().casefold()
    return k == c or (len(c) >= 3 and k.startswith(c))


def own_values(column: str, values: Sequence[str]) -> Hierarchy:
    """The hierarchy of a quasi-identifier given none: its values, as they
    are (its errors name the column and say that no hierarchy was given)."""
    source = f"column '{column}' (no hierarchy given: its own values)"
    return Hierarchy.from_rows([[v] for v in values], source=source)
