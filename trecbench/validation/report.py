"""The validator's reports: text like a compiler's (repeats capped, with counts) and JSON."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence

from ..escaping import escape_text
from ..plurals import counted
from .findings import ValidationResult
from .rules import CHECKS, SEVERITIES, rule_sort_key

SHOW = 5  # findings printed per rule and file before a note gives the rest
# printed whatever the cap (counted as printed): said at most once a file, it tells what
# no other finding of its rule does (R20.unchecked: the split topics' R11, R14 and R15
# not re-checked whole), and R20.split's and R20.order's lines come before it
UNCAPPED = frozenset({"R20.unchecked"})


def text_lines(
    result: ValidationResult, show: int = SHOW, checks: Callable[[str], bool] | None = None
) -> list[str]:
    """Findings sorted by line, at most ``show`` per rule (0: all that were kept; a check of
    :data:`UNCAPPED` always), then a note per rule with how many were left out: ``FILE:
    note: 95 more [R12] not shown (100 in total)``. ``checks``: which check keys to include
    (default: all)."""
    wanted = checks or (lambda _: True)
    totals: Counter[str] = Counter()
    for key, count in result.check_counts.items():
        if wanted(key):
            totals[CHECKS[key].rule] += count
    printed: Counter[str] = Counter()
    lines = []
    for finding in result.findings:
        capped = show and printed[finding.rule] >= show and finding.check not in UNCAPPED
        if not wanted(finding.check) or capped:
            continue
        printed[finding.rule] += 1
        lines.append(finding.format())
    for rule in sorted(totals, key=rule_sort_key):
        if totals[rule] > printed[rule]:
            lines.append(
                f"{escape_text(result.path)}: note: {totals[rule] - printed[rule]} more "
                f"[{rule}] not shown "
                f"({totals[rule]} in total)"
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
