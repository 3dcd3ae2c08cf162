"""A comparison as one self-contained HTML page (``compare -o DIR`` writes it as
``report.html``): the summary table (sortable), per measure interactive figures (means
with intervals, per-topic differences against the baseline, the precision-recall curve),
every topic listed (searchable, sortable) with a drill-down to each run's top documents
and their grades, and the provenance. Every script, style and figure is inline: the page
makes no network request. The numbers are the Comparison's, in the cells its Markdown
report prints (:mod:`trecbench.renderers.comparison_cells`); the figures are Bokeh's, its JavaScript
inlined (the ``html`` extra).
"""

from __future__ import annotations

from ..lazy import submodules as _submodules
from .page import comparison_html

__all__ = ["comparison_html"]

__getattr__ = _submodules(__name__)  # trecbench.html_report.<module> after import trecbench
