"""Power and agreement results as a terminal table, Markdown, JSON and (power) LaTeX.

Computation lives in :mod:`.power` and :mod:`.agree`; this module only formats. Numbers
are shown with four decimals, one that is not 0 but would read 0 so in scientific notation
(:func:`~trecbench.number_text.value_text`; JSON: full precision); an undefined
figure is ``–`` (LaTeX: ``--``; JSON: null) and its reason is listed under the table. Text
read from an input (run names, qrels paths) is escaped reversibly where it is shown, as
``score`` escapes it (:func:`~trecbench.escaping.escaper`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..escaping import escaper
from ..markdown_text import markdown_cell
from ..number_text import below_one_text, value_text
from ..plurals import counted
from ..renderers.text_tables import LATEX_UNDEFINED, UNDEFINED, aligned
from ..text_bytes import json_dumps

FORMATS = ("table", "markdown", "json", "latex")


def _undefined_mark(fmt: str) -> str:
    """An undefined figure as ``fmt``'s tables show it, for a note to name it so."""
    return LATEX_UNDEFINED if fmt == "latex" else UNDEFINED


def _number(value: float | None, signed: bool = False) -> str:
    if value is None:
        return UNDEFINED
    return value_text(value, signed)  # 0 unsigned: no sign to read


def _count(value: int | None) -> str:
    return UNDEFINED if value is None else f"{value:,}"


def grid(headers: Sequence[str], rows: Sequence[Sequence[str]], fmt: str) -> str:
    """Rows under headers, text left and numbers right (a column of numbers, or of
    undefined figures, throughout): aligned columns, a Markdown table or a LaTeX
    (booktabs) tabular."""
    numeric = {i for i in range(len(headers)) if rows and all(_is_number(row[i]) for row in rows)}
    if fmt == "latex":
        from ..renderers.comparison_text import booktabs, latex_cell, latex_escape

        escaped = ([latex_cell(c) for c in row] for row in rows)
        columns = "".join("r" if i in numeric else "l" for i in range(len(headers)))
        return "\n".join(booktabs(columns, [latex_escape(h) for h in headers], escaped)) + "\n"
    if fmt == "markdown":
        align = ["---:" if i in numeric else "---" for i in range(len(headers))]
        cells = [[markdown_cell(cell) for cell in row] for row in [headers, *rows]]
        return "".join("| " + " | ".join(row) + " |\n" for row in [cells[0], align, *cells[1:]])
    return "".join(line + "\n" for line in aligned([list(headers), *map(list, rows)], numeric))


# a number's cell: 1,355, -0.0123, and a tiny value's 1.7e-15 (value_text)
_NUMBER = re.compile(r"[+-]?[\d,]*\d(\.\d+)?(e[+-]\d+)?")


def _is_number(cell: str) -> bool:
    return cell == UNDEFINED or _NUMBER.fullmatch(cell) is not None


def _note(text: str, fmt: str) -> str:
    """A note under a table, after a blank line: every note of every format comes through
    here, so that in LaTeX each of its lines is a comment (its words, underscores and
    percent signs are no LaTeX)."""
    if fmt == "latex":
        text = "\n".join(f"% {line}" for line in text.split("\n"))
    return f"\n{text}\n"


def _json(document: dict) -> str:
    return json_dumps(document, indent=2, allow_nan=False) + "\n"


def _check(fmt: str, allowed: Sequence[str]) -> None:
    from ..errors import UsageError

    if fmt not in allowed:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(allowed)}")


POWER_HEADERS = ("run", "measure", "topics", "difference", "d_z", "power", "MDE", "topics needed")


def _power_rows(result, name: Callable[[str], str]) -> list[list[str]]:
    return [
        [
            name(row.run),
            row.measure,
            _count(row.n_topics),
            _number(row.mean_difference, True),
            _number(row.effect_size, True),
            UNDEFINED if row.power is None else below_one_text(row.power),  # never 1
            _number(row.mde),
            _count(row.topics_needed),
        ]
        for row in result.rows
    ]


def render_power(
    result, fmt: str = "table", name: Callable[[str], str] | None = None, opening: bool = True
) -> str:
    """A :class:`~trecbench.conclusions.power.PowerResult` as ``fmt`` (:data:`FORMATS`),
    a run's name shown by ``name`` (default: as ``fmt`` escapes it,
    :func:`~trecbench.escaping.escaper`; the HTML page's table isolates one
    written right to left, ``escaper("html")``); in LaTeX opened by the package its
    tabular needs, unless ``opening`` is False (within compare's, whose opening says it)."""
    if fmt == "latex" and opening:
        from ..renderers.comparison_text import needs_booktabs

        head = needs_booktabs("power", "a tabular") + "\n"
        return head + render_power(result, fmt, name, opening=False)
    _check(fmt, FORMATS)
    if fmt == "json":
        return _json(result.to_dict())
    settings, name = result.settings, name or escaper(fmt)
    legend = [
        f"Baseline: {name(result.baseline)}; paired two-sided t-test at alpha {settings.alpha}, "
        f"target power {settings.target}",
        "difference: mean of run - baseline over topics; d_z: difference / sd; power: at "
        "these topics for d_z;",
        "MDE: smallest difference detectable at the target power; topics needed: to detect "
        "d_z at it",
    ]
    if fmt == "latex":  # the legend as comments above the tabular, as agree's titles
        head = "".join(f"% {line}\n" for line in legend)
        return head + _power_latex(result) + _power_notes(result, name, fmt)
    if fmt == "markdown":
        head = f"{legend[0]}\n\n{legend[1]} {legend[2]}\n\n"
    else:
        head = "\n".join(legend) + "\n\n"
    return (
        head + grid(POWER_HEADERS, _power_rows(result, name), fmt) + _power_notes(result, name, fmt)
    )


def _power_notes(result, name: Callable[[str], str], fmt: str) -> str:
    """Why a row's figures are undefined (or left out), one line a row, under the table (in
    Markdown a list item each: lines one under the other would join into one paragraph)."""
    lines = [f"{name(r.run)}, {r.measure}: {r.reason}" for r in result.rows if r.reason]
    if fmt == "markdown":
        lines = [f"- {markdown_cell(line)}" for line in lines]
    return _note("\n".join(lines), fmt) if lines else ""


def _power_latex(result) -> str:
    from ..renderers.comparison_text import booktabs, latex_cell

    header = [r"$d_z$" if name == "d_z" else name for name in POWER_HEADERS]
    rows = ([latex_cell(c) for c in row] for row in _power_rows(result, escaper("latex")))
    columns = "ll" + "r" * (len(POWER_HEADERS) - 2)
    return "\n".join(booktabs(columns, header, rows)) + "\n"


def _agree_opening(fmt: str) -> str:
    """What agree's output opens with: in LaTeX, the package its tabulars need."""
    if fmt != "latex":
        return ""
    from ..renderers.comparison_text import needs_booktabs

    return needs_booktabs("agree", "one tabular per part") + "\n\n"


def render_agreement(result, fmt: str = "table") -> str:
    """An :class:`~trecbench.conclusions.agree.Agreement` as ``table``, ``markdown``,
    ``json`` or ``latex`` (one tabular per part, each titled by a comment)."""
    _check(fmt, FORMATS)
    if fmt == "json":
        return _json(result.to_dict())
    title = {"markdown": "## ", "latex": "% "}.get(fmt, "")
    settings, name = result.settings, escaper(fmt)
    parts = [
        _agree_opening(fmt),
        f"{title}Means\n\n",
        grid(("run", *result.measures), _means_rows(result, name), fmt),
    ]
    if result.measure_orderings:
        parts += [
            f"\n{title}Orderings of the runs by two measures (tau_ap: the second measure's "
            "ordering against the first's)\n\n",
            _orderings(result.measure_orderings, ("reference", "evaluated"), fmt),
            _undirected(result, fmt),
        ]
    from ..statistical_tests import SAMPLES, get

    test = get(settings.test)
    correction = settings.applied_correction + (": family-wise" if settings.family_wise else "")
    drawn = (
        f", {settings.samples:,} samples, seed {settings.seed}" if SAMPLES in test.options else ""
    )
    parts += [
        f"\n{title}Discriminative power: pairs of runs significantly different at alpha "
        f"{settings.alpha} ({settings.test} test{drawn}, correction {correction})\n\n",
        grid(DISCRIMINATION_HEADERS, _discrimination_rows(result), fmt),
        _discrimination_notes(result, fmt),
    ]
    if result.judgments is not None:
        parts.append(_judgments(result, title, fmt, name))
    return "".join(parts)


def _undirected(result, fmt: str) -> str:
    """Which measures have no better direction (counts such as num_ret): their orderings
    put the highest value first, an order tau_ap weighs but no one prefers."""
    from ..measures import better

    undirected = [m for m in result.measures if better(m) is None]
    if not undirected:
        return ""
    return _note(
        f"{', '.join(undirected)}: no better direction; the runs are ordered by value, "
        "highest first",
        fmt,
    )


DISCRIMINATION_HEADERS = (
    "measure",
    "pairs",
    "significant",
    "share",
    "smallest significant difference",
)


def _means_rows(result, name: Callable[[str], str], means=None) -> list[list[str]]:
    """A row per run of its ``means`` (the result's: under the first judgments)."""
    return [
        [name(run), *(_number(value) for value in row)]
        for run, row in zip(result.runs, result.means if means is None else means, strict=True)
    ]


def _discrimination_rows(result) -> list[list[str]]:
    return [
        [
            d.measure,
            _count(d.pairs),
            _count(d.significant),
            _number(d.discriminative_power),
            _number(d.smallest_significant_difference),
        ]
        for d in result.discriminative_power
    ]


def _discrimination_notes(result, fmt: str) -> str:
    """Why a measure's share is undefined (too few topics or resamples for the test), or
    which of its pairs have no p-value (counted not significant), under its table."""
    notes, name = [], escaper(fmt)
    for d in result.discriminative_power:
        if d.reason is not None:  # the share is a figure (–) only where the test reaches α
            mark = f"{_undefined_mark(fmt)} " if d.discriminative_power is None else ""
            notes.append(_note(f"{mark}{d.measure}: {d.explained(name)}", fmt))
    return "".join(notes)


def _orderings(rows, names: tuple[str, str], fmt: str) -> str:
    return grid(
        (*names, "kendall_tau", "tau_ap"),
        [
            [o.reference, o.evaluated, _number(o.kendall_tau, True), _number(o.tau_ap, True)]
            for o in rows
        ],
        fmt,
    ) + _ties_every_run(rows, fmt)


# said under a table where an ordering ties runs: tau_ap 0.5 of two orderings alike read
# as a disagreement
TIES_AVERAGED = (
    "tau_ap of orderings that tie runs (equal means) is its mean over every order of the "
    "tied runs, each alike: two orderings tying the same runs score below +1 (kendall_tau, "
    "tau-b, gives them +1)"
)


def _ties_every_run(rows, fmt: str) -> str:
    """Why an ordering's kendall_tau and tau_ap are undefined, under its table (each
    reason once), and how tau_ap counts tied runs where an ordering it gives ties some."""
    reasons = dict.fromkeys(o.reason for o in rows if o.reason is not None)
    notes = [_note(f"{_undefined_mark(fmt)}: undefined, {reason}", fmt) for reason in reasons]
    if any(o.ties and o.tau_ap is not None for o in rows):
        notes.append(_note(TIES_AVERAGED, fmt))
    return "".join(notes)


def _negative_grades(j, fmt: str) -> str:
    """The note on the documents a set grades negative, left out as unjudged ("" when
    there is none): counting them as judged gave another kappa without a word."""
    if not (j.negative_a or j.negative_b):
        return ""
    graded = f"{counted(j.negative_a, 'document')} graded negative in A, {j.negative_b:,} in B"
    return _note(
        f"left out of both kappas as unjudged: {graded} (a negative grade is in the pool, "
        "unjudged, as trec_eval reads it); where the other set judges one, it counts as "
        "judged only there",
        fmt,
    )


def _topics_apart(result, fmt: str) -> str:
    """The note under the means under B when A's and B's means are over other topics ("" when
    over the same): the orderings compared then differ by more than the judgments."""
    a, b = set(result.topics), set(result.topics_b)
    if a == b:
        return ""
    return _note(
        f"the means under B are over {counted(len(b), 'topic')}, those under A over "
        f"{len(a):,} ({len(a & b):,} in both; the warnings name the topics a set lacks): "
        "the orderings compared below differ in their topics, not only in their judgments",
        fmt,
    )


def _judgments(result, title: str, fmt: str, name: Callable[[str], str]) -> str:
    j = result.judgments
    headers = (
        "judged in both",
        "only in A",
        "only in B",
        f"cohen_kappa (grade >= {j.relevance_level})",
        "weighted kappa (linear)",
    )
    row = [_count(j.both), _count(j.only_a), _count(j.only_b)]
    row += [_number(j.cohen_kappa, True), _number(j.weighted_kappa, True)]
    note = (_note(j.reason, fmt) if j.reason else "") + _negative_grades(j, fmt)
    rows = [
        [o.reference, _number(o.kendall_tau, True), _number(o.tau_ap, True)]
        for o in result.qrels_orderings
    ]
    return (
        f"\n{title}Two sets of judgments: {name(str(result.qrels))} (A) and "
        f"{name(str(result.qrels_b))} (B)\n\n"
        + grid(headers, [row], fmt)
        + note
        + f"\n{title}Means under B\n\n"
        + grid(("run", *result.measures), _means_rows(result, name, result.means_b), fmt)
        + _topics_apart(result, fmt)
        + f"\n{title}Orderings of the runs under A (reference) and B, per measure\n\n"
        + grid(("measure", "kendall_tau", "tau_ap"), rows, fmt)
        + _ties_every_run(result.qrels_orderings, fmt)
    )
