"""Searches run on the core's thread pool (`python/pool.rs`): Ctrl-C stops
them (Python hears signals on its main thread only, which waits for the
search and passes the signal on), and searches from several Python threads
at once share the pool's threads and their tables."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest

import polars_anon as pa

SCRIPT = textwrap.dedent(
    """
    import signal, time
    import numpy as np, polars as pl
    import polars_anon as pa
    import polars_anon.api.progress as progress

    signal.signal(signal.SIGINT, signal.default_int_handler)

    class Heard:
        # the progress the core reports from the pool's thread: the search
        # is running in the core when this is printed
        def __init__(self, *args):
            self.told = False
        def __call__(self, checked, seconds, best):
            if not self.told:
                print("in the core", checked, flush=True)
                self.told = True
        def close(self):
            pass

    progress.SearchProgress = Heard
    rng = np.random.default_rng(0)
    n, m = 200_000, 14
    df = pl.DataFrame({f"c{i}": rng.integers(0, 40, n).astype(str) for i in range(m)})
    rows = [[str(v), str(v // 4), str(v // 16), "*"] for v in range(40)]
    hs = {f"c{i}": pa.Hierarchy.from_rows(rows) for i in range(m)}
    start = time.monotonic()
    try:
        pa.search(df, list(hs), hs, 5, 0.05, algorithm="incognito", progress=True)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", round(time.monotonic() - start, 1), flush=True)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_stops_a_search_running_on_the_pool() -> None:
    # 14 columns of 4 levels at 200,000 rows: Incognito runs for minutes
    p = subprocess.Popen(
        [sys.executable, "-c", SCRIPT],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert p.stdout is not None
    try:
        line = p.stdout.readline()
        assert line.startswith("in the core"), line + p.communicate(timeout=60)[1]
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert out.startswith("interrupted"), out + err
    assert p.returncode == 0, err


def test_searches_from_several_threads_at_once_answer_as_one_alone() -> None:
    # a pool thread waiting in a join may run another search's work: each
    # takes a table of its own (`aggregate::own_table`), never one in use
    adult, hs = pa.datasets.adult()
    df = adult.collect()
    cells = [(9, 2, 0.1), (9, 5, 0.05), (7, 10, 0.1), (8, 2, 0.01)]

    def answer(cell: tuple[int, int, float]) -> dict[str, int]:
        n, k, sup = cell
        qis = list(pa.datasets.ADULT_QUASI_IDENTIFIERS[:n])
        return pa.search(df, qis, hs, k, sup, progress=False).best("min_loss")

    alone = [answer(c) for c in cells]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            assert list(pool.map(answer, cells)) == alone
