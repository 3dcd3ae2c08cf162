"""Converters: benchmark outputs → TREC qrels, runs and a sidecar JSON.

One module per source format (``hpo``, ``codechunk``, ``memorybench``, ``lists``,
``dicts``); each returns a :class:`~trecbench.convert.common.Conversion` and never prints.
:func:`~trecbench.convert.common.write_conversion` validates and writes it.
"""
