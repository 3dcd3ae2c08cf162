"""Runs and qrels read as ``score`` reads them: through the validator's lenient profile
(:mod:`.gate`), whole, ahead of their turn or in blocks (:mod:`.reading`).

Below :mod:`trecbench.evaluation`, so that the commands that read runs without scoring
them (``similarity``, ``pool``, ``fuse``, ``leaderboard``'s strata) do not import the
evaluation package's measures, engines and scoring (issue 31: 0.04-0.06 s of a small
call)."""

from ..lazy import submodules as _submodules

__getattr__ = _submodules(__name__)  # trecbench.gated.<module> after import trecbench
