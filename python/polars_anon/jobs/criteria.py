"""A job's criteria: each ``{ type = ..., ...}`` entry and the criterion it
describes, read and written through the criteria's one registry
(`polars_anon.criteria.TYPES`: a kind and its class's parameters).

The models whose population may be a table (`POPULATION_TABLES`) take it in
a job file, and on the command line, as the path of a CSV or Parquet file
(or a folder of Parquet parts), read as the job's data is read (with its
separator and encoding); a number stays a number (a count of records). A
criterion holding a table read so is written back as that path."""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from polars_anon._core import ConfigError, Hierarchy
from polars_anon.criteria import TYPES, Criterion
from polars_anon.criteria.base import is_table
from polars_anon.jobs.tables import read_table, sha256

# beside a population table's path in a job: its checksum, checked on reading
SHA256 = "population_sha256"

# the kinds whose ``population`` may be a table of the population
# (`criteria.population`): given as text, it is that table's file
POPULATION_TABLES = ("kmap", "d_presence")

# each population table read from a file (`population_file`), by id, and
# its file; an entry goes with its table (a weak reference's callback)
_FILES: dict[int, Path] = {}


def parameters(cls: type[Criterion]) -> tuple[list[str], list[str]]:
    """A criterion class's parameters, in its constructor's order, and those
    without a default."""
    params = list(inspect.signature(cls).parameters.values())
    return [p.name for p in params], [p.name for p in params if p.default is p.empty]


def population_file(
    path: str | Path,
    separator: str = ",",
    encoding: str = "utf8",
    where: str = "population",
    numbers: Collection[str] | None = None,
) -> Any:
    """The population table in the file `path` (CSV, Parquet, or a folder of
    Parquet parts), read lazily with Polars as the data is
    (`jobs.tables.read_table`: a CSV's `numbers`, the data's, as numbers,
    its other columns as text, so that its quasi-identifiers' values are
    the data's). A file that does not exist is a `ConfigError` naming
    `where` (the option or the job file's key) and the path."""
    path = Path(path)
    try:
        exists = path.exists()
    except OSError as e:  # a name too long for the file system
        raise ConfigError(f"{where}: population file {str(path)!r:.80}: {e.strerror}") from None
    if not exists:
        raise ConfigError(f"{where}: the population file {str(path)!r} does not exist")
    table = read_table(path, separator, encoding, numbers=numbers)
    _FILES[id(table)] = path
    weakref.finalize(table, _FILES.pop, id(table), None)
    return table


def file_of(table: Any) -> Path | None:
    """The file a population table was read from (`population_file`), or
    None for a table made in memory."""
    return _FILES.get(id(table))


def criterion(
    spec: dict[str, Any],
    separator: str = ",",
    encoding: str = "utf8",
    numbers: Collection[str] | None = None,
) -> Criterion:
    """The criterion a job file's ``{type = ..., ...}`` describes; the
    ``population`` of a model in `POPULATION_TABLES` given as text is read
    from that file with `separator` and `encoding`, its columns of
    `numbers` (the data's: `jobs.csv_types.numbers_of`) as numbers
    (`population_file`)."""
    if not isinstance(spec, dict):
        raise ConfigError(f"a criterion is a table {{ type = ..., ... }}, got {spec!r:.60}")
    spec = dict(spec)
    kind = spec.pop("type", None)
    # the population table's checksum a resolved job recorded
    recorded = spec.pop(SHA256, None)
    if not isinstance(kind, str) or kind not in TYPES:
        raise ConfigError(f"unknown criterion type {kind!r}; expected one of {sorted(TYPES)}")
    cls = TYPES[kind]
    params, required = parameters(cls)
    unknown = sorted(set(spec) - set(params))
    missing = [p for p in required if p not in spec]
    if unknown or missing:
        raise ConfigError(f"criterion {kind} takes {params}; unknown {unknown}, missing {missing}")
    population = spec.get("population")
    if kind in POPULATION_TABLES and isinstance(population, str | Path):
        where = f"[model] criteria: {kind} population"
        spec["population"] = population_file(population, separator, encoding, where, numbers)
        if recorded is not None and (now := sha256(Path(population))) != recorded:
            raise ConfigError(
                f"job file: {where} {str(population)!r} changed since the job was resolved: its "
                f"recorded sha256 ({str(recorded)[:16]}...) and its current one ({now[:16]}...) "
                "differ; refusing to apply the model to another population than the one "
                f"recorded (to use the file as it is now, delete {SHA256} from the job file)"
            )
    return cls(**spec)


def _absolute(path: Path) -> str:
    return str(path.resolve())


def criterion_spec(c: Criterion, path: Callable[[Path], str] = _absolute) -> dict[str, Any]:
    """A criterion as a job file's entry: its kind and every parameter that
    is set (a parameter at None is left out). A population table read from
    a file is written as its path, by `path` (absolute unless told: a
    resolved job writes it relative to its own folder); one made in memory
    cannot be written."""
    kind = getattr(type(c), "kind", None)
    if kind is None or TYPES.get(kind) is not type(c):
        raise ConfigError(f"{type(c).__name__} cannot be written to a job file")
    spec: dict[str, Any] = {"type": kind}
    for p in parameters(type(c))[0]:
        value = getattr(c, p)
        if isinstance(value, Hierarchy) or (
            isinstance(value, tuple) and any(isinstance(v, Hierarchy) for v in value)
        ):
            raise ConfigError(
                f"{type(c).__name__}: its {p} holds a Hierarchy, which a job file cannot "
                "record; give the categories as lists of values"
            )
        if is_table(value):
            file = file_of(value)
            if file is None:
                raise ConfigError(
                    f"{type(c).__name__}: its {p} is a table in memory, which a job file "
                    "cannot record; give the path of its CSV or Parquet file instead"
                )
            value = path(file)
            spec[SHA256] = sha256(file)
        if value is not None:
            spec[p] = value
    return spec
