"""The subcommands: each reads its options, runs the library and prints
what it found."""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

from polars_anon import datasets, hierarchy
from polars_anon._core import AnonError, ConfigError, Hierarchy
from polars_anon.api.check import check
from polars_anon.api.risk import risk
from polars_anon.api.search import DEFAULT_MEMORY_BUDGET, aiming, search
from polars_anon.cli.criteria import criteria_given, criteria_of, sensitive_named
from polars_anon.cli.dp import privacy_of, refuse_roles
from polars_anon.cli.options import (
    given,
    noted,
    nulls_of,
    qis_of,
    sources,
    valued,
)
from polars_anon.cli.roles import identifiers_arg, roles_from
from polars_anon.jobs.criteria import criterion_spec
from polars_anon.jobs.csv_types import numbers_of
from polars_anon.jobs.dp import DPRun
from polars_anon.jobs.job import Job
from polars_anon.jobs.mondrian import MondrianRun
from polars_anon.jobs.resolved import JobRun
from polars_anon.jobs.sources import (
    CLI_HOW,
    distinct_values,
    folder_sources,
    refuse_levels_without_hierarchy,
    resolve_hierarchies,
)
from polars_anon.jobs.tables import (
    output_format,
    read_table,
    refuse_overwrite,
    same_file,
    write_table,
)
from polars_anon.release.write import SUFFIXES, write_text_whole
from polars_anon.reports.render import levels_text

ROLES_HINT = (
    "Declare them: --identifier COL (dropped), --identifier COL=pseudonym with "
    "--key-env NAME or --key-file PATH, --identifier COL=mask, or --insensitive COL; "
    "in a job file: its [columns] table"
)


def read_data(args: argparse.Namespace) -> tuple[Any, dict[str, Hierarchy], list[str]]:
    """DATA, its quasi-identifiers (but those whose hierarchy is a file or a
    spec that reads text) and sensitive attributes read as numbers where
    they are, every other column as its text (these `numbers`:
    `jobs.csv_types.numbers_of`); the hierarchies resolved over it; `numbers`."""
    given = sources(args)
    numbers = numbers_of(args.qi or [], given, sensitive=sensitive_named(args))
    data = read_table(args.data, args.sep, args.encoding, args.engine, numbers)
    resolved = resolve_hierarchies(given, data, nulls_of(args))
    # (after a column the data lacks is refused, with the names it has)
    unused_hierarchies(args)
    return data, resolved, numbers


def unused_hierarchies(args: argparse.Namespace) -> None:
    """Refuses --hierarchy for a column that is neither a quasi-identifier
    nor a criterion's sensitive attribute (t-closeness's hierarchical
    distance reads one): its hierarchy would go unused."""
    used = {*(args.qi or []), *sensitive_named(args)}
    for item in args.hierarchy:
        col = item.partition("=")[0]
        if args.qi and col not in used:
            raise ConfigError(
                f"--hierarchy {item!r}: {col!r} is neither a quasi-identifier (--qi) nor a "
                "criterion's sensitive attribute, so its hierarchy would go unused"
            )


def check_command(args: argparse.Namespace) -> int:
    roles = roles_from(args)
    data, hs, numbers = read_data(args)
    refuse_levels_without_hierarchy(args.levels, qis_of(args), hs, "--levels", CLI_HOW)
    report = check(
        data,
        qis_of(args),
        args.k,
        hs,
        args.levels,
        args.max_suppression,
        criteria_of(args, numbers),
        nulls=nulls_of(args),
        identifiers=identifiers_arg(roles),
        insensitive=roles.insensitive,
    )
    print(report)
    return 0 if report.k_anonymous else 1


def search_command(args: argparse.Namespace) -> int:
    roles = roles_from(args)
    data, hs, numbers = read_data(args)
    with aiming(args.preference):  # the search that answers it
        result = search(
            data,
            qis_of(args),
            hs,
            args.k,
            args.max_suppression,
            args.algorithm,
            args.variant,
            criteria=criteria_of(args, numbers),
            time_limit=args.time_limit,
            memory_budget=budget_of(args),
            progress=sys.stderr.isatty(),
            nulls=nulls_of(args),
            identifiers=identifiers_arg(roles),
            insensitive=roles.insensitive,
        )
    print(result)
    print(f"preferred ({args.preference}): {levels_text(result.best(args.preference))}")
    return 0


def risk_command(args: argparse.Namespace) -> int:
    data, hs, numbers = read_data(args)
    refuse_levels_without_hierarchy(args.levels, qis_of(args), hs, "--levels", CLI_HOW)
    print(
        risk(
            data,
            qis_of(args),
            hs,
            args.levels,
            population_of(args, numbers),
            args.threshold,
            # as pa.risk: nulls are values of a release read without hierarchies
            nulls=nulls_of(args) if args.nulls else None,
        )
    )
    return 0


# the options a job file sets, each with its key there: refused beside
# --config (but --sep and --encoding, which describe a new DATA's file)
BY_JOB = {
    "--k": "[model] k",
    "--max-suppression": "[model] max_suppression",
    "--qi": "[model] quasi_identifiers",
    "--hierarchies": "[hierarchies]",
    "--hierarchy": "[hierarchies]",
    "--hierarchy-sep": "[hierarchies.<column>] separator",
    "--engine": "[input] engine",
    "--sep": "[input] separator",
    "--encoding": "[input] encoding",
    "--algorithm": "[search] algorithm",
    "--variant": "[search] variant",
    "--time-limit": "[search] time_limit",
    "--memory-budget": "[search] memory_budget",
    "--preference": "[search] preference",
}


def refuse_set_by_job(args: argparse.Namespace) -> None:
    """The options given beside --config that its job file sets, refused by
    name (their defaults cannot tell them apart: `Given` notes them)."""
    flags = noted(args, *BY_JOB)
    flags += valued(args, "--qi", "--hierarchies", "--hierarchy", "--variant", "--time-limit")
    flags += valued(args, "--memory-budget")
    if args.data is not None:  # --sep and --encoding: DATA's
        flags = [f for f in flags if f not in ("--sep", "--encoding")]
    keys = [BY_JOB[f] for f in flags]
    criteria = criteria_given(args)
    flags += criteria
    keys += ["[model] criteria"] * len(criteria)
    if flags:
        verb = "is" if len(flags) == 1 else "are"
        raise ConfigError(
            f"{', '.join(flags)} {verb} set by the job file given with --config "
            f"({', '.join(dict.fromkeys(keys))}): edit the job file, or run without --config"
            + (
                "; with DATA, they describe its file"
                if {"--sep", "--encoding"} & set(flags)
                else ""
            )
        )


def anonymize_command(args: argparse.Namespace) -> int:
    roles = roles_from(args)
    # --epsilon: SafePub (None without it); what does not go with it refused
    privacy = privacy_of(args)
    if args.config is not None:
        refuse_set_by_job(args)
        job = Job.from_toml(args.config)
        if job.privacy is not None:
            refuse_roles(args)
        if args.data is not None and args.out is None:
            if not same_file(args.data, job.input, inside=False):
                raise ConfigError(
                    f"give --out for the new release: the job's output {str(job.output)!r} "
                    f"holds the release of {str(job.input)!r}"
                )
        if args.out is not None:
            job.output = args.out
        if args.data is not None:
            job.input = args.data
            new_read = noted(args, "--sep", "--encoding")
            # the job's separator and encoding also read its population
            # tables and write a CSV output: DATA's alone cannot change them
            tables = [c["type"] for c in job.criteria if isinstance(c.get("population"), str)]
            if new_read and (tables or job.output.suffix.lower() == ".csv"):
                what = f"population tables {tables}" if tables else "CSV output"
                raise ConfigError(
                    f"{', '.join(new_read)} beside --config would also change how the job's "
                    f"{what} are read or written: convert DATA to the job's separator "
                    f"{job.separator!r} and encoding {job.encoding!r} instead"
                )
            job.separator = args.sep if "--sep" in given(args) else job.separator
            job.encoding = args.encoding if "--encoding" in given(args) else job.encoding
        refuse_overwrite({"the release": job.output}, {"the job file": args.config})
        # the options' roles added to the job's (an identifier made insensitive refused)
        job.roles = job.roles.merged(roles)
        if args.numeric is not None:
            job.numeric = args.numeric
        if args.mode is not None:
            job.mode = args.mode
        if args.nulls is not None:
            job.nulls = nulls_of(args)
    else:
        if args.data is None:
            raise ConfigError("give the table to anonymize, or a job file with --config")
        if args.out is None:
            raise ConfigError(f"name the release's file with --out ({', '.join(SUFFIXES)})")
        job = Job(
            input=args.data,
            quasi_identifiers=qis_of(args),
            k=None if privacy else args.k,
            output=args.out,
            hierarchies=sources(args),
            max_suppression=args.max_suppression,
            criteria=[criterion_spec(c) for c in criteria_of(args)],
            algorithm=args.algorithm,
            variant=args.variant,
            preference=args.preference,
            time_limit=args.time_limit,
            memory_budget=budget_of(args),
            separator=args.sep,
            encoding=args.encoding,
            engine=args.engine,
            roles=roles,
            numeric=args.numeric,
            mode=args.mode or "strict",
            privacy=privacy,
            nulls=nulls_of(args),
        )
        if privacy is not None:
            fixed = privacy.generalization
            qis = job.quasi_identifiers
            refuse_levels_without_hierarchy(fixed, qis, job.hierarchies, "--levels", CLI_HOW)
    if job.algorithm != "mondrian" and (job.numeric is not None or args.mode is not None):
        flag = "--numeric" if job.numeric is not None else "--mode"
        raise ConfigError(f"{flag} is for --algorithm mondrian only")
    if job.algorithm == "mondrian" and args.memory_budget is not None:
        raise ConfigError("--memory-budget is for the searches: --algorithm mondrian takes none")
    t0 = time.perf_counter()
    try:
        run = job.run(progress=sys.stderr.isatty())
    except ConfigError as e:
        # the undeclared-column refusal names the API's ways out; add ours
        if "have no role" not in str(e):
            raise
        # the API's ways out (identifiers=..., pa.Mask) are Python's: ours instead
        raise ConfigError(f"{str(e).split('. Declare them:')[0]}. {ROLES_HINT}") from None
    took = time.perf_counter() - t0
    rows: int | None
    if isinstance(run, DPRun):
        # the report says how many records were sampled and suppressed
        print(run.result)
        rows = None
    elif isinstance(run, MondrianRun):
        how = "partitioned" if run.searched else "by the splits recorded in the job file"
        print(f"Mondrian ({how}, re-checked):")
        print(run.result)
        rows = run.result.prep.rows
    else:
        how = "searched" if run.searched else "recorded in the job file, re-checked"
        print(f"levels ({how}): {levels_text(run.levels)}")
        if run.ran:  # what auto ran, and why
            print(f"search ({job.preference}): {run.ran}")
        print(run.report)
        rows = run.report.rows
    of = "" if rows is None else f" of {rows:,}"
    print(f"wrote {run.rows_released:,}{of} rows to {job.output} in {took:.2f} s")
    if isinstance(run, MondrianRun) and run.splits_written is not None:
        print(f"wrote the partition's splits to {run.splits_written}")
    print(f"wrote the resolved job to {run.job_file}")
    return 0


def build_command(args: argparse.Namespace) -> int:
    if args.out.suffix.lower() not in (".csv", ".json"):
        raise ConfigError(
            f"--out {str(args.out)!r}: write the hierarchy as a .csv file (ARX's layout) "
            "or its spec as a .json file"
        )
    refuse_overwrite({"the hierarchy": args.out}, {"the data": args.data})
    # the column as its text: a hierarchy file's leaves are the text a job
    # reads a quasi-identifier of a hierarchy file as (`jobs.csv_types`),
    # and the builders read numbers from text (1.50 stays a leaf 1.50)
    data = read_table(args.data, args.sep, args.encoding, args.engine, numbers=())
    values = distinct_values(data, args.column, nulls=nulls_of(args))
    if values.null_count():
        # (the values are distinct: the column's nulls are one of them)
        raise ConfigError(
            f"column '{args.column}' holds nulls; a hierarchy is built over values: drop or "
            "fill them first, or pass --nulls value here and to the search (it places them)"
        )
    fields = dataclasses.fields(hierarchy.BUILDERS[args.kind])  # type: ignore[arg-type]
    spec = hierarchy.from_dict(
        {"builder": args.kind, **{f.name: getattr(args, f.name) for f in fields}}
    )
    h = spec.build(values)
    out: Path = args.out
    if out.suffix.lower() == ".json":
        out.write_text(spec.to_json() + "\n")
        print(f"wrote the {args.kind} spec of '{args.column}' to {out} (height {h.height})")
    else:
        out.write_text(h.to_csv(args.hierarchy_sep))
        print(
            f"wrote the {args.kind} hierarchy of '{args.column}' ({len(h.leaves)} values, "
            f"height {h.height}) to {out}"
        )
    return 0


def adult_command(args: argparse.Namespace) -> int:
    lf, hs = datasets.adult()
    qis = list(datasets.ADULT_QUASI_IDENTIFIERS)
    output_format(args.out)  # a suffix that names no format, refused first
    t0 = time.perf_counter()
    with aiming(args.preference):
        result = search(lf, qis, hs, args.k, args.max_suppression, progress=sys.stderr.isatty())
    levels = result.best(args.preference)
    release = result.apply(levels=levels).collect()
    write_table(release, args.out, ";")
    again = check(release, qis, args.k)
    if not again.k_anonymous:
        raise AnonError(f"the release is not {args.k}-anonymous on re-check; nothing to trust")
    report = check(lf, qis, args.k, hs, levels, args.max_suppression)
    # the resolved job beside the release, as anonymize writes it: the
    # bundled table and hierarchies, and the levels found
    folder = datasets.data_dir() / "adult"
    job = Job(
        input=folder / "adult.csv",
        quasi_identifiers=qis,
        k=args.k,
        output=args.out,
        hierarchies=folder_sources(folder / "hierarchies", columns=qis),
        max_suppression=args.max_suppression,
        # the search asked for (auto), which gives these levels again
        algorithm="auto",
        preference=args.preference,
        separator=";",
    )
    ran = result.algorithm + (f" ({result.variant})" if result.variant else "")
    job_file = Path(f"{args.out}.job.toml")
    run = JobRun(job, levels, True, report, release.height, job_file, ran=ran)
    write_text_whole(run.job_file, run.resolved_toml())
    print(result)
    print(f"chosen ({args.preference}): {levels_text(levels)}")
    print(report)
    print(
        f"wrote {release.height:,} of {report.rows:,} rows to {args.out} "
        f"in {time.perf_counter() - t0:.2f} s"
    )
    print(f"wrote the resolved job to {run.job_file}")
    return 0


def budget_of(args: argparse.Namespace) -> int:
    """--memory-budget, or the library's default."""
    given: int | None = args.memory_budget
    return DEFAULT_MEMORY_BUDGET if given is None else given


def population_of(args: argparse.Namespace, numbers: list[str]) -> int | Any | None:
    """--population: a number of records, or a file of the population's
    records, read as DATA is (its `numbers` as numbers, its other columns
    as text)."""
    given: str | None = args.population
    if given is None:
        return None
    if given.strip().replace("_", "").isdigit():
        return int(given.replace("_", ""))
    path = Path(given)
    if not path.is_file():
        raise ConfigError(
            f"--population {given!r} is neither a number of records nor a file of the "
            "population's records"
        )
    return read_table(path, args.sep, args.encoding, numbers=numbers)
