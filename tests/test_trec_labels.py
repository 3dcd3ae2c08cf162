"""trec_eval prints a measure's name with ``printf("%-22s")``: padded to 22 bytes, not 22
characters. trecbench padded with Python's ``f"{name:<22}"``, one blank too many per
two-byte character: ``ndcg.é=2``'s lines differed from trec_eval's by a byte (reviewer
272)."""

from __future__ import annotations

import pytest

from trecbench.cli import run

QRELS = "q1 0 d1 0\nq1 0 d2 1\n"
RUN = "q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n"
MEASURES = ["-m", "ndcg.é=2", "-m", "G.é=2", "-m", "Rndcg.é=2", "-m", "ndcg_rel.é=2"]

# trec_eval 9.0.8 and 10.0 printed these bytes for `trec_eval -q -m ndcg.é=2 -m G.é=2
# -m Rndcg.é=2 -m ndcg_rel.é=2 q r` (q, r: QRELS, RUN): each name padded to 22 bytes
TREC_EVAL = {
    "9.0.8": (
        b"G_\xc3\xa9=2                \tq1\t1.0000\n"
        b"ndcg_\xc3\xa9=2             \tq1\t1.0000\n"
        b"ndcg_rel_\xc3\xa9=2         \tq1\t1.0000\n"
        b"Rndcg_\xc3\xa9=2            \tq1\t1.0000\n"
        b"G_\xc3\xa9=2                \tall\t1.0000\n"
        b"ndcg_\xc3\xa9=2             \tall\t1.0000\n"
        b"ndcg_rel_\xc3\xa9=2         \tall\t1.0000\n"
        b"Rndcg_\xc3\xa9=2            \tall\t1.0000\n"
    ),
    "10.0": (
        b"G_\xc3\xa9=2                \tq1\t0.6309\n"
        b"ndcg_\xc3\xa9=2             \tq1\t0.6309\n"
        b"ndcg_rel_\xc3\xa9=2         \tq1\t0.6309\n"
        b"Rndcg_\xc3\xa9=2            \tq1\t0.0000\n"
        b"G_\xc3\xa9=2                \tall\t0.6309\n"
        b"ndcg_\xc3\xa9=2             \tall\t0.6309\n"
        b"ndcg_rel_\xc3\xa9=2         \tall\t0.6309\n"
        b"Rndcg_\xc3\xa9=2            \tall\t0.0000\n"
    ),
}
# and with -Z z (z: "q1 ndcg_é=2 0.5 0.25") -m ndcg.é=2: "Z" and the name in 22 bytes
TREC_EVAL_Z = {
    "9.0.8": (
        b"Zndcg_\xc3\xa9=2             \tq1\t2.0000\nZndcg_\xc3\xa9=2             \tall\t2.0000\n"
    ),
    "10.0": (
        b"Zndcg_\xc3\xa9=2             \tq1\t0.5237\nZndcg_\xc3\xa9=2             \tall\t0.5237\n"
    ),
}


@pytest.fixture
def paths(tmp_path) -> list[str]:
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    (tmp_path / "z").write_text("q1 ndcg_é=2 0.5 0.25\n")
    return [str(tmp_path / name) for name in ("q", "r", "z")]


@pytest.mark.parametrize("compat", ["9.0.8", "10.0"])
def test_a_name_with_a_two_byte_character_is_padded_to_22_bytes(capsysbinary, paths, compat):
    assert run(["score", "--compat", compat, "-q", *MEASURES, *paths[:2]]) == 0
    assert capsysbinary.readouterr().out == TREC_EVAL[compat]


@pytest.mark.parametrize("compat", ["9.0.8", "10.0"])
def test_z_score_lines_pad_the_name_to_22_bytes(capsysbinary, paths, compat):
    qrels, run_file, zscores = paths
    args = ["score", "--compat", compat, "-q", "-Z", zscores, "-m", "ndcg.é=2", qrels, run_file]
    assert run(args) == 0
    assert capsysbinary.readouterr().out == TREC_EVAL_Z[compat]


def test_grouped_means_pad_names_as_trec_text_does(capsysbinary, paths):
    # score --group-by prints its lines as trec_eval prints a summary: the same 22 bytes
    assert run(["score", "--group-by", "qid-prefix", "-m", "ndcg.é=2", *paths[:2]]) == 0
    lines = capsysbinary.readouterr().out.splitlines()
    named = [line for line in lines if line.startswith(b"ndcg_")]
    assert len(named) == 5  # the summary, then the group, macro, micro and spread
    assert {line.split(b"\t")[0] for line in named} == {b"ndcg_\xc3\xa9=2" + b" " * 13}


def test_the_trec_label_counts_bytes_and_leaves_longer_names_whole():
    from trecbench.renderers.text_tables import trec_label

    assert trec_label("P_5") == "P_5" + " " * 19
    assert trec_label("ndcg_é=2") == "ndcg_é=2" + " " * 13  # 9 bytes
    assert trec_label("ndcg_€=2:tie_low") == "ndcg_€=2:tie_low" + " " * 4  # 18 bytes
    assert trec_label("iprec_at_recall_0.30:x") == "iprec_at_recall_0.30:x"  # 22: as it is
    assert trec_label("é" * 12) == "é" * 12  # 24 bytes, no blank
