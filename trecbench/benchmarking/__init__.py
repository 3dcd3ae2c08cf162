"""The TREC R-task benchmark workflow: retrieval modes from one configuration file.

:func:`load_benchmark_config` reads a TOML or YAML file (schema
``trecbench/schemas/benchmark_config.schema.json``, described in ``docs/benchmark.md``):
the qrels, the modes (each a run file or a fusion of other modes), the measures (default:
:data:`trecbench.measures.KPI_PRESET`), targets per measure (the R-task reference's ranges
as the preset ``trec2025-rtask``), statistics, strata, completeness thresholds, a routing
log, MaxOntSim's formula and ontology file and the output folder. :func:`run_benchmark` then

1. validates the qrels and every run file with the R-task rules (the validator's ``rtask``
   profile, at most 100 documents per topic) and stops with the findings and the
   reference's recovery action when one fails (:class:`InvalidRuns`, exit 2); each file
   is read once, into memory, and the scoring parses the bytes that were validated;
2. fuses the fused modes (:func:`trecbench.fusion.fuse_tables`, 100 deep by default) and
   validates them the same way;
3. scores every mode with one parse of the qrels (:func:`trecbench.evaluate`, trec_eval
   ``-c``: every qrels topic counts, a mode without results for one scores 0 on it, but ``num_rel``
   its count of the qrels);
4. compares the modes with the statistics of :func:`trecbench.comparison.compare_scores`
   (means with bootstrap intervals, paired tests against the baseline mode, correction);
5. marks each mean against the targets (below-baseline / baseline / good / strong), finds
   incomplete modes (query coverage, pool depth, unjudged share: :func:`completeness`),
   computes reranking improvements and the routing metrics of :mod:`trecbench.routing`.

:meth:`Benchmark.write` writes per-mode EvaluationReports, one ExperimentManifest,
``BenchmarkReport.json`` (compare's report with a ``benchmark`` section, schema
``benchmark_workflow``) and ``BenchmarkComparison.md``, as one unit.

Where things are: :mod:`.settings` (the typed :class:`BenchmarkSettings`, modes, targets,
completeness thresholds), :mod:`.loading` (configuration files), :mod:`.checks` (the
validation and :class:`InvalidRuns`), :mod:`.completeness`, :mod:`.running`
(:func:`run_benchmark`'s steps), :mod:`.result` (:class:`Benchmark` and its files); the
Markdown is :mod:`trecbench.renderers.benchmark`'s.
"""

from __future__ import annotations

from ..lazy import submodules as _submodules
from ..renderers.benchmark import SHOWN_MARKS
from .checks import InvalidRuns, validation_profile
from .completeness import completeness
from .loading import CONFIG_SCHEMA, load_benchmark_config
from .result import (
    MANIFEST_FILE,
    REPORTS_DIR,
    RUNS_DIR,
    Benchmark,
    ModeResult,
    check_outputs,
)
from .running import run_benchmark
from .settings import (
    ACTIONS,
    COMPLETENESS,
    PRESETS,
    RTASK_MAX_DEPTH,
    STATISTICS,
    BenchmarkConfig,
    BenchmarkSettings,
    Completeness,
    Mode,
    Target,
)

__all__ = [
    "ACTIONS",
    "COMPLETENESS",
    "CONFIG_SCHEMA",
    "MANIFEST_FILE",
    "PRESETS",
    "REPORTS_DIR",
    "RTASK_MAX_DEPTH",
    "RUNS_DIR",
    "SHOWN_MARKS",
    "STATISTICS",
    "Benchmark",
    "BenchmarkConfig",
    "BenchmarkSettings",
    "Completeness",
    "InvalidRuns",
    "Mode",
    "ModeResult",
    "Target",
    "check_outputs",
    "completeness",
    "load_benchmark_config",
    "run_benchmark",
    "validation_profile",
]

__getattr__ = _submodules(__name__)  # trecbench.benchmarking.<module> after import trecbench
