"""Every search does the same work it did when bench/counters.json was recorded:
a change that moves or tidies code must leave these deterministic counters (and
the answers' digests) equal. A change meant to alter the work records the file
again (``python bench/counters.py``) and says why in its commit."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import counters

BENCH = Path(counters.__file__).parent


def test_counters_equal_the_recorded_ones() -> None:
    recorded = json.loads((BENCH / "counters.json").read_text())["cells"]
    now = counters.record()
    assert len(now) == len(recorded) == 420
    diff = counters.differences(recorded, now)
    assert not diff, "\n".join(diff[:20])


def test_a_changed_counter_is_reported() -> None:
    recorded = json.loads((BENCH / "counters.json").read_text())["cells"]
    changed = [dict(c) for c in recorded[:3]]
    changed[1]["nodes_checked"] += 1
    diff = counters.differences(recorded, changed)
    assert len(diff) == 1 and "nodes_checked" in diff[0]
