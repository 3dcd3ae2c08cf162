"""diff's words for what differs (:mod:`trecbench.runstudy.reportdiff`): the likeliest
cause in one line, a measure's two spellings, a list of names."""

from __future__ import annotations

from ..escaping import escape_text, id_list, list_item
from .reportview import written

# how the likely cause names an input of each kind the reports record (by its option)
INPUT_WORDS = {
    "qrels": "the qrels differ",
    "run": "a run file differs",
    "zscores": "the z-scores file (-Z) differs",
    "ontology": "the ontology (--ontology) differs",
    "strata": "the strata sidecar (--strata) differs",
    "routing": "the routing log (--routing) differs",
    "config": "the benchmark configuration differs",
    "topics": "the topics file differs",
}


def asked_as(measure: str, a: str, b: str, between: str) -> str:
    """How a measure both reports asked for was asked in each: ``P@2 asked as P.2 vs P_2``
    (``measure``: the name its values are shown by,
    :func:`~trecbench.runstudy.reportdiff.displayed`; one report's alone is said by the
    measures' line and the cause's "only in")."""
    return f"{measure} asked as {a} {between} {b}"


def listed(names: list[str]) -> str:
    """Measures' names one after another, ``(none)`` for none."""
    return ", ".join(map(escape_text, names)) or "(none)"


def listed_runs(names: list[str]) -> str:
    """Runs' names one after another, each a list's item (a comma of a name escaped, so
    that ``x, y`` and ``b`` list as two runs), ``(none)`` for none (a report of no runs)."""
    return id_list(names, limit=None) or "(none)"


def _input_words(item: dict | None) -> str:
    if item is None:
        return "none"
    return f"{escape_text(item['path'])} ({item['size']} bytes, sha256 {str(item['sha256'])[:12]})"


def likely_cause(
    inputs, options, versions, measures, spellings, runs, topics, values, names, said,
    renamed=(),
) -> str:  # fmt: skip
    """The likeliest reason the two evaluations differ, in one line (paths and run names
    escaped reversibly, :func:`~trecbench.escaping.escape_text`); ``names``: the two
    reports'; ``said``: each spelled measure's name as its values are shown; ``renamed``:
    the runs paired by their files' content under two names, ``(a's, b's)``."""
    # a run file only one report holds is a run only one holds: said as such below
    held = [(x, y) for x, y in inputs if (x and y) or (x or y)["kind"] != "run" or not runs]
    for kind in ("qrels", "run"):
        for x, y in held:
            if (x or y)["kind"] == kind:
                return f"{INPUT_WORDS[kind]}: {_input_words(x)} vs {_input_words(y)}"
    for x, y in held:
        kind = (x or y)["kind"]
        if kind != "run":
            words = INPUT_WORDS.get(kind, "an input differs")
            return f"{words}: {_input_words(x)} vs {_input_words(y)}"
    if options:
        changed = list(options.items())[:3]
        shown = "; ".join(f"{k} {written(x)} vs {written(y)}" for k, (x, y) in changed)
        return f"the options differ: {shown}"
    if measures or spellings:
        words = _measure_cause(measures, spellings, names, said)
        if measures is None and all(x and y for x, y in spellings.values()):
            return f"the measures are spelled otherwise: {words}"
        return f"the measures asked for differ: {words}"
    if runs:
        return _runs_cause(runs, renamed)
    for change in topics:
        counts = f"{len(change.only_a)} only in a, {len(change.only_b)} only in b"
        return f"the topics differ: {escape_text(change.run)} has {counts}"
    if versions:
        changed = list(versions.items())[:3]
        shown = "; ".join(f"{k} {written(x)} vs {written(y)}" for k, (x, y) in changed)
        return f"the versions differ: {shown}"
    for x, y in inputs:
        return f"an input differs: {_input_words(x)} vs {_input_words(y)}"
    return "the values differ with the same inputs, options and versions"


def _runs_cause(runs: tuple[list[str], list[str]], renamed) -> str:
    """How the runs differ: renamed alone (every run one report holds is another's file
    under another name), or by the names each holds."""
    held_a, held_b = set(runs[0]), set(runs[1])
    only_a = [run for run in runs[0] if run not in held_b]
    only_b = [run for run in runs[1] if run not in held_a]
    if (
        renamed
        and sorted(only_a) == sorted(x for x, _ in renamed)
        and sorted(only_b) == sorted(y for _, y in renamed)
    ):
        shown = [f"{list_item(escape_text(x))} -> {list_item(escape_text(y))}" for x, y in renamed]
        return f"the runs are named otherwise (the same files): {_first_names(shown)}"
    return f"the runs differ: {listed_runs(runs[0])} vs {listed_runs(runs[1])}"


def _measure_cause(measures, spellings: dict, names: tuple[str, str], said: dict) -> str:
    """How the measures asked for differ, in a few words: those only one report asked for
    (as it spelled them; by name where a report records no spellings), then those spelled
    otherwise, by the name of their values (``P.5 only in a.json; P@2 asked as P.2 vs
    P_2``)."""
    # each -m word once (P gives P@5, P@10...: one word, several values)
    only = (list(dict.fromkeys(x for x, y in spellings.values() if x and not y)),
            list(dict.fromkeys(y for x, y in spellings.values() if y and not x)))  # fmt: skip
    if measures and not any(only):  # no spellings recorded: the measures' names
        only = tuple([m for m in mine if m not in set(theirs)] for mine, theirs in
                     (measures, measures[::-1]))  # fmt: skip
    told = [
        f"{_first_names(asked)} only in {name}"
        for asked, name in zip(only, names, strict=True)
        if asked
    ]
    spelled = [asked_as(said[k], x, y, "vs") for k, (x, y) in spellings.items() if x and y]
    return "; ".join([*told, *spelled][:3])


def _first_names(names: list[str], shown: int = 3) -> str:
    """``P.5, map, ndcg and 31 more``: a cause's few words name a few measures."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
