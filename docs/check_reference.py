"""Check the API reference against the package: every name of
``polars_anon.__all__`` has an entry (a ``::: polars_anon.<name>`` line in
``docs/reference/*.md``), no entry names something that is not public, and
every public name has a docstring, as the reference renders them (the
package read by griffe, the compiled core through its stub ``_core.pyi``):
each name of ``__all__``, each public method and property of a public class
(the ``anon`` namespaces' too), and each public function, class and method of
the public modules (``pa.datasets``, ``pa.hierarchy``). A method that
overrides a documented one takes its docstring, as ``help()`` does.

    python docs/check_reference.py

Exits 1 listing what is missing. ``mkdocs build`` runs the same check first
(``docs/hooks/generated.py``) and fails with the same list.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import griffe

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "hooks"))

from docstrings import inherit, walk  # noqa: E402

ENTRY = re.compile(r"^:::\s+polars_anon\.(\S+)\s*$", re.M)


def entries() -> dict[str, list[str]]:
    """The reference's entries: path under ``polars_anon`` -> the pages holding
    it (``check``; ``hierarchy.Interval``, a member of a public module)."""
    out: dict[str, list[str]] = {}
    for page in sorted((ROOT / "docs" / "reference").glob("*.md")):
        for name in ENTRY.findall(page.read_text(encoding="utf8")):
            out.setdefault(name, []).append(page.name)
    return out


def resolved(obj: Any) -> Any:
    """An object, or the object an alias (an import) stands for."""
    return obj.final_target if obj.is_alias else obj


def documented(obj: Any) -> bool:
    target = resolved(obj)
    return bool(target.docstring and target.docstring.value.strip())


def public_members(obj: Any, prefix: str) -> Iterator[tuple[str, Any]]:
    """The public methods and properties of a class, or the public functions
    and classes of a module (with their methods), that need a docstring."""
    members = obj.all_members if obj.is_class else obj.members
    exports = set(obj.exports or []) if obj.is_module else set()
    for name, member in members.items():
        if name.startswith("_"):
            continue
        if obj.is_module and member.is_alias and name not in exports:
            continue  # an import, documented where it is defined
        target = resolved(member)
        if obj.is_module and target.is_module and name in exports and name in target.members:
            # ``hierarchy.date``: the function exported over its submodule's name
            target = resolved(target.members[name])
        path = f"{prefix}.{name}"
        if target.is_function or (target.is_attribute and "property" in target.labels):
            yield path, target
        elif obj.is_module and target.is_class:
            yield path, target
            yield from public_members(target, path)
        elif obj.is_module and target.is_function:
            yield path, target


def problems() -> list[str]:
    """What the reference lacks, one line each (empty when it is complete)."""
    import polars_anon

    public = list(polars_anon.__all__)
    found = entries()
    problems = [f"no reference entry: pa.{n}" for n in public if n not in found]
    problems += [
        f"entry for a name not in polars_anon.__all__: {n} ({', '.join(pages)})"
        for n, pages in found.items()
        if n.split(".")[0] not in public
    ]
    problems += [
        f"more than one entry: {n} ({', '.join(pages)})"
        for n, pages in found.items()
        if len(pages) > 1
    ]

    pkg: Any = griffe.load(
        "polars_anon",
        search_paths=[str(ROOT / "python")],
        resolve_aliases=True,
        resolve_external=False,
        allow_inspection=False,  # as mkdocs.yml: the core from its stub
    )
    for obj in walk(pkg):
        if obj.is_class:
            inherit(obj)  # type: ignore[arg-type]
    for name in public:
        obj = pkg[name]
        if not documented(obj):
            problems.append(f"no docstring: pa.{name}")
        target = resolved(obj)
        if target.is_class or target.is_module:
            problems += [
                f"no docstring: pa.{path}"
                for path, member in public_members(target, name)
                if not documented(member)
            ]
    return problems


def main() -> int:
    import polars_anon

    found = problems()
    for p in found:
        print(p, file=sys.stderr)
    if found:
        many = "" if len(found) == 1 else "s"
        print(f"{len(found)} problem{many} in the API reference", file=sys.stderr)
        return 1
    print(f"the API reference has all {len(polars_anon.__all__)} public names, each documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
