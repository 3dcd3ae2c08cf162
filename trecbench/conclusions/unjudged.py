"""Unjudged sensitivity: how much a run's score could move had its unjudged documents been
judged.

Per run and reported value (a measure's column): ``low`` is the value as trec_eval computes
it, unjudged documents counting as non-relevant; ``high`` the value with every unjudged
document the measure looks at judged relevant at the highest grade of the qrels. A column
with a cutoff ``k`` (``P_10``, ``ndcg_cut_10``, ``recip_rank_cut_10``...) looks at the run's
top ``k``; one without looks at every retrieved document (to ``-M``). So ``high`` equals
trec_eval on the qrels with those documents added, run by run (only for topics the qrels
judge: a topic without judgments stays out, as trec_eval leaves it out). ``unjudged`` is the
share of the documents the column looks at that are unjudged, over all topics. ``high`` is
n/a (:attr:`UnjudgedBound.high_undefined`) where the qrels' top grade is below the level
at which the column's measure counts a document relevant (its ``rel``, else ``-l``) and
the value stays ``low``: no unjudged document can then be judged relevant (a measure that
gives them credit all the same, nDCG whose gains ignore ``-l``, keeps its ``high``).

``high`` is not always above ``low``: a measure whose ideal changes with the judgments
(nDCG's ideal DCG, R-precision's R) can fall when documents become relevant, and a
judgment of only some of the documents can take it beyond either end.

**When two runs' ranges bound their difference** (``compare --unjudged-bounds``' could
flip, :func:`trecbench.evaluation.bounds.difference_unbounded`). Judge the unjudged
documents of both runs at any grades up to the qrels' top grade (a document both runs
retrieved gets one grade). A family whose registry entry says it reads only its own
judgments (``judgments``: ``OWN_JUDGMENTS``, or ``OWN_JUDGMENTS_WITHOUT_PARAMS`` and no
parameter list) has, on a topic, a value that depends on the grades of the documents the
run retrieved within its cutoff and on nothing else of the qrels, and that never falls
when one of those grades rises; trec_eval's ranking (score, then docno) does not read the
judgments, and an unjudged document (or one at a negative grade) counts as one at grade
0 does. Then each run's topic value lies between its value with those documents at grade
0 (``low``) and at the top grade (``high``), whatever the other run's documents get;
means and sums over the compared topics keep the order. So the difference stays between
its lowest end (this run's lowest value less the other's highest) and its highest end,
and its sign **could flip** only when those ends allow the other sign: a difference
observed above 0 only when the lowest end is below 0, one below 0 only when the highest
end is above 0 (strictly: ranges that only touch let the runs tie at best, every unjudged
document of one run relevant and every one of the other not, and a tie reverses no
order), and a difference of 0 when either end is not 0 (a tie that judgments could turn
into a difference either way; one that stays 0 whatever the judgments is no flip). Ends
equal on paper (:func:`~trecbench.rounding.rounding_noise`) are equal. Could flip is a
may: a document both runs retrieved gets one grade, which the two ranges, taken apart,
ignore; ranges that allow no flip prove there is none. The families (relevant: a grade
>= the relevance level, at least 1):

* ``P`` (either denominator: k, or the documents retrieved in the top k), ``num_rel_ret``,
  ``set_P``: counts of relevant documents among the run's own (the denominator does not
  read the grades);
* ``recip_rank``, ``MRR@k``: 1 over the rank of the run's first relevant document, which
  can only move up;
* ``success``, ``HitRate@k``: whether one of its top k is relevant;
* ``num_ret``: reads no judgment;
* 10.0's ``dcg`` without a gain map: the sum of its documents' gains over log2(rank + 1),
  a grade's gain the grade itself (0 for a negative grade, as for an unjudged document).

Not so: a measure normalised by the qrels (nDCG's ideal DCG; MAP's, recall's and
R-precision's R; bpref's R and N; a gain scale from the qrels' grades), where a judgment of
the other run's document moves this run's value too; ``dcg`` with a gain map (a grade may
gain less than a lower one); and any measure under ``-J`` (``judged_only``), where a
document judged non-relevant enters the ranking and can push a relevant one past the
cutoff, below ``low``. Their could flip is n/a, with the reason. A grade above the
qrels' top grade is outside the model: the ranges are over the grades the qrels use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class UnjudgedBound:
    """One run's column: its value (``low``), ``high``, the ``unjudged`` share of the
    documents it looks at, ``difference_unbounded``: why two runs' ranges of the
    measure do not bound their difference (see the module docstring), None when they
    do, and ``high_undefined``: why ``high`` is n/a, None when it is the value with every
    unjudged document relevant (the qrels' top grade below the measure's relevance
    level makes none relevant, and ``high`` is ``low``; the ranges still bound).
    ``count``: whether the values are counts (``num_ret``..., the registry's
    :data:`~trecbench.measures.COUNTS`), printed and recorded as integers, as score prints
    them. ``low_undefined``: why the value is no low end (under -J: a judgment of the
    documents it leaves out can take the value below it), None when it is one."""

    run: str
    measure: str
    low: float
    high: float
    unjudged: float
    difference_unbounded: str | None
    high_undefined: str | None = None
    count: bool = False
    low_undefined: str | None = None

    def flips(self, other: UnjudgedBound) -> bool | None:
        """Whether the sign of ``self - other`` could change had the unjudged documents
        been judged: whether the ranges let the difference take the other sign (one
        observed as 0: any sign), see the module docstring; None when they do not bound
        the difference (:attr:`difference_unbounded` says why)."""
        if self.difference_unbounded or other.difference_unbounded:
            return None
        from ..rounding import rounding_noise, value_scale

        mine, theirs = sorted((self.low, self.high)), sorted((other.low, other.high))
        ends = [*mine, *theirs]  # the values' last bits, at their own size (RBP's 1e-15)
        noise = float(rounding_noise(ends, value_scale(ends))[0])

        def sign(difference: float) -> int:
            return 0 if abs(difference) <= noise else 1 if difference > 0 else -1

        observed = sign(self.low - other.low)
        reachable = {sign(mine[0] - theirs[1]), sign(mine[1] - theirs[0])}
        return bool(reachable - {0, observed})

    def plain(self, value: float) -> float | int:
        """An end of this bound as score's JSON and CSV hold a value: a count as an
        integer (``2800``, not ``2800.0``)."""
        return int(value) if self.count else value

    def to_json(self) -> dict:
        return {
            "run": self.run,
            "measure": self.measure,
            "value": self.plain(self.low),
            "low": None if self.low_undefined else self.plain(self.low),
            "low_undefined": self.low_undefined,
            "high": None if self.high_undefined else self.plain(self.high),
            "high_undefined": self.high_undefined,
            "unjudged": self.unjudged,
        }


def unjudged_bounds(
    qrels, runs, measures=None, *, names=None, topics=None, sidecar=None, **options
) -> list[UnjudgedBound]:
    """:class:`UnjudgedBound` of every run and column (see the module docstring); ``runs``
    and ``measures`` as :func:`trecbench.evaluate` takes them, with its ``options``
    (``relevance_level``, ``max_docs``...). Each run is read once: its bounds are kept as
    it is scored (``evaluate(..., unjudged_bounds=True)``), so a pipe serves as well as a
    file. ``topics``: only these count, each for every run (a run without results for
    one scores 0 on it, trec_eval ``-c``), as in the comparison the bounds are set
    against (its ``queries``); a topic the qrels do not hold is refused (it has no
    bounds: trec_eval leaves a topic without judgments out). ``sidecar``: a sidecar of
    ``trecbench convert``; a run whose qrels it describes as complete
    (:func:`trecbench.strata.vouches`) has no unjudged relevant document: ``high`` is
    ``low``, n/a with that reason.

    >>> bounds = unjudged_bounds("qrels.txt", ["bm25.run"], ["nDCG@10"])  # doctest: +SKIP
    >>> bounds[0].low, bounds[0].high  # doctest: +SKIP
    """
    from ..evaluation import evaluate
    from ..outputs import input_scope

    with input_scope():  # the sidecar read once, before the runs are scored
        _read_sidecar(sidecar)
        evaluation = evaluate(qrels, runs, measures, names=names, unjudged_bounds=True, **options)
        return evaluation_bounds(evaluation, topics, sidecar)


def evaluation_bounds(evaluation, topics=None, sidecar=None) -> list[UnjudgedBound]:
    """The bounds an :class:`~trecbench.evaluation.Evaluation` kept as it scored its runs
    (``evaluate(..., unjudged_bounds=True)``): over each run's topics, its values as the
    evaluation summarised them (score's), or over ``topics``, and with the ``sidecar``'s
    complete qrels, as :func:`unjudged_bounds` says."""
    from ..errors import Setting, UsageError
    from ..evaluation.assembly import bound_rows

    if any(run.unjudged_high is None for run in evaluation.runs):
        raise UsageError("unjudged bounds were not kept: evaluate(..., unjudged_bounds=True)")
    if topics is not None:
        from ..naming import listed

        # a string is refused: topics="12" bounded topics '1' and '2', not '12'
        topics = listed(topics, "topics", "topic ids", unordered=True)
        judged = set(evaluation.qrels_topics)
        missing = [topic for topic in topics if topic not in judged]
        if missing:  # dropped, the bounds would be over fewer topics than asked
            raise UsageError(
                Setting("topics"),
                f": the qrels do not judge topic {missing[0]!r}"
                + (f" (nor {len(missing) - 1:,} more)" if len(missing) > 1 else ""),
            )
    complete = set()
    if _read_sidecar(sidecar):  # strata imports pandas: only with a sidecar
        from ..strata import vouched_runs

        complete = vouched_runs(evaluation, sidecar)
    return [UnjudgedBound(*row) for row in bound_rows(evaluation, topics, complete)]


def _read_sidecar(sidecar) -> bool:
    """Whether a ``sidecar`` is given: a path, read (once in a call: what
    :func:`trecbench.strata.vouches` reads of it is kept), else a
    :class:`~trecbench.errors.UsageError`; None: none given."""
    import os

    if sidecar is None:
        return False
    if not isinstance(sidecar, (str, os.PathLike)):
        from ..errors import Setting, UsageError
        from ..type_names import python_type

        raise UsageError(
            Setting("sidecar"),
            f": give the path of a sidecar 'trecbench convert' wrote, not {python_type(sidecar)}",
        )
    from ..strata import read_sidecar

    read_sidecar(sidecar)
    return True


# the table's title: the terminal table's first line, score's Markdown's bold line
TITLE = "unjudged sensitivity (high: every unjudged document the measure looks at relevant)"


def render_bounds(bounds: list[UnjudgedBound], output_format: str, asked=None, name=None) -> str:
    """``score --unjudged-bounds``' table after the scores: per run and measure the value,
    the high end and the unjudged share of what the measure looks at (the table and the
    Markdown of :mod:`trecbench.renderers.text_tables`, a LaTeX tabular under its title
    as a comment, ``compare --format latex``'s; in CSV rows of score's tidy table,
    ``<measure>:unjudged_high`` and ``:unjudged_share``, under each name ``asked`` gives
    the measure, display name -> names; a run's name escaped as ``score`` escapes it,
    :func:`~trecbench.escaping.escaper`, or by ``name``: the HTML page's table
    isolates one written right to left, ``escaper("html")``). A count's values
    (:attr:`UnjudgedBound.count`) print as integers, as score prints them. A high end that is n/a
    (:attr:`UnjudgedBound.high_undefined`) says so, its reason in a line after the
    table."""
    from functools import partial

    from ..escaping import escaper
    from ..number_text import value_text
    from ..plurals import share_percent
    from ..renderers.text_tables import aligned, csv_line, markdown_table, table_value

    if output_format == "csv":
        named = asked or {}
        return "".join(
            csv_line([b.run, "all", f"{name}:{side}", f"{b.measure}:{side}", value])
            for b in bounds
            for name in named.get(b.measure, [b.measure])
            for side, value in (
                ("unjudged_high", _high(b, b.plain)),
                ("unjudged_share", b.unjudged),
            )
        )
    # under -J the value is no low end: said after the table
    value = "value" if any(b.low_undefined for b in bounds) else "value (low)"
    header = ["run", "measure", value, "high", "unjudged"]
    name = name or escaper(output_format)

    def number(bound: UnjudgedBound, value: float) -> str:  # a count as score prints it
        if bound.count:
            return str(bound.plain(value))
        return value_text(value) if math.isnan(value) else table_value(value)  # n/a: noted

    rows = [  # a row under each name the scores use (-m P.1 -m P@1: both, --labels'), as CSV
        [name(b.run), shown, number(b, b.low), _high(b, partial(number, b), "n/a"),
         share_percent(b.unjudged)]
        for b in bounds
        for shown in (asked or {}).get(b.measure, [b.measure])
    ]  # fmt: skip
    noted: dict[str, list[str]] = {}  # each note under the table: the rows it is said of
    for b in bounds:
        for why in [*_undefined_ends(b), *_falling(b, partial(number, b))]:
            shown = (asked or {}).get(b.measure, [b.measure])[0]  # as its row names it
            noted.setdefault(why, []).append(f"{name(b.run)}, {shown}")
    notes = [f"{why} — {'; '.join(which)}" for why, which in noted.items()]
    if output_format == "latex":  # the title and the notes as comments, as power's legend
        from ..renderers.comparison_text import booktabs, latex_escape

        cells = ([latex_escape(cell) for cell in row] for row in rows)
        tabular = booktabs("llrrr", [latex_escape(cell) for cell in header], cells)
        return "".join(f"{line}\n" for line in [f"% {TITLE}", *tabular, *map("% {}".format, notes)])
    if output_format == "markdown":
        table = markdown_table(header, rows, {2, 3, 4})
        # in Markdown a line right after a table is one more row of it: paragraphs apart
        return "\n".join(table) + "\n" + "".join(f"\n{note}\n" for note in notes)
    return "\n".join([TITLE, *aligned([header, *rows], set()), *notes]) + "\n"


def _high(bound: UnjudgedBound, form=str, undefined=None):
    """``bound``'s high end as ``form`` writes it (a table's text: value_text, never 0 where
    RBP(p=0.01)'s tiny values are not), or ``undefined`` where it is n/a (not
    the value with every unjudged document relevant, or a value the measure does not
    define: trec_eval's ``-nan``)."""
    if bound.high_undefined or math.isnan(bound.high):
        return undefined
    return form(bound.high)


# an end that is NaN: trec_eval prints -nan (a topic's 0/0, which a mean carries on)
_NAN = "the measure's value is undefined here (trec_eval prints -nan)"


def _undefined_ends(bound: UnjudgedBound) -> list[str]:
    """Why each end of ``bound`` that its table shows as n/a is, as the note says it."""
    reasons = []
    if bound.low_undefined:
        reasons.append(f"low n/a: {bound.low_undefined}")
    if math.isnan(bound.low):  # the column's name: "value" under -J, where it is no low
        reasons.append(f"{'value' if bound.low_undefined else 'value (low)'} n/a: {_NAN}")
    if bound.high_undefined:
        reasons.append(f"high n/a: {bound.high_undefined}")
    elif math.isnan(bound.high):
        reasons.append(f"high n/a: {_NAN}")
    return reasons


# said under a table whose high lies below its value: "high" names the value with every
# unjudged document relevant, which such a measure's value falls to
_FALLS = (
    "high below the value: this measure falls with its unjudged documents judged relevant "
    "(an ideal or an R that grows with the judgments, a negative coefficient of utility)"
)


def _falling(bound: UnjudgedBound, form) -> list[str]:
    """:data:`_FALLS` where ``bound``'s high, shown, lies below its value (its low, or
    under -J the value alone) as ``form`` shows the two (equal there: nothing to say)."""
    below = not bound.high_undefined and bound.high < bound.low  # NaN compares false
    return [_FALLS] if below and form(bound.high) != form(bound.low) else []


def with_unjudged_bounds(comparison):
    """``comparison`` (a :class:`~trecbench.comparison.Comparison` whose runs were scored
    with ``unjudged_bounds=True``) with ``unjudged``: each run's :class:`UnjudgedBound` per
    measure over the compared topics and, for each run against the baseline, whether the
    difference's sign could flip within the two runs' ranges (n/a, with the reason, where
    the ranges do not bound the difference). ``compare --unjudged-bounds``."""
    import dataclasses

    from ..errors import UsageError

    if comparison.unjudged_values is None:
        raise UsageError(
            "the unjudged bounds are kept as the runs are scored: compare(..., "
            "unjudged_bounds=True)"
        )
    bounds = [UnjudgedBound(*values) for values in comparison.unjudged_values]
    return dataclasses.replace(comparison, unjudged_sensitivity=UnjudgedSensitivity(
        comparison.baseline, bounds))  # fmt: skip


@dataclass(frozen=True)
class UnjudgedSensitivity:
    """Every run's bounds, and which differences against ``baseline`` could flip."""

    baseline: str
    bounds: list[UnjudgedBound]

    def flips(self) -> list[tuple[str, str, bool | None, str | None]]:
        """``(run, measure, could the sign of run - baseline flip, why that is n/a)`` for
        each other run: None and the reason where the ranges do not bound the
        difference."""
        base = {b.measure: b for b in self.bounds if b.run == self.baseline}
        return [
            (b.run, b.measure, b.flips(base[b.measure]),
             b.difference_unbounded or base[b.measure].difference_unbounded)
            for b in self.bounds
            if b.run != self.baseline and b.measure in base
        ]  # fmt: skip

    def to_json(self) -> dict:
        """The rows with ``could_flip`` (None for the baseline's, and where the ranges do
        not bound the difference) and ``could_flip_undefined`` (why it is None there)."""
        flips = {(run, measure): (flip, why) for run, measure, flip, why in self.flips()}
        rows = []
        for bound in self.bounds:
            flip, why = flips.get((bound.run, bound.measure), (None, None))
            rows.append(bound.to_json() | {"could_flip": flip, "could_flip_undefined": why})
        return {"baseline": self.baseline, "rows": rows}

    def render(self, fmt: str, name=None) -> str:
        """The bounds table, then each difference whose sign could flip (of the measures
        whose ranges bound a difference; the runs' names shown as in the table, by
        ``name``: :func:`render_bounds`), then per reason the differences whose could flip
        is n/a."""
        from ..escaping import escaper

        name = name or escaper(fmt)
        text = render_bounds(self.bounds, fmt, name=name)
        flips = [
            (f"{name(run)} vs {name(self.baseline)}, {measure}", flip, why)
            for run, measure, flip, why in self.flips()
        ]
        lines = []
        bounded = [(pair, flip) for pair, flip, why in flips if why is None]
        if bounded:
            said = "; ".join(pair for pair, flip in bounded if flip) or "none"
            lines.append(f"differences whose sign could flip within the ranges: {said}")
        undefined: dict[str, list[str]] = {}
        for pair, _, why in flips:
            if why is not None:
                undefined.setdefault(why, []).append(pair)
        lines += [f"could flip n/a: {why} — {'; '.join(pairs)}" for why, pairs in undefined.items()]
        # in Markdown a line right after a table is one more row of it: paragraphs apart;
        # in LaTeX each is a comment under the tabular
        gap = {"markdown": "\n", "latex": "% "}.get(fmt, "")
        return text + "".join(f"{gap}{line}\n" for line in lines)
