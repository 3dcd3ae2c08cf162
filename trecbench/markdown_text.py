"""Text in a Markdown table's cell, escaped once for every Markdown writer: the renderers
(:mod:`trecbench.renderers.text_tables` writes the tables), power and agreement, the
boards and the measure table (:mod:`trecbench.measures` sits below the renderers, hence
here, at the bottom of the package)."""

from __future__ import annotations


def markdown_cell(text: str) -> str:
    """``text`` with each ``|`` escaped, so that a cell holding one (a run named ``a|b``)
    stays one cell of its table."""
    return text.replace("|", r"\|")
