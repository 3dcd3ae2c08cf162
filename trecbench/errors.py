"""Typed errors that the CLI turns into one-line messages and exit codes.

Library code never prints or exits: it raises one of these, carrying the file and the
physical (1-based) line where the problem is, so every front end can say
``file:line: message`` without a traceback.
"""

from __future__ import annotations


class TrecbenchError(Exception):
    """Base class for every error trecbench raises on purpose.

    ``exit_code`` is what the CLI exits with; subclasses pick trec_eval's codes where
    trec_eval has one (2 unreadable/malformed input, 4 duplicates, 7 no overlap).
    """

    exit_code = 1


class UsageError(TrecbenchError):
    """Bad options or measure names (trec_eval exits 1 for these)."""

    exit_code = 1


class InputError(TrecbenchError):
    """An input file cannot be read or is malformed at a given line."""

    exit_code = 2

    def __init__(self, path: str, line: int | None, message: str, rule: str | None = None):
        self.path = str(path)
        self.line = line
        self.message = message
        self.rule = rule
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class DuplicateError(InputError):
    """The same document twice for one topic (trec_eval: ``duplicate docs``, exit 4)."""

    exit_code = 4


class UnevaluableTopicError(InputError):
    """A topic trec_eval 9.0.8 cannot evaluate: every judgment negative (exit 4 or a crash)."""

    exit_code = 4


class NoOverlapError(TrecbenchError):
    """No topic has both results and relevance information (trec_eval exit 7)."""

    exit_code = 7


class OutputError(TrecbenchError):
    """An output cannot be written (e.g. it would overwrite an input)."""

    exit_code = 2


class MissingTopicError(TrecbenchError):
    """trec_eval 10.0 without ``-c``: a qrels topic is missing from the run (it stops with
    exit 4, after printing the topics before it)."""

    exit_code = 4


class MissingExtraError(UsageError):
    """A feature needs an optional package that is not installed (``trecbench.extras``)."""
