from collections.abc import Callable, Sequence
from os import PathLike
from typing import final

import polars as pl

__all__ = [
    "ALGORITHMS",
    "AnonError",
    "ArrowColumn",
    "ConfigError",
    "CoreCriterion",
    "F0Batches",
    "Hierarchy",
    "HierarchyError",
    "IterationTrace",
    "MetricTable",
    "MissingValueError",
    "MondrianOutcome",
    "NodeMetrics",
    "NotAnonymousError",
    "Problem",
    "RiskFigures",
    "SearchOutcome",
    "SearchStats",
    "SearchTooLargeError",
    "__version__",
    "assess_risk",
    "dp_scores",
    "localpk",
    "mondrian",
    "mondrian_reapply",
    "pseudonyms",
    "sampled",
    "uniforms",
]

__version__: str
"""The version of polars-anon (the Rust core's, which is the package's)."""
# (algorithm, its variants with the default first), from the core's registry
ALGORITHMS: list[tuple[str, list[str]]]

# The exceptions' docstrings are the core's (`src/python/error.rs`); the
# documentation reads them from here.
class AnonError(Exception):
    """Base class of every polars-anon error."""

class HierarchyError(AnonError):
    """A hierarchy that cannot be used."""

class ConfigError(AnonError):
    """A request that does not fit the data."""

class MissingValueError(AnonError):
    """Values (or nulls) in a quasi-identifier that its hierarchy does not cover."""

class SearchTooLargeError(ConfigError):
    """A search that would hold more than its memory budget; nothing was searched."""

class NotAnonymousError(AnonError):
    """The requested release would break the privacy model."""

@final
class Hierarchy:
    """A value generalization hierarchy: a tree over one quasi-identifier's
    values, the leaves (level 0) at the bottom and one value at the top
    (ARX's ``*``). Each row runs from a leaf to the top, one label per level,
    as ARX's CSV layout has it (one line per leaf, most general last).

    A hierarchy is immutable, compared by its rows, printed with its height
    and the values per level, and pickled as its JSON form. Ragged rows,
    duplicate leaves, a value with two parents and several values at the top
    are a `HierarchyError` naming the source, the row and the value.
    """

    @staticmethod
    def from_rows(rows: list[list[str]], source: str | None = None) -> Hierarchy:
        """A hierarchy from its rows, one per leaf, each leaf first and most
        general last (all of one length); ``source`` names them in errors."""
    @staticmethod
    def from_csv(path: str | PathLike[str], sep: str | None = None) -> Hierarchy:
        """A hierarchy from a CSV file in ARX's layout (one row per leaf,
        fields separated by ``sep``, ``;`` by default)."""
    @staticmethod
    def from_csv_text(text: str, sep: str | None = None, source: str | None = None) -> Hierarchy:
        """A hierarchy from CSV text in ARX's layout (see `from_csv`); ``source``
        names it in errors."""
    @staticmethod
    def from_json(text: str) -> Hierarchy:
        """A hierarchy from the JSON that `to_json` writes."""
    def to_json(self) -> str:
        """The hierarchy as JSON (its rows), which `from_json` reads back."""
    def to_csv(self, sep: str = ";") -> str:
        """The hierarchy as CSV text in ARX's layout, fields separated by ``sep``."""
    @property
    def height(self) -> int:
        """The number of levels above the leaves (the top's level)."""
    @property
    def sizes(self) -> list[int]:
        """How many distinct values each level has, leaves first (without
        copying them, as `levels` does)."""
    @property
    def levels(self) -> list[list[str]]:
        """The distinct values of each level, leaves first, each level's in
        the order of its codes."""
    @property
    def leaves(self) -> list[str]:
        """The leaf values (level 0), in the order of their codes."""
    @property
    def rows(self) -> list[list[str]]:
        """One row per leaf: its label at each level, leaf first, top last."""
    def leaf_labels(self, level: int) -> list[str]:
        """Each leaf's label at ``level``, in the order of `leaves`."""
    def labels_at(self, level: int) -> list[str]:
        """The distinct labels of `level`, by code (one level of `levels`,
        without copying the others: a ZIP hierarchy's leaves are 100,000)."""
    def leaf_positions(
        self, level: int, values: list[str]
    ) -> tuple[list[int], list[int], list[str]]:
        """Which of `values` are leaves, as their positions in `values` in leaf
        order, and the labels of those leaves at `level`: each as a code into
        the distinct labels, which come last (in order of first use). The
        mapping a release needs for the values a table holds, without copying
        every leaf of a large hierarchy, or a label for each leaf, into
        Python. (Matched by a plain set of the values, not through the leaf
        index that encoded them, so that a release's check does not share its
        lookup.)"""
    def leaf_mapping(self, level: int, codes: list[int]) -> tuple[list[str], list[int], list[str]]:
        """The leaves `codes` (as text) and their labels at `level`, as
        `leaf_positions` gives them."""
    def encode(self, column: str, values: list[str | None]) -> list[int]:
        """Each value's leaf code; values the hierarchy lacks, or nulls, are a
        `MissingValueError` naming ``column`` and the values."""
    def __eq__(self, value: object, /) -> bool: ...
    def __reduce__(self) -> tuple[Callable[[str], Hierarchy], tuple[str]]: ...

@final
class CoreCriterion:
    @staticmethod
    def p_sensitive(p: int, attr: int) -> CoreCriterion: ...
    @staticmethod
    def p_plus_sensitive(p: int, attr: int, category: list[int]) -> CoreCriterion: ...
    @staticmethod
    def p_alpha_sensitive(
        p: int, alpha: float, attr: int, category: list[int], categories: int
    ) -> CoreCriterion: ...
    @staticmethod
    def distinct_l(l: int, attr: int) -> CoreCriterion: ...
    @staticmethod
    def entropy_l(l: float, attr: int) -> CoreCriterion: ...
    @staticmethod
    def recursive_cl(c: float, l: int, attr: int) -> CoreCriterion: ...
    @staticmethod
    def t_closeness_equal(t: float, attr: int) -> CoreCriterion: ...
    @staticmethod
    def t_closeness_ordered(t: float, attr: int, rank: list[int]) -> CoreCriterion: ...
    @staticmethod
    def t_closeness_hierarchical(
        t: float, attr: int, leaf_of: list[int], parents: list[list[int]], height: int
    ) -> CoreCriterion: ...
    @staticmethod
    def beta_likeness(beta: float, attr: int, enhanced: bool) -> CoreCriterion: ...
    @staticmethod
    def delta_disclosure(delta: float, attr: int) -> CoreCriterion: ...
    @staticmethod
    def average_risk(max_risk: float) -> CoreCriterion: ...
    @staticmethod
    def sample_uniqueness(max_share: float) -> CoreCriterion: ...
    @staticmethod
    def population_uniqueness(max_share: float, population: float, model: str) -> CoreCriterion: ...
    @staticmethod
    def kmap(k: int, population: float, significance: float, truncated: bool) -> CoreCriterion: ...
    @staticmethod
    def kmap_table(k: int, population: Problem, outside: int) -> CoreCriterion: ...
    @staticmethod
    def d_presence(
        d_min: float, d_max: float, population: Problem, outside: int
    ) -> CoreCriterion: ...
    @property
    def name(self) -> str: ...
    @property
    def monotone(self) -> bool: ...
    @property
    def monotone_with_suppression(self) -> bool: ...
    @property
    def whole_release(self) -> bool: ...
    @property
    def against_population(self) -> bool: ...

@final
class NodeMetrics:
    @property
    def groups(self) -> int: ...
    @property
    def released_groups(self) -> int: ...
    @property
    def min_group_size(self) -> int: ...
    @property
    def suppressed(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def precision(self) -> float: ...
    @property
    def discernibility(self) -> float: ...
    @property
    def cavg(self) -> float: ...
    @property
    def distortion(self) -> float: ...
    @property
    def loss(self) -> float: ...

@final
class MetricTable:
    def columns(self) -> list[tuple[str, str, list[int] | list[float]]]: ...
    def weighted_loss(self, weights: list[float]) -> list[float]: ...
    def values(self) -> list[float] | None: ...
    def __len__(self) -> int: ...

@final
class SearchStats:
    def __new__(
        cls,
        nodes_checked: int,
        nodes_marked: int,
        nodes_projected: int,
        table_scans: int,
        rows_scanned: int,
        rows_rolled_up: int,
        cuboids: int,
        intermediate_sets: int,
        candidates_per_iteration: list[int],
        phases: list[tuple[str, float]],
    ) -> SearchStats: ...
    def __reduce__(self) -> tuple[type[SearchStats], tuple[object, ...]]: ...
    @property
    def nodes_checked(self) -> int: ...
    @property
    def nodes_marked(self) -> int: ...
    @property
    def nodes_projected(self) -> int: ...
    @property
    def table_scans(self) -> int: ...
    @property
    def rows_scanned(self) -> int: ...
    @property
    def rows_rolled_up(self) -> int: ...
    @property
    def cuboids(self) -> int: ...
    @property
    def intermediate_sets(self) -> int: ...
    @property
    def candidates_per_iteration(self) -> list[int]: ...
    @property
    def phase_ms(self) -> dict[str, float]: ...

@final
class IterationTrace:
    def __new__(
        cls,
        attrs: list[list[int]],
        levels: list[list[int]],
        root: list[bool],
        checked: list[bool],
        marked: list[bool],
        anonymous: list[bool],
        edges: list[tuple[int, int]],
    ) -> IterationTrace: ...
    def __reduce__(self) -> tuple[type[IterationTrace], tuple[object, ...]]: ...
    @property
    def attrs(self) -> list[list[int]]: ...
    @property
    def levels(self) -> list[list[int]]: ...
    @property
    def root(self) -> list[bool]: ...
    @property
    def checked(self) -> list[bool]: ...
    @property
    def marked(self) -> list[bool]: ...
    @property
    def anonymous(self) -> list[bool]: ...
    @property
    def edges(self) -> list[tuple[int, int]]: ...

@final
class SearchOutcome:
    @property
    def anonymous(self) -> list[list[int]]: ...
    @property
    def stopped(self) -> str | None: ...
    @property
    def minimal(self) -> list[list[int]]: ...
    @property
    def rejected(self) -> list[list[int]]: ...
    def anonymous_at(self, indices: list[int]) -> list[list[int]]: ...
    @property
    def complete(self) -> bool: ...
    @property
    def proven_optimal(self) -> bool: ...
    @property
    def stats(self) -> SearchStats: ...
    @property
    def trace(self) -> list[IterationTrace]: ...

@final
class Problem:
    def __new__(
        cls,
        names: list[str],
        hierarchies: list[Hierarchy],
        codes: Sequence[pl.Series | bytes],
        counts: pl.Series | bytes | None,
        sensitive: Sequence[tuple[str, list[str], pl.Series | bytes]] = ...,
        floors: tuple[list[int], int, int] | None = None,
    ) -> Problem: ...
    @property
    def rows(self) -> int: ...
    @property
    def distinct(self) -> int: ...
    @property
    def heights(self) -> list[int]: ...
    def check_levels(self, levels: list[int]) -> None: ...
    def present_leaves(self, attr: int) -> list[int] | None: ...
    def evaluate(
        self,
        levels: list[int],
        k: int,
        engine: str = "auto",
        criteria: list[CoreCriterion] = ...,
    ) -> NodeMetrics: ...
    def suppressed_groups(
        self, levels: list[int], k: int, criteria: list[CoreCriterion] = ...
    ) -> list[list[int]]: ...
    def suppression_reasons(
        self, levels: list[int], k: int, criteria: list[CoreCriterion] = ...
    ) -> tuple[list[list[int]], list[int], list[str]]: ...
    def groups(self, levels: list[int]) -> tuple[list[list[int]], list[int]]: ...
    def group_columns(self, levels: list[int]) -> tuple[list[ArrowColumn], ArrowColumn]: ...
    def evaluate_many(
        self, nodes: list[list[int]], k: int, criteria: list[CoreCriterion] = ...
    ) -> MetricTable: ...
    def best_of(
        self,
        nodes: list[list[int]] | SearchOutcome,
        k: int,
        criteria: list[CoreCriterion],
        metric: str,
        weights: list[float] | None = ...,
        max_suppression: int | None = ...,
    ) -> tuple[list[int], MetricTable]: ...
    def search(
        self,
        algorithm: str,
        variant: str | None,
        k: int,
        max_suppression: int,
        engine: str = "auto",
        trace: bool = False,
        progress: Callable[[int, float, float | None], object] | None = None,
        criteria: list[CoreCriterion] = ...,
        infer_projections: bool = True,
        time_limit: float | None = None,
        memory_budget: int = ...,
        metric: str = "loss",
        seed: int = 0,
    ) -> SearchOutcome: ...

@final
class F0Batches:
    def __new__(
        cls,
        names: list[str],
        hierarchies: list[Hierarchy],
        sensitive: Sequence[tuple[str, list[str]]] = ...,
    ) -> F0Batches: ...
    def add(
        self, codes: Sequence[pl.Series | bytes], sensitive: Sequence[pl.Series | bytes] = ...
    ) -> None: ...
    @property
    def rows(self) -> int: ...
    @property
    def groups(self) -> int: ...
    def problem(self) -> Problem: ...

def localpk(
    hierarchies: list[Hierarchy],
    qi: Sequence[pl.Series | bytes],
    sensitive: Sequence[pl.Series | bytes],
    globals: list[list[float]],
    k: int,
    criteria: list[CoreCriterion],
) -> tuple[list[bytes], list[list[int]], int, float]: ...

@final
class MondrianOutcome:
    @property
    def rows(self) -> list[int]: ...
    @property
    def partition(self) -> list[int]: ...
    @property
    def counts(self) -> list[int]: ...
    @property
    def codes(self) -> list[list[int]]: ...
    @property
    def sensitive(self) -> list[list[int]]: ...
    @property
    def labels(self) -> list[list[str]]: ...
    @property
    def ranges(self) -> list[list[tuple[float, float]]]: ...
    @property
    def sizes(self) -> list[int]: ...
    @property
    def cell_loss(self) -> list[list[float]]: ...
    @property
    def attribute_loss(self) -> list[float]: ...
    @property
    def loss(self) -> float: ...
    @property
    def tree_parent(self) -> list[int | None]: ...
    @property
    def tree_attribute(self) -> list[int | None]: ...
    @property
    def tree_test(self) -> list[str]: ...
    @property
    def tree_number(self) -> list[float | None]: ...
    @property
    def tree_label(self) -> list[str | None]: ...
    @property
    def tree_level(self) -> list[int | None]: ...
    @property
    def tree_partition(self) -> list[int | None]: ...

def mondrian(
    problem: Problem,
    kinds: list[str],
    values: list[list[float] | None],
    k: int,
    criteria: list[CoreCriterion] = ...,
    relaxed: bool = False,
) -> MondrianOutcome: ...
def mondrian_reapply(
    problem: Problem,
    kinds: list[str],
    values: list[list[float] | None],
    k: int,
    parent: list[int | None],
    attribute: list[int | None],
    test: list[str],
    number: list[float | None],
    label: list[str | None],
    level: list[int | None],
    criteria: list[CoreCriterion] = ...,
    coarsen: bool = False,
) -> MondrianOutcome: ...

@final
class RiskFigures:
    @property
    def records(self) -> int: ...
    @property
    def classes(self) -> int: ...
    @property
    def highest_prosecutor_risk(self) -> float: ...
    @property
    def average_prosecutor_risk(self) -> float: ...
    @property
    def records_at_risk(self) -> float: ...
    @property
    def classes_at_risk(self) -> float: ...
    @property
    def sample_uniques(self) -> float: ...
    @property
    def marketer_risk(self) -> float: ...
    @property
    def highest_journalist_risk(self) -> float: ...
    @property
    def journalist_records_at_risk(self) -> float: ...
    @property
    def population_size(self) -> float: ...
    @property
    def sampling_fraction(self) -> float: ...
    @property
    def population_uniques(self) -> float: ...
    @property
    def population_model(self) -> str: ...
    @property
    def pitman(self) -> float | None: ...
    @property
    def zayatz(self) -> float | None: ...
    @property
    def snb(self) -> float | None: ...

def assess_risk(
    sizes: list[int],
    threshold: float,
    population_size: float | None = None,
    matched: list[int] | None = None,
    population_sizes: list[int] | None = None,
) -> RiskFigures: ...

@final
class ArrowColumn:
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...

def pseudonyms(key: bytes, column: object, length: int) -> ArrowColumn: ...
def sampled(key: bytes, index: object, beta: float) -> ArrowColumn: ...
def uniforms(key: bytes, start: int, n: int) -> list[float]: ...
def dp_scores(
    problem: Problem, nodes: list[list[int]], k: int, metric: str, unsampled: int
) -> list[float]: ...
