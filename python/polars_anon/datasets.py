"""Bundled data: UCI Adult and KDD Cup 1998's "cup" (as prepared by ARX for its
benchmarks), and the papers' worked examples."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from polars_anon._core import Hierarchy


class Dataset(NamedTuple):
    """A bundled table and its hierarchies by column; unpacks as
    ``data, hierarchies = pa.datasets.adult()``."""

    # a LazyFrame; with engine=, a DuckDB relation or a Spark DataFrame
    data: Any
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
    engine: str = "polars",
) -> Dataset:
    d = data_dir() / name
    hs = {c: Hierarchy.from_csv(str(d / "hierarchies" / f"{c}.csv"), sep=";") for c in columns}
    if engine == "polars":
        # a known schema spares the scan its inference pass
        return Dataset(pl.scan_csv(d / table, separator=";", schema=schema), hs)
    # read as Polars reads it (text stays text: ZIP codes keep their zeros),
    # then handed to the engine, which holds the rows from there on
    frame = pl.read_csv(d / table, separator=";", schema=schema)
    if engine == "duckdb":
        import duckdb

        arrow = frame.to_arrow()  # noqa: F841 - read by DuckDB's replacement scan
        return Dataset(duckdb.sql("SELECT * FROM arrow"), hs)
    if engine == "spark":
        from pyspark.sql import SparkSession

        return Dataset(SparkSession.builder.getOrCreate().createDataFrame(frame.to_arrow()), hs)
    raise ValueError(f"engine must be 'polars', 'duckdb' or 'spark', got {engine!r}")


def adult(engine: str = "polars") -> Dataset:
    """UCI Adult, 30,162 rows, with ARX's 9 hierarchies (``sex`` ... ``salary-class``);
    ``engine="duckdb"`` or ``"spark"`` gives the table as a DuckDB relation or a
    Spark DataFrame (of the active session) instead of a LazyFrame.

    >>> lf, hs = adult()
    >>> lf.select(pl.len()).collect().item(), hs["age"].height
    (30162, 4)
    """
    schema = {c: pl.Int64() if c == "age" else pl.String() for c in ADULT_QUASI_IDENTIFIERS}
    return _load("adult", "adult.csv", ADULT_QUASI_IDENTIFIERS, schema, engine)


def cup(engine: str = "polars") -> Dataset:
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
    return _load("cup", "cup.csv", CUP_COLUMNS, schema, engine)


def patients() -> Dataset:
    """The Patients table of the Incognito paper (Figure 1) and the hierarchies of
    its Figure 2: Birthdate (height 1), Sex (1) and Zipcode (2)."""
    return _load("patients", "patients.csv", ("Birthdate", "Sex", "Zipcode"))


def race_zip() -> Dataset:
    """The Race/ZIP private table of the k-anonymity survey (its Figures 1, 5, 7)."""
    return _load("race_zip", "race_zip.csv", ("Race", "ZIP"))


def census(rows: int = 100_000, quasi_identifiers: int = 10, seed: int = 0) -> Dataset:
    """A synthetic census-like table for wide searches: ``rows`` records and
    ``quasi_identifiers`` columns (3 to 500) with their hierarchies, the same
    for the same arguments.

    ``age`` (0-99; bins of 5, 10, 20 years), ``zip`` (5 digits in 20 areas;
    masked one, two, three digits), ``sex``, then categories ``c03`` ... of 2 to
    40 values, grouped in 1 to 3 levels above their values (by 2 to 5
    consecutive values, then by 2 or 3 groups), and the top. Each record
    belongs to one of 40 latent clusters, and each cluster prefers values
    near its own centre on every column, so the columns are correlated as in
    real microdata.

    >>> lf, hs = census(1_000, 12)
    >>> lf.collect().shape, [hs[c].height for c in ("age", "zip", "sex", "c03")]
    ((1000, 12), [4, 4, 1, 2])
    """
    import random

    from polars_anon import hierarchy

    if not 3 <= quasi_identifiers <= 500:
        raise ValueError(f"quasi_identifiers must be in [3, 500], got {quasi_identifiers}")
    if rows < 1:
        raise ValueError(f"rows must be positive, got {rows}")
    rng = random.Random(seed)
    clusters = 40
    sizes = [0] * clusters
    for c in rng.choices(range(clusters), weights=[1 / (i + 1) for i in range(clusters)], k=rows):
        sizes[c] += 1

    def column(values: list[str]) -> list[str]:
        out: list[str] = []
        n = len(values)
        for size in sizes:
            centre = rng.randrange(n)
            spread = 1 + rng.random() * n / 4
            weights = [1 / (1 + (abs(i - centre) / spread) ** 2) for i in range(n)]
            out += rng.choices(values, weights=weights, k=size)
        return out

    ages = [str(a) for a in range(100)]
    areas = [f"{rng.randrange(10, 99)}" for _ in range(20)]
    zips = sorted({a + f"{rng.randrange(1000):03d}" for a in areas for _ in range(15)})
    cols: dict[str, list[str]] = {
        "age": column(ages),
        "zip": column(zips),
        "sex": column(["F", "M"]),
    }
    specs: dict[str, hierarchy.Spec] = {
        "age": hierarchy.Interval((5, 10, 20)),
        "zip": hierarchy.Masking((1, 2, 3)),
    }
    for i in range(3, quasi_identifiers):
        name = f"c{i:02d}"
        m = 2 + (i * 7) % 39
        values = [f"{name}_{v:02d}" for v in range(m)]
        cols[name] = column(values)
        group, levels = 2 + i % 4, 1 + i % 3
        sizes_ = [group] + [2 + (i + j) % 2 for j in range(levels - 1)]
        specs[name] = hierarchy.Ordered(tuple(values), tuple(sizes_))
    frame = pl.DataFrame(cols).with_columns(pl.col("age").cast(pl.Int64))
    hs = {c: spec.build(frame.get_column(c)) for c, spec in specs.items()}
    hs["sex"] = Hierarchy.from_rows([["F", "*"], ["M", "*"]], source="census sex")
    return Dataset(frame.lazy(), {c: hs[c] for c in cols})
