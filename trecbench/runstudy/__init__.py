"""Runs as objects of study: how alike two runs rank (:mod:`.similarity`), the judgment
pools runs make (:mod:`.pool`), why two evaluation reports differ (:mod:`.reportdiff`) and
systems ranked across collections (:mod:`.leaderboard`)."""

from ..lazy import submodules as _submodules

__getattr__ = _submodules(__name__)  # trecbench.runstudy.<module> after import trecbench
