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

from polars_anon import _moved
from polars_anon._core import Hierarchy, __version__
from polars_anon._namespace import AnonFrame, AnonLazyFrame
from polars_anon.api.check import check, generalize
from polars_anon.api.mu_argus import mu_argus
from polars_anon.api.search import incognito, search
from polars_anon.criteria import (
    AverageRisk,
    BetaLikeness,
    Criterion,
    DeltaDisclosure,
    DistinctLDiversity,
    DPresence,
    EntropyLDiversity,
    KMap,
    PAlphaSensitive,
    PopulationUniqueness,
    PPlusSensitive,
    PSensitive,
    RecursiveCLDiversity,
    SampleUniqueness,
    TCloseness,
)
from polars_anon.exceptions import (
    AnonError,
    ConfigError,
    HierarchyError,
    InputChangedWarning,
    MissingValueError,
    NotAnonymousError,
    ParameterError,
    SearchTooLargeError,
    UndeclaredColumnsWarning,
)
from polars_anon.inputs.counts import FrequencySet
from polars_anon.inputs.hierarchies import read_hierarchies
from polars_anon.reports.check import CheckReport
from polars_anon.reports.release import ReleaseReport
from polars_anon.results.best import CRITERIA
from polars_anon.results.search import SearchResult
from polars_anon.roles.spec import Mask, Pseudonym

if TYPE_CHECKING:
    from polars_anon import datasets, hierarchy
    from polars_anon.api.counts import frequency_set
    from polars_anon.api.dp import differential_privacy
    from polars_anon.api.local import local_recoding
    from polars_anon.api.mondrian import mondrian
    from polars_anon.api.risk import risk
    from polars_anon.dp.parameters import dp_parameters
    from polars_anon.jobs.dp import DPRun
    from polars_anon.jobs.job import Job
    from polars_anon.jobs.mondrian import MondrianRun
    from polars_anon.jobs.resolved import JobRun
    from polars_anon.reports.risk import RiskReport
    from polars_anon.results.dp import DPResult
    from polars_anon.results.local import LocalRecoding
    from polars_anon.results.mondrian import MondrianResult
    from polars_anon.results.mu_argus import MuArgusResult
    from polars_anon.utility.classification import classification
    from polars_anon.utility.classification_report import ClassificationReport
    from polars_anon.utility.quality import quality
    from polars_anon.utility.report import QualityReport

# loaded on first use: the data sets, builders, job files, risk, local
# recoding, mu-Argus and frequency sets are not needed to search, and a
# fresh process's import time counts (bench/run.py --e2e)
_LAZY = {
    "datasets": "polars_anon.datasets",
    "hierarchy": "polars_anon.hierarchy",
    "frequency_set": "polars_anon.api.counts",
    "MuArgusResult": "polars_anon.results.mu_argus",
    "Job": "polars_anon.jobs.job",
    "JobRun": "polars_anon.jobs.resolved",
    "MondrianRun": "polars_anon.jobs.mondrian",
    "DPRun": "polars_anon.jobs.dp",
    "risk": "polars_anon.api.risk",
    "RiskReport": "polars_anon.reports.risk",
    "local_recoding": "polars_anon.api.local",
    "LocalRecoding": "polars_anon.results.local",
    "mondrian": "polars_anon.api.mondrian",
    "MondrianResult": "polars_anon.results.mondrian",
    "quality": "polars_anon.utility.quality",
    "classification": "polars_anon.utility.classification",
    "ClassificationReport": "polars_anon.utility.classification_report",
    "QualityReport": "polars_anon.utility.report",
    "differential_privacy": "polars_anon.api.dp",
    "dp_parameters": "polars_anon.dp.parameters",
    "DPResult": "polars_anon.results.dp",
}

# pickles of earlier releases name the modules of that layout
_moved.install()


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module = importlib.import_module(_LAZY[name])
        value = module if name in ("datasets", "hierarchy") else getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'polars_anon' has no attribute {name!r}")


def __dir__() -> list[str]:
    # the names imported on first use too: what a notebook completes
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "CRITERIA",
    "AnonError",
    "AnonFrame",
    "AnonLazyFrame",
    "AverageRisk",
    "BetaLikeness",
    "CheckReport",
    "ClassificationReport",
    "ConfigError",
    "Criterion",
    "DPResult",
    "DPRun",
    "DPresence",
    "DeltaDisclosure",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "FrequencySet",
    "Hierarchy",
    "HierarchyError",
    "InputChangedWarning",
    "Job",
    "JobRun",
    "KMap",
    "LocalRecoding",
    "Mask",
    "MissingValueError",
    "MondrianResult",
    "MondrianRun",
    "MuArgusResult",
    "NotAnonymousError",
    "PAlphaSensitive",
    "PPlusSensitive",
    "PSensitive",
    "ParameterError",
    "PopulationUniqueness",
    "Pseudonym",
    "QualityReport",
    "RecursiveCLDiversity",
    "ReleaseReport",
    "RiskReport",
    "SampleUniqueness",
    "SearchResult",
    "SearchTooLargeError",
    "TCloseness",
    "UndeclaredColumnsWarning",
    "__version__",
    "check",
    "classification",
    "datasets",
    "differential_privacy",
    "dp_parameters",
    "frequency_set",
    "generalize",
    "hierarchy",
    "incognito",
    "local_recoding",
    "mondrian",
    "mu_argus",
    "quality",
    "read_hierarchies",
    "risk",
    "search",
]
