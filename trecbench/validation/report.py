"""The validator's reports: text like a compiler's (repeats capped, with counts) and JSON."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence

from ..escaping import escape_text
from ..plurals import counted
from .findings import ValidationResult
from .rules import CHECKS, SEVERITIES, rule_sort_key

SHOW = 5  # findings printed per check and file before a note gives the rest


def text_lines(
    result: ValidationResult, show: int = SHOW, checks: Callable[[str], bool] | None = None
) -> list[str]:
    """Findings sorted by line, at most ``show`` per check (0: all that were kept), then a
    note per check with how many were left out: ``FILE: note: 95 more [R12] not shown (100
    in total)``. Capped per check, not per rule: each check has one severity and says one
    thing, and a rule's warnings hid its one error (Q8's comment lines, Q8.comment's on
    the last line), or its one info saying what no other finding does (R20.split's lines,
    R20.unchecked's topics not re-checked whole). ``checks``: which check keys to include
    (default: all)."""
    wanted = checks or (lambda _: True)
    totals = {key: count for key, count in result.check_counts.items() if wanted(key)}
    printed: Counter[str] = Counter()
    lines = []
    for finding in result.findings:
        capped = show and printed[finding.check] >= show
        if not wanted(finding.check) or capped:
            continue
        printed[finding.check] += 1
        lines.append(finding.format())
    for key in sorted(totals, key=lambda key: (rule_sort_key(CHECKS[key].rule), key)):
        if totals[key] > printed[key]:
            lines.append(
                f"{escape_text(result.path)}: note: {totals[key] - printed[key]} more "
                f"[{key}] not shown ({totals[key]} in total)"
            )
    return lines


def summary_line(results: Sequence[ValidationResult]) -> str:
    """``OK: 2 file(s), 7 lines: 0 error(s), 5 warning(s), 1 info`` (``FAILED`` on errors)."""
    totals = {s: sum(r.counts[s] for r in results) for s in SEVERITIES}
    lines = sum(r.counts["lines"] for r in results)
    verdict = "FAILED" if totals["error"] else "OK"
    return (
        f"{verdict}: {len(results)} file(s), {counted(lines, 'line')}: {totals['error']} error(s), "
        f"{totals['warning']} warning(s), {totals['info']} info"
    )


def to_json(
    results: Sequence[ValidationResult], fix: dict | None = None, settings: dict | None = None
) -> str:
    """One object per file (qrels first); ``fix`` (``--fix``'s output and changes) is added
    to the last one, the run; ``settings`` (the profile and options the files were checked
    with) to each, after its ``kind``: the document stays a list, as documented."""
    documents = [r.to_dict() for r in results]
    if settings is not None:
        documents = [
            {"file": d["file"], "kind": d["kind"], "settings": dict(settings), **d}
            for d in documents
        ]
    if fix is not None:
        documents[-1]["fix"] = fix
    return json.dumps(documents, indent=2)
