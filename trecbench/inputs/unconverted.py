"""What ``trecbench convert`` reads, given where TREC text is read: told once, in one line
that names the converter, instead of a finding on every line.

JSON is told by content (:func:`json_content`: a JSON document, JSON lines or
trecbench's own sidecar, from a file's first bytes), three fields on every line by shape
(:mod:`.trec_tables` and the validator say it only where reading the file as TREC text
fails anyway: trec_eval takes ``{"q1"}`` for a qid, and so does trecbench). What each is
and which converter reads it is said here, once for the readers and the validator."""

from __future__ import annotations

import codecs
import json
import re
from codecs import BOM_UTF8

from ..json_limits import check_depth

# the "format" of the sidecar a conversion writes beside its files (docs/convert.md)
SIDECAR_FORMAT = "trecbench-sidecar"
# its "version" (3: provenance.outputs and effective options, hpo's results_format by run
# tag, graded "binary"); version 2 sidecars are read the same way (every reader of a
# sidecar takes its qrels/runs files and strata only), a later one is refused
SIDECAR_VERSION = 3
# where to read more, said where trecbench is installed too: no checkout's path
CONVERT_DOCS = "see 'trecbench convert --help' and the docs' convert.md"
# where to read more of trecbench pool's file, said the same way
POOL_DOCS = "see 'trecbench pool --help' and the docs' runs.md"
# the converters of JSON inputs
JSON_CONVERTERS = "trecbench convert hpo|code-chunk|memorybench|lists|dict ..."
# the keys every line of a JSONL run holds (trecbench.inputs.jsonl)
JSONL_RUN_KEYS = ("qid", "docno", "score")
# JSON's white space, and a file that may be JSON: an object or an array first
_BLANK = re.compile(r"[ \t\r\n]*")
_JSON_FIRST = re.compile(rb"[ \t\r\n]*[\[{]")
_SIDECAR_FIRST = re.compile(r'\s*\{\s*"format"\s*:\s*"(?P<format>[^"]*)"', re.ASCII)
# how trecbench's JSON reports begin (score --report, compare's and benchmark's reports,
# the manifest): their type first
_REPORT_FIRST = re.compile(
    r'\s*\{\s*"type"\s*:\s*"(EvaluationReport|BenchmarkReport|ExperimentManifest)"', re.ASCII
)
# where a JSON text cut short may end, past the last value it holds whole: the start of
# a literal (tru), a sign, or a number's fraction or exponent cut before its digits (1.)
_CUT_TOKEN = re.compile(r"[ \t\r\n]*(t(r(ue?)?)?|f(a(l(se?)?)?)?|n(u(ll?)?)?|-|[.eE][-+0-9.eE]*)?")


def json_content(head: bytes, path: str) -> str | None:
    """What a file ``path`` whose first bytes are ``head`` (its first
    :data:`~trecbench.compressions.HEAD_BYTES`, or all of a shorter one) holds when they
    are JSON, whole or cut short there: ``"sidecar"`` (trecbench's sidecar),
    ``"report"`` (one of trecbench's JSON reports), ``"document"`` (one JSON value) or
    ``"lines"`` (several, one after another: JSON
    lines; or one line, an object with a JSONL run's keys: a JSONL run of one line); None
    when they are not: an object or an array first (past a byte order mark and blanks),
    and JSON to their end. JSON nested deeper than every JSON reader takes is refused as
    they refuse it (:func:`~trecbench.json_limits.check_depth`)."""
    head = head.removeprefix(BOM_UTF8)
    if _JSON_FIRST.match(head) is None:
        return None
    try:  # a character cut at the end of head waits for bytes that never come
        text = codecs.getincrementaldecoder("utf-8")().decode(head)
    except UnicodeDecodeError:
        return None
    check_depth(text, path, per_line=False)
    values = _json_values(text)
    if values is None:
        return None
    sidecar = _SIDECAR_FIRST.match(text)
    if sidecar is not None and sidecar["format"] == SIDECAR_FORMAT:
        return "sidecar"
    if _REPORT_FIRST.match(text) is not None:
        return "report"
    return "document" if values == 1 and not _run_line(text) else "lines"


def _run_line(text: str) -> bool:
    """Whether ``text`` (one JSON value, perhaps cut short) is one line holding an object
    with the keys of a JSONL run's line (:data:`JSONL_RUN_KEYS`)."""
    keys = line_object_keys(text)
    return keys is not None and set(JSONL_RUN_KEYS) <= keys


def line_object_keys(text: str) -> set[str] | None:
    """The keys of ``text`` when it is one line holding a JSON object (its numbers kept as
    text: an integer of more digits than Python converts is JSON all the same); None for
    more lines, another value, or one cut short (no line of a JSONL run is that long)."""
    if "\n" in text.strip():
        return None
    try:
        value = json.loads(text, parse_int=str, parse_float=str)
    except ValueError:
        return None
    return set(value) if isinstance(value, dict) else None


def _json_values(text: str) -> int | None:
    """How many JSON values ``text`` holds one after another (the last one perhaps cut
    short at the end); None when it is not JSON. Numbers are kept as their text: an
    integer of more digits than Python converts (4,300) is JSON all the same."""
    decoder = json.JSONDecoder(parse_int=str, parse_float=str)
    at = count = 0
    while True:
        at = _BLANK.match(text, at).end()
        if at == len(text):
            return count
        try:
            _, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as error:
            return count + 1 if _cut_short(error, text) else None
        count += 1


def _cut_short(error: json.JSONDecodeError, text: str) -> bool:
    """Whether ``error`` is only that ``text`` ends before its JSON does: in a string,
    or where a value or what follows one is still to come."""
    # (a string that holds a raw line break is no JSON: "Invalid control character")
    if error.msg.startswith("Unterminated string"):
        return True
    if error.msg.startswith("Invalid \\uXXXX escape"):
        return len(text) - error.pos <= len("\\uXXX")
    return _CUT_TOKEN.fullmatch(text, error.pos) is not None


def _what(kind: str) -> str:
    return "a TREC run" if kind == "run" else "TREC qrels"


def json_message(content: str, kind: str) -> str:
    """What to say of a file of ``content`` (:func:`json_content`) given as a ``kind``
    (``run``, ``qrels``) whose reading as TREC text fails."""
    if content == "sidecar":
        wrote = "a .run" if kind == "run" else "the .qrels"
        return (
            f"trecbench's sidecar (what convert keeps beside the files it writes; --strata "
            f"reads it), not {_what(kind)}: give {wrote} file convert wrote"
        )
    if content == "report":  # no converter reads one: what it was made from is wanted
        return (
            f"trecbench's JSON report, not {_what(kind)}: give the file it was made from "
            "('trecbench diff' compares two reports)"
        )
    convert = f"convert it first ({JSON_CONVERTERS}; {CONVERT_DOCS})"
    if content == "document":
        return f"a JSON document, not {_what(kind)}: {convert}"
    if kind == "run":  # what JSON lines a run may be, read as such by their name
        convert = (
            f"a JSONL run (qid, docno, score a line) is read when named *.jsonl; else {convert}"
        )
    return f"JSON lines, not {_what(kind)}: {convert}"


# how Arrow's IPC formats begin: the file format (Feather v2: its magic, padded with NUL
# bytes), a stream's first message (its continuation marker, not UTF-8) and Feather v1
# (its magic, then binary); a qid ARROW1 or FEA1 begins TREC text, which holds no NUL
_ARROW_FILE, _ARROW_STREAM, _FEATHER_V1 = b"ARROW1\0\0", b"\xff\xff\xff\xff", b"FEA1"


def _arrow_ipc(head: bytes) -> bool:
    if head.startswith((_ARROW_FILE, _ARROW_STREAM)):
        return True
    return head.startswith(_FEATHER_V1) and b"\0" in head[:64]


def arrow_message(head: bytes, kind: str) -> str | None:
    """What to say of a file given as a ``kind`` whose first bytes ``head`` are those of
    an Arrow IPC file or stream (Feather): no reader of trecbench's takes one, Parquet is
    its columnar input; None when they are not."""
    if not _arrow_ipc(head):
        return None
    return (
        f"an Arrow IPC (Feather) file, not {_what(kind)}: write it as Parquet "
        "(pyarrow.parquet.write_table) or as TREC text"
    )


# how an SQLite database begins (its file format's 16-byte header string)
_SQLITE = b"SQLite format 3\0"


def sqlite_message(head: bytes, kind: str) -> str | None:
    """What to say of a file given as a ``kind`` whose first bytes ``head`` are an SQLite
    database's (memorybench's ``results.db``, which ``convert memorybench`` reads); None
    when they are not. It was read as text: R12 and R23 findings full of escaped bytes."""
    if not head.startswith(_SQLITE):
        return None
    return (
        f"an SQLite database, not {_what(kind)}: convert it first if it is memorybench's "
        f"results.db (trecbench convert memorybench; {CONVERT_DOCS})"
    )


# the header line of BEIR's qrels, which `convert beir-qrels` reads (tab-separated)
BEIR_HEADER = ("query-id", "corpus-id", "score")


def columns_message(kind: str, shape: str = "beir", ready: bool = True) -> str:
    """What to say of a file given as a ``kind`` whose every line has three fields, of a
    ``shape`` (:func:`~.trec_tables.columns_shape`: ``msmarco``, ``beir`` or ``pool``,
    trecbench pool's file, given as either kind); ``ready``: BEIR qrels as ``convert
    beir-qrels`` reads them (tab-separated, under :data:`BEIR_HEADER`), else the advice
    says how to write them so (it never fails)."""
    if shape == "pool":  # no converter reads it: convert msmarco would take 0 for a pid
        pool = (
            "3 fields on every line, the second a placeholder (qid 0 docno: a pool of "
            f"documents to judge, trecbench pool's output?), not {_what(kind)}: "
        )
        if kind == "run":
            return f"{pool}give a run here; the pool, judged, is qrels ({POOL_DOCS})"
        return (
            f"{pool}judge it, or write it with `trecbench pool --unjudged-grade G` to read "
            f"it as qrels ({POOL_DOCS})"
        )
    if kind == "run":
        shape, converter = "an MS MARCO qid pid rank run?", "msmarco"
    else:
        shape, converter = "BEIR qrels, query-id corpus-id score?", "beir-qrels"
        if not ready:
            return (
                f"3 fields on every line ({shape}), not {_what(kind)}: convert it first, "
                "written as trecbench convert beir-qrels reads it: tab-separated, under the "
                f"header line '{' '.join(BEIR_HEADER)}' ({CONVERT_DOCS})"
            )
    return (
        f"3 fields on every line ({shape}), not {_what(kind)}: convert it first "
        f"(trecbench convert {converter}; {CONVERT_DOCS})"
    )
