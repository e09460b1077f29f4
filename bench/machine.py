"""The machine a benchmark ran on, as its JSON records it (times depend on
it; the work counters do not)."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any

# The searches' deterministic work counters (`SearchResult.stats`), as the
# benchmarks' JSON keeps them: they do not depend on the machine.
STATS = (
    "nodes_checked",
    "nodes_marked",
    "nodes_projected",
    "table_scans",
    "rows_scanned",
    "rows_rolled_up",
    "cuboids",
    "intermediate_sets",
)


def machine() -> dict[str, Any]:
    """Cores, memory, Python, platform, Polars and polars-anon versions, and
    the load average when it was asked for."""
    import polars as pl

    import polars_anon as pa

    meminfo = Path("/proc/meminfo").read_text().splitlines()[0].split()
    return {
        "cpu_count": os.cpu_count(),
        "memory_gib": round(int(meminfo[1]) / 1024**2, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor(),
        "polars": pl.__version__,
        "polars-anon": pa.__version__,
        "load_average": os.getloadavg(),
    }
