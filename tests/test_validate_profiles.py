"""TREC defaults and the R task's profile; swapped arguments and capped repeats everywhere."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from test_score_suite import run_score

from trecbench.cli import _register, cli
from trecbench.cli.validate import PROFILES as CLI_PROFILES
from trecbench.errors import InputError, TrecbenchError
from trecbench.inputs.trec_text import tokenize
from trecbench.validation import CHECKS, PROFILES, validate_files, validate_run, validate_tokens

E, W, I = "error", "warning", "info"  # noqa: E741


def run(lines: int, topic: str = "q1", **options):
    data = b"".join(
        b"%s Q0 d%d %d %d t\n" % (topic.encode(), i, i + 1, lines - i) for i in range(lines)
    )
    return validate_tokens(tokenize(data, "r"), "run", **options)


def triples(result):
    return {(f.rule, f.severity, f.line) for f in result.findings}


def test_default_depth_is_1000_and_rtask_is_100():
    assert run(1000).ok and run(101, profile="strict").ok
    deep = run(1001)
    (finding,) = deep.findings
    assert (finding.rule, finding.severity, finding.line) == ("R8", E, 1001)
    # trec_eval 9.0.8 scores every document (-M defaults to MAX_LONG): the message says so
    assert finding.message == (
        "topic q1 has more than 1000 documents (--max-depth 1000); trec_eval scores them "
        "all unless run with -M1000"
    )
    assert ("R8", E, 101) in triples(run(101, profile="rtask"))
    assert run(101, profile="rtask", max_depth=200).ok
    assert run(5000, max_depth=None).ok


def test_profiles_are_named_once():
    assert CLI_PROFILES == tuple(PROFILES)
    assert (PROFILES["default"].max_depth, PROFILES["rtask"].max_depth) == (1000, 100)
    order = {E: 0, W: 1, I: 2}
    for check in CHECKS.values():
        assert order[check.rtask] <= order[check.default], check.key  # rtask only adds


RTASK_CASES = [
    # the R task's list: non-empty, all queries covered, six columns, unique ranks, Q0
    ("empty run", b"", {}, ("R26", E, None)),
    ("whitespace only", b" \n", {}, ("R9", E, None)),
    ("query not covered", b"1 Q0 a 1 2 t\n", {"qrels_topics": ["1", "2"]}, ("X2", E, None)),
    ("seven columns", b"1 Q0 a 1 2 my tag\n", {}, ("R1", E, 1)),
    ("five columns", b"1 a 1 2 t\n", {}, ("R1", E, 1)),
    ("rank twice", b"1 Q0 a 1 2 t\n1 Q0 b 1 1 t\n", {}, ("R11", E, 2)),
    ("not Q0", b"1 QO a 1 2 t\n", {}, ("R3", E, 1)),
]


@pytest.mark.parametrize(
    ("data", "options", "expected"), [c[1:] for c in RTASK_CASES], ids=[c[0] for c in RTASK_CASES]
)
def test_rtask_rules(data, options, expected):
    result = validate_tokens(tokenize(data, "r"), "run", profile="rtask", **options)
    assert expected in triples(result)
    if expected[0] in ("X2", "R11", "R3"):  # the R task's additions: warnings by default
        default = validate_tokens(tokenize(data, "r"), "run", **options)
        assert default.ok and (expected[0], W, expected[2]) in triples(default)


def test_rtask_accepts_zero_based_unique_ranks():
    # "rank uniqueness per query", not numbering: R11.sequence stays a warning
    result = validate_tokens(tokenize(b"1 Q0 a 0 2 t\n1 Q0 b 1 1 t\n", "r"), "run", profile="rtask")
    assert result.ok and ("R11", W, 1) in triples(result)
    both = validate_tokens(tokenize(b"1 Q0 a 0 3 t\n1 Q0 b 0 2 t\n1 Q0 c 5 1 t\n", "r"), "run")
    assert {f.check for f in both.findings if f.rule == "R11"} == {"R11.unique", "R11.sequence"}


def test_rtask_with_qrels_file_as_the_benchmark_calls_it(tmp_path):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 a 1\n2 0 b 1\n")
    path = tmp_path / "r.run"
    path.write_text("1 Q0 a 1 2 t\n")
    result = validate_run(path, profile="rtask", qrels=qrels)
    assert not result.ok and ("X2", E, None) in triples(result)
    with pytest.raises(InputError, match="looks like a run, not qrels"):
        validate_run(path, profile="rtask", qrels=path)


# --- swapped arguments: one line ------------------------------------------------------------

QRELS = "".join(f"q{q} 0 d{d} {d % 2}\n" for q in range(3) for d in range(400))
RUN = "".join(f"q{q} Q0 d{d} {d + 1} {1000 - d} t\n" for q in range(3) for d in range(400))


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path


def test_score_with_swapped_arguments_says_so_once(files, monkeypatch):
    stdout, message, code = run_score(["run", "qrels"], files, monkeypatch)
    assert (stdout, code) == (b"", 2)
    assert message == (
        "run: error[Q11]: this looks like a run, not qrels (every line has 6 or more fields): "
        "are the run and qrels arguments swapped?"
    )


def test_qrels_given_as_the_run_after_qrels_ask_for_the_run(files, monkeypatch):
    """The qrels read as qrels: swapping the arguments, which R29 asks about, fails too."""
    forgot = (
        "qrels: error[R29]: this looks like qrels, not a run (every line has 4 fields, an "
        "integer last), as do the qrels it is scored against: did you forget the run?"
    )
    assert run_score(["qrels", "qrels"], files, monkeypatch) == (b"", forgot, 2)
    assert run_score(["-j", "2", "qrels", "run", "qrels"], files, monkeypatch)[1:] == (forgot, 2)
    _register()
    monkeypatch.chdir(files)
    result = CliRunner().invoke(cli, ["compare", "qrels", "run", "qrels"])
    assert str(result.exception) == forgot


def test_a_run_given_as_qrels_before_another_run_asks_for_the_qrels(files, monkeypatch):
    """Both arguments runs: it asked whether they were swapped, and swapping them fails too."""
    forgot = (
        "run: error[Q11]: QRELS is a run (every line has 6 or more fields), and so is the run "
        "given after it: did you forget the qrels?"
    )
    (files / "other.run").write_text(RUN)
    assert run_score(["run", "other.run"], files, monkeypatch)[1:] == (forgot, 2)
    (files / "bom.run").write_bytes(b"\xef\xbb\xbf" + RUN.encode())  # Q11 and R23 at once
    message = run_score(["bom.run", "other.run"], files, monkeypatch)[1].splitlines()
    assert message[0] == "bom." + forgot and "error[R23]" in message[1]
    _register()
    monkeypatch.chdir(files)
    result = CliRunner().invoke(cli, ["compare", "run", "other.run", "run"])
    assert str(result.exception) == forgot


def test_compare_with_swapped_arguments_says_so_once(files, monkeypatch):
    _register()
    monkeypatch.chdir(files)
    result = CliRunner().invoke(cli, ["compare", "run", "qrels", "run", "-o", "out"])
    assert isinstance(result.exception, TrecbenchError), result.output
    assert str(result.exception).count("\n") == 0
    assert "looks like a run, not qrels" in str(result.exception)
    assert not (files / "out").exists()


def test_validate_with_swapped_files_gives_one_finding_each(files):
    qrels, run = validate_files([files / "qrels"], qrels=files / "run")
    assert [(f.rule, f.line) for f in qrels.findings] == [("Q11", None)]
    assert [(f.rule, f.line) for f in run.findings] == [("R29", None)]
    assert qrels.qrels_info is None  # nothing to check the run against


# --- repeats are capped in score too ----------------------------------------------------------


def test_score_caps_repeated_errors_and_warnings(tmp_path, monkeypatch):
    (tmp_path / "qrels").write_text("".join(f"1 0 d{d} 0.5\n" for d in range(50)))
    (tmp_path / "run").write_text("1 Q0 d1 1 1 t\n")
    _, message, code = run_score(["qrels", "run"], tmp_path, monkeypatch)
    lines = message.splitlines()
    assert code == 2 and len(lines) == 6 and all("error[Q3]" in line for line in lines[:5])
    assert lines[5] == "qrels: note: 45 more [Q3] not shown (50 in total)"
    (tmp_path / "qrels").write_text("1 0 d1 1\n")
    (tmp_path / "run").write_bytes(
        b"".join(b"1 Q0 d%d 1 %d t x\r\n" % (d, 99 - d) for d in range(30))
    )
    stdout, stderr, code = run_score(["-m", "P.5", "qrels", "run"], tmp_path, monkeypatch)
    assert code == 0 and stdout
    warnings = [line for line in stderr.splitlines() if "R1" in line]
    assert len(warnings) == 6
    assert warnings[-1].endswith("25 more [R1.extra] not shown (30 in total)")
    # CRLF ends, the same on every line and harmless, are one line (they were capped too)
    crlf = [line for line in stderr.splitlines() if "R24" in line]
    assert crlf == [
        "trecbench: warning: run: warning[R24]: CRLF line ends on all 30 lines (read as LF; "
        "scores unaffected; validate --fix normalises them)"
    ]


@pytest.mark.parametrize(
    ("profile", "severity"), [("strict", W), ("default", I), ("lenient", I), ("rtask", I)]
)
def test_a_grade_with_a_leading_plus_is_read_and_flagged_by_strict(profile, severity):
    """'1 0 a +1' passed --profile strict without a word, while the spec's grade grammar
    is ^-?\\d+$ (and a run's rank +1 is R10): read as atol reads it, flagged."""
    tokens = tokenize(b"1 0 a +1\n1 0 b 1\n1 0 c -1\n1 0 d +007\n", "q")
    result = validate_tokens(tokens, "qrels", profile=profile)
    assert result.ok
    assert [(f.rule, f.severity, f.line, f.field) for f in result.findings if f.rule == "Q3"] == [
        ("Q3", severity, 1, "rel"),
        ("Q3", severity, 4, "rel"),
    ]
    assert result.findings[-1].message == (
        "grade +007 has a leading '+', outside the grade grammar ^-?[0-9]+$ (trec_eval's atol, "
        "and trecbench, read it as 7)"
    )


def test_a_rules_warnings_never_hide_its_error(tmp_path, capsys):
    # five Q8 comment lines printed, the comment on the last line (Q8.comment, the file's
    # one error) went into "2 more [Q8] not shown", FAILED without its reason
    from trecbench.cli import run

    qrels = tmp_path / "c.qrels"
    qrels.write_text("".join(f"q1 0 {d} 1\n#c 0 {d} 1\n" for d in "abcdef"))
    assert run(["validate", "--qrels", str(qrels)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out[5] == (
        f"{qrels}:12:line: error[Q8]: comment on the last line (trec_eval 10.0 fails or "
        "misreads it)"
    )
    assert out[6] == f"{qrels}: note: 1 more [Q8.comment] not shown (6 in total)"
    assert all("warning[Q8]" in line for line in out[:5])


def test_tag_is_filename_is_refused_for_standard_input(capsys, monkeypatch):
    # R19 compared the tag with the file name '-'
    import io

    from trecbench.cli import run

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"1 Q0 a 1 1 t\n")))
    assert run(["validate", "-", "--tag-is-filename"]) == 1
    assert "--tag-is-filename: standard input (-) has no file name" in capsys.readouterr().err
