"""Renderers: result objects to text (trec_eval text, tables, Markdown, LaTeX, CSV, JSON, HTML)."""

from ..lazy import submodules as _submodules

__getattr__ = _submodules(__name__)  # trecbench.renderers.<module> after import trecbench
