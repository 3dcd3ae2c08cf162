"""Compare runs: means with bootstrap intervals, differences against a baseline, paired
significance tests and multiple-comparison correction — overall, per stratum and as macro
means over strata; topic movers, every pair of runs, tie bounds.

:func:`compare` scores the runs with :func:`trecbench.evaluate` (each against the qrels it
was given: one shared qrels, or each run its own) and hands the per-query values to
:func:`compare_scores`, which does the statistics (see :mod:`trecbench.stats` for the
conventions) on one ``queries x runs x measures`` array per section. Rendering is
:mod:`trecbench.renderers.comparison_text`'s job, plotting :mod:`trecbench.plots`'.

Topics are paired by qid across runs. Which count (``missing``, recorded in the report):

* ``"zero"`` (default, trec_eval ``-c``): every topic of the qrels counts; a run without
  results for a topic scores 0 on it (but ``num_rel``, a count of the qrels: the topic's
  relevant documents; :mod:`.absent`). With a qrels per run, the topics that every run's
  qrels judge (the others cannot be paired; each run lists its unpaired ones).
* ``"drop"``: only topics that every run was evaluated on (the pairs all runs share).

Sections (``group_by``, repeatable): ``all`` (every topic), then for each field its
**macro** section ``FIELD:macro`` (every stratum counts the same: the mean of the strata's
means, as code-chunk's published "overall"; stratified bootstrap, weighted tests, see
:mod:`trecbench.stats`) and one section per value ``FIELD=VALUE`` (FIELD escaped as
``score`` places a group, :func:`trecbench.escaping.group_place`: its ``=`` and ``%``,
and what :func:`~trecbench.escaping.escape_text` escapes, as ``%XX``; one label, one section).
Each section has its own resamples from the same seed and its own family for the p-value
correction.

Which way is better (:func:`direction`, recorded in the report's ``settings.better``) is
the measure registry's ``better`` (:func:`trecbench.measures.better`): higher for every
measure of a ranking's quality, lower for ``num_nonrel_judged_ret`` (judged non-relevant
documents retrieved), and neither for counts such as ``num_ret`` and ``num_rel`` and for
diagnostics such as ``Judged@k``; higher for a name the registry does not know.
"Best run", the ▲/▼ markers, wins and losses, movers and the all-pairs letters follow
it; a measure without a direction gets no best run, ↑/↓ (significantly higher/lower),
and counts "higher" as a win.
"""

from ..lazy import lazy_exports

# each public name and the module of this package that defines it; imported when first
# used, so that power and agree, which need the settings and which way is better, do not
# import pandas with the analysis (issue 31)
_HOMES = {
    "compare_scores": "analysis",
    "from_evaluation": "analysis",
    "plot_files": "figures",
    "HTML_FILE": "result",
    "LATEX_FILE": "result",
    "MARKDOWN_FILE": "result",
    "REPORT_FILE": "result",
    "SCHEMA_VERSION": "report_document",
    "Comparison": "result",
    "check_outputs": "targets",
    "html_available": "files",
    "ScoringSettings": "scoring",
    "compare": "scoring",
    "named_runs": "scoring",
    "ALL": "settings",
    "CORRECTION_NAMES": "settings",
    "HIGHER": "settings",
    "LOWER": "settings",
    "MACRO": "settings",
    "MACRO_TEST_NAMES": "settings",
    "MISSING": "settings",
    "MOVERS": "settings",
    "TEST_NAMES": "settings",
    "StatsSettings": "settings",
    "direction": "settings",
    "PAIRS_RUNS": "significance",
    "Section": "tables",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_exports(globals(), _HOMES)
