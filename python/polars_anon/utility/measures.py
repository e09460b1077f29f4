"""ARX 3.9's quality models (`org.deidentifier.arx.aggregates.quality`), one
function a measure, each over a `Release` (distinct input tuples with their
counts, so it runs on a frequency set from any engine; a Mondrian release's
too, `mondrian_release`, whose output values the input values do not fix).

Each returns what the ARX model stores: a triple (minimum, raw, maximum),
one per quasi-identifier for an attribute measure, or None where ARX's model
fails and reports the measure unavailable. `report.reported` turns a triple
into ARX's figure, 1 - clamp((raw - min) / (max - min)). Sums run over
distinct tuples times their counts, where ARX adds row by row: the figures
agree with ARX's to rounding (about 1e-13 on Adult).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

import polars as pl

from polars_anon.utility.attribute import NULL, STAR
from polars_anon.utility.release import COUNT, SUPPRESSED, Release, c, y

Triple = tuple[float, float, float]


def div(a: float, b: float) -> float:
    """a / b as Java divides doubles: x / 0 is +-infinity, 0 / 0 NaN."""
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def missings(rel: Release) -> list[Triple | None]:
    # StatisticsQuality.getMissings: a cell is missing when its record is an
    # outlier, or it reads "*", "NULL" or the given hierarchy's single root;
    # stored as 1 - share missing, so ARX reports the share missing itself
    out: list[Triple | None] = []
    for a, cells in zip(rel.attributes, rel.cells, strict=True):
        root = a.missing_root
        m = sum(
            e.records for e in cells if e.suppressed or e.output in (STAR, NULL) or e.output == root
        )
        out.append((0.0, 1.0 - m / rel.records, 1.0))
    return out


def generalization_intensity(rel: Release) -> list[Triple | None]:
    # QualityModelColumnOrientedPrecision.evaluate and getPrecisions: a value
    # costs its lowest column in the fixed table / (columns - 1); a record
    # QualityModel.isSuppressed(handle, indices, row) calls suppressed (an
    # outlier, or all its values equal) costs 1, as does an unknown value
    out: list[Triple | None] = []
    for a, cells in zip(rel.attributes, rel.cells, strict=True):
        top = float(a.columns - 1)
        total = 0.0
        for e in cells:
            level = a.lowest.get(e.output)
            total += e.records * (1.0 if e.same or level is None else div(level, top))
        out.append((0.0, total / rel.records, 1.0))
    return out


def granularity(rel: Release) -> list[Triple | None]:
    # QualityModelColumnOrientedLoss.evaluate, with QualityDomainShareRaw's
    # shares: a value costs the share of the domain it stands for, a
    # suppressed record (as for generalization intensity) 1; min 1/D
    out: list[Triple | None] = []
    for a, cells in zip(rel.attributes, rel.cells, strict=True):
        total = sum(e.records * (1.0 if e.same else a.share(e.output)) for e in cells)
        out.append((1.0 / a.size, total / rel.records, 1.0))
    return out


def non_uniform_entropy(rel: Release) -> list[Triple | None]:
    # QualityModelColumnOrientedNonUniformEntropy.evaluate: each record's
    # output value has a level (its lowest column; "*" the top when absent);
    # for each level l_j present, over the records at l_j or above, the loss
    # adds -log2(count of its value at l_(j-1), or its raw value for j = 0,
    # over count of its value at l_j); max: -sum log2(count(raw) / N)
    out: list[Triple | None] = []
    for a, cells in zip(rel.attributes, rel.cells, strict=True):
        lowest = dict(a.lowest)
        lowest.setdefault(STAR, a.columns - 1)
        if any(e.output not in lowest for e in cells):
            out.append(None)  # ARX's lookup throws: unavailable
            continue
        at = Counter[tuple[str, int]]()
        for e in cells:
            at[(e.value, lowest[e.output])] += e.records
        levels = sorted({t for _, t in at})
        loss = 0.0
        for j, level in enumerate(levels):
            up = a.generalized(level)
            before = a.generalized(levels[j - 1]) if j else None
            held = [(raw, n) for (raw, t), n in at.items() if t >= level]
            inner = Counter[str]()
            outer = Counter[str]()
            for raw, n in held:
                inner[raw if before is None else before[raw]] += n
                outer[up[raw]] += n
            for raw, n in held:
                value = raw if before is None else before[raw]
                loss -= n * math.log2(inner[value] / outer[up[raw]])
        raws = Counter[str]()
        for e in cells:
            raws[e.value] += e.records
        top = -sum(n * math.log2(n / rel.records) for n in raws.values())
        out.append((0.0, loss, top))
    return out


def squared_error(rel: Release) -> list[Triple | None]:
    # QualityModelColumnOrientedSquaredError.evaluate over the numbers of
    # QualityModel.getColumnsAsNumbers: a record adds the larger squared
    # distance from its input value x to its output interval's ends, capped
    # at the largest from x to the input's [min, max]; max adds that cap
    out: list[Triple | None] = []
    for a, cells in zip(rel.attributes, rel.cells, strict=True):
        inputs, outputs = a.intervals([(e.value, e.output) for e in cells])
        ends = [end for pair in inputs.values() for end in pair]
        lo, hi = min(ends), max(ends)
        raw_sum = top = 0.0
        for e in cells:
            value = inputs[e.value][0]
            cap = max((value - lo) ** 2, (value - hi) ** 2)
            start, end = outputs[e.output]
            raw_sum += e.records * min(max((value - start) ** 2, (value - end) ** 2), cap)
            top += e.records * cap
        out.append((0.0, raw_sum, top))
    return out


def ambiguity(rel: Release, leaves: Sequence[Mapping[str, float]] | None = None) -> Triple | None:
    # QualityModelRowOrientedAmbiguity.evaluate (Goldberger and Tassa): each
    # record adds the product over attributes of the leaves its output value
    # may stand for (share * D; an outlier's "*" the whole domain; or, per
    # attribute, `leaves` by output value: a Mondrian range's values); min
    # N, max N * product of D. Looked up by the output value, not the input,
    # since a Mondrian release gives one input value several outputs.
    product = pl.lit(1.0)
    domains = 1.0
    for i, (a, cells) in enumerate(zip(rel.attributes, rel.cells, strict=True)):
        found = (
            leaves[i]
            if leaves is not None
            else {e.output: a.share(e.output) * a.size for e in cells}
        )
        product = product * pl.col(y(i)).replace_strict(dict(found), return_dtype=pl.Float64)
        domains *= float(a.size)
    raw = rel.rows.select((product * pl.col(COUNT)).sum()).item()
    return (float(rel.records), float(raw), rel.records * domains)


Classes = tuple[pl.Series, pl.Series, int]


def classes(rel: Release) -> Classes:
    """The input's class sizes (a release's row is a distinct input tuple;
    one whose quasi-identifiers are all "*" is an outlier of ARX's input
    handle and in none), the output's (non-outlier records by their output
    values), and the input's outliers."""
    stars = [a.hierarchy.leaves for a in rel.attributes]
    # grouped by input tuple: a Mondrian release may hold one in two rows
    # (relaxed: its records in two partitions)
    given = rel.rows.group_by([c(i) for i in range(len(stars))]).agg(pl.col(COUNT).sum())
    if all(STAR in leaves for leaves in stars):
        starred = pl.all_horizontal(
            [pl.col(c(i)) == leaves.index(STAR) for i, leaves in enumerate(stars)]
        )
        given = given.filter(~starred)
    inputs = given.get_column(COUNT)
    released = rel.rows.filter(~pl.col(SUPPRESSED))
    keys = [y(i) for i in range(len(rel.attributes))]
    outputs = released.group_by(keys).agg(pl.col(COUNT).sum()).get_column(COUNT)
    return inputs, outputs, rel.records - int(inputs.sum())


def aecs(rel: Release, found: Classes | None = None) -> Triple | None:
    # QualityModelRowOrientedAECS.evaluate, getAverageGroupSize: records over
    # classes, of the output (raw) and of the input (min); max N. With every
    # record suppressed ARX's grouping is empty and throws: unavailable
    inputs, outputs, _ = found or classes(rel)
    if not inputs.len() or not outputs.len():
        return None
    return (
        int(inputs.sum()) / inputs.len(),
        int(outputs.sum()) / outputs.len(),
        float(rel.records),
    )


def _squares(sizes: pl.Series) -> float:
    return float(sizes.cast(pl.Float64).pow(2).sum())


def discernibility(rel: Release, found: Classes | None = None) -> Triple | None:
    # QualityModelRowOrientedDiscernibility.evaluate: the sum of squared
    # class sizes plus N per outlier, of the output (raw) and the input
    # (min); max N^2. (ARX squares a class's size in Java int, which wraps
    # past 46,340 records; here it does not.) Unavailable when every record
    # is suppressed, as AECS.
    inputs, outputs, outliers = found or classes(rel)
    if not inputs.len() or not outputs.len():
        return None
    n = float(rel.records)
    return (_squares(inputs) + outliers * n, _squares(outputs) + rel.suppressed * n, n * n)


def intervals(rel: Release) -> pl.DataFrame:
    """`rel.rows`' counts with each attribute's intervals per row, as
    QualityModel.getColumnsAsNumbers gives them: lo{i}, hi{i} (input),
    a{i}, b{i} (output)."""
    cols = [pl.col(COUNT).cast(pl.Float64)]
    for i, (a, cells) in enumerate(zip(rel.attributes, rel.cells, strict=True)):
        inputs, outputs = a.intervals([(e.value, e.output) for e in cells])
        size = len(a.hierarchy.leaves)
        lo, hi = ([math.nan] * size for _ in range(2))
        for e in cells:
            lo[e.code], hi[e.code] = inputs[e.value]
        # the output's by its value (a suppressed record's is "*"), which
        # in a Mondrian release the input value does not fix
        output = pl.col(y(i))
        cols += [
            rel.gather(i, lo).alias(f"lo{i}"),
            rel.gather(i, hi).alias(f"hi{i}"),
            output.replace_strict(
                {b: v[0] for b, v in outputs.items()}, return_dtype=pl.Float64
            ).alias(f"a{i}"),
            output.replace_strict(
                {b: v[1] for b, v in outputs.items()}, return_dtype=pl.Float64
            ).alias(f"b{i}"),
        ]
    return rel.rows.select(cols)


def record_level_squared_error(rel: Release, frame: pl.DataFrame | None = None) -> Triple | None:
    # QualityModelRowOrientedSquaredError.evaluate (Sanchez et al.): per
    # record, the Euclidean norm over attributes of (x - the output
    # interval's end farther from x) / the input's population standard
    # deviation (0 where that is 0); max: the same with each attribute's
    # [min, max] over input and output as the interval; both / (C * N)
    frame = intervals(rel) if frame is None else frame
    count = len(rel.attributes)
    n = pl.col(COUNT)
    stats = []
    for i in range(count):
        lo, hi, a, b = (pl.col(f"{p}{i}") for p in ("lo", "hi", "a", "b"))
        mean = (lo * n).sum() / n.sum()
        stats += [
            (((lo - mean) ** 2 * n).sum() / n.sum()).sqrt().alias(f"sd{i}"),
            pl.min_horizontal(lo.min(), hi.min(), a.min(), b.min()).alias(f"least{i}"),
            pl.max_horizontal(lo.max(), hi.max(), a.max(), b.max()).alias(f"most{i}"),
        ]
    found = frame.select(stats).row(0, named=True)
    real = pl.lit(0.0)
    far = pl.lit(0.0)
    for i in range(count):
        lo, sd = pl.col(f"lo{i}"), float(found[f"sd{i}"])
        least, most = pl.lit(found[f"least{i}"]), pl.lit(found[f"most{i}"])
        real = real + _term(lo, pl.col(f"a{i}"), pl.col(f"b{i}"), sd)
        far = far + _term(lo, least, most, sd)
    sums = frame.select((real.sqrt() * n).sum().alias("real"), (far.sqrt() * n).sum().alias("far"))
    scale = float(count * rel.records)
    return (0.0, sums.item(0, "real") / scale, sums.item(0, "far") / scale)


def _term(x: pl.Expr, start: pl.Expr, end: pl.Expr, sd: float) -> pl.Expr:
    """A record's squared distance, in standard deviations, from its input
    value to the end of [start, end] farther from it (the lower end on a
    tie); 0 when the deviation is 0 (getEuclideanDistance)."""
    if sd == 0:
        return pl.lit(0.0)
    chosen = pl.when((end - x) > (x - start)).then(end).otherwise(start)
    return ((x - chosen) / sd) ** 2


def sse_sst(rel: Release, frame: pl.DataFrame | None = None) -> Triple | None:
    # QualityModelRowOrientedSSESST.evaluate, getSSE, getSST: SSE sums the
    # squared differences of the input's and the output's interval
    # midpoints; SST (the max) the output midpoints' squared distances to
    # the input's centroid; no scaling per attribute
    frame = intervals(rel) if frame is None else frame
    n = pl.col(COUNT)
    sse = pl.lit(0.0)
    sst = pl.lit(0.0)
    for i in range(len(rel.attributes)):
        mid_in = (pl.col(f"lo{i}") + pl.col(f"hi{i}")) / 2
        mid_out = (pl.col(f"a{i}") + pl.col(f"b{i}")) / 2
        centroid = (mid_in * n).sum() / n.sum()
        sse = sse + ((mid_in - mid_out) ** 2 * n).sum()
        sst = sst + ((mid_out - centroid) ** 2 * n).sum()
    sums = frame.select(sse.alias("sse"), sst.alias("sst"))
    return (0.0, sums.item(0, "sse"), sums.item(0, "sst"))
