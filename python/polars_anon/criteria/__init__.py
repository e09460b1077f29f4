"""Privacy models on sensitive attributes, combined with k through
``criteria=``: one module per family, as in ``src/criteria/``. Importing
this package registers every model in `TYPES` (by its ``kind``), which job
files and the command line read."""

from polars_anon.criteria.base import TYPES, Criteria, Criterion, listed, sensitive_of, specs
from polars_anon.criteria.l_diversity import (
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
)
from polars_anon.criteria.likeness import BetaLikeness, DeltaDisclosure
from polars_anon.criteria.p_sensitive import PAlphaSensitive, PPlusSensitive, PSensitive
from polars_anon.criteria.population import DPresence
from polars_anon.criteria.risk import AverageRisk, KMap, PopulationUniqueness, SampleUniqueness
from polars_anon.criteria.t_closeness import TCloseness

__all__ = [
    "TYPES",
    "AverageRisk",
    "BetaLikeness",
    "Criteria",
    "Criterion",
    "DPresence",
    "DeltaDisclosure",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "KMap",
    "PAlphaSensitive",
    "PPlusSensitive",
    "PSensitive",
    "PopulationUniqueness",
    "RecursiveCLDiversity",
    "SampleUniqueness",
    "TCloseness",
    "listed",
    "sensitive_of",
    "specs",
]
