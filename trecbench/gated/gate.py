"""The validation gate of ``trecbench score``: a TREC text input goes through the
validator's lenient profile (when the validator is installed) before anything is
computed; its errors stop the call (:class:`ValidationFailed`), its warnings are kept."""

from __future__ import annotations

import os

from .. import inputs
from ..errors import InputError, TrecbenchError, path_renamed
from ..inputs import trec_text
from ..inputs.streams import Source, rereadable
from ..inputs.trec_tables import FORGOTTEN_QRELS, FORGOTTEN_RUN


class ValidationFailed(InputError):
    """The validator found errors in an input; ``lines`` holds one line per finding (the
    CLI prints them one per line); ``rules``: theirs (``rule`` too when there is one)."""

    def __init__(self, path: str, messages: list[str], rules: frozenset[str] = frozenset()):
        self.lines = messages
        self.rules = frozenset(rules)
        rule = next(iter(self.rules)) if len(self.rules) == 1 else None
        InputError.__init__(self, path, None, "invalid input", rule)
        self.args = ("\n".join(messages),)

    def __str__(self) -> str:
        return "\n".join(self.lines)

    def moved(self, path: str, line: int | None, message: str | None = None) -> InputError:
        """These findings told of ``path`` (a file opened by another name: a Dask
        worker's absolute path), each line naming it; ``line`` and ``message`` unused (a
        finding has its own)."""
        old = self.path
        lines = [path_renamed(text, old, path) for text in self.lines]
        moved = type(self)(path, lines, self.rules)
        moved.__dict__.update({k: v for k, v in vars(self).items() if k not in vars(moved)})
        return moved


# Checked by evaluate itself with trec_eval's exact scope (duplicates: evaluated topics only,
# within the -M cut, exit 4) or reported as flagged topics (negative grades, no relevant).
_CHECKED_BY_SCORE = frozenset({"R7", "Q5", "Q6", "Q7"})
# What a well-made run is like, not whether it can be read as trec_eval reads it (its Q0
# and rank columns, which trec_eval never reads; score order, ties, run tags, topics in
# blocks): `trecbench validate`'s to say. A regular run is read without the gate, so
# these would be said of irregular runs only: a warning would depend on the reading path.
_VALIDATES_ONLY = frozenset({"R3", "R10", "R11", "R13", "R14", "R15", "R17", "R18", "R20"})
# Said once per file (how many lines), not per line: CRLF ends change no number.
_CRLF = "R24"
# the start of a run looked at when the qrels look like a run (Q11): its first lines
_HEAD_LINES_BYTES = 1 << 16


def _gate(tokens: inputs.trec_text.Tokens, kind: str) -> list[str]:
    """Run the validator's lenient profile: errors stop, warnings are returned as text.

    Repeats are capped as ``trecbench validate`` prints them: a few per check, then how many
    more (CRLF ends, R24, one line per file; a run given as qrels, or the reverse, one line).
    """
    gate = _Gate(tokens.path, kind)
    gate.feed(tokens)
    return gate.finish()


class _Gate:
    """:func:`_gate` over a file that comes in chunks (:class:`~trecbench.inputs.blocks.
    StreamCheck`): ``failed`` once an error was found; :meth:`finish` raises
    :class:`ValidationFailed` with the file's errors or returns its warnings."""

    def __init__(self, path: str, kind: str = "run"):
        self.path = path
        try:
            from ..validation import CHECKS, TokenChecker
        except ImportError:  # the validator is optional for the engine
            self.checker = None
            return
        self.checks = CHECKS
        self.checker = TokenChecker(path, kind, profile="lenient", max_depth=None)

    def _wanted(self, severity: str):
        def wanted(key: str) -> bool:
            check = self.checks[key]
            said_elsewhere = _CHECKED_BY_SCORE | (
                _VALIDATES_ONLY if severity == "warning" else set()
            )
            return check.rule not in said_elsewhere and check.lenient == severity

        return wanted

    @property
    def failed(self) -> bool:
        if self.checker is None:
            return False
        errors = self._wanted("error")
        return any(count and errors(key) for key, count in self.checker.report.checks.items())

    def feed(self, tokens: inputs.trec_text.Tokens) -> None:
        if self.checker is not None:
            self.checker.feed(tokens)

    def finish(self) -> list[str]:
        if self.checker is None:
            return []
        from ..validation import report

        result = self.checker.result()
        failed = self._wanted("error")
        errors = report.text_lines(result, checks=failed)
        if errors:
            rules = {f.rule for f in result.findings if f.severity == "error" and failed(f.check)}
            raise ValidationFailed(self.path, errors, frozenset(rules))
        warned = self._wanted("warning")
        lines = report.text_lines(result, checks=lambda key: key != _CRLF and warned(key))
        return lines + (_crlf_line(result) if warned(_CRLF) else [])


def _crlf_line(result) -> list[str]:
    """R24 as one line of the file (``[]`` without it): a CRLF file has it on every line,
    and what it does to the scores (nothing: the CR is read as a blank) is the same on each."""
    from ..validation import Finding

    crlf = result.check_counts.get(_CRLF, 0)
    if not crlf:
        return []
    lines = result.counts["lines"]
    if lines == 1:
        share = "its only line"
    else:
        share = f"{crlf} of {lines} lines" if crlf < lines else f"all {lines} lines"
    remedy = "; validate --fix normalises them" if result.kind == "run" else ""
    # some lines only: said at the first, as validate says each (1 line of 3M was named
    # by none); every line's is the file's
    found = (f.line for f in result.findings if f.check == _CRLF and f.line)
    at = min(found, default=None) if crlf < lines else None
    first = "" if at is None else ", the first of them here"
    message = f"CRLF line ends on {share}{first} (read as LF; scores unaffected{remedy})"
    field = None if at is None else "line"
    return [Finding(_CRLF, "warning", at, field, message, result.path, _CRLF).format()]


def forgotten_qrels(error: InputError, runs: list) -> InputError | None:
    """What to raise instead of ``error``, of qrels that look like a run (Q11), when the
    first of ``runs`` (a file that can be read again) looks like a run too: swapping the
    arguments, which Q11 asks about, would fail as well; the qrels were left out. None:
    ``error`` stands."""
    first = runs[0] if runs else None
    rules = error.rules if isinstance(error, ValidationFailed) else {error.rule}
    if "Q11" not in rules or not isinstance(first, (str, os.PathLike)):
        return None
    if not rereadable([os.fspath(first)]):  # a pipe's bytes are its reader's
        return None
    try:
        with Source(first) as source:
            head = source.stream().read(_HEAD_LINES_BYTES)
    except (OSError, TrecbenchError):
        return None
    if len(head) == _HEAD_LINES_BYTES:  # whole lines only
        head = head[: head.rfind(b"\n") + 1]
    if trec_text.other_kind(trec_text.tokenize(head, os.fspath(first)), "qrels") != "run":
        return None
    return _reworded(error, "Q11", trec_text.swapped_message("run"), FORGOTTEN_QRELS)


def forgotten_run(error: InputError) -> InputError | None:
    """What to raise instead of ``error``, of a run that looks like qrels (R29) read after
    the qrels were read as qrels: swapping the arguments, which R29 asks about, would fail
    as well; the run was left out. None: ``error`` stands."""
    rules = error.rules if isinstance(error, ValidationFailed) else {error.rule}
    if "R29" not in rules:
        return None
    return _reworded(error, "R29", trec_text.swapped_message("qrels"), FORGOTTEN_RUN)


def _reworded(error: InputError, rule: str, swapped: str, forgotten: str) -> InputError:
    """``error`` with its ``rule``'s finding saying ``forgotten`` where it said ``swapped``."""
    if not isinstance(error, ValidationFailed):  # read without the validator
        return error.moved(error.path, None, forgotten)
    from ..validation import Finding

    def finding(message: str) -> str:
        return Finding(rule, "error", None, None, message, error.path, rule).format()

    said, meant = finding(swapped), finding(forgotten)
    lines = [meant if line == said else line for line in error.lines]
    return ValidationFailed(error.path, lines, error.rules)  # a BOM's R23 too, say
