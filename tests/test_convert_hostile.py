"""Every converter under hostile input (Hypothesis): JSON, JSON lines, TSV and SQLite shapes
that are mostly right and sometimes wrong anywhere, plus raw damage (truncation, garbage,
deep nesting, NaN, huge numbers, lone surrogates, gzip).

For every input: no traceback (only trecbench's own errors, as one line, exit 1 or 2),
outputs all or nothing (a failed conversion leaves no file, not even a temporary one; a
successful one writes every file its sidecar names), and inputs unchanged. Derandomized,
without an example database, so CI runs the same examples every time: 15 per converter
(about 15 s); TRECBENCH_HOSTILE_EXAMPLES=500 explores further.
"""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trecbench.cli import _register, cli
from trecbench.errors import TrecbenchError

_register()
# a numpy warning would print source paths on stderr: it fails here like a traceback
pytestmark = pytest.mark.filterwarnings("error")

PROPERTY = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=int(os.environ.get("TRECBENCH_HOSTILE_EXAMPLES", "15")),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# text with what breaks ids: blanks, '%', '#', controls, zero-width, non-ASCII; rarely a
# lone surrogate (not Unicode: refused as \udXXX, not UTF-8 when written raw)
UNICODE = st.one_of(
    *[st.text(st.sampled_from("ab01 \t\n%#:/\x00\x7f\u200b\u00a0é😀"), max_size=6)] * 4,
    st.text(st.characters(codec="utf-8"), max_size=6),
)
TEXT = st.one_of(*[UNICODE] * 9, st.text(st.characters(categories=("Cs",)), min_size=1, max_size=2))
SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
)
ANYTHING = st.recursive(
    SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3)
)
FINITE = st.floats(allow_nan=False, allow_infinity=False)
ID = st.one_of(
    st.sampled_from(["q1", "q2", "d1", "d 2", "d%202", "#d", "HP:0001250"]),
    UNICODE.filter(bool),
    st.integers(0, 99),
)


def ids(size=3):
    return st.lists(ID, max_size=size)


def _places(value, path=()):
    """Every (container, key) inside a JSON value."""
    children = value.items() if isinstance(value, dict) else enumerate(value)
    for key, child in children:
        yield value, key
        if isinstance(child, (dict, list)):
            yield from _places(child, (*path, key))


@st.composite
def mutated(draw, value: st.SearchStrategy):
    """A value with, a third of the time, one place replaced by anything or deleted."""
    data = draw(value)
    places = list(_places(data)) if isinstance(data, (dict, list)) else []
    if places and draw(st.integers(0, 2)) == 0:
        container, key = draw(st.sampled_from(places))
        if isinstance(container, dict) and draw(st.booleans()):
            del container[key]
        else:
            container[key] = draw(ANYTHING)
    return data


def serialised(value: st.SearchStrategy) -> st.SearchStrategy[bytes]:
    """JSON text of a value (ASCII-escaped or not), sometimes damaged, sometimes gzipped."""

    @st.composite
    def build(draw):
        data = draw(mutated(value))
        text = json.dumps(data, ensure_ascii=draw(st.booleans()), allow_nan=True)
        damage = draw(st.sampled_from(["none"] * 12 + ["cut", "garbage", "deep", "huge"]))
        if damage == "cut":
            text = text[: draw(st.integers(0, len(text)))]
        elif damage == "garbage":
            text += draw(st.sampled_from(["}", ",", "\x00", "NaN", "[1,"]))
        elif damage == "deep":
            text = "[" * 5000 + text + "]" * 5000
        elif damage == "huge":
            text = text.replace("1", "1" * 500, 1)
        raw = text.encode("utf-8", "surrogatepass")  # a lone surrogate: not UTF-8
        return gzip.compress(raw) if draw(st.booleans()) and draw(st.booleans()) else raw

    return build()


def jsonl(record: st.SearchStrategy) -> st.SearchStrategy[bytes]:
    return st.lists(serialised(record), max_size=4).map(lambda lines: b"\n".join(lines))


def tsv(*columns: st.SearchStrategy[str]) -> st.SearchStrategy[bytes]:
    """Tab-separated lines of these columns; sometimes a field too many or too few, odd
    text (blanks, controls, non-ASCII) in a field, a blank line or a CRLF ending."""
    odd = st.text(st.sampled_from("ab1 %#\x00\u200bé"), max_size=4)
    field = st.one_of(*[st.just(None)] * 8, odd)  # None: the column's own value
    line = st.tuples(*columns, field, st.integers(0, 9)).map(
        lambda t: "\t".join(
            [
                *(
                    t[-2] if t[-2] is not None and i == t[-1] % len(columns) else v
                    for i, v in enumerate(t[:-2])
                )
            ]
            + (["x"] if t[-1] == 9 else [])
        )  # fmt: skip
    )
    ending = st.sampled_from(["\n"] * 4 + ["\r\n", "\n\n"])
    return st.tuples(st.lists(line, min_size=1, max_size=5), ending).map(
        lambda t: (t[1].join(t[0]) + "\n").encode("utf-8")
    )


ID_FIELD = st.sampled_from(["q1", "q2", "d1", "d 2", "7067032", "%41"])
GRADE_FIELD = st.sampled_from(["0", "1", "2", "-1", "1.5", "5000000"])
RANK_FIELD = st.sampled_from(["1", "2", "3", "0", "x"])


def convert(args: list[str], files: dict[str, bytes]) -> None:
    """Run ``trecbench convert ARGS -o out`` on ``files`` and check the properties."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        for name, data in files.items():
            (root / name).write_bytes(data)
        before = {name: (root / name).read_bytes() for name in files}
        out = root / "out"
        words = [str(root / a) if a in files else a for a in args]
        result = CliRunner().invoke(cli, ["convert", *words, "-o", str(out)])
        error = result.exception
        if error is not None and not isinstance(error, SystemExit):
            assert isinstance(error, TrecbenchError), (args, repr(error), result.output)
            assert error.exit_code in (1, 2) and "\n" not in str(error), str(error)
        else:
            assert result.exit_code == 0, (args, result.output)
        for name, data in before.items():
            assert (root / name).read_bytes() == data, f"{name} changed"
        written = (
            sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) if out.exists() else []
        )
        if error is not None:
            assert written == [], (str(error), written)
            return
        (sidecar,) = [w for w in written if w.endswith(".sidecar.json")]
        document = json.loads((out / sidecar).read_text(encoding="utf-8"))
        named = [e["file"] for e in (*document["qrels"].values(), *document["runs"].values())]
        assert sorted([*named, sidecar]) == written


@st.composite
def aligned_lists(draw):
    """remem-style lists: as many gold lists as retrieved lists (and query ids)."""
    n = draw(st.integers(1, 3))
    texts = st.one_of(ID, st.sampled_from(["user: I moved to Paris", "Date: 1\nuser: Paris"]))
    lists = st.lists(st.lists(texts, max_size=3), min_size=n, max_size=n)
    data = {"gold_docs": draw(lists), "retrieved_chunks": draw(lists)}
    if draw(st.booleans()):
        data["query_ids"] = draw(st.lists(ID, min_size=n, max_size=n, unique_by=str))
    return data


@PROPERTY
@given(serialised(aligned_lists()), st.sampled_from(["ids", "chunks"]))
def test_lists(data, match):
    convert(["lists", "in.json", "--match", match], {"in.json": data})


QRELS = st.dictionaries(ID, st.dictionaries(ID, st.integers(-1, 3), min_size=1), min_size=1)


@PROPERTY
@given(
    serialised(st.dictionaries(ID, st.dictionaries(ID, FINITE, max_size=3), min_size=1)),
    st.one_of(st.none(), serialised(QRELS)),
    st.one_of(
        st.none(),
        tsv(ID_FIELD, ID_FIELD, GRADE_FIELD).map(lambda b: b"query-id\tcorpus-id\tscore\n" + b),
    ),
)
def test_dict_and_qrels(run, qrels_json, beir):
    files = {"run.json": run}
    args = ["dict", "run.json"]
    if qrels_json is not None:
        files["q.json"] = qrels_json
        args += ["--qrels-json", "q.json"]
    elif beir is not None:
        files["q.tsv"] = beir
        args += ["--beir-qrels", "q.tsv"]
    convert(args, files)


@PROPERTY
@given(tsv(ID_FIELD, ID_FIELD, GRADE_FIELD), st.booleans())
def test_beir_qrels(lines, header):
    data = b"query-id\tcorpus-id\tscore\n" + lines if header else lines
    convert(["beir-qrels", "q.tsv"], {"q.tsv": data})


@PROPERTY
@given(tsv(ID_FIELD, ID_FIELD, RANK_FIELD))
def test_msmarco(lines):
    convert(["msmarco", "run.tsv"], {"run.tsv": lines})


CHUNK = st.fixed_dictionaries(
    {"id": ID, "score": FINITE}, optional={"rank": st.integers(0, 4)}
)  # fmt: skip


@st.composite
def detailed(draw):
    """code-chunk entries: (chunker, repo) with unique task ids per chunker."""
    entries = []
    for chunker in draw(st.lists(st.sampled_from(["ast", "fixed"]), min_size=1, max_size=2,
                                 unique=True)):  # fmt: skip
        queries = [
            {"taskId": f"r/{i}", "retrievedChunks": draw(st.lists(CHUNK, max_size=3)),
             "relevantChunkIds": draw(st.lists(ID, max_size=2))}
            for i in range(draw(st.integers(1, 3)))
        ]  # fmt: skip
        entries.append({"chunker": chunker, "repo": "r", "queryResults": queries})
    return entries


@PROPERTY
@given(serialised(detailed()))
def test_code_chunk(data):
    convert(["code-chunk", "detailed.json"], {"detailed.json": data})


CONTEXT = st.fixed_dictionaries(
    {"id": ID, "score": FINITE, "content": UNICODE},
    optional={"metadata": st.fixed_dictionaries(
        {}, optional={"filepath": st.just("a.py"), "startLine": st.integers(0, 9),
                      "endLine": st.integers(0, 9), "dialogIds": ids()})},
)  # fmt: skip
METADATA = st.fixed_dictionaries(
    {},
    optional={
        "relevantIds": ids(), "evidence": ID, "answerCorpusIds": ids(),
        "repo": ID, "iouThreshold": st.floats(0, 1),
        "groundTruth": st.fixed_dictionaries(
            {"file": st.just("a.py"), "startLine": st.integers(0, 9),
             "endLine": st.integers(0, 9)}),
    },
)  # fmt: skip


@st.composite
def export(draw):
    """memorybench results with unique (provider, item) pairs."""
    results = []
    for provider in draw(st.lists(st.sampled_from(["p", "q"]), min_size=1, unique=True)):
        for item in range(draw(st.integers(1, 3))):
            results.append(
                {"runId": "r", "provider": provider, "itemId": f"i{item}",
                 "benchmark": draw(st.sampled_from(["locomo", "longmemeval", "repoeval"])),
                 "expected": draw(UNICODE), "retrievedContext": draw(st.lists(CONTEXT, max_size=3)),
                 "metadata": draw(METADATA)}
            )  # fmt: skip
    return {"results": results}


@PROPERTY
@given(serialised(export()), st.sampled_from(["auto", "explicit", "pack", "location", "token-f1"]))
def test_memorybench_export(data, relevance):
    convert(["memorybench", "export.json", "--relevance", relevance], {"export.json": data})


@PROPERTY
@given(
    st.lists(
        st.tuples(
            st.one_of(st.just("r"), st.none(), st.integers(-(2**63), 2**63 - 1)),
            st.one_of(st.sampled_from(["p", "q"]), UNICODE, st.none()),
            st.one_of(st.sampled_from(["i1", "i2"]), UNICODE, st.integers(0, 9)),
            st.one_of(serialised(st.lists(CONTEXT, max_size=2)), st.none(), st.integers(0, 9)),
            st.one_of(serialised(METADATA), st.none()),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_memorybench_sqlite(rows):
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "results.db"
        with sqlite3.connect(path) as db:
            db.execute(
                "CREATE TABLE results (run_id, provider, item_id, retrieved_context, metadata)"
            )

            def text(value):  # the JSON columns as text, or whatever the row holds
                return value.decode("utf-8", "replace") if isinstance(value, bytes) else value

            db.executemany(
                "INSERT INTO results VALUES (?, ?, ?, ?, ?)",
                [(r, p, i, text(c), text(m)) for r, p, i, c, m in rows],
            )
        db.close()
        data = path.read_bytes()
    convert(["memorybench", "results.db"], {"results.db": data})


HPO_ID = st.sampled_from(["HP:0001250", "HP:0004322", "HP:0000118"])
CASE = st.fixed_dictionaries(
    {"text": st.just("Krampf"), "expected_hpo_ids": st.lists(HPO_ID, max_size=2)},
    optional={"difficulty": st.just("easy"), "language": st.just("de")},
)  # fmt: skip
TERM = st.fixed_dictionaries(
    {"case_id": st.sampled_from(["0", "1", 0]), "hpo_id": st.one_of(HPO_ID, ID),
     "rank": st.integers(1, 3), "score": FINITE},
    optional={"is_gold": st.booleans()},
)  # fmt: skip
CASE_RECORD = st.fixed_dictionaries(
    {"case_id": st.sampled_from(["0", "1"]),
     "status": st.sampled_from(["complete", "failed", "not_evaluable"]),
     "retrieved_hpo_ids": st.lists(HPO_ID, max_size=3, unique=True)},
)  # fmt: skip
CHROMA = st.lists(
    st.fixed_dictionaries({"ids": st.lists(st.lists(HPO_ID, max_size=3), min_size=1, max_size=1)}),
    min_size=2,
    max_size=2,
)


@PROPERTY
@given(
    serialised(st.one_of(
        st.lists(CASE, min_size=2, max_size=2),
        st.fixed_dictionaries({"test_cases": st.lists(CASE, min_size=2, max_size=2)}),
    )),
    st.one_of(
        st.none(),
        jsonl(TERM).map(lambda b: ("terms.jsonl", b)),
        jsonl(CASE_RECORD).map(lambda b: ("cases.jsonl", b)),
        serialised(CHROMA).map(lambda b: ("chroma.json", b)),
    ),
)  # fmt: skip
def test_hpo(cases, results):
    files = {"cases.json": cases}
    args = ["hpo", "cases.json", "--no-id-check"]
    if results is not None:
        files[results[0]] = results[1]
        args += ["--results", results[0]]
    convert(args, files)
