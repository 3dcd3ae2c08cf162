"""`validate --fix`: the exit code is the fixed run's, --fix-tag sets one tag, and `-`
reads standard input (issue 27)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import trecbench
from trecbench.cli import run
from trecbench.errors import ExitCode

# what --fix lists of a run starting with a byte-order mark (what it does to the numbers too)
BOM_DROPPED = (
    "  dropped the UTF-8 byte-order mark (trec_eval read it into the first qid, a topic of its "
    "own: that topic's lines now score as the topic they name): 1 line(s) (1)"
)


def call(capsys, *args) -> tuple[int, str, str]:
    code = run([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_run_whose_errors_are_all_fixed_exits_0(tmp_path, capsys):
    source = tmp_path / "r.run"
    source.write_text("1 Q0 a 1 2 t\n1 Q0 a 2 1 t\n1 Q0 b 3 0.5 t\n")  # R7: a twice
    fixed = tmp_path / "fixed.run"
    code, out, _ = call(capsys, "validate", source, "--fix", fixed)
    assert code == 0, out
    assert "error[R7]" in out  # the input's error is still shown
    assert (
        out.splitlines()[-1] == f"{fixed}: OK: 1 file(s), 2 lines: 0 error(s), 0 warning(s), 0 info"
    )
    assert fixed.read_text() == "1\tQ0\ta\t1\t2\tt\n1\tQ0\tb\t2\t0.5\tt\n"
    assert call(capsys, "validate", fixed)[0] == 0


def test_fix_tag_sets_one_tag_and_repairs_mixed_tags(tmp_path, capsys):
    source = tmp_path / "r.run"
    source.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 u\n")
    fixed = tmp_path / "fixed.run"
    code, _, err = call(capsys, "validate", source, "--fix", fixed)
    assert code == ExitCode.INPUT and not fixed.exists()
    assert "--fix cannot repair R17; --fix-tag TAG sets one tag; first:" in err
    code, out, err = call(capsys, "validate", source, "--fix", fixed, "--fix-tag", "mine")
    assert code == 0, out
    assert "  set the run tag to mine: 2 line(s) (1, 2)" in err.splitlines()  # with wrote
    assert fixed.read_text() == "1\tQ0\ta\t1\t2\tmine\n1\tQ0\tb\t2\t1\tmine\n"


def test_fix_tag_repairs_a_tag_that_must_be_the_file_name(tmp_path, capsys):
    source = tmp_path / "r.run"
    source.write_text("1 Q0 a 1 2 t\n")
    fixed = tmp_path / "myrun"
    args = ("validate", source, "--tag-is-filename", "--fix", fixed)
    code, _, err = call(capsys, *args)
    assert code == ExitCode.INPUT and "cannot repair R19" in err
    code, _, err = call(capsys, *args, "--fix-tag", "other")
    assert code == ExitCode.INPUT and not fixed.exists()
    assert f"{fixed}: the fixed run would fail R19, which --fix cannot repair" in err
    assert call(capsys, *args, "--fix-tag", "myrun")[0] == 0
    assert fixed.read_text() == "1\tQ0\ta\t1\t2\tmyrun\n"


def test_errors_the_fix_does_not_touch_still_exit_2(tmp_path, capsys):
    """The qrels are not fixed: their error keeps the exit code 2, whatever the run."""
    source, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    source.write_text("1 Q0 a 1 2 t\n")
    qrels.write_text("1 0 a x\n")
    code, out, _ = call(capsys, "validate", source, "--qrels", qrels, "--fix", tmp_path / "f")
    assert code == ExitCode.INPUT and (tmp_path / "f").exists(), out


def test_fix_tag_needs_fix_and_one_token(tmp_path, capsys):
    source = tmp_path / "r.run"
    source.write_text("1 Q0 a 1 2 t\n")
    assert call(capsys, "validate", source, "--fix-tag", "x")[0] == ExitCode.USAGE
    code, _, err = call(capsys, "validate", source, "--fix", tmp_path / "f", "--fix-tag", "a b")
    assert code == ExitCode.USAGE and "a run tag is one token" in err


@pytest.mark.parametrize("args", [["-"], ["--qrels", "-"]])
def test_validate_reads_standard_input(args, tmp_path):
    data = b"1 Q0 a 1 2 t\n" if args == ["-"] else b"1 0 a 1\n"
    command = [sys.executable, "-m", "trecbench", "validate", *args]
    done = subprocess.run(command, input=data, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().startswith("OK: 1 file(s), 1 line:")
    twice = subprocess.run(
        [*command[: -len(args)], "-", "--qrels", "-"], input=data, capture_output=True, check=False
    )
    assert twice.returncode == ExitCode.USAGE and b"can be read once" in twice.stderr


@pytest.mark.parametrize("form", ["run.jsonl", "run.parquet"])
def test_a_run_that_is_not_trec_text_is_refused_in_one_line(form, tmp_path, capsys):
    """--fix rewrites a run's lines: a JSONL or Parquet run is refused, naming the file
    (a Parquet run was an internal error, exit 70, parsing its bytes as text)."""
    import trecbench

    source, fixed = tmp_path / form, tmp_path / "fixed.run"
    lines = ['{"qid": "q1", "docno": "d1", "score": 2}', '{"qid": "q1", "docno": "d2", "score": 3}']
    (tmp_path / "run.jsonl").write_text("\n".join(lines) + "\n")
    if form.endswith(".parquet"):
        trecbench.write_run(trecbench.read_run(str(tmp_path / "run.jsonl")), source)
    code, _, err = call(capsys, "validate", str(source), "--fix", str(fixed))
    kind = "JSONL" if form.endswith(".jsonl") else "Parquet"
    message = (
        f"--fix rewrites TREC text: a {kind} run cannot be fixed (write it as TREC text first)"
    )
    assert (code, err.splitlines()[-1]) == (2, f"trecbench: {source}: {message}")
    assert not fixed.exists()
    # said before it is met: --help (the docs' --fix section says it too)
    shown = " ".join(call(capsys, "validate", "--help")[1].split())
    assert "RUN must be TREC text: a JSONL or Parquet run is refused (exit 2" in shown


def test_a_refused_fix_still_prints_the_findings_as_json(tmp_path, capsys):
    import json

    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 a 1 nan t\nq1 Q0 b 2 inf t\n")
    out = tmp_path / "fixed.run"
    assert run(["validate", str(bad), "--fix", str(out), "--format", "json"]) == ExitCode.INPUT
    captured = capsys.readouterr()
    (result,) = json.loads(captured.out)  # the findings, as text mode prints them
    messages = [finding["message"] for finding in result["findings"]]
    assert "score 'nan' is not a number (trec_eval sorts it arbitrarily)" in messages
    # infinity is no arbitrary order: 9.0.8 ties it beyond float32, 10.0 ranks it first
    assert any("'inf' is not finite (trec_eval 9.0.8 ties it" in m for m in messages)
    assert "--fix cannot repair R12" in captured.err and not out.exists()


def test_a_bad_fix_tag_is_refused_before_the_validation_prints(tmp_path, capsys):
    good = tmp_path / "ok.run"
    good.write_text("q1 Q0 a 1 2 t\n")
    assert run(["validate", str(good), "--fix", str(tmp_path / "o.run"), "--fix-tag", "a b"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "a run tag is one token" in captured.err  # no "OK" first
    # an output named as another format (plain text in fixed.gz): refused before too
    assert run(["validate", str(good), "--fix", str(tmp_path / "fixed.gz")]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "fixed.gz: trecbench writes TREC text here" in captured.err
    assert not (tmp_path / "fixed.gz").exists()


def test_a_rank_up_to_the_largest_long_is_a_rank_and_beyond_it_says_so(tmp_path):
    # trec_eval reads ranks as C longs: 9223372036854775807 and 0000000000000000002 (2)
    # are ranks (trecbench's score read them; validate called them errors)
    from trecbench.validation import validate_run
    from trecbench.validation.runs import _bad_rank

    path = tmp_path / "r.run"
    path.write_text("1 Q0 d1 9223372036854775807 5 t\n1 Q0 d2 0000000000000000002 4 t\n")
    assert not [f for f in validate_run(path).findings if f.rule == "R10"]
    path.write_text("1 Q0 d1 9223372036854775808 5 t\n")
    (found,) = [f for f in validate_run(path).findings if f.rule == "R10"]
    assert (
        found.message
        == _bad_rank("9223372036854775808")
        == (
            "rank '9223372036854775808' is too large: ranks go up to 9223372036854775807 "
            "(a 64-bit integer, as trecbench and rank-based tools hold them; trec_eval skips "
            "the rank column)"
        )
    )
    assert _bad_rank("-1") == "rank '-1' is not a non-negative integer"


META = b"# ir_metadata.start\n# tag: t\n# actor:\n#   team: lab\n# ir_metadata.end\n"


def _fixed(tmp_path, capsys, data: bytes, name: str = "fixed.run"):
    """The fixed file and the report of ``validate --fix`` on a run holding ``data``."""
    source = tmp_path / "r.run"
    source.write_bytes(data)
    fixed = tmp_path / name
    code, out, err = call(capsys, "validate", source, "--fix", fixed)
    assert code == 0, out
    return fixed, out, err  # the changes are said on stderr, with what was written


def test_the_fix_keeps_an_ir_metadata_block_as_metadata_not_comment_lines(tmp_path, capsys):
    # it was dropped and listed among "dropped comment lines: 6 line(s) (1, 2, 3, 4, 5, 7)":
    # the run's provenance (convert and fuse --ir-metadata write it), which trecbench reads
    fixed, out, err = _fixed(tmp_path, capsys, META + b"1 Q0 a 1 2 t\n# a comment\n")
    assert "  dropped comment lines: 1 line(s) (7)" in err.splitlines()
    assert "ir_metadata" not in err.split("changes:")[1]  # kept: no change to name
    assert out.splitlines()[-1].endswith(
        ": OK: 1 file(s), 6 lines: 0 error(s), 1 warning(s), 0 info"
    )
    assert fixed.read_bytes() == META + b"1\tQ0\ta\t1\t2\tt\n"
    assert trecbench.load_run(str(fixed)).ir_metadata == {"tag": "t", "actor": {"team": "lab"}}


def test_a_kept_block_s_crlf_ends_are_made_lf_and_said_so(tmp_path, capsys):
    fixed, _, err = _fixed(tmp_path, capsys, META.replace(b"\n", b"\r\n") + b"1 Q0 a 1 2 t\n")
    expected = "  normalised the ir_metadata block's line ends to LF: 5 line(s) (1, 2, 3, 4, 5)"
    assert expected in err.splitlines()
    assert fixed.read_bytes() == META + b"1\tQ0\ta\t1\t2\tt\n"


def test_a_parquet_fix_drops_the_block_naming_it(tmp_path, capsys):
    fixed, _, err = _fixed(tmp_path, capsys, META + b"1 Q0 a 1 2 t\n", "fixed.parquet")
    expected = (
        "  dropped the ir_metadata block (a Parquet run holds none): 5 line(s) (1, 2, 3, 4, 5)"
    )
    assert expected in err.splitlines() and "comment" not in err
    assert trecbench.read_run(str(fixed)).docno.tolist() == ["a"]


def test_a_fix_tag_the_block_s_tag_contradicts_is_refused(tmp_path, capsys):
    source = tmp_path / "r.run"
    source.write_bytes(META + b"1 Q0 a 1 2 t\n")
    fixed = tmp_path / "fixed.run"
    code, _, err = call(capsys, "validate", source, "--fix", fixed, "--fix-tag", "u")
    assert code == ExitCode.INPUT and not fixed.exists()
    assert err == (
        f"trecbench: {source}: --fix-tag u would contradict the ir_metadata block (lines 1-5), "
        "whose tag is 't': give it the new tag too, or remove the block\n"
    )
    assert call(capsys, "validate", source, "--fix", fixed, "--fix-tag", "t")[0] == 0
    assert fixed.read_bytes().startswith(META)


def test_a_block_s_null_tag_contradicts_no_fix_tag(tmp_path, capsys):
    # review 718: refused as "whose tag is None", where R30.tag reads a null tag as none
    source = tmp_path / "r.run"
    block = b"# ir_metadata.start\n# tag:\n# ir_metadata.end\n"
    source.write_bytes(block + b"1 Q0 a 1 2 t\n")
    fixed = tmp_path / "fixed.run"
    assert call(capsys, "validate", source, "--fix", fixed, "--fix-tag", "u")[0] == 0
    assert fixed.read_bytes() == block + b"1\tQ0\ta\t1\t2\tu\n"


@pytest.mark.parametrize(
    ("lines", "moved"),
    [
        # topics b then a: all four lines move (it said 1, the one place the order broke)
        ("b Q0 x 1 2 t\nb Q0 y 2 1 t\na Q0 x 1 2 t\na Q0 y 2 1 t\n", "4 line(s) (1, 2, 3, 4)"),
        # a dropped duplicate and a swapped pair: the two swapped lines moved, no other
        ("1 Q0 a 1 3 t\n1 Q0 a 2 3 t\n1 Q0 c 3 1 t\n1 Q0 b 4 2 t\n1 Q0 d 5 0 t\n",
         "2 line(s) (3, 4)"),
    ],
)  # fmt: skip
def test_moved_counts_every_line_whose_place_changed(tmp_path, capsys, lines, moved):
    source = tmp_path / "order.run"
    source.write_text(lines)
    code, out, err = call(capsys, "validate", source, "--fix", tmp_path / "fixed.run")
    assert code == 0, out
    said = f"  moved into trec_eval order (qid, score desc, docno desc): {moved}"
    assert said in err.splitlines()


def test_a_leading_byte_order_mark_is_dropped_and_said(tmp_path, capsys):
    """It was '--fix cannot repair R23'; the mark is no data, the remedy is to drop it."""
    source = tmp_path / "bom.run"
    source.write_bytes(b"\xef\xbb\xbf1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    fixed = tmp_path / "fixed.run"
    code, out, err = call(capsys, "validate", source, "--fix", fixed)
    assert code == 0, out
    assert out.splitlines()[0] == (
        f"{source}:1:qid: error[R23]: UTF-8 byte-order mark: trec_eval reads it as part of the "
        "first qid, which becomes a phantom topic; save the file without it (UTF-8 without "
        "signature), or let validate --fix drop it"
    )
    assert BOM_DROPPED in err.splitlines()
    assert fixed.read_bytes() == b"1\tQ0\ta\t1\t2\tt\n1\tQ0\tb\t2\t1\tt\n"


def test_fix_drops_a_byte_order_mark_before_an_ir_metadata_block(tmp_path, capsys):
    # the mark made the block's lines data (R1: 2 and 3 fields) and R23 said "let validate
    # --fix drop it"; --fix refused "cannot repair R1", though without the mark the lines
    # are the block, kept atop the fixed run (R30)
    source = tmp_path / "r.run"
    block = b"# ir_metadata.start\n# tag: t\n# ir_metadata.end\n"
    source.write_bytes(b"\xef\xbb\xbf" + block + b"1 Q0 a 1 2 t\n")
    fixed = tmp_path / "fixed.run"
    code, out, err = call(capsys, "validate", source, "--fix", fixed)
    assert code == 0, err
    assert BOM_DROPPED in err.splitlines()
    assert fixed.read_bytes() == block + b"1\tQ0\ta\t1\t2\tt\n"


@pytest.mark.parametrize("against", ["--topics", "--qrels"])
def test_fix_drops_a_byte_order_mark_that_hid_a_topic_of_the_other_inputs(
    tmp_path, capsys, against
):
    # the mark made the first qid '\ufeff1', in no --topics (R4, R5) or qrels (X3), and
    # --fix refused "cannot repair R4, R5", though R23 said "let validate --fix drop it"
    source = tmp_path / "bom.run"
    source.write_bytes(b"\xef\xbb\xbf1 Q0 a 1 2 t\n2 Q0 b 1 1 t\n")
    other = tmp_path / "other"
    other.write_text("1\n2\n" if against == "--topics" else "1 0 a 1\n")
    fixed = tmp_path / "fixed.run"
    code, out, err = call(capsys, "validate", source, against, other, "--fix", fixed)
    assert code == 0, err
    assert BOM_DROPPED in err.splitlines()
    assert fixed.read_bytes() == b"1\tQ0\ta\t1\t2\tt\n2\tQ0\tb\t1\t1\tt\n"
    # a topic that is missing without any mark still is refused
    source.write_bytes(b"9 Q0 a 1 2 t\n")
    code, _, err = call(capsys, "validate", source, against, other, "--fix", fixed)
    assert code == ExitCode.INPUT and "--fix cannot repair" in err


def test_fix_lists_what_it_changed_of_the_lines_it_writes_only(tmp_path, capsys):
    # line 2, a duplicate dropped, was also said to have its tokens after the tag dropped
    # and its field 2 set to Q0: counts of lines that are not in the fixed run
    source = tmp_path / "r.run"
    source.write_text("q1 Q0 a 1 2 t\nq1 0 a 2 1 t x\nq1 Q0 b 3 0.5 t\n")
    fixed = tmp_path / "fixed.run"
    code, _, err = call(capsys, "validate", source, "--fix", fixed)
    assert code == 0, err
    changes = [line for line in err.splitlines() if line.startswith("  ")]
    assert changes == [
        "  dropped duplicate documents (kept the first in trec_eval order): 1 line(s) (2)",
        "  renumbered ranks 1..n: 1 line(s) (3)",
        "  normalised separators and line ends to single tabs and LF: 2 line(s) (1, 3)",
    ]


def test_the_final_newline_fix_adds_is_listed_as_every_change_is(tmp_path, capsys):
    # it was added unsaid: "no changes", and "changes": [] in JSON, of a run it rewrote
    source = tmp_path / "r.run"
    source.write_bytes(b"q1\tQ0\ta\t1\t2\tt\nq1\tQ0\tb\t2\t1\tt")
    fixed = tmp_path / "fixed.run"
    code, _, err = call(capsys, "validate", source, "--fix", fixed)
    assert code == 0, err
    assert fixed.read_bytes() == source.read_bytes() + b"\n"
    said = "added the final newline the run lacked: 1 line(s) (2)"
    assert [line for line in err.splitlines() if line.startswith("  ")] == [f"  {said}"]
    code, out, _ = call(capsys, "validate", source, "--fix", fixed, "--format", "json")
    (change,) = json.loads(out)[0]["fix"]["changes"]
    assert change == {"change": said.split(":")[0], "count": 1, "lines": [2], "text": said}
    # a last line dropped (a comment) is said so alone; a Parquet run has no line ends
    source.write_bytes(b"q1\tQ0\ta\t1\t2\tt\n#c")
    code, _, err = call(capsys, "validate", source, "--fix", fixed)
    assert code == 0 and "dropped comment lines: 1 line(s) (2)" in err
    assert "final newline" not in err
    code, _, err = call(capsys, "validate", source, "--fix", tmp_path / "fixed.parquet")
    assert code == 0 and "final newline" not in err


def test_a_lenient_fix_keeps_the_invisible_characters_it_warns_of(tmp_path, capsys):
    # the writers refuse a U+00A0 in an id of a table (R6 in a TREC file); a run read from
    # TREC text is written back as trec_eval read it, its warning kept (--profile lenient)
    source = tmp_path / "r.run"
    source.write_bytes("q Q0 d\u00a0 1 2 t\nq  Q0 e 2 1 t\n".encode())
    fixed = tmp_path / "fixed.run"
    code, out, _ = call(capsys, "validate", "--profile", "lenient", source, "--fix", fixed)
    assert code == 0, out
    assert fixed.read_bytes() == "q\tQ0\td\u00a0\t1\t2\tt\nq\tQ0\te\t2\t1\tt\n".encode()
    assert out.splitlines()[-1].endswith(
        ": OK: 1 file(s), 2 lines: 0 error(s), 1 warning(s), 0 info"
    )


@pytest.mark.parametrize("tag", ["a\x07b", "a\x00", "a\u2028b"])
def test_a_fixed_runs_tag_is_printable_as_fuses_is(tag, tmp_path):
    # fix_run took a control character fuse refuses: the fixed run's lines held it raw
    from trecbench.errors import UsageError
    from trecbench.validation import fix_run

    run = tmp_path / "r.run"
    run.write_text("1 Q0 d 1 1 t\n")
    with pytest.raises(UsageError, match="a run tag is one token of printable text"):
        fix_run(str(run), str(tmp_path / "fixed.run"), tag=tag)
    assert not (tmp_path / "fixed.run").exists()


def test_fix_hashes_no_row_in_numpy_nor_reads_its_table_back_through_pandas(
    tmp_path, capsys, monkeypatch
):
    """Reviewer 349: --fix took 45 s on a 1.8M-line run, in numpy's hash-based unique
    (setdiff1d, intersect1d) and a DataFrame read back and checked anew; its output is
    the same (byte-identical on the reviewer's runs), made without them."""
    import numpy as np

    import trecbench.files
    import trecbench.validation.fix as fix

    def refused(*args, **kwargs):
        raise AssertionError("not on --fix's path")

    def outside_fix(function):  # numpy is shared: refused where fix.py calls it only
        def called(*args, **kwargs):
            if sys._getframe(1).f_code.co_filename == fix.__file__:
                refused()
            return function(*args, **kwargs)

        return called

    for name in ("unique", "setdiff1d", "intersect1d"):
        monkeypatch.setattr(np, name, outside_fix(getattr(np, name)))
    monkeypatch.setattr(fix, "to_pandas", refused)  # (a Parquet output needs a DataFrame)
    monkeypatch.setattr(trecbench.files, "run_table", refused)
    source = tmp_path / "r.run"
    source.write_text("2 Q0 é 1 1 t\n\n1 Q0 b 3 1.0 t\n1  Q0 a 9 1 t\n1 Q0 b 4 0.5 t\n")
    fixed = tmp_path / "fixed.run"
    code, out, err = call(capsys, "validate", source, "--fix", fixed, "--max-depth", "1")
    assert code == 0, out
    assert fixed.read_bytes() == "1\tQ0\tb\t1\t1\tt\n2\tQ0\té\t1\t1\tt\n".encode()
    # the changes are said on stderr, with what was written (256bc9c1)
    assert "dropped duplicate documents (kept the first in trec_eval order): 1 line(s) (5)" in err
    assert (
        "dropped documents beyond --max-depth 1 (trec_eval 9.x scores the fixed run as the run "
        "given with -M 1): 1 line(s) (4)"
    ) in err


def test_a_run_of_one_comment_line_is_not_said_to_still_fail_what_it_did_not(tmp_path, capsys):
    """``#q1 Q0 a 1 1 t`` alone validates OK (R22, a warning); --fix drops the comment and
    refused saying the fixed run "would still fail R26", an error the run never had."""
    source = tmp_path / "r.run"
    source.write_text("#q1 Q0 a 1 1 t\n")
    fixed = tmp_path / "fixed.run"
    assert call(capsys, "validate", source)[0] == 0
    code, _, err = call(capsys, "validate", source, "--fix", fixed)
    assert code == ExitCode.INPUT and not fixed.exists()
    said = f"{fixed}: the fixed run would fail R26 (--fix dropped every line), which --fix "
    assert said + "cannot repair (nothing written)" in err


def test_a_cut_within_a_float32_only_tie_says_trec_eval_10_may_keep_others(tmp_path, capsys):
    # 9.x keeps z of a and z (1.00000002 and 1.00000001, one float32), 10.0 keeps a: the
    # change said "trec_eval scores the fixed run as the run given" of both (reviewer 667)
    source, fixed = tmp_path / "cut.run", tmp_path / "fixed.run"
    source.write_text(
        "q1 Q0 a 1 1.00000002 t\nq1 Q0 z 2 1.00000001 t\nq2 Q0 a 1 3 t\nq2 Q0 b 2 2 t\n"
        "q2 Q0 c 3 2 t\n"
    )
    code, _, err = call(capsys, "validate", source, "--fix", fixed, "--max-depth", "1")
    assert code == 0
    assert fixed.read_text().splitlines()[0].split("\t")[2] == "z"  # trec_eval 9.x's cut
    assert (
        "(trec_eval 9.x scores the fixed run as the run given with -M 1; the cut splits scores "
        "equal as float32, not as doubles, in 1 topic: trec_eval 10.0, which compares "
        "doubles, may keep others with -M 1): 3 line(s) (1, 4, 5)"
    ) in err
    # q2's tie (2 and 2) is one double too: both versions keep b of it
    source.write_text("q2 Q0 a 1 3 t\nq2 Q0 b 2 2 t\nq2 Q0 c 3 2 t\n")
    fixed.unlink()
    code, _, err = call(capsys, "validate", source, "--fix", fixed, "--max-depth", "2")
    assert code == 0 and "10.0" not in err


def test_a_depth_cut_among_scores_beyond_float32_warns_nothing_of_numpy(tmp_path):
    # "RuntimeWarning: overflow encountered in cast" on stderr (reviewer 710): 2e39 and
    # 1e39 are both infinity as float32, a tie trec_eval 9.0.8 -M1 breaks by docno (b)
    (tmp_path / "ov.run").write_text(
        "q1 Q0 a 1 2e39 t\nq1 Q0 b 2 1e39 t\nq1 Q0 c 3 1 t\nq1 Q0 d 4 -1e39 t\n"
    )
    (tmp_path / "ov.qrels").write_text("q1 0 a 1\nq1 0 d 1\n")
    args = ["validate", "ov.run", "--qrels", "ov.qrels", "--max-depth", "1", "--fix", "f.run"]
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", *args], cwd=tmp_path, capture_output=True, text=True
    )
    assert "RuntimeWarning" not in done.stderr and "overflow" not in done.stderr, done.stderr
    assert (tmp_path / "f.run").read_text().split() == ["q1", "Q0", "b", "1", "1e+39", "t"]


# mixed tags are a warning under lenient: the fix put q1's line last, and trec_eval 9.0.8's
# runid went from tagA to tagB with no word (reviewer 732); a comment line of 6 fields is a
# document to 9.0.8, whose runid tagOld became tagA unsaid too (reviewer 733; 10.0 skips it)
RUNID_CHANGES = {
    "reordered": ("q2 Q0 b 1 2 tagB\nq1 Q0 a 1 1 tagA\n", "trec_eval's", "tagA -> tagB"),
    "comment": ("q1 Q0 a 1 1 tagA\n# Q0 old 1 1 tagOld\n", "trec_eval 9.x's", "tagOld -> tagA"),
}


@pytest.mark.parametrize("case", RUNID_CHANGES)
def test_a_lenient_fix_that_changes_the_runid_says_so(tmp_path, capsys, case):
    text, who, change = RUNID_CHANGES[case]
    source = tmp_path / "r.run"
    source.write_text(text)
    fixed = tmp_path / "fixed.run"
    code, _, err = call(capsys, "validate", "--profile", "lenient", source, "--fix", fixed)
    assert code == 0
    said = f"  changed {who} runid (the last line's tag): {change}: 1 line(s) (1)"
    assert said in err.splitlines()
    # the tags set by --fix-tag: no such change
    code, _, err = call(capsys, "validate", "--profile", "lenient", source, "--fix", fixed,
                        "--fix-tag", "t")  # fmt: skip
    assert code == 0 and "runid" not in err
