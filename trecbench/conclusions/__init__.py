"""Can the evaluation carry the conclusion drawn from it? Power and topic-set size of a
paired comparison (:mod:`.power`), agreement of measures and of judgment sets
(:mod:`.agreement`, :mod:`.agree`), discriminative power (:mod:`.discrimination`).

Every module computes; :mod:`.render` turns results into text. The package's public
functions are re-exported lazily from :mod:`trecbench` (``trecbench.power``,
``trecbench.agree``); nothing is imported here, so ``import trecbench`` stays fast.
"""

from ..lazy import submodules as _submodules

__getattr__ = _submodules(__name__)  # trecbench.conclusions.<module> after import trecbench
