"""A job run by SafePub (a ``[privacy]`` table): the table released
(epsilon, delta)-differentially private (`polars_anon.differential_privacy`)
instead of k-anonymous, written by the release's proven write (``sink_*``),
and what the resolved job records of it.

::

    [model]
    quasi_identifiers = ["age", "sex", "race"]   # no k: it is derived

    [privacy]
    epsilon = 1.0
    delta = 1e-5
    seed = 7                 # reproducible (tests, examples); leave out for a release
    steps = 300              # SafePub's search: its steps, score and budget share,
    metric = "loss"          # and how the answer is taken (see differential_privacy)
    search_share = 0.1
    final = "best"
    # or a scheme fixed without looking at the data (no search, all of epsilon
    # to the anonymization; the four search keys above are then refused):
    # generalization = { age = 2, sex = 0, race = 1 }

k and beta come from epsilon and delta, so ``[model]`` takes the
quasi-identifiers only (no k, max_suppression or criteria), and there is no
``[search]`` table. The release holds the quasi-identifiers only, so a
``[columns]`` table (roles of the other columns) is refused too.

The resolved job records the parameters and, in ``[result]``, what the run
found (k, beta, the budget's split, the levels, the records sampled,
suppressed and released). A run of it releases its input again: with the
same seed and input, the same file; without a seed, a new release, which
spends epsilon again. Its recorded levels are not applied (a fixed scheme is
``generalization``, which gives the search's budget to the anonymization)."""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import polars as pl

from polars_anon._core import ConfigError, Hierarchy, __version__
from polars_anon.api.dp import SEARCH_SHARE, STEPS, differential_privacy
from polars_anon.api.search import DEFAULT_MEMORY_BUDGET
from polars_anon.dp.scores import METRICS
from polars_anon.dp.search import FINALS
from polars_anon.inputs.nulls import Nulls
from polars_anon.jobs import values
from polars_anon.jobs.csv_types import numbers_of
from polars_anon.jobs.sources import refuse_levels_without_hierarchy
from polars_anon.jobs.tables import output_format, read_table, sha256, write_table
from polars_anon.jobs.toml import dumps
from polars_anon.release.write import write_text_whole
from polars_anon.results.dp import DPResult
from polars_anon.roles.spec import Roles

ALGORITHM = "safepub"
KEYS = ("epsilon", "delta", "seed", "steps", "metric", "search_share", "final", "generalization")
# the keys that set the search: none of them with a fixed scheme
SEARCH_KEYS = ("steps", "metric", "search_share", "final")


@dataclass(frozen=True)
class Privacy:
    """A job's ``[privacy]`` table: `polars_anon.differential_privacy`'s
    parameters (see the module doc)."""

    epsilon: float
    delta: float
    seed: int | None = None
    steps: int = STEPS
    metric: str = "loss"
    search_share: float = SEARCH_SHARE
    final: str = "best"
    # a level for each quasi-identifier (unnamed ones stay at 0): no search
    generalization: dict[str, int] | None = None

    def to_doc(self) -> dict[str, Any]:
        """The table as a job file writes it (without the search's keys
        when the scheme is fixed)."""
        doc: dict[str, Any] = {"epsilon": self.epsilon, "delta": self.delta, "seed": self.seed}
        if self.generalization is None:
            doc.update({k: getattr(self, k) for k in SEARCH_KEYS})
        else:
            doc["generalization"] = dict(self.generalization)
        return doc


def _number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float)


def _whole(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int)


def validate(p: Privacy, name: Callable[[str], str] = str) -> None:
    """`p`'s values, checked before any data is read; an error names the
    key as `name` spells it (a job file's key, an option)."""
    problems = (
        ("epsilon", "a positive number", _number(p.epsilon) and 0 < p.epsilon < math.inf),
        ("delta", "a number in (0, 1)", _number(p.delta) and 0 < p.delta < 1),
        ("seed", "a whole number", p.seed is None or _whole(p.seed)),
        ("steps", "a whole number >= 0", _whole(p.steps) and p.steps >= 0),
        ("metric", f"one of {list(METRICS)}", p.metric in METRICS),
        ("search_share", "a number in (0, 1)", _number(p.search_share) and 0 < p.search_share < 1),
        ("final", f"one of {list(FINALS)}", p.final in FINALS),
    )
    for key, what, ok in problems:
        if not ok:
            raise ConfigError(f"{name(key)} must be {what}, got {getattr(p, key)!r}")
    g = p.generalization
    if g is not None and not (
        isinstance(g, Mapping)
        and all(isinstance(c, str) and _whole(v) and v >= 0 for c, v in g.items())
    ):
        raise ConfigError(
            f"{name('generalization')} is a level (a whole number >= 0) for each "
            "quasi-identifier it names"
        )


def privacy_from_doc(doc: dict[str, Any]) -> Privacy | None:
    """A job file's ``[privacy]`` table (None without one), with what does
    not go with it refused by name: a key of ``[model]`` other than the
    quasi-identifiers, a ``[search]`` or ``[columns]`` table."""
    if "privacy" not in doc:
        return None
    t = values.table(doc, "privacy", KEYS)
    for key in ("epsilon", "delta"):
        if key not in t:
            raise ConfigError(f"job file: [privacy] needs {key}")
    if "generalization" in t:
        fixed = sorted(set(SEARCH_KEYS) & set(t))
        if fixed:
            raise ConfigError(
                f"job file: [privacy] {fixed} set the search, and generalization fixes the "
                "scheme without one: give one or the other"
            )
    model = doc.get("model", {})
    extra = sorted(set(model) - {"quasi_identifiers"}) if isinstance(model, dict) else []
    if extra:
        raise ConfigError(
            f"job file: [model] {extra} do not go with [privacy]: k is derived from epsilon "
            "and delta, SafePub suppresses every class of fewer than k sampled records and "
            "takes no other criteria; [model] takes quasi_identifiers only"
        )
    if "search" in doc:
        raise ConfigError(
            "job file: [search] does not go with [privacy]: SafePub's search is set in "
            "[privacy] (steps, metric, search_share, final)"
        )
    if "columns" in doc:
        raise ConfigError(
            "job file: [columns] does not go with [privacy]: a differentially private "
            "release holds the quasi-identifiers only (every other column is left out)"
        )
    p = Privacy(**t)
    validate(p, lambda key: f"job file: [privacy] {key}")
    return p


def refuse_unused(
    k: int | None,
    max_suppression: int | float,
    criteria: list[dict[str, Any]],
    roles: Roles,
    levels: dict[str, int] | None,
    others: Mapping[str, Any],
) -> None:
    """What a job with ``privacy`` cannot take, refused before the table is
    read (`others`: the search's settings, given when not None)."""
    given = [
        name
        for name, used in (
            ("k (it is derived from epsilon and delta)", k is not None),
            ("max_suppression (SafePub suppresses the classes smaller than k)", max_suppression),
            ("criteria", criteria),
            (
                "roles of other columns (every column but the quasi-identifiers is left out)",
                roles.identifiers or roles.insensitive,
            ),
            ("recorded levels (a fixed scheme is privacy's generalization)", levels is not None),
            *((name, value is not None) for name, value in others.items()),
        )
        if used
    ]
    if given:
        raise ConfigError(f"a job with privacy takes no {', no '.join(given)}")


class JobLike(Protocol):
    """What a run reads of its `polars_anon.Job` (not imported here: the
    job imports this module)."""

    input: Path
    output: Path
    quasi_identifiers: list[str]
    k: int | None
    max_suppression: int | float
    criteria: list[dict[str, Any]]
    variant: str | None
    time_limit: float | None
    memory_budget: int
    separator: str
    encoding: str
    engine: str
    nulls: Nulls
    levels: dict[str, int] | None
    roles: Roles
    numeric: list[str] | None
    # each column's hierarchy: a file ("path") or a builder spec
    hierarchies: dict[str, dict[str, Any]]

    def resolve_hierarchies(self, data: pl.LazyFrame) -> dict[str, Hierarchy]: ...

    def to_dict(self, relative_to: Path | None = None) -> dict[str, Any]: ...


@dataclass
class DPRun:
    """What a SafePub job's run did: its `DPResult` (whose repr is the
    report), the rows written (the records released) and the resolved job
    file."""

    job: JobLike
    result: DPResult
    rows_released: int
    job_file: Path
    # the input's checksum, taken before the release was written
    input_sha256: str | None = None

    @property
    def searched(self) -> bool:
        """Whether the scheme was searched (not fixed by generalization)."""
        return self.result.walk is not None

    @property
    def levels(self) -> dict[str, int]:
        """The levels released (the result's)."""
        return self.result.levels

    def resolved_toml(self) -> str:
        """The resolved job file's text, as the run wrote it beside the output."""
        doc = self.job.to_dict(relative_to=self.job_file.parent)
        digest = self.input_sha256
        return resolved_toml(doc, self.job.input, self.job.output, self.result, digest)


def run(
    job: JobLike, privacy: Privacy, write_job: bool = True, input_sha256: str | None = None
) -> DPRun:
    """`job` run by SafePub as `privacy` says: what it cannot take refused
    first, the release written and proven, the resolved job beside it (with
    `input_sha256`, the input's checksum taken before, if given)."""
    budget = job.memory_budget if job.memory_budget != DEFAULT_MEMORY_BUDGET else None
    others = {"variant": job.variant, "time_limit": job.time_limit, "numeric": job.numeric}
    others["memory_budget"] = budget
    refuse_unused(job.k, job.max_suppression, job.criteria, job.roles, job.levels, others)
    validate(privacy)
    built = [c for c, h in job.hierarchies.items() if "path" not in h]
    if built and privacy.generalization is None:
        # a builder spec is built over the data's own values: its leaves
        # move with a record, and the search's scores with them
        raise ConfigError(
            f"[privacy]: the hierarchies of {built} are built from the data (builder specs), "
            "which makes SafePub's search depend on its values; build them into files over "
            "each column's whole domain (polars-anon hierarchy build on a table of the "
            "domain, with --out COLUMN.csv: the hierarchy's table, not its spec) and name "
            "the files, or fix the levels with [privacy] generalization"
        )
    fixed, qis = privacy.generalization, job.quasi_identifiers
    where = "job file: [privacy] generalization"
    refuse_levels_without_hierarchy(fixed, qis, job.hierarchies, where)
    numbers = numbers_of(job.quasi_identifiers, job.hierarchies)
    data = read_table(job.input, job.separator, job.encoding, job.engine, numbers)
    hs = job.resolve_hierarchies(data)
    result = release(data, job.quasi_identifiers, hs, privacy, job.output, job.separator, job.nulls)
    job_file = Path(str(job.output) + ".job.toml")
    run = DPRun(job, result, result.released, job_file, input_sha256)
    if write_job:
        write_text_whole(run.job_file, run.resolved_toml())
    return run


def release(
    data: Any,
    quasi_identifiers: list[str],
    hierarchies: dict[str, Hierarchy],
    privacy: Privacy,
    output: Path,
    separator: str,
    nulls: Nulls = "error",
) -> DPResult:
    """Release `data` as `privacy` says and write it to `output` (Parquet,
    Arrow IPC or CSV by its suffix; another suffix is refused), proven on
    the file written."""
    result = differential_privacy(
        data,
        quasi_identifiers,
        hierarchies,
        privacy.epsilon,
        privacy.delta,
        privacy.seed,
        steps=privacy.steps,
        metric=privacy.metric,
        search_share=privacy.search_share,
        generalization=privacy.generalization,
        final=privacy.final,
        nulls=nulls,
    )
    if result.prep.engine != "polars":
        # sampled and released where the table lives, and written there
        write_table(result.apply(), output, separator)
        return result
    fmt = output_format(output)
    if fmt == "parquet":
        result.sink_parquet(output)
    elif fmt == "ipc":
        result.sink_ipc(output)
    else:
        result.sink_csv(output, separator=separator)
    return result


def job_doc(doc: dict[str, Any], privacy: Privacy) -> None:
    """`Job.to_dict`'s document for a job with `privacy`: ``[model]`` with
    the quasi-identifiers only, ``[privacy]``, no ``[search]``."""
    doc["model"] = {"quasi_identifiers": doc["model"]["quasi_identifiers"]}
    doc.pop("search", None)
    doc.pop("columns", None)
    doc["privacy"] = privacy.to_doc()


def resolved_toml(
    doc: dict[str, Any], input: Path, output: Path, result: DPResult, digest: str | None = None
) -> str:
    """The resolved job of a SafePub run: the job (`doc`, as `Job.to_dict`
    writes it), the checksums of what it read (`digest`, the input's, when
    taken before the write) and wrote, and in ``[result]`` what the run
    found."""
    doc["input"]["sha256"] = digest or sha256(input)
    doc["output"]["sha256"] = sha256(output)
    doc["result"] = {
        "algorithm": ALGORITHM,
        "mode": result.mode,
        "k": result.k,
        "beta": result.beta,
        "epsilon_search": result.epsilon_search,
        "epsilon_anonymization": result.epsilon_anonymization,
        "levels": dict(result.levels),
        "rows_in": result.rows,
        "sampled": result.sampled,
        "suppressed": result.suppressed,
        "rows_released": result.released,
        "left_out": list(result.left_out),
        "library_version": __version__,
        "written": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    head = (
        f"# The resolved job of {output.name!r}, written by polars-anon {__version__}.\n"
        "# Run it again (polars-anon anonymize --config THIS_FILE [DATA --out FILE]) to\n"
        "# release another input by SafePub: with the same seed and input, the same\n"
        "# file; without a seed, a new release, which spends epsilon again. [result]\n"
        "# records what this run found; its levels are not applied.\n"
    )
    return head + dumps(doc)
