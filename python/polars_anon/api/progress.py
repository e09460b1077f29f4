"""A progress bar for long searches: it appears once a search has run a second."""

from __future__ import annotations

import importlib.util
import sys
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
            bar, text = _tqdm()
            # a text bar only on a terminal or in a notebook's output:
            # written to a log file it was one long line of carriage
            # returns. Its clock from the search's start, not the bar's
            # (which appears a second in)
            self._bar = bar(
                desc=self._label,
                unit=" nodes",
                leave=False,
                **({"disable": not _shown(sys.stderr)} if text else {}),
            )
            if not self._bar.disable:
                self._bar.start_t -= elapsed
        if best is not None:
            self._bar.set_postfix_str(f"best {self._metric} {best:.4g}", refresh=False)
        self._bar.update(checked - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _shown(stream: Any) -> bool:
    """Whether a text bar written to `stream` is seen as one: a terminal, or
    a Jupyter kernel's output (which renders carriage returns but is no
    terminal)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) or type(stream).__module__.startswith("ipykernel")


def _tqdm() -> tuple[Any, bool]:
    """tqdm's notebook bar where ipywidgets is there to draw it, else its text
    bar (tqdm.auto would warn in a notebook without ipywidgets, which the
    package does not require); and whether it is the text bar."""
    from tqdm.std import tqdm

    if importlib.util.find_spec("ipywidgets") is None:
        return tqdm, True
    from tqdm.auto import tqdm as auto

    return auto, auto is tqdm
