"""A job run by Mondrian (``[search] algorithm = "mondrian"``): the table
partitioned (`polars_anon.mondrian`), the release written through the same
proven write as every job's (`Guarded.write`), and what the resolved job
records of it.

The partition itself is not recorded: a resolved job holds how it was made
(the quasi-identifiers, which of them were split as numbers, the
hierarchies, k and the criteria, the mode) and what it gave (the number of
partitions and the loss). Running that job again runs the deterministic
split again on whatever input it is given, and re-checks the release it
writes; on the same input it gives the same partitions, on new data new
ones."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import polars as pl

from polars_anon._core import ConfigError, Hierarchy, __version__
from polars_anon.api.mondrian import mondrian
from polars_anon.criteria.base import Criterion
from polars_anon.jobs.columns import fates_doc
from polars_anon.jobs.tables import sha256
from polars_anon.jobs.toml import dumps
from polars_anon.release.guard import Guarded
from polars_anon.release.write import target
from polars_anon.results.mondrian import MondrianResult
from polars_anon.roles.spec import Roles

ALGORITHM = "mondrian"


def refuse_keys(search: dict[str, Any]) -> None:
    """A job file's ``[search]`` keys that only Mondrian takes, refused
    with another algorithm."""
    given = sorted({"mode", "numeric"} & set(search))
    if given and search.get("algorithm") != ALGORITHM:
        raise ConfigError(f'job file: [search] {given} are for algorithm = "{ALGORITHM}" only')


def refuse_unused(
    engine: str,
    max_suppression: int | float,
    variant: str | None,
    time_limit: float | None,
    levels: dict[str, int] | None,
) -> None:
    """What a Mondrian job cannot take, refused before the table is read."""
    given = [
        name
        for name, used in (
            ("max_suppression (Mondrian suppresses no records)", max_suppression),
            ("variant", variant is not None),
            ("time_limit", time_limit is not None),
            ("recorded levels ([result] levels: a full-domain job's)", levels is not None),
        )
        if used
    ]
    if given:
        raise ConfigError(f"algorithm='mondrian' takes no {', no '.join(given)}")
    if engine != "polars":
        raise ConfigError(
            f"algorithm='mondrian' runs on the polars engine only, for now (its release is "
            f"built on Polars), got engine={engine!r}"
        )


def release(
    data: Any,
    quasi_identifiers: list[str],
    k: int,
    hierarchies: dict[str, Hierarchy],
    criteria: list[Criterion],
    mode: str,
    numeric: list[str] | None,
    roles: Roles,
    output: Path,
    separator: str,
) -> tuple[MondrianResult, Guarded]:
    """Partition `data` and write its release to `output` (Parquet by its
    suffix, else CSV), proven on the file it wrote: the result and the
    release (whose ``columns`` say what became of every column)."""
    result = mondrian(data, quasi_identifiers, k, hierarchies, criteria, mode=mode, numeric=numeric)
    guarded = result.guarded(roles=roles)
    target(output)
    fmt = "parquet" if output.suffix.lower() == ".parquet" else "csv"
    guarded.write(output, fmt, separator)
    return result, guarded


def resolved_toml(
    doc: dict[str, Any],
    input: Path,
    output: Path,
    result: MondrianResult,
    rows_released: int,
    columns: pl.DataFrame | None,
) -> str:
    """The resolved job of a Mondrian run: the job (`doc`, as `Job.to_dict`
    writes it) with the quasi-identifiers split as numbers, the checksums
    of what it read and wrote, and in ``[result]`` what the run found (the
    partitions are not listed: a run of the file partitions again)."""
    doc["search"]["numeric"] = [q for q, kind in result.kinds.items() if kind == "numeric"]
    doc["input"]["sha256"] = sha256(input)
    doc["output"]["sha256"] = sha256(output)
    sizes = result.outcome.sizes
    doc["result"] = {
        "algorithm": ALGORITHM,
        "mode": result.mode,
        "partitions": result.partitions,
        "smallest_partition": min(sizes),
        "largest_partition": max(sizes),
        "loss": result.loss,
        "attribute_loss": result.attribute_loss,
        "rows_in": result.prep.rows,
        "rows_released": rows_released,
        "library_version": __version__,
        "written": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    fates = fates_doc(columns) if columns is not None else {}
    if fates:
        doc["result"]["columns"] = fates
    head = (
        f"# The resolved job of {output.name!r}, written by polars-anon {__version__}.\n"
        "# Run it again (polars-anon anonymize --config THIS_FILE [DATA --out FILE]) to\n"
        "# partition another input by Mondrian's deterministic split, re-checked. The\n"
        "# partition itself is not stored: [result] records what this run found.\n"
    )
    return head + dumps(doc)
