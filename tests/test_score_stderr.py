"""score says the same of a run however it is given: a regular file is read without the
validator's gate, so what the gate alone would say of a valid run (ties, rank order, run
tags: validate's to say) is not said of a run from standard input or a gzipped file
either; it printed six R15 warnings of a fused run read from a pipe."""

from __future__ import annotations

import gzip
import subprocess
import sys

import pytest
from conftest import ROOT

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")


def _score(*args: str, stdin: bytes | None = None) -> tuple[int, bytes, bytes]:
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", "score", *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def test_a_run_with_ties_gets_one_stderr_from_a_file_a_pipe_and_gzip(tmp_path):
    tied = tmp_path / "tied.run"  # two scores per topic, each shared: R15 in validate
    tied.write_text(
        "".join(
            f"{qid} Q0 HP:000000{i} {i} {2 - i // 2} t\n"
            for qid in ("de-01", "de-02")
            for i in range(4)
        )
    )
    packed = tmp_path / "tied.run.gz"
    packed.write_bytes(gzip.compress(tied.read_bytes()))
    base = ["--compat", "10.0", "-c", "-m", "P.5", QRELS]
    done = [
        _score(*base, str(tied)),
        _score(*base, "-", stdin=tied.read_bytes()),
        _score(*base, str(packed)),
    ]
    assert [code for code, _, _ in done] == [0, 0, 0]
    assert done[1][1] == done[2][1] == done[0][1]  # the same numbers
    for _, _, err in done:  # no validator finding (R11 zero-based ranks, R15 ties) of any
        assert b"warning[R" not in err, err


def _stdin_call(argv: list[str], data: bytes, from_file) -> bytes:
    """stderr of ``trecbench argv`` with ``data`` on standard input: piped, or from a file."""
    if from_file is None:
        return _score(*argv, stdin=data)[2]
    from_file.write_bytes(data)
    with open(from_file, "rb") as handle:
        done = subprocess.run([sys.executable, "-m", "trecbench", "score", *argv],
                              stdin=handle, capture_output=True, check=False)  # fmt: skip
    return done.stderr


@pytest.mark.parametrize("compat", [[], ["--compat", "10.0"]])
@pytest.mark.parametrize("redirected", [False, True])
def test_standard_input_is_named_as_given_with_its_line_numbers(tmp_path, compat, redirected):
    # 9.0.8 said "/dev/stdin:2: ...", 10.0 "run '-' (-): row 1: ... (first at row 0)"
    # and "<stdin>:1:score: ..."
    source = tmp_path / "in.run" if redirected else None
    duplicated = b"de-01 Q0 HP:1 1 2 t\nde-01 Q0 HP:1 2 1 t\n"
    err = _stdin_call([*compat, "-m", "map", QRELS, "-"], duplicated, source)
    assert err == b"trecbench: -:2: duplicate docs HP:1 for topic de-01 (first on line 1)\n"
    err = _stdin_call([*compat, "-m", "map", QRELS, "-"], b"de-01 Q0 HP:1 1 x t\n", source)
    assert err.startswith(b"trecbench: -:1:score: error[R12]: score 'x' "), err


def test_validate_names_standard_input_as_given():
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", "validate", "-"],
        input=b"1 Q0 d1 1 2 t\n1 Q0 d2 2 2 t\n",
        capture_output=True,
        check=False,
    )
    assert done.stdout.startswith(b"-:1:score: warning[R15]: "), done.stdout


def test_a_z_score_beyond_a_double_is_an_infinity_without_numpys_warning(tmp_path):
    # "trecbench: warning: RuntimeWarning: overflow encountered in scalar divide"; the
    # numbers are trec_eval 9.0.8's (-Z huge.z -m P.5 -q on these files); trecbench's
    # own warning says the z-score is no number
    zscores, qrels, run = tmp_path / "huge.z", tmp_path / "q", tmp_path / "r"
    zscores.write_text("q1 P_5 1e308 1e-308\nq2 P_5 0.1 0.2\n")
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\nq2 0 d4 1\n")
    run.write_text("q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.5 r\nq2 Q0 d3 1 3.0 r\nq2 Q0 d4 2 1.0 r\n")
    code, out, err = _score("-Z", str(zscores), "-m", "P.5", "-q", str(qrels), str(run))
    assert code == 0 and b"RuntimeWarning" not in err
    assert (
        err
        == (
            f"trecbench: warning: TrecEvalUndefinedWarning: {zscores}: the z-score of P_5 for "
            "topic q1 is beyond a double's range (a stddev too small for the value's distance "
            "from the mean): printed as trec_eval prints it (inf or -inf), no number\n"
        ).encode()
    )
    assert out == (
        b"ZP_5                   \tq1\t  -inf\n"
        b"ZP_5                   \tq2\t1.5000\n"
        b"ZP_5                   \tall\t  -inf\n"
    )


RANKED = [(1, 1, 1, 3), (1, 2, 2, 2), (1, 3, 3, 1), (2, 4, 1, 5), (2, 1, 2, 4)]


def test_trec_evals_missing_z_score_marker_is_printed_as_it_prints_it_and_warned_of(tmp_path):
    # q1's map has a stddev of 0 and a value other than the mean, q2's P_5 no line: trec_eval
    # 9.0.8 (-q -Z z -m map -m P.5 on these files) prints its MISSING_ZSCORE_VALUE for both
    # and averages it into all; CSV and JSON carried it as a z-score, unsaid
    zscores, qrels, run = tmp_path / "z", tmp_path / "q", tmp_path / "r"
    zscores.write_text("q1 map 0.5 0\nq2 map 0.3 0.1\nq1 P_5 0.1 0.05\n")
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\n")
    run.write_text("".join(f"q{t} Q0 d{d} {r} {s} t\n" for t, d, r, s in RANKED))
    inputs = (str(qrels), str(run))
    code, out, err = _score("-q", "-Z", str(zscores), "-m", "map", "-m", "P.5", *inputs)
    assert code == 0 and out == (
        b"Zmap                   \tq1\t-1000000.0000\n"
        b"ZP_5                   \tq1\t6.0000\n"
        b"Zmap                   \tq2\t2.0000\n"
        b"ZP_5                   \tq2\t-1000000.0000\n"
        b"Zmap                   \tall\t-499999.0000\n"
        b"ZP_5                   \tall\t-499997.0000\n"
    )
    said = (
        f"trecbench: warning: TrecEvalUndefinedWarning: {zscores}: map for topic q1 (and 1 "
        "more) has no line, or a stddev of 0 and a value other than the mean: its z-score is "
        "trec_eval's -1000000, a marker, no z-score, printed and averaged into 'all' as "
        "trec_eval does\n"
    )
    assert err == said.encode()
    # 1,000 topics without a line: "and 999 mores" it said; and said once, not again for
    # --unjudged-bounds' high end (the run scored twice)
    many = tmp_path / "many"
    many.write_text("".join(f"t{t:04d} Q0 d1 1 1 t\n" for t in range(1, 1001)))
    (tmp_path / "q1000").write_text("".join(f"t{t:04d} 0 d1 1\n" for t in range(1, 1001)))
    last = tmp_path / "last"  # a line sorting after every topic: trec_eval's search ends
    last.write_text("zz map 0.1 0.1\n")
    argv = ["-Z", str(last), "-m", "map", "--unjudged-bounds", str(tmp_path / "q1000")]
    code, out, err = _score(*argv, str(many))
    assert err.decode().splitlines() == [
        f"trecbench: warning: TrecEvalUndefinedWarning: {last}: map for topic t0001 (and "
        "999 more) has no line, or a stddev of 0 and a value other than the mean: its "
        "z-score is trec_eval's -1000000, a marker, no z-score, printed and averaged into "
        "'all' as trec_eval does"
    ]
    code, out, err = _score("-Z", str(zscores), "-m", "map", *inputs)
    assert out.endswith(b"\t-499999.0000\n") and b"map for topic q1 has no line" in err


@pytest.mark.parametrize("compat", [["-c"], ["--compat", "10.0", "-c"]])
def test_standard_input_from_a_file_is_read_from_where_it_stands(tmp_path, compat):
    # { read -r h; trecbench score --compat 10.0 q -; } < run read from byte 0 (the line
    # the shell had read: "-:1:line: error[R1]"); trec_eval 10.0 reads on from there
    run = tmp_path / "run"
    run.write_text("HEADER\nde-01 Q0 HP:1 1 2 t\n")
    report = tmp_path / "r.json"
    script = (
        f'{{ read -r h; "{sys.executable}" -m trecbench score {" ".join(compat)} -m map '
        f'"{QRELS}" - --report "{report}"; }} < "{run}"'
    )
    done = subprocess.run(["sh", "-c", script], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"map ")
    import hashlib
    import json

    record = next(r for r in json.loads(report.read_text())["inputs"] if r["path"] == "-")
    rest = b"de-01 Q0 HP:1 1 2 t\n"
    assert (record["size"], record["sha256"]) == (len(rest), hashlib.sha256(rest).hexdigest())


def _crlf_files(tmp_path):
    """A qrels with CRLF on one of its two lines, a run with CRLF on all three."""
    qrels, run = tmp_path / "crlf.qrels", tmp_path / "crlf.run"
    qrels.write_bytes(b"de-01 0 HP:1 1\r\nde-01 0 HP:2 0\n")
    run.write_bytes(b"de-01 Q0 HP:1 1 3 t\r\nde-01 Q0 HP:2 2 2 t\r\nde-01 Q0 HP:3 3 1 t\r\n")
    return qrels, run


def _crlf_said(qrels, run) -> list[str]:
    unaffected = "(read as LF; scores unaffected"
    return [
        # some lines only: at the first (a line in 3M was said at none)
        f"trecbench: warning: {qrels}:1:line: warning[R24]: CRLF line ends on 1 of 2 lines, "
        f"the first of them here {unaffected})",
        f"trecbench: warning: {run}: warning[R24]: CRLF line ends on all 3 lines "
        f"{unaffected}; validate --fix normalises them)",
    ]


def test_crlf_is_one_warning_per_file(tmp_path):
    """It was five lines per file, each 'CRLF line end (Windows)', and 'N more'."""
    qrels, run = _crlf_files(tmp_path)
    code, out, err = _score("-m", "P.2", str(qrels), str(run))
    assert (code, out) == (0, b"P_2                   \tall\t0.5000\n")
    assert err.decode().splitlines() == _crlf_said(qrels, run)


def test_compare_says_what_score_says_of_its_inputs(tmp_path):
    """compare said nothing of a CRLF file (nor of any input warning score prints)."""
    qrels, run = _crlf_files(tmp_path)
    other = tmp_path / "other.run"
    other.write_text("de-01 Q0 HP:2 1 3 t\nde-01 Q0 HP:1 2 2 t\n")
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", "compare", "-m", "P.2", "--format", "json"]
        + [str(qrels), str(run), str(other)],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().splitlines() == _crlf_said(qrels, run)
    assert b"R24" not in done.stdout  # said, as score says it, not kept in the report


def test_every_file_written_is_said_once_on_stderr_in_order(tmp_path):
    # --html said "wrote page.html" while --report and --manifest wrote theirs silently
    run = str(ROOT / "runs" / "tfidf-word.run")
    files = {flag: tmp_path / name for flag, name in
             (("--report", "r.json"), ("--manifest", "m.json"), ("--html", "p.html"))}  # fmt: skip
    argv = ["-m", "P.5", QRELS, run, *(str(part) for pair in files.items() for part in pair)]
    code, out, err = _score(*argv)
    assert code == 0 and out.startswith(b"P_5")
    said = [line for line in err.decode().splitlines() if line.startswith("wrote ")]
    assert said == [f"wrote {path}" for path in files.values()]
    assert all(path.is_file() for path in files.values())
    code, _, err = _score("-m", "P.5", QRELS, run)
    assert code == 0 and b"wrote" not in err


@pytest.mark.parametrize("second", ["same", "dotted", "linked"])
def test_a_run_given_twice_is_refused_as_compare_refuses_it(tmp_path, second):
    # it was 'two runs are named ...; name them apart (e.g. with --names)', which --names
    # then refused; spelt two ways (./run, a link) it was scored twice (reviewer 325)
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 1.0 t\n")
    other = {"same": str(run), "dotted": f"{tmp_path}/./r.run", "linked": "l.run"}
    (tmp_path / "l.run").symlink_to(run)
    argv = ["-m", "P.5", QRELS, str(run), other[second]]
    code, out, err = _score(*argv) if second != "linked" else _score_in(tmp_path, *argv)
    said = err.decode()
    assert code == 1 and out == b"" and said.count("\n") == 1
    assert ("the same run is given twice" if second == "same" else "the same run as") in said


def _score_in(folder, *args: str) -> tuple[int, bytes, bytes]:
    done = subprocess.run([sys.executable, "-m", "trecbench", "score", *args], cwd=folder,
                          capture_output=True, check=False, input=b"")  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def test_a_refused_input_is_said_alone_beside_10_0_s_rbp(tmp_path):
    """--compat 10.0 -m rbp warned of 10.0's uninitialised gains before the qrels were
    read: an empty qrels file's error came second, after a warning of numbers never
    computed (reviewer 691). The warning now follows the scoring; the error is alone."""
    empty, run = tmp_path / "empty.qrels", str(ROOT / "runs" / "tfidf-word.run")
    empty.write_text("")
    code, out, err = _score("--compat", "10.0", "-m", "rbp", str(empty), run)
    assert (code, out) == (2, b"")
    assert err == f"trecbench: {empty}: error[R26]: empty file\n".encode()
    code, out, err = _score("--compat", "10.0", "-m", "rbp", QRELS, run)
    assert code == 0 and out.startswith(b"rbp ")
    assert err.startswith(b"trecbench: warning: TrecEvalUndefinedWarning: rbp: trec_eval 10.0")
