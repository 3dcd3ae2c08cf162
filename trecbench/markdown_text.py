"""Text in a Markdown table's cell, escaped once for every Markdown writer: the renderers
(:mod:`trecbench.renderers.text_tables` writes the tables), power and agreement, the
boards and the measure table (:mod:`trecbench.measures` sits below the renderers, hence
here, at the bottom of the package)."""

from __future__ import annotations


def markdown_cell(text: str) -> str:
    """Prose trecbench writes (a heading, a note, a measure's description) with each ``|``
    escaped, so that it stays one cell of its table. Text read from an input (a run's
    name, an id) is escaped reversibly before it reaches here
    (:func:`trecbench.escaping.escaper`): it holds no ``|`` then."""
    return text.replace("|", r"\|")
