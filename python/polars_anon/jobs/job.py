"""Job files: one TOML file says how a release is made (its input, the quasi-identifiers and
their hierarchies or builder specs, the model, the search and the output), and every run
writes the resolved job beside its output: the chosen levels, the library's version and the
checksums of what it read and wrote. Running that file again on another input applies the
same levels, re-checked on the new data, instead of searching.

::

    [input]
    path = "patients.csv"          # relative to the job file
    separator = ","
    encoding = "utf8"

    [model]
    quasi_identifiers = ["age", "zip"]
    k = 5
    max_suppression = "1%"         # a count (300), a fraction (0.01) or a percentage
    criteria = [{ type = "distinct_l", l = 2, attribute = "diagnosis" }]

    [hierarchies.age]
    builder = "interval"
    widths = [5, 10, 20]

    [hierarchies.zip]
    path = "hierarchies/zip.csv"

    [columns]                      # the other columns' roles
    insensitive = ["notes"]        # released unchanged, as declared

    [columns.identifiers]          # what each becomes
    ssn = "drop"
    name = { key_env = "PA_KEY", length = 32 }   # keyed pseudonyms: the key's place
    phone = { mask = { keep_last = 4 } }
    patient = { table = "pseudonyms/patient.parquet" }

    [search]
    algorithm = "incognito"
    preference = "min_loss"

    [output]
    path = "release.parquet"

With ``[search] algorithm = "mondrian"`` (and optionally ``numeric``, the quasi-identifiers
split as numbers, and ``mode``) the job partitions the table by Mondrian
(`polars_anon.mondrian`) instead of searching. Its resolved job records the partition's
splits in a Parquet file beside it (``[result] splits``, with its checksum): a run of it
routes its input's records down those splits, re-checked (``[search] coarsen = true``:
undoing those its input cannot hold; see `jobs.mondrian`).

With a ``[privacy]`` table (epsilon and delta instead of k) the job releases the table
(epsilon, delta)-differentially private by SafePub (`jobs.dp`).

A column with no role is released as it is, unless it would identify records on its own:
then the run is refused, naming it. A key is never written in a job file (its entry says
where the key is kept: key_env or key_file), and a job holding a key given in code cannot be
saved. The resolved job records the roles and, in ``[result.columns]``, what became of every
column (``column = "role: released_as"``).

The job's parts: `tables` (reading and writing), `sources` (hierarchies), `criteria` (the
models), `columns` (the roles), `toml` (the file), `mondrian` and `dp` (the other
algorithms).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from polars_anon._core import ConfigError, Hierarchy
from polars_anon.api.check import check_prepared
from polars_anon.api.mu_argus import mu_argus_prepared
from polars_anon.api.search import DEFAULT_MEMORY_BUDGET, floors_for, searched
from polars_anon.criteria.base import sensitive_of
from polars_anon.hierarchy import from_dict
from polars_anon.inputs.nulls import Nulls, nulls_arg
from polars_anon.inputs.params import names, path_param, suppression
from polars_anon.jobs import dp, mondrian, values
from polars_anon.jobs.columns import roles_from_doc, roles_to_doc
from polars_anon.jobs.criteria import criterion, criterion_spec
from polars_anon.jobs.csv_types import numbers_of, sensitive_of_specs
from polars_anon.jobs.mondrian import MondrianRun
from polars_anon.jobs.resolved import JobRun
from polars_anon.jobs.sources import refuse_levels_without_hierarchy, resolve_hierarchies
from polars_anon.jobs.tables import (
    before_work,
    input_changed,
    output_format,
    read_table,
    sha256,
    write_table,
)
from polars_anon.jobs.toml import read
from polars_anon.prepare.f0 import prepare
from polars_anon.release.build import guarded
from polars_anon.release.engine_write import WRITES, OnEngine
from polars_anon.release.guard import Guarded
from polars_anon.release.write import interrupt_after, target, write_text_whole
from polars_anon.reports.render import plural
from polars_anon.results.best import CRITERIA
from polars_anon.results.search import SearchResult
from polars_anon.roles.spec import Roles

# a job file's tables
TABLES = ("input", "model", "hierarchies", "columns", "search", "privacy", "output", "result")


@dataclass
class Job:
    """A release's recipe (see the module doc for the file)."""

    input: Path
    quasi_identifiers: list[str]
    # None with privacy (k is derived from epsilon and delta)
    k: int | None
    output: Path
    hierarchies: dict[str, dict[str, Any]] = field(default_factory=dict)
    max_suppression: int | float = 0
    criteria: list[dict[str, Any]] = field(default_factory=list)
    algorithm: str = "auto"
    variant: str | None = None
    preference: str = "min_loss"
    time_limit: float | None = None
    # bytes the search may hold
    memory_budget: int = DEFAULT_MEMORY_BUDGET
    separator: str = ","
    encoding: str = "utf8"
    # where the table is read, grouped and released: polars, duckdb or spark
    engine: str = "polars"
    # nulls in the quasi-identifiers: "error" or "value" (see `search`)
    nulls: Nulls = "error"
    # from a previous run: apply these levels (re-checked) instead of searching,
    # and the preference they were chosen by ([result] preference)
    levels: dict[str, int] | None = None
    chosen_by: str | None = None
    # the roles of the columns that are neither quasi-identifiers nor sensitive
    roles: Roles = field(default_factory=Roles)
    # algorithm="mondrian": how it partitions, and the quasi-identifiers split
    # as numbers (None: every integer, float, date or datetime one)
    mode: str = "strict"
    numeric: list[str] | None = None
    # from a previous Mondrian run: its splits (Parquet) and their checksum;
    # coarsen: undo those whose parts the input cannot hold
    splits: Path | None = None
    splits_sha256: str | None = None
    coarsen: bool = False
    # (epsilon, delta)-differential privacy by SafePub instead of k (`jobs.dp`)
    privacy: dp.Privacy | None = None
    # a resolved job's record of its input ([input] path and sha256): a run
    # over that file, changed since, says so (`jobs.tables.input_changed`)
    recorded_input: tuple[Path, str] | None = None

    @classmethod
    def from_toml(cls, path: str | Path) -> Job:
        """The job in a TOML file; its relative paths are relative to the file."""
        path = Path(path_param("path", path))
        return cls.from_dict(read(path), path.parent)

    @classmethod
    def from_dict(cls, doc: dict[str, Any], base: Path = Path()) -> Job:
        """The job a parsed job file ``doc`` describes, its paths relative to ``base``."""
        known = set(TABLES)
        unknown = sorted(set(doc) - known)
        if unknown:
            raise ConfigError(
                f"job file: unknown {plural('table', unknown)} {unknown}; expected {sorted(known)}"
            )

        def table(name: str) -> dict[str, Any]:
            return values.table(doc, name)

        def need(t: dict[str, Any], name: str, key: str) -> Any:
            if key not in t:
                raise ConfigError(f"job file: [{name}] needs {key}")
            return t[key]

        inp, model, search, out = table("input"), table("model"), table("search"), table("output")
        hierarchies = values.hierarchies(table("hierarchies"), base)
        result = table("result")
        preference = search.get("preference", "min_loss")
        if preference not in CRITERIA:
            raise ConfigError(
                f"job file: unknown preference {preference!r}; expected one of {CRITERIA}"
            )
        mondrian.refuse_keys(search)
        privacy = dp.privacy_from_doc(doc)
        input = values.path("[input] path", need(inp, "input", "path"), base)
        digest = values.text("[input] sha256", inp["sha256"]) if "sha256" in inp else None
        return cls(
            input=input,
            recorded_input=(input, digest) if digest is not None else None,
            separator=values.separator("[input] separator", inp.get("separator", ",")),
            encoding=inp.get("encoding", "utf8"),
            engine=inp.get("engine", "polars"),
            nulls=nulls_arg(inp.get("nulls", "error"), "job file: [input] nulls"),
            quasi_identifiers=names(
                "job file: [model] quasi_identifiers",
                values.column_list(
                    "[model] quasi_identifiers", need(model, "model", "quasi_identifiers")
                ),
            ),
            k=None if privacy else need(model, "model", "k"),
            max_suppression=suppression(model.get("max_suppression", 0)),
            criteria=values.criteria("[model] criteria", model.get("criteria", []), base),
            hierarchies=hierarchies,
            algorithm=values.algorithm(search.get("algorithm", "auto")),
            variant=search.get("variant"),
            preference=preference,
            time_limit=search.get("time_limit"),
            memory_budget=values.budget(search),
            mode=search.get("mode", "strict"),
            numeric=(
                values.column_list("[search] numeric", search["numeric"])
                if "numeric" in search
                else None
            ),
            coarsen=values.flag("[search] coarsen", search.get("coarsen", False)),
            output=values.path("[output] path", need(out, "output", "path"), base),
            levels=(
                values.levels("[result] levels", result["levels"])
                if "levels" in result and not privacy
                else None
            ),
            chosen_by=result.get("preference") if "levels" in result else None,
            roles=roles_from_doc(table("columns"), base),
            privacy=privacy,
            **mondrian.recorded(result, search, base),
        )

    def resolve_hierarchies(self, data: pl.LazyFrame) -> dict[str, Hierarchy]:
        """Each hierarchy read from its file or built from the data's column."""
        return resolve_hierarchies(self.hierarchies, data, self.nulls)

    def run(
        self, write_job: bool = True, progress: bool = False
    ) -> JobRun | MondrianRun | dp.DPRun:
        """Read, search (or apply the recorded levels), write the release and
        the resolved job beside it (``<output>.job.toml``). The table is
        prepared once: the search, the release and its report read it. With
        algorithm="mondrian": partitioned, a `MondrianRun`; with privacy:
        released by SafePub, a `DPRun`."""
        if write_job:
            # a key given in code cannot be saved: refused before any work
            roles_to_doc(self.roles, str)
        # the output's format, nothing read written over; the input's checksum
        digest = before_work(self, write_job)
        input_changed(self.input, self.recorded_input, digest)
        if self.privacy is not None:
            return dp.run(self, self.privacy, write_job, digest)
        k = self.k
        if k is None:
            raise ConfigError("the job needs k (or privacy, for differential privacy)")
        if self.algorithm == mondrian.ALGORITHM:
            return self._mondrian(k, write_job, digest)
        if self.levels is not None and self.chosen_by not in (None, self.preference):
            raise ConfigError(
                f"job file: [search] preference is {self.preference!r}, but the levels of "
                f"[result] were chosen by {self.chosen_by!r}: remove the [result] table to "
                "search again, or set the preference back"
            )
        qis = self.quasi_identifiers
        numbers = self._numbers()
        data = read_table(self.input, self.separator, self.encoding, self.engine, numbers)
        hs = self.resolve_hierarchies(data)
        criteria = [criterion(c, self.separator, self.encoding, numbers) for c in self.criteria]
        searching = self.levels is None
        if not searching:
            if unknown := sorted(set(self.levels or {}) - set(qis)):
                raise ConfigError(
                    "job file: [result] levels name unknown "
                    f"{plural('quasi-identifier', unknown)} {unknown}"
                )
            where = "job file: [result] levels"
            refuse_levels_without_hierarchy(self.levels, qis, self.hierarchies, where)
        # as a search and a release group it (the levels applied: as a complete search)
        algorithm = self.algorithm if searching else "incognito"
        floors = floors_for(algorithm, criteria, "loss", k, self.max_suppression, self.preference)
        if searching and self.algorithm == "mu_argus" and (self.variant is not None or criteria):
            raise ConfigError("algorithm='mu_argus' takes no variant and no criteria")
        prep = prepare(data, qis, hs, sensitive_of(criteria), self.nulls, floors_for=floors)
        if searching:
            result: SearchResult
            if self.algorithm == "mu_argus":
                result = mu_argus_prepared(prep, k, self.max_suppression)
            else:
                result = searched(
                    prep,
                    k,
                    self.max_suppression,
                    self.algorithm,
                    self.variant,
                    criteria=criteria,
                    time_limit=self.time_limit,
                    progress=progress,
                    memory_budget=self.memory_budget,
                    aim=self.preference,
                )
            levels = result.best(self.preference)
            ran = result.algorithm + (f" ({result.variant})" if result.variant else "")
            ran += f"; stopped ({result.stopped}): the best found" if result.stopped else ""
        else:
            levels, ran = dict(self.levels or {}), None
        lv = prep.levels(levels)
        release = guarded(prep, lv, k, self.max_suppression, criteria, self.roles)
        report = check_prepared(prep, k, levels, self.max_suppression, criteria, self.roles)
        target(self.output)
        fmt = output_format(self.output, self.engine)
        with interrupt_after():  # Ctrl-C: the release and its job file, or neither
            if isinstance(release, OnEngine) and release.engine not in WRITES:  # Spark's parts
                written = write_table(release.released, self.output, self.separator)
            else:  # Polars, DuckDB: proven on the file written
                release.write(self.output, fmt, self.separator)
                written = report.rows - report.suppressed
            # what became of each column: as the release did it, else the report
            columns = release.columns if isinstance(release, Guarded) else None
            job_file = Path(str(self.output) + ".job.toml")
            run = JobRun(self, levels, searching, report, written, job_file, columns, digest, ran)
            if write_job:
                write_text_whole(run.job_file, run.resolved_toml())
        return run

    def _numbers(self) -> list[str]:
        sens = sensitive_of_specs(self.criteria)
        return numbers_of(self.quasi_identifiers, self.hierarchies, self.numeric, sens)

    def _mondrian(self, k: int, write_job: bool, digest: str | None) -> MondrianRun:
        """The job run by Mondrian (`jobs.mondrian`)."""
        args = (self.max_suppression, self.variant, self.time_limit, self.levels)
        mondrian.refuse_unused(self.engine, *args, self.nulls, self.memory_budget)
        splits = mondrian.read_splits(self.splits, self.splits_sha256)
        data = read_table(self.input, self.separator, self.encoding, self.engine, self._numbers())
        result, release = mondrian.release(
            data,
            self.quasi_identifiers,
            k,
            self.resolve_hierarchies(data),
            [criterion(c) for c in self.criteria],
            self.mode,
            self.numeric,
            self.roles,
            self.output,
            self.separator,
            splits,
            self.coarsen,
        )
        job_file = Path(str(self.output) + ".job.toml")
        run = MondrianRun(self, result, result.prep.rows, job_file, release.columns, splits is None)
        run.input_sha256 = digest
        if write_job:
            run.write()
        return run

    def to_dict(self, relative_to: Path | None = None) -> dict[str, Any]:
        """The job file's tables, its paths relative to ``relative_to``, with checksums."""

        def rel(p: Path | str) -> str:
            p = Path(p).resolve()
            if relative_to is not None:
                try:
                    return str(p.relative_to(relative_to.resolve()))
                except ValueError:
                    pass
            return str(p)

        hierarchies = {}
        for col, h in self.hierarchies.items():
            if "path" in h:
                h = {**h, "sha256": sha256(Path(h["path"])), "path": rel(h["path"])}
            else:
                # every parameter, defaults included: the spec as it was applied
                h = from_dict(h).to_dict()
            hierarchies[col] = h
        search: dict[str, Any] = {"algorithm": self.algorithm, "preference": self.preference}
        if self.variant is not None:
            search["variant"] = self.variant
        if self.time_limit is not None:
            search["time_limit"] = self.time_limit
        search["memory_budget"] = self.memory_budget
        if self.algorithm == mondrian.ALGORITHM:
            search = {"algorithm": self.algorithm, "mode": self.mode}
            if self.numeric is not None:
                search["numeric"] = list(self.numeric)
            if self.coarsen:
                search["coarsen"] = True
        model: dict[str, Any] = {
            "quasi_identifiers": list(self.quasi_identifiers),
            "k": self.k,
            "max_suppression": self.max_suppression,
        }
        if self.criteria:
            model["criteria"] = [criterion_spec(criterion(c), rel) for c in self.criteria]
        doc: dict[str, Any] = {
            "input": {
                "path": rel(self.input),
                "separator": self.separator,
                "encoding": self.encoding,
                "engine": self.engine,
                "nulls": self.nulls,
            },
            "model": model,
            "hierarchies": hierarchies,
            "search": search,
            "output": {"path": rel(self.output)},
        }
        columns = roles_to_doc(self.roles, rel)
        if columns:
            doc["columns"] = columns
        if self.privacy is not None:
            dp.job_doc(doc, self.privacy)
        return doc
