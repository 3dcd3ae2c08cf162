"""The validation gate of ``trecbench score``: a TREC text input goes through the
validator's lenient profile (when the validator is installed) before anything is
computed; its errors stop the call (:class:`ValidationFailed`), its warnings are kept."""

from __future__ import annotations

from .. import inputs
from ..errors import InputError


class ValidationFailed(InputError):
    """The validator found errors in an input; ``lines`` holds one line per finding (the
    CLI prints them one per line)."""

    def __init__(self, path: str, messages: list[str]):
        self.lines = messages
        InputError.__init__(self, path, None, "invalid input")
        self.args = ("\n".join(messages),)

    def __str__(self) -> str:
        return "\n".join(self.lines)


# Checked by evaluate itself with trec_eval's exact scope (duplicates: evaluated topics only,
# within the -M cut, exit 4) or reported as flagged topics (negative grades, no relevant).
_CHECKED_BY_SCORE = frozenset({"R7", "Q5", "Q6", "Q7"})
# What a well-made run is like, not whether it can be read as trec_eval reads it (its Q0
# and rank columns, which trec_eval never reads; score order, ties, run tags, topics in
# blocks): `trecbench validate`'s to say. A regular run file is read without the gate,
# so these were said of a run from standard input, a pipe or a compressed file only.
_VALIDATES_ONLY = frozenset({"R3", "R10", "R11", "R13", "R14", "R15", "R17", "R18", "R20"})
# Said once per file (how many lines), not per line: CRLF ends change no number.
_CRLF = "R24"


def _gate(tokens: inputs.trec_text.Tokens, kind: str) -> list[str]:
    """Run the validator's lenient profile: errors stop, warnings are returned as text.

    Repeats are capped as ``trecbench validate`` prints them: a few per rule, then how many
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
        errors = report.text_lines(result, checks=self._wanted("error"))
        if errors:
            raise ValidationFailed(self.path, errors)
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
    message = f"CRLF line ends on {share} (read as LF; scores unaffected{remedy})"
    return [Finding(_CRLF, "warning", None, None, message, result.path, _CRLF).format()]
