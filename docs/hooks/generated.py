"""An mkdocs hook: the pages' parts that the package itself knows, rendered
at build time so that they are never stale.

- ``<!-- cli-help -->`` (in ``reference/cli.md``): the help of ``polars-anon``
  and of every subcommand, as ``polars-anon ... --help`` prints it (at a width
  of 88 columns), one section each.
- ``<!-- criteria-table -->`` (in ``guide/privacy-models.md``): each privacy
  model with whether it is monotone under generalization and with
  suppression, as the classes say, and so which searches take it.
- ``<!-- reference-index -->`` (in ``reference/index.md``): every entry of
  the reference's pages (their ``::: polars_anon.<name>`` lines), by page.

Before the build, ``docs/check_reference.py``'s check: a public name without
a reference entry or a docstring fails it.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

WIDTH = "88"

# (model, a constructor call): evaluated with `pa`, a `population` table,
# `categories` and a hierarchy `h` of the sensitive attribute
MODELS = [
    ("p-sensitive k-anonymity", 'pa.PSensitive(2, "disease")'),
    ("p+-sensitive k-anonymity", 'pa.PPlusSensitive(2, "disease", categories)'),
    ("(p, alpha)-sensitive k-anonymity", 'pa.PAlphaSensitive(2, 0.5, "disease", categories)'),
    ("distinct l-diversity", 'pa.DistinctLDiversity(2, "disease")'),
    ("entropy l-diversity", 'pa.EntropyLDiversity(2, "disease")'),
    ("recursive (c, l)-diversity", 'pa.RecursiveCLDiversity(3, 2, "disease")'),
    ("t-closeness", 'pa.TCloseness(0.2, "disease")'),
    ("t-closeness, ordered", 'pa.TCloseness(0.2, "salary", "ordered")'),
    ("t-closeness, hierarchical", 'pa.TCloseness(0.2, "disease", "hierarchical", h)'),
    ("beta-likeness", 'pa.BetaLikeness(1.0, "disease")'),
    ("enhanced beta-likeness", 'pa.BetaLikeness(1.0, "disease", enhanced=True)'),
    ("delta-disclosure privacy", 'pa.DeltaDisclosure(1.0, "disease")'),
    ("average re-identification risk", "pa.AverageRisk(0.05)"),
    ("sample uniqueness", "pa.SampleUniqueness(0.01)"),
    ("population uniqueness, Zayatz", 'pa.PopulationUniqueness(0.01, 300_000, "zayatz")'),
    (
        "population uniqueness, Dankar, Pitman or SNB",
        'pa.PopulationUniqueness(0.01, 300_000, "dankar")',
    ),
    ("k-map, estimated", "pa.KMap(5, population=300_000)"),
    ("k-map against a population table", "pa.KMap(5, population=population)"),
    ("delta-presence", "pa.DPresence(0.0, 0.5, population=population)"),
]


def criteria_table() -> str:
    """The models, their monotonicity and the searches that take them, as a
    Markdown table."""
    import polars as pl

    import polars_anon as pa

    scope = {
        "pa": pa,
        "population": pl.DataFrame({"age": ["30"]}),
        "categories": [["HIV", "Cancer"], ["Flu"]],
        "h": pa.Hierarchy.from_rows([["HIV", "*"], ["Flu", "*"]]),
    }
    rows = [
        "| model | `criteria=` | monotone | with suppression | `algorithm=` that take it |",
        "|---|---|---|---|---|",
    ]
    for name, code in MODELS:
        model = eval(code, scope)
        if model.monotone_with_suppression:
            searches = "every search"
        elif model.monotone:
            searches = 'every search without suppression; with it `"mingen"` and `"datafly"`'
        else:
            searches = '`"mingen"` and `"datafly"` only'
        yes = {True: "yes", False: "no"}
        rows.append(
            f"| {name} | `{code}` | {yes[model.monotone]} | "
            f"{yes[model.monotone_with_suppression]} | {searches} |"
        )
    return "\n".join(rows) + "\n"


def commands(
    parser: argparse.ArgumentParser,
) -> Iterator[tuple[argparse.ArgumentParser, int]]:
    """Every parser under ``parser`` (itself first), depth first, with its depth."""
    stack: list[tuple[argparse.ArgumentParser, int]] = [(parser, 0)]
    while stack:
        p, depth = stack.pop()
        yield p, depth
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        for action in subs:
            children = list(dict.fromkeys(action.choices.values()))
            stack.extend((c, depth + 1) for c in reversed(children))


def cli_help() -> str:
    """The help of every command, as Markdown."""
    from polars_anon.cli import parser

    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH  # argparse wraps to the terminal's width
    try:
        sections = []
        for p, depth in commands(parser()):
            level = "#" * min(depth + 2, 4)
            text = p.format_help().rstrip()
            sections.append(f"{level} `{p.prog}`\n\n```text\n{text}\n```\n")
        return "\n".join(sections)
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


# the reference's pages in the order of the navigation (mkdocs.yml)
REFERENCE_ORDER = [
    "functions",
    "namespace",
    "results",
    "reports",
    "criteria",
    "hierarchies",
    "data",
    "roles",
    "jobs",
    "exceptions",
]


def reference_index() -> str:
    """Every entry of the reference, by page, as Markdown lists of links."""
    folder = Path(__file__).resolve().parent.parent / "reference"
    order = [*REFERENCE_ORDER, *sorted(p.stem for p in folder.glob("*.md"))]
    pages = [folder / f"{stem}.md" for stem in dict.fromkeys(order)]
    out = []
    for page in pages:
        text = page.read_text(encoding="utf8")
        names = re.findall(r"^:::\s+polars_anon\.(\S+)\s*$", text, re.M)
        if not names:
            continue
        title = text.splitlines()[0].lstrip("# ").strip()
        links = ", ".join(f"[`{n}`][polars_anon.{n}]" for n in names)
        out.append(f"- **[{title}]({page.name})**: {links}")
    return "\n".join(out) + "\n"


MARKERS = {
    "<!-- cli-help -->": cli_help,
    "<!-- criteria-table -->": criteria_table,
    "<!-- reference-index -->": reference_index,
}


def on_pre_build(config: Any, **kwargs: Any) -> None:
    """Fail the build when a public name has no reference entry or no
    docstring (``docs/check_reference.py``)."""
    import importlib.util

    from mkdocs.exceptions import PluginError

    path = Path(__file__).resolve().parent.parent / "check_reference.py"
    spec = importlib.util.spec_from_file_location("check_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = module.problems()
    if found:
        raise PluginError("the API reference is incomplete:\n  " + "\n  ".join(found))


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    for marker, render in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, render())
    return markdown
