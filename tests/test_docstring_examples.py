"""The examples of trecbench's docstrings run and show what they print (doctest).

The pages' examples run in tests/test_readme.py; a docstring's ``>>>`` lines are the
Python API's own examples (``help(trecbench.load_run)``), so they are checked alike. Those
marked ``# doctest: +SKIP`` name the reader's files (``bm25.run``) or a Dask cluster.
"""

from __future__ import annotations

import doctest
import importlib
import inspect

import pytest
from conftest import ROOT

import trecbench

PACKAGE = ROOT / "trecbench"
MODULES = sorted(
    ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    for path in PACKAGE.rglob("*.py")
    if ">>> " in path.read_text(encoding="utf-8")
)


def test_the_docstrings_with_examples_are_found():
    assert {"trecbench.inputs", "trecbench.naming"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as error:  # an optional extra's module (trecbench.dask)
        if (error.name or "").startswith("trecbench"):
            raise
        pytest.skip(f"{name} needs {error.name}")
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    said: list[str] = []
    for test in doctest.DocTestFinder().find(module):
        runner.run(test, out=said.append)
    assert runner.failures == 0, "".join(said)


SAID_ELSEWHERE = {
    # their docstrings name where the rest is said: EvalSettings' fields (evaluate, and
    # compare's drill_depth), the module's docstring (optimize_fusion), validate_run's and
    # validate_tokens' options, compare's
    "evaluate",
    "optimize_fusion",
    "validate_qrels",
    "check_tokens",
    "compare",
    "compare_scores",
}


@pytest.mark.parametrize("name", sorted(set(trecbench.__all__) - SAID_ELSEWHERE))
def test_a_public_functions_docstring_names_what_it_takes(name):
    # help(trecbench.NAME) is a user's reference: every parameter is named in it
    function = getattr(trecbench, name)
    if not inspect.isfunction(function):
        pytest.skip(f"{name} is no function")
    doc = " ".join((function.__doc__ or "").split())
    parameters = inspect.signature(function).parameters
    assert [p for p in parameters if f"``{p}" not in doc] == []
