"""The library's ways out in the command line's words. An error of the Python
API names its parameters (``nulls='value'``, ``algorithm="mingen"``); on the
command line each is an option, and with ``--config`` a key of the job file.
Every error a command reports is read through `in_cli_words`."""

from __future__ import annotations

import re

_ALGORITHMS = re.compile(r"""algorithm=["'](\w+)["'](?: or ["'](\w+)["'])?""")

# (the API's words, the option's, the job file's)
_WORDS: list[tuple[re.Pattern[str], str, str]] = [
    # the core's message names the option already: "nulls='value' (--nulls value)"
    (
        re.compile(r"nulls ?= ?'value'(?: \(--nulls value\))?"),
        "--nulls value",
        'nulls = "value" under [input]',
    ),
    # ... and Mondrian, which takes no nulls='value', drops it but not that name
    (re.compile(r" \(--nulls value\) to keep null as a value of its own"), "", ""),
    # the command line and job files search the optimal walk by loss alone
    (re.compile(r"with metric='\w+', or "), "", ""),
    (re.compile(r"\(?coarsen=True\)?"), "[search] coarsen = true", "[search] coarsen = true"),
    (re.compile(r"pass splits= too"), "name [result] splits too", "name [result] splits too"),
    (re.compile(r"numeric names"), "--numeric names", "[search] numeric names"),
    (
        re.compile(r"max_suppression=0(?![\d.])"),
        "--max-suppression 0",
        "max_suppression = 0 under [model]",
    ),
    (re.compile(r"""engine=["'](\w+)["']"""), r"--engine \1", r'engine = "\1" under [input]'),
    (re.compile(r"mode='(\w+)'"), r"--mode \1", r'mode = "\1" under [search]'),
    (re.compile(r"out of numeric="), "out of --numeric", "out of numeric under [search]"),
    # a tab as the shell and TOML write it
    (
        re.compile(r"\bsep='\\t'"),
        r"--hierarchy-sep $'\\t'",
        r'separator = "\\t" (its hierarchy entry)',
    ),
    (
        re.compile(r"\bsep='(.)'"),
        r"--hierarchy-sep '\1'",
        r'separator = "\1" (its hierarchy entry)',
    ),
    (re.compile(r"\[privacy\] generalization"), "--generalization", "[privacy] generalization"),
    (re.compile(r"raise time_limit"), "raise --time-limit", "raise time_limit under [search]"),
    (
        re.compile(r"^time_limit must be (.*?)(?: or None)?(, got .*)$"),
        r"--time-limit must be \1\2",
        r"time_limit under [search] must be \1\2",
    ),
    (
        re.compile(r"^max_suppression as a fraction must be in \[0, 1\)"),
        "--max-suppression as a fraction must be in [0, 1) (a percentage below 100%)",
        "max_suppression under [model] as a fraction must be in [0, 1)",
    ),
    (
        re.compile(r"^max_suppression must be"),
        "--max-suppression must be",
        "max_suppression under [model] must be",
    ),
    (re.compile(r"^k must be"), "--k must be", "k under [model] must be"),
    (
        re.compile(r"raise memory_budget"),
        "raise --memory-budget",
        "raise memory_budget under [search]",
    ),
]


def in_cli_words(message: str, job: bool) -> str:
    """`message` with the API's parameters as the command line's options, or
    (`job`: the command runs a job file) as the job file's keys."""

    def algorithms(m: re.Match[str]) -> str:
        names = [n for n in m.groups() if n]
        if job:
            return "algorithm = " + " or ".join(f'"{n}"' for n in names) + " under [search]"
        return f"--algorithm {' or '.join(names)}"

    message = _ALGORITHMS.sub(algorithms, message)
    for pattern, option, key in _WORDS:
        message = pattern.sub(key if job else option, message)
    return message
