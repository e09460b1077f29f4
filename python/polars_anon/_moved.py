"""The modules of 0.1's flat layout, by the modules that now hold their
names: a pickle made by that release names its classes' modules
(``polars_anon._results.SearchResult``), and loads through these. Each old
module is made on first import, and only looks its names up; no file of it
is kept."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

# old module -> the modules that hold its names now, searched in order
MOVED: dict[str, tuple[str, ...]] = {
    "_api": ("api.search", "api.check"),
    "_criteria": ("criteria",),
    "_floors": ("prepare.floors",),
    "_frames": (
        "prepare.f0",
        "prepare.prepared",
        "inputs.frames",
        "inputs.hierarchies",
        "inputs.params",
        "inputs.nulls",
    ),
    "_freqset": ("inputs.counts", "api.counts"),
    "_job": ("jobs.job",),
    "_local": ("results.local", "api.local"),
    "_mu_argus": ("algorithms.mu_argus",),
    "_plot": ("plot.groups", "plot.lattice", "plot.tradeoff", "plot.figure"),
    "_progress": ("api.progress",),
    "_release": ("release.build",),
    "_results": (
        "results.search",
        "results.mu_argus",
        "results.best",
        "reports.check",
        "reports.render",
    ),
    "_risk": ("reports.risk", "api.risk"),
}

PACKAGE = "polars_anon"


class _Finder:
    """Finds and makes the old modules: each is an empty module whose names
    are looked up in the new ones (`MOVED`)."""

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        package, _, old = name.rpartition(".")
        if package != PACKAGE or old not in MOVED:
            return None
        return ModuleSpec(name, cast("Loader", self))

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return ModuleType(spec.name, f"moved to {', '.join(_new(spec.name))}")

    def exec_module(self, module: ModuleType) -> None:
        homes = _new(module.__name__)

        def __getattr__(attr: str) -> Any:
            if attr.startswith("__"):
                raise AttributeError(attr)
            for home in homes:
                found = importlib.import_module(home)
                if hasattr(found, attr):
                    return getattr(found, attr)
            raise AttributeError(
                f"{module.__name__}.{attr} no longer exists (the module moved to "
                f"{', '.join(homes)}); the object was made by an earlier polars-anon: "
                "make it again with this one"
            )

        module.__dict__["__getattr__"] = __getattr__


def _new(name: str) -> list[str]:
    return [f"{PACKAGE}.{m}" for m in MOVED[name.rpartition(".")[2]]]


def install() -> None:
    """Put the finder on the import path, once."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
