"""The validator's rules as data: every check once, with its severities and documentation.

A *check* is what the code reports (``R1.short``); its *rule* is the stable id users see in
findings (``R1``: ``R1.short`` and ``R1.extra`` are both ``R1``). Run rules ``R1``-``R28``
follow ``validator-rules.md`` (``R29`` on are trecbench's own); ``Q`` rules are for qrels,
``X`` rules compare a run with qrels. Each check has one severity per profile, a one-line
summary and a documentation paragraph; ``docs/validate-rules.md`` is generated from them
(:mod:`.docs`), as ruff generates its rule pages from each rule's own description.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

E, W, I = "error", "warning", "info"  # noqa: E741 - the rule table's own letters
SEVERITIES = (E, W, I)
_LETTERS = {"E": E, "W": W, "I": I}


class Default(enum.Enum):
    """Sentinel of ``max_depth`` arguments: the profile's own depth (:attr:`Profile.max_depth`)."""

    PROFILE = "profile"


PROFILE_DEPTH = Default.PROFILE
TAG_PATTERN = r"^[A-Za-z0-9_.-]{1,25}$"  # R18: NIST's limit on run tags
MOST_TAGS = 100  # a file's distinct run tags checked one by one (R17-R19); the rest counted


@dataclass(frozen=True)
class Profile:
    """A named set of severities (one per check) and a default ``--max-depth``."""

    name: str
    max_depth: int | None
    summary: str


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "default",
            1000,
            "NIST-like submission checks plus the checks NIST skips (scores, ordering, ties, "
            "encoding); depth 1,000, TREC's usual submission depth.",
        ),
        Profile(
            "strict",
            1000,
            "`default` with the submission conventions as errors: `Q0`, rank numbering, score "
            "order and the tag's charset.",
        ),
        Profile(
            "lenient",
            1000,
            "Errors only for what makes trec_eval's numbers wrong or makes it fail; everything "
            "else is at most a warning. `trecbench score` uses it as its gate.",
        ),
        Profile(
            "rtask",
            100,
            "The TREC 2025 R task's run rules: non-empty, every topic of the qrels or "
            "`--topics` covered, six columns, literal `Q0`, unique ranks, depth at most 100.",
        ),
    )
}


def resolve_depth(max_depth: int | None | Default, profile: str) -> int | None:
    """``max_depth`` as given, or the profile's default for :data:`PROFILE_DEPTH`."""
    if max_depth is PROFILE_DEPTH:
        return PROFILES[profile].max_depth
    return max_depth


@dataclass(frozen=True)
class Check:
    """One check: its rule id, severity under each profile, what it catches and why."""

    key: str
    rule: str
    default: str
    strict: str
    lenient: str
    rtask: str
    summary: str
    doc: str
    fix: str = ""  # what --fix does about it ("": --fix refuses the file)

    @property
    def fixable(self) -> bool:
        return bool(self.fix)

    def severity(self, profile: str) -> str:
        return getattr(self, profile)


def _check(key: str, letters: str, summary: str, doc: str, fix: str = "") -> Check:
    """``letters``: the severities under default, strict, lenient and rtask (``"EEWE"``)."""
    default, strict, lenient, rtask = (_LETTERS[c] for c in letters)
    return Check(key, key.split(".")[0], default, strict, lenient, rtask, summary, doc, fix)


CATALOGUE = (
    # -- run structure ---------------------------------------------------------------------
    _check("R1.short", "EEEE", "fewer than 6 fields (hint when `Q0` is missing, a Unicode "
           "blank or a control character joins two fields, or for a 3-column MS MARCO line)",
           "A run line is `qid Q0 docno rank score tag`. trec_eval stops at a shorter line "
           "('Malformed line'). A line that starts with `#` is data to trec_eval 9.x too, so a "
           "short comment line is reported here as well (and R22)."),
    _check("R1.extra", "EEWE", "tokens after the tag (trec_eval ignores them; a tag with a "
           "space?)",
           "trec_eval reads six fields and silently ignores the rest of the line, so a tag "
           "with a space (`my run`) loses its second word unnoticed. trec_eval's own "
           "`results.trunc` has such junk on every line.", fix="drops the extra tokens"),
    _check("R1.joined", "EEEE", "records joined on one line by a lone CR, vertical tab or "
           "form feed (classic Mac line ends: trec_eval keeps the first record)",
           "trec_eval's lines end at a line feed alone: a file whose lines end in a lone CR "
           "is one line to it, of 12 fields or more, and it reads the first six and ignores "
           "the rest, every later record with them. Refused in every profile (the numbers "
           "are of one document a topic); `--fix` does not guess the line ends: convert them "
           "to LF (`tr '\\r' '\\n'`)."),
    _check("R2", "EEWE", "Unicode blank, zero-width, C1 control or other invisible char "
           "outside the docno; VT/FF/lone CR as separator",
           "NBSP, U+3000 or a zero-width space look like a separator but are part of a field "
           "to trec_eval; vertical tab, form feed and a lone CR are separators to trec_eval "
           "but invisible in most editors (at the end of a line they separate nothing: "
           "trailing whitespace, R25)."),
    _check("R3", "WEWE", "field 2 is not `Q0`",
           "trec_eval never reads field 2, but submission checkers (NIST, the TREC R and RAG "
           "tracks) require the literal `Q0`.", fix="writes `Q0`"),
    _check("R4", "EEWE", "qid not in `--topics` (near-miss hint: `01` vs `1`, case, BOM)",
           "A topic the run should not have. When the id matches a known one after removing "
           "leading zeros, case or a BOM, or in another Unicode normalization form (`café` "
           "as NFD, e and a combining accent, beside NFC's é: printed alike, not the same "
           "bytes), the message names it (`did you mean '1'?`)."),
    _check("R5", "EEWE", "topic of `--topics` without any document",
           "Every topic must be answered: of a topic the qrels judge and the run lacks, "
           "trec_eval 9.0.8 skips it, 10.0 stops (`result qid ... not found in qrels`, exit "
           "4), and both score it 0 with `-c`, which changes the mean."),
    _check("R6", "EEWE", "docno with a Unicode blank, zero-width, C1 control or other "
           "invisible char, not matching `--docid-regex`, or not in `--docids`",
           "Document ids are opaque strings compared byte for byte: an invisible character "
           "makes a different document that no judgment matches. `--docids FILE` lists the "
           "collection's ids, one per line: a docno not among them (compared exactly, case "
           "and leading zeros included) is no document of the collection."),
    _check("R7", "EEEE", "duplicate docno within a topic (also beyond the depth cut, across "
           "blocks)",
           "trec_eval stops with 'duplicate docs' (exit 4) in a topic the qrels judge (it "
           "evaluates no other: of a topic they lack, the message says so). Each repeat is "
           "said once, named with the document's first line (a third d1 with the first, not "
           "the second), "
           "also for a topic split into blocks (R20) that the streaming reader meets in "
           "different chunks.",
           fix="keeps the first occurrence in trec_eval's order"),
    _check("R7.unjudged", "EEWE", "duplicate docno within a topic the qrels given do not "
           "judge",
           "trec_eval evaluates no topic the qrels lack, so it neither stops at this one nor "
           "changes a number (score's gate, the lenient profile, warns); the run is still "
           "wrong, and stops trec_eval with 'duplicate docs' once the topic is judged.",
           fix="keeps the first occurrence in trec_eval's order"),
    _check("R8", "EEWE", "topic deeper than `--max-depth`",
           "More documents than the depth allowed (default 1,000, TREC's usual submission "
           "depth; 100 under `rtask`). trec_eval itself scores every document unless run with "
           "`-M`.", fix="cuts each topic at `--max-depth`"),
    _check("R9.empty", "EEEE", "no data lines (e.g. blank lines only, or an ir_metadata "
           "block alone)",
           "Nothing to evaluate: trec_eval fails on such a file. A `#` line is data to "
           "trec_eval 9.x (R22, Q8): a file of them is not empty. An ir_metadata block "
           "atop a run (R30) is metadata, not data: a run of the block alone has none "
           "(trec_eval 9.0.8 stops at its first line, 'Malformed line 1'; 10.0 finds no "
           "results), and `--fix` has nothing to write."),
    _check("R9.shallow", "WWWW", "topic shallower than `--min-depth`",
           "Fewer documents than asked for with `--min-depth` (a truncated retrieval?)."),
    _check("R10", "EEWE", "rank is not a non-negative ASCII integer (`2.0`, `-1`)",
           "trec_eval ignores the rank column, rank-based tools do not.",
           fix="renumbers ranks 1..n"),
    _check("R11.unique", "WEWE", "rank repeated within a topic",
           "Two documents of a topic share a rank. The R task requires unique ranks per query.",
           fix="renumbers ranks 1..n"),
    _check("R11.sequence", "WEWW", "ranks of a topic do not start at 1 or have gaps",
           "Zero-based ranks or gaps (1, 2, 5). trec_eval ranks by score and never reads them; "
           "submission checkers want 1..n.", fix="renumbers ranks 1..n"),
    _check("R12", "EEEE", "score not a finite ASCII number (`abc`, `0,9`, `nan`, `inf`, "
           "`0x10`, `1_000`, `３.0`, overflow)",
           "trec_eval reads scores with C's `atof`, which reads a prefix (`0,9` is 0) or 0 "
           "(`abc`) and sorts `nan` arbitrarily: the ranking it scores is not the one "
           "intended."),
    _check("R13", "WEWW", "scores increase down the file within a topic (as float32, like "
           "trec_eval 9.x)",
           "trec_eval orders documents by score, not by file order: a run whose scores rise "
           "is evaluated in another order than it lists.", fix="writes trec_eval's order"),
    _check("R14", "WWWW", "rank order disagrees with score order (trec_eval uses scores, MS "
           "MARCO eval ranks)",
           "The two orders give different numbers in different tools.",
           fix="renumbers ranks in trec_eval's order"),
    _check("R15.tie", "WWWW", "tied scores, with counts (trec_eval orders them by docno, "
           "descending)",
           "Ties are broken by docno, descending, not by rank or file order: tied documents "
           "may be scored in another order than listed."),
    _check("R15.float32", "WWWW", "scores tied only at float32 precision (9.x ties them, "
           "10.0 does not)",
           "trec_eval 9.x compares scores as float32: `1.00000002` and `1.00000001` tie there "
           "(and are ordered by docno), while trec_eval 10.0 keeps them apart."),
    _check("R16", "IIII", "score in scientific notation (valid)",
           "`3e0` is a valid score; noted because some tools read it differently."),
    _check("R17", "EEWE", "more than one run tag",
           "trec_eval reports the tag of the last line only; a mixed file is usually two runs "
           "concatenated."),
    _check("R18", "WEWW", "tag not `^[A-Za-z0-9_.-]{1,25}$`",
           "NIST's submission limit on run tags (charset and length)."),
    _check("R19", "EEWE", "tag differs from the file name (only with `--tag-is-filename`)",
           "Some tracks require the run tag to equal the submitted file's name: its name "
           "without compression suffixes, with or without its extension (`bm25` and "
           "`bm25.run` both name `bm25.run.gz`)."),
    _check("R20.order", "IIII", "topics not in ascending order (numeric or byte-wise)",
           "Harmless to trec_eval; noted once per file. Either order is ascending: numeric "
           "when every qid is ASCII digits (`1, 2, 10`), byte-wise otherwise or as well "
           "(`1, 10, 2`, trec_eval's own); the finding is where the topics leave both. "
           "`--fix` keeps an ascending order and writes any other byte-wise."),
    _check("R20.split", "WWWW", "topic split into non-contiguous blocks",
           "A topic that comes back after other topics is often a concatenation mistake; its "
           "documents are still one topic to trec_eval."),
    _check("R20.unchecked", "IIII", "split topics not re-checked whole (a full `TMPDIR`)",
           "A split topic's R11, R14 and R15 are checked again over all its lines, kept in "
           "a temporary file past 262,144 lines; when that file cannot be written (a full "
           "`TMPDIR`), they stand as checked within each stretch, and this one finding, at "
           "the first split topic's first line, says so with the reason, even when no "
           "stretch shows anything; the text output prints it whatever `--show` caps of "
           "R20."),
    _check("R21", "WWWW", "blank line",
           "trec_eval skips blank lines in runs (they are fatal in qrels: Q2).",
           fix="drops the line"),
    _check("R22", "WWWW", "comment line (`#` first; `#` inside an id is not a comment)",
           "trec_eval 9.x reads a `#` line as data (a document of topic `#...`, scored as any "
           "other when the qrels judge that topic, as `score` scores it; or 'Malformed line' "
           "when it has fewer than 6 fields: R1), 10.0 skips it. Every profile checks it as "
           "data, as 9.0.8 reads it; the finding names the topic.",
           fix="drops the line; the lines trec_eval 9.x reads as documents are listed apart, "
           "with their topics"),
    _check("R23.bom", "EEEE", "UTF-8 byte-order mark (a phantom topic in trec_eval)",
           "trec_eval reads the BOM as part of the first qid, which becomes a topic of its "
           "own. Save the file without it (UTF-8 without signature).",
           fix="drops the mark, an encoding's signature and no data: the first qid is then "
           "the one written"),
    _check("R23.nul", "EEEE", "NUL byte (trec_eval 9.0.8 and 10.0 stop reading there, or crash)",
           "A NUL that starts a line ends the file for trec_eval 9.x without a message: "
           "everything after it is lost. Inside a line trec_eval 9.0.8 crashes "
           "(segmentation fault, exit 139)."),
    _check("R23.utf8", "EEEE", "invalid UTF-8",
           "Ids are compared as bytes; a mis-encoded id never matches its judgment."),
    _check("R23.utf16", "EEEE", "UTF-16 or UTF-32 file",
           "A UTF-16 or UTF-32 file (told by its byte-order mark or, without one, by a NUL "
           "beside every other byte of its first characters, three in UTF-32) is not a TREC "
           "file; save it as UTF-8 (or ASCII)."),
    _check("R23.control", "EEWE", "other C0 control character or DEL",
           "Invisible characters that become part of a field to trec_eval: of an id, or "
           "of a rank or score (then also R10, R12)."),
    _check("R24", "WWWW", "CRLF line end",
           "trec_eval treats the CR as a blank; noted because other tools keep it in the tag."),
    _check("R25.trailing", "IIII", "trailing whitespace (blanks, or a VT, FF or lone CR "
           "ending a line)", "Harmless: trec_eval skips it; noted for tidiness."),
    _check("R25.spacing", "IIII", "irregular separators (tabs mixed with spaces, runs of "
           "blanks, leading blanks, or another separator than the first data line's)",
           "Harmless to trec_eval; noted because strict parsers split on one "
           "separator."),
    _check("R25.newline", "IIII", "no final newline",
           "Harmless to trec_eval; some tools drop the last line."),
    _check("R26", "EEEE", "empty file", "Nothing to evaluate."),
    _check("R27", "EEEE", "truncated, corrupt or doubly gzipped file, lz4 legacy format, or "
           "compressed Parquet",
           "A `.gz` that ends early must never pass as a shorter valid file, nor be said to "
           "lack what the part never read may hold (no R5, R9 or X2-X5 of a run cut "
           "short, no X1-X5 against qrels cut short, no Q7 or Q10 of them); a Parquet file "
           "is read as it is (it compresses its own columns), not compressed again; lz4's "
           "legacy format (`lz4 -l`) is told by its magic but not read (Arrow reads lz4 "
           "frames only), rather than read as text that fails on every line."),
    _check("R27.long", "EEEE", "a line longer than 16 MiB (a binary file, or one without "
           "newlines)",
           "No run's or qrels' line comes near it (the longest docno of the benchmark's runs "
           "is 100,000 bytes): a file without newlines, binary or of NUL bytes, is refused "
           "at the line by every reader of TREC text, whatever `--memory`, rather than held "
           "whole at 10 to 30 times its size. The lines before it are checked; nothing after "
           "it is read. A JSON text on one line is R32."),
    _check("R28", "EEEE", "header line (`qid Q0 docno rank score tag`)",
           "TREC runs have no header: trec_eval reads it as a document of a topic `qid` "
           "(unless its fields do not parse), a topic no qrels judge. The first record, or a "
           "later line whose qid and score are column names beside a third, its rank no "
           "integer (runs concatenated, a header each); a data line whose score is `rank` "
           "is a bad score (R12), not a header.",
           fix="drops the line"),
    _check("R29", "EEEE", "the run looks like qrels (arguments swapped?)",
           "Every line has the shape of a qrels line (4 fields, an integer last): the run and "
           "qrels were probably given in each other's place (`score` and `compare` ask "
           "whether the run was left out when the qrels given read as qrels). One finding, "
           "instead of one per line."),
    _check("R30", "WWIW", "ir_metadata block atop the run (`# ir_metadata.start` ... `.end`; "
           "trec_eval 9.0.8 cannot read the file)",
           "The run's description in YAML (Breuer et al., SIGIR 2022; TIRA, repro_eval): "
           "read as metadata and recorded in reports; the lines after it are checked and "
           "scored as trec_eval reads the file without the block. trec_eval 9.0.8 stops at "
           "its first line ('Malformed line 1'); 10.0, which skips `#` lines, and `score` "
           "read the file: a warning (a note under `lenient`, score's gate); leave out "
           "`--ir-metadata` for a run trec_eval 9.0.8 must read.",
           fix="keeps the block atop the fixed run, the run's provenance (a Parquet output, "
           "which holds none, drops it and says so)"),
    _check("R30.tag", "WEIW", "the ir_metadata block's `tag` is not the run's tag",
           "A block whose `tag` differs from the run tag of the lines after it describes "
           "another run, or the lines were retagged since: reports record both. `validate "
           "--fix-tag` refuses to make one (give the block the new tag too). A note under "
           "`lenient` (score's gate), as R30 is: `validate` says it."),
    _check("R30.malformed", "EEEE", "ir_metadata block without its end marker, with a "
           "line that is not a `#` line, longer than the most read (100,000 lines or 64 "
           "MiB), or whose YAML is not valid (a key twice), ambiguous or not a mapping",
           "A block that cannot be read as metadata: `validate` reports it at its line and "
           "checks the rest of the run, the block's lines as trec_eval 9.x reads them; "
           "`score` refuses the run in one line at the line. Ambiguous YAML is a plain "
           "value or key that YAML 1.1 (PyYAML) and YAML 1.2's core schema (the "
           "version the ir_metadata schema names) read as different "
           "values: `yes` (true or text), `1:30` (90 or text), `010` (8 or 10); it is "
           "refused, not recorded in one reading: write the value meant, or quote it."),
    _check("R31", "EEWE", "id of a table's row (JSONL, Parquet, a DataFrame or dict given "
           "to the API; qid, docno, tag) holding a blank, a line break or another control or "
           "invisible character (a NUL: R31.nul)",
           "A table's ids are never split at blanks, so a JSONL or Parquet file (or a table "
           "held in memory) can hold an id that no TREC file can: a space, tab, CR, LF, VT or FF "
           "ends a field of TREC text and a NUL ends trec_eval 9.x's reading, so `write_run`, "
           "`fuse` and trec_eval's text output (`score -q`) refuse such an id (`convert` "
           "percent-escapes it, reversibly). Other control "
           "characters, DEL, Unicode blanks and zero-width characters are what R23, R2 and R6 "
           "flag in a TREC file: `write_run` and `fuse` refuse them in TREC text too (and a "
           "qid starting with `#`, a comment line to trec_eval 10.0), naming "
           "`trecbench.ids.escape_id`, which escapes them as `convert` does. `score` holds "
           "every id exactly, so its numbers are right and "
           "its JSON and CSV hold the id as it is: a warning under `lenient`, an error "
           "elsewhere. But for a NUL: every reader of a table, dict or records (`score`, "
           "`validate`, the Python API) refuses an id holding one in one line naming its row "
           "or line, as trec_eval's and pytrec_eval's C strings end there (`q\\0` would be "
           "read as `q`: two topics as one, values computed on other documents, or "
           "pytrec_eval aborting the process): R31.nul."),
    _check("R31.nul", "EEEE", "id of a JSONL or Parquet file's row holding a NUL (what `score` "
           "refuses: nothing after it is checked)",
           "trec_eval's and pytrec_eval's C strings end at a NUL, so every reader of a table, "
           "dict or records refuses an id holding one (`score`, `fuse`, the Python API): an "
           "error under every profile, `lenient` too (R31's other characters are a warning "
           "there, as `score` reads them exactly). `validate` says it at the row or line "
           "the reader names; nothing after it is checked (a JSONL run's lines before it "
           "are)."),
    _check("R32", "EEEE", "the run is what `trecbench convert` reads (JSON, or 3 fields on "
           "every line: an MS MARCO run)",
           "A JSON document (Phentrieve's test cases, code-chunk's results, a `{qid: {docno: "
           "score}}` dict), JSON lines or trecbench's own sidecar, told by the file's first "
           "bytes, or three fields on every line: the converter that reads it is named, "
           "and where to read more (`trecbench convert --help`), in one finding instead of "
           "one per line. Only where the file cannot be read as a run anyway: trec_eval "
           "takes `{\"q1\"}` for a qid, and so does trecbench. An Arrow IPC file or stream "
           "(Feather) is told the same way, by its first bytes: write it as Parquet; an SQLite "
           "database too (memorybench's results.db: `convert memorybench` reads it). Three "
           "fields with a `0` or `Q0` second on every line are `trecbench pool`'s file, no "
           "run: told so, not sent to `convert msmarco` (which reads the second as a pid)."),
    _check("R32.jsonl", "EEEE", "a line of a JSONL run that is no run's line (bad JSON, an "
           "unknown key, a value of the wrong type)",
           "A JSONL run (named `*.jsonl`, or standard input holding JSON objects) is read "
           "line by line: the first line that is no run's is said at its line, and the "
           "lines after it are not read. A JSON document (a `{qid: {docno: score}}` dict) "
           "is read as TREC text however it arrives, by `score` as by `validate`: R32 "
           "where it is no run."),
    _check("R32.parquet", "EEEE", "a Parquet run or qrels that is no run's or qrels' table (a "
           "column missing or of the wrong type, a missing value, a score that is no finite "
           "number)",
           "What `score` refuses of a Parquet file is said once, at the row it names, and "
           "nothing else of the file is checked (the file is read whole: there is no line "
           "before it to check); the other files of the call are checked on. A Parquet "
           "file Arrow cannot read is R27."),
    # -- qrels -----------------------------------------------------------------------------
    _check("Q1", "EEEE", "not exactly 4 fields (hint for 3-column BEIR qrels, or when a "
           "Unicode blank or a control character joins two fields)",
           "A qrels line is `qid iter docno rel`; trec_eval stops at any other field count "
           "('Malformed line'), also on a `#` comment line, which trec_eval 9.x reads as data."),
    _check("Q2", "EEEE", "blank line, also a trailing one (fatal in trec_eval)",
           "trec_eval stops with 'Malformed line' at a blank line in qrels."),
    _check("Q3", "EEEE", "grade is not an integer (`0.9`, `abc`: trec_eval's `atol` "
           "truncates silently)",
           "trec_eval reads grades with `atol`: `1.5` becomes 1 and `abc` 0, without a "
           "message."),
    _check("Q3.plus", "IWII", "grade with a leading `+` (`+1`), outside the grade "
           "grammar `^-?\\d+$`",
           "trecbench reads `+1` as the grade 1, as trec_eval's `atol` does, so no number "
           "changes; but the grammar of a grade (validator-rules.md: `^-?\\d+$`, as a run's "
           "rank has no sign: R10) has no `+`, and a stricter reader may refuse the line: a "
           "warning under `strict`, a note elsewhere."),
    _check("Q4", "EEEE", "grade beyond ±1,000,000 (trec_eval's nDCG takes minutes at "
           "1,000,000, far longer above)",
           "trec_eval sizes its gain arrays by the largest grade (its `-m ndcg` of two "
           "judgments, one graded 1,000,000: about three minutes; at 2^31 - 1 even `-m P.5` "
           "took 28 s and 16.7 GB, and where the arrays cannot be allocated it stops: 'Can't "
           "calculate measure'). Below -1,000,000 nothing "
           "runs long (trec_eval reads every negative grade alike, as unjudged), yet grades "
           "are read within the same bounds: write -1."),
    _check("Q5", "EEEE", "duplicate (qid, docno), same or conflicting grade",
           "trec_eval stops ('duplicate docs', exit 4) at a topic it evaluates (9.0.8: one "
           "the run ranks; 10.0 with `-c`: every qrels topic); ranx and ir_measures silently "
           "keep the last grade. An error in every topic and every profile: the qrels are "
           "read apart from any run, and are wrong for each that ranks the topic (`score`, "
           "reading both, stops exactly where trec_eval does). Grades are compared as atol "
           "reads them: `1` and `01` are one grade."),
    _check("Q6", "WWWW", "negative grade (in the pool, unjudged: not relevant, not judged "
           "non-relevant)",
           "trec_eval reads it as RELVALUE_UNJUDGED: not in `num_rel`, not a judged "
           "non-relevant document (bpref, `num_nonrel_judged_ret`), dropped by `-J`; infAP's "
           "sampled pools use it so. Tools that read it as non-relevant score otherwise."),
    _check("Q7", "WWWW", "topic without a relevant document (it scores 0 but on graded gains)",
           "No grade reaches the relevance level (`-l`): every measure of binary relevance is "
           "0 for the topic and pulls the mean down; nDCG and G count every positive grade "
           "whatever `-l` (trec_eval's gains), so a topic graded below the level still "
           "scores on them."),
    _check("Q8.comment", "WWWW", "comment line",
           "trec_eval 9.x reads a `#` line as data (a judgment of topic `#...`, or Q1/Q3 when "
           "it is not one), 10.0 skips it (a `#` in the first column only: after blanks it "
           "is data to both). Every profile checks it as data, as 9.0.8 reads it."),
    _check("Q8.fatal", "EEWE", "the second (fourth, ...) of comment lines in a row, or a "
           "comment on the last line (break trec_eval 10.0)",
           "trec_eval 10.0 skips the first comment line of a run and reads the next as data "
           "(a judgment of topic `#...`), skips the third, reads the fourth; it fails on, or "
           "misreads, a trailing one."),
    _check("Q9", "EEEE", "header line", "TREC qrels have no header: trec_eval reads it as a "
           "judgment of topic `qid` (grade 0); trec_eval 10.0, which evaluates every qrels "
           "topic, then stops without `-c` (no run has a topic `qid`), and with `-c` counts it "
           "in every mean."),
    _check("Q10", "WWWW", "every judgment of a topic is negative (trec_eval exits 4 when it is "
           "the first topic evaluated)",
           "trec_eval 9.0.8 sizes its buffer of grade levels by the largest grade + 1: it stops "
           "with 'Can't calculate measure' (exit 4) when such a topic is the first of a run it "
           "evaluates, and crashes on grades of -2 or less (X5)."),
    _check("Q11", "EEEE", "the qrels look like a run (arguments swapped?)",
           "Every line has the shape of a run line (6 fields or more): the run and qrels were "
           "probably given in each other's place (`score` and `compare` ask whether the qrels "
           "were left out when the run given is a run too). One finding, instead of one per "
           "line."),
    _check("Q12", "EEEE", "the qrels are what `trecbench convert` reads (JSON, or 3 fields "
           "on every line: BEIR qrels), or a pool to judge",
           "As R32 for qrels: JSON (or JSON lines, or trecbench's sidecar) or three fields on "
           "every line (BEIR's `query-id corpus-id score`), named with its converter in one "
           "finding, where the file cannot be read as qrels anyway; BEIR qrels not as `convert "
           "beir-qrels` reads them (tab-separated, under that header line) are told how to "
           "write them so. Three fields with a `0` or `Q0` second on every line (blank- or "
           "tab-separated) are `trecbench pool`'s file, documents to judge: judged, or "
           "written with `pool --unjudged-grade G`, it reads as qrels (`trecbench pool "
           "--help`)."),
    # -- a run against qrels -----------------------------------------------------------------
    _check("X1", "WWWW", "run topic absent from the qrels (trec_eval ignores it)",
           "trec_eval evaluates only topics with judgments, also with `-c`. A near miss "
           "of a qrels topic is named as R4 names it (zeros, case, BOM, Unicode "
           "normalization form)."),
    _check("X2", "WWWE", "qrels topic absent from the run (9.0.8 skips it, 10.0 stops; 0 "
           "with `-c`)",
           "trec_eval 9.0.8 skips the topic; 10.0 stops at the first such topic (`result qid "
           "... not found in qrels`, exit 4, as `score --compat 10.0` does); with "
           "`-c` both score it 0 (but 10.0 stops with `-c` too on a topic of negative grades "
           "only, and reads a `#` line in the first column as a comment, no topic): the mean "
           "depends on the flag. A warning in every profile "
           "but rtask, as `validate` checks for no one trec_eval version. The R task requires "
           "every query covered."),
    _check("X3", "EEEE", "no topic in both run and qrels (trec_eval 9.0.8 exits 7, 10.0 4)",
           "Nothing can be evaluated: wrong qrels for this run? trec_eval 10.0 stops at the "
           "first qrels topic (X2), or with `-c` scores every topic 0."),
    _check("X4", "IIII", "share of unjudged documents in the top 10 (trec_eval order)",
           "A high share means the qrels' pool did not reach this run: its scores are "
           "underestimated."),
    _check("X5", "EEEE", "run topic trec_eval cannot evaluate: every judgment negative, and "
           "the first topic evaluated or graded -2 or less (\"Can't calculate measure\", exit 4, "
           "or a crash)",
           "trec_eval 9.0.8 evaluates the run's topics in the qrels in byte-wise order; such a "
           "topic later in that order is scored (see Q10)."),
    _check("X6", "EEEE", "a measure the judgments' format (`-R`) cannot give (trec_eval: "
           "\"Can't calculate measure\", exit 4)",
           "The prefs measures need `-R prefs` or `qrels_prefs` judgments, the `_avgjg` ones "
           "`-R qrels_jg` and every other measure standard qrels: trec_eval stops at the first "
           "topic it evaluates, after its checks of the topics (none in common: exit 7; 10.0 "
           "without -c: a qrels topic the run lacks). `trecbench score` and `compare` refuse "
           "the measure there, scoring no topic; "
           "`validate` is not given measures and never reports it."),
)  # fmt: skip

CHECKS: dict[str, Check] = {check.key: check for check in CATALOGUE}
FIXABLE = frozenset(key for key, check in CHECKS.items() if check.fixable)
RULE_ORDER = {key: i for i, key in enumerate(CHECKS)}


def rule_sort_key(rule: str) -> tuple[str, int]:
    """Rule ids by letter, then by number (``R2`` before ``R10``)."""
    return rule[0], int(rule[1:])
