"""A CSV read by Spark (the Spark engine's `read`, kept apart from
`engines.spark`): as RFC 4180 writes it, typed as Polars types it
(`engines.polars.read`)."""

from __future__ import annotations

import codecs
from collections.abc import Collection
from pathlib import Path
from typing import Any

from polars_anon.engines.polars import INTEGER, LEADING_ZERO


def read(path: Path, separator: str, encoding: str, numbers: Collection[str] | None = None) -> Any:
    """A CSV (with its separator and encoding) or Parquet file as a
    DataFrame of the active session (or a local one). A CSV is read as
    RFC 4180 writes it (a quoted field may hold line breaks; a quote in one
    is doubled), every column as its text, then those of `numbers` (every
    column if None) made numbers as `numbers_found` finds them. Spark's own
    inference (``inferSchema``) made ZIP code 01069 the number 1069, and
    without ``multiLine`` a quoted line break split a record in two."""
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.getOrCreate()
    if path.suffix.lower() == ".parquet":
        return spark.read.parquet(str(path))
    charset = codecs.lookup(encoding).name.replace("iso8859", "iso-8859")
    texts = (
        spark.read.option("header", True)
        .option("sep", separator)
        .option("encoding", charset)
        .option("multiLine", True)
        .option("quote", '"')
        .option("escape", '"')
        # the text as written: Spark trims spaces around unquoted fields
        .option("ignoreLeadingWhiteSpace", False)
        .option("ignoreTrailingWhiteSpace", False)
        .csv(str(path))
    )
    return numbers_found(texts, texts.columns if numbers is None else numbers)


def numbers_found(df: Any, numbers: Collection[str]) -> Any:
    """`df` (of text) with each column of `numbers` cast to a number when
    it holds one and every value of it is one (`engines.polars.is_number`),
    none written with a leading zero (`engines.polars.LEADING_ZERO`): a
    bigint when each is an integer as a CSV writes it, else a double. One
    pass over those columns."""
    from pyspark.sql import functions as F

    wanted = [c for c in df.columns if c in set(numbers)]
    if not wanted:
        return df

    def col(name: str) -> Any:
        return F.col("`" + name.replace("`", "``") + "`")

    def anywhere(test: Any) -> Any:
        return F.max(F.when(test, 1).otherwise(0))

    checks = []
    for c in wanted:
        text = col(c)
        whole = text.rlike(INTEGER) & text.try_cast("bigint").isNotNull()
        checks += [
            anywhere(text.isNotNull()),
            anywhere(text.rlike(LEADING_ZERO)),
            anywhere(text.isNotNull() & ~whole),
            anywhere(text.isNotNull() & text.try_cast("double").isNull()),
        ]
    found = df.agg(*checks).collect()[0]
    casts = {}
    for i, c in enumerate(wanted):
        held, zero, not_whole, not_number = found[4 * i : 4 * i + 4]
        if held and not zero and not not_number:
            casts[c] = "double" if not_whole else "bigint"
    return df.withColumns({c: col(c).cast(t) for c, t in casts.items()}) if casts else df
