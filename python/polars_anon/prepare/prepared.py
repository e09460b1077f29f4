"""A table prepared for the search: its quasi-identifiers, their
hierarchies, F0 and the core problem over them, with what a release reuses
(the label mappings, built once per attribute and level). `prepare.f0`
makes one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from polars_anon._core import ConfigError, CoreCriterion, Hierarchy, Problem
from polars_anon.criteria.base import Criteria, specs
from polars_anon.engines.polars import group_strings
from polars_anon.exceptions import ParameterError
from polars_anon.inputs.nulls import Nulls
from polars_anon.inputs.params import Levels, as_int
from polars_anon.prepare.population import population
from polars_anon.reports.render import names_text

COUNT = "__polars_anon_count"


@dataclass(frozen=True)
class Prepared:
    """A table's quasi-identifiers, their hierarchies, F0 and the core problem."""

    lazy: pl.LazyFrame
    quasi_identifiers: list[str]
    hierarchies: list[Hierarchy]
    # raw values as strings + COUNT, grouped by Polars; None until first asked
    # for when the core grouped the rows itself
    grouped: pl.DataFrame | None
    problem: Problem
    sensitive: list[str] = field(default_factory=list)
    sensitive_values: dict[str, list[str]] = field(default_factory=dict)
    # the count column of `grouped` and `f0`: unlike any of the table's columns
    count: str = COUNT
    # "error" or "value" (see NULL_LABEL)
    nulls: Nulls = "error"
    # where the table lives ("polars", "duckdb", "spark", or "counts" for a
    # frequency set, which has no rows to release); off Polars, the table
    # itself and F0 with its native values
    engine: str = "polars"
    source: Any = None
    native: pl.DataFrame | None = None
    # (attribute, level) -> the leaves a release maps, their labels and the
    # distinct labels; and those as an Enum or a table by value (all built
    # by `prepare.labels`, once per table and level)
    mappings: dict[tuple[int, int], tuple[pl.Series, pl.Series, list[str]]] = field(
        default_factory=dict
    )
    enums: dict[tuple[int, int], tuple[pl.Series, pl.Series]] = field(default_factory=dict)
    dense: dict[tuple[int, int], tuple[int, pl.Series] | None] = field(default_factory=dict)
    # when F0 was grouped at floor levels (`prepare.floors`): each quasi-identifier's
    # floor with the k and suppressed tuples they were found for, and its
    # distinct native values (F0 holds one value per floor-level label)
    floors: tuple[list[int], int, int] | None = None
    values: dict[str, pl.Series] | None = None
    # the rows, raw (a frame holding at least the quasi-identifier and
    # sensitive columns), when the core grouped them itself (a DataFrame, or a
    # LazyFrame of up to ROWS_IN_CORE rows)
    table: pl.DataFrame | None = None
    # whether `problem` counted this table's rows (its marginals then name
    # the leaves the table holds); not so for another table mapped through
    # these hierarchies (a population's, in risk)
    counted: bool = True
    # population tables counted through these hierarchies (`prepare.population`),
    # by the id of the table, which each entry holds so that the id stays its own
    populations: dict[int, tuple[Any, Problem, int]] = field(default_factory=dict)
    # this table prepared at its leaves, when `floors` are above them
    # (`prepare.f0.at_leaves`), made when first asked for
    leaves: Prepared | None = None
    # whether `lazy` keeps some of another table's rows (SafePub's sample):
    # its text then points into that table's buffers (`release.buffers`)
    sampled: bool = False

    @property
    def rows(self) -> int:
        return self.problem.rows

    @property
    def above_leaves(self) -> bool:
        """Whether F0 was grouped at floor levels above the leaves (DuckDB,
        Spark: `prepare.floors`)."""
        return self.floors is not None and any(self.floors[0])

    @property
    def f0(self) -> pl.DataFrame:
        """F0 grouped by Polars from the raw values (as strings, with `count`),
        independently of the core's codes; from the rows the core grouped,
        when it grouped them."""
        if self.grouped is None:
            source = self.lazy if self.table is None else self.table.lazy()
            object.__setattr__(
                self,
                "grouped",
                group_strings(source, self.quasi_identifiers + self.sensitive, self.count),
            )
        assert self.grouped is not None
        return self.grouped

    @property
    def weighted(self) -> pl.DataFrame:
        """What releases are checked on, independently of the core's codes:
        F0 when Polars grouped it, else the rows the core grouped, each
        counting once (grouping them first, only to group them again at the
        release's levels, cost as much as the check)."""
        if self.grouped is not None or self.table is None:
            return self.f0
        # the quasi-identifiers are read through `text` by the release's
        # expressions; the sensitive values are grouped as text
        return self.table.select(
            self.quasi_identifiers
            + [pl.col(c).cast(pl.String) for c in self.sensitive]
            + [pl.lit(1, dtype=pl.UInt64).alias(self.count)]
        )

    def model(self, criteria: Criteria, feasible: bool = True) -> list[CoreCriterion]:
        """The core's form of `criteria` on this table (`criteria.specs`)."""
        return specs(
            criteria,
            self.sensitive_values,
            feasible=feasible,
            populations=self.population,
            rows=self.rows,
        )

    def population(self, table: Any, model: str) -> tuple[Problem, int]:
        """`table` counted through this table's hierarchies, once per table
        (see `prepare.population`)."""
        held = self.populations.get(id(table))
        if held is None or held[0] is not table:
            qis, hs = self.quasi_identifiers, self.hierarchies
            counted = population(qis, hs, self.nulls, self.f0, self.count, table, model)
            held = (table, *counted)
            self.populations[id(table)] = held
        return held[1], held[2]

    def levels(self, levels: Levels | None) -> list[int]:
        qis = self.quasi_identifiers
        if levels is None:
            out = [0] * len(qis)
        elif isinstance(levels, str | bytes) or not isinstance(levels, Mapping | Sequence):
            raise ParameterError(
                "levels must be a mapping of quasi-identifier to level, or a sequence of "
                f"levels in quasi-identifier order; got {type(levels).__name__} {levels!r:.60}"
            )
        elif isinstance(levels, Mapping):
            unknown = sorted(set(levels) - set(qis))
            if unknown:
                raise ConfigError(
                    f"levels name {names_text(unknown)}, which "
                    + (
                        "is not a quasi-identifier"
                        if len(unknown) == 1
                        else "are not quasi-identifiers"
                    )
                    + f" (quasi-identifiers: {names_text(qis)})"
                )
            out = [as_int(f"the level of '{q}'", levels.get(q, 0)) for q in qis]
        else:
            names = [f"the level of '{q}'" for q in qis]
            names += [f"level {i}" for i in range(len(names), len(levels))]
            out = [as_int(n, v) for n, v in zip(names, levels, strict=False)]
        names = [f"'{q}'" for q in qis] + [f"entry {i}" for i in range(len(qis), len(out))]
        negative = [(q, v) for q, v in zip(names, out, strict=False) if v < 0]
        if negative:
            q, v = negative[0]
            raise ConfigError(f"levels must be >= 0: level {v} for {q} (levels {names_text(out)})")
        self.problem.check_levels(out)
        return out


def group_frame(prep: Prepared, levels: Sequence[int]) -> pl.DataFrame:
    """The node's QI groups as the core's codes (columns ``q0``, ``q1``, ...)
    and their sizes (``n``), from the core's rollup; with sensitive attributes
    a group spans several rows of the set, summed here. The frame is the
    library's own, so its column names cannot meet the user's."""
    codes, counts = prep.problem.group_columns(list(levels))
    cols: dict[str, Any] = {f"q{i}": pl.Series(c) for i, c in enumerate(codes)}
    cols["n"] = pl.Series(counts)
    frame = pl.DataFrame(cols)
    keys = [c for c in frame.columns if c != "n"]
    return frame.group_by(keys).agg(pl.col("n").sum())


def group_sizes(prep: Prepared, levels: Sequence[int]) -> pl.Series:
    """The sizes of the node's QI groups."""
    return group_frame(prep, levels).get_column("n").alias("count")
