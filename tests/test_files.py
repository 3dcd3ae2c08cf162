"""Reading and writing TREC files: ids stay strings, line numbers are physical."""

from __future__ import annotations

import gzip
import re

import pytest

import trecbench
from trecbench.errors import InputError, UsageError
from trecbench.inputs.trec_text import tokenize

TRICKY_IDS = ["001", "NA", "nan", "null", "None", "TRUE", "1e5", "0042", "42", "1.0"]


def test_tricky_ids_round_trip_unchanged(tmp_path):
    lines = [
        f"{q} Q0 {d} {i + 1} {10 - i} tag\n"
        for i, (q, d) in enumerate(zip(TRICKY_IDS, TRICKY_IDS, strict=True))
    ]
    path = tmp_path / "tricky.run"
    path.write_text("".join(lines))
    run = trecbench.read_run(path)
    assert run["qid"].tolist() == TRICKY_IDS
    assert run["docno"].tolist() == TRICKY_IDS
    out = tmp_path / "out.run"
    trecbench.write_run(run, out)
    again = trecbench.read_run(out)
    assert again["qid"].tolist() == TRICKY_IDS
    assert again["docno"].tolist() == TRICKY_IDS
    assert again["score"].tolist() == run["score"].tolist()


def test_scores_are_written_losslessly(tmp_path):
    scores = [0.1, 1 / 3, 2.129133, 1e20, 5e-324, 0.30000000000000004, -0.0]
    path = tmp_path / "s.run"
    path.write_text("".join(f"q Q0 d{i} {i + 1} {s!r} t\n" for i, s in enumerate(scores)))
    run = trecbench.read_run(path)
    out = tmp_path / "o.run"
    trecbench.write_run(run, out)
    assert trecbench.read_run(out)["score"].tolist() == scores


def test_physical_line_numbers_skip_blank_lines_in_runs(tmp_path):
    path = tmp_path / "blank.run"
    path.write_text("q Q0 a 1 2 t\n\n   \nq Q0 b 2 1 t\n")
    assert trecbench.read_run(path)["line"].tolist() == [1, 4]


def test_gzip_is_read_transparently(tmp_path):
    path = tmp_path / "r.run.gz"
    path.write_bytes(gzip.compress(b"q Q0 a 1 2 t\nq Q0 b 2 1 t\n"))
    assert trecbench.read_run(path)["docno"].tolist() == ["a", "b"]


def test_truncated_gzip_is_an_error(tmp_path):
    path = tmp_path / "r.run.gz"
    path.write_bytes(gzip.compress(b"q Q0 a 1 2 t\n" * 1000)[:-20])
    with pytest.raises(InputError) as err:
        trecbench.read_run(path)
    assert err.value.rule == "R27"


@pytest.mark.parametrize(
    ("content", "line", "rule"),
    [
        (b"q Q0 a 1 2 t\nq Q0 b 2 t\n", 2, "R1"),
        (b"q Q0 a 1 2 t\nq Q0 b 2 abc t\n", 2, "R12"),
        (b"q Q0 a 1 nan t\n", 1, "R12"),
        (b"q Q0 a 1 1_000 t\n", 1, "R12"),
        (b"q Q0 a 1 2 t\nq Q0 \xff 2 1 t\n", 2, "R23"),
        (b"q Q0 a 1 2 t\n\nq Q0 b\x00 2 1 t\n", 3, "R23"),
    ],
)
def test_malformed_run_lines_name_the_physical_line(tmp_path, content, line, rule):
    path = tmp_path / "bad.run"
    path.write_bytes(content)
    with pytest.raises(InputError) as err:
        trecbench.read_run(path)
    assert (err.value.line, err.value.rule) == (line, rule)
    assert str(err.value).startswith(f"{path}:{line}: ")


@pytest.mark.parametrize(
    ("content", "line"),
    # (3 fields on every line is BEIR's qrels, said in one line for the file: test_unconverted)
    [
        (b"1 0 a 1\n\n1 0 b 0\n", 2),
        (b"1 0 a 1.5\n", 1),
        (b"1 0 a 1\n1 a 1\n", 2),
        (b"1 0 a 1 x\n", 1),
    ],
)
def test_malformed_qrels_lines(tmp_path, content, line):
    path = tmp_path / "bad.qrels"
    path.write_bytes(content)
    with pytest.raises(InputError) as err:
        trecbench.read_qrels(path)
    assert err.value.line == line


def test_fast_and_general_tokenizers_agree():
    regular = b"q1 Q0 d1 1 3.5 t\nq1 Q0 d2 2 1.5 t\n"
    irregular = b"q1\tQ0  d1 1 3.5 t\nq1 Q0 d2 2 1.5 t \n"
    a, b = tokenize(regular), tokenize(irregular)
    assert [f.to_pylist() for f in a.fields] == [f.to_pylist() for f in b.fields]
    assert a.line.tolist() == b.line.tolist() == [1, 2]


def test_trec_eval_suite_files_are_read(trec_eval_suite):
    run = trecbench.read_run(trec_eval_suite / "results.test")
    assert len(run) == 1500 and run["tag"].unique().tolist() == ["STANDARD"]
    # results.trunc carries junk after the tag on some lines; trec_eval ignores it, so do we.
    trunc = trecbench.read_run(trec_eval_suite / "results.trunc")
    assert len(trunc) == 584 and trunc["tag"].unique().tolist() == ["STANDARD"]
    qrels = trecbench.read_qrels(trec_eval_suite / "qrels.test")
    assert len(qrels) == 3681 and qrels["rel"].isin([0, 1]).all()


def test_numbers_too_long_for_int64_are_not_a_crash(tmp_path):
    run = tmp_path / "r.run"
    run.write_bytes(b"q Q0 a 99999999999999999999 1 t\n")
    assert trecbench.read_run(run)["rank"].isna().all()  # trec_eval never reads ranks
    qrels = tmp_path / "q.qrels"
    qrels.write_bytes(b"1 0 a 1\n1 0 b -99999999999999999999\n")
    with pytest.raises(InputError) as err:
        trecbench.read_qrels(qrels)
    assert (err.value.line, err.value.rule) == (2, "Q4")


def test_byte_anomalies_are_listed_by_physical_line():
    data = "q Q0 a 1 2 t\r\nq\tQ0 b  2 1 t \n\ufeffx Q0 c\u00a0 3 1 t\x0b\n\x01a\rb\n".encode()
    tokens = tokenize(data)
    assert tokens.crlf_lines.tolist() == [1]
    assert tokens.space_control_lines.tolist() == [4]  # a lone CR between fields
    assert tokens.trailing_control_lines.tolist() == [3]  # a VT at the line's end
    assert tokens.control_lines.tolist() == [4]
    assert tokens.unicode_space_lines.tolist() == [3]  # a BOM past the start, an NBSP
    assert tokens.trailing_space_lines.tolist() == [2, 3]
    assert tokens.irregular_space_lines.tolist() == [2]
    assert tokenize(b"\xef\xbb\xbfq Q0 a 1 2 t\n").unicode_space_lines.tolist() == []


def test_written_files_get_the_usual_permissions(tmp_path):
    import os

    path = tmp_path / "o.run"
    trecbench.write_run(trecbench.read_run(_one_line_run(tmp_path)), path)
    mask = os.umask(0)
    os.umask(mask)
    assert (path.stat().st_mode & 0o777) == (0o666 & ~mask)


def _one_line_run(tmp_path):
    path = tmp_path / "one.run"
    path.write_text("q Q0 a 1 2 t\n")
    return path


def test_write_run_accepts_frames_built_by_concat(tmp_path):
    import pandas as pd

    first = trecbench.read_run(_one_line_run(tmp_path))
    second = first.assign(qid="q2", docno=pd.array(["b"], dtype="string[pyarrow]"))
    out = tmp_path / "c.run"
    trecbench.write_run(pd.concat([first, second]), out)
    assert out.read_text() == "q\tQ0\ta\t1\t2\tt\nq2\tQ0\tb\t1\t2\tt\n"


@pytest.mark.parametrize("sep", [" ", "\t"])
@pytest.mark.parametrize("doubled", range(1, 6))
def test_regular_reader_sees_an_empty_field_on_every_line(tmp_path, sep, doubled):
    # a doubled separator before field `doubled` on every line shifts every later field
    # (the rank read as the score): the fast reader must refuse, not misread
    from trecbench.inputs import trec_text

    rows = [["1", "Q0", "d1", "1", "2.5", "t"], ["1", "Q0", "d2", "2", "1.5", "t"]]
    path = tmp_path / "r.run"
    path.write_text("".join(sep.join([*f[:doubled], "", *f[doubled:]]) + "\n" for f in rows))
    assert trec_text.read_regular_run(path) is None
    assert trecbench.read_run(path)["score"].tolist() == [2.5, 1.5]
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    # trec_eval (pytrec_eval) ranks d1 first: average precision 1
    assert trecbench.evaluate(qrels, path, ["map"]).per_query["value"].tolist() == [1.0]


@pytest.mark.parametrize("grade", ["1000001", "-1000001", "5000000", "99999999999"])
def test_grades_beyond_a_million_are_refused_like_the_validator_does(tmp_path, grade):
    # trec_eval 9.0.8 allocates per grade level: its nDCG would run for hours
    path = tmp_path / "huge.qrels"
    path.write_text(f"1 0 a 1\n1 0 b {grade}\n")
    with pytest.raises(InputError) as err:
        trecbench.read_qrels(path)
    assert (err.value.line, err.value.rule) == (2, "Q4")


def test_grades_up_to_a_million_are_read():
    import pyarrow as pa

    from trecbench.inputs.trec_text import parse_grades

    grades = parse_grades(pa.array(["1000000", "-1000000", "0", "-1", "1.5", "1000001"]))
    assert grades.values.tolist() == [1000000, -1000000, 0, -1, 0, 1000001]
    assert grades.integer.tolist() == [True, True, True, True, False, True]
    assert grades.huge.tolist() == [False, False, False, False, False, True]


ZERO_PADDED = ["00000000000000000000001", "-0000000000000000000000", "0000000003"]
ZERO_PADDED += ["+00000000000000000000002", "-00000000000000000001"]


def test_zero_padded_grades_are_read_as_trec_eval_s_atol_reads_them(tmp_path):
    # a sign and leading zeros are no part of a grade's size: 0000000001 was refused as
    # beyond +-1,000,000 (Q4), which trec_eval reads as 1
    import pandas as pd
    import pyarrow as pa

    from trecbench.inputs.trec_text import parse_grades

    grades = parse_grades(pa.array([*ZERO_PADDED, "0001000000", "+0001000001", "-0001000001"]))
    assert grades.values[:6].tolist() == [1, 0, 3, 2, -1, 1000000]  # C's atol, by hand
    assert grades.huge.tolist() == [False] * 6 + [True, True]
    qrels = tmp_path / "padded.qrels"
    qrels.write_text("".join(f"q1 0 {d} {g}\n" for d, g in zip("abcde", ZERO_PADDED, strict=True)))
    assert trecbench.read_qrels(qrels)["rel"].tolist() == [1, 0, 3, 2, -1]
    frame = pd.DataFrame({"qid": "q1", "docno": list("abcde"), "rel": ZERO_PADDED})
    assert trecbench.read_qrels(frame)["rel"].tolist() == [1, 0, 3, 2, -1]
    run = tmp_path / "r.run"
    run.write_text("".join(f"q1 Q0 {d} {i} {6 - i} t\n" for i, d in enumerate("abced", 1)))
    # trec_eval 9.0.8 and 10.0 -m map -m ndcg -m P.1 -m num_rel on these two files
    expected = {"MAP": 0.7556, "nDCG": 0.6875, "P@1": 1.0, "num_rel": 3.0}
    values = trecbench.evaluate(qrels, run, ["map", "ndcg", "P_1", "num_rel"]).per_query
    assert dict(zip(values["measure"], values["value"].round(4), strict=True)) == expected


def test_writing_never_replaces_the_file_it_reads(tmp_path):
    # write_run('in.run', 'in.run') rewrote its own input (2.50 became 2.5)
    from trecbench.errors import OutputError

    run, qrels = tmp_path / "in.run", tmp_path / "in.qrels"
    run.write_text("q1 Q0 d1 1 2.50 bm25\nq1 Q0 d2 2 1.00 bm25\n")
    qrels.write_text("q1\t0\td1\t1\n")
    before = run.read_bytes(), qrels.read_bytes()
    for write, path in ((trecbench.write_run, run), (trecbench.write_qrels, qrels)):
        with pytest.raises(OutputError, match="refusing to overwrite an input file"):
            write(str(path), str(path))
    assert (run.read_bytes(), qrels.read_bytes()) == before
    trecbench.write_run(str(run), str(tmp_path / "out.run"))  # elsewhere: written
    assert (tmp_path / "out.run").read_text().startswith("q1\tQ0\td1\t1\t2.5\tbm25\n")
    # an id a line cannot hold is escaped or renamed where it is held
    with pytest.raises(OutputError, match=r"'q 1' .*: escape it .* or rename it in the qrels$"):
        trecbench.write_qrels({"q 1": {"a": 1}}, str(tmp_path / "w.qrels"))


@pytest.mark.parametrize(
    ("score", "side"),
    [("-inf", "below"), ("-Infinity", "below"), ("inf", "above"), ("+INF", "above")],
)
def test_an_infinite_score_is_placed_on_its_own_side_of_float32s_range(tmp_path, score, side):
    # q1 Q0 D2 1 -inf / q1 Q0 D1 2 -1e39 with D1 relevant: recip_rank 0.5000 in trec_eval
    # 9.0.8 (tied as float32, D2 first by docno), 1.0000 in 10.0 (-inf below -1e39);
    # with inf and 1e39, 0.5000 in both (10.0 ranks inf above 1e39)
    path = tmp_path / "inf.run"
    path.write_bytes(f"q1 Q0 D2 1 {score} t\n".encode())
    (finding,) = trecbench.validate_run(path).findings
    assert finding.message == (
        f"score {score!r} is not finite (trec_eval 9.0.8 ties it with any score {side} "
        f"float32's range, 10.0 ranks it {side} them)"
    )


def test_a_field_of_thousands_of_characters_is_quoted_cut_in_one_short_line(tmp_path):
    # validate and score quoted a 5,000-digit rank, score or grade whole: lines of 5,000+
    digits = "9" * 5000
    run = tmp_path / "long.run"
    tags = ("t" * 5000, "u" * 5000)  # R17 and R18 quoted tags whole too
    run.write_text(
        f"q1 Q0 a {digits} 1 {tags[0]}\nq1 Q0 b 2 {digits}.5 {tags[1]}\n"
        f"q1 {digits} c 3 1e{digits} {tags[0]}\n"
    )
    qrels = tmp_path / "long.qrels"
    qrels.write_text(f"q1 0 a {digits}\nq1 0 b 1.{digits}\n")
    found = [*trecbench.validate_run(run).findings, *trecbench.validate_qrels(qrels).findings]
    messages = [finding.message for finding in found]
    with pytest.raises(InputError) as refused:
        trecbench.read_run(run)
    messages.append(str(refused.value))
    with pytest.raises(InputError) as refused:
        trecbench.read_qrels(qrels)
    messages.append(str(refused.value))
    assert len(messages) == 12, messages
    for message in messages:
        assert len(message) < 300 and "…(5,00" in message, message
    # the count is the field's own characters, not its quotes' (5,002 before)
    assert "rank '999" in messages[0] and "…(5,000 characters)…" in messages[0]


# subtopics 3 and 7 of topic 1 (a qrels file's second column): d1 relevant to 3, d2 to 7
DIVERSITY = "1 3 d1 1\n1 7 d1 0\n1 7 d2 1\n"
DIVERSITY_ROWS = [["1", "3", "d1", 1], ["1", "7", "d1", 0], ["1", "7", "d2", 1]]


def _diversity_inputs(source):
    import ir_datasets.formats
    import ir_measures
    import pandas as pd

    rows = [(qid, docno, rel, iteration) for qid, iteration, docno, rel in DIVERSITY_ROWS]
    return {
        "TREC text": str(source),
        "read_qrels": trecbench.read_qrels(source),
        "ir_measures Qrel": [ir_measures.Qrel(*row) for row in rows],
        "ir_datasets TrecQrel": [ir_datasets.formats.TrecQrel(*row) for row in rows],
        "PyTerrier frame": pd.DataFrame(rows, columns=["qid", "docno", "label", "iteration"]),
        "frame of iter integers": pd.DataFrame(
            [(q, d, r, int(i)) for q, d, r, i in rows], columns=["qid", "docno", "rel", "iter"]
        ),
    }


@pytest.mark.parametrize("name", ["out.qrels", "out.parquet"])
def test_write_qrels_keeps_the_iteration_and_the_diversity_values(tmp_path, name):
    """The iteration was written as 0 (TREC text: a DuplicateError on reading back) or
    dropped (Parquet: alpha_nDCG@10 0.6309 instead of 1.0)."""
    import pyarrow.parquet as pq

    source = tmp_path / "div.qrels"
    source.write_text(DIVERSITY)
    run = {"1": {"d1": 2.0, "d2": 1.0}}
    expected = trecbench.evaluate(str(source), run, ["alpha_nDCG@10"]).to_dict()
    assert expected == {"1": {"alpha_nDCG@10": 1.0}}
    out = tmp_path / name
    for kind, qrels in _diversity_inputs(source).items():
        trecbench.write_qrels(qrels, out)
        if name.endswith(".parquet"):
            assert pq.read_table(out).column_names == ["qid", "iter", "docno", "rel"], kind
        else:
            assert out.read_text() == DIVERSITY, kind
        again = trecbench.read_qrels(out)[["qid", "iter", "docno", "rel"]]
        assert again.values.tolist() == DIVERSITY_ROWS, kind
        got = trecbench.evaluate(str(out), run, ["alpha_nDCG@10"]).to_dict()
        assert got == expected, kind


@pytest.mark.parametrize("name", ["out.qrels", "out.parquet"])
def test_qrels_without_an_iteration_are_written_as_before(tmp_path, name):
    import pyarrow.parquet as pq

    out = tmp_path / name
    trecbench.write_qrels({"1": {"d1": 1, "d2": 0}}, out)
    if name.endswith(".parquet"):
        assert pq.read_table(out).to_pylist() == [
            {"qid": "1", "docno": "d1", "rel": 1},
            {"qid": "1", "docno": "d2", "rel": 0},
        ]
    else:
        assert out.read_text() == "1 0 d1 1\n1 0 d2 0\n"


def test_an_iteration_that_is_no_id_or_no_field_is_refused(tmp_path):
    import pandas as pd

    from trecbench.errors import OutputError

    floats = pd.DataFrame({"qid": ["1"], "docno": ["d"], "rel": [1], "iteration": [0.5]})
    with pytest.raises(InputError, match="not ids"):
        trecbench.write_qrels(floats, tmp_path / "a.qrels")
    blank = pd.DataFrame({"qid": ["1"], "docno": ["d"], "rel": [1], "iter": ["a b"]})
    with pytest.raises(OutputError, match="cannot hold the iter 'a b'"):
        trecbench.write_qrels(blank, tmp_path / "b.qrels")
    # text beside an integer (ir_measures' Qrel's '0' beside an int), which Arrow holds as
    # no one type: the column was dropped, the qrels written as iteration 0 and scored by
    # the diversity measures as one subtopic each (alpha_nDCG@5 1.0)
    mixed = pd.DataFrame(
        {"qid": ["1", "1"], "iteration": ["3", 7], "docno": ["a", "b"], "rel": [1, 1]}
    )
    with pytest.raises(InputError, match="not ids .*text beside integers"):
        trecbench.write_qrels(mixed, tmp_path / "c.qrels")
    with pytest.raises(InputError, match="not ids .*text beside integers"):
        trecbench.evaluate(mixed, {"1": {"a": 1.0, "b": 0.5}}, ["alpha_nDCG@5"])
    assert not list(tmp_path.iterdir())
    # the measures that read no subtopic score them as before
    assert trecbench.evaluate(mixed, {"1": {"a": 1.0}}, ["P@1"]).to_dict() == {"1": {"P@1": 1.0}}


@pytest.mark.parametrize("name", ["jg.qrels", "jg.parquet"])
def test_judgment_groups_round_trip_with_trec_eval_s_own_qrels(tmp_path, trec_eval_suite, name):
    """qrels.123's judgment groups 0, 1, 2 (-R qrels_jg) survive writing: the values of
    trec_eval's test out.test.qrels_jg are those of the written copy."""
    source = trec_eval_suite / "qrels.123"
    run = trec_eval_suite / "results.test"
    out = tmp_path / name
    trecbench.write_qrels(str(source), out)
    measures = ["map_avgjg", "P_avgjg.10,100", "Rprec_mult_avgjg"]
    options = {"rel_format": "qrels_jg"}
    before = trecbench.evaluate(str(source), str(run), measures, **options).to_dict()
    after = trecbench.evaluate(str(out), str(run), measures, **options).to_dict()
    assert after == before and len(before) == 3


@pytest.mark.parametrize("name", ["empty.run", "empty.parquet"])
@pytest.mark.parametrize("run", [{}, [], {"q1": {}}])
def test_an_empty_run_or_qrels_is_not_written(tmp_path, name, run):
    # a 0-byte file (919 bytes of Parquet without rows) that score, evaluate and validate
    # all refuse (R26) was written without a word
    with pytest.raises(trecbench.UsageError, match="empty run: nothing to write"):
        trecbench.write_run(run, tmp_path / name)
    with pytest.raises(trecbench.UsageError, match="empty qrels: nothing to write"):
        trecbench.write_qrels(run, tmp_path / name.replace("run", "qrels"))
    assert list(tmp_path.iterdir()) == []


def test_inputs_given_as_one_string_is_refused_not_read_as_its_characters(tmp_path):
    # inputs="r.run" protected the files "r", ".", "r", "u", "n": r.run was written over
    run = tmp_path / "r.run"
    run.write_text("q Q0 d 1 1 kept\n")
    for write, table in (
        (trecbench.write_run, {"q": {"d": 2.0}}),
        (trecbench.write_qrels, {"q": {"d": 1}}),
    ):
        with pytest.raises(UsageError, match=r"^inputs='.*r\.run': give a list of paths to "):
            write(table, run, inputs=str(run))
        assert run.read_text() == "q Q0 d 1 1 kept\n"


@pytest.mark.parametrize(("path", "kind"), [(None, "None"), (5, "an int"), (b"x.run", "bytes")])
def test_an_output_path_of_no_path_is_refused_naming_its_keyword(tmp_path, path, kind):
    # pathlib's "expected str, bytes or os.PathLike object, not NoneType" named no argument
    comparison = trecbench.compare_scores(
        [{"run": r, "qid": q, "measure": "P@5", "value": v}
         for r, q, v in (("a", "1", 0.1), ("a", "2", 0.5), ("b", "1", 0.2), ("b", "2", 0.3))],
        samples=40,
    )  # fmt: skip
    writes = [
        (lambda: trecbench.write_run({"q": {"d": 2.0}}, path), "path"),
        (lambda: trecbench.write_qrels({"q": {"d": 1}}, path), "path"),
        (lambda: comparison.write(path), "outdir"),
    ]
    if path is not None:  # manifest=None: no manifest
        writes.append((lambda: comparison.write(tmp_path / "out", manifest=path), "manifest"))
    for write, keyword in writes:
        with pytest.raises(
            UsageError, match=rf"^{keyword}=.*: give a path \(text or os\.PathLike\), not {kind}$"
        ):
            write()
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("write", "kind"), [("write_run", "run"), ("write_qrels", "qrels")])
def test_a_compressed_name_is_refused_suggesting_the_kinds_names(tmp_path, write, kind):
    # write_qrels(q, "x.gz") suggested a run's names (.run, .txt, .parquet)
    data = {"1": {"d": 1}} if kind == "qrels" else {"1": {"d": 1.0}}
    target = tmp_path / "x.gz"
    said = f"{target}: trecbench writes TREC text here, or Parquet for a .parquet name, not gz: "
    with pytest.raises(UsageError, match="^" + re.escape(said + f"name it otherwise (.{kind}, ")):
        getattr(trecbench, write)(data, target)
    assert not target.exists()
