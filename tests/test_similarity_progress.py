"""similarity tells of its long work (reviewer 365): each run's ranking in steps, each
pair's topics as they are measured; two runs without a topic in common are refused before
any pair is measured."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT

from trecbench.errors import NoOverlapError
from trecbench.runstudy import similarity as similarity_module

RUNS = [str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char")]


def test_similarity_tells_each_runs_ranking_and_each_pairs_topics(monkeypatch):
    told = []
    whole = similarity_module.similarity(RUNS, progress=lambda *call: told.append(call))
    for name in ("tfidf-word", "tfidf-char"):
        assert [c[1:] for c in told if c[0] == f"ordering {name}"] == [(i, 4) for i in range(5)]
    topics = len(whole.pairs[0].qids)
    measured = [c[1:] for c in told if c[0] == "measuring tfidf-word vs tfidf-char"]
    assert measured == [(0, 3 * topics), (topics, 3 * topics), (2 * topics, 3 * topics),
                        (3 * topics, 3 * topics)]  # fmt: skip
    assert told[-1] == ("comparing pairs", 1, 1)
    # a few topics at a time: the bar moves within each pass, the values the same
    monkeypatch.setattr(similarity_module, "SLICE", 64)
    monkeypatch.setattr(similarity_module, "PLACES", 64)
    monkeypatch.setattr(similarity_module, "TOLD_TOPICS", 2)
    told.clear()
    pieced = similarity_module.similarity(RUNS, progress=lambda *call: told.append(call))
    done = [c[1] for c in told if c[0].startswith("measuring ")]
    assert len(done) > 3 * 4 and done == sorted(set(done)) and done[-1] == 3 * topics
    for name, values in whole.pairs[0].values.items():
        np.testing.assert_array_equal(pieced.pairs[0].values[name], values, err_msg=name)


def test_runs_without_a_topic_in_common_are_refused_before_any_pair_is_measured(monkeypatch):
    # 22 s of reading, ranking and measuring before the refusal (reviewer 365)
    measured = []
    measure = similarity_module.pair_similarity

    def recorded(a, b, name_a, name_b, *rest):
        measured.append((name_a, name_b))
        return measure(a, b, name_a, name_b, *rest)

    monkeypatch.setattr(similarity_module, "pair_similarity", recorded)
    apart = {"x1": {"d1": 2.0, "d2": 1.0}}
    with pytest.raises(NoOverlapError, match="no topic in common"):
        similarity_module.similarity({"word": RUNS[0], "apart": apart})
    assert measured == []
    # among three runs, only the pair that shares topics is measured; the other pairs are
    # as they were when measured (every statistic undefined, the runs' lengths kept)
    result = similarity_module.similarity({"word": RUNS[0], "char": RUNS[1], "apart": apart})
    assert measured == [("word", "char")]
    tables = [similarity_module.ranked_runs.load_ranked(s) for s in (RUNS[0], apart)]
    settings = similarity_module.SimilaritySettings()
    old = similarity_module._undefined(measure(*tables, "word", "apart", settings), "why")
    new = result.pairs[1]
    assert similarity_module._pair_json(similarity_module._undefined(new, "why")) == (
        similarity_module._pair_json(old)
    )
    assert new.reason == "apart: no topic in common with word: no similarity to measure"
