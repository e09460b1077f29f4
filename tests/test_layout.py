"""The package's layout keeps its rules: no module imports another that
imports it back (also not through an import inside a function, nor one made
for type checking only), and no module is much longer than 400 lines."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "polars_anon"


def modules() -> dict[str, Path]:
    # the compiled core, by its stub: it imports nothing of the package
    out = {"polars_anon._core": PACKAGE / "_core.pyi"}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The package's modules that `path` (module `name`) imports anywhere."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.add(sub if sub in known else base)
    return {m for m in out if m in known and m != name}


def test_no_module_imports_itself_through_others() -> None:
    found = modules()
    graph = {m: imports(p, m, set(found)) for m, p in found.items() if p.suffix == ".py"}
    graph["polars_anon._core"] = set()
    # Tarjan's strongly connected components
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    assert not cycles


def test_no_module_is_much_over_400_lines() -> None:
    long = {
        m: n
        for m, p in modules().items()
        if p.suffix == ".py" and (n := len(p.read_text(encoding="utf8").splitlines())) > 420
    }
    assert not long
