"""Engines: code that computes measures on a ranked run.

Every engine consumes the same input — the run ranked once by
:func:`trecbench.ranking.rank_run`, restricted to the evaluated topics — and returns
per-topic values. Engines are named; each says which measures it ``supports``.
:func:`assign` picks one engine per measure: the requested engine when it supports the
measure, otherwise the measure's own provider (pytrec_eval for trec_eval's measures, the
local registry for trecbench's). ``auto`` takes the fast vectorised engine when it supports
every requested measure. A faster engine joins by adding its name here.
"""

from __future__ import annotations

import importlib

from ..errors import UsageError
from ..measures import LOCAL, META, NATIVE, PYTREC_EVAL, Measure

# engine name -> module (imported lazily: pytrec_eval is heavy)
FAST = "fast"
ENGINES = {PYTREC_EVAL: ".pytrec_eval", LOCAL: ".local", FAST: ".fast", NATIVE: ".native"}


def engine_module(name: str):
    """The module implementing engine ``name``."""
    try:
        return importlib.import_module(ENGINES[name], __name__)
    except KeyError:
        raise UsageError(f"unknown engine '{name}' (choose from {', '.join(ENGINES)})") from None


def assign(measures: list[Measure], engine: str = "auto") -> dict[Measure, str]:
    """The engine that computes each measure (``runid``/``num_q`` are computed by evaluate)."""
    chosen: dict[Measure, str] = {}
    if engine == "auto":
        # the fast engine only when it computes every measure: one engine, one pass
        computed = [m for m in measures if m.provider != META]
        fast = engine_module(FAST)
        engine = FAST if computed and all(fast.supports(m) for m in computed) else "auto"
    preferred = None if engine == "auto" else engine_module(engine)
    for measure in measures:
        if measure.provider == META:
            chosen[measure] = META
        elif (
            preferred is not None
            and getattr(preferred, "supports", None)
            and (preferred.supports(measure))
        ):
            chosen[measure] = engine
        else:
            chosen[measure] = measure.provider
    return chosen
