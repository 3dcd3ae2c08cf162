"""Where a warning trecbench raises is located: at the first caller outside the package
(a script's ``trecbench.evaluate``), however deep inside it the warning is raised. A leaf
module (it imports nothing of trecbench), so that any module of the package can use it."""

from __future__ import annotations

import sys


def outside_trecbench() -> int:
    """The ``stacklevel`` of the first caller outside trecbench (a script's
    ``trecbench.evaluate``), for the warning the caller of this function raises to be
    located there, wherever in the package it is raised: where the run's result was
    assembled, where a worker's warnings are raised again
    (:func:`trecbench.evaluation.runs.warn_again`), or as a ``with`` block ends (the
    frames of :mod:`contextlib`, which a ``@contextmanager``'s exit passes through, are
    passed over as the package's are). A module of the user's named ``trecbench_utils``
    is outside."""
    frame, level = sys._getframe(2), 2
    while frame is not None and _passed_over(frame.f_globals.get("__name__", "")):
        frame, level = frame.f_back, level + 1
    return level


def _passed_over(module: str) -> bool:
    return module in ("trecbench", "contextlib") or module.startswith("trecbench.")
