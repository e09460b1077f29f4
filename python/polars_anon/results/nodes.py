"""A search's nodes as Python lists of levels, each list made from the
core's outcome when first asked for."""

from __future__ import annotations

from typing import Any

from polars_anon._core import SearchOutcome

# the outcome's node lists, and their names in a pickle (before they crossed lazily)
NAMES = ("anonymous", "minimal", "rejected")
PICKLED = ("_nodes", "_minimal_nodes", "rejected")


class Nodes:
    """The anonymous, minimal and rejected nodes of a search outcome (the
    core's, or lists given). The core's nodes cross to Python when asked
    for, not when the search returns: at 500 attributes an anytime search's
    30,000 nodes take 0.3 s to become lists, time its answer would spend
    past its limit. Once all three are lists the outcome is let go."""

    __slots__ = ("_lists", "_raw")

    def __init__(self, raw: Any = None, lists: dict[str, list[list[int]]] | None = None) -> None:
        self._raw = raw
        self._lists: dict[str, list[list[int]]] = dict(lists or {})

    def get(self, name: str) -> list[list[int]]:
        """One of `NAMES`."""
        if name not in self._lists:
            assert self._raw is not None, name
            self._lists[name] = getattr(self._raw, name)
            if len(self._lists) == len(NAMES):
                self._raw = None
        return self._lists[name]

    def core(self) -> SearchOutcome | None:
        """The core's outcome while it is held (its anonymous nodes can go
        back to the core without becoming lists), else None (also for an
        outcome of another shape, such as mu-Argus's)."""
        return self._raw if isinstance(self._raw, SearchOutcome) else None

    def state(self) -> dict[str, list[list[int]]]:
        """The lists under their names in a pickle."""
        return {old: self.get(n) for n, old in zip(NAMES, PICKLED, strict=True)}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Nodes:
        """The lists popped from a pickle's `state`."""
        return cls(None, {n: state.pop(old) for n, old in zip(NAMES, PICKLED, strict=True)})
