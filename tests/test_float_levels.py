"""Levels of trec_eval's float cutoff families (``iprec_at_recall``, ``Rprec_mult``) that
print the same label (trec_eval's ``%3.2f`` cut to 8 characters: 0.3, 0.3015, 0.304 all
print ``_0.30``, 1000000.1 and 1000000.2 ``_1000000.``):
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


# trec_eval 9.0.8 and 10.0 alike: trec_eval -q -m iprec_at_recall.100000,0.5
#     -m Rprec_mult.1000000.2,100000,1000000.1,123456789,0.5 q r
# a level's label is cut to 8 characters after the "_" (meas_init.c's append_float), so
# 1000000.1 and 1000000.2 both print Rprec_mult_1000000.
WIDE = [
    "-m",
    "iprec_at_recall.100000,0.5",
    "-m",
    "Rprec_mult.1000000.2,100000,1000000.1,123456789,0.5",
]
WIDE_LINES = """\
iprec_at_recall_0.50  \t{q}\t{iprec}
iprec_at_recall_100000.0\t{q}\t0.0000
Rprec_mult_0.50       \t{q}\t0.6000
Rprec_mult_100000.0   \t{q}\t0.0000
Rprec_mult_1000000.   \t{q}\t0.0000
Rprec_mult_1000000.   \t{q}\t0.0000
Rprec_mult_12345678   \t{q}\t0.0000
"""
WIDE_OUT = "".join(
    WIDE_LINES.format(q=q, iprec=iprec)
    for q, iprec in (("1", "0.8333"), ("2", "0.7143"), ("all", "0.7738"))
)


@pytest.mark.parametrize("compat", ["9.0.8", "10.0"])
@pytest.mark.parametrize("engine", ["auto", "pytrec_eval"])
def test_a_level_of_six_digits_prints_trec_eval_s_cut_label(inputs, capsys, engine, compat):
    # it printed iprec_at_recall_100000.00, or stopped on KeyError: 'Rprec_mult_100000.00'
    # (pytrec_eval keys the value by the cut label), exit 70 (reviewer)
    assert run(["score", "--compat", compat, "--engine", engine, "-q", *WIDE, "q", "r"]) == 0
    printed, said = capsys.readouterr()
    assert said.count("ParameterDomainWarning") == 1  # recall level 100000: past [0, 1]
    assert printed == WIDE_OUT


def test_levels_cut_to_one_label_are_keyed_apart(inputs, capsys):
    document = json.loads(_out(capsys, "--format", "json", "-m", "Rprec_mult.1000000.1,1000000.2",
                               "q", "r"))  # fmt: skip
    assert set(document["runs"][0]["aggregates"]) == {
        "Rprec_mult_1000000.1",
        "Rprec_mult_1000000.2",
    }
    # one relevant document retrieved at R x 100000 documents: 1 / 100000
    frame = trecbench.evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, ["Rprec_mult.100000"]).to_frame()
    assert frame.iloc[0].to_dict() == {"Rprec_mult.100000": pytest.approx(1e-5)}


# topic 1 judged by two groups, each finding one of a and b relevant
JUDGMENT_GROUPS = "1 g1 a 1\n1 g1 b 0\n1 g2 a 0\n1 g2 b 1\n"
# trec_eval 9.0.8 and 10.0 alike: trec_eval -R qrels_jg
#     -m Rprec_mult_avgjg.0.5,100000,1000000.1,1000000.2 jg r (r ranks a, then b)
AVGJG_OUT = """\
Rprec_mult_avgjg_0.50 \tall\t0.5000
Rprec_mult_avgjg_100000.0\tall\t0.0000
Rprec_mult_avgjg_1000000.\tall\t0.0000
Rprec_mult_avgjg_1000000.\tall\t0.0000
"""


@pytest.mark.parametrize("compat", ["9.0.8", "10.0"])
@pytest.mark.parametrize("engine", ["auto", "pytrec_eval"])
def test_judgment_group_levels_print_trec_eval_s_cut_label(tmp_path, capsys, engine, compat):
    (tmp_path / "jg").write_text(JUDGMENT_GROUPS)
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    measure = ["-m", "Rprec_mult_avgjg.0.5,100000,1000000.1,1000000.2"]
    printed = _out(capsys, "--compat", compat, "--engine", engine, "-R", "qrels_jg", *measure,
                   str(tmp_path / "jg"), str(tmp_path / "r"))  # fmt: skip
    assert printed == AVGJG_OUT


# trec_eval 10.0: trec_eval -q -m iprec_at_recall.LEVEL q r, and -m 11pt_avg.LEVEL,0.5
# (the inputs above): lround of a level no long holds is LONG_MIN on x86-64, a cutoff
# below 1 that takes the final interpolated precision, 1.0 on both topics
@pytest.mark.parametrize(
    "level, label",
    [("nan", "nan"), ("inf", "inf"), ("-inf", "-inf"), ("1e300", "10000000"),
     ("-1e300", "-1000000"), ("9.3e18", "93000000")],
)  # fmt: skip
def test_a_level_no_long_holds_is_rounded_as_trec_eval_10_rounds_it(inputs, capsys, level, label):
    # each stopped on "cannot convert float NaN to integer" (OverflowError for the
    # infinities), exit 70; 1e300 printed 0.0000
    label = f"iprec_at_recall_{label}".ljust(22)
    expected = "".join(f"{label}\t{q}\t1.0000\n" for q in ("1", "2", "all"))
    assert _out(capsys, "--compat", "10.0", "-q", "-m", f"iprec_at_recall.{level}", "q", "r") == (
        expected
    )
    eleven = _out(capsys, "--compat", "10.0", "-m", f"11pt_avg.{level},0.5", "q", "r")
    assert eleven == f"{f'11pt_avg_{level},0.5'.ljust(22)}\tall\t0.8869\n"
