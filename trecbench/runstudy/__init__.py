"""Runs as objects of study: how alike two runs rank (:mod:`.similarity`), the judgment
pools runs make (:mod:`.pool`) and why two evaluation reports differ (:mod:`.reportdiff`)."""
