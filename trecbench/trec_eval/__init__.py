"""Native ports of the parts of trec_eval that pytrec_eval does not embed.

pytrec_eval compiles trec_eval 9.0.8's ranked measures for standard qrels; everything else
trec_eval can do is ported here from its C sources, operation for operation, so that the
printed values are the same bits:

* :mod:`.compat` — the two trec_eval versions trecbench reproduces (9.0.8 and 10.0) and
  every difference between them;
* :mod:`.clib` — the C library behaviour the ports depend on (``lround``, glibc's
  ``qsort``, ``printf``'s ``%f``, integer casts);
* :mod:`.res_rels` — ``form_res_rels`` for all topics at once: the relevance of every
  retrieved document in rank order, the topic's grade counts;
* :mod:`.gains` — ``setup_gains`` (nDCG's gain table) in both versions;
* :mod:`.ranked` — measures over ``form_res_rels``: ``yaap``, and 10.0's ``rbp``,
  ``rbp_resid``, ``unj``, ``dcg``, ``ideal_dcg`` and rounded ``iprec_at_recall`` /
  ``11pt_avg``;
* :mod:`.traced` — the measures that print a trace with ``-D`` (``ndcg``, ``ndcg_cut``,
  ``ndcg_rel``, ``Rndcg``, ``G``, ``binG``, ``gm_bpref``, ``rbp``);
* :mod:`.prefs_files`, :mod:`.prefs_counts`, :mod:`.prefs_measures` — ``-R prefs`` and
  ``-R qrels_prefs``: the files, ``form_prefs_counts`` and the fourteen prefs measures;
* :mod:`.judgment_groups` — ``-R qrels_jg``: ``map_avgjg``, ``P_avgjg``,
  ``Rprec_mult_avgjg``;
* :mod:`.zscores` — ``-Z``: the z-scores file and the conversion of per-topic values.

:mod:`trecbench.engines.native` hands these to :func:`trecbench.evaluate`.
"""

from ..lazy import submodules as _submodules

__getattr__ = _submodules(__name__)  # trecbench.trec_eval.<module> after import trecbench
