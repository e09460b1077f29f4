"""SafePub's sample drawn where the table lives, on DuckDB and on Spark: a
lazy relation (DataFrame) that draws the same records each time it is
evaluated, once for F0 and again for the release, whose guard checks that
the released groups are the ones checked on F0.

Each record is kept with probability beta, on its own, by a keyed
pseudorandom function of the record's place in the table: the first 64 bits
of SHA-256(K || place), from the engine's built-in ``sha256``/``sha2``, are
kept when below beta * 2^64 (compared as 16 hex digits). K is the hex of a
key derived from the release's key (`sample_key`): the release's own key
reaches no engine. K is read from a one-row table joined to the rows (a
Python Arrow table the relation holds on DuckDB, a broadcast DataFrame on
Spark), so that it is in no SQL text or plan. The places differ by engine:

* DuckDB numbers the rows by their position. A table (``con.table(...)``)
  by its ``rowid``, which names the stored row and is read in parallel; any
  other relation by ``row_number() OVER () - 1``, which DuckDB computes in
  a pipeline run on one thread in the order of its source (the operator
  requires a fixed order), so that a scan of a Parquet, CSV or Arrow source
  through filters and projections numbers its rows the same way every time.
  (On a table both number a row alike: its table and its Parquet export
  draw the same sample.) A relation whose rows come out in an order that
  can change between runs (a join, an aggregate, a sort with ties, a
  sample, a union...) is refused: stored as a table, it can be sampled.
* Spark has no position that survives a new partitioning
  (``monotonically_increasing_id`` and ``zipWithIndex`` depend on the
  file splits, which follow the cluster's cores, and on the order a
  shuffle delivers rows), so a record's place is its content and its
  occurrence: two 64-bit hashes of the row (``xxhash64``, nulls marked
  column by column) and its number among the rows of the same hashes
  (``row_number`` over a window partitioned by them). Rows with the same
  hashes are the same record, so whichever gets which number, the same
  records are drawn, however the table is partitioned; identical records
  still get distinct places and are drawn independently. It costs one
  shuffle of the table each time the sample is read."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.inputs.frames import fresh_name

LABEL = b"polars-anon differential privacy, engine sample key"
# hex digits of the hash compared with the threshold: 64 bits
DIGITS = 16

# the operators that keep a DuckDB relation's rows in their source's order,
# and the sources whose order is fixed (as DuckDB 1.1 to 2.0 name them in a
# plan; tests/test_dp_engines.py reads several of them with four threads)
_DUCKDB_STEPS = frozenset({"PROJECTION", "FILTER", "STREAMING_WINDOW"})
_DUCKDB_SOURCES = frozenset(
    {
        "SEQ_SCAN",
        "PARQUET_SCAN",
        "READ_CSV",
        "READ_CSV_AUTO",
        "READ_JSON",
        "READ_JSON_AUTO",
        "PYTHON_ARROW_SCAN",
        "ARROW_SCAN",
        "PANDAS_SCAN",
        "COLUMN_DATA_SCAN",
        "RANGE",
        "DUMMY_SCAN",
        "EMPTY_RESULT",
    }
)


def sample_key(key: bytes) -> str:
    """The hex of the key the engines sample with, derived from the
    release's key (which also drives the exponential mechanism)."""
    return hashlib.sha256(LABEL + key).hexdigest()


def threshold(beta: float) -> str:
    """beta * 2^64 rounded down, as the 16 hex digits a hash is compared
    with (exact: beta is a double in (0, 1))."""
    if not 0 < beta < 1:
        raise ConfigError(f"the sampling probability must be in (0, 1), got {beta!r}")
    return f"{int(beta * 2.0**64):0{DIGITS}x}"


def kept(key: bytes, beta: float, place: str) -> bool:
    """Whether the record at `place` (as the engine writes it) is drawn:
    the engines' rule, in Python."""
    digest = hashlib.sha256((sample_key(key) + place).encode("ascii")).hexdigest()
    return digest[:DIGITS] < threshold(beta)


def sampled(data: Any, where: str, key: bytes, beta: float) -> Any:
    """The sample of `data` (a DuckDB relation or a Spark DataFrame, as
    `where` says), lazily, with the same columns: each record kept with
    probability `beta` by `key`, the same records every time it is read."""
    if where == "duckdb":
        return _duckdb(data, sample_key(key), threshold(beta))
    if where == "spark":
        return _spark(data, sample_key(key), threshold(beta))
    raise ConfigError(
        f"differential_privacy samples the records of a table; a {where} input has none to "
        "sample: pass the table itself"
    )


def count(data: Any, where: str) -> int:
    """The rows of a DuckDB relation or Spark DataFrame, counted there."""
    if where == "duckdb":
        return int(data.aggregate("count(*)").fetchall()[0][0])
    return int(data.count())


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _duckdb(rel: Any, key_hex: str, cut: str) -> Any:
    import duckdb

    columns = list(rel.columns)
    n = fresh_name("__polars_anon_row", columns)
    numbered = None
    if rel.type == "TABLE_RELATION" and "rowid" not in {c.lower() for c in columns}:
        try:
            numbered = rel.select(f"*, rowid AS {_q(n)}")
        except duckdb.Error:
            numbered = None
    if numbered is None:
        check_order(_plan(rel))
        numbered = rel.select(f"*, row_number() OVER () - 1 AS {_q(n)}")
    # read by DuckDB's replacement scan, and held by the relation it returns
    __polars_anon_sample_key = pl.DataFrame({"k": [key_hex]}).to_arrow()
    digest = f"sha256(key.k || CAST(base.{_q(n)} AS VARCHAR))"
    sql = (
        f"SELECT base.* EXCLUDE ({_q(n)}) FROM base CROSS JOIN __polars_anon_sample_key key "
        f"WHERE left({digest}, {DIGITS}) < '{cut}'"
    )
    return numbered.query("base", sql)


def check_order(plan: list[tuple[str, int, str]]) -> None:
    """A ConfigError unless DuckDB reads a relation's rows in the same order
    on every run: its `plan` (`_plan`) only filters and projects the rows of
    one source of fixed order."""
    found = None
    for name, inputs, details in plan:
        fixed = name in _DUCKDB_STEPS if inputs == 1 else inputs == 0 and name in _DUCKDB_SOURCES
        if not fixed:
            found = name or "an operator it cannot read"
        elif "sample method" in details.lower():
            found = f"{name} with a sample"
        if found:
            break
    if not found and sum(inputs == 0 for _, inputs, _ in plan) != 1:
        found = "no single source" if plan else "nothing it can read"
    if found:
        raise ConfigError(
            "differential_privacy cannot number the rows of this DuckDB relation the same way "
            f"on every read: its plan has {found}, whose rows can come out in another order (or "
            "be others) the next time. Store it first, as a table (rel.to_table('t'), then "
            "con.table('t')) or a Parquet file (rel.write_parquet(path), then "
            "duckdb.read_parquet(path)), and pass that"
        )


def _plan(rel: Any) -> list[tuple[str, int, str]]:
    """Each operator of the plan that numbers `rel`'s rows: its name, its
    number of inputs and its details, as DuckDB shows them (JSON since
    DuckDB 2.0, which returns the EXPLAIN of a relation; before, the text
    rendering)."""
    import duckdb

    numbering = "SELECT row_number() OVER () FROM base"
    try:
        shown = rel.query("base", f"EXPLAIN (FORMAT json) {numbering}")
        tree = json.loads(shown.fetchall()[0][1]) if shown is not None else None
    except (duckdb.Error, ValueError, IndexError, TypeError):
        tree = None
    if not isinstance(tree, list):
        return boxes(rel.query("base", numbering).explain())
    out: list[tuple[str, int, str]] = []
    nodes = list(tree)
    while nodes:
        node = nodes.pop()
        children = node.get("children", [])
        details = json.dumps(node.get("extra_info", {}))
        out.append((str(node.get("name", "")).strip(), len(children), details))
        nodes.extend(children)
    return out


# box-drawing characters, and the space
_DRAWING = "".join(map(chr, range(0x2500, 0x2580))) + " "


def boxes(text: str) -> list[tuple[str, int, str]]:
    """The operators of a plan as DuckDB 1.x draws it, one box each, its
    name on its first line: a chain of boxes, each with one input but the
    last. Boxes side by side (an operator of two inputs) are one operator
    of two inputs here."""
    lines = text.splitlines()
    out: list[tuple[str, int, str]] = []
    for i, line in enumerate(lines):
        if "\u250c" not in line:  # a box's top
            continue
        if line.count("\u250c") > 1:
            return [*out, ("", 2, "")]
        body: list[str] = []
        inputs = 0
        for inner in lines[i + 1 :]:
            if "\u2514" in inner:  # its bottom, joined to an input below
                inputs = 1 if "\u252c" in inner else 0
                break
            body.append(inner.strip(_DRAWING))
        out.append((body[0] if body else "", inputs, " ".join(body[1:])))
    return out


def _spark(df: Any, key_hex: str, cut: str) -> Any:
    from pyspark.sql import Window
    from pyspark.sql import functions as F
    from pyspark.sql.types import DoubleType, FloatType, StringType

    from polars_anon.engines.spark import _spark_frame

    def col(name: str) -> Any:
        return F.col("`" + name.replace("`", "``") + "`")

    columns = list(df.columns)
    fields = df.schema.fields
    h1 = fresh_name("__polars_anon_h1", columns)
    h2 = fresh_name("__polars_anon_h2", [*columns, h1])
    n = fresh_name("__polars_anon_n", [*columns, h1, h2])
    k = fresh_name("__polars_anon_k", [*columns, h1, h2, n])
    # the record's content: whether each column is null (a hash skips a
    # null), each column Spark can hash (a map cannot: it is never a
    # quasi-identifier), and a float's text (-0.0 hashes as 0.0)
    content = [col(f.name).isNull() for f in fields]
    for f in fields:
        text = f.dataType.simpleString()
        if "map<" not in text and "variant" not in text:
            content.append(col(f.name))
        if isinstance(f.dataType, FloatType | DoubleType):
            content.append(col(f.name).cast("string"))
    hashed = df.select(
        *[col(c) for c in columns],
        F.xxhash64(*content).alias(h1),
        F.xxhash64(F.lit("polars-anon"), *content).alias(h2),
    )
    occurrence = F.row_number().over(Window.partitionBy(col(h1), col(h2)).orderBy(col(h1)))
    numbered = hashed.withColumn(n, occurrence)
    key = _spark_frame(df.sparkSession, pl.DataFrame({k: [key_hex]}), [(k, StringType())])
    place = F.concat_ws(":", col(h1).cast("string"), col(h2).cast("string"), col(n).cast("string"))
    digest = F.sha2(F.concat(col(k), place), 256)
    drawn = numbered.crossJoin(F.broadcast(key)).where(F.substring(digest, 1, DIGITS) < F.lit(cut))
    return drawn.select(*[col(c) for c in columns])
