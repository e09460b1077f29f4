"""`QualityReport`: ARX's quality statistics of one release (full-domain, or
Mondrian's), as ARX reports them, printed aligned in a terminal and as HTML
in a notebook."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from polars_anon.reports.render import aligned, levels_text, share
from polars_anon.utility import measures
from polars_anon.utility.measures import Triple, div
from polars_anon.utility.release import Release

# the attribute-level measures, in the order ARX's GUI lists them, with
# their labels
ATTRIBUTE_MEASURES = {
    "generalization_intensity": "generalization intensity",
    "granularity": "granularity",
    "non_uniform_entropy": "non-uniform entropy",
    "missings": "missings",
    "squared_error": "squared error",
}
# the same, short enough for a terminal's table
SHORT = {
    "generalization_intensity": "gen. intensity",
    "granularity": "granularity",
    "non_uniform_entropy": "NU entropy",
    "missings": "missings",
    "squared_error": "sq. error",
}
DATASET_MEASURES = {
    "ambiguity": "ambiguity",
    "aecs": "average class size (AECS)",
    "discernibility": "discernibility",
    "record_level_squared_error": "record-level squared error",
    "sse_sst": "SSE/SST",
}

# what the levels row says of a release without levels (Mondrian's)
NO_LEVELS = "none: a cell per partition (Mondrian)"

TITLE = "QualityReport (ARX's StatisticsQuality: 1 = best; missings: the share missing)"


def clamp(v: float) -> float:
    """ARX's truncation to [0, 1]; NaN passes through."""
    v = 0.0 if v < 0 else v
    return 1.0 if v > 1 else v


def reported(t: Triple | None) -> float | None:
    """ARX's figure for a stored triple (`QualityMeasureRowOriented.getValue`,
    `QualityMeasureColumnOriented.getValue`): 1 - clamp((raw - min) /
    (max - min)); None where ARX has none (unavailable, or NaN)."""
    if t is None:
        return None
    low, raw, high = t
    v = 1.0 - clamp(div(raw - low, high - low))
    return None if math.isnan(v) else v


def mean(triples: list[Triple | None]) -> float | None:
    """`QualityMeasureColumnOriented.getArithmeticMean(false)`, the figure
    ARX's GUI shows for the dataset: the attributes' raw values, minima and
    maxima averaged first (those without a value left out), then
    normalized."""
    kept = [t for t in triples if t is not None and not math.isnan(t[1])]
    if not kept:
        return None
    low, raw, high = (sum(t[j] for t in kept) / len(kept) for j in range(3))
    return reported((low, raw, high))


@dataclass(frozen=True, repr=False)
class QualityReport:
    """ARX 3.9's quality statistics (`StatisticsQuality`) of one release.

    ``attributes``: one row per quasi-identifier with ``generalization_intensity``
    (1 - the mean generalization level, as a share of the hierarchy's
    height), ``granularity`` (1 - the normalized share of the domain each
    value stands for), ``non_uniform_entropy`` (1 - the information lost,
    relative to the attribute's entropy), ``missings`` (the share of cells
    suppressed, generalized to the root, or ``NULL``: 0 is best, as ARX
    reports it) and ``squared_error`` (1 - the normalized squared distance
    of each value to its released interval). The dataset figures:
    ``ambiguity``, ``aecs`` (average equivalence class size),
    ``discernibility``, ``record_level_squared_error`` and ``sse_sst``. Every
    figure but missings is in [0, 1] with 1 the best (nothing lost); None
    where ARX reports the measure unavailable or NaN (AECS and
    discernibility when every record is suppressed; a constant column's
    entropy and squared error). ``means``: each attribute measure over all
    attributes as ARX's GUI shows it (raw values averaged, then normalized).
    ``data_types``: the ARX data type each quasi-identifier was read as.
    ``levels``: each quasi-identifier's; empty for a Mondrian release
    (`MondrianResult.quality`), which has none.
    """

    quasi_identifiers: list[str]
    levels: dict[str, int]
    records: int
    suppressed: int
    attributes: pl.DataFrame
    ambiguity: float | None
    aecs: float | None
    discernibility: float | None
    record_level_squared_error: float | None
    sse_sst: float | None
    means: dict[str, float | None] = field(default_factory=dict)
    data_types: dict[str, str] = field(default_factory=dict)

    def plot(self) -> Any:
        """The attribute measures as bars, a group per attribute (a matplotlib
        Figure; needs the ``plot`` extra)."""
        from polars_anon.plot.quality import quality_bars

        labels = {**ATTRIBUTE_MEASURES, "missings": "missings (the share: 0 = best)"}
        return quality_bars(self.attributes, labels, self.levels)

    def _table(self, labels: dict[str, str] = ATTRIBUTE_MEASURES) -> list[list[str]]:
        """The attributes' figures as text, a header (the measures named by
        `labels`), then a row each and ARX's means."""
        names = list(ATTRIBUTE_MEASURES)
        rows = [["attribute", "type", *(labels[m] for m in names)]]
        for r in self.attributes.iter_rows(named=True):
            q = r["attribute"]
            rows.append([q, self.data_types.get(q, ""), *(_figure(r[m]) for m in names)])
        rows.append(["mean (ARX)", "", *(_figure(self.means.get(m)) for m in names)])
        return rows

    def _rows(self) -> list[tuple[str, Any]]:
        table = self._table(SHORT)
        widths = [max(len(r[j]) for r in table) for j in range(len(table[0]))]
        lines = []
        for r in table:
            cells = [
                c.ljust(w) if j < 2 else c.rjust(w)
                for j, (c, w) in enumerate(zip(r, widths, strict=True))
            ]
            lines.append("  ".join(cells))
        text = "\n".join(lines)
        return [
            ("levels", levels_text(self.levels) or NO_LEVELS),
            (
                "records / suppressed",
                f"{self.records:,} / {self.suppressed:,} ({share(self.suppressed / self.records)})",
            ),
            *((DATASET_MEASURES[m], _figure(getattr(self, m))) for m in DATASET_MEASURES),
            ("per attribute", text),
        ]

    def __str__(self) -> str:
        return aligned(TITLE, self._rows())

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        # imported here: html.entities is ~1 ms of a fresh import, for notebooks only
        import html

        rows = self._rows()[:-1]
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>"
            for k, v in rows
        )
        table = self._table()
        head = "".join(f"<th>{html.escape(c)}</th>" for c in table[0])
        cells = "".join(
            "<tr>"
            + "".join(
                f"<td style='text-align:{'left' if j < 2 else 'right'}'>{html.escape(c)}</td>"
                for j, c in enumerate(r)
            )
            + "</tr>"
            for r in table[1:]
        )
        return (
            f"<div><strong>{html.escape(TITLE)}</strong>"
            f"<table>{body}</table>"
            "<em>per attribute</em>"
            f"<table><tr>{head}</tr>{cells}</table></div>"
        )


def _figure(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.4f}"


def report(rel: Release) -> QualityReport:
    """Every measure of `rel`, as ARX reports it."""
    per_attribute = {
        "generalization_intensity": measures.generalization_intensity(rel),
        "granularity": measures.granularity(rel),
        "non_uniform_entropy": measures.non_uniform_entropy(rel),
        "missings": measures.missings(rel),
        "squared_error": measures.squared_error(rel),
    }
    found = measures.classes(rel)
    numbers = measures.intervals(rel)
    dataset = {
        "ambiguity": measures.ambiguity(rel),
        "aecs": measures.aecs(rel, found),
        "discernibility": measures.discernibility(rel, found),
        "record_level_squared_error": measures.record_level_squared_error(rel, numbers),
        "sse_sst": measures.sse_sst(rel, numbers),
    }
    return assembled(rel, per_attribute, dataset, {a.name: a.level for a in rel.attributes})


def assembled(
    rel: Release,
    per_attribute: dict[str, list[Triple | None]],
    dataset: dict[str, Triple | None],
    levels: dict[str, int],
) -> QualityReport:
    """The report of `rel`'s stored triples (`ATTRIBUTE_MEASURES`' and
    `DATASET_MEASURES`'), each as ARX reports it; `levels` empty for a
    release without levels (Mondrian's)."""
    names = [a.name for a in rel.attributes]
    columns: dict[str, pl.Series] = {"attribute": pl.Series(names, dtype=pl.String)}
    for m in ATTRIBUTE_MEASURES:
        columns[m] = pl.Series([reported(t) for t in per_attribute[m]], dtype=pl.Float64)
    figures = {m: reported(dataset[m]) for m in DATASET_MEASURES}
    return QualityReport(
        quasi_identifiers=names,
        levels=levels,
        records=rel.records,
        suppressed=rel.suppressed,
        attributes=pl.DataFrame(columns),
        ambiguity=figures["ambiguity"],
        aecs=figures["aecs"],
        discernibility=figures["discernibility"],
        record_level_squared_error=figures["record_level_squared_error"],
        sse_sst=figures["sse_sst"],
        means={m: mean(per_attribute[m]) for m in ATTRIBUTE_MEASURES},
        data_types={a.name: a.kind for a in rel.attributes},
    )
