"""`MondrianResult.quality`: ARX's quality statistics (`QualityReport`) of a
Mondrian release, read off the release by input tuple (`mondrian_release`)
through the measures of a full-domain release (`measures`) wherever their
definitions hold for multidimensional cells, each record's input value
against its output cell; None (n/a) where they do not.

Per attribute:
- generalization intensity: a hierarchy node's level over the height, as
  ARX's; None for an attribute split into ranges or sets, which have no
  levels.
- granularity: the share of the domain a cell stands for
  (`mondrian_release.Recoded.share`), normalized as ARX does from a leaf's
  1/D; a range's floor is 0 instead (a single value is the interval [v, v],
  of width 0). So granularity is 1 - the core's attribute loss, but where
  the domain has one value: None, as `quality` reports a constant column
  (ARX's 0 / 0), where the core's loss is 0.
- non-uniform entropy: see `non_uniform_entropy`.
- missings: as ARX's (a cell reading "*" or "NULL", or the hierarchy's
  root); Mondrian suppresses no record. A range or set covering the whole
  domain is not counted (ARX counts labels): granularity shows its loss.
- squared error: as ARX's, the output as the cell's interval (a range's
  [lo, hi]; a node or set: the hierarchy table's rows it spans).
For the dataset: ambiguity (per attribute the domain's values a cell may
stand for), AECS and discernibility (the classes: the release's groups of
cells, two partitions with the same cells one group), record-level squared
error and SSE/SST, each as ARX's."""

from __future__ import annotations

import math
from collections import Counter

from polars_anon._core import MondrianOutcome
from polars_anon.prepare.prepared import Prepared
from polars_anon.utility import measures
from polars_anon.utility.measures import Triple
from polars_anon.utility.mondrian_release import HIERARCHY, NUMERIC, mondrian_release
from polars_anon.utility.release import Release
from polars_anon.utility.report import QualityReport, assembled


def mondrian_quality(
    prep: Prepared, kinds: dict[str, str], outcome: MondrianOutcome
) -> QualityReport:
    """The quality report of the release Mondrian's `outcome` makes of
    `prep`'s table (`kinds`: how each quasi-identifier was split)."""
    rel, attributes = mondrian_release(prep, kinds, outcome)
    intensity = measures.generalization_intensity(rel)
    granularity = measures.granularity(rel)
    for i, a in enumerate(attributes):
        if a.split != HIERARCHY:
            intensity[i] = None
        if a.split == NUMERIC:
            # a range's floor is 0, not a leaf's 1/D (see above)
            raw = granularity[i]
            granularity[i] = None if raw is None or a.numbers[2] == 0 else (0.0, raw[1], 1.0)
    per_attribute = {
        "generalization_intensity": intensity,
        "granularity": granularity,
        "non_uniform_entropy": non_uniform_entropy(rel),
        "missings": measures.missings(rel),
        "squared_error": measures.squared_error(rel),
    }
    found = measures.classes(rel)
    numbers = measures.intervals(rel)
    leaves = [{v: r.leaves for v, r in a.recoded.items()} for a in attributes]
    dataset = {
        "ambiguity": measures.ambiguity(rel, leaves),
        "aecs": measures.aecs(rel, found),
        "discernibility": measures.discernibility(rel, found),
        "record_level_squared_error": measures.record_level_squared_error(rel, numbers),
        "sse_sst": measures.sse_sst(rel, numbers),
    }
    return assembled(rel, per_attribute, dataset, {})


def non_uniform_entropy(rel: Release) -> list[Triple | None]:
    # QualityModelColumnOrientedNonUniformEntropy in one step: ARX's model
    # walks the levels a release's values sit at (one per attribute, and the
    # top for its outliers), which a Mondrian attribute's cells do not have
    # (many levels, or none). A record adds -log2(records of its raw value
    # in its cell / records of its cell): the information its cell loses of
    # its value, and ARX's loss for a release at one level, where a raw
    # value has one cell (a Mondrian value may have several, hence the
    # count within the cell, never above it). Max as ARX's: -sum
    # log2(count(raw) / N) over the records.
    out: list[Triple | None] = []
    for cells in rel.cells:
        held = Counter[str]()
        raws = Counter[str]()
        for e in cells:
            held[e.output] += e.records
            raws[e.value] += e.records
        loss = -sum(e.records * math.log2(e.records / held[e.output]) for e in cells)
        top = -sum(n * math.log2(n / rel.records) for n in raws.values())
        out.append((0.0, loss, top))
    return out
