"""A job run by Mondrian (``[search] algorithm = "mondrian"``): the table
partitioned (`polars_anon.mondrian`), the release written through the same
proven write as every job's (`Guarded.write`), and what the resolved job
records of it.

A resolved job holds how the partition was made (the quasi-identifiers,
which of them were split as numbers, the hierarchies, k and the criteria,
the mode), what it gave (the number of partitions and the loss) and, for a
strict partition, the partition itself: its splits
(`results.mondrian_splits`) in ``<output>.splits.parquet`` beside it,
named with their checksum in ``[result]``. Running that job again routes
its input's records down the recorded splits (a changed splits file is
refused) and releases the partitions they reach, each re-checked for k and
the criteria: on the same input, the same partitions; on new data, the
same boxes holding new records, or a refusal naming the first that fails.
A relaxed partition records no splits (it divides the records of a value)
and a run of its job partitions its input anew."""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import polars as pl

from polars_anon._core import ConfigError, Hierarchy, NotAnonymousError, __version__
from polars_anon.api.mondrian import mondrian
from polars_anon.api.search import DEFAULT_MEMORY_BUDGET
from polars_anon.criteria.base import Criterion
from polars_anon.jobs import values
from polars_anon.jobs.columns import fates_doc
from polars_anon.jobs.tables import SPLITS, output_format, sha256
from polars_anon.jobs.toml import dumps
from polars_anon.release.guard import Guarded
from polars_anon.release.write import target, write_text_whole
from polars_anon.results.mondrian import MondrianResult
from polars_anon.roles.spec import Roles


class JobLike(Protocol):
    """What a Mondrian run reads of its `Job` (`jobs.job`, which imports
    this module)."""

    input: Path
    output: Path

    def to_dict(self, relative_to: Path | None = None) -> dict[str, Any]: ...


ALGORITHM = "mondrian"


def refuse_keys(search: dict[str, Any]) -> None:
    """A job file's ``[search]`` keys that only Mondrian takes, refused
    with another algorithm."""
    given = sorted({"mode", "numeric", "coarsen"} & set(search))
    if given and search.get("algorithm") != ALGORITHM:
        raise ConfigError(f'job file: [search] {given} are for algorithm = "{ALGORITHM}" only')
    if "memory_budget" in search and search.get("algorithm") == ALGORITHM:
        raise ConfigError(
            f'job file: [search] memory_budget is for the searches: algorithm = "{ALGORITHM}" '
            "holds its partitions, and takes none"
        )


def recorded(result: dict[str, Any], search: dict[str, Any], base: Path) -> dict[str, Any]:
    """The recorded splits a job file's ``[result]`` names (``splits``,
    ``splits_sha256``), as `Job` fields."""
    if "splits" not in result:
        return {}
    if search.get("algorithm") != ALGORITHM:
        raise ConfigError(f'job file: [result] splits are for algorithm = "{ALGORITHM}" only')
    if "splits_sha256" not in result:
        raise ConfigError("job file: [result] splits needs splits_sha256, the file's checksum")
    digest = values.text("[result] splits_sha256", result["splits_sha256"])
    return {
        "splits": values.path("[result] splits", result["splits"], base),
        "splits_sha256": digest,
    }


def read_splits(path: Path | None, digest: str | None) -> pl.DataFrame | None:
    """The recorded splits, refused when their file changed since the job
    was resolved (its checksum)."""
    if path is None:
        return None
    if not path.is_file():
        raise ConfigError(f"job file: [result] splits: no such file {str(path)!r}")
    if sha256(path) != digest:
        raise ConfigError(
            f"job file: [result] splits {str(path)!r} changed since the job was resolved (its "
            "sha256 differs): refusing to re-apply another partition than the one recorded"
        )
    try:
        return pl.read_parquet(path)
    except (OSError, pl.exceptions.PolarsError) as e:
        raise ConfigError(f"job file: [result] splits {str(path)!r} cannot be read: {e}") from None


def refuse_unused(
    engine: str,
    max_suppression: int | float,
    variant: str | None,
    time_limit: float | None,
    levels: dict[str, int] | None,
    nulls: str = "error",
    memory_budget: int | None = None,
) -> None:
    """What a Mondrian job cannot take, refused before the table is read
    (`memory_budget`: the job's, refused unless the default)."""
    given = [
        name
        for name, used in (
            ("nulls = 'value' (a null has no place in a range)", nulls == "value"),
            ("max_suppression (Mondrian suppresses no records)", max_suppression),
            ("variant", variant is not None),
            ("time_limit", time_limit is not None),
            ("memory_budget", memory_budget not in (None, DEFAULT_MEMORY_BUDGET)),
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
    splits: pl.DataFrame | None = None,
    coarsen: bool = False,
) -> tuple[MondrianResult, Guarded]:
    """Partition `data` (by recorded `splits`, if given) and write its
    release to `output` (in the format its suffix names), proven on the file
    it wrote: the result and the release (whose ``columns`` say what became
    of every column)."""
    args = (data, quasi_identifiers, k, hierarchies, criteria)
    try:
        result = mondrian(*args, mode=mode, numeric=numeric, splits=splits, coarsen=coarsen)
    except (NotAnonymousError, ConfigError) as e:
        if splits is None or (
            not isinstance(e, NotAnonymousError) and "recorded splits" not in str(e)
        ):
            raise
        # the job's own ways out in place of the API's
        head = str(e).split(". Partition the table again")[0]
        raise type(e)(
            f"{head} (the job's recorded splits). To partition this input anew, delete "
            "[result] splits from the job file; to undo the splits it cannot hold, set "
            "[search] coarsen = true"
        ) from None
    guarded = result.guarded(roles=roles)
    target(output)
    guarded.write(output, output_format(output), separator)
    return result, guarded


def resolved_toml(
    doc: dict[str, Any],
    input: Path,
    output: Path,
    result: MondrianResult,
    rows_released: int,
    columns: pl.DataFrame | None,
    splits: Path | None = None,
    input_sha256: str | None = None,
) -> str:
    """The resolved job of a Mondrian run: the job (`doc`, as `Job.to_dict`
    writes it) with the quasi-identifiers split as numbers, the checksums
    of what it read and wrote, and in ``[result]`` what the run found and,
    when `splits` is given, that file's name and checksum (a run of the
    file re-applies them; without them it partitions again). The input's
    checksum is `input_sha256` when the run took it before writing."""
    doc["search"]["numeric"] = [q for q, kind in result.kinds.items() if kind == "numeric"]
    doc["input"]["sha256"] = input_sha256 or sha256(input)
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
        "re_applied": result.applied is not None,
        "library_version": __version__,
        "written": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if splits is not None:
        doc["result"]["splits"] = splits.name
        doc["result"]["splits_sha256"] = sha256(splits)
    fates = fates_doc(columns) if columns is not None else {}
    if fates:
        doc["result"]["columns"] = fates
    head = (
        f"# The resolved job of {output.name!r}, written by polars-anon {__version__}.\n"
        "# Run it again (polars-anon anonymize --config THIS_FILE [DATA --out FILE]) to\n"
        + (
            "# route another input's records down the recorded splits, re-checked.\n"
            if splits is not None
            else "# partition another input anew (no splits recorded: relaxed, or sets of\n"
            "# numbers, whose cuts cannot be kept as text).\n"
        )
    )
    return head + dumps(doc)


@dataclass
class MondrianRun:
    """What a Mondrian job's run did: its `MondrianResult`, the rows written (every one:
    Mondrian suppresses none), the resolved job file and what became of every column."""

    job: JobLike
    result: MondrianResult
    rows_released: int
    job_file: Path
    columns: pl.DataFrame | None = None
    # partitioned anew (False: by the job's recorded splits)
    searched: bool = True
    # the splits file `write` wrote (None: none, a relaxed or unroutable
    # partition, or not written)
    splits_written: Path | None = None
    # the input's checksum, taken before the release was written
    input_sha256: str | None = None

    def write(self) -> None:
        """Write the splits (atomically; a strict partition's whose cuts can
        be recorded) and then the resolved job. An older splits file at the
        same place is removed, so that no job names a partition it did not
        make."""
        path = Path(str(self.job.output) + SPLITS)
        try:
            splits = self.result.splits
        except ConfigError:
            path.unlink(missing_ok=True)
        else:
            partial = path.with_name(path.name + ".partial")
            try:
                splits.write_parquet(partial)
                os.replace(partial, path)
            finally:
                partial.unlink(missing_ok=True)
            self.splits_written = path
        write_text_whole(self.job_file, self.resolved_toml())

    def resolved_toml(self) -> str:
        """The resolved job file's text, as the run wrote it beside the output."""
        doc = self.job.to_dict(relative_to=self.job_file.parent)
        job, result, rows = self.job, self.result, self.rows_released
        splits = self.splits_written
        digest = self.input_sha256
        return resolved_toml(doc, job.input, job.output, result, rows, self.columns, splits, digest)
