"""R20.order and `validate --fix` agree on what an ascending order of topics is: numeric
(every qid digits) or byte-wise, trec_eval's; the fixed run gets no finding the run lacked."""

from __future__ import annotations

import pytest

from trecbench.cli import run
from trecbench.validation import validate_files, validate_run
from trecbench.validation.small import SmallSettings, validate_small


def _run(qids: list[str]) -> str:
    return "".join(f"{q}\tQ0\td1\t1\t1\tt\n" for q in qids)


def _order_findings(path, **options) -> list[tuple[int, str]]:
    result = validate_run(path, **options)
    return [(f.line, f.message) for f in result.findings if f.check == "R20.order"]


NUMERIC = [str(q) for q in range(1, 13)]  # 1, 2, ..., 12
BYTEWISE = sorted(NUMERIC)  # 1, 10, 11, 12, 2, ...: trec_eval's order


@pytest.mark.parametrize(
    ("qids", "found"),
    [
        (NUMERIC, []),
        (BYTEWISE, []),
        (["b", "a10", "a9"], [(2, "topic a10 after b: topics are not in ascending order")]),
        (["a", "b", "c"], []),
        # 10 then 9: numeric order left at 9, byte-wise at 10 (after 2): said at the later
        (["1", "2", "10", "9"], [(4, "topic 9 after 10: topics are not in ascending order")]),
        # byte-wise, then 8: neither order
        (["10", "9", "8"], [(3, "topic 8 after 9: topics are not in ascending order")]),
        # digits in numeric order, then an id that is not: only byte-wise applies, left at 10
        (["1", "2", "10", "x"], [(3, "topic 10 after 2: topics are not in ascending order")]),
        (["10", "9", "x"], []),  # byte-wise ascending
        # both orders left while every id was digits, then one that is not: byte-wise
        # alone applies, left at 13 (the general path said 10, where it had left both)
        (["5", "13", "10", "x"], [(2, "topic 13 after 5: topics are not in ascending order")]),
        (["5", "13", "10", "x", "y"], [(2, "topic 13 after 5: topics are not in ascending order")]),
        (["0001", "2", "10"], []),  # numerically 1, 2, 10 (no int(): any length)
        (["1" * 5000, "2" + "0" * 5000], []),
    ],
)
def test_either_ascending_order_is_accepted(tmp_path, qids, found):
    path = tmp_path / "r.run"
    path.write_text(_run(qids))
    assert _order_findings(path) == found
    # chunk by chunk (a topic or two each), the same: the state spans the chunks
    assert _order_findings(path, chunk_bytes=16) == found
    general = validate_files([path])[0]
    small = validate_small([path], None, SmallSettings("default", 1000))
    if small is not None:  # plain files: the small path says the same
        assert small[0].findings == general.findings


def call(capsys, *args) -> tuple[int, str]:
    code = run([str(a) for a in args])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("qids", [NUMERIC, BYTEWISE])
def test_fix_keeps_an_ascending_order_and_its_output_validates_as_the_run(tmp_path, capsys, qids):
    """It sorted 1..12 into 1, 10, 11, 12, 2, ... ("moved 11 lines"), which R20 then
    flagged: a finding the run lacked."""
    source, fixed = tmp_path / "num.run", tmp_path / "num.out"
    source.write_text(_run(qids))
    code = run([str(a) for a in ("validate", source, "--fix", fixed)])
    out, err = capsys.readouterr()
    assert code == 0 and "moved" not in out + err, out
    assert f"wrote the canonical run to {fixed}; no changes" in err  # as every wrote PATH
    assert fixed.read_text() == source.read_text()
    assert call(capsys, "validate", fixed)[1] == call(capsys, "validate", source)[1]
    assert "0 info" in call(capsys, "validate", fixed)[1]


def test_fix_sorts_a_run_in_neither_order_byte_wise_which_r20_accepts(tmp_path, capsys):
    source, fixed = tmp_path / "mixed.run", tmp_path / "mixed.out"
    source.write_text(_run(["2", "1", "10"]))
    assert "info[R20]" in call(capsys, "validate", source)[1]
    code = run([str(a) for a in ("validate", source, "--fix", fixed)])
    assert code == 0 and "moved into trec_eval order" in capsys.readouterr().err
    assert [line.split("\t")[0] for line in fixed.read_text().splitlines()] == ["1", "10", "2"]
    assert "0 error(s), 0 warning(s), 0 info" in call(capsys, "validate", fixed)[1]


def test_fix_merges_a_split_topic_keeping_the_order_of_first_appearance(tmp_path, capsys):
    source, fixed = tmp_path / "split.run", tmp_path / "split.out"
    source.write_text("1 Q0 a 1 2 t\n2 Q0 a 1 2 t\n10 Q0 a 1 2 t\n2 Q0 b 2 1 t\n")
    code, out = call(capsys, "validate", source, "--fix", fixed)
    assert code == 0, out
    assert [line.split("\t")[0] for line in fixed.read_text().splitlines()] == [
        "1",
        "2",
        "2",
        "10",
    ]
    assert "0 error(s), 0 warning(s), 0 info" in call(capsys, "validate", fixed)[1]
