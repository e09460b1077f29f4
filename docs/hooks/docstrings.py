"""A griffe extension: the package's docstrings, written for ``help()`` and
doctest, read as Markdown by mkdocstrings.

- A doctest (a run of lines from one starting with ``>>>`` to the next blank
  line) becomes a fenced ``pycon`` block: Markdown would read ``>>>`` as three
  nested quotes.
- An RST literal block's ``::`` (a paragraph ending with it) becomes ``:``;
  the indented block after it is a Markdown code block as it is.
- A method or property without a docstring of its own takes the one it
  overrides, as ``help()`` and ``inspect.getdoc`` do.
- A name of ``polars_anon.__all__`` in single backticks (``Name``,
  ``pa.Name``, ``polars_anon.Name``, ``Name.member``: the docstrings' way of
  naming an object) becomes a link to its entry in the reference (a link
  that finds no entry fails the strict build). Double backticks are
  literals (parameters, values) and stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

# `Name`, `pa.Name`, `polars_anon.Name`, `Name.member`, not inside ``double backticks``
NAME = re.compile(r"(?<![`\w])`(?:pa\.|polars_anon\.)?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)`(?![`\w])")


def markdown(text: str, public: frozenset[str] = frozenset()) -> str:
    """The docstring ``text`` as Markdown (see the module doc); ``public``:
    the names of ``polars_anon.__all__``."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            out.append(f"{indent}```")
            continue
        if stripped.startswith("```"):  # a fence of its own: kept whole
            out.append(line)
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith("```"):
                out.append(lines[i])
                i += 1
            if i < len(lines):
                out.append(lines[i])
                i += 1
            continue
        if line.startswith(("    ", "\t")) and (not out or not out[-1].strip() or _code(out)):
            out.append(line)  # an indented (literal) block
            i += 1
            continue
        if stripped == "::":
            line = ""
        elif line.rstrip().endswith("::"):
            line = line.rstrip()[:-1]
        out.append(NAME.sub(lambda m: _link(m, public), line))
        i += 1
    return "\n".join(out)


def _code(out: list[str]) -> bool:
    """Whether the last line written belongs to an indented block."""
    return out[-1].startswith(("    ", "\t"))


def _link(match: re.Match[str], public: frozenset[str]) -> str:
    name = match.group(1)
    if name.split(".")[0] not in public:
        return match.group(0)
    return f"[`{match.group(0).strip('`')}`][polars_anon.{name}]"


class Docstrings(griffe.Extension):
    """Rewrites every docstring of the package with `markdown`."""

    def on_package(self, *, pkg: griffe.Module, loader: Any, **kwargs: Any) -> None:
        if pkg.name != "polars_anon":
            return
        public = frozenset(str(name) for name in pkg.exports or ())
        objects = list(walk(pkg))
        for obj in objects:
            if obj.is_class:
                inherit(obj)  # type: ignore[arg-type]
        for obj in objects:
            if obj.docstring is not None:
                obj.docstring.value = markdown(obj.docstring.value, public)


def walk(obj: griffe.Object) -> list[griffe.Object]:
    """``obj`` and every object defined under it (aliases left out)."""
    out: list[griffe.Object] = []
    stack = [obj]
    seen: set[int] = set()
    while stack:
        o = stack.pop()
        if id(o) not in seen:
            seen.add(id(o))
            out.append(o)
            stack.extend(m for m in o.members.values() if not m.is_alias)  # type: ignore[misc]
    return out


def inherit(cls: griffe.Class) -> None:
    """Give each member of ``cls`` without a docstring the one it overrides."""
    try:
        bases = cls.mro()
    except ValueError:
        return
    for name, member in cls.members.items():
        if member.is_alias or (member.docstring and member.docstring.value.strip()):
            continue
        for base in bases:
            found = base.members.get(name)
            if found is not None and not found.is_alias and found.docstring:
                member.docstring = griffe.Docstring(found.docstring.value, parent=member)  # type: ignore[arg-type]
                break
