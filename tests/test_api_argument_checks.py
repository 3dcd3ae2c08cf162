"""Arguments the Python API refuses first, in one line naming them, by the check the
project already makes of the same argument elsewhere: routing_metrics' ``confidence`` as
compare's (it was a TypeError from the resampling, or a bare ValueError), a ``progress``
that cannot take the arguments it is called with (a TypeError once work had begun), and
parse_measure's ``version`` as parse_measures' (an unknown one was taken)."""

from __future__ import annotations

import math

import pytest
from conftest import ROOT
from test_progress_argument import CALLS

import trecbench
from trecbench.callbacks import refuse_uncallable
from trecbench.comparison.settings import StatsSettings
from trecbench.errors import UsageError
from trecbench.validation import validate_files

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUN = str(ROOT / "runs" / "tfidf-word.run")
ROUTING = str(ROOT / "data" / "hpo-rtask" / "routing.jsonl")


@pytest.mark.parametrize(
    "confidence, message",
    [
        ("0.9", "confidence must be a number, not '0.9'"),
        (True, "confidence must be a number, not True"),
        (2, "confidence must be between 1e-12 and 1 - 1e-12, not 2"),
        (math.nan, "confidence must be between 1e-12 and 1 - 1e-12, not nan"),
    ],
)
def test_routing_metrics_refuses_a_confidence_as_compare_does(confidence, message):
    with pytest.raises(UsageError) as caught:
        trecbench.routing_metrics(ROUTING, confidence=confidence)
    assert str(caught.value) == message
    with pytest.raises(UsageError) as compared:
        StatsSettings(confidence=confidence)  # what compare(confidence=...) is refused by
    assert str(compared.value) == message


def _two(done, total):
    """A progress of too few parameters: ``progress(done, total)``."""


TOO_FEW = (
    "progress must be a function progress(label, done, total) or None, not one taking "
    "(done, total): it is called with 3 positional arguments"
)


@pytest.mark.parametrize("name", sorted(CALLS))  # every public function taking progress
def test_a_progress_of_too_few_parameters_is_refused_before_any_work(name):
    with pytest.raises(UsageError) as caught:
        CALLS[name](_two)
    assert str(caught.value) == TOO_FEW


def test_the_question_evaluate_was_asked_with_a_lambda():
    with pytest.raises(UsageError) as caught:
        trecbench.evaluate(QRELS, RUN, ["P@5"], progress=lambda done, total: None)
    assert str(caught.value) == TOO_FEW


def test_a_progress_of_too_many_required_parameters_is_refused():
    with pytest.raises(UsageError) as caught:
        trecbench.compare_scores({"1": {"a": 1.0}}, progress=lambda label, done, total: None)
    assert str(caught.value) == (
        "progress must be a function progress(done, total) or None, not one taking "
        "(label, done, total): it is called with 2 positional arguments"
    )


def test_the_validators_callbacks_are_checked_against_their_own_calls():
    with pytest.raises(UsageError) as caught:
        validate_files([RUN], read_progress=lambda path, done: None)
    assert str(caught.value) == (
        "read_progress must be a function read_progress(path, done, total) or None, not one "
        "taking (path, done): it is called with 3 positional arguments"
    )


def _annotated(label: str, done: int, total: int | None, *, unit: str) -> None:
    """Required keyword-only: no call of three positional arguments binds to it."""


def test_what_is_refused_shows_the_parameters_without_annotations():
    with pytest.raises(UsageError) as caught:
        refuse_uncallable(_annotated)
    assert str(caught.value) == (
        "progress must be a function progress(label, done, total) or None, not one taking "
        "(label, done, total, *, unit): it is called with 3 positional arguments"
    )


class _Bar:
    def update(self, label, done, total=None):
        """A bound method: ``self`` is no parameter the caller passes."""


@pytest.mark.parametrize(
    "progress",
    [
        lambda *told: None,
        lambda label, done, total=None, unit="B": None,
        _Bar().update,
        max,  # a builtin Python cannot tell the parameters of: taken unchecked
    ],
    ids=["varargs", "defaults", "bound method", "no signature"],
)
def test_a_progress_that_can_take_the_call_or_cannot_be_inspected_is_taken(progress):
    refuse_uncallable(progress)


def test_parse_measure_refuses_an_unknown_version_as_parse_measures_does():
    message = "unknown trec_eval version 'banana' (choose from 9.0.8, 10.0)"
    for parse, names in ((trecbench.parse_measure, "P@5"), (trecbench.parse_measures, ["P@5"])):
        with pytest.raises(UsageError) as caught:
            parse(names, version="banana")
        assert str(caught.value) == message


def test_parse_measure_reads_a_version_as_parse_measures_does():
    # "10" is 10.0 to both: parse_measure refused 10.0's unj_10 under it
    assert (
        trecbench.parse_measure("unj_10", version="10")
        == trecbench.parse_measures(["unj_10"], version="10")[0]
    )


def test_load_run_and_load_qrels_tell_progress_what_their_documentation_says():
    # they called progress(done, total), documented as progress(label, done, total)
    for load, path in ((trecbench.load_run, RUN), (trecbench.load_qrels, QRELS)):
        told = []
        load(path, progress=lambda *call, told=told: told.append(call))
        size = (ROOT / path).stat().st_size
        assert told and told[-1] == (f"reading {path}", size, size)
