"""Levels of trec_eval's float cutoff families (``iprec_at_recall``, ``Rprec_mult``) that
print the same label (trec_eval's ``%3.2f``: 0.3, 0.3015, 0.304 all print ``_0.30``):
each is computed on its own and printed, as trec_eval prints them, and keyed apart in
CSV, JSON and Python. Expected lines: the trec_eval binaries' output on the inputs below
(the commands are in the comments)."""

from __future__ import annotations

import csv
import io
import json

import pytest

import trecbench
from trecbench.cli import run

LEVELS = ["-m", "iprec_at_recall.0.3015,0.3,0.304,0.305,0.3049,0.306"]
LEVELS += ["-m", "Rprec_mult.0.3,0.3049,0.31,0.305"]

# trec_eval 9.0.8: trec_eval -q -m iprec_at_recall.0.3015,0.3,0.304,0.305,0.3049,0.306
#     -m Rprec_mult.0.3,0.3049,0.31,0.305 q r
V9 = """\
iprec_at_recall_0.30  \t1\t1.0000
iprec_at_recall_0.30  \t1\t0.8333
iprec_at_recall_0.30  \t1\t0.8333
iprec_at_recall_0.30  \t1\t0.8333
iprec_at_recall_0.30  \t1\t0.8333
iprec_at_recall_0.31  \t1\t0.8333
Rprec_mult_0.30       \t1\t1.0000
Rprec_mult_0.30       \t1\t0.9677
Rprec_mult_0.30       \t1\t0.9677
Rprec_mult_0.31       \t1\t0.9677
iprec_at_recall_0.30  \t2\t1.0000
iprec_at_recall_0.30  \t2\t1.0000
iprec_at_recall_0.30  \t2\t1.0000
iprec_at_recall_0.30  \t2\t1.0000
iprec_at_recall_0.30  \t2\t1.0000
iprec_at_recall_0.31  \t2\t1.0000
Rprec_mult_0.30       \t2\t1.0000
Rprec_mult_0.30       \t2\t1.0000
Rprec_mult_0.30       \t2\t1.0000
Rprec_mult_0.31       \t2\t0.7500
iprec_at_recall_0.30  \tall\t1.0000
iprec_at_recall_0.30  \tall\t0.9167
iprec_at_recall_0.30  \tall\t0.9167
iprec_at_recall_0.30  \tall\t0.9167
iprec_at_recall_0.30  \tall\t0.9167
iprec_at_recall_0.31  \tall\t0.9167
Rprec_mult_0.30       \tall\t1.0000
Rprec_mult_0.30       \tall\t0.9839
Rprec_mult_0.30       \tall\t0.9839
Rprec_mult_0.31       \tall\t0.8589
"""
# trec_eval 10.0 (its recall cutoffs rounded: lround(p * R)), same command without -q
V10 = """\
iprec_at_recall_0.30  \tall\t1.0000
iprec_at_recall_0.30  \tall\t1.0000
iprec_at_recall_0.30  \tall\t1.0000
iprec_at_recall_0.30  \tall\t1.0000
iprec_at_recall_0.30  \tall\t0.9167
iprec_at_recall_0.31  \tall\t0.9167
Rprec_mult_0.30       \tall\t1.0000
Rprec_mult_0.30       \tall\t0.9839
Rprec_mult_0.30       \tall\t0.9839
Rprec_mult_0.31       \tall\t0.8589
"""


@pytest.fixture
def inputs(tmp_path, monkeypatch):
    """Topic 1: 100 relevant documents, the run retrieves 30 of them, 20 non-relevant,
    the other 70; topic 2: 10 relevant, the run retrieves 3, 4 non-relevant, 7."""
    qrels, lines = [], []
    for topic, relevant, stretches in (("1", 100, (30, 20, 70)), ("2", 10, (3, 4, 7))):
        qrels += [f"{topic} 0 rel{i:03d} 1" for i in range(relevant)]
        first, gap, rest = stretches
        docs = [f"rel{i:03d}" for i in range(first)] + [f"non{i}" for i in range(gap)]
        docs += [f"rel{i:03d}" for i in range(first, first + rest)]
        lines += [f"{topic} Q0 {d} {r} {1000 - r} r" for r, d in enumerate(docs, 1)]
    (tmp_path / "q").write_text("\n".join(qrels) + "\n")
    (tmp_path / "r").write_text("\n".join(lines) + "\n")
    monkeypatch.chdir(tmp_path)


def _out(capsys, *args: str) -> str:
    assert run(["score", *args]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("engine", ["auto", "pytrec_eval"])
def test_levels_sharing_a_label_print_as_trec_eval_9(inputs, capsys, engine):
    assert _out(capsys, "--engine", engine, "-q", *LEVELS, "q", "r") == V9


def test_levels_sharing_a_label_print_as_trec_eval_10(inputs, capsys):
    assert _out(capsys, "--compat", "10.0", *LEVELS, "q", "r") == V10


@pytest.mark.parametrize("engine", ["auto", "pytrec_eval"])
@pytest.mark.parametrize("names", ["IPrec@0.3 IPrec@0.3015", "IPrec@0.3015 IPrec@0.3"])
def test_measures_sharing_a_label_keep_their_values_and_keys(inputs, capsys, engine, names):
    rows = list(csv.DictReader(io.StringIO(_out(capsys, "--engine", engine, "--format", "csv",
                                                "-m", names, "q", "r"))))  # fmt: skip
    got = {row["measure"]: (row["canonical"], round(float(row["value"]), 4)) for row in rows}
    # the 'all' lines of trec_eval 9.0.8 above: 1.0000 at 0.3, 0.9167 at 0.3015
    assert got == {
        "IPrec@0.3": ("iprec_at_recall_0.30", 1.0),
        "IPrec@0.3015": ("iprec_at_recall_0.3015", 0.9167),
    }


def test_json_and_python_key_each_level(inputs, capsys):
    document = json.loads(_out(capsys, "--format", "json", "-m", "iprec_at_recall.0.3,0.3015",
                               "q", "r"))  # fmt: skip
    assert document["runs"][0]["aggregates"] == pytest.approx(
        {"iprec_at_recall_0.30": 1.0, "iprec_at_recall_0.3015": 0.91666667}
    )
    # each measure's label finds its values (it said iprec_at_recall_0.30 for both)
    labels = [m["label"] for m in document["measures"]]
    assert labels == ["iprec_at_recall_0.30", "iprec_at_recall_0.3015"]
    frame = trecbench.evaluate("q", "r", ["Rprec_mult.0.3", "Rprec_mult.0.3049"]).to_frame()
    # Rprec_mult_0.30 all lines of trec_eval 9.0.8 above: 1.0000 and 0.9839
    assert frame.round(4).iloc[0].to_dict() == {"Rprec_mult.0.3": 1.0, "Rprec_mult.0.3049": 0.9839}


def test_a_table_under_trec_eval_s_labels_names_each_level_apart(inputs, capsys):
    # its header read iprec_at_recall_0.30 twice, over 1.0000 and 0.9167 (reviewer 264)
    header, row = _out(capsys, "--format", "table", "--labels", "trec",
                       "-m", "iprec_at_recall.0.3,0.3015", "q", "r").splitlines()  # fmt: skip
    assert header.split() == ["run", "topics", "iprec_at_recall_0.30", "iprec_at_recall_0.3015"]
    assert row.split() == ["r", "2", "1.0000", "0.9167"]
