"""Runs as objects of study: how alike two runs rank (:mod:`.similarity`) and the judgment
pools runs make (:mod:`.pool`)."""
