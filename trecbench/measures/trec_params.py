"""trec_eval's parameter lists (``P.5,10``, ``ndcg.1=3,2=9``, ``utility.1,-1,0,0``):
numbers read as its C code reads them, what it refuses, and the numbers a list holds,
checked against the family's domains (:mod:`.params`)."""

from __future__ import annotations

import re
from typing import Any

from ..errors import TrecbenchError, excerpt
from ..trec_eval.clib import atol_saturates, c_atof, c_atol, read_whole, reads_a_number
from .params import GRADE
from .registry import (
    FLOAT_CUTOFF,
    FLOAT_CUTOFFS,
    FLOAT_PARAMS,
    LONG_CUTOFFS,
    PAIRS,
    Definition,
    index,
)


class MeasureParameterError(TrecbenchError):
    """A measure's parameters are invalid (trec_eval cannot initialise it: exit 2)."""

    exit_code = 2


class UncalculableMeasureError(MeasureParameterError):
    """Parameters trec_eval takes, then cannot compute the measure with at the first topic
    ("Can't calculate measure": exit 4): nothing is printed."""

    exit_code = 4


def long_cutoffs(params: str) -> tuple[int, ...]:
    """Integer cutoffs as trec_eval reads them: ``atol`` each, sorted, positive, unique."""
    problem = _cutoffs_problem(params)
    if problem is not None:
        raise MeasureParameterError(problem)
    return tuple(sorted(c_atol(part) for part in params.split(",")))


def float_cutoffs(params: str) -> list[float]:
    """Float cutoffs as trec_eval reads them (``atof`` each), sorted as it prints them."""
    return sorted({c_atof(part) for part in params.split(",")})


def check_params(definition: Definition, params: str, text: str) -> None:
    """Reject what trec_eval refuses (pytrec_eval aborts the process on these instead):
    one line naming the measure as written (``text``) and the part of ``params`` that is
    wrong, where trec_eval says ``negative cutoff detected in 'a'``."""
    kind = definition.trec_params
    problem = None  # trec_eval ignores parameters of measures that take none
    if kind == LONG_CUTOFFS:
        problem = _cutoffs_problem(params)
    elif kind == FLOAT_CUTOFFS:
        problem = _repeated(params.split(","), c_atof, _bare(definition.numbers.what))
    elif kind == PAIRS:
        problem = _pairs_problem(definition, params)
    if problem is not None:
        raise MeasureParameterError(f"illegal measure '{text}': {problem}")


_LEADING_INTEGER = re.compile(r"[ \t\n\r\v\f]*[+-]?[0-9]")  # what C's atol reads a number of


def _cutoffs_problem(params: str) -> str | None:
    """What trec_eval refuses in a list of integer cutoffs (each read with ``atol``): one
    that is not positive, or one given twice; None when it takes the list."""
    for part in params.split(","):
        if part == "":
            return "an empty cutoff (cutoffs are positive integers, separated by commas)"
        if c_atol(part) <= 0 and not _LEADING_INTEGER.match(part):
            return f"{excerpt(part)} is not a cutoff (a positive integer; trec_eval reads it as 0)"
        if c_atol(part) <= 0:
            return f"the cutoff {excerpt(part)} is not positive (a cutoff is a rank: 1 or more)"
    return _repeated(params.split(","), c_atol, "cutoff")


def _repeated(parts: list[str], read, what: str) -> str | None:
    """That two of ``parts`` read (``read``: C's atol or atof) as one ``what``, which
    trec_eval refuses; None when none do."""
    seen: dict = {}
    for part in parts:
        value = read(part)
        if value in seen:
            written = f"{excerpt(seen[value])} and {excerpt(part)}"
            return f"the {what} {value} is given twice ({written}); trec_eval takes each once"
        seen[value] = part
    return None


def _pairs_problem(definition: Definition, params: str) -> str | None:
    """The first part of a gain map that is no ``name=value`` pair, with what the family
    takes (and its cut family's spelling, for a cutoff: ``ndcg.10`` is ``ndcg_cut.10``);
    None when every part is one."""
    for part in params.split(","):
        if re.fullmatch(r"[^,=]*=[^,=]*", part):
            continue
        shown = "an empty part" if part == "" else excerpt(part)
        name = definition.trec_name
        problem = (
            f"{shown} is not a grade=gain pair ({name} takes a gain map, e.g. '{name}.1=1,2=3')"
        )
        cut = index().trec.get(f"{name}_cut")
        whole = all(read_whole(cutoff, True) for cutoff in params.split(","))  # not 1=2,3
        if cut is not None and whole and _cutoffs_problem(params) is None:
            problem += f"; a cutoff is {cut.name}'s: '{cut.name}.{params}'"
        return problem
    return None


def _bare(what: str) -> str:
    """``the recall level`` as ``recall level``."""
    return what.removeprefix("the ")


def uncalculable(definition: Definition, params: str | None) -> UncalculableMeasureError | None:
    """Why trec_eval, having taken ``params``, cannot calculate the measure at the first
    topic it evaluates (so only where some topic is evaluated: else no topic is in common,
    exit 7): utility without 4 coefficients. None where it can."""
    if definition.name == "utility" and params is not None and len(params.split(",")) != 4:
        return UncalculableMeasureError(
            f"utility needs 4 coefficients, got '{params}' (trec_eval: improper number of "
            "coefficients, Can't calculate measure 'utility')"
        )
    return None


def weighs_unseen(definition: Definition, params: str | None) -> bool:
    """Whether utility's fourth coefficient is not 0: it then weighs the documents neither
    retrieved nor relevant, which only ``-N`` (the collection's size) lets anyone count."""
    if definition.name != "utility" or params is None:
        return False
    coefficients = params.split(",")
    return len(coefficients) == 4 and c_atof(coefficients[3]) != 0.0


def numbers_outside(definition: Definition, params: str | None) -> list[str]:
    """What is wrong with the numbers of ``params`` (a trec_eval parameter list, or the
    cutoff of another family) by the family's domains: one line each, none when right."""
    if params is None:
        return []
    problems = []
    for name, value in numbers_of(definition, params):
        param = None if name is None else definition.param(name)
        if param is not None and param.domain is not None:
            problems.append(param.domain.problem(value, name))
        elif definition.numbers is not None:
            label = None if name is None else f"the gain of grade {name}"
            problems.append(definition.numbers.problem(value, label))
    # a grade no qrels can hold (its grades are C ints): the gain it names is never used
    problems += [
        GRADE.problem(c_atol(grade), "a grade of the gain map")
        for grade in _grades(definition, params)
    ]
    return [p for p in problems if p]


def _grades(definition: Definition, params: str) -> list[str]:
    """The grades of a gain map as written (``ndcg.1=3,x=2``: ``1``, ``x``): the names of
    its pairs but a parameter's (``rbp.p=0.8``)."""
    if definition.trec_params != PAIRS:
        return []
    names = (part.partition("=")[0] for part in params.split(","))
    return [name for name in names if definition.param(name) is None]


def misread(definition: Definition, written: str) -> list[str]:
    """What trec_eval reads otherwise than ``written`` (a trec_eval parameter list as
    given) says, one line each: numbers read only in part, cutoffs beyond a C long, and
    gain map grades that are no integer (:func:`misread_grades`)."""
    integer = definition.trec_params == LONG_CUTOFFS
    reader = "atol" if integer else "atof"
    problems = [
        f"trec_eval reads {value!r} only in part (what follows its number is ignored)"
        if reads_a_number(value, integer)
        else f"trec_eval reads {value!r} as 0 (no number there, C's {reader})"
        for value in partly_read(definition, written)
    ]
    problems += [
        f"trec_eval reads {excerpt(value)} as {c_atol(value)} (C's atol holds a number "
        "beyond a long at its limit)"
        for value in saturated(definition, written)
    ]
    return problems + misread_grades(definition, written)


def misread_grades(definition: Definition, params: str) -> list[str]:
    """A line for each grade of a gain map that is not an integer (``ndcg.x=5``, ``1.5=2``,
    ``=3``): 9.0.8 reads it with C's ``atol`` (``x`` is grade 0, ``1.5`` grade 1), 10.0
    leaves its pair out (``valid_int``), as the versions that have the family do."""
    readings = []
    for grade in _grades(definition, params):
        if read_whole(grade, True):
            continue
        done = []
        if "9.0.8" in definition.trec_eval:
            done.append(f"9.0.8 reads it as grade {c_atol(grade)} (C's atol)")
        if "10.0" in definition.trec_eval:
            done.append("10.0 leaves its pair out")
        said = ", ".join(done)
        readings.append(f"the grade {excerpt(grade)} is not an integer: trec_eval {said}")
    return readings


def partly_read(definition: Definition, params: str) -> list[str]:
    """The numbers of a trec_eval parameter list that its C code reads only in part (the
    rest ignored: ``5abc``, ``1e3`` as a cutoff, ``0.5.5``)."""
    kind = definition.trec_params
    if kind == PAIRS:
        values = [part.partition("=")[2] for part in params.split(",")]
    elif kind in (LONG_CUTOFFS, FLOAT_CUTOFFS, FLOAT_PARAMS):
        values = params.split(",")
    else:
        return []
    return [value for value in values if not read_whole(value, kind == LONG_CUTOFFS)]


def saturated(definition: Definition, params: str) -> list[str]:
    """The cutoffs of a trec_eval parameter list beyond a C long, which ``atol`` holds at
    the long's limit (``P.99999999999999999999`` is ``P_9223372036854775807``)."""
    if definition.trec_params != LONG_CUTOFFS:
        return []
    return [value for value in params.split(",") if atol_saturates(value)]


def numbers_of(definition: Definition, params: str) -> list[tuple[str | None, Any]]:
    """``(name, value)`` of each number in ``params``: the pair's name for gain maps
    (``p`` or a grade), None for lists and cutoffs."""
    kind = definition.trec_params
    if kind == PAIRS:
        return [(n, c_atof(v)) for n, _, v in (part.partition("=") for part in params.split(","))]
    if kind == LONG_CUTOFFS:
        return [(None, k) for k in long_cutoffs(params)]
    if kind in (FLOAT_CUTOFFS, FLOAT_PARAMS):
        return [(None, c_atof(part)) for part in params.split(",")]
    if definition.cutoff == FLOAT_CUTOFF:
        return [(None, float(params))]
    return [(None, int(params))]
