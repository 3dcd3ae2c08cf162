"""What measures hold per topic: those with no number per topic (a summary over topics,
the run's tag, or text), which comparisons of per-topic values refuse, and those whose
value on a topic a run has no results for is a count of the qrels (``num_rel``), not 0."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterable, Iterator

from ..errors import ParameterDomainWarning, TrecbenchError, UsageError, excerpt, shortened
from ..trec_eval.compat import DEFAULT
from . import registry
from .asked import parse_measures, requests
from .expression import entry_names, one_name_each, split_names
from .names import Measure, parse_measure


def refuse_summaries(named: Iterable[tuple[str, Measure]], computed: str) -> None:
    """Refuse (:class:`UsageError`) the measures of ``named`` (``(name, measure)``) that
    have no number per topic, for what is ``computed`` from per-topic values (``compare's
    means and tests are``), each with the reason its registry entry gives."""
    names_by_reason: dict[str, list[str]] = {}
    for name, measure in named:
        reason = measure.definition.no_topic_number
        if reason is not None and name not in names_by_reason.get(reason, ()):
            names_by_reason.setdefault(reason, []).append(name)
    if names_by_reason:
        said = "; ".join(f"{', '.join(names)}: {why}" for why, names in names_by_reason.items())
        # every trec_eval nickname holds runid and num_q: -m all_trec is refused too, so
        # the line says what to do, not only what is wrong
        remedy = "leave them out (a nickname such as all_trec holds some: name the measures)"
        raise UsageError(f"{said}, which {computed} computed from: {remedy}")


def asked_per_topic(measures, computed: str):
    """``measures`` as :func:`trecbench.evaluate` takes them (None, a name, or a list: a
    generator read here, once), their measures of no number per topic refused by the
    names asked (:func:`refuse_summaries`) before any input is read: compare, power and
    agree refused ``-m all_trec`` only once every run was scored. A list that does not
    parse is left to evaluate, which refuses it in its own words (and warns once)."""
    listed = measures if measures is None or isinstance(measures, str) else requests(measures)
    if isinstance(listed, list):  # evaluate's refusal of ["P@5 gm_map"], not gm_map's
        one_name_each(listed)
    with warnings.catch_warnings():  # evaluate parses them again: said then, once
        warnings.simplefilter("ignore")
        try:
            parsed = parse_measures(listed, DEFAULT)
        except TrecbenchError:
            return listed
    refuse_summaries([(m.requested or m.canonical, m) for m in parsed], computed)
    refuse_other_judgments(parsed, computed)
    return listed


def per_topic_measures(measures: list[str], computed: str) -> list[Measure]:
    """``measures`` parsed for what is ``computed`` from their per-topic values; one that
    is no measure, or has none (:func:`refuse_summaries`), refused as a
    :class:`UsageError` after ``measures:``. They are parsed as the trec_eval version the
    configurations are scored with (the default: a benchmark and a leaderboard suite have no
    ``--compat``) parses them, so that 10.0's ``unj.10`` is refused at its entry, not by
    the scoring, without the file or line."""
    try:
        parsed = parse_measures(measures, DEFAULT)
    except UsageError as error:
        raise UsageError(f"measures: {shortened(str(error))}") from None
    try:
        refuse_summaries([(m.requested or m.canonical, m) for m in parsed], computed)
        refuse_other_judgments(parsed, computed)
    except UsageError as error:
        raise UsageError(f"measures: {error}") from None
    return parsed


def refuse_other_judgments(parsed: list[Measure], computed: str) -> None:
    """What is ``computed`` from standard qrels (no ``-R``: a configuration's measures,
    compare's, power's, agree's, fusion's search): a measure trec_eval computes from
    preferences or judgment groups alone (``P_avgjg``, ``prefs_simp``) is refused as a
    :class:`UsageError` before any run is read (it was refused once the runs were read,
    naming ``-R``, an option these have not)."""
    for measure in parsed:
        reads = measure.definition.reads
        if reads != registry.QRELS:
            name = measure.requested or measure.canonical
            raise UsageError(
                f"{name}: trec_eval computes it from {_FORMATS[reads]} only, and {computed} "
                "computed from standard qrels"
            )


_FORMATS = {
    registry.PREFERENCES: "preference judgments (-R prefs, qrels_prefs)",
    registry.JUDGMENT_GROUPS: "judgment groups (-R qrels_jg)",
}


def listed_measures(entries: list[str], computed: str) -> tuple[list[str], list[Measure]]:
    """A configuration's ``measures`` list (a benchmark's, a leaderboard suite's): each
    entry a ``-m`` value, its names separated by blanks (``"P@5 map"`` two measures,
    ``"nDCG@10 "`` nDCG@10), as the command line's ``-m`` hands them on. Returns the names,
    one by one (what :func:`trecbench.evaluate` takes: one name an entry), and them parsed
    by :func:`per_topic_measures`. A name refused from an entry of several is told with
    the whole entry quoted (``'P@ 5'`` is no ``'P@'`` alone)."""
    names = [name for entry in entries for name in entry_names(entry)]
    try:
        return names, per_topic_measures(names, computed)
    except TrecbenchError as error:  # UsageError, or trec_eval's parameters (exit 2)
        entry = _refused_entry(entries)
        if entry is None:
            raise
        said = f"{error} (in the entry {excerpt(entry)}, whose blanks separate names)"
        raise type(error)(said) from None


@contextlib.contextmanager
def listed_before() -> Iterator[None]:
    """Within: no :class:`ParameterDomainWarning`, where measures parsed (and said) once
    are parsed again by :func:`trecbench.evaluate`: a configuration's ``measures``, read
    by :func:`listed_measures` when the configuration was (before a run was read); agree's
    scored again under its second judgments. Each is said once, not once more when scored."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=ParameterDomainWarning)
        yield


def _refused_entry(entries: list[str]) -> str | None:
    """The first entry of ``entries`` that is refused alone, if it holds several names
    (None otherwise: the error already quotes what was written). Only on the way to an
    error: the list was refused."""
    with warnings.catch_warnings():  # the names were warned of, once
        warnings.simplefilter("ignore")
        for entry in entries:
            try:
                parse_measures([entry], DEFAULT)
            except TrecbenchError:
                return entry if len(split_names(entry)) > 1 else None
    return None


def but_counts(names: Iterable[str]) -> str:
    """What to add where a text says a topic a run has no results for scores 0 on it: the
    measures among ``names`` that keep their count of the qrels there (``num_rel``), or
    nothing; a name of no measure (a column of compare_scores's own) is none."""
    kept = []
    with warnings.catch_warnings():  # names already parsed, and warned of, once
        warnings.simplefilter("ignore")
        for name in names:
            try:
                if parse_measure(name).summary == registry.NUM_REL:
                    kept.append(name)
            except TrecbenchError:
                continue
    return f" (but {', '.join(kept)}: its count of the qrels)" if kept else ""


def refused_entry_index(entries: list[str], computed: str) -> int:
    """The index of the entry where :func:`listed_measures` first refuses ``entries`` (a
    list it refuses): the end of the shortest refused prefix, so a name of no measure,
    or the second spelling of one asked twice, is the entry a message cites. Found by
    bisection (a refused prefix stays refused as entries are added), so a long list is
    parsed a few times, not once per entry. Only on the way to an error."""
    low, high = 0, len(entries) - 1  # the refused prefix ends within [low, high]
    with warnings.catch_warnings():  # the names were warned of, once
        warnings.simplefilter("ignore")
        while low < high:
            middle = (low + high) // 2
            try:
                listed_measures(entries[: middle + 1], computed)
            except TrecbenchError:
                high = middle
            else:
                low = middle + 1
    return high
