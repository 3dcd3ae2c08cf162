"""The small path of ``validate`` (trecbench.validation.small) against the general path:
seeded random and mutated small files, every report format byte for byte, exit codes."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import printed_under_hash_seeds, validation_texts

from trecbench import small_text
from trecbench.cli import cli
from trecbench.inputs.streams import Source
from trecbench.inputs.trec_text import iter_byte_chunks
from trecbench.validation import validate_files
from trecbench.validation.reader import CHUNK_BYTES
from trecbench.validation.rules import CHECKS, PROFILES
from trecbench.validation.small import SmallSettings, validate_small

# every check of the rules (trecbench.validation.rules.CHECKS) as the small path stands to
# it: a new check must be placed in one of these
FOUND = {
    "R3", "R4", "R5", "R7", "R7.unjudged", "R8", "R9.shallow", "R11.unique", "R11.sequence",
    "R13", "R14", "R15.tie", "R15.float32", "R16", "R17", "R18", "R19", "R20.order",
    "X1", "X2", "X3", "X4", "Q5", "Q7",
}  # fmt: skip
NOT_ON_PLAIN_FILES = {  # printable ASCII, one separator, 6 or 4 fields, numbers that parse
    "R1.short", "R1.extra", "R1.joined", "R2", "R9.empty", "R10", "R12", "R21", "R22", "R23.bom",
    "R23.nul", "R23.utf8", "R23.utf16", "R23.control", "R24", "R25.trailing", "R25.spacing",
    "R25.newline", "R26", "R27", "R28", "R29", "R30", "R30.tag", "R30.malformed",
    "R27.long",  # a line of 16 MiB: no small file holds one
    "R31", "R31.nul", "R32.jsonl", "R32.parquet",  # JSONL and Parquet rows only
    "R32", "Q12",  # JSON or 3 fields a line: what convert reads
    "Q1", "Q2", "Q3", "Q3.plus", "Q4", "Q6", "Q8.comment", "Q8.fatal", "Q9", "Q10", "Q11",
    "X5",  # plain grades are never negative
}  # fmt: skip
DECLINED = {
    "R6",  # --docid-regex (RE2's, not Python's); Unicode blanks are not plain
    "R20.split",  # a topic in several blocks
    "R20.unchecked",  # a split topic, not re-checked whole (a full TMPDIR)
    "X6",  # validate is given no measures
}

SCORES = ["1", "1.0", "0.5", "2e0", "1.00000001", "1.00000002", "-0.0", "0", "3E1", ".5", "7."]


def _scores(rng: random.Random, n: int) -> list[str]:
    """Descending scores, with ties, float32-only ties, rises and odd spellings."""
    value, out = 30.0, []
    for _ in range(n):
        roll = rng.random()
        if roll < 0.15:
            out.append(rng.choice(SCORES))
            continue
        if roll < 0.25 and out:
            out.append(out[-1])  # a tie
            continue
        value += rng.choice([-1.5, -0.25, -1e-7, 0.0, 0.5]) if roll < 0.35 else -rng.random()
        out.append(repr(round(value, rng.choice([2, 4, 9]))))
    return out


def _ranks(rng: random.Random, n: int) -> list[int]:
    ranks = list(range(1, n + 1))
    roll = rng.random()
    if roll < 0.1:
        ranks = [r - 1 for r in ranks]  # zero-based
    elif roll < 0.2 and n > 2:
        ranks[rng.randrange(1, n)] += rng.choice([1, 3])  # a gap or a repeat
    elif roll < 0.3:
        rng.shuffle(ranks)
    elif roll < 0.35 and n > 1:
        ranks[rng.randrange(n)] = ranks[0]
    return ranks


def _run_text(rng: random.Random, separator: str) -> str:
    numeric = rng.random() < 0.6
    topics = rng.sample(range(1, 40), rng.randint(1, 8))
    if rng.random() < 0.6:
        topics.sort()
    names = [str(t) if numeric else rng.choice(["q", "T", "a"]) + str(t) for t in topics]
    if rng.random() < 0.1:
        names.append(names[0])  # a topic that comes back: the small path declines
    tags = ["run1"] if rng.random() < 0.8 else ["run1", "run2", "bad!tag", "x" * 30]
    lines = []
    for name in names:
        n = rng.randint(1, 25)
        docnos = [f"d{rng.randrange(60)}" for _ in range(n)]
        for docno, rank, score in zip(docnos, _ranks(rng, n), _scores(rng, n), strict=True):
            q0 = "Q0" if rng.random() < 0.97 else rng.choice(["0", "q0"])
            fields = [name, q0, docno, str(rank), score, rng.choice(tags)]
            lines.append(separator.join(fields))
    return "\n".join(lines) + "\n"


def _mutated(rng: random.Random, text: str) -> str:
    """``text`` with two lines swapped, a line repeated or a character replaced (a file
    the small path may take or decline)."""
    lines = text.splitlines(keepends=True)
    roll = rng.random()
    if roll < 0.2 and len(lines) > 1:
        i, j = rng.sample(range(len(lines)), 2)
        lines[i], lines[j] = lines[j], lines[i]
    elif roll < 0.35:
        lines.insert(rng.randrange(len(lines)), rng.choice(lines))
    elif roll < 0.5:
        where = rng.randrange(len(text) - 1)
        return text[:where] + rng.choice("0123456789.eE+-Q#ax") + text[where + 1 :]
    return "".join(lines)


def _qrels_text(rng: random.Random, run: str, separator: str) -> str:
    rows = [line.split(separator) for line in run.splitlines()]
    topics = list(dict.fromkeys(row[0] for row in rows))
    lines = []
    for topic in topics[: rng.randint(0, len(topics))] + ["999"]:
        for _ in range(rng.randint(1, 8)):
            grade = str(rng.choice([0, 0, 1, 2, 1, 10]))
            lines.append(separator.join([topic, "0", f"d{rng.randrange(60)}", grade]))
    return "\n".join(lines) + "\n"


def _topics_text(rng: random.Random, run: str, separator: str) -> str:
    """Some of the run's topics, others, near misses (``01`` for ``1``, ``Q1`` for ``q1``),
    as one id a line or as a TREC topics file."""
    topics = list(dict.fromkeys(line.split(separator)[0] for line in run.splitlines()))
    ids = rng.sample(topics, rng.randint(0, len(topics))) + ["77", "x"]
    ids += ["0" + rng.choice(topics), rng.choice(topics).upper(), rng.choice(ids)]
    if rng.random() < 0.3:
        return "".join(f"<top>\n<num> Number: {i}\n<title> t\n</top>\n" for i in ids)
    return "".join(i + rng.choice(["", " extra", "\t"]) + "\n" for i in ids)


def _reports(results) -> list[str]:
    return validation_texts(results, shows=(0, 1, 5))


def test_small_path_reports_are_the_general_paths(tmp_path):
    rng = random.Random(31)
    taken = 0
    for case in range(240):
        separator = "\t" if case % 3 == 0 else " "
        run = tmp_path / f"r{case}.run"
        qrels = tmp_path / f"q{case}.qrels"
        text = _mutated(rng, _run_text(rng, separator))
        run.write_text(text)
        qrels.write_text(_mutated(rng, _qrels_text(rng, text, separator)))
        profile = rng.choice(list(PROFILES))
        depth = rng.choice([None, 5, 20])
        min_depth = rng.choice([None, 3])
        with_qrels = rng.random() < 0.6
        topics = tmp_path / f"t{case}.txt" if rng.random() < 0.4 else None
        if topics is not None:
            topics.write_text(_topics_text(rng, text, separator))
        settings = SmallSettings(
            profile,
            PROFILES[profile].max_depth if depth is None else depth,
            min_depth,
            tag_is_filename=case % 5 == 0,
        )
        small = validate_small([run], qrels if with_qrels else None, settings, topics)
        if small is None:
            continue
        taken += 1
        general = validate_files(
            [run],
            qrels=qrels if with_qrels else None,
            profile=profile,
            max_depth=settings.max_depth,
            min_depth=min_depth,
            tag_is_filename=settings.tag_is_filename,
            topics=topics,
        )
        assert _reports(small) == _reports(general), (case, text)
        assert [r.check_counts for r in small] == [r.check_counts for r in general]
    assert taken > 140  # the small path takes most cases (a test that can fail)


def _large_run_text(rng: random.Random, separator: str, size: int) -> str:
    """A run of at least ``size`` bytes: topics of 200 to 1,500 documents in blocks, half
    with :func:`_scores`'s ties, float32 ties, rises and spellings (the others in score
    order, 4 decimals, tied now and then), :func:`_ranks`'s problems, duplicates in some."""
    ids = sorted(rng.sample(range(1, 10_000), 1_000))
    if rng.random() < 0.5:
        ids[1], ids[2] = ids[2], ids[1]  # a descent (R20.order)
    lines, total = [], 0
    for topic in ids:
        n = rng.randint(200, 1500)
        if rng.random() < 0.5:
            scores = _scores(rng, n)
        else:
            scores = [f"{30 - i * rng.random() / 100:.4f}" for i in range(n)]
            scores.sort(reverse=True)
        if rng.random() < 0.7:
            docnos = [f"D{d}" for d in rng.sample(range(10 * n), n)]
        else:
            docnos = [f"D{rng.randrange(20 * n)}" for _ in range(n)]
        for docno, rank, score in zip(docnos, _ranks(rng, n), scores, strict=True):
            q0 = "Q0" if rng.random() < 0.999 else "q0"
            line = separator.join([str(topic), q0, docno, str(rank), score, "run1"]) + "\n"
            lines.append(line)
            total += len(line)
        if total >= size:
            return "".join(lines)
    raise AssertionError("too few topics for the size asked")


@pytest.mark.parametrize("seed, mib", [(1, 1.2), (2, 2.5), (3, 3.9)])
def test_runs_of_one_to_four_mib_get_the_general_paths_reports(tmp_path, seed, mib):
    rng = random.Random(seed)
    separator = "\t" if seed == 2 else " "
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    text = _large_run_text(rng, separator, int(mib * (1 << 20)))
    run.write_text(text)
    qrels.write_text(_qrels_text(rng, text, separator))
    assert run.stat().st_size > 1 << 20
    settings = SmallSettings("default", 1000, 250)
    small = validate_small([run], qrels, settings)
    assert small is not None
    general = validate_files([run], qrels=qrels, min_depth=250)
    assert _reports(small) == _reports(general)
    assert [r.check_counts for r in small] == [r.check_counts for r in general]
    assert {"R3", "R7", "R9.shallow", "R13", "R14", "R15.tie", "X4"} <= set(small[1].check_counts)


def test_validates_bound_is_at_most_one_chunk_of_the_general_validator(tmp_path):
    """The small path takes no file the general validator reads in more than one chunk
    (see trecbench.validation.small): a file of exactly the bound is one read, cut after
    its last byte, nothing carried; one more line is declined."""
    assert small_text.VALIDATED_BYTES <= CHUNK_BYTES
    text = _large_run_text(random.Random(4), " ", small_text.VALIDATED_BYTES - 100_000)
    room = small_text.VALIDATED_BYTES - len(text)  # filled by a last topic, tied throughout
    filler = [f"10000 Q0 E{i:06d} {i + 1:06d} 0.5 run1\n" for i in range((room - 40) // 33)]
    text += "".join(filler)
    last = f"10000 Q0 F {len(filler) + 1:06d} 0.5 run1\n"
    text += last.replace("F", "F" + "f" * (small_text.VALIDATED_BYTES - len(text) - len(last)))
    run = tmp_path / "r.run"
    run.write_text(text)
    assert run.stat().st_size == small_text.VALIDATED_BYTES
    with Source(run) as source:
        assert len(list(iter_byte_chunks(source, CHUNK_BYTES))) == 1
    small = validate_small([run], None, SmallSettings("default", 1000))
    assert small is not None
    assert _reports(small) == _reports(validate_files([run]))
    run.write_text(text + "10000 Q0 G 999999 0 run1\n")
    assert validate_small([run], None, SmallSettings("default", 1000)) is None


def test_findings_of_every_kind_are_compared(tmp_path):
    """The random cases above reach every rule the small path reports."""
    rng = random.Random(31)
    seen = set()
    for case in range(160):
        separator = "\t" if case % 3 == 0 else " "
        run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
        text = _run_text(rng, separator)
        run.write_text(text)
        qrels.write_text(_qrels_text(rng, text, separator))
        topics = tmp_path / "t.txt"
        topics.write_text(_topics_text(rng, text, separator))
        results = validate_small([run], qrels, SmallSettings("default", 5, 3, True), topics)
        for result in results or ():
            seen.update(result.check_counts)
    assert seen == FOUND


def test_every_check_is_found_or_cannot_fire_on_plain_files_or_is_declined():
    assert FOUND | NOT_ON_PLAIN_FILES | DECLINED == set(CHECKS)
    assert len(FOUND) + len(NOT_ON_PLAIN_FILES) + len(DECLINED) == len(CHECKS)


@pytest.mark.parametrize(
    "text",
    [
        "1 Q0 d1 1 1.5 t\n2 Q0 d1 1 2 t\n1 Q0 d2 2 1 t\n",  # a topic comes back
        "1 Q0 d1 1 1e39 t\n",  # beyond float32
        "1 Q0 d1 1234567890123456789 1 t\n",  # a rank beyond int64
        "1 Q0 d1 1 1 t\n1\tQ0 d2 2 1 t\n",  # two separators
        "1 Q0 d1 1 1 t",  # no final newline
        "#1 Q0 d1 1 1 t\n",  # a comment
        "1 Q0 d1 1 1 t extra\n",  # seven fields
        "1 Q0 d1 1 1 t \n",  # a trailing blank (R25)
        "1 Q0 d1 1 1 t\r\n",  # CRLF (R24)
        "1 Q0 d1 1 1 t\n\n1 Q0 d2 2 0 t\n",  # a blank line (R21)
        "1  Q0 d1 1 1 t\n",  # two blanks (R25)
        "1 Q0 d\u00e91 1 1 t\n",  # not ASCII (R2, R6, R23)
        "1 Q0 d\x011 1 1 t\n",  # a control character (R23)
        "1 Q0 d1 1 0x10 t\n",  # not a decimal score (R12)
        "1 Q0 d1 1 nan t\n",  # not a finite score (R12)
        "1 Q0 d1 -1 1 t\n",  # a negative rank (R10)
        "qid Q0 docno rank score tag\n1 Q0 d1 1 1 t\n",  # a header (R28)
    ],
)
def test_what_the_small_path_declines(tmp_path, text):
    run = tmp_path / "r.run"
    run.write_text(text)
    assert validate_small([run], None, SmallSettings("default", 1000)) is None


@pytest.mark.parametrize(
    "text",
    [
        "1 0 d1 1\n1 0 d2\n",  # three fields (Q1)
        "1 0 d1 1.5\n",  # not an integer (Q3)
        "1 0 d1 -1\n",  # negative (Q6)
        "1 0 d1 1000000\n",  # 7 digits (Q4 from 1,000,001)
        "#1 0 d1 1\n",  # a comment (Q8)
        "1 Q0 d1 1 1 t\n",  # a run (Q11)
    ],
)
def test_what_the_small_path_declines_of_qrels(tmp_path, text):
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text("1 Q0 d1 1 1 t\n")
    qrels.write_text(text)
    assert validate_small([run], qrels, SmallSettings("default", 1000)) is None


def test_ranks_below_10_to_the_18_are_taken_whatever_their_digits(tmp_path):
    # zeros before a rank are no digits of its value: the general path reads 22 digits as
    # 1 and 3 (a gap, R11), 18 nines as 10**18 - 1 (the small path's largest)
    run = tmp_path / "r.run"
    zeros = "0" * 21
    run.write_text(f"1 Q0 a {zeros}1 2 t\n1 Q0 b {zeros}3 1 t\n1 Q0 c {'9' * 18} 0 t\n")
    small = validate_small([run], None, SmallSettings("default", 1000))
    assert small is not None and small[0].check_counts == {"R11.sequence": 1}
    assert _reports(small) == _reports(validate_files([run]))
    run.write_text(f"1 Q0 a 1 2 t\n1 Q0 b 1{'0' * 18} 1 t\n")  # 10**18: declined
    assert validate_small([run], None, SmallSettings("default", 1000)) is None


def test_a_rank_of_more_digits_than_int_reads_is_taken_or_declined(tmp_path):
    # int() refuses a text of more than 4,300 digits, zeros first too: the small path
    # raised (exit 70, an internal error) on such a rank, where the general path reads
    # 5,000 zeros then 1 as 1 (OK), and 5,000 nines as too large (R10, declined here)
    run = tmp_path / "r.run"
    run.write_text(f"1 Q0 a {'0' * 5000}1 2 t\n1 Q0 b {'0' * 5000} 1 t\n")
    small = validate_small([run], None, SmallSettings("default", 1000))
    assert small is not None and small[0].check_counts == {"R11.sequence": 1, "R14": 1}
    assert _reports(small) == _reports(validate_files([run]))
    run.write_text(f"1 Q0 a 1 2 t\n1 Q0 b {'9' * 5000} 1 t\n")
    assert validate_small([run], None, SmallSettings("default", 1000)) is None


def test_more_than_100_tags_are_declined(tmp_path):
    run = tmp_path / "r.run"
    run.write_text("".join(f"1 Q0 d{i} {i + 1} {200 - i} t{i}\n" for i in range(101)))
    assert validate_small([run], None, SmallSettings("default", 1000)) is None


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_the_command_prints_and_exits_as_the_general_path(tmp_path, monkeypatch, fmt):
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text("1 Q0 d1 1 2 a\n1 Q0 d1 2 3 b\n2 Q0 d2 1 1 a\n")  # R7, R13, R14, R17
    qrels.write_text("1 0 d1 1\n1 0 d1 2\n3 0 d3 0\n")  # Q5, Q7
    arguments = ["validate", str(run), "--qrels", str(qrels), "--format", fmt, "--show", "1"]
    small = CliRunner().invoke(cli, arguments)
    from trecbench.validation import small as module

    monkeypatch.setattr(module, "validate_small", lambda *_: None)
    general = CliRunner().invoke(cli, arguments)
    assert small.output == general.output
    assert small.exit_code == general.exit_code == 2
    assert "R7" in small.output and "Q5" in small.output


@pytest.mark.parametrize(
    "text",
    [
        # R15: the topics but the last are checked in file order (no rise among them),
        # the last in score order; 5.00000001 ties 5.0 at float32 only
        "1 Q0 a 1 5.0 t\n1 Q0 b 2 5.00000001 t\n1 Q0 c 3 5.0 t\n2 Q0 a 1 1 t\n2 Q0 b 2 2 t\n",
        # R20.order: 10 > 9 as numbers among the topics but the last, "9" < "a" as bytes
        "10 Q0 a 1 1 t\n9 Q0 a 1 1 t\na Q0 a 1 1 t\n",
        "a Q0 a 1 1 t\n10 Q0 a 1 1 t\n9 Q0 a 1 1 t\n",
    ],
)
def test_the_topics_are_checked_in_the_general_paths_two_calls(tmp_path, text):
    run = tmp_path / "r.run"
    run.write_text(text)
    small = validate_small([run], None, SmallSettings("default", 1000))
    assert _reports(small) == _reports(validate_files([run]))


def test_findings_beyond_the_limit_are_kept_as_the_general_path_keeps_them(tmp_path):
    # 1,200 topics, each with a wrong Q0, zero-based ranks, a rise, a tie and a duplicate:
    # more than the 1,000 findings kept per check, in the same order
    lines = []
    for topic in range(1200, 0, -1):
        for rank, (docno, score) in enumerate([("a", 1), ("b", 2), ("b", 2), ("c", 0)]):
            lines.append(f"{topic} q0 {docno} {rank} {score} t\n")
    run = tmp_path / "r.run"
    run.write_text("".join(lines))
    small = validate_small([run], None, SmallSettings("strict", 2, None))
    general = validate_files([run], profile="strict", max_depth=2)
    assert _reports(small) == _reports(general)
    shallow = validate_small([run], None, SmallSettings("strict", None, 5))  # R9 of each
    assert _reports(shallow) == _reports(
        validate_files([run], profile="strict", max_depth=None, min_depth=5)
    )
    assert min(small[0].check_counts[key] for key in ("R3", "R7", "R8", "R13", "R15.tie")) > 1000


ROOT = Path(__file__).resolve().parents[1]
BUNDLED = sorted((ROOT / "tests" / "fixtures" / "trec_eval_random").glob("*.run")) + [
    *sorted((ROOT / "runs").glob("*.run")),
    *sorted((ROOT / "data" / "hpo-rtask").glob("*.run")),
]


def _qrels_of(run: Path) -> Path:
    own = run.with_suffix(".qrels")
    if own.exists():
        return own
    if run.parent.name == "runs":
        return ROOT / "qrels" / "hpo-demo.qrels"
    return next(run.parent.glob("*.qrels"))


def test_the_bundled_runs_and_qrels_get_the_general_paths_reports():
    taken = 0
    for run in BUNDLED:
        for profile in ("default", "rtask"):
            settings = SmallSettings(profile, PROFILES[profile].max_depth)
            small = validate_small([run], _qrels_of(run), settings)
            if small is None:
                continue
            taken += 1
            general = validate_files([run], qrels=_qrels_of(run), profile=profile)
            assert _reports(small) == _reports(general), run.name
    assert taken >= 20


def test_a_terminal_gets_the_small_path_and_the_general_paths_bar(tmp_path, monkeypatch, capsys):
    from trecbench.cli import progress, run
    from trecbench.validation import small as module

    taken = []
    monkeypatch.setattr(module, "validate_small", lambda *a: taken.append(a) or validate_small(*a))
    monkeypatch.setattr(progress.StderrProgress.__init__, "__defaults__", (0.0, 0.0, " steps"))
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    path = tmp_path / "r.run"
    path.write_text("".join(f"q Q0 d{i} {i + 1} {100 - i} t\n" for i in range(50)))
    assert run(["validate", str(path)]) == 0
    err = capsys.readouterr().err
    assert taken and f"validating {path}: 100%" in err and "50 lines" in err


@pytest.mark.parametrize("shuffled", [False, True])
def test_x4s_top_10_is_cut_in_a_tie_as_trec_eval_orders_it(tmp_path, shuffled):
    # ranks 9 to 14 tie: trec_eval takes docno descending (d13, d12) into the top 10, which
    # the qrels leave unjudged, not the file's first two of the tie (d08, d09), judged
    scores = [20 - i for i in range(8)] + [5.0] * 6 + [1.0]
    lines = [(t, f"d{i:02d}", score) for t in range(4) for i, score in enumerate(scores)]
    if shuffled:  # each topic's lines out of score order: the rows are found by their score
        lines = [
            line
            for t in range(4)
            for line in random.Random(t).sample(lines[t * 15 : t * 15 + 15], 15)
        ]
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text("".join(f"{t} Q0 {d} {i + 1} {s} t\n" for i, (t, d, s) in enumerate(lines)))
    qrels.write_text("".join(f"{t} 0 d{i:02d} 1\n" for t in range(4) for i in range(10)))
    small = validate_small([run], qrels, SmallSettings("default", 1000))
    assert small is not None
    assert "8 of 40 documents in the top 10 of judged topics are unjudged" in "".join(
        _reports(small)
    )
    assert _reports(small) == _reports(validate_files([run], qrels=qrels))


def test_a_near_miss_of_several_qrels_topics_is_one_whatever_the_hash_seed(tmp_path):
    """X1 suggests the qrels topic a run topic misses by zeros or case: of several ('1',
    '01', '001', ...) the general path named the last in its set's order, which is the
    strings' hashes' (one id per PYTHONHASHSEED), and the small path, its set built in
    another order, another id in the same process. Each names the last in sorted order."""

    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text("00001 Q0 a 1 1 t\n")
    qrels.write_text("".join(f"{'0' * zeros}1 0 a 1\n" for zeros in range(4)))
    probe = (
        "from trecbench.validation import validate_files\n"
        "from trecbench.validation.small import SmallSettings, validate_small\n"
        f"small = validate_small([{str(run)!r}], {str(qrels)!r}, SmallSettings('default', 1))\n"
        f"general = validate_files([{str(run)!r}], qrels={str(qrels)!r})\n"
        "for result in (small, general):\n"
        "    print([f.message for f in result[1].findings if f.rule == 'X1'])\n"
    )
    said = "topic '00001' is not in the qrels: trec_eval ignores it (did you mean '1'?)"
    assert printed_under_hash_seeds(probe) == {f"{[said]!r}\n{[said]!r}\n"}  # small, general


def test_standard_input_is_not_read_as_a_file_named_dash(tmp_path, monkeypatch):
    """``-`` is standard input: the small path read a file named ``-`` in the current
    directory in its place (a run of another topic, a duplicate and a tie: FAILED, where
    standard input's run is OK; --topics of that file's topic, where standard input's
    names another)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_text("1 Q0 a 1 1 t\n1 Q0 a 2 1 t\n")
    (tmp_path / "r.run").write_text("1 Q0 a 1 1 t\n")
    settings = SmallSettings("default", 1000)
    assert validate_small(["-"], None, settings) is None
    assert validate_small(["r.run"], None, settings, topics="-") is None
    small = CliRunner().invoke(cli, ["validate", "-"], input="2 Q0 b 1 1 t\n")
    assert small.exit_code == 0 and "OK: 1 file(s), 1 line" in small.output
    small = CliRunner().invoke(cli, ["validate", "r.run", "--topics", "-"], input="7\n")
    assert small.exit_code == 2 and "topic '7' of --topics" in small.output


def test_the_fields_left_to_the_process_end_are_bounded_whatever_the_runs(tmp_path, monkeypatch):
    """The console script leaves the small paths' field strings to its os._exit
    (collector.left_to_exit), but validate's small path takes any number of runs: each
    run's fields were kept, 1.5 GB on 30 runs of 3 MB (88 MB freeing them). Now files up
    to the bound are kept (score's qrels and run at theirs), the rest freed as before."""
    from trecbench import collector

    assert collector.KEPT_BYTES >= 2 * small_text.SCORED_BYTES  # score's small path's
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 a 1\n")
    runs = [tmp_path / f"r{i}.run" for i in range(3)]
    for path in runs:
        path.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    monkeypatch.setattr(collector, "_kept", None)
    collector.leave_to_exit()
    monkeypatch.setattr(collector, "KEPT_BYTES", qrels.stat().st_size + runs[0].stat().st_size)
    results = validate_small(runs, qrels, SmallSettings("default", 1000))
    assert results is not None and all(result.ok for result in results)
    assert collector._kept == [["1", "0", "a", "1"], "1 Q0 a 1 2 t 1 Q0 b 2 1 t".split()]
