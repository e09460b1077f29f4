"""A progress bar for long searches: it appears once a search has run a second."""

from __future__ import annotations

import importlib.util
from typing import Any


class SearchProgress:
    """Called by the core about every 200 ms with (nodes checked, seconds,
    the metric's best value among the anonymous nodes found so far, for the
    searches that value nodes as they go: optimal and heuristic)."""

    def __init__(self, label: str, metric: str = "loss", delay: float = 1.0) -> None:
        self._label = label
        self._metric = metric
        self._delay = delay
        self._bar: Any = None

    def __call__(self, checked: int, elapsed: float, best: float | None = None) -> None:
        if elapsed < self._delay:
            return
        if self._bar is None:
            self._bar = _tqdm()(desc=self._label, unit=" nodes", leave=False)
        if best is not None:
            self._bar.set_postfix_str(f"best {self._metric} {best:.4g}", refresh=False)
        self._bar.update(checked - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _tqdm() -> Any:
    """tqdm's notebook bar where ipywidgets is there to draw it, else its text
    bar (tqdm.auto would warn in a notebook without ipywidgets, which the
    package does not require)."""
    if importlib.util.find_spec("ipywidgets") is None:
        from tqdm.std import tqdm

        return tqdm
    from tqdm.auto import tqdm as auto

    return auto
