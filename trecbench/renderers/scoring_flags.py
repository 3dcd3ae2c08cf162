"""The "Scored as" line of a comparison's renderings: every setting of its evaluation
record (``Comparison.evaluation``, what the page's provenance and the report record) not
at its default, spelled as ``trecbench score`` takes it (``-c -J -N 100``). Derived from
the record key by key, so that a setting the record holds is never left out: one of no
flag of its own (``float32``: the API's alone) is written as its keyword (``float32=False``)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from ..escaping import FIRST_STRONG_ISOLATE, POP_DIRECTIONAL_ISOLATE
from ..trec_eval.compat import DEFAULT as DEFAULT_COMPAT
from ..trec_eval.compat import get as compat_version

# each setting's default and flag ("{}" its value); a yes/no flag without "{}" is given
# when the setting is on
_FLAGS: dict[str, tuple[Any, str]] = {
    "relevance_level": (1, "-l {}"),
    "complete": (False, "-c"),
    "max_docs": (None, "-M {}"),
    "judged_only": (False, "-J"),
    "num_docs": (None, "-N {}"),
    "engine": ("auto", "--engine {}"),
    "compat": (DEFAULT_COMPAT, "--compat {}"),
    "rel_format": ("qrels", "-R {}"),
    "zscores": (None, "-Z {}"),
    "maxontsim_formula": (None, "--maxontsim-formula {}"),
    "ontology": (None, "--ontology {}"),
}
# the settings that are paths: shell-quoted, so that the line pastes as a command
_PATHS = ("zscores", "ontology")
# a value the same as not giving the flag: -N 0 is trec_eval's default (no collection size)
_ALSO_DEFAULT = {"num_docs": 0}
# -D LEVEL[.QID]: one flag of two settings
_DEBUG = ("debug_level", "debug_query")


def _float32_default(evaluation: Mapping[str, Any]) -> bool:
    """float32's default: as the version reproduced holds scores (9.x float32, 10.0
    doubles; the record says what the ranking did)."""
    return compat_version(evaluation.get("compat") or DEFAULT_COMPAT).float32


def _quoted(path: str) -> str:
    """``path`` as a shell word (``'my z.txt'``); the page's isolates around a right-to-left
    one (:func:`~trecbench.escaping.isolated_text`) kept outside the quotes, where the page
    makes them markup (``<bdi>``) and they are no character of the command."""
    marks = FIRST_STRONG_ISOLATE, POP_DIRECTIONAL_ISOLATE
    if len(path) > 1 and (path[0], path[-1]) == marks:
        return f"{marks[0]}{shlex.quote(path[1:-1])}{marks[1]}"
    return shlex.quote(path)


def _as_complete(evaluation: Mapping[str, Any]) -> dict[str, Any]:
    """``evaluation`` with ``complete`` on, where score's record holds it (after -l)."""
    record = {key: value for key, value in evaluation.items() if key != "complete"}
    keys = list(record)
    place = keys.index("relevance_level") + 1 if "relevance_level" in keys else 0
    keys.insert(place, "complete")
    return {key: True if key == "complete" else record[key] for key in keys}


def flag_text(evaluation: Mapping[str, Any], missing: str | None = None) -> str:
    """The settings of ``evaluation`` not at their default as command-line flags
    (``-l 2 -c -M 100 -J``), in the record's order; a key of no known flag as
    ``key=value``. ``missing``: the comparison's policy for a topic a run has no results
    for; ``"zero"`` scores it 0 and counts it in the means, as score does under -c (said
    though compare's record has no -c); ``"drop"`` keeps the topics every run holds, which
    no flag of score's says (its means are each run's own topics without -c)."""
    if missing == "zero":
        evaluation = _as_complete(evaluation)
    flags = []
    for key, value in evaluation.items():
        if key in _DEBUG:
            if key == _DEBUG[0] and (value or evaluation.get(_DEBUG[1]) is not None):
                topic = evaluation.get(_DEBUG[1])
                word = f"{value or 0}{'' if topic is None else '.' + str(topic)}"
                flags.append(f"-D {shlex.quote(word)}")  # a topic's id, a shell word
            elif key == _DEBUG[1] and value is not None and _DEBUG[0] not in evaluation:
                flags.append(f"-D {shlex.quote(f'0.{value}')}")
            continue
        if key == "float32":
            default, spelling = _float32_default(evaluation), "float32={}"
        else:
            default, spelling = _FLAGS.get(key, (None, f"{key}={{}}"))
        if value == default or (key in _ALSO_DEFAULT and value == _ALSO_DEFAULT[key]):
            continue
        if key in _PATHS and isinstance(value, str):
            value = _quoted(value)
        flags.append(spelling.format(value) if "{}" in spelling else spelling)
    return " ".join(flags)
