"""What a job's run did (`JobRun`), and the resolved job file it writes
beside the release: the job with its levels, the criterion they were
chosen by, the search that found them, checksums and counts."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import polars as pl

from polars_anon._core import __version__
from polars_anon.jobs.columns import fates_doc
from polars_anon.jobs.tables import sha256
from polars_anon.jobs.toml import dumps
from polars_anon.reports.check import CheckReport


class JobLike(Protocol):
    """What the resolved job reads of its `Job` (`jobs.job`, which imports
    this module)."""

    input: Path
    output: Path
    preference: str
    chosen_by: str | None

    def to_dict(self, relative_to: Path | None = None) -> dict[str, Any]: ...


@dataclass
class JobRun:
    """What a job's run did: the levels it released (searched or recorded),
    the report on them, the rows written and the resolved job file."""

    job: JobLike
    levels: dict[str, int]
    searched: bool
    report: CheckReport
    rows_released: int
    job_file: Path
    # what became of every column (`roles.fates`): the release's own account
    # when it gave one, else the report's
    columns: pl.DataFrame | None = None
    # the input's checksum, taken before the release was written
    input_sha256: str | None = None
    # the search that found the levels (`searched`; auto's choice or the one
    # named): the job file records it, the command line prints it
    ran: str | None = None

    def _chosen_by(self) -> str | None:
        """The preference the levels were chosen by: the job's, when it
        searched; else the one recorded with them, if any."""
        if self.searched:
            return self.job.preference
        return self.job.chosen_by

    def resolved_toml(self) -> str:
        """The resolved job file's text, as the run wrote it beside the output."""
        base = self.job_file.parent
        doc = self.job.to_dict(relative_to=base)
        doc["input"]["sha256"] = self.input_sha256 or sha256(self.job.input)
        doc["output"]["sha256"] = sha256(self.job.output)
        doc["result"] = {
            "levels": dict(self.levels),
            # the criterion they were chosen by: a run of this file with
            # another preference must search again (`Job.run` refuses it);
            # levels recorded by a job file of before it: not known
            **({"preference": chosen} if (chosen := self._chosen_by()) else {}),
            "searched": self.searched,
            **({"search": self.ran} if self.ran else {}),
            "rows_in": self.report.rows,
            "rows_released": self.rows_released,
            "suppressed": self.report.suppressed,
            "loss": self.report.loss,
            "library_version": __version__,
            "written": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        fates = fates_doc(self.columns if self.columns is not None else self.report.columns)
        if fates:
            doc["result"]["columns"] = fates
        name = self.job.output.name
        head = (
            f"# The resolved job of {name!r}, written by polars-anon {__version__}.\n"
            "# Run it again (polars-anon anonymize --config THIS_FILE [DATA --out FILE]) to apply\n"
            "# the same levels, re-checked, to another input.\n"
        )
        return head + dumps(doc)
