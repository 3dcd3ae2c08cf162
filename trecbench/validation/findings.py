"""Findings and their collection: what a check reports, kept up to a limit, always counted;
the result of validating a file."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..escaping import escape_text
from ..invalid_utf8 import shown_message
from .rules import CHECKS, PROFILES, RULE_ORDER, SEVERITIES, rule_sort_key

if TYPE_CHECKING:  # the small path (.small) collects findings without numpy or Arrow
    import numpy as np
    import pyarrow as pa

DEFAULT_LIMIT = 1000  # findings kept per check and file; totals are always counted


@dataclass(frozen=True)
class Finding:
    """One problem: rule id, severity, physical line (None: whole file), field, message."""

    rule: str
    severity: str
    line: int | None
    field: str | None
    message: str
    path: str = ""
    check: str = ""

    def format(self) -> str:
        """``FILE:LINE:FIELD: severity[RULE]: message`` (``FILE: ...`` for whole-file ones),
        one line: the file's path and the message escaped as every output escapes a text
        read from an input (:func:`~trecbench.escaping.escape_text`: ``%``, line
        breaks, other controls and blanks but the space as ``%XX``), so that the ids a
        message quotes print reversibly and never as other ids or lines do. A message's
        own words hold no ``%`` (X4 says ``percent``): :func:`urllib.parse.unquote` gives
        the message back as it is, as JSON holds it."""
        path = escape_text(self.path)
        where = path if self.line is None else f"{path}:{self.line}:{self.field or '-'}"
        return f"{where}: {self.severity}[{self.rule}]: {escape_text(self.message)}"

    def to_dict(self) -> dict:
        """The finding as JSON holds it; ``check``: which of its rule's checks found it
        (``R25.trailing``; the rule id for a rule of one check), the unit findings are
        listed up to the limit by."""
        return {
            "rule": self.rule,
            "check": self.check or self.rule,
            "severity": self.severity,
            "line": self.line,
            "field": self.field,
            "message": self.message,
        }


@dataclass
class QrelsInfo:
    """What run checks need from qrels: topics, relevant topics, judged (qid, docno) pairs
    (a qrels file's :attr:`ValidationResult.qrels_info`, or
    :func:`~trecbench.validation.qrels_info` of a typed table)."""

    topics: set[str]
    judged: pa.Array | None = None  # "qid\tdocno" of non-negative judgments
    # topics whose every grade is negative -> their largest grade
    negative_only: dict[str, int] = field(default_factory=dict)
    # False when the qrels file broke off (R27): a topic may be in the part never read
    complete: bool = True
    # the check of a line or file trec_eval stops reading the qrels at (Q1, Q2, R9.empty,
    # R26), if any: it evaluates nothing against them, so no run is checked against them
    unread_at: str | None = None


def may_judge(qrels: QrelsInfo | None, topic: str) -> bool:
    """Whether ``topic`` may be judged: no qrels given, qrels cut short (R27: it may be in
    the part never read), or qrels that hold it; trec_eval evaluates no other topic."""
    return qrels is None or not qrels.complete or topic in qrels.topics


def _order(item: tuple[str, int]) -> int:
    """A check's count in the registry's order of the checks (R7 before R25)."""
    return RULE_ORDER[item[0]]


@dataclass
class ValidationResult:
    """Findings of one file (at most ``limit`` kept per check) and their full counts.

    ``counts``: totals per severity and per rule id, physical ``lines``, data ``records``
    and ``topics``; ``check_counts``: totals per check (``R1.short``...).
    """

    path: str
    kind: str
    findings: list[Finding]
    counts: dict
    qrels_info: QrelsInfo | None = None
    check_counts: dict[str, int] = field(default_factory=dict)

    @property
    def errors(self) -> int:
        return self.counts["error"]

    @property
    def ok(self) -> bool:
        return self.counts["error"] == 0

    def to_dict(self) -> dict:
        return {
            "file": self.path,
            "kind": self.kind,
            "findings": [f.to_dict() for f in self.findings],
            "counts": self.all_counts,
        }

    @property
    def all_counts(self) -> dict:
        """:attr:`counts` with each check's count (``checks``), as JSON reports them."""
        return self.counts | {"checks": dict(sorted(self.check_counts.items(), key=_order))}


class Collector:
    """Findings of one file under one profile: at most ``limit`` kept per check, all counted."""

    def __init__(self, path: str, profile: str, limit: int):
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
        self.path, self.profile, self.limit = path, profile, limit
        self.kept: dict[str, list[Finding]] = {}
        self.checks: Counter[str] = Counter()
        self.rules: Counter[str] = Counter()
        self.severities: Counter[str] = Counter()
        # findings kept apart (:meth:`apart`) until released or discarded
        self.held: Collector | None = None
        self.holding = False

    @contextmanager
    def apart(self, hold: bool = True) -> Iterator[None]:
        """Within, with ``hold``, what is added is kept apart, until :meth:`release` adds
        it (as if added then) or :meth:`discard` drops it: the findings of lines that a
        whole-file finding may stand for, until the rest of the file says whether it does."""
        if not hold:
            yield
            return
        if self.held is None:
            self.held = Collector(self.path, self.profile, self.limit)
        self.holding = True
        try:
            yield
        finally:
            self.holding = False

    def release(self) -> None:
        """Add what was kept apart (kept up to the limit, all counted)."""
        held, self.held = self.held, None
        if held is None:
            return
        for key, found in held.kept.items():
            kept = self.kept.setdefault(key, [])
            kept.extend(found[: self.limit - len(kept)])
        self.checks.update(held.checks)
        self.rules.update(held.rules)
        self.severities.update(held.severities)

    def discard(self) -> None:
        """Drop what was kept apart."""
        self.held = None

    def retract(self, key: str) -> None:
        """Take back the last finding of check ``key`` (a whole-file finding a later line
        proved wrong)."""
        check = CHECKS[key]
        for counter, name in (
            (self.checks, key),
            (self.rules, check.rule),
            (self.severities, check.severity(self.profile)),
        ):
            counter[name] -= 1
            if not counter[name]:
                del counter[name]
        kept = self.kept.get(key, [])
        if len(kept) > self.checks[key]:  # it was kept (under the limit): the last kept
            kept.pop()

    def add(self, key: str, line: int | None, fld: str | None, message: str, count: int = 1):
        self.add_many(key, [line], fld, lambda _: message, count)

    def add_many(
        self,
        key: str,
        lines: Sequence[int | None] | np.ndarray,
        fld: str | None | Callable[[int], str | None],
        message: Callable[[int], str],
        count: int | None = None,
    ) -> None:
        """Record ``count`` (default ``len(lines)``) findings; build messages for kept ones."""
        total = len(lines) if count is None else count
        if total == 0:
            return
        if self.holding:
            self.held.add_many(key, lines, fld, message, count)
            return
        check = CHECKS[key]
        severity = check.severity(self.profile)
        self.checks[key] += total
        self.rules[check.rule] += total
        self.severities[severity] += total
        kept = self.kept.setdefault(key, [])
        for i in range(min(len(lines), self.limit - len(kept))):
            line = None if lines[i] is None else int(lines[i])
            name = fld(i) if callable(fld) else fld
            said = shown_message(message(i))  # an id's bytes that are not UTF-8 as \xNN
            kept.append(Finding(check.rule, severity, line, name, said, self.path, key))

    def findings(self) -> list[Finding]:
        found = [f for kept in self.kept.values() for f in kept]
        found.sort(key=lambda f: (f.line or 0, RULE_ORDER[f.check]))
        return found

    def counts(self, **extra) -> dict:
        return {
            **{s: self.severities[s] for s in SEVERITIES},
            "rules": dict(sorted(self.rules.items(), key=lambda kv: rule_sort_key(kv[0]))),
            **extra,
        }
