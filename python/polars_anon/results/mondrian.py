"""Mondrian's answer (`polars_anon.mondrian`): the final partitions of F0,
their cell-level loss, and the release, checked before it is handed back."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import polars as pl

from polars_anon._core import AnonError, ConfigError, CoreCriterion, MondrianOutcome
from polars_anon.criteria.base import Criterion
from polars_anon.inputs.frames import as_lazy, fresh_name
from polars_anon.inputs.nulls import text
from polars_anon.prepare.prepared import Prepared
from polars_anon.release.build import recheck
from polars_anon.release.guard import Guarded
from polars_anon.reports.render import aligned, table_html
from polars_anon.roles.fates import fates
from polars_anon.roles.polars import identify
from polars_anon.roles.resolve import resolve
from polars_anon.roles.spec import Identifiers, Roles, roles_of

# what a quasi-identifier becomes in the release
RECODED = "recoded by Mondrian: its partition's range, hierarchy node or value set"


@dataclass(frozen=True)
class MondrianResult:
    """Mondrian's final partitions (LeFevre, DeWitt and Ramakrishnan 2006,
    strict): each holds at least k records and meets the criteria, and no
    attribute can be split further while keeping them.

    ``partitions``: how many; ``groups``: one row a partition, its cells as
    text and its ``count``; ``loss``: the cell-level loss of the release
    (see `polars_anon.mondrian`), ``attribute_loss`` by quasi-identifier;
    ``apply()``: the release."""

    prep: Prepared = field(repr=False)
    k: int
    criteria: list[Criterion]
    mode: str
    # quasi-identifier -> "numeric", "hierarchy" or "set"
    kinds: dict[str, str]
    outcome: MondrianOutcome = field(repr=False)
    model: list[CoreCriterion] = field(repr=False, default_factory=list)
    roles: Roles = field(repr=False, default_factory=Roles)

    @property
    def quasi_identifiers(self) -> list[str]:
        return self.prep.quasi_identifiers

    @property
    def partitions(self) -> int:
        return len(self.outcome.sizes)

    @property
    def loss(self) -> float:
        return self.outcome.loss

    @property
    def attribute_loss(self) -> dict[str, float]:
        return dict(zip(self.quasi_identifiers, self.outcome.attribute_loss, strict=True))

    @property
    def groups(self) -> pl.DataFrame:
        """One row a partition: each quasi-identifier's cell as text, and
        ``count``, its records."""
        cols: dict[str, Any] = {
            q: pl.Series(q, labels, dtype=pl.String)
            for q, labels in zip(self.quasi_identifiers, self.outcome.labels, strict=True)
        }
        count = fresh_name("count", list(cols))
        cols[count] = pl.Series(count, self.outcome.sizes, dtype=pl.UInt64)
        return pl.DataFrame(cols)

    @cached_property
    def mapping(self) -> tuple[list[str], list[str], pl.DataFrame]:
        """Each distinct combination of the quasi-identifiers' values (as
        text, the keys) with its partition's cells (the labels): the key and
        label columns' names (unlike the table's) and the frame."""
        prep, out = self.prep, self.outcome
        taken = prep.lazy.collect_schema().names()
        keys: list[str] = []
        labels: list[str] = []
        for i in range(len(prep.quasi_identifiers)):
            keys.append(fresh_name(f"__polars_anon_key_{i}", [*taken, *keys]))
        for i in range(len(prep.quasi_identifiers)):
            labels.append(fresh_name(f"__polars_anon_label_{i}", [*taken, *keys, *labels]))
        # each of the outcome's columns crosses from the core once
        partition = pl.Series(out.partition, dtype=pl.UInt32)
        codes, cells = out.codes, out.labels
        cols: dict[str, pl.Series] = {}
        for i, h in enumerate(prep.hierarchies):
            leaves = pl.Series(h.leaves, dtype=pl.String)
            cols[keys[i]] = leaves.gather(pl.Series(codes[i], dtype=pl.UInt32))
            cols[labels[i]] = pl.Series(cells[i], dtype=pl.String).gather(partition)
        # rows of F0 that differ in their sensitive values only are one key
        return keys, labels, pl.DataFrame(cols).unique(keys, maintain_order=True)

    def _labelled(self, lf: pl.LazyFrame) -> pl.LazyFrame:
        """`lf` with each quasi-identifier replaced by its partition's cell
        (null where its values are none the partitions hold)."""
        qis = self.quasi_identifiers
        keys, labels, mapping = self.mapping
        return (
            lf.with_columns([text(pl.col(q)).alias(key) for q, key in zip(qis, keys, strict=True)])
            .join(mapping.lazy(), on=keys, how="left", maintain_order="left")
            .with_columns([pl.col(lab).alias(q) for q, lab in zip(qis, labels, strict=True)])
            .drop(keys + labels)
        )

    def expected(self) -> pl.DataFrame:
        """The release's groups (cells and sensitive values) and their sizes,
        counted by Polars from F0 through the mapping, and checked: every
        record in a partition, every group of at least k records, and the
        criteria met (through a fresh core problem over the cells)."""
        prep, count = self.prep, self.prep.count
        qis, sens = self.quasi_identifiers, prep.sensitive
        released = self._labelled(prep.weighted.lazy()).with_columns(
            [pl.col(s).cast(pl.String) for s in sens]
        )
        groups = (
            released.group_by(qis + sens)
            .agg(pl.col(count).sum().cast(pl.UInt32))
            .sort(qis + sens)
            .collect()
        )
        unmapped = groups.filter(pl.any_horizontal(pl.col(qis).is_null()))
        if unmapped.height:
            raise AnonError(
                "internal check failed: the partitions do not cover the table's values; "
                "refusing to release"
            )
        if int(groups.get_column(count).sum()) != prep.rows:
            raise AnonError(
                f"internal check failed: the partitions hold {int(groups.get_column(count).sum())}"
                f" records of the table's {prep.rows}; refusing to release"
            )
        sizes = groups.group_by(qis).agg(pl.col(count).sum()).get_column(count)
        smallest = int(sizes.min())  # type: ignore[arg-type]
        if sizes.len() != self.partitions or smallest < self.k:
            raise AnonError(
                f"internal check failed: the release has {sizes.len()} groups of at least "
                f"{smallest} records, for {self.partitions} partitions and k = {self.k}; "
                "refusing to release"
            )
        if self.model:
            recheck(prep, released, self.k, self.model)
        return groups

    def apply(
        self,
        data: Any = None,
        identifiers: Identifiers | None = None,
        insensitive: list[str] | None = None,
    ) -> pl.LazyFrame:
        """The release: a LazyFrame of `data` (the table Mondrian read when
        None) whose quasi-identifiers are text: each record's partition's
        range (``[20-29]``, or the one value it holds), hierarchy node label,
        or value set (``{a,b}``, or the one value). Its groups are checked
        on F0 before it is returned, and again each time it is collected (a
        source changed since is refused: `NotAnonymousError`). The other
        columns follow their roles (``identifiers``, ``insensitive``: those
        given to `mondrian` unless given here)."""
        prep = self.prep
        if prep.engine != "polars":
            raise ConfigError(
                "Mondrian's release is built on Polars only, for now: "
                + (
                    "this was partitioned from a frequency set, which has no rows to release"
                    if prep.engine == "counts"
                    else f"collect the {prep.engine} table into Polars first"
                )
            )
        if identifiers is None and insensitive is None:
            roles = self.roles
        else:
            roles = roles_of(identifiers, insensitive)
        lazy = prep.lazy if data is None else as_lazy(data)
        qis, sens = self.quasi_identifiers, prep.sensitive
        resolved = resolve(lazy, "polars", prep.rows, qis, sens, roles)
        expected = self.expected()
        plan = identify(self._labelled(lazy), resolved.ops)
        release = Guarded(plan, qis + sens, expected, prep.count, self.k, qis)
        columns = fates(
            resolved.columns,
            dict.fromkeys(qis, 1),
            dict.fromkeys(qis, 1),
            0,
            prep.rows,
            sens,
            roles,
            resolved.undeclared,
        )
        release.columns = columns.with_columns(
            pl.when(pl.col("role") == "quasi-identifier")
            .then(pl.lit(RECODED))
            .otherwise(pl.col("released_as"))
            .alias("released_as")
        )
        return release.lazy()

    def _rows(self) -> list[tuple[str, Any]]:
        sizes = self.outcome.sizes
        return [
            (
                "quasi-identifiers",
                ", ".join(f"{q} ({kind})" for q, kind in self.kinds.items()),
            ),
            ("model", f"k = {self.k}" + "".join(f", {c!r}" for c in self.criteria)),
            ("mode", self.mode),
            ("records", self.prep.rows),
            (
                "partitions",
                f"{self.partitions} (smallest {min(sizes)}, largest {max(sizes)} records)",
            ),
            ("loss", f"{self.loss:.4f}"),
            (
                "loss by attribute",
                "  ".join(f"{q}={v:.4f}" for q, v in self.attribute_loss.items()),
            ),
        ]

    def __repr__(self) -> str:
        return aligned("MondrianResult", self._rows())

    def _repr_html_(self) -> str:
        return table_html("MondrianResult", self._rows()) + self.groups.head(10)._repr_html_()
