"""The Spark engine, on the DataFrame API only, so that the same code runs on
classic Spark and on Spark Connect (Databricks serverless and shared
clusters): F0 by ``groupBy(...).agg(count)`` (null keys form their own group)
brought back as Arrow; the release as broadcast joins of each
quasi-identifier with its small dimension table (native value -> label),
the suppressed groups removed by a broadcast *null-safe* anti-join (a plain
anti-join keeps rows whose key is null), then checkpointed locally, so what
is handed back no longer reads the source, and its groups counted there."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import polars as pl

from polars_anon.engines.duckdb import hmac_pads
from polars_anon.engines.spark_csv import read as read
from polars_anon.inputs.frames import fresh_name
from polars_anon.roles.ops import Keyed, Mapped, Op
from polars_anon.roles.spec import Drop, Mask


def _col(name: str) -> Any:
    """The column named `name`, whatever it holds: a dot in a name is no
    field of a struct (Spark's own parser reads `a.b` as one)."""
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def _of(df: Any, name: str) -> Any:
    """`df`'s own column `name` (as `_col`, bound to `df` for a join)."""
    return df["`" + name.replace("`", "``") + "`"]


def _frame(df: Any) -> pl.DataFrame:
    """A Spark DataFrame as Polars, through Arrow (``toArrow`` on Spark 4,
    pandas before). pandas holds an integer column with nulls as floats
    ("39.0", inexact past 2^53), so integers cross as text and are cast
    back."""
    if hasattr(df, "toArrow"):
        frame = pl.from_arrow(df.toArrow())
        assert isinstance(frame, pl.DataFrame)
        return frame
    from pyspark.sql import types as T

    ints = {
        T.ByteType: pl.Int8,
        T.ShortType: pl.Int16,
        T.IntegerType: pl.Int32,
        T.LongType: pl.Int64,
    }
    cast = {f.name: ints[type(f.dataType)] for f in df.schema.fields if type(f.dataType) in ints}
    text = df.select(
        *[_col(c).cast("string").alias(c) if c in cast else _col(c) for c in df.columns]
    )
    frame = pl.from_pandas(text.toPandas())
    return frame.with_columns(pl.col(c).cast(pl.String).cast(t) for c, t in cast.items())


def schema(df: Any) -> pl.Schema:
    return _frame(df.limit(0)).schema


# the engine as its users name it
NAME = "Spark"
# text compared by its bytes (Spark 4's default collation)
BINARY = "UTF8_BINARY"


def zeros(df: Any, columns: list[str]) -> Any:
    """`df` as its quasi-identifiers and sensitive values are read: each
    float column among `columns` plus a zero of its type, every -0.0 made
    0.0 (see the DuckDB engine's `zeros`; Spark too groups and joins them
    as one value), and each text column of another collation (UTF8_LCASE)
    compared by its bytes, as its values are released."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import DoubleType, FloatType, StringType

    types = {f.name: f.dataType for f in df.schema.fields}
    floats = {c for c in columns if isinstance(types.get(c), (DoubleType, FloatType))}
    texts = {
        c
        for c in columns
        if isinstance(types.get(c), StringType) and getattr(types[c], "collation", BINARY) != BINARY
    }
    if not floats and not texts:
        return df
    # only those columns replaced (by name: a dot in a name is no field)
    out = {c: _col(c) + F.lit(0).cast(types[c]) for c in floats}
    out.update({c: F.collate(_col(c), BINARY) for c in texts})
    return df.withColumns(out)


def group(df: Any, columns: list[str], count: str, maps: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """F0: one aggregate; a column in `maps` is first mapped to its
    representatives (null-safely, `_join_dim`) and grouped by them."""
    from pyspark.sql import functions as F

    df = zeros(df, columns)

    types = {f.name: f.dataType for f in df.schema.fields}
    out, keys = df, {c: _col(c) for c in columns}
    for i, (c, m) in enumerate(maps.items()):
        r = f"__polars_anon_r{i}"
        dim = m.select("v", "r")
        out = _join_dim(out, c, types[c], dim, f"__polars_anon_v{i}", r, types[c])
        keys[c] = F.col(r).alias(c)
    agg = out.groupBy(*keys.values()).agg(F.count(F.lit(1)).alias(count))
    return _frame(agg).with_columns(pl.col(count).cast(pl.UInt64))


def marginals(df: Any, columns: list[str], count: str) -> dict[str, pl.DataFrame]:
    """Each column's own counts, one job per type among the columns: every
    row is expanded into one (column index, value) pair per column of that
    type and the pairs are grouped, as Spark does for grouping sets (pairs:
    a row of every column with the others null cost 3-4x more at 30
    columns)."""
    from pyspark.sql import functions as F

    df = zeros(df, columns)
    types = {f.name: f.dataType for f in df.schema.fields}
    by_type: dict[str, list[str]] = {}
    for c in columns:
        by_type.setdefault(types[c].simpleString(), []).append(c)
    index, value = "__polars_anon_i", "__polars_anon_v"
    out: dict[str, pl.DataFrame] = {}
    for same in by_type.values():
        pairs = F.array(
            *[F.struct(F.lit(i).alias(index), _col(c).alias(value)) for i, c in enumerate(same)]
        )
        expanded = df.select(F.explode(pairs).alias("p")).select(f"p.{index}", f"p.{value}")
        frame = _frame(expanded.groupBy(index, value).agg(F.count(F.lit(1)).alias(count)))
        frame = frame.with_columns(pl.col(count).cast(pl.UInt64))
        for i, c in enumerate(same):
            out[c] = frame.filter(pl.col(index) == i).select(pl.col(value).alias(c), count)
    return {c: out[c] for c in columns}


# a dimension table of at most this many values is looked up in a map
# literal instead of joined (`_join_dim`)
MAP_VALUES = 4096


def _join_dim(
    out: Any, column: str, column_type: Any, dim: pl.DataFrame, v: str, to: str, to_type: Any
) -> Any:
    """`out` with a column `to` (of type `to_type`): what `column`'s value
    stands for in a small table of its native values (`dim`'s first column)
    and what each stands for (its second); null where the table lacks the
    value, and a null value matched null-safely. A table of at most
    `MAP_VALUES` values is a map literal looked up in place; a larger one is
    left-joined (broadcast, its first column named `v` in Spark). One
    broadcast join per quasi-identifier ran out of a 4 GiB driver's memory
    at 100 QIs (each hashed relation takes its own memory pages in a task)."""
    from pyspark.sql import functions as F

    if dim.height > MAP_VALUES:
        table = _spark_frame(out.sparkSession, dim, [(v, column_type), (to, to_type)])
        return out.join(F.broadcast(table), _of(out, column).eqNullSafe(table[v]), "left").drop(v)
    pairs, if_null = [], None
    for value, stands in dim.rows():
        if value is None:
            if_null = stands
        else:
            pairs += [_literal(value, column_type), F.lit(stands).cast(to_type)]
    found = F.create_map(*pairs)[_of(out, column)] if pairs else F.lit(None).cast(to_type)
    none = F.lit(if_null).cast(to_type)
    return out.withColumn(to, F.when(_of(out, column).isNull(), none).otherwise(found))


def _literal(value: Any, column_type: Any) -> Any:
    """`value` as a literal of the column's type. A naive date-time goes as
    its text: PySpark would read it in the Python process's time zone and the
    cast to TIMESTAMP_NTZ then in the session's, moving it by their offset. A
    date goes as its ISO text: PySpark writes a year below 1000 without its
    zeros ("1-01-01"), which Java refuses."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import TimestampNTZType

    if isinstance(column_type, TimestampNTZType) and isinstance(value, datetime.datetime):
        return F.lit(value.isoformat(sep=" ")).cast(column_type)
    if type(value) is datetime.date:
        return F.lit(value.isoformat()).cast(column_type)
    return F.lit(value).cast(column_type)


def _spark_frame(session: Any, frame: pl.DataFrame, fields: list[tuple[str, Any]]) -> Any:
    from pyspark.sql.types import StructField, StructType

    struct = StructType([StructField(name, dtype, True) for name, dtype in fields])
    return session.createDataFrame(frame.rows(), schema=struct)


def _spark_table(session: Any, frame: pl.DataFrame, arrow: bool) -> Any:
    """A large `frame` as a Spark DataFrame: through Arrow on Spark 4,
    pandas before."""
    return session.createDataFrame(frame.to_arrow() if arrow else frame.to_pandas())


def release(
    df: Any,
    qis: list[str],
    mappings: list[pl.DataFrame],
    generalized: list[bool],
    drop: pl.DataFrame,
    sensitive: list[str],
) -> tuple[Any, pl.DataFrame, int | None]:
    """The release of `df`, checkpointed, its groups counted in Spark (see
    `engines.duckdb.release`), and the rows read (those suppressed flagged
    until the checkpoint: rows added to them since the check are counted)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import BooleanType, StringType

    df = zeros(df, qis + sensitive)
    session = df.sparkSession
    types = {f.name: f.dataType for f in df.schema.fields}
    out = df
    for i, (q, m) in enumerate(zip(qis, mappings, strict=True)):
        v, lab = f"__polars_anon_v{i}", f"__polars_anon_l{i}"
        out = _join_dim(out, q, types[q], m.select("v", "l"), v, lab, StringType())
    hit, flag = F.lit(False), "__polars_anon_hit"
    if drop.height:
        keys = [f"__polars_anon_d{i}" for i in range(len(qis))]
        named = [pl.col(q).alias(key) for q, key in zip(qis, keys, strict=True)]
        dims = _spark_frame(
            session,
            drop.select(*named, **{flag: True}),
            [(key, StringType()) for key in keys] + [(flag, BooleanType())],
        )
        cond = None
        for i, key in enumerate(keys):
            term = out[f"__polars_anon_l{i}"].eqNullSafe(dims[key])
            cond = term if cond is None else cond & term
        # (distinct groups: a row meets one at most)
        out, hit = out.join(F.broadcast(dims), cond, "left"), F.col(flag).isNotNull()
    columns = []
    for c in df.columns:
        if c in qis and generalized[qis.index(c)]:
            columns.append(F.col(f"__polars_anon_l{qis.index(c)}").alias(c))
        else:
            columns.append(_col(c))
    flagged = out.select(*columns, hit.alias(flag)).localCheckpoint(eager=True)
    released = flagged.filter(~F.col(flag)).drop(flag)
    n = fresh_name("n", [*qis, *sensitive])
    by = [*map(_col, [*qis, *sensitive]), F.col(flag)]
    groups = _frame(flagged.groupBy(*by).agg(F.count(F.lit(1)).alias(n)))
    return released, groups.filter(~pl.col(flag)).drop(flag), int(groups.get_column(n).sum())


def release_by(
    df: Any,
    keys: list[str],
    mapping: pl.DataFrame,
    labels: list[str],
    by: list[str],
    ranks: tuple[str, str] | None = None,
) -> tuple[Any, pl.DataFrame]:
    """The release of `df` with each of the first of `keys` replaced by its
    label, joined null-safely on all the keys at once (left: unmatched rows
    get null labels), checkpointed, and its groups counted in Spark (see
    the DuckDB engine's `release_by`, also for `ranks`). Spark numbers a
    window's rows only in an order: by the keys, which ties every row of
    the window, so the numbering is Spark's; the checkpoint fixes it before
    the groups are counted."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StringType

    df = zeros(df, keys + by)
    types = {f.name: f.dataType for f in df.schema.fields}
    ks = [fresh_name(f"__polars_anon_k{i}", df.columns) for i in range(len(keys))]
    ls = [fresh_name(f"__polars_anon_l{i}", [*df.columns, *ks]) for i in range(len(labels))]
    names, runs = keys + labels, list(ranks or ())
    taken = [*df.columns, *ks, *ls]
    rs: list[str] = []
    for i in range(len(runs)):
        rs.append(fresh_name(f"__polars_anon_r{i}", [*taken, *rs]))
    renames = dict(zip(names + runs, ks + ls + rs, strict=True))
    renamed = mapping.select(names + runs).rename(renames)
    if hasattr(df, "toArrow"):
        # through Arrow (Spark 4), each key cast back to the table's type
        table = _spark_table(df.sparkSession, renamed, True)
        casts = [F.col(k).cast(types[q]) for k, q in zip(ks, keys, strict=True)]
        texts = [F.col(lab).cast(StringType()) for lab in ls]
        table = table.select(*casts, *texts, *[F.col(r).cast(LongType()) for r in rs])
    else:
        fields = [(k, types[q]) for k, q in zip(ks, keys, strict=True)]
        fields += [(lab, StringType()) for lab in ls] + [(r, LongType()) for r in rs]
        table = _spark_frame(df.sparkSession, renamed, fields)
    rows = df
    if rs:
        rank = fresh_name("__polars_anon_rank", [*taken, *rs])
        window = Window.partitionBy(*map(_col, keys)).orderBy(*map(_col, keys))
        rows = df.withColumn(rank, F.row_number().over(window) - 1)
    cond = None
    for q, k in zip(keys, ks, strict=True):
        term = _of(rows, q).eqNullSafe(table[k])
        cond = term if cond is None else cond & term
    if rs:
        cond = cond & (rows[rank] >= table[rs[0]]) & (rows[rank] < table[rs[1]])
    out = rows.join(table, cond, "left")
    replaced = keys[: len(ls)]
    items = [F.col(ls[keys.index(c)]).alias(c) if c in replaced else _col(c) for c in df.columns]
    released = out.select(*items).localCheckpoint(eager=True)
    n = fresh_name("n", [*keys, *by])
    groups = released.groupBy(*map(_col, [*keys, *by])).agg(F.count(F.lit(1)).alias(n))
    return released, _frame(groups)


def _masked(text: Any, op: Mask) -> Any:
    """`text` masked as `roles.polars.masked` does (``length`` counts
    characters)."""
    from pyspark.sql import functions as F

    n, kept, char = F.length(text), op.keep_first + op.keep_last, F.lit(op.char)
    head, tail = F.left(text, F.lit(op.keep_first)), F.right(text, F.lit(op.keep_last))
    partial = F.concat(head, F.repeat(char, n - kept), tail)
    return F.when(n > kept, partial).otherwise(F.repeat(char, n))


def _with_pads(df: Any, keyed: dict[str, Keyed]) -> tuple[Any, dict[str, tuple[str, str]]]:
    """`df` cross-joined (broadcast) to one row of each keyed column's HMAC
    pads, as binary columns (so that the key is in no expression of the
    plan), and the names of each column's inner and outer pad."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import BinaryType

    names: dict[str, tuple[str, str]] = {}
    row: dict[str, list[bytes]] = {}
    for c, op in keyed.items():
        i = fresh_name(f"__polars_anon_ipad_{c}", [*df.columns, *row])
        o = fresh_name(f"__polars_anon_opad_{c}", [*df.columns, *row, i])
        names[c] = (i, o)
        ipad, opad = hmac_pads(op.key)
        row[i], row[o] = [ipad], [opad]
    fields = [(p, BinaryType()) for p in row]
    table = _spark_frame(df.sparkSession, pl.DataFrame(row), fields)
    return df.crossJoin(F.broadcast(table)), names


def identify(released: Any, ops: list[tuple[str, Op]]) -> Any:
    """`released` with each identifier transformed in place (or dropped) as
    `roles.polars.identify` does. A keyed pseudonym is HMAC-SHA-256 from
    Spark's ``sha2``, its pads read from a one-row broadcast DataFrame; a
    pseudonym table is joined as a DataFrame (not broadcast: it may be as
    large as the table)."""
    from pyspark.sql import functions as F

    if not ops:
        return released
    by = dict(ops)
    keyed = {c: op for c, op in ops if isinstance(op, Keyed)}
    out, pads = _with_pads(released, keyed) if keyed else (released, {})
    taken = [*released.columns, *(p for pair in pads.values() for p in pair)]
    exprs = {}
    for c, op in ops:
        text = _col(c).cast("string")
        if isinstance(op, Keyed):
            i, o = pads[c]
            inner = F.unhex(F.sha2(F.concat(_col(i), text.cast("binary")), 256))
            exprs[c] = F.substring(F.sha2(F.concat(_col(o), inner), 256), 1, op.length)
        elif isinstance(op, Mask):
            exprs[c] = _masked(text, op)
        elif isinstance(op, Mapped):
            v = fresh_name(f"__polars_anon_value_{c}", taken)
            to = fresh_name(f"__polars_anon_pseudonym_{c}", [*taken, v])
            taken += [v, to]
            mapping = op.mapping.select(pl.col("value").alias(v), pl.col("pseudonym").alias(to))
            table = _spark_table(out.sparkSession, mapping, hasattr(out, "toArrow"))
            out = out.join(table, text == _of(table, v), "left")
            exprs[c] = _col(to)
    kept = [c for c in released.columns if not isinstance(by.get(c), Drop)]
    return out.select(*[exprs[c].alias(c) if c in exprs else _col(c) for c in kept])


def discard(released: Any) -> None:
    """Nothing to drop for a refused release: Spark's is a plan, not a
    snapshot (`engines.duckdb.discard`)."""


def distinct(native: Any, column: str) -> pl.Series:
    """The distinct values of `column` as text, nulls left out."""
    native = zeros(native, [column])
    text = native.where(_col(column).isNotNull()).select(_col(column).cast("string").alias(column))
    return _frame(text.distinct()).get_column(column).cast(pl.String)


def distinct_counts(
    native: Any, columns: list[str], exact: bool = False
) -> tuple[int, dict[str, tuple[int, int]]]:
    """The rows, and each column's distinct non-null values, counted
    (`exact`) or estimated (HyperLogLog++, to about 5%: a finer estimate
    costs seconds of code generation per column, a buffer field per word of
    the sketch), and its non-null rows: one pass."""
    from pyspark.sql import functions as F

    count = F.count_distinct if exact else F.approx_count_distinct
    native = zeros(native, columns)
    aggs = [F.count(F.lit(1)), *(f(_col(c)) for c in columns for f in (count, F.count))]
    row = native.agg(*aggs).first()
    pairs = zip(row[1::2], row[2::2], strict=True)
    return int(row[0]), {c: (int(n), int(h)) for c, (n, h) in zip(columns, pairs, strict=True)}


def write(df: Any, path: Path, separator: str) -> int:
    """The release as a folder of Parquet or CSV parts (by `path`'s
    suffix); its rows."""
    writer = df.write.mode("overwrite")
    if path.suffix.lower() == ".parquet":
        writer.parquet(str(path))
    else:
        # RFC 4180 (a quote doubled, not escaped by a backslash), and the
        # text as it is: Spark's writer trims spaces around fields
        options = {"header": True, "sep": separator, "quote": '"', "escape": '"'}
        options |= {"ignoreLeadingWhiteSpace": False, "ignoreTrailingWhiteSpace": False}
        writer.options(**options).csv(str(path))
    return int(df.count())
