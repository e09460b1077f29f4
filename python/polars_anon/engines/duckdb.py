"""The DuckDB engine: F0 by one SQL aggregate over the relation; the release
as SQL over it, each quasi-identifier joined null-safely to a small
dimension table (native value -> label) and the suppressed groups removed
by a null-safe anti-join; its groups are counted in DuckDB and must be the
checked ones; then it is snapshotted into a table, so that what is handed
back (a relation over that table) cannot change with its source.

A snapshot is a table of a database file in a temporary folder, attached to
the relation's connection once (`_snapshots`): DuckDB writes its blocks to
the file as they fill, so a release of 100M rows is held on disk, not in
memory (a temporary table of an in-memory connection held 17 GB), at the
cost of compressing and writing it (30M rows: 12 s against 5 s). The files
live until the process ends."""

from __future__ import annotations

import atexit
import hashlib
import itertools
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl

from polars_anon._core import ConfigError
from polars_anon.engines.duckdb_csv import read as read
from polars_anon.inputs.frames import fresh_name
from polars_anon.roles.ops import Keyed, Mapped, Op
from polars_anon.roles.spec import Drop, Mask

# the engine as its users name it
NAME = "DuckDB"
_names = itertools.count()


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _frame(rel: Any) -> pl.DataFrame:
    frame = pl.from_arrow(rel.to_arrow_table())
    assert isinstance(frame, pl.DataFrame)
    return frame


@contextmanager
def _setting(rel: Any, name: str, value: str) -> Iterator[None]:
    """`rel`'s connection with setting `name` at `value` (SQL text), set
    back to what it was after."""
    q = "__polars_anon_base"
    before = rel.query(q, f"SELECT current_setting('{name}')").fetchall()[0][0]
    rel.query(q, f"SET {name} = {value}")
    try:
        yield
    finally:
        if isinstance(before, bool):
            was = "true" if before else "false"
        else:
            was = "'" + str(before).replace("'", "''") + "'"
        rel.query(q, f"SET {name} = {was}")


@contextmanager
def _star_joins(rel: Any) -> Iterator[None]:
    """`rel`'s connection without DuckDB's join-order optimizer, for SQL
    that left-joins one small table per quasi-identifier onto the rows:
    the order of such joins does not matter, and ordering hundreds of them
    took most of a release (census, 50,000 rows, 200 QIs: 105 s with it, 8.9
    s without)."""
    q = "__polars_anon_base"
    before = str(rel.query(q, "SELECT current_setting('disabled_optimizers')").fetchall()[0][0])
    names = [n.strip() for n in before.split(",") if n.strip()]
    if "join_order" in names:
        yield
        return
    with _setting(rel, "disabled_optimizers", "'" + ",".join([*names, "join_order"]) + "'"):
        yield


def schema(rel: Any) -> pl.Schema:
    """`rel`'s columns as Polars types; an INTERVAL column (which Polars
    does not read) is refused, naming it."""
    kinds = zip(rel.columns, map(str, rel.types), strict=True)
    intervals = [c for c, t in kinds if t.startswith("INTERVAL")]
    if intervals:
        raise ConfigError(
            f"column{'s' * (len(intervals) > 1)}: {', '.join(intervals)}: DuckDB INTERVAL, which "
            "Polars does not read: cast them (to VARCHAR, or a number of days) or leave them out"
        )
    return _frame(rel.limit(0)).schema


# text compared by its bytes, whatever the column's or the connection's
# collation (DuckDB's BINARY)
BINARY = 'COLLATE "binary"'


def zeros(rel: Any, columns: list[str]) -> Any:
    """`rel` as its quasi-identifiers and sensitive values are read: each
    float column among `columns` plus a zero of its type, which makes every
    -0.0 a 0.0 (IEEE) and leaves other values as they are (DuckDB groups and
    joins -0.0 with 0.0, and would hand both back as they were: a group
    counted here would be two values as text, which the release is read and
    checked as); each text column compared by its bytes: one collated
    otherwise (NOCASE, NOACCENT, a connection's ``default_collation``)
    groups texts that are released apart (``smith`` and ``SMITH`` counted
    one group of 6, released as two of 3). Every read of a table's
    quasi-identifiers and sensitive values goes through this."""
    types = dict(zip(rel.columns, map(str, rel.types), strict=True))
    wanted = list(dict.fromkeys(columns))
    floats = [c for c in wanted if types.get(c) in ("FLOAT", "DOUBLE")]
    texts = [c for c in wanted if types.get(c) == "VARCHAR"]
    if not floats and not texts:
        return rel
    plus = [f"({_q(c)} + CAST(0 AS {types[c]})) AS {_q(c)}" for c in floats]
    plus += [f"{_q(c)} {BINARY} AS {_q(c)}" for c in texts]
    return rel.project(f"* REPLACE ({', '.join(plus)})")


def group(rel: Any, columns: list[str], count: str, maps: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """F0: one aggregate; a column in `maps` is first joined null-safely to
    its table of representatives and grouped by them."""
    rel = zeros(rel, columns)
    if not maps:
        cols = ", ".join(_q(c) for c in columns)
        agg = rel.aggregate(f"{cols}, count(*) AS {_q(count)}", cols)
        return _frame(agg).with_columns(pl.col(count).cast(pl.UInt64))
    tables = {c: _temp(rel, m.select("v", "r")) for c, m in maps.items()}
    joins = _joins(list(tables), list(tables.values()))
    keys = [f"m{list(tables).index(c)}.r" if c in tables else f"base.{_q(c)}" for c in columns]
    select = ", ".join(f"{key} AS {_q(c)}" for key, c in zip(keys, columns, strict=True))
    sql = f"SELECT {select}, count(*) AS {_q(count)} FROM base {joins} GROUP BY {', '.join(keys)}"
    try:
        with _star_joins(rel):
            frame = _frame(rel.query("base", sql))
    finally:
        for t in tables.values():
            rel.query("__polars_anon_base", f"DROP TABLE {t}")
    return frame.with_columns(pl.col(count).cast(pl.UInt64))


def marginals(rel: Any, columns: list[str], count: str) -> dict[str, pl.DataFrame]:
    return {c: group(rel, [c], count, {}) for c in columns}


def _joins(columns: list[str], tables: list[str]) -> str:
    """SQL joining each of `columns` of ``base`` null-safely to its small
    table (``m0``, ``m1``, ... by position), on the table's column ``v``."""
    return " ".join(
        f"LEFT JOIN {t} m{i} ON base.{_q(c)} IS NOT DISTINCT FROM m{i}.v"
        for i, (c, t) in enumerate(zip(columns, tables, strict=True))
    )


def _temp(rel: Any, frame: pl.DataFrame) -> str:
    """`frame` as a temporary table on `rel`'s connection."""
    name = f"__polars_anon_{next(_names)}"
    arrow = frame.to_arrow()  # noqa: F841 - read by DuckDB's replacement scan
    rel.query("__polars_anon_base", f"CREATE TEMP TABLE {name} AS SELECT * FROM arrow")
    return name


# the folder of this process's snapshot files, made when first needed
_folder: list[Path] = []
SNAPSHOTS = "__polars_anon_snapshots"


def _snapshots(rel: Any) -> str:
    """The schema prefix of the snapshot database on `rel`'s connection,
    attached on first use."""
    attached = rel.query(
        "__polars_anon_base",
        f"SELECT count(*) FROM duckdb_databases() WHERE database_name = '{SNAPSHOTS}'",
    ).fetchall()[0][0]
    if attached:
        return f"{SNAPSHOTS}.main."
    if not _folder:
        _folder.append(Path(tempfile.mkdtemp(prefix="polars-anon-duckdb-")))
        atexit.register(shutil.rmtree, _folder[0], True)
    path = _folder[0] / f"snapshots{next(_names)}.duckdb"
    where = str(path).replace("'", "''")
    # writable also from a read-only connection (which attaches read-only)
    rel.query("__polars_anon_base", f"ATTACH '{where}' AS {SNAPSHOTS} (READ_ONLY false)")
    return f"{SNAPSHOTS}.main."


def _snapshot(rel: Any, prefix: str, select: str) -> Any:
    """The rows of `select` (SQL over ``base``, `rel`) as a new snapshot
    table, and a relation over it."""
    name = f"{_snapshots(rel)}{prefix}{next(_names)}"
    rel.query("base", f"CREATE TABLE {name} AS {select}")
    out = rel.query("__polars_anon_base", f"SELECT * FROM {name}")
    _tables[id(out)] = name
    return out


# the snapshot table each relation `_snapshot` made reads, by its id
_tables: dict[int, str] = {}


def discard(released: Any) -> None:
    """Drop the snapshot of a release refused after it was made: it holds
    rows that failed their check, and stayed queryable on the connection."""
    name = _tables.pop(id(released), None)
    if name is not None:
        released.query("__polars_anon_base", f"DROP TABLE IF EXISTS {name}")


def release(
    rel: Any,
    qis: list[str],
    mappings: list[pl.DataFrame],
    generalized: list[bool],
    drop: pl.DataFrame,
    sensitive: list[str],
) -> tuple[Any, pl.DataFrame, int | None]:
    """The release of `rel`, snapshotted, and its groups (the released
    quasi-identifiers and sensitive values, native where not generalized,
    with their counts ``n``) counted in DuckDB on the snapshot (the rows
    read: None, the table counted before and after, `release.build.same_rows`).
    `mappings[i]` has columns ``v`` (native value) and ``l`` (label)."""
    rel = zeros(rel, qis + sensitive)
    tables = [_temp(rel, m) for m in mappings]
    joins = _joins(qis, tables)
    where = ""
    drop_table = None
    if drop.height:
        keyed = drop.rename({q: f"k{i}" for i, q in enumerate(qis)})
        drop_table = _temp(rel, keyed)
        match = " AND ".join(f"d.k{i} IS NOT DISTINCT FROM m{i}.l" for i in range(len(qis)))
        where = f"WHERE NOT EXISTS (SELECT 1 FROM {drop_table} d WHERE {match})"
    columns = rel.columns
    types = dict(zip(columns, (str(t) for t in rel.types), strict=True))
    select = ", ".join(
        f"m{qis.index(c)}.l AS {_q(c)}"
        if c in qis and generalized[qis.index(c)]
        else f"{enums_as_text(f'base.{_q(c)}', types[c])} AS {_q(c)}"
        for c in columns
    )
    try:
        with _star_joins(rel):
            released = _snapshot(
                rel, "__polars_anon_release_", f"SELECT {select} FROM base {joins} {where}"
            )
    finally:
        for t in [*tables, *([drop_table] if drop_table else [])]:
            rel.query("__polars_anon_base", f"DROP TABLE {t}")
    # the groups of what is handed back, counted in DuckDB
    by = ", ".join(_q(c) for c in [*qis, *sensitive])
    n = _q(fresh_name("n", [*qis, *sensitive]))
    groups = _frame(released.aggregate(f"{by}, count(*) AS {n}", by))
    return released, groups, None


# an ENUM type as DuckDB writes it: ENUM('a', 'it''s')
ENUM = re.compile(r"ENUM\((?:'(?:[^']|'')*'(?:, )?)*\)")


def enums_as_text(column: str, dtype: str) -> str:
    """`column` (of DuckDB type `dtype`) with every ENUM in its type made
    VARCHAR, nested ones too: an ENUM's type lists all its values, those of
    the suppressed records too."""
    if "ENUM(" not in dtype:
        return column
    return f"CAST({column} AS {ENUM.sub('VARCHAR', dtype)})"


def release_by(
    rel: Any,
    keys: list[str],
    mapping: pl.DataFrame,
    labels: list[str],
    by: list[str],
    ranks: tuple[str, str] | None = None,
) -> tuple[Any, pl.DataFrame]:
    """The release of `rel` with each of the first of `keys` replaced by its
    label: the row of `mapping` (columns `keys`, native, then `labels`,
    text, one a replaced key) whose keys are the row's, joined null-safely
    on all of them at once; snapshotted, and its groups (`keys` and `by`,
    with counts ``n``) counted in DuckDB on the snapshot. A row no mapping
    row matches gets null labels. With `ranks` (two Int64 columns of
    `mapping`: a run's first and past-last rank), a row matches the mapping
    row whose run holds its number among the rows of its keys (from 0, in
    no particular order: ``row_number()`` over the keys, unordered)."""
    rel = zeros(rel, keys + by)
    renamed = {q: f"k{i}" for i, q in enumerate(keys)}
    renamed |= {lab: f"l{i}" for i, lab in enumerate(labels)}
    if ranks is not None:
        renamed |= {ranks[0]: "s", ranks[1]: "e"}
    table = _temp(rel, mapping.select(list(renamed)).rename(renamed))
    row, source, runs = "base", "base", ""
    if ranks is not None:
        rank = _q(fresh_name("__polars_anon_rank", rel.columns))
        over = ", ".join(_q(q) for q in keys)
        row = "numbered"
        numbered = f"SELECT *, row_number() OVER (PARTITION BY {over}) - 1 AS {rank} FROM base"
        source = f"({numbered}) {row}"
        runs = f" AND {row}.{rank} >= m.s AND {row}.{rank} < m.e"
    on = " AND ".join(f"{row}.{_q(q)} IS NOT DISTINCT FROM m.k{i}" for i, q in enumerate(keys))
    on += runs
    replaced = keys[: len(labels)]
    items = [
        f"m.l{keys.index(c)} AS {_q(c)}" if c in replaced else f"{row}.{_q(c)}" for c in rel.columns
    ]
    select = f"SELECT {', '.join(items)} FROM {source} LEFT JOIN {table} m ON {on}"
    try:
        released = _snapshot(rel, "__polars_anon_release_", select)
    finally:
        rel.query("__polars_anon_base", f"DROP TABLE {table}")
    cols = ", ".join(_q(c) for c in [*keys, *by])
    n = _q(fresh_name("n", [*keys, *by]))
    return released, _frame(released.aggregate(f"{cols}, count(*) AS {n}", cols))


def hmac_pads(key: bytes) -> tuple[bytes, bytes]:
    """HMAC-SHA-256's inner and outer pads of `key` (RFC 2104): the key,
    hashed first when longer than a block, zero-padded to 64 bytes and
    XORed with 0x36 and with 0x5c."""
    block = (hashlib.sha256(key).digest() if len(key) > 64 else key).ljust(64, b"\0")
    return bytes(b ^ 0x36 for b in block), bytes(b ^ 0x5C for b in block)


def _masked(text: str, op: Mask) -> str:
    """SQL of `text` masked as `roles.polars.masked` does (lengths in
    characters)."""
    n, kept = f"length({text})", op.keep_first + op.keep_last
    char = "'" + op.char.replace("'", "''") + "'"
    head, tail = f"left({text}, {op.keep_first})", f"right({text}, {op.keep_last})"
    partial = f"{head} || repeat({char}, {n} - {kept}) || {tail}"
    return f"CASE WHEN {n} > {kept} THEN {partial} ELSE repeat({char}, {n}) END"


def _identified(column: str, op: Op | None, index: int) -> str | None:
    """The select item of `column` under `op`; `index` is its place among
    the keyed columns (pads ``p.i<index>``, ``p.o<index>``) or the mapped
    ones (table ``m<index>``). None for a dropped column."""
    text, name = f"CAST(base.{_q(column)} AS VARCHAR)", _q(column)
    if isinstance(op, Keyed):
        inner = f"unhex(sha256(p.i{index} || encode({text})))"
        return f"left(sha256(p.o{index} || {inner}), {op.length}) AS {name}"
    if isinstance(op, Mask):
        return f"{_masked(text, op)} AS {name}"
    if isinstance(op, Mapped):
        return f"m{index}.pseudonym AS {name}"
    return None if isinstance(op, Drop) else f"base.{name}"


def identify(released: Any, ops: list[tuple[str, Op]]) -> Any:
    """`released` with each identifier transformed in place (or dropped) as
    `roles.polars.identify` does, snapshotted (`_snapshot`). A
    keyed pseudonym is HMAC-SHA-256 from DuckDB's ``sha256``, its pads read
    from a one-row temporary table (so that the key is in no SQL text); that
    table and the pseudonym tables are dropped once the snapshot is built."""
    if not ops:
        return released
    by = dict(ops)
    keyed = {c: op for c, op in ops if isinstance(op, Keyed)}
    mapped = {c: op for c, op in ops if isinstance(op, Mapped)}
    tables, joins = [], []
    if keyed:
        row: dict[str, list[bytes]] = {}
        for i, k in enumerate(keyed.values()):
            ipad, opad = hmac_pads(k.key)
            row[f"i{i}"], row[f"o{i}"] = [ipad], [opad]
        tables.append(_temp(released, pl.DataFrame(row)))
        joins.append(f"CROSS JOIN {tables[-1]} p")
    for j, (c, op) in enumerate(mapped.items()):
        tables.append(_temp(released, op.mapping.select("value", "pseudonym")))
        text = f"CAST(base.{_q(c)} AS VARCHAR)"
        joins.append(f"LEFT JOIN {tables[-1]} m{j} ON {text} = m{j}.value")
    places = {c: i for names in (keyed, mapped) for i, c in enumerate(names)}
    items = [_identified(c, by.get(c), places.get(c, -1)) for c in released.columns]
    select = ", ".join(item for item in items if item is not None)
    try:
        return _snapshot(
            released, "__polars_anon_identified_", f"SELECT {select} FROM base {' '.join(joins)}"
        )
    finally:
        for t in tables:
            released.query("__polars_anon_base", f"DROP TABLE {t}")


def distinct(native: Any, column: str) -> pl.Series:
    """The distinct values of `column` as text, nulls left out."""
    text = f"CAST({_q(column)} AS VARCHAR) {BINARY}"
    sql = f"SELECT DISTINCT {text} AS {_q(column)} FROM base WHERE {_q(column)} IS NOT NULL"
    return _frame(native.query("base", sql)).get_column(column).cast(pl.String)


def distinct_counts(
    native: Any, columns: list[str], exact: bool = False
) -> tuple[int, dict[str, tuple[int, int]]]:
    """The rows, and each column's distinct non-null values, counted
    (`exact`) or estimated (HyperLogLog), and its non-null rows: one pass."""
    distinct = "count(DISTINCT {0})" if exact else "approx_count_distinct({0})"
    native = zeros(native, columns)
    counts = ", ".join(f"{distinct.format(_q(c))}, count({_q(c)})" for c in columns)
    row = native.aggregate(f"count(*){', ' + counts if columns else ''}").fetchall()[0]
    pairs = zip(row[1::2], row[2::2], strict=True)
    return int(row[0]), {c: (int(n), int(h)) for c, (n, h) in zip(columns, pairs, strict=True)}


def write(rel: Any, path: Path, separator: str, fmt: str | None = None) -> int:
    """The release as Parquet or CSV (`fmt`, else by `path`'s suffix); its
    rows. Written without keeping the rows' order (DuckDB's
    ``preserve_insertion_order``, set back after): a release promises no
    order, and keeping it buffered the rows (2.4 GiB for 30M rows against
    0.6)."""
    parquet = (fmt or path.suffix.lower().lstrip(".")) == "parquet"
    with _setting(rel, "preserve_insertion_order", "false"):
        if parquet:
            rel.write_parquet(str(path))
        else:
            rel.write_csv(str(path), sep=separator)
    return int(rel.aggregate("count(*)").fetchall()[0][0])
