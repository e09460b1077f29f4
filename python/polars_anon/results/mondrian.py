"""Mondrian's answer (`polars_anon.mondrian`): the final partitions of F0,
their cell-level loss, and the release, checked before it is handed back.
A pickle keeps what it takes to partition again (`partition`), not the
partition."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_anon import engines
from polars_anon._core import AnonError, ConfigError, CoreCriterion, MondrianOutcome
from polars_anon.criteria.base import Criterion, specs
from polars_anon.inputs.counts import FrequencySet
from polars_anon.inputs.frames import as_lazy, fresh_name, zeros_folded
from polars_anon.inputs.nulls import text
from polars_anon.inputs.params import as_bool
from polars_anon.prepare.f0 import prepare
from polars_anon.prepare.prepared import Prepared
from polars_anon.release.build import recheck
from polars_anon.release.guard import Guarded
from polars_anon.release.partitioned import on_engine
from polars_anon.reports.render import aligned, table_html
from polars_anon.results import mondrian_splits, pieces
from polars_anon.results.bounds import with_bounds
from polars_anon.results.mondrian_cuts import partition, units_of
from polars_anon.roles.fates import fates
from polars_anon.roles.polars import identify
from polars_anon.roles.resolve import resolve
from polars_anon.roles.spec import Identifiers, Roles, roles_of

if TYPE_CHECKING:
    from polars_anon.utility.report import QualityReport

# what a quasi-identifier becomes in the release
RECODED = "recoded by Mondrian: its partition's range, hierarchy node or value set"


def digest(outcome: MondrianOutcome) -> str:
    """The partitions' cells and sizes, in no particular order, hashed: what
    a pickle checks its re-run against."""
    rows = sorted(zip(*outcome.labels, outcome.sizes, strict=True))
    return hashlib.sha256(repr(rows).encode("utf8")).hexdigest()


@dataclass(frozen=True)
class MondrianResult:
    """Mondrian's final partitions (LeFevre, DeWitt and Ramakrishnan 2006,
    strict or relaxed): each holds at least k records and meets the criteria, and no
    attribute can be split further while keeping them.

    ``partitions``: how many; ``groups``: one row a partition, its cells as
    text and its ``count`` (relaxed, two partitions may share their cells:
    the release then holds them as one group); ``loss``: the cell-level loss of the release
    (see `polars_anon.mondrian`), ``attribute_loss`` by quasi-identifier;
    ``apply()``: the release.

    A pickle holds what it takes to partition again, not the partition: the
    table's lazy plan (an in-memory table's rows, or a scan's path; off
    Polars, its frequency set), the quasi-identifiers and how each is split,
    the hierarchies given, the model and the roles, and a hash of the
    partitions. Unpickling prepares the table and runs the deterministic
    split again, and refuses (`AnonError`) when it no longer gives the
    partitions the pickle hashed (a scanned file changed since)."""

    prep: Prepared = field(repr=False)
    k: int
    criteria: list[Criterion]
    mode: str
    # quasi-identifier -> "numeric", "hierarchy" or "set"
    kinds: dict[str, str]
    outcome: MondrianOutcome = field(repr=False)
    model: list[CoreCriterion] = field(repr=False, default_factory=list)
    roles: Roles = field(repr=False, default_factory=Roles)
    # the recorded splits this partition re-applied (None: partitioned anew),
    # and whether the splits whose parts failed were undone
    applied: pl.DataFrame | None = field(repr=False, default=None)
    coarsen: bool = field(repr=False, default=False)

    @property
    def quasi_identifiers(self) -> list[str]:
        """The columns partitioned."""
        return self.prep.quasi_identifiers

    @property
    def partitions(self) -> int:
        """The number of final partitions."""
        return len(self.outcome.sizes)

    @property
    def loss(self) -> float:
        """ARX's cell-level loss of the release: the mean of `attribute_loss`."""
        return self.outcome.loss

    @property
    def attribute_loss(self) -> dict[str, float]:
        """Each quasi-identifier's loss, its cells' costs averaged over the records."""
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

    @property
    def splits(self) -> pl.DataFrame:
        """The split tree, a node a row (`results.mondrian_splits`): what
        ``pa.mondrian(new_table, ..., splits=result.splits)`` and a job
        re-apply to another table. Strict partitions only."""
        if self.applied is not None:
            # the partitions each leaf holds now
            held = pl.Series("partition", self.outcome.tree_partition, dtype=pl.UInt32)
            return mondrian_splits.pruned(self.applied.with_columns(held))
        if self.relaxed:
            raise ConfigError(
                "a relaxed partition divides the records of one value between partitions, so "
                "its splits route no other table; partition with mode='strict' to re-apply them"
            )
        kinds = [self.kinds[q] for q in self.quasi_identifiers]
        leaves = [list(h.leaves) for h in self.prep.hierarchies]
        units = units_of(self.quasi_identifiers, kinds, leaves)
        splits = mondrian_splits.frame(self.outcome, self.quasi_identifiers, units)
        why = mondrian_splits.unroutable(splits, self.quasi_identifiers, kinds, leaves)
        if why is not None:
            raise ConfigError(f"these splits cannot be re-applied: {why}")
        return splits

    @property
    def relaxed(self) -> bool:
        """Whether the table was partitioned in relaxed mode."""
        return self.mode == "relaxed"

    @cached_property
    def mapping(self) -> tuple[list[str], list[str], pl.DataFrame]:
        """The keys' and labels' column names and the frame that maps each
        record to its partition's cells (`results.pieces.mapping`)."""
        return pieces.mapping(self.prep, self.outcome, self.relaxed)

    def quality(self) -> QualityReport:
        """ARX's quality statistics (`polars_anon.quality`) of the release
        of the table Mondrian read, each measure whose definition applies to
        its cells (the others n/a: generalization intensity of a range or a
        set); granularity is 1 - `attribute_loss`
        (`polars_anon.utility.mondrian_quality`). Strict or relaxed."""
        from polars_anon.utility.mondrian_quality import mondrian_quality

        return mondrian_quality(self.prep, self.kinds, self.outcome)

    def _labelled(self, lf: pl.LazyFrame) -> pl.LazyFrame:
        """`lf` with each quasi-identifier replaced by its partition's cell
        (null where its values are none the partitions hold); relaxed, each
        record's partition by its rank among the records of its combination
        of values, in the table's order."""
        qis = self.quasi_identifiers
        keys, labels, mapping = self.mapping
        names = qis + (self.prep.sensitive if self.relaxed else [])
        lf = lf.with_columns(
            [text(pl.col(q)).alias(key) for q, key in zip(names, keys, strict=True)]
        )
        if self.relaxed:
            rank = fresh_name("__polars_anon_rank", lf.collect_schema().names())
            lf = lf.with_columns(pl.int_range(pl.len(), dtype=pl.UInt64).over(keys).alias(rank))
            lf = lf.join(mapping.lazy(), on=keys, how="left", maintain_order="left").filter(
                pl.col(pieces.START).is_null()
                | pl.col(rank).is_between(pl.col(pieces.START), pl.col(pieces.END), "left")
            )
            lf = lf.drop(rank, pieces.START, pieces.END)
        else:
            lf = lf.join(mapping.lazy(), on=keys, how="left", maintain_order="left")
        return lf.with_columns(
            [pl.col(lab).alias(q) for q, lab in zip(qis, labels, strict=True)]
        ).drop(keys + labels)

    def _released(self) -> pl.LazyFrame:
        """The release's records as cells, sensitive values (as text) and
        counts, from F0: through the mapping; relaxed, from the partitions'
        pieces (`results.pieces.released`)."""
        if self.relaxed:
            return pieces.released(self.prep, *self.mapping)
        return self._labelled(self.prep.weighted.lazy()).with_columns(
            [pl.col(s).cast(pl.String) for s in self.prep.sensitive]
        )

    def expected(self) -> pl.DataFrame:
        """The release's groups (cells and sensitive values) and their sizes,
        counted by Polars from F0 through the mapping, and checked: every
        record in a partition, every group of at least k records, and the
        criteria met (through a fresh core problem over the cells)."""
        prep, count = self.prep, self.prep.count
        qis, sens = self.quasi_identifiers, prep.sensitive
        released = self._released()
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
        # relaxed, two partitions may hold the same cells (a value on both
        # sides of a median cut): one group of the release
        matched = sizes.len() <= self.partitions if self.relaxed else sizes.len() == self.partitions
        if not matched or smallest < self.k:
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
        numeric_bounds: bool = False,
    ) -> Any:
        """The release: a LazyFrame of `data` (the table Mondrian read when
        None) whose quasi-identifiers are text: each record's partition's
        range (``[20-29]``, or the one value it holds), hierarchy node label,
        or value set (``{a,b}``, or the one value); with ``numeric_bounds``,
        each numeric one's range also as two columns beside it, ``<q>_lower``
        and ``<q>_upper`` (Float64, or the column's type for a date or a
        datetime: `results.bounds`). Its groups are checked on F0 before it is
        returned, and again each time it is collected (a source changed since
        is refused: `NotAnonymousError`). The other columns follow their roles
        (``identifiers``, ``insensitive``: added to those given to `mondrian`;
        an identifier of those made insensitive is refused).

        A DuckDB relation or Spark DataFrame is released where it lives (a
        relation, a DataFrame: a snapshot), by one null-safe join with its
        distinct quasi-identifier combinations and their partitions' labels;
        its groups are counted there and must be the ones checked on F0.
        Relaxed, a combination divided between partitions is joined by each
        record's number among its combination's records, numbered there in
        no particular order (`release.partitioned`): the same groups as the
        Polars release's, not always the same records in each."""
        roles = self.roles.merged(roles_of(identifiers, insensitive))
        if self.prep.engine in engines.PREFIXES:
            if numeric_bounds:
                raise ConfigError("numeric_bounds: a release on DuckDB or Spark has none")
            ranks = (pieces.START, pieces.END) if self.relaxed else None
            return on_engine(self.prep, self.mapping, self.expected, data, roles, ranks)
        out = self.guarded(data, roles).lazy()
        if as_bool("numeric_bounds", numeric_bounds):
            return with_bounds(out, self.prep, self.kinds, self.outcome)
        return out

    def guarded(self, data: Any = None, roles: Roles | None = None) -> Guarded:
        """The release as `apply` builds it, before it is handed out as a
        LazyFrame: a `Guarded` plan, which checks itself when collected and
        writes a file proven on what it wrote (`Guarded.write`, as job
        files write releases). `roles`: those given to `mondrian` when None."""
        prep = self.prep
        if prep.engine != "polars":
            raise ConfigError(
                "this was partitioned from a frequency set, which has no rows to release"
                if prep.engine == "counts"
                else f"a guarded Polars plan needs a Polars table: apply() releases the "
                f"{prep.engine} table where it lives"
            )
        roles = self.roles if roles is None else roles
        qis, sens = self.quasi_identifiers, prep.sensitive
        lazy = prep.lazy if data is None else zeros_folded(as_lazy(data), qis + sens)
        resolved = resolve(lazy, "polars", prep.rows, qis, sens, roles)
        expected = self.expected()
        plan = identify(self._labelled(lazy), resolved.ops)
        release = Guarded(
            plan, qis + sens, expected, prep.count, self.k, qis, resolved.undeclared, prep.rows
        )
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
        return release

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle keeps: what it takes to partition again (see the
        class doc), not the partition, F0 nor the core's problem."""
        prep = self.prep
        qis = self.quasi_identifiers
        # off Polars the table is a connection's: its frequency set instead
        source = prep.lazy if prep.engine == "polars" else FrequencySet(prep.f0, prep.count)
        given = {
            q: h for q, h in zip(qis, prep.hierarchies, strict=True) if self.kinds[q] == "hierarchy"
        }
        return {
            "source": (source, qis, given, prep.sensitive, prep.nulls),
            "k": self.k,
            "criteria": self.criteria,
            "mode": self.mode,
            "kinds": self.kinds,
            "roles": self.roles,
            "partitions": self.partitions,
            "loss": self.loss,
            "digest": digest(self.outcome),
            "splits": self.applied,
            "coarsen": self.coarsen,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        source, qis, given, sensitive, nulls = state["source"]
        prep = prepare(source, qis, given, sensitive, nulls)
        model = specs(state["criteria"], prep.sensitive_values, rows=prep.rows)
        relaxed, applied, coarsen = (
            state["mode"] == "relaxed",
            state.get("splits"),
            state.get("coarsen", False),
        )
        outcome = partition(prep, state["kinds"], state["k"], model, relaxed, applied, coarsen)
        if digest(outcome) != state["digest"]:
            raise AnonError(
                f"this pickled Mondrian result does not hold on its table any more: the table "
                f"was partitioned into {state['partitions']} parts (loss "
                f"{state['loss']:.4f}), and partitioning it again gives "
                f"{len(outcome.sizes)} (loss {outcome.loss:.4f}); its source changed since it "
                "was pickled. Run pa.mondrian on the table again"
            )
        fields = {
            "prep": prep,
            "k": state["k"],
            "criteria": state["criteria"],
            "mode": state["mode"],
            "kinds": state["kinds"],
            "outcome": outcome,
            "model": model,
            "roles": state["roles"],
            "applied": applied,
            "coarsen": coarsen,
        }
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def _rows(self) -> list[tuple[str, Any]]:
        sizes = self.outcome.sizes
        shared = ""
        if self.relaxed:
            # a value divided between partitions can leave two with the same cells
            cells = len(set(zip(*self.outcome.labels, strict=True)))
            if cells < self.partitions:
                shared = f"; {cells} groups in the release (some share their cells)"
        return [
            (
                "quasi-identifiers",
                ", ".join(f"{q} ({kind})" for q, kind in self.kinds.items()),
            ),
            ("model", f"k = {self.k}" + "".join(f"; {c.describe()}" for c in self.criteria)),
            ("mode", self.mode),
            ("records", f"{self.prep.rows:,}"),
            (
                "partitions",
                f"{self.partitions:,} (smallest {min(sizes):,}, largest {max(sizes):,} records)"
                + shared,
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
