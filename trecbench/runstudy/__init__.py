"""Runs as objects of study: how alike two runs rank (:mod:`.similarity`), the judgment
pools runs make (:mod:`.pool`), why two evaluation reports differ (:mod:`.reportdiff`) and
systems ranked across collections (:mod:`.leaderboard`)."""
