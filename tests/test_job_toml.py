"""Job files are written by tomli-w: whatever a job's strings and keys hold
(quotes, backslashes, newlines, non-ASCII text, dots, spaces), and hierarchy
paths with spaces, the file reads back as the job that wrote it."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from polars_anon.jobs.job import Job
from polars_anon.jobs.toml import dumps, tomllib

# text TOML can hold: any Unicode scalar but surrogates (and NUL, which no
# column or path has); quotes, backslashes, newlines, dots and spaces included
ODD = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    min_size=1,
    max_size=12,
) | st.sampled_from(['a "quoted" name', "back\\slash", "two\nlines", "dotted.key", "ünï cødé"])

SCALARS = ODD | st.integers(-(2**63), 2**63 - 1) | st.booleans() | st.floats(allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["input", "model", "search", "output", "result"]),
        st.dictionaries(ODD, SCALARS | st.lists(SCALARS, max_size=4), max_size=5),
        max_size=5,
    ),
    st.dictionaries(ODD, st.dictionaries(ODD, SCALARS, max_size=3), max_size=3),
)
def test_any_document_of_a_jobs_shape_round_trips(
    tables: dict[str, dict[str, Any]], hierarchies: dict[str, dict[str, Any]]
) -> None:
    doc: dict[str, Any] = {**tables, "hierarchies": hierarchies}
    assert tomllib.loads(dumps(doc)) == doc


@settings(max_examples=60, deadline=None)
@given(
    # (but "*" and "^...$", which Polars reads as many columns: refused by
    # name, tested in test_adversarial)
    qis=st.lists(
        ODD.filter(lambda s: s != "*" and not (len(s) > 1 and s[0] == "^" and s[-1] == "$")),
        min_size=1,
        max_size=4,
        unique=True,
    ),
    name=ODD.filter(lambda s: "/" not in s and s not in (".", "..")),
    separator=st.sampled_from([",", ";", "\t", "|"]),
    k=st.integers(1, 1000),
    suppression=st.sampled_from([0, 3, 0.01, 0.2]),
)
def test_a_job_with_odd_names_and_paths_reads_back_as_itself(
    qis: list[str], name: str, separator: str, k: int, suppression: int | float
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        folder = base / "hier archies" / "ünï"
        folder.mkdir(parents=True)
        hierarchies = {}
        for i, q in enumerate(qis):
            path = folder / f"{i} {q.replace('/', '_')}.csv"
            path.write_text("a;*\n", encoding="utf8")
            hierarchies[q] = {"path": str(path)}
        job = Job(
            input=base / "in put" / f"{name}.csv",
            quasi_identifiers=qis,
            k=k,
            output=base / "out put.parquet",
            hierarchies=hierarchies,
            max_suppression=suppression,
            separator=separator,
            preference="min_loss",
        )
        text = dumps(job.to_dict(relative_to=base))
        again = Job.from_dict(tomllib.loads(text), base)
        assert again.quasi_identifiers == qis
        assert again.separator == separator and again.k == k
        assert again.max_suppression == suppression
        assert again.input.resolve() == job.input.resolve()
        assert again.output.resolve() == job.output.resolve()
        assert {q: Path(h["path"]).resolve() for q, h in again.hierarchies.items()} == {
            q: Path(h["path"]).resolve() for q, h in hierarchies.items()
        }
