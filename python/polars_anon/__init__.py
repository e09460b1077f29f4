"""polars-anon: k-anonymity for Polars.

Full-domain generalization over value generalization hierarchies with tuple
suppression, the Incognito family of searches, and the ``anon`` namespace on
DataFrame and LazyFrame (registered on import)::

    import polars_anon as pa
    lf, hierarchies = pa.datasets.adult()
    result = lf.anon.incognito(["age", "sex", "race"], hierarchies, k=5)
    release = result.apply(lf)
"""

from typing import TYPE_CHECKING, Any

from polars_anon import datasets
from polars_anon._api import check, generalize, incognito, mu_argus, search
from polars_anon._core import (
    AnonError,
    ConfigError,
    Hierarchy,
    HierarchyError,
    MissingValueError,
    NotAnonymousError,
    SearchTooLargeError,
    __version__,
)
from polars_anon._criteria import (
    Criterion,
    DistinctLDiversity,
    EntropyLDiversity,
    PAlphaSensitive,
    PPlusSensitive,
    PSensitive,
    RecursiveCLDiversity,
    TCloseness,
)
from polars_anon._frames import read_hierarchies
from polars_anon._freqset import FrequencySet, frequency_set
from polars_anon._local import LocalRecoding, local_recoding
from polars_anon._namespace import AnonFrame, AnonLazyFrame
from polars_anon._results import CRITERIA, CheckReport, MuArgusResult, SearchResult
from polars_anon._risk import RiskReport, risk

if TYPE_CHECKING:
    from polars_anon import hierarchy
    from polars_anon._job import Job, JobRun

# loaded on first use: the builders and job files are not needed to search,
# and a fresh process's import time counts (bench/run.py --e2e)
_LAZY = {
    "hierarchy": "polars_anon.hierarchy",
    "Job": "polars_anon._job",
    "JobRun": "polars_anon._job",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module = importlib.import_module(_LAZY[name])
        return module if name == "hierarchy" else getattr(module, name)
    raise AttributeError(f"module 'polars_anon' has no attribute {name!r}")


__all__ = [
    "CRITERIA",
    "AnonError",
    "AnonFrame",
    "AnonLazyFrame",
    "CheckReport",
    "ConfigError",
    "Criterion",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "FrequencySet",
    "Hierarchy",
    "HierarchyError",
    "Job",
    "JobRun",
    "LocalRecoding",
    "MissingValueError",
    "MuArgusResult",
    "NotAnonymousError",
    "PAlphaSensitive",
    "PPlusSensitive",
    "PSensitive",
    "RecursiveCLDiversity",
    "RiskReport",
    "SearchResult",
    "SearchTooLargeError",
    "TCloseness",
    "__version__",
    "check",
    "datasets",
    "frequency_set",
    "generalize",
    "hierarchy",
    "incognito",
    "local_recoding",
    "mu_argus",
    "read_hierarchies",
    "risk",
    "search",
]
