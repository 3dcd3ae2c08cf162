"""The small paths of ``score`` and ``validate`` (issue 31) against the general path on
hostile but plain input: score spellings Arrow, Python and the validator must read alike
(``+.5``, ``5.``, exponents, float32 subnormals, magnitudes near float32's largest, a
decimal that rounds differently straight to float32 than through a double), qids and
docnos whose byte order is not their numeric order, topics deeper than every cutoff,
measure spellings, a file of exactly the small size, what is not a regular file, and
plain text that starts with a compression's magic (``BZh``).
Each case must be taken by the small path (or the test says why not) and print, byte
for byte, what the general path prints."""

from __future__ import annotations

import os
import random
from decimal import Decimal

import pytest

import trecbench.cli.small
import trecbench.cli.validate
from trecbench import small_text
from trecbench.cli import run
from trecbench.small_score import small_evaluation
from trecbench.validation.small import SmallSettings, validate_small

SCORES = [
    "1", "1.00000001", "1.0000001", ".25", "+.25", "5.", "-5.", "+0", "-0.0", "0", "1e-46",
    "7e-46", "1E2", "100", "1e+00", "3.3e38", "-3.3e38", "16777217", "16777216", "1e-99",
]  # fmt: skip
QIDS = ["1", "01", "10", "9", "002", "2", "q", "Q"]
MEASURES = [
    [], ["-m", "P"], ["-m", "P.1000 recall.5,1000 Rprec"], ["-m", "map_cut ndcg_cut"],
    ["-m", "nDCG@10", "-m", "MRR@10 HitRate@10 R@100"], ["-m", "P(rel=2)@5 AP(rel=2)"],
    ["-m", "recip_rank map ndcg success.1,5,10 num_ret num_rel num_rel_ret"],
]  # fmt: skip


def _case(seed: int) -> tuple[str, str]:
    """Qrels and run: every topic on both sides with a relevant document, every document
    judged (no unjudged-documents warning can be due), some judged documents not
    retrieved; shuffled lines, a topic of 1 to 120 documents."""
    rng = random.Random(seed)
    sep = rng.choice(" \t")
    qrels, lines = [], []
    for qid in rng.sample(QIDS, rng.randint(1, 5)):
        size = rng.choice([1, 5, 11, 120])
        names = (f"{rng.choice(['D', 'd', '', '0'])}{rng.randrange(500)}" for _ in range(size))
        docnos = list(dict.fromkeys(names))  # D9 after D10, 09 before 1, as bytes
        for rank, docno in enumerate(docnos, 1):
            score = rng.choice(SCORES) if rng.random() < 0.6 else repr(rng.random())
            lines.append(sep.join((qid, "Q0", docno, f"{rank:03d}", score, "t")))
        judged = rng.sample(docnos, len(docnos)) + ["X1", "X2"][: rng.randint(0, 2)]
        grades = [rng.choice([0, 1, 2, 999999]) for _ in judged]
        grades[0] = 1
        qrels += [sep.join((qid, "0", d, str(g))) for d, g in zip(judged, grades, strict=True)]
    rng.shuffle(lines)
    return "".join(f"{q}\n" for q in qrels), "".join(f"{line}\n" for line in lines)


def _both(capsys, monkeypatch, argv, module, name, general):
    """``(exit code, stdout, stderr)`` of ``argv`` with the small path, then without."""
    outputs = []
    for patched in (False, True):
        with monkeypatch.context() as patch:
            if patched:
                patch.setattr(module, name, general)
            code = run(argv)
            out = capsys.readouterr()
            outputs.append((code, out.out, out.err))
    return outputs


def _score_both(capsys, monkeypatch, argv):
    general = (trecbench.cli.small, "small_score", lambda ctx: False)
    return _both(capsys, monkeypatch, ["score", *argv], *general)


def _validate_both(capsys, monkeypatch, argv):
    general = (trecbench.cli.validate, "_small_path", lambda *a: False)
    return _both(capsys, monkeypatch, ["validate", *argv], *general)


def _files(tmp_path, seed: int):
    """The qrels and run files of :func:`_case` ``seed``, and the run's text."""
    qrels, run_file = tmp_path / "q", tmp_path / "r"
    qrels_text, run_text = _case(seed)
    qrels.write_text(qrels_text)
    run_file.write_text(run_text)
    return qrels, run_file, run_text


@pytest.mark.parametrize("seed", range(8))
def test_hostile_plain_runs_score_as_on_the_general_path(tmp_path, capsys, monkeypatch, seed):
    qrels, run_file, _ = _files(tmp_path, seed)
    for measures in MEASURES:
        wanted = [m for m in measures if m != "-m"] or None
        assert small_evaluation(str(qrels), str(run_file), wanted) is not None, measures
        argv = ["-q", *measures, str(qrels), str(run_file)]
        small, general = _score_both(capsys, monkeypatch, argv)
        assert small == general, argv


@pytest.mark.parametrize("seed", range(8))
def test_hostile_plain_runs_validate_as_on_the_general_path(tmp_path, capsys, monkeypatch, seed):
    qrels, run_file, run_text = _files(tmp_path, seed)
    run_file.write_text("".join(sorted(run_text.splitlines(keepends=True))))  # one block each
    assert validate_small([run_file], qrels, SmallSettings("default", 1000)) is not None
    for options in ([], ["--format", "json", "--max-depth", "10"], ["--profile", "strict"]):
        argv = [*options, str(run_file), "--qrels", str(qrels)]
        small, general = _validate_both(capsys, monkeypatch, argv)
        assert small == general, argv


def test_a_score_rounded_once_to_float32_or_through_a_double(tmp_path, capsys, monkeypatch):
    # 1 + 2^-24 + 2^-80 is above the float32 midpoint 1 + 2^-24, so straight to float32 it
    # is 1 + 2^-23; as trec_eval reads it (atof, a double: 1 + 2^-24, a tie to even) it is
    # 1.0 and ties with b's score: b (the larger docno) comes first, a (relevant) second
    score = format(Decimal(1) + Decimal(2) ** -24 + Decimal(2) ** -80, "f")
    qrels, run_file = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run_file.write_text(f"1 Q0 a 1 {score} t\n1 Q0 b 2 1 t\n")
    small, general = _score_both(
        capsys, monkeypatch, ["-m", "recip_rank", str(qrels), str(run_file)]
    )
    assert small == general
    assert small[1] == "recip_rank            \tall\t0.5000\n"


def test_a_file_of_exactly_the_small_size_is_small(tmp_path, capsys, monkeypatch):
    line = "1 Q0 d{:07d} 1 1 t\n"
    count, rest = divmod(small_text.VALIDATED_BYTES, len(line.format(0)))
    text = "".join(line.format(i) for i in range(count - 1))
    text += f"1 Q0 {'x' * (len(line.format(0)) + rest - 12)} 1 1 t\n"
    run_file, qrels = tmp_path / "r", tmp_path / "q"
    run_file.write_text(text)
    qrels.write_text("1 0 d0000000 1\n")
    assert run_file.stat().st_size == small_text.VALIDATED_BYTES
    assert small_text.read_plain(str(run_file), "run", small_text.VALIDATED_BYTES) is not None
    small, general = _validate_both(capsys, monkeypatch, [str(run_file), "--qrels", str(qrels)])
    assert small == general
    run_file.write_text(text + "1 Q0 y 1 1 t\n")
    assert small_text.read_plain(str(run_file), "run", small_text.VALIDATED_BYTES) is None


def test_what_is_not_a_regular_file_is_not_small(tmp_path, capsys):
    run_file = tmp_path / "r"
    run_file.write_text("1 Q0 a 1 1 t\n")
    (tmp_path / "link").symlink_to(run_file)
    os.mkfifo(tmp_path / "fifo")
    bound = small_text.VALIDATED_BYTES
    assert small_text.small_file(str(tmp_path / "link"), bound)
    # a FIFO could be read only once: the general path's
    assert not small_text.small_file(str(tmp_path / "fifo"), bound)
    assert not small_text.small_file(str(tmp_path), bound)
    assert not small_text.small_file(str(tmp_path / "missing"), bound)
    for command in (["score", str(run_file), str(tmp_path)], ["validate", str(tmp_path)]):
        code = run(command)
        err = capsys.readouterr().err
        assert code not in (0, 70) and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("name", ["run.jsonl", "RUN.JSONL.gz", "q.jsonl"])
def test_plain_text_named_as_jsonl_is_read_as_jsonl(tmp_path, capsys, monkeypatch, name):
    """A file named as a JSONL run is JSONL to the general path, whatever it holds: the
    small paths took plain TREC text so named and passed it (validate: OK, exit 0; score:
    numbers), where the general path refuses it at line 1 (bad JSON, or qrels in JSONL)."""
    qrels, run_file = tmp_path / "q.txt", tmp_path / name
    qrels.write_text("1 0 d1 1\n")
    run_file.write_text("1 Q0 d1 1 2.0 t\n" if name != "q.jsonl" else "1 0 d1 1\n")
    bound = small_text.VALIDATED_BYTES
    assert small_text.read_plain(str(run_file), "run", bound) is None
    assert small_text.read_plain(str(run_file), "qrels", bound) is None
    if name == "q.jsonl":
        small, general = _validate_both(capsys, monkeypatch, ["--qrels", str(run_file)])
    else:
        small, general = _validate_both(capsys, monkeypatch, [str(run_file)])
        # a finding at its line (R32), as validate reports a bad JSONL line (9a795e58)
        assert small == general and small[0] == 2 and "1:line: error[R32]: bad JSON" in small[1]
        small, general = _score_both(capsys, monkeypatch, [str(qrels), str(run_file)])
    assert small == general and small[0] == 2 and small[2].count("\n") == 1


@pytest.mark.parametrize("which", ["run", "qrels", "topics"])
def test_a_file_starting_as_bz2_does_is_the_general_paths(tmp_path, capsys, monkeypatch, which):
    """A first topic ``BZh9`` starts a file with bz2's magic, which is printable: the
    general path took such a file for bz2 (and found no bz2 data in it, R27), where the
    small paths read it as plain text and passed it (validate: OK, exit 0; score:
    numbers). bz2 is now told by its block's magic too (20a05b14): both paths read the
    text as trec_eval does; a file that is bz2 is never plain."""
    import bz2

    qrels, run_file, topics = tmp_path / "q", tmp_path / "r", tmp_path / "t"
    first = {name: "BZh9" if name == which else "1" for name in ("run", "qrels", "topics")}
    run_file.write_text(f"{first['run']} Q0 d1 1 2.0 t\n")
    qrels.write_text(f"{first['qrels']} 0 d1 1\n")
    topics.write_text(f"{first['topics']}\n")
    if which != "topics":
        kind = "run" if which == "run" else "qrels"
        path = run_file if which == "run" else qrels
        assert small_text.read_plain(str(path), kind, small_text.VALIDATED_BYTES) is not None
        compressed = tmp_path / "c"
        compressed.write_bytes(bz2.compress(path.read_bytes()))
        assert small_text.read_plain(str(compressed), kind, small_text.VALIDATED_BYTES) is None
        small, general = _score_both(capsys, monkeypatch, [str(qrels), str(run_file)])
        assert small == general and "bz2 data" not in small[2]
    argv = [str(run_file), "--qrels", str(qrels), "--topics", str(topics)]
    small, general = _validate_both(capsys, monkeypatch, argv)
    assert small == general and "bz2 data" not in small[1] + small[2]


def test_a_nameless_regular_file_is_the_general_paths(tmp_path, capsys, monkeypatch):
    """A name that says nothing of the format (``/dev/stdin``, ``/dev/fd/N``) of a
    regular file: the general path tells its format by its content, and lines that are
    JSON objects are a JSONL run (here without its keys: refused at line 1), though each
    is a plain run line too (``{"k":`` ``"a`` ``b`` ``1`` ``2`` ``t"}``); score's small
    path read them as TREC text and printed numbers. (One such line alone is a JSON
    document, which every reader reads as TREC text.)"""
    qrels, run_file = tmp_path / "q", tmp_path / "r"
    qrels.write_text('{"k": 0 b 1\n')
    run_file.write_text('{"k": "a b 1 2 t"}\n{"k": "a c 2 1 t"}\n')
    descriptor = os.open(run_file, os.O_RDONLY)
    try:
        named = f"/dev/fd/{descriptor}"
        assert not small_text.small_file(named, small_text.SCORED_BYTES)
        small, general = _score_both(capsys, monkeypatch, ["-m", "P.1", str(qrels), named])
    finally:
        os.close(descriptor)
    assert small == general and small[0] == 2 and 'unknown key "k"' in small[2]
