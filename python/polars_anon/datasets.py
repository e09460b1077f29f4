"""Bundled data: UCI Adult and KDD Cup 1998's "cup" (as prepared by ARX for its
benchmarks), and the papers' worked examples."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import polars as pl

from polars_anon._core import Hierarchy


class Dataset(NamedTuple):
    data: pl.LazyFrame
    hierarchies: dict[str, Hierarchy]


ADULT_QUASI_IDENTIFIERS = (
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "salary-class",
)


# ARX's benchmarks search these 7; RAMNTALL is their sensitive attribute
CUP_QUASI_IDENTIFIERS = ("AGE", "GENDER", "INCOME", "MINRAMNT", "NGIFTALL", "STATE", "ZIP")
CUP_COLUMNS = ("ZIP", "AGE", "GENDER", "INCOME", "STATE", "RAMNTALL", "NGIFTALL", "MINRAMNT")


def data_dir() -> Path:
    """Where the bundled tables and hierarchies live."""
    return Path(__file__).parent / "data"


def _load(
    name: str,
    table: str,
    columns: tuple[str, ...],
    schema: Mapping[str, pl.DataType] | None = None,
) -> Dataset:
    d = data_dir() / name
    # a known schema spares the scan its inference pass
    lf = pl.scan_csv(d / table, separator=";", schema=schema)
    hs = {c: Hierarchy.from_csv(str(d / "hierarchies" / f"{c}.csv"), sep=";") for c in columns}
    return Dataset(lf, hs)


def adult() -> Dataset:
    """UCI Adult, 30,162 rows, with ARX's 9 hierarchies (``sex`` ... ``salary-class``).

    >>> lf, hs = adult()
    >>> lf.select(pl.len()).collect().item(), hs["age"].height
    (30162, 4)
    """
    schema = {c: pl.Int64() if c == "age" else pl.String() for c in ADULT_QUASI_IDENTIFIERS}
    return _load("adult", "adult.csv", ADULT_QUASI_IDENTIFIERS, schema)


def cup() -> Dataset:
    """KDD Cup 1998 donors as ARX benchmarks them ("cup"): 63,441 rows, 8 columns
    with ARX's hierarchies; ARX's benchmarks take ``CUP_QUASI_IDENTIFIERS`` (ZIP's
    hierarchy has 100,000 leaves) and hold out ``RAMNTALL`` as sensitive.

    >>> lf, hs = cup()
    >>> lf.select(pl.len()).collect().item(), [hs[c].height for c in CUP_QUASI_IDENTIFIERS]
    (63441, [4, 1, 2, 4, 4, 1, 5])
    """
    # ZIP codes keep their leading zeros as text; the amounts and ages are numbers
    text = ("ZIP", "GENDER", "STATE")
    schema = {c: pl.String() if c in text else pl.Int64() for c in CUP_COLUMNS}
    return _load("cup", "cup.csv", CUP_COLUMNS, schema)


def patients() -> Dataset:
    """The Patients table of the Incognito paper (Figure 1) and the hierarchies of
    its Figure 2: Birthdate (height 1), Sex (1) and Zipcode (2)."""
    return _load("patients", "patients.csv", ("Birthdate", "Sex", "Zipcode"))


def race_zip() -> Dataset:
    """The Race/ZIP private table of the k-anonymity survey (its Figures 1, 5, 7)."""
    return _load("race_zip", "race_zip.csv", ("Race", "ZIP"))
