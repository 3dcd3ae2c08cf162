"""A :class:`~trecbench.comparison.Comparison` as one output format shows it: every text
it read from an input escaped once per rendering (never importing
:mod:`trecbench.comparison`: data flows one way)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace

from ..escaping import ShownWarning, escaper

# the columns of the frames that hold a run's name or a topic's id
_NAMED = {
    "summary": ("run",),
    "comparisons": ("run", "baseline"),
    "pairs": ("run", "other", "winner"),
    "movers": ("run", "baseline", "qid"),
}


def shown_as(output_format: str):
    """A renderer of a comparison given it :func:`with_names_escaped` for
    ``output_format``, within :meth:`~trecbench.comparison.Comparison.split_by_section`
    (it reads the tables section by section)."""

    def rendering(render):
        @functools.wraps(render)
        def rendered(comparison, *args, **kwargs):
            shown = with_names_escaped(comparison, output_format)
            with shown.split_by_section():
                return render(shown, *args, **kwargs)

        return rendered

    return rendering


def with_names_escaped(comparison, output_format: str):
    """``comparison`` as ``output_format`` shows it: every text it read from an input (run
    names, topic ids, grouping fields and their values, qrels and ontology paths) escaped
    reversibly by :func:`~trecbench.escaping.escaper` once, so that none can
    break a line or a table; the section labels (the frames' keys) kept. ``comparison``
    itself when nothing needs escaping."""
    shown = escaper(output_format)

    def escaped(text):
        return text if text is None else shown(text)

    def topics(held):
        return list(map(escaped, held))

    def each(mapping, show):  # run -> its topics (or its qrels path), each shown by show
        return None if mapping is None else {escaped(k): show(v) for k, v in mapping.items()}

    fields = {
        "sections": [
            replace(section, field=escaped(section.field), value=escaped(section.value))
            for section in comparison.sections
        ],
        "runs": list(map(escaped, comparison.runs)),
        "baseline": escaped(comparison.baseline),
        "missing": each(comparison.missing, topics),
        "unpaired": each(comparison.unpaired, topics),
        "scoreless": None if comparison.scoreless is None else topics(comparison.scoreless),
        "run_qrels": each(comparison.run_qrels, escaped),
        "ontology": _escaped_record(comparison.ontology, ("release", "source"), escaped),
        "evaluation": _escaped_record(comparison.evaluation, READ_TEXTS, escaped),
        "warnings": [_escaped_warning(warning, escaped) for warning in comparison.warnings],
    }
    qids = {qid: escaped(qid) for qid in comparison.queries}
    if all(fields[name] == getattr(comparison, name) for name in fields) and all(
        qid == printed for qid, printed in qids.items()
    ):
        return comparison
    for name, columns in _NAMED.items():
        frame = getattr(comparison, name)
        fields[name] = frame.assign(
            **{
                column: frame[column].map(escaped, na_action="ignore")
                for column in columns
                if column in frame.columns
            }
        )
    return replace(comparison, **fields)


class _EscapedWarning(str):
    """A :class:`~trecbench.escaping.ShownWarning`'s text escaped, still naming the option
    that let through what it warns of (``allowed_by``), for the header's label."""

    allowed_by: str | None = None


def _escaped_warning(warning: str, escaped) -> str:
    """A warning of :attr:`Comparison.warnings` with the input text it quotes escaped: a
    :class:`~trecbench.escaping.ShownWarning` (an unjudged run's, a grouping's one stratum)
    shows it by ``escaped``; prose is kept as it is."""
    if not isinstance(warning, ShownWarning):
        return warning
    text = _EscapedWarning(warning.text(escaped))
    text.allowed_by = warning.allowed_by
    return text


# the texts of a comparison's ``evaluation`` read from the command line's inputs: paths
# and a topic id, escaped as every other input text
READ_TEXTS = ("ontology", "zscores", "debug_query")


def _escaped_record(record: Mapping | None, keys: tuple[str, ...], escaped) -> dict | None:
    """``record`` with the text under each of ``keys`` escaped."""
    if record is None:
        return None
    return {
        key: escaped(value) if key in keys and isinstance(value, str) else value
        for key, value in record.items()
    }
