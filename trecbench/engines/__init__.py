"""Engines: code that computes measures on a ranked run.

Every engine consumes the same input — the run ranked once by
:func:`trecbench.ranking.rank_table`, restricted to the evaluated topics — and returns
per-topic values. Each engine module registers the measure families it computes with
:func:`trecbench.measures.registry.register_engine` when imported (this package imports them
in order of preference) and has an ``Evaluator(truth, measures, settings)`` whose
``evaluate(ranked, qids)`` returns, per measure, ``(label, display, values)`` for each of
its values (the Protocols :class:`~.interface.Evaluator` and :class:`~.interface.Settings`:
the evaluation's settings, typed). :func:`assign` picks one engine per measure: the
requested engine when it computes the measure, otherwise the first registered engine that
does (pytrec_eval, trec_eval's own code, for trec_eval's families). ``auto`` takes the fast
vectorised engine when it computes every requested measure. A new engine joins by
registering (see the registry's docstring) and being imported here.
"""

from __future__ import annotations

import importlib
from dataclasses import replace

from ..errors import Setting, UsageError
from ..lazy import submodules as _submodules
from ..measures import Measure, registry

PYTREC_EVAL, LOCAL, FAST, PROVIDERS = "pytrec_eval", "local", "fast", "providers"
NATIVE = "native"  # trecbench's ports of trec_eval (what pytrec_eval lacks; -D; 10.0)
META = "trecbench"  # runid and num_q: computed by evaluate itself
# a measure's keyword parameter that the call's own setting (evaluate's, -J) stands for
JUDGED_ONLY = ("judged_only", True)
# Imported (hence registered) in order of preference: the first registered engine that
# computes a measure computes it when the requested one does not.
PREFERENCE = (PYTREC_EVAL, LOCAL, FAST, PROVIDERS, NATIVE)
for _name in PREFERENCE:
    importlib.import_module(f".{_name}", __name__)


def check_engine(name: str) -> None:
    """Refuse ``name`` unless it is ``auto`` or a registered engine's (EvalSettings checks
    its engine so, before anything is read)."""
    if name != "auto":
        _registered(name)


def engine_module(name: str):
    """The module implementing engine ``name``."""
    return _registered(name).load()


def _registered(name: str):
    engine = registry.engine(name)
    if engine is None:
        names = ", ".join(["auto", *(e.name for e in registry.engines())])
        raise UsageError(f"unknown engine {name!r} (choose from {names})")
    return engine


def computed_by(measure: Measure, name: str) -> str:
    """The engine whose code computes ``measure`` when engine ``name`` is assigned it (what
    reports and ``measures`` say): ``name``, or the one it hands the measure to
    (pytrec_eval's gain maps: the fast engine's nDCG)."""
    hands_on = None if name == META else getattr(engine_module(name), "computed_by", None)
    return name if hands_on is None else hands_on(measure)


def engines_computing(measure: Measure) -> list[str]:
    """Names of the engines that compute ``measure``, in order of preference."""
    return [e.name for e in registry.engines() if e.computes(measure)]


def assign(measures: list[Measure], engine: str = "auto") -> dict[Measure, str]:
    """The engine that computes each measure (``runid``/``num_q`` are computed by evaluate)."""
    check_engine(engine)
    computed = [m for m in measures if m.family not in ("runid", "num_q")]
    if engine == "auto":
        # the fast engine only when it computes every measure: one engine, one pass
        fast_engine = registry.engine(FAST)
        every = computed and all(fast_engine.computes(m) for m in computed)
        engine = FAST if every else "auto"
    chosen: dict[Measure, str] = {}
    for measure in measures:
        if measure.family in ("runid", "num_q"):
            chosen[measure] = META
            continue
        candidates = engines_computing(measure)
        if not candidates:
            raise UsageError(*_uncomputed(measure))
        chosen[measure] = engine if engine in candidates else candidates[0]
    return chosen


def say_elsewhere(engine: str, assigned: dict[Measure, str], computing: dict[Measure, str]) -> None:
    """Warn (:class:`~trecbench.errors.EngineWarning`, one line) of the measures the
    ``engine`` asked for does not compute (:func:`assign`'s ``assigned`` them another, or
    ``computing`` moved them to trec_eval's ports: ``-D``, ``--compat 10.0``), named with
    the engines ``computing`` them: ``--engine fast -m bpref`` was computed by pytrec_eval
    without a word. Named by ``computing``, not ``assigned``: with ``-D`` a port of
    trec_eval computes gm_bpref, which was said to be pytrec_eval's."""
    import warnings

    from ..callers import outside_trecbench
    from ..errors import EngineWarning

    if engine == "auto":  # auto picks an engine per call: nothing to say
        return
    elsewhere: dict[str, list[str]] = {}
    for measure in assigned:
        by = computing[measure]
        if by not in (engine, META):
            elsewhere.setdefault(by, []).append(measure.requested or measure.canonical)
    if elsewhere:
        computed = "; ".join(f"{', '.join(names)} by {by}" for by, names in elsewhere.items())
        warnings.warn(
            f"engine {engine} does not compute every measure asked: {computed}",
            EngineWarning,
            stacklevel=outside_trecbench(),
        )


def _uncomputed(measure: Measure) -> tuple[str | Setting, ...]:
    """Why no engine computes ``measure``, as a message's parts: which engines take each
    of its keyword parameters alone, where one does (``AP(normalize='min')@5`` is fast's,
    ``AP(judged_only=True)@5`` pytrec_eval's; none both), and the call's judged_only
    (``-J`` on the command line) where it stands for the measure's."""
    said = f"no engine computes {measure.requested or measure.canonical}"
    alone = []
    for option in measure.options:
        single = replace(measure, options=(option,))
        names = engines_computing(single)
        if names:
            alone.append(f"{single.spelled()} is {' and '.join(names)}'s")
    if len(alone) < 2:
        return (said,)
    said += f": no engine takes these parameters together ({'; '.join(alone)})"
    rest = replace(measure, options=tuple(o for o in measure.options if o != JUDGED_ONLY))
    if len(rest.options) == len(measure.options) or not engines_computing(rest):
        return (said,)
    judged_only = Setting(*JUDGED_ONLY)
    return said, "; alone in a call, ", judged_only, f" with {rest.spelled()} computes it"


__getattr__ = _submodules(__name__)  # trecbench.engines.<module> after import trecbench
