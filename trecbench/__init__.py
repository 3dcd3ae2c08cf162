"""trecbench: trec_eval-compatible evaluation for retrieval experiments.

The public API is re-exported here and imported lazily, so ``import trecbench`` and
``trecbench --help`` stay fast.
"""

from __future__ import annotations

import importlib
import sys
import types

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
    "evaluate": "evaluate",
    "Evaluation": "evaluate",
    "parse_measure": "measures",
    "parse_measures": "measures",
    "KPI_PRESET": "measures",
    "rank_run": "ranking",
    "build_evaluation_report": "report",
    "build_manifest": "report",
    "compare": "compare",
    "compare_scores": "compare",
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
    "group_means": "strata",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'trecbench' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__


class _Package(types.ModuleType):
    """Keeps ``trecbench.evaluate`` and ``trecbench.compare`` the functions.

    Importing a submodule binds the package attribute of its name to the module; for the
    modules named like the function they define (evaluate.py, compare.py: renamed at the
    end of this wave, see the team plan) the function is bound instead, so the public
    name is the real function, with its signature, whatever was imported first.
    """

    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, types.ModuleType) and _EXPORTS.get(name) == name:
            value = getattr(value, name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
