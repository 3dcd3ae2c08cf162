"""memorybench's code-retrieval relevance (benchmarks/packs/relevance.ts and
generic-code-retrieval-pack.ts): the location rule (same file, overlapping lines or line
IoU), and the code packs that own the relevance of their benchmark's results: repoeval
(the location rule), repobench-r (a gold snippet's token Jaccard similarity), crosscodeeval
and swebench-lite (the chunk's file among the item's). Used by
:mod:`trecbench.convert.memorybench_rules`."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..ecma_regex import ecma_pattern

if TYPE_CHECKING:
    from ..sources import At

# the benchmarks memorybench has a code pack for; each pack's ground truth in an item's
# metadata (a pack finding none judges every chunk not relevant)
CODE_PACKS = {
    "repoeval": "groundTruth",
    "repobench-r": "goldSnippets",
    "crosscodeeval": "dependencyFiles",
    "swebench-lite": "modifiedFiles",
}
JACCARD_THRESHOLD = 0.7  # the repobench-r pack's DEFAULT_JACCARD_THRESHOLD
# relevance.ts's tokenize: split at JavaScript's \s, then each token without [^\w] (ASCII)
_JS_SPLIT = re.compile(ecma_pattern(r"\s+"))
_JS_NOT_WORD = re.compile(ecma_pattern(r"[^\w]"))


@dataclass
class Chunk:
    """One retrieved item: its docno, content and metadata (for the relevance rules)."""

    docno: str
    content: str | None
    meta: dict
    # what memorybench's rules read: metadata.filepath alone, and the lines (None: either
    # absent, a file-level chunk; a null one 0, as JavaScript compares null)
    file: str | None = None
    lines: tuple[int, int] | None = None


def normalise_path(text: str) -> str:
    """Path for comparison, as relevance.ts's ``normalizePath``: forward slashes, no
    leading ``/``, lower case (a leading ``./`` kept: ``./a.py`` is ``src/a.py``'s suffix
    at no ``/``, ``a.py``'s at one)."""
    return text.replace("\\", "/").lstrip("/").lower()


def same_file(a: str, b: str) -> bool:
    """Equal normalised paths, or one a suffix of the other at a ``/`` boundary
    (relevance.ts's ``pathMatches``)."""
    a, b = normalise_path(a), normalise_path(b)
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def line_relevant(start: int, end: int, gt_start: int, gt_end: int, iou: float) -> bool:
    """Inclusive line ranges: overlap, or IoU ≥ ``iou`` when ``iou`` > 0."""
    inter = min(end, gt_end) - max(start, gt_start) + 1
    if inter <= 0:
        return False
    if iou <= 0:
        return True
    union = (end - start + 1) + (gt_end - gt_start + 1) - inter
    return inter / union >= iou


def located(chunk: Chunk, file: str, span: tuple[int, int], offset: int, iou: float) -> bool:
    """memorybench's ``isLocationRelevant``: the chunk's file (``metadata.filepath``) is
    ``file`` and its lines (``offset`` added) meet ``span`` (:func:`line_relevant`); a
    chunk of the file without lines is relevant (a file-level chunker's), one without a
    file (or an empty one) is not."""
    if not chunk.file or not same_file(chunk.file, file):
        return False
    if chunk.lines is None:
        return True
    start, end = chunk.lines
    return line_relevant(start + offset, end + offset, *span, iou)


def iou_threshold(given: float | None, meta: dict, at: At) -> float:
    """The IoU threshold: ``given`` (``--iou``), else the item's ``iouThreshold``, else 0
    (any overlap)."""
    if given is not None:
        return given
    place = at / "iouThreshold"
    threshold = place.expect_number(meta.get("iouThreshold"))
    if math.isnan(threshold):  # none given
        return 0.0
    if not 0 <= threshold <= 1:  # as --iou: 2 judged an exact match not relevant
        raise place.error(f"an IoU threshold is in [0, 1], not {threshold!r}")
    return threshold


def _tokens(text: str) -> set[str]:
    words = (_JS_NOT_WORD.sub("", word) for word in _JS_SPLIT.split(text.lower()))
    return {word for word in words if word}


def jaccard(a: str, b: str) -> float:
    """relevance.ts's ``jaccardSimilarity`` of two texts' token sets: 1 when both have no
    token, 0 when one has none."""
    one, other = _tokens(a), _tokens(b)
    if not one or not other:
        return float(not one and not other)
    shared = len(one & other)
    return shared / (len(one) + len(other) - shared)


def _strings(value: Any, at: At) -> list[str]:
    """A pack's list of texts (snippets, files); [] when there is none."""
    if value is None:
        return []
    items = at.expect_list(value, "an array of strings")
    return [(at / position).expect_string(item) for position, item in enumerate(items)]


def code_pack_judgments(
    benchmark: str, meta: dict, chunks: list[Chunk], at: At, offset: int, iou: float | None
) -> list[int] | None:
    """Each chunk's relevance (1 or 0) by ``benchmark``'s code pack, from the item's
    ``meta`` (at ``at``); None when the item holds no ground truth for the pack (which
    then judges every chunk not relevant)."""
    key = CODE_PACKS[benchmark]
    if benchmark == "repoeval":
        truth = meta.get(key)
        file = truth.get("file") if isinstance(truth, dict) else None
        if not isinstance(file, str):  # the pack's getGroundTruth: no file, no truth
            return None
        place = at / key
        # the pack's `startLine ?? 1`, `endLine ?? 1`
        span = tuple(
            1 if truth.get(end) is None else (place / end).expect_integer(truth.get(end))
            for end in ("startLine", "endLine")
        )
        if span[1] < span[0]:  # no lines: every chunk, however placed, judged not relevant
            raise (place / "endLine").error(f"endLine {span[1]} is before startLine {span[0]}")
        threshold = iou_threshold(iou, meta, at)
        return [int(located(chunk, file, span, offset, threshold)) for chunk in chunks]
    texts = _strings(meta.get(key), at / key)
    if not texts:
        return None
    if benchmark == "repobench-r":
        return [
            int(any(jaccard(chunk.content or "", s) >= JACCARD_THRESHOLD for s in texts))
            for chunk in chunks
        ]
    return [
        int(bool(chunk.file) and any(same_file(chunk.file, f) for f in texts)) for chunk in chunks
    ]
