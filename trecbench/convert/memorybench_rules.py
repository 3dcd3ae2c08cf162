"""memorybench's relevance rules (see :mod:`trecbench.convert.memorybench`): explicit ids,
the packs' rules (LoCoMo, LongMemEval; the code packs' in
:mod:`~trecbench.convert.memorybench_code`), the location rule and the token-F1 fallback,
and :func:`judge`, which applies them to one result as :class:`Judging` asks."""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..ecma_regex import ecma_pattern
from ..errors import Setting, UsageError, excerpt
from ..ids import escape_id
from ..sources import At
from ..type_names import printed_float
from .common import Report
from .memorybench_code import CODE_PACKS, Chunk, code_pack_judgments, iou_threshold, located

EXPLICIT_KEYS = ("relevantIds", "relevantChunkIds", "groundTruthIds", "qrels")
STRATEGIES = ("explicit", "pack", "location", "token-f1")
AUTO = "auto"
F1_THRESHOLD = 0.3  # memorybench's NDCGAtKMetric default
NONE = "none"
_CTXID = re.compile(r"^\[CTXID:([^\]]+)\]\s*")
# memorybench's /D\d+:\d+/g: ASCII digits (Python's \d read "D1:2٣" as one id, where
# memorybench finds D1:2, which evidence D1:2 judges relevant)
_DIALOG_ID = re.compile(ecma_pattern(r"D\d+:\d+"))
# memorybench's /_(\d+)$/: ASCII digits at the very end (Python's \d took "_٣", its $ the
# "_3" of "s_3\n", matching answer ids memorybench does not match)
_TURN_SUFFIX = re.compile(ecma_pattern(r"_(\d+)$"))
# memorybench's String.prototype.trim(): JavaScript's white space, U+FEFF included and the
# separators U+001C-U+001F and U+0085 not (Python's str.strip() has it the other way)
_JS_TRIM = re.compile(ecma_pattern(r"^\s+|\s+$"))
# memorybench tokenises in TypeScript: JavaScript's \s, and its ASCII-only \w
_JS_NOT_WORD = re.compile(ecma_pattern(r"[^\w\s]"))
_JS_SPLIT = re.compile(ecma_pattern(r"\s+"))


def tokens(text: str | None) -> set[str]:
    """memorybench's ``tokenize`` as a set: lower case, ``[^\\w\\s]`` → blank, split."""
    if not text:
        return set()
    return {t for t in _JS_SPLIT.split(_JS_NOT_WORD.sub(" ", text.lower())) if t}


def token_f1(expected: str | None, content: str | None) -> float:
    """Token F1 of a chunk against the expected answer, as memorybench's fallback computes
    it (sets; precision over the chunk's tokens, recall over the answer's)."""
    answer, chunk = tokens(expected), tokens(content)
    overlap = len(answer & chunk)
    precision = overlap / len(chunk) if chunk else 0.0
    recall = overlap / len(answer) if answer else 0.0
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def _trim(text: str) -> str:
    """``text`` without the white space JavaScript's ``trim()`` removes around it."""
    return _JS_TRIM.sub("", text)


def _listed(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [_trim(str(v)) for v in values if _trim(str(v))]


def locomo_relevant(evidence: Any, chunk: Chunk) -> bool:
    """LoCoMo's pack rule: a dialog id of the chunk is one of the evidence ids."""
    wanted = set(_listed(evidence)) if evidence else set()
    if not wanted:
        return False
    found = set()
    listed = chunk.meta.get("dialogIds")
    if isinstance(listed, list):
        found |= {_trim(i) for i in listed if isinstance(i, str) and _trim(i)}
    single = chunk.meta.get("dialogId", chunk.meta.get("dia_id"))
    if isinstance(single, str) and _trim(single):
        found.add(_trim(single))
    content = chunk.content or ""
    prefix = _CTXID.match(content)
    if prefix:
        found |= {_trim(i) for i in prefix.group(1).split(",") if _trim(i)}
    found |= set(_DIALOG_ID.findall(chunk.docno)) | set(_DIALOG_ID.findall(content))
    return not wanted.isdisjoint(found)


def longmemeval_relevant(item_id: str, meta: dict, chunk: Chunk) -> bool:
    """LongMemEval's pack rule: the chunk's corpus id contains ``answer`` (not ``noans``)
    or is an answer corpus id (possibly with a ``_<n>`` turn suffix); never for
    abstention items."""
    if "_abs" in item_id or meta.get("isAbstention") is True:
        return False
    corpus = chunk.meta.get("corpusId")
    if not isinstance(corpus, str) or not corpus:
        prefix = _CTXID.match(chunk.content or "")
        corpus = prefix.group(1) if prefix else chunk.docno
    lower = corpus.lower()
    if "noans" in lower:
        return False
    if "answer" in lower:
        return True
    answers = meta.get("answerCorpusIds")
    if isinstance(answers, list):
        known = {str(a) for a in answers}
        return corpus in known or _TURN_SUFFIX.sub("", corpus) in known
    return False


def pack_total(meta: dict) -> int | None:
    """The number of relevant items a pack knows from an item's metadata (memorybench's
    ``inferTotalRelevant``): the evidence's count, else the answer corpus ids'; None when
    only the relevant chunks found can be counted."""
    evidence = meta.get("evidence")
    if evidence is not None:
        if isinstance(evidence, list):
            return len(evidence)
        if isinstance(evidence, str) and _trim(evidence):
            return 1
    answers = meta.get("answerCorpusIds")
    if isinstance(answers, list) and answers:
        return len(answers)
    return None


# the largest offset: a 64-bit integer, as every other integer option (a larger one was
# taken, and recorded in the sidecar beyond what a JSON reader of int64 holds)
_MOST_OFFSET = 2**63 - 1


def _offsets(given: object) -> dict[str, int]:
    """``line_offsets`` as ``--line-offset PROVIDER=N`` takes them: a mapping of provider
    names to integers (numpy's too, made Python's), else a UsageError (``1.5`` was kept,
    and compared with line numbers as a fraction of a line)."""
    if not isinstance(given, Mapping):
        raise UsageError(f"line_offsets must map providers to integers, not {given!r}")
    offsets = {}
    for provider, offset in given.items():
        if isinstance(offset, bool) or not isinstance(offset, numbers.Integral):
            raise UsageError(f"line offset {provider!r}: {offset!r} is not an integer")
        if not isinstance(provider, str):
            raise UsageError(f"line offset {provider!r}: a provider is named by a string")
        if not -_MOST_OFFSET <= offset <= _MOST_OFFSET:  # as every integer option is bounded
            raise UsageError(
                f"line offset {provider!r}: {excerpt(int(offset))} is beyond "
                f"±{_MOST_OFFSET} (a 64-bit integer, as the sidecar records it)"
            )
        offsets[provider] = int(offset)
    return offsets


@dataclass(frozen=True)
class Judging:
    """How memorybench results are judged: ``relevance`` (``auto`` or one of
    :data:`STRATEGIES`), ``line_offsets`` (provider -> number added to its chunks' line
    numbers), ``iou`` (overrides each item's ``iouThreshold``) and the token-F1 strategy's
    ``f1_threshold`` (None: :data:`F1_THRESHOLD`); checked when built: a threshold of a
    strategy ``relevance`` never applies is refused."""

    relevance: str = AUTO
    line_offsets: Mapping[str, int] = field(default_factory=dict)
    iou: float | None = None
    f1_threshold: float | None = None  # None: F1_THRESHOLD

    def __post_init__(self) -> None:
        if self.relevance not in (AUTO, *STRATEGIES):
            raise UsageError(f"unknown relevance strategy {self.relevance!r}")
        # a threshold of a strategy the one asked never applies would be taken and dropped
        # (as convert lists refuses --fuzzy-threshold without --match chunks)
        # (the repoeval pack applies the location rule: --iou is its threshold too)
        for name, strategy, also in (
            ("iou", "location", "pack"),
            ("f1_threshold", "token-f1", None),
        ):
            if getattr(self, name) is not None and self.relevance not in (AUTO, strategy, also):
                with_it = f"{strategy}, {also} or auto" if also else f"{strategy} or auto"
                raise UsageError(
                    Setting(name), f" is the {strategy} strategy's threshold, which relevance "
                    f"{self.relevance!r} never applies; give it with {with_it}"
                )  # fmt: skip
        if self.f1_threshold is None:
            object.__setattr__(self, "f1_threshold", F1_THRESHOLD)
        for name, label in (("iou", "IoU"), ("f1_threshold", "F1")):
            value = getattr(self, name)
            if value is None:
                continue
            # "0.5" failed in a comparison (a TypeError), np.float32(0.5) in the sidecar's
            # JSON: a real number, kept as the float it prints as
            number = isinstance(value, numbers.Real) and not isinstance(value, bool)
            if not number or not 0 <= value <= 1:  # NaN too: it passes FloatRange
                raise UsageError(
                    f"the {label} threshold must be a number between 0 and 1, not {excerpt(value)}"
                )
            object.__setattr__(self, name, printed_float(value))
        object.__setattr__(self, "line_offsets", _offsets(self.line_offsets))

    def offset(self, provider: str) -> int:
        """The number added to ``provider``'s chunk line numbers."""
        return self.line_offsets.get(provider, 0)

    def record(self) -> dict:
        """The sidecar's ``provenance.options``."""
        return {
            "relevance": self.relevance,
            "f1_threshold": self.f1_threshold,
            "line_offsets": self.line_offsets,
            "iou": self.iou,
        }


@dataclass
class _Judged:
    """What one relevance strategy made of one result."""

    strategy: str
    rows: list[tuple[str, int]]  # (docno, grade)
    found_only: bool = False
    unretrieved: int = 0
    surplus: int = 0  # relevant chunks judged past the pack's count (its IDCG's)


def _explicit(meta: dict, at: At, report: Report, where: dict) -> list[str] | None:
    """memorybench's explicit ids (trimmed; empty ones dropped), or None when absent."""
    key = next((k for k in EXPLICIT_KEYS if meta.get(k) is not None), None)
    if key is None:
        return None
    place = at / key
    items = place.expect_list(meta[key], "an array of ids")
    ids = []
    for position, item in enumerate(items):
        text = (place / position).expect_id(item) if item != "" else ""
        trimmed = _trim(text)
        if trimmed != text:
            report.repair("blanks around an explicit relevant id removed", [{**where, "id": text}])
        if trimmed:
            ids.append(trimmed)
        else:
            report.drop("empty explicit relevant id", [{**where, "position": position}])
    return ids or None


def _location(
    truth: Any, chunks: list[Chunk], at: At, offset: int, iou: float | None,
    meta: dict, report: Report, where: dict,
) -> _Judged | None:  # fmt: skip
    """The location rule (:func:`~.memorybench_code.located`) against a ground truth of a
    file and its lines, both required; None without one."""
    if truth is None:
        return None
    truth = (at / "groundTruth").expect_object(truth)
    file = truth.get("file")
    if file is None:
        return None
    file = (at / "groundTruth" / "file").expect_string(file)
    gt_start = (at / "groundTruth" / "startLine").expect_integer(truth.get("startLine"))
    gt_end = (at / "groundTruth" / "endLine").expect_integer(truth.get("endLine"))
    if gt_end < gt_start:  # no lines: every chunk, however placed, judged not relevant
        raise (at / "groundTruth" / "endLine").error(
            f"endLine {gt_end} is before startLine {gt_start}"
        )
    threshold = iou_threshold(iou, meta, at)
    rows = [(c.docno, int(located(c, file, (gt_start, gt_end), offset, threshold))) for c in chunks]
    _without_file(chunks, report, where)
    return _Judged("location", rows, found_only=True)


def _without_file(chunks: list[Chunk], report: Report, where: dict) -> None:
    """Report the chunks a rule of files judged not relevant for want of one."""
    unplaced = [{**where, "docno": escape_id(c.docno, "docno")} for c in chunks if not c.file]
    report.repair("retrieved chunk without metadata.filepath (judged not relevant)", unplaced)


def _pack(
    benchmark: Any, item_id: str, meta: dict, chunks: list[Chunk], at: At, offset: int,
    iou: float | None, report: Report, where: dict,
) -> _Judged | None:  # fmt: skip
    """The judgments of ``benchmark``'s pack, which alone decides them in memorybench (an
    item without the pack's ground truth: every chunk not relevant); None without a pack."""
    if benchmark == "locomo":
        evidence = meta.get("evidence")
        rows = [(c.docno, int(locomo_relevant(evidence, c))) for c in chunks]
    elif benchmark == "longmemeval":
        rows = [(c.docno, int(longmemeval_relevant(item_id, meta, c))) for c in chunks]
    elif benchmark in CODE_PACKS:
        judged = code_pack_judgments(benchmark, meta, chunks, at, offset, iou)
        if judged is None:
            report.repair(
                f"item without {benchmark}'s ground truth (metadata.{CODE_PACKS[benchmark]}): "
                "every chunk judged not relevant, as memorybench's pack judges it",
                [where],
            )
            judged = [0] * len(chunks)
        elif benchmark != "repobench-r":  # a rule of files
            _without_file(chunks, report, where)
        rows = [(c.docno, grade) for c, grade in zip(chunks, judged, strict=True)]
    else:
        return None
    total = pack_total(meta)
    found = len({d for d, r in rows if r})
    missing = max(0, total - found) if total is not None else 0
    taken, extra, n = {d for d, _ in rows}, [], 0
    while len(extra) < missing:  # stand-ins for the relevant items not retrieved
        n += 1
        if f"unretrieved-relevant-{n}" not in taken:
            extra.append((f"unretrieved-relevant-{n}", 1))
    # a count of 0 makes memorybench's IDCG 0 (its nDCG 0): no surplus that raises it
    surplus = found - total if total and found > total else 0
    return _Judged("pack", rows + extra, total is None, missing, surplus)


def judge(
    judging: Judging,
    offset: int,
    result: dict,
    meta: dict,
    chunks: list[Chunk],
    at: At,
    report: Report,
    where: dict,
    item_id: str,
) -> _Judged:
    """The judgments of one result (its ``item_id`` as read) by the requested strategy
    (``auto``: the first that applies, in memorybench's priority order); ``offset`` is added
    to its provider's chunk lines, ``where`` names the result in the report's entries."""
    order = STRATEGIES if judging.relevance == AUTO else (judging.relevance,)
    for strategy in order:
        if strategy == "explicit":
            ids = _explicit(meta, at / "metadata", report, where)
            if ids is not None:
                return _Judged("explicit", [(i, 1) for i in ids])
        elif strategy == "pack":
            judged = _pack(
                result.get("benchmark"), item_id, meta, chunks, at / "metadata",
                offset, judging.iou, report, where,
            )  # fmt: skip
            if judged is not None:
                return judged
        elif strategy == "location":
            judged = _location(
                meta.get("groundTruth"), chunks, at / "metadata",
                offset, judging.iou, meta, report, where,
            )  # fmt: skip
            if judged is not None:
                return judged
        elif strategy == "token-f1":
            expected = result.get("expected")
            if isinstance(expected, str) and expected.strip():
                threshold = judging.f1_threshold
                rows = [(c.docno, int(token_f1(expected, c.content) >= threshold)) for c in chunks]
                return _Judged("token-f1", rows, found_only=True)
    return _Judged(NONE, [])
