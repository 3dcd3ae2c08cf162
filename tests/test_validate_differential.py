"""Every way ``validate`` reads a file gives the same report: seeded random runs and qrels,
plain and malformed (field counts, separators, CRLF, trailing blanks, BOM, blank and
comment lines, NUL, bad UTF-8, bad scores, ranks and grades, duplicates, ties, split
topics, headers), read whole, in chunks of a few bytes, gzipped, and (plain files) by the
small path (:mod:`trecbench.validation.small`): findings, counts, lines and verdicts."""

from __future__ import annotations

import gzip
import random

from conftest import validation_texts

from trecbench.validation import validate_files, validate_qrels, validate_run
from trecbench.validation.rules import PROFILES
from trecbench.validation.small import SmallSettings, validate_small

SCORES = ["1", "1.0", ".5", "7.", "2e0", "3E1", "-0.0", "0", "+1", "1e-46", "3.3e38"]
SCORES += ["1.00000001", "1.00000002", "16777216", "16777217", "0.1", "0.10000000000000001"]
BAD_SCORES = ["nan", "inf", "-inf", "0x10", "1_000", "abc", "0,9", "\uff13.0", "1e400", "1e"]
BAD_RANKS = ["2.0", "-1", "x", "1e2", "99999999999999999999"]
BAD_GRADES = ["1.5", "-1", "-0", "+1", "abc", "5000000", "-5000000", "1e3", "-2"]
CHUNKS = (1, 7, 33, 100)


def _topics(rng: random.Random) -> list[str]:
    """A few topic ids: numeric, zero-padded or lettered, in order or not, one maybe split."""
    numbers = rng.sample(range(30), rng.randint(1, 6))
    if rng.random() < 0.5:
        numbers.sort()
    style = rng.choice(["", "0", "q"])
    names = [style + str(n) for n in numbers]
    if rng.random() < 0.2 and len(names) > 1:
        names.append(rng.choice(names))  # a topic that comes back (R20.split)
    if rng.random() < 0.1:
        names.append("x")  # an id that is not digits, after them
    return names


def _run_fields(rng: random.Random) -> list[list[str]]:
    tags = ["run1"] if rng.random() < 0.8 else ["run1", "run2", "bad!tag", "x" * 30]
    rows = []
    for name in _topics(rng):
        value = 20.0
        for k in range(rng.randint(1, 14)):
            roll = rng.random()
            if roll < 0.3:
                score = rng.choice(SCORES)
            elif roll < 0.4 and rows:
                score = rows[-1][4]  # a tie
            else:
                value -= rng.choice([0.0, 1e-7, 0.5, 1, -1])
                score = repr(value)
            rank = k + 1 if rng.random() < 0.9 else rng.randint(0, k + 2)
            q0 = "Q0" if rng.random() < 0.95 else "q0"
            docno = f"d{rng.randrange(25)}"
            rows.append([name, q0, docno, str(rank), score, rng.choice(tags)])
    return rows


def _malformed_line(rng: random.Random, fields: list[str], sep: str) -> list[str]:
    """The line of ``fields``, or something else in its place (or before it)."""
    line = sep.join(fields)
    roll = rng.randrange(16)
    changed = list(fields)
    if roll == 0:
        return [sep.join(fields[:-1])]
    if roll == 1:
        return [line + sep + "extra"]
    if roll == 2:  # a docno with an invisible, control or non-ASCII character
        changed[2] = fields[2] + rng.choice(["\u00a0x", "\x00", "\u200b", "\xe9", "\x01"])
        return [sep.join(changed)]
    if roll in (3, 4) and len(fields) == 6:
        changed[roll] = rng.choice(BAD_RANKS if roll == 3 else BAD_SCORES)
        return [sep.join(changed)]
    if roll == 5 and len(fields) == 4:
        changed[3] = rng.choice(BAD_GRADES)
        return [sep.join(changed)]
    extra = {
        6: ["", line],
        7: ["# a comment", line],
        8: [line + " "],
        9: [line + "\r"],
        10: ["\ufeff" + line],
        11: [line.replace(sep, sep + sep, 1)],
        12: [" ".join(fields) if sep == "\t" else "\t".join(fields)],
        13: ["   ", line],
        14: ["qid Q0 docno rank score tag" if len(fields) == 6 else "qid iter docno rel", line],
    }
    return extra.get(roll, [line])


def _text(rng: random.Random, rows: list[list[str]], sep: str, malformed: bool) -> str:
    lines = []
    for fields in rows:
        if malformed and rng.random() < 0.15:
            lines += _malformed_line(rng, fields, sep)
        else:
            lines.append(sep.join(fields))
    end = "" if malformed and rng.random() < 0.1 else "\n"
    return "\n".join(lines) + end


def _qrels_fields(rng: random.Random, run: list[list[str]]) -> list[list[str]]:
    topics = list(dict.fromkeys(row[0] for row in run))
    rows = []
    for topic in topics[: rng.randint(0, len(topics))] + ["999"]:
        for _ in range(rng.randint(1, 6)):
            grade = rng.choice(["0", "0", "1", "2", "3", "10", "999999", "01"])
            rows.append([topic, "0", f"d{rng.randrange(25)}", grade])
    return rows


def test_every_way_of_reading_gives_the_same_report(tmp_path):
    rng = random.Random(28)
    small_taken = 0
    for case in range(60):
        sep = "\t" if case % 3 == 0 else " "
        malformed = case % 2 == 1
        run_rows = _run_fields(rng)
        run, qrels = tmp_path / f"r{case}.run", tmp_path / f"q{case}.qrels"
        run.write_bytes(_text(rng, run_rows, sep, malformed).encode("utf-8"))
        qrels_text = _text(rng, _qrels_fields(rng, run_rows), sep, malformed)
        qrels.write_bytes(qrels_text.encode("utf-8"))
        profile = rng.choice(list(PROFILES))
        depth = rng.choice([PROFILES[profile].max_depth, 3, 8])
        options = {"profile": profile, "max_depth": depth, "min_depth": rng.choice([None, 3])}
        level = rng.choice([1, 1, 2, 3])
        judged = qrels if rng.random() < 0.7 else None
        whole = validate_files([run], qrels=judged, relevance_level=level, **options)
        expected = validation_texts(whole)
        where = (case, run.read_bytes(), qrels.read_bytes(), options, level, judged)

        chunk = rng.choice(CHUNKS)
        read = []
        if judged is not None:
            kept = validate_qrels(
                qrels,
                profile=profile,
                relevance_level=level,
                chunk_bytes=chunk,
                collect_judged=True,
            )
            read.append(kept)
        info = read[0].qrels_info if read else None
        read.append(validate_run(run, qrels=info, chunk_bytes=chunk, **options))
        assert validation_texts(read) == expected, (chunk, where)

        gzipped = []
        for path in (qrels, run):
            packed = tmp_path / (path.name + ".gz")
            packed.write_bytes(gzip.compress(path.read_bytes()))
            gzipped.append(packed)
        packed_results = validate_files(
            [gzipped[1]], qrels=gzipped[0] if judged else None, relevance_level=level, **options
        )
        renamed = [
            text.replace(gzipped[0].name, qrels.name).replace(gzipped[1].name, run.name)
            for text in validation_texts(packed_results)
        ]
        assert renamed == expected, ("gzip", where)

        settings = SmallSettings(profile, depth, options["min_depth"], relevance_level=level)
        small = validate_small([run], judged, settings)
        if small is not None:
            small_taken += 1
            assert validation_texts(small) == expected, ("small", where)
            assert [r.check_counts for r in small] == [r.check_counts for r in whole]
    assert small_taken > 10  # the small path takes plain files (a test that can fail)
