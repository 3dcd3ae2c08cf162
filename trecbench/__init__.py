"""trecbench: trec_eval-compatible evaluation for retrieval experiments.

The public API is re-exported here and imported lazily, so ``import trecbench`` and
``trecbench --help`` stay fast.
"""

from __future__ import annotations

from .lazy import lazy_exports

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS = {
    "load_run": "inputs",
    "load_qrels": "inputs",
    "Loaded": "inputs",
    "read_run": "inputs",
    "read_qrels": "inputs",
    "parse_run": "inputs",
    "parse_qrels": "inputs",
    "write_run": "files",
    "write_qrels": "files",
    "TrecbenchError": "errors",
    "InputError": "errors",
    "UsageError": "errors",
    "ParameterDomainError": "errors",
    "evaluate": "evaluation",
    "Evaluation": "evaluation",
    "parse_measure": "measures",
    "parse_measures": "measures",
    "KPI_PRESET": "measures",
    "rank_run": "inputs",
    "build_evaluation_report": "report",
    "build_manifest": "report",
    "compare": "comparison",
    "compare_scores": "comparison",
    "power": "conclusions.power",
    "agree": "conclusions.agree",
    "fuse": "fusion",
    "run_benchmark": "benchmarking",
    "load_benchmark_config": "benchmarking",
    "routing_metrics": "routing",
    "validate_run": "validation",
    "validate_qrels": "validation",
    "check_tokens": "validation",
    "Finding": "validation",
    "load_ontology": "ontology",
    "Ontology": "ontology",
    "convert_hpo": "convert.hpo",
    "convert_codechunk": "convert.codechunk",
    "convert_memorybench": "convert.memorybench",
    "convert_lists": "convert.lists",
    "convert_dict": "convert.dicts",
    "convert_msmarco": "convert.msmarco",
    "convert_beir_qrels": "convert.beir",
    "write_conversion": "convert.common",
    "load_strata": "strata",
    "similarity": "runstudy.similarity",
    "pool": "runstudy.pool",
    "diff_reports": "runstudy.reportdiff",
    "leaderboard": "runstudy.leaderboard",
    "optimize_fusion": "runstudy.fusion_tuning",
    "group_means": "strata",
}

__all__ = sorted(_EXPORTS) + ["__version__"]

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
