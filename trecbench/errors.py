"""Typed errors that the CLI turns into one-line messages and exit codes.

Library code never prints or exits: it raises one of these, carrying the file and the
physical (1-based) line where the problem is, so every front end can say
``file:line: message`` without a traceback.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum, IntEnum

from .invisible import all_shown, shows
from .plurals import few_and_more


class ExitCode(IntEnum):
    """The exit codes of every command (docs/cli-conventions.md; a test keeps both equal).

    trec_eval's where it has one: 1 bad options, 2 unreadable or malformed input, 4
    duplicate documents, 7 no topic in common.
    """

    OK = 0
    USAGE = 1  # bad option, option value, argument or measure name
    INPUT = 2  # an input unreadable, malformed or failing validation; an output refused
    DUPLICATE = 4  # trec_eval's 4: a document twice for a topic, a topic it cannot evaluate
    NO_OVERLAP = 7  # no topic has both results and relevance information
    INTERNAL = 70  # an unexpected error (sysexits' EX_SOFTWARE): a bug, or out of memory
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT); SIGTERM and SIGHUP give 128 + their number
    BROKEN_PIPE = 141  # the reader of stdout went away (128 + SIGPIPE, as C tools report)


class TrecbenchError(Exception):
    """Base class for every error trecbench raises on purpose.

    ``exit_code`` is what the CLI exits with (an :class:`ExitCode`). The CLI prints the
    message as one line, or an error's ``lines`` (a list of messages) one per line.
    """

    exit_code = ExitCode.USAGE

    def __reduce__(self):
        # errors cross process boundaries (runs scored in worker processes): rebuilt from
        # their message and attributes, whatever their constructor takes
        return _rebuilt, (type(self), self.args, self.__dict__)


def _rebuilt(kind: type, args: tuple, state: dict) -> TrecbenchError:
    error = kind.__new__(kind)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class _Alone(Enum):
    """A setting named without its value (an Enum: pickled as itself, across processes)."""

    KEYWORD = "keyword alone"


@dataclass(frozen=True)
class Setting:
    """A keyword argument a message names: the library says ``relevance_level=0`` (or
    ``strata`` without a value), a command line its flag, ``-l 0`` (``--strata``; a switch
    given True, ``judged_only=True``, its flag alone: ``-J``)."""

    keyword: str
    value: object = _Alone.KEYWORD
    # the command line quotes the value too (``--fix-tag 'a b'``): text that a blank, or
    # nothing, would make unreadable unquoted
    quoted: bool = False

    def said(self, flags: Mapping[str, str]) -> str:
        """In a command line's words where ``flags`` (keyword -> flag) has the keyword,
        else in the library's."""
        # an item of a list (tags[1]) is said as the option given once per item (--tag)
        flag = flags.get(self.keyword, flags.get(self.keyword.partition("[")[0]))
        if self.value is _Alone.KEYWORD:
            return flag or self.keyword
        if flag is None:
            return f"{self.keyword}={excerpt(self.value)}"
        if self.value is True:  # a switch (judged_only=True): its flag alone, -J
            return flag
        shown = option_excerpt(self.value) if self.quoted else excerpt_plain(str(self.value))
        return f"{flag} {shown}"


def _worded(parts: tuple, flags: Mapping[str, str]) -> str:
    """``parts`` (text, :class:`Setting` and :class:`SettingsText`) as one text, each
    setting said as ``flags`` (keyword -> flag) has it."""
    return "".join(
        part.worded(flags) if isinstance(part, SettingsText)
        else part if isinstance(part, str) else part.said(flags)
        for part in parts
    )  # fmt: skip


class SettingsText(str):
    """Text naming settings (a warning's: ``held in memory whole for compat='10.0'``): as
    a ``str``, the library's keywords; :meth:`worded`, a command line's flags (``--compat
    10.0``). Kept, compared and deduplicated as the text it is."""

    parts: tuple

    def __new__(cls, *parts: str | Setting):
        text = super().__new__(cls, _worded(parts, {}))
        text.parts = parts
        return text

    def __reduce__(self):  # across processes (a warning of a run scored in a worker)
        return SettingsText, self.parts

    def worded(self, flags: Mapping[str, str]) -> str:
        """The text, each setting it names said as ``flags`` (keyword -> flag) has it."""
        return _worded(self.parts, flags)


class SaysSettings(TrecbenchError):
    """An error whose message is text and the :class:`Setting` objects it names
    (``UsageError(Setting("max_docs"), " must be at least 1")``): ``str()`` says them as
    the library's keywords, :meth:`worded` as a command line's flags."""

    def __init__(self, *parts: str | Setting):
        self.parts = parts
        super().__init__(self.worded({}))

    def worded(self, flags: Mapping[str, str]) -> str:
        """The message, each setting it names said as ``flags`` (keyword -> flag) has it."""
        return _worded(self.parts, flags)


class UsageError(SaysSettings):
    """Bad options or measure names (trec_eval exits 1 for these); its message may name
    settings (:class:`SaysSettings`)."""

    exit_code = ExitCode.USAGE


# a compressed stream broken off (cut short, corrupt); its line-based readers add the line
# they read (:meth:`InputError.broken_off_after`)
BROKEN_OFF = "corrupt or truncated"


class InputError(TrecbenchError):
    """An input file cannot be read or is malformed at a given line.

    ``rule``: the validator's rule it breaks, if any, or the check of it that does
    (``R27.long``: :meth:`cli_line` says the rule); ``finding``: ``validate`` reports it
    as a finding of that rule (a truncated gzip stream, R27; a malformed ir_metadata
    block, R30), so the CLI says it as validate and score's gate say their errors
    (:meth:`cli_line`)."""

    exit_code = ExitCode.INPUT
    # what the command line adds to the message (:meth:`cli_line`), for its user alone:
    # what trec_eval does, by its exit code, which a library caller has no use for
    cli_aside = ""
    # why the file cannot be read (the system's words), set on a reader's ``cannot read``
    # (:meth:`unreadable`; a qrels name that is no file nor dataset); None on any other
    reason: str | None = None

    def __init__(
        self,
        path: str,
        line: int | None,
        message: str,
        rule: str | None = None,
        *,
        finding: bool = False,
    ):
        self.path = str(path)
        self.line = line
        self.message = message
        self.rule = rule
        self.finding = finding
        where = f"{self.shown_path}:{line}" if line is not None else self.shown_path
        # one line, as the command line prints it: a path or an id quoted in the message
        # (qrels text given for a path, a DataFrame's id "q\n1") held line breaks and
        # terminal escapes that a Python caller's log or traceback showed raw
        super().__init__(one_line(f"{where}: {message}"))

    @property
    def shown_path(self) -> str:
        """The path as messages name it: an empty one as ``''`` (not nothing before ``:``)."""
        return self.path or "''"

    @classmethod
    def unreadable(cls, path: str | os.PathLike, reason: str | OSError) -> InputError:
        """``FILE: cannot read: REASON``: the file itself cannot be read (not its content;
        ``reason`` is the system's words, an :class:`OSError`'s own), kept as ``reason``
        for a caller that names the file otherwise (benchmark by its config key)."""
        if isinstance(reason, OSError):
            reason = reason.strerror or str(reason)
        if not os.fspath(path):  # open("") fails as a missing file would
            reason = "an empty file name; give the file's path"
        error = cls(os.fspath(path), None, f"cannot read: {reason}")
        error.reason = reason
        return error

    def unreadable_reason(self, path: str | os.PathLike) -> str | None:
        """Why ``path`` cannot be read (the system's words) when this error is its reader's
        ``cannot read`` (of the file, at no line: not of its content; :meth:`unreadable`,
        or a qrels name that is no file nor dataset); None otherwise."""
        if self.line is not None or self.path != os.fspath(path):
            return None
        if isinstance(self.__cause__, OSError) and self.__cause__.strerror:
            return self.__cause__.strerror  # the ontology's reader says Python's whole error
        return self.reason

    def cli_line(self) -> str:
        """The error as the CLI prints it: ``file:line: message``, or for a ``finding``
        ``file:line: error[RULE]: message``, as docs/score.md promises of a refused input."""
        if not self.finding:
            return str(self) + self.cli_aside
        where = f"{self.shown_path}:{self.line}" if self.line is not None else self.shown_path
        # the rule, as validate labels its finding: a check's id (R27.long) is its rule's
        rule = (self.rule or "").partition(".")[0]
        return f"{where}: error[{rule}]: {self.message}{self.cli_aside}"

    def broken_off_after(self, lines: int) -> InputError:
        """This error, of a compressed stream broken off (R27, at no line) after ``lines``
        whole lines were read, told with them: ``... (after line 76, the last whole line
        read)``, in validate's and score's words alike; any other error as it is."""
        if self.line is not None or not lines or not self.message.startswith(BROKEN_OFF):
            return self
        return self.moved(
            self.path, None, f"{self.message} (after line {lines}, the last whole line read)"
        )

    def moved(self, path: str, line: int | None, message: str | None = None) -> InputError:
        """This error, of its kind, told of another place (``path``, ``line``: a run held
        in memory by its name, a shard's own line) and, when given, in other words; what
        it carries besides (the runs scored before it: ``partial``) kept. For the kinds
        built as this one is (not a validation's several findings)."""
        text = self.message if message is None else message
        moved = type(self)(path, line, text, self.rule, finding=self.finding)
        moved.__dict__.update({k: v for k, v in vars(self).items() if k not in vars(moved)})
        return moved


def path_renamed(text: str, old: str, new: str) -> str:
    """A message about the file ``old`` (its first words) told of ``new`` instead (a Dask
    worker's absolute path said as the user gave it)."""
    return new + text[len(old) :] if text.startswith(old) else text


class DuplicateError(InputError):
    """The same document twice for one topic (trec_eval: ``duplicate docs``, exit 4)."""

    exit_code = ExitCode.DUPLICATE


class UnevaluableTopicError(InputError):
    """A topic trec_eval 9.0.8 cannot evaluate: every judgment negative (exit 4 or a crash);
    also a measure the judgments cannot give (ERR@k on a grade above 4, a C/W/L measure's
    min_rel not below the qrels' largest grade, a provider's value that is no number or
    a provider that cannot compute it: accuracy's 0/0)."""

    exit_code = ExitCode.DUPLICATE


class NoOverlapError(TrecbenchError):
    """No topic has both results and relevance information (trec_eval exit 7)."""

    exit_code = ExitCode.NO_OVERLAP


class OutputError(TrecbenchError):
    """An output cannot be written (e.g. it would overwrite an input)."""

    exit_code = ExitCode.INPUT


class MissingTopicError(TrecbenchError):
    """trec_eval 10.0 without ``-c``: a qrels topic is missing from the run (it stops with
    exit 4, after printing the topics before it)."""

    exit_code = ExitCode.DUPLICATE


class WorkerError(SaysSettings):
    """A worker process died (killed, most often by the system for want of memory): the
    exit code of running out of memory in this process, without "Please report it". Its
    message may name settings (:class:`SaysSettings`: the Dask cluster's address)."""

    exit_code = ExitCode.INTERNAL


class MissingExtraError(UsageError):
    """A feature needs an optional package that is not installed (``trecbench.extras``)."""


# what every reader says of a file with nothing in it (the validator's R26, a run, a
# qrels, a configuration): one wording
EMPTY_FILE = "empty file"
# what the validator says of a run whose lines hold no data (R9: blank lines alone, an
# ir_metadata block alone), and a Dask run of a shard so
NO_DATA_LINES = "no data lines"
EXCERPT_LIMIT = 80  # characters of an offending value an error message quotes


def excerpt(value: object, limit: int = EXCERPT_LIMIT) -> str:
    """``repr(value)`` cut to ``limit`` characters for an error message, saying how long it
    was: a message quotes what is wrong, never a whole hostile value (a 25 MB list). An
    int longer than Python writes (4,300 digits: ``repr`` raises) in scientific form."""
    if isinstance(value, (str, bytes)) and len(repr(value)) > limit:
        return _cut_text(value, limit)
    try:
        return shortened(repr(value), limit)
    except ValueError:  # an int past the digits Python writes, maybe inside a container
        if not isinstance(value, int):
            return f"<a {type(value).__name__} holding an integer too long to write>"
        return int_text(value)


# repr's escape of a lone surrogate: after an even number of backslashes (a backslash of
# the text itself is doubled by repr), so that a written "\\udcff" is left as it is
_SURROGATE_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\udc([89a-f][0-9a-f])")


def option_excerpt(value: object) -> str:
    """:func:`excerpt` of a command line's value, a byte of it that is not UTF-8 (a lone
    surrogate, as ``os.fsdecode`` holds it) written as that byte, ``\\xff``, as
    :func:`one_line` writes it in a file's name (``repr`` wrote ``\\udcff``). Not for a
    value given in Python, whose lone surrogate is one (a message may say so)."""
    return bytes_escaped(excerpt(value))


def bytes_escaped(text: str) -> str:
    """``text`` quoting a command line's values by ``repr`` (click's messages do), each
    escaped lone surrogate written as its byte: ``'\\udcff'`` as ``'\\xff'``."""
    return _SURROGATE_ESCAPE.sub(r"\1\\x\2", text) if "\\udc" in text else text


def _cut_text(value: str | bytes, limit: int) -> str:
    """``repr(value)`` cut around ``…(N characters)…``, N the value's own characters (or
    bytes), not its repr's quotes and escapes; the tail quoted as the head is."""
    half = limit // 2
    head, tail = repr(value[:half]), repr(value[-half:])
    quote, tail_quote = head[-1], tail[-1]
    body = tail[tail.index(tail_quote) + 1 : -1]
    if tail_quote != quote:  # repr chose the other quote for the tail: escape the head's
        body = body.replace(quote, "\\" + quote)
    unit = "characters" if isinstance(value, str) else "bytes"
    return f"{head[:-1]}…({len(value):,} {unit})…{body}{quote}"


def json_excerpt(value: object, limit: int = EXCERPT_LIMIT) -> str:
    """``value`` as JSON writes it, cut as :func:`excerpt` cuts a value: how a message
    quotes a value of a configuration or JSON document, in the spelling it was written
    in (``true``, ``null``, ``"False"``, ``"b\\u0000.run"``, not Python's ``True``,
    ``None``, ``'False'``, ``'b\\x00.run'``). What JSON cannot hold (a YAML date inside a
    list) as its text."""
    import json

    def text(part: object) -> str:
        return json.dumps(part, ensure_ascii=False, default=str)

    if isinstance(value, str) and len(value) > limit:  # quoted at both ends
        half = limit // 2
        head, tail = text(value[:half]), text(value[-half:])
        return f"{head[:-1]}…({len(value):,} characters)…{tail[1:]}"
    return shortened(text(value), limit)


def int_text(value: int) -> str:
    """An int's decimal text; past the digits Python writes (``sys.int_info``'s limit,
    4,300: ``str(10**5000)`` raises ValueError), its scientific form (``1.000000E+5000``)."""
    try:
        return str(value)
    except ValueError:
        from decimal import Decimal

        return f"{Decimal(value):.6E}"


def one_line(text: str) -> str:
    """``text`` with line breaks, tabs, other control characters and the characters that
    draw nothing (:mod:`trecbench.invisible`: ``g`` and ``g`` + U+034F read as one)
    escaped (``\\n``, ``\\u034f``): what a message of the CLI quotes (a file name, an id)
    never starts another line, nor reads as another."""
    if all_shown(text):
        return text
    return "".join(c if shows(c) else _escaped(c) for c in text)


def _escaped(character: str) -> str:
    """A character :func:`one_line` escapes: a byte of a name that is not UTF-8 (held as a
    lone surrogate, as ``os.fsdecode`` gives it) as that byte, ``\\xff``; any other as
    Python writes it (``\\n``, ``\\u2028``)."""
    if 0xDC80 <= ord(character) <= 0xDCFF:
        return f"\\x{ord(character) - 0xDC00:02x}"
    return character.encode("unicode_escape").decode()


def some_topics(qids) -> str:
    """A few of ``qids``, the first in trec_eval's order (byte-wise), and how many more, as
    a refusal of inputs without a topic in common quotes each side's: a run read in another
    shape than meant (a dict of runs, columns swapped) shows itself."""
    return few_and_more(sorted(qids, key=str.encode), 3, excerpt)


def excerpt_plain(text: str) -> str:
    """``text`` as a message quotes a field unquoted: whole when short, else cut as
    :func:`shortened` cuts it, to :data:`EXCERPT_LIMIT` characters."""
    return shortened(text, EXCERPT_LIMIT)


def shortened(text: str, limit: int = EXCERPT_LIMIT * 4) -> str:
    """``text`` whole when short, else its head and tail around ``…(N characters)…``: the
    one place an error message's length is capped (messages built by other libraries, such
    as jsonschema's, quote the whole offending value)."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}…({len(text):,} characters)…{text[-half:]}"


class ParameterDomainError(UsageError):
    """A measure parameter (a cutoff, ``p``, ``beta``, a gain, ...) outside the domain
    where the measure has a meaning (docs/cli-conventions.md, "Parameter domains")."""


class UndefinedValueError(UsageError):
    """A measure's value that is no number (NaN: ``-J`` leaving nothing judged in the cut;
    or infinite) on a topic a run has results for, which compare, power and agree take for
    no number: a measure the inputs cannot give (exit 4, as a provider's value that is no
    number). A :class:`UsageError` still, for the Python callers that caught it so."""

    exit_code = ExitCode.DUPLICATE


def not_finite(run: str, measure: str, qid: str, value: float) -> UndefinedValueError:
    """The refusal of a run's per-topic value that is undefined (NaN) or infinite: compare,
    power, agree and group_means take no such value for a number (nor fill it as an absent
    topic)."""
    shown = "undefined" if math.isnan(value) else value
    return UndefinedValueError(f"run {run!r}: {measure} is {shown} for {qid!r}")


class TrecEvalUndefinedWarning(UserWarning):
    """A value trec_eval computes from memory it never wrote (undefined behaviour in its
    C code): trecbench's value is a defined one, and the CLI says so in one line."""


class InputWarning(UserWarning):
    """An input read as given whose reading its writer may not expect (a run dict's topic
    without documents: pytrec_eval scores it 0, trec_eval has no such topic)."""


class PerTopicWarning(UserWarning):
    """A measure asked that a view of the result leaves out, named with where it is: one
    with no value per topic (``gm_map``, ``num_q``: summaries over topics, as trec_eval -q
    prints them only under ``all``) from a per-topic view; ``runid`` (the run's tag, each
    run's ``runid``) from every view; ``relstring`` (text) from the frames of numbers."""


class EngineWarning(UserWarning):
    """Measures the engine asked for (``--engine fast``, ``engine="pytrec_eval"``) does not
    compute, named with the engine that computes them instead: the values are the same
    measures', but not that engine's."""


class ProviderWarning(UserWarning):
    """What one of ir_measures' providers says of a measure's inputs (pyndeval: qrels
    without subtopics), in one line naming the measures."""


class ParameterDomainWarning(UserWarning):
    """A trec_eval spelling with a parameter outside the measure's meaning (``rbp.p=1.5``):
    trecbench computes what trec_eval computes and says so (the CLI prints it as one
    line)."""


class FirstParametersWarning(UserWarning):
    """A trec_eval spelling whose parameters trec_eval's ``-m`` rule replaced (``-m P.10``
    after ``-m P.5``: not computed): ``trecbench score`` computes what trec_eval computes
    and says so in one line (:mod:`trecbench.measures.first_parameters`). Its text is a
    script's, in ``measures`` names (``'P.5,10' given first``); ``cli_line``, which the
    command line prints, the same in ``-m`` options."""

    def __init__(self, message: str, cli_line: str | None = None):
        super().__init__(message)
        self.cli_line = message if cli_line is None else cli_line


class TooManySamplesError(UsageError):
    """More resamples than this machine's memory holds at once (their ``samples x
    columns`` array): refused before it is allocated (:mod:`trecbench.resampling`)."""


class TooFewSamplesError(UsageError):
    """Fewer resamples than a statistic needs at its level (a percentile interval whose
    tails hold no resample, a resampled p-value that cannot fall below alpha): refused,
    never printed as a result (:mod:`trecbench.resampling_bounds`)."""
