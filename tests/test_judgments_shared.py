"""Qrels.judgments: looked up once per set of topics, shared read-only by every run."""

import numpy as np
import pyarrow as pa
import pytest

from trecbench.evaluation.judgments import Qrels


def _qrels() -> Qrels:
    table = pa.table(
        {
            "qid": ["1", "1", "2", "3"],
            "iter": ["0"] * 4,
            "docno": ["a", "b", "a", "c"],
            "rel": pa.array([1, 0, 2, 1], pa.int64()),
            "line": pa.array([1, 2, 3, 4], pa.int64()),
        }
    )
    return Qrels(table, "q.txt", 1)


def test_judgments_of_the_same_topics_are_computed_once():
    qrels = _qrels()
    first = qrels.judgments(["1", "3"])
    assert qrels.judgments(["1", "3"]) is first
    topic, docno, grade = first
    assert topic.tolist() == [0, 0, 1]  # index into the qids asked for
    assert docno.to_pylist() == ["a", "b", "c"]
    assert grade.tolist() == [1, 0, 1]
    assert qrels.judgments(["2"])[0].tolist() == [0]


def test_shared_judgments_cannot_be_changed_by_a_run():
    topic, _, grade = _qrels().judgments(["1", "2"])
    for array in (topic, grade):
        with pytest.raises(ValueError):
            array[0] = np.int64(7)


def test_judgments_kept_for_reuse_stay_within_twice_the_qrels():
    """Sets of topics that need not repeat (runs cut within --memory, tied topics) let the
    oldest go: what is kept stays within twice the qrels' judgments."""
    qrels = _qrels()
    first = qrels.judgments(["1", "2", "3"])  # the four judgments
    qrels.judgments(["1", "2"])  # three more: seven kept, within eight
    assert qrels.judgments(["1", "2", "3"]) is first
    qrels.judgments(["1", "3"])  # three more: ten, beyond eight: the first set goes
    assert qrels.judgments(["1", "2", "3"]) is not first
    kept = sum(len(topic) for topic, _, _ in qrels._judgments.values())
    assert kept <= 2 * 4
