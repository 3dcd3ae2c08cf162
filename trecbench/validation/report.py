"""The validator's reports: text like a compiler's (repeats capped, with counts) and JSON."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from .findings import ValidationResult
from .rules import SEVERITIES

SHOW = 5  # findings printed per rule and file before a note gives the rest


def text_lines(result: ValidationResult, show: int = SHOW) -> list[str]:
    """Findings sorted by line, at most ``show`` per rule (0: all that were kept), then a
    note per rule with how many were left out: ``FILE: note: 95 more [R12] not shown (100
    in total)``."""
    printed: Counter[str] = Counter()
    lines = []
    for finding in result.findings:
        if show and printed[finding.rule] >= show:
            continue
        printed[finding.rule] += 1
        lines.append(finding.format())
    for rule, total in result.counts["rules"].items():
        if total > printed[rule]:
            lines.append(
                f"{result.path}: note: {total - printed[rule]} more [{rule}] not shown "
                f"({total} in total)"
            )
    return lines


def summary_line(results: Sequence[ValidationResult]) -> str:
    """``OK: 2 file(s), 7 lines: 0 error(s), 5 warning(s), 1 info`` (``FAILED`` on errors)."""
    totals = {s: sum(r.counts[s] for r in results) for s in SEVERITIES}
    lines = sum(r.counts["lines"] for r in results)
    verdict = "FAILED" if totals["error"] else "OK"
    return (
        f"{verdict}: {len(results)} file(s), {lines} lines: {totals['error']} error(s), "
        f"{totals['warning']} warning(s), {totals['info']} info"
    )


def to_json(results: Sequence[ValidationResult], fix: dict | None = None) -> str:
    """One object per file (qrels first); ``fix`` (``--fix``'s output and changes) is added
    to the last one, the run."""
    documents = [r.to_dict() for r in results]
    if fix is not None:
        documents[-1]["fix"] = fix
    return json.dumps(documents, indent=2)
