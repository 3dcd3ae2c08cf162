"""Every warning trecbench raises is located at the first caller outside the package
(:func:`trecbench.callers.outside_trecbench`), not at a fixed depth that can point inside
it: measure parsing's ParameterDomainWarning and FirstParametersWarning were located at
evaluation/plan.py (reviewer 436)."""

from __future__ import annotations

import inspect

import pytest

import trecbench
from trecbench.errors import (
    FirstParametersWarning,
    InputWarning,
    ParameterDomainWarning,
)

QRELS = {"q": {"d": 1, "e": 0}, "r": {"d": 1}}
RUN = {"q": {"d": 2.0, "e": 1.0}, "r": {"d": 1.0}}


def _here() -> int:
    """The line after the caller's: where the call under test is."""
    return inspect.currentframe().f_back.f_lineno + 1


def _located(caught, category) -> set[tuple[str, int]]:
    """Where each warning of ``category`` was located."""
    return {(w.filename, w.lineno) for w in caught if issubclass(w.category, category)}


def test_a_parameter_out_of_its_domain_is_located_at_the_caller():
    with pytest.warns(ParameterDomainWarning) as caught:
        line = _here()
        trecbench.evaluate(QRELS, RUN, ["P.1.5"])
    assert _located(caught.list, ParameterDomainWarning) == {(__file__, line)}


def test_first_parameters_is_located_at_the_caller():
    with pytest.warns(FirstParametersWarning) as caught:
        line = _here()
        trecbench.evaluate(QRELS, RUN, ["P.5", "P.10"], first_parameters=True)
    assert _located(caught.list, FirstParametersWarning) == {(__file__, line)}


def test_fused_scores_tied_at_float32_are_located_at_the_caller():
    # was located at fusion.py's fuse (a fixed stacklevel=2 from fuse_tables)
    run = {"q": {"a": 1.00000005, "b": 1.0, "c": 7.0}}  # a and b tie at float32
    with pytest.warns(ParameterDomainWarning) as caught:
        line = _here()
        trecbench.fuse([run], "combsum", norm="none")
    assert _located(caught.list, ParameterDomainWarning) == {(__file__, line)}


def test_an_empty_topic_of_a_run_dict_is_located_at_the_caller():
    with pytest.warns(InputWarning) as caught:
        line = _here()
        trecbench.evaluate(QRELS, RUN | {"r": {}}, ["map"])  # topic r: no document
    assert _located(caught.list, InputWarning) == {(__file__, line)}
