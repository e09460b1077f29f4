"""Differential privacy on the command line: ``anonymize --epsilon E --delta
D`` releases the table (epsilon, delta)-differentially private by SafePub
(`polars_anon.differential_privacy`) instead of k-anonymous, as a job with a
``[privacy]`` table (`polars_anon.jobs.dp`) does.

k is derived from epsilon and delta, and the release holds the
quasi-identifiers only, so the options that set k, suppression, criteria,
the other columns' roles or another algorithm's search are refused with
--epsilon, by name; SafePub's own options are refused without it."""

from __future__ import annotations

import argparse

from polars_anon._core import ConfigError
from polars_anon.api.dp import SEARCH_SHARE, STEPS
from polars_anon.cli.criteria import criteria_given
from polars_anon.cli.options import Given, levels_arg, noted, valued
from polars_anon.dp.scores import METRICS
from polars_anon.dp.search import FINALS
from polars_anon.jobs.dp import Privacy, validate

# each key of `Privacy` as an option
FLAGS = {
    "epsilon": "--epsilon",
    "delta": "--delta",
    "seed": "--seed",
    "steps": "--steps",
    "metric": "--dp-metric",
    "search_share": "--search-share",
    "final": "--final",
    "generalization": "--levels",
}
SEARCH_FLAGS = ("--steps", "--dp-metric", "--search-share", "--final")
ROLE_FLAGS = ("--identifier", "--insensitive", "--key-env", "--key-file")
LEFT_OUT = "the release holds the quasi-identifiers only (every other column is left out)"


def dp_options(p: argparse.ArgumentParser) -> None:
    """SafePub's options (`anonymize`)."""
    g = p.add_argument_group(
        "differential privacy",
        "--epsilon E --delta D: release the table (epsilon, delta)-differentially private by "
        "SafePub instead of k-anonymous: each record sampled with probability beta, the "
        "quasi-identifiers generalized by a scheme the exponential mechanism chooses (or "
        "--levels), every class of fewer than k sampled records suppressed; k and beta are "
        "derived from epsilon and delta. The release holds the quasi-identifiers only. Not "
        "with --k, --max-suppression, the criteria, the roles' options or --algorithm.",
    )
    g.add_argument(
        "--epsilon",
        type=float,
        default=None,
        metavar="E",
        help="the privacy budget; with it the run is SafePub's",
    )
    g.add_argument(
        "--delta",
        type=float,
        default=None,
        action=Given,
        metavar="D",
        help="the probability the guarantee may fail, in (0, 1) (1e-5, say)",
    )
    g.add_argument(
        "--seed",
        type=int,
        default=None,
        action=Given,
        metavar="N",
        help="the randomness derived from N: the same seed and input give the same file "
        "(for tests and examples: a release whose seed could be known is not private; "
        "default: drawn from the operating system)",
    )
    g.add_argument("--steps", type=int, default=STEPS, action=Given, help="the search's steps")
    g.add_argument(
        "--dp-metric",
        choices=METRICS,
        default="loss",
        action=Given,
        help="the score the search chooses its steps by",
    )
    g.add_argument(
        "--search-share",
        type=float,
        default=SEARCH_SHARE,
        action=Given,
        metavar="F",
        help="the share of epsilon the search spends; the rest is the anonymization's",
    )
    g.add_argument(
        "--final",
        choices=FINALS,
        default="best",
        action=Given,
        help="how the answer is taken from the nodes the search chose (best: SafePub's and "
        "ARX's; mechanism: accounted for in full)",
    )
    g.add_argument(
        "--levels",
        "--generalization",
        dest="generalization",
        type=levels_arg,
        default=None,
        action=Given,
        metavar="COL=LEVEL,...",
        help="a scheme fixed without looking at the data (age=2,sex=1; unnamed columns stay "
        "at 0): no search, all of epsilon to the anonymization",
    )


def privacy_of(args: argparse.Namespace) -> Privacy | None:
    """The differential privacy the options ask for (None without
    --epsilon), with the options that do not go with it refused by name."""
    ours = noted(args, *FLAGS.values())
    if args.epsilon is None:
        if ours:
            verb = "is" if len(ours) == 1 else "are"
            raise ConfigError(f"{', '.join(ours)} {verb} for --epsilon (differential privacy) only")
        return None
    if args.config is not None:
        raise ConfigError(
            "--epsilon does not go with --config: a job file sets differential privacy in its "
            "[privacy] table"
        )
    criteria = criteria_given(args)
    search = noted(args, "--algorithm", "--preference")
    for flags, why in (
        (noted(args, "--k"), "k is derived from --epsilon and --delta"),
        (
            noted(args, "--max-suppression"),
            "SafePub suppresses every class of fewer than k sampled records",
        ),
        (criteria, "differential privacy takes no other criteria"),
        (valued(args, *ROLE_FLAGS), LEFT_OUT),
        (
            search + valued(args, "--variant", "--time-limit", "--numeric"),
            "SafePub's search is set by " + ", ".join(SEARCH_FLAGS),
        ),
    ):
        if flags:
            verb = "does" if len(flags) == 1 else "do"
            raise ConfigError(f"{', '.join(flags)} {verb} not go with --epsilon: {why}")
    fixed = noted(args, *SEARCH_FLAGS) if "--levels" in ours else []
    if fixed:
        verb = "sets" if len(fixed) == 1 else "set"
        raise ConfigError(
            f"{', '.join(fixed)} {verb} the search, and --levels fixes the scheme without one: "
            "give one or the other"
        )
    if args.delta is None:
        raise ConfigError("--epsilon needs --delta (1e-5, say): k and beta come from both")
    p = Privacy(
        epsilon=args.epsilon,
        delta=args.delta,
        seed=args.seed,
        steps=args.steps,
        metric=args.dp_metric,
        search_share=args.search_share,
        final=args.final,
        generalization=args.generalization,
    )
    validate(p, FLAGS.__getitem__)
    return p


def refuse_roles(args: argparse.Namespace) -> None:
    """The roles' options, refused with a job file that has ``[privacy]``."""
    roles = valued(args, *ROLE_FLAGS)
    if roles:
        verb = "does" if len(roles) == 1 else "do"
        raise ConfigError(f"{', '.join(roles)} {verb} not go with a job's [privacy]: {LEFT_OUT}")
