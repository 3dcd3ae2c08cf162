"""Converters: benchmark outputs → TREC qrels, runs and a sidecar JSON.

One module per source format (``hpo``, ``codechunk``, ``memorybench``, ``lists``,
``dicts``, ``beir``, ``msmarco``); each returns a
:class:`~trecbench.convert.common.Conversion` and never prints. Inputs are read once,
plain or compressed (:mod:`trecbench.sources`), and their shape is checked as they are read.
:func:`~trecbench.convert.common.write_conversion` validates and writes it.
"""

from ..lazy import submodules as _submodules

__getattr__ = _submodules(__name__)  # trecbench.convert.<module> after import trecbench
