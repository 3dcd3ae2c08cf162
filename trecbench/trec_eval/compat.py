"""The two trec_eval versions trecbench reproduces, and every difference between them.

``9.0.8`` (the default) is what pytrec_eval embeds and what most published numbers come
from; ``10.0`` is upstream's current release (usnistgov/trec_eval, tag v10.0, printing
``10.0-rc3`` for ``-v``). Found by diffing the two source trees (after 10.0's reindent):

* scores and preference levels are ``double`` in 10.0 (``float`` in 9.0.8): scores equal at
  float32 precision no longer tie;
* ``iprec_at_recall`` and ``11pt_avg`` turn recall fractions into document counts with
  ``lround`` (9.0.8: add 0.9 and truncate);
* new measures ``rbp``, ``rbp_resid``, ``unj`` (all three in ``all_trec``, whose lists the
  measure catalog holds: ``ALL_TREC``), ``dcg`` and ``ideal_dcg``; gain maps ignore entries
  whose grade is not an integer (9.0.8 reads ``a=2`` as grade 0);
* topics are taken from the qrels: with ``-c`` a qrels topic missing from the run is
  evaluated on a one-document placeholder ranking (and printed with ``-q``), without
  ``-c`` it stops trec_eval (exit 4, after printing the topics before it);
* ``#`` comment lines in runs (first field starting with ``#``) and qrels (a line starting
  with ``#``); ``-`` reads the run from standard input;
* ``ndcg``, ``dcg`` and ``ideal_dcg`` share one parameter list (10.0 crashes when two of them
  are requested and one has parameters: trecbench refuses that).
* a sum meeting a second NaN (``-Z``'s z-scores of ``nan`` or ``-nan`` means) keeps the NaN
  added in 9.0.8's build and the NaN summed so far in 10.0's: an ``all`` line of z-scores
  ``nan`` then ``-nan`` prints ``-nan`` in 9.0.8 and ``nan`` in 10.0 (the reference builds;
  which operand x86's addition keeps is the compiler's choice).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError


@dataclass(frozen=True)
class Compat:
    """What one trec_eval version does, as flags the readers and engines consult."""

    version: str
    float32: bool  # scores and preference levels held as C float
    new_measures: frozenset[str]  # families that exist only from this version on
    rounded_recall_cutoffs: bool  # lround in iprec_at_recall / 11pt_avg
    integer_gain_names: bool  # gain maps skip non-integer grades
    topics_from_qrels: bool  # -c placeholder rankings; a missing topic is fatal without -c
    comments: bool  # '#' lines in runs and qrels
    last_nan_kept: bool  # a sum meeting a second NaN keeps the one added (its sign)


V9 = Compat(
    version="9.0.8",
    float32=True,
    new_measures=frozenset(),
    rounded_recall_cutoffs=False,
    integer_gain_names=False,
    topics_from_qrels=False,
    comments=False,
    last_nan_kept=True,
)
V10 = Compat(
    version="10.0",
    float32=False,
    new_measures=frozenset({"rbp", "rbp_resid", "unj", "dcg", "ideal_dcg"}),
    rounded_recall_cutoffs=True,
    integer_gain_names=True,
    topics_from_qrels=True,
    comments=True,
    last_nan_kept=False,
)
COMPATS = {c.version: c for c in (V9, V10)}
DEFAULT = V9.version
# families measured on a shared parameter list in 10.0 (m_ndcg.c's default_ndcg_gains)
SHARED_GAIN_PARAMS = ("ndcg", "dcg", "ideal_dcg")


def get(version: str | Compat) -> Compat:
    """The :class:`Compat` of ``version`` ("9.0.8" or "10.0"; "10" is accepted)."""
    if isinstance(version, Compat):
        return version
    version = {"10": "10.0", "9": "9.0.8"}.get(str(version), str(version))
    try:
        return COMPATS[version]
    except KeyError:
        raise UsageError(
            f"unknown trec_eval version '{version}' (choose from {', '.join(COMPATS)})"
        ) from None
