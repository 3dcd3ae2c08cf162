"""Names and ids as converters write them: run tags, output file names, and ids escaped
(reversibly) so that TREC files can hold them."""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Hashable, Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..compressions import without_suffixes
from ..errors import InputError, Setting, UsageError
from ..ids import STR, escape_series
from ..inputs import trec_text
from ..naming import descriptor
from ..sources import At
from ..trec_eval.clib import LONG_MAX
from ..type_names import python_type
from .model import Findings

_TAG_OK = re.compile(r"[^A-Za-z0-9_.-]+")


def clean_tag(text: str) -> str:
    """A run tag trec_eval and the validator accept (R18: ``[A-Za-z0-9_.-]``, at most 25
    chars) made from ``text``: other characters (non-ASCII letters too) become ``_``, then
    leading ``.`` and ``_`` and trailing ``_`` are dropped, so that ``<tag>.run`` is never a
    hidden file (``../x`` gives ``x``); ``run`` when nothing is left."""
    tag = _TAG_OK.sub("_", text).lstrip("._").rstrip("_")[:25]
    return tag or "run"


def given_tag(tag: str, position: int | None = None) -> str:
    """The run tag the user gave (``--tag``), used as it is: one that trec_eval or the
    validator would not take as it is is refused, never changed: an empty one, one beyond
    25 characters or of other characters than ``A-Z a-z 0-9 _ . -``, ``.`` or ``..``.
    ``position``: its index in a list of tags, which names the one refused."""
    keyword = "tag" if position is None else f"tags[{position}]"
    _refuse_no_text(tag, keyword)
    if not tag or len(tag) > 25 or _TAG_OK.search(tag) or tag in (".", ".."):
        raise UsageError(
            Setting(keyword, tag, quoted=True),
            " is not a run tag: 1 to 25 of A-Z a-z 0-9 _ . - (not . or ..)",
        )
    return tag


def run_naming(tag: str | None, default: str | None, report: Findings) -> tuple[str, str]:
    """``(file name, tag)`` of a run read from a file: the ``tag`` given (``--tag``,
    :func:`given_tag`) names both; without one, the file takes ``default`` (its input's
    :func:`default_name`, as the qrels and the sidecar do: a file name keeps its blanks and
    its length) and the tag :func:`clean_tag` of it (a tag is one token of at most 25
    characters), a tag unlike the name reported (``from``, ``to``)."""
    if tag is not None:
        return given_tag(tag), tag
    tag = clean_tag(default)
    _say_tag(default, tag, "run file's", report)
    return default, tag


def single_input_names(
    path: str | os.PathLike, name: str | None, tag: str | None, report: Findings
) -> tuple[str, str, str]:
    """``(conversion name, run file name, run tag)`` of a conversion whose one input names
    both its outputs and its run: ``--name`` and ``--tag`` where given, else the input's
    :func:`default_name` (worked out, and its change reported, only if it names
    something)."""
    name = given_name(name)
    own = (
        default_name(path, report, missing_options(name=name is None, tag=tag is None))
        if name is None or tag is None
        else None
    )
    return (own if name is None else name, *run_naming(tag, own, report))


def _say_tag(name: str, tag: str, what: str, report: Findings) -> None:
    """Report a run tag that is not the ``name`` it was made from (``what``: whose name)."""
    if tag != name:
        report.repair(
            f"{what} name changed into its run tag (1 to 25 of A-Z a-z 0-9 _ . -, "
            "not starting with . or _)",
            [{"from": name, "to": tag}],
        )


def unique_tag(name: str, owners: dict[str, str], at: At, what: str, report: Findings) -> str:
    """``clean_tag(name)`` for a new ``name`` (``what``: a provider, a chunker), refused when
    an earlier name has the same tag: its qrels and run would silently replace the first's.
    A tag that differs from its name is reported (``from``, ``to``): the sidecar's
    provenance stays keyed by the name, its runs by the tag.

    Tags that differ only in case are refused too: their files (``x.run``, ``X.run``) are
    one file on a case-insensitive file system (macOS's, Windows'), where the second
    would replace the first.

    ``owners`` maps each tag given so far, in lower case, to its name, as the error names
    it (filled here); ``at`` is where ``name`` was read.
    """
    tag = clean_tag(name)
    first = owners.get(tag.lower())
    if first is not None and first[1] == tag:
        raise at.error(
            f"{first[0]} and {what} {name!r} would both be written as {tag!r} (a run tag "
            "keeps at most 25 of A-Z a-z 0-9 _ . -): rename one"
        )
    if first is not None:
        raise at.error(
            f"{first[0]} and {what} {name!r} would be written as {first[1]!r} and {tag!r}: "
            "one file where case is not told apart (macOS, Windows): rename one"
        )
    owners[tag.lower()] = (f"{what} {name!r}", tag)
    _say_tag(name, tag, what, report)
    return tag


def refuse_repeat(first: dict, key: Hashable, record: At, field: str | None, what: str) -> None:
    """Refuse the second record of an id that must be unique (a query's, a case's), naming
    where the first was read: two records of one id would be merged into one query.

    ``first`` maps each key read so far to the place of its record (filled here: the path
    in a JSON document, the row of a table, the line of a JSON-lines record); ``record`` is
    where this one was read, ``field`` the key that holds the id (None: the record is the
    id); ``what`` names the id in the error, after its field (``'7'``, ``'r/1' of chunker
    'ast'``).
    """
    if key in first:
        place = record if field is None else record / field
        raise place.error(f"{what} is used twice (first at {first[key]})")
    first[key] = record.place or f"line {record.line}"


def input_stem(path: str | os.PathLike) -> str:
    """An input path's stem, which names its outputs (:func:`output_name`): its file name
    without its compression suffixes and extension, as written (``..tsv``: ``.``;
    ``...json``: ``..``); ``stdin`` for standard input's ``-`` (``-.run`` reads as an
    option to every command) and for a descriptor's name (``<(zcat run.tsv.gz)`` is
    ``/dev/fd/63``; ``/proc/self/fd/3``), whose number names nothing."""
    if os.fspath(path) == "-" or descriptor(path):
        return "stdin"
    return Path(without_suffixes(Path(path).name)).stem


def missing_options(**missing: bool) -> str:
    """The options a default name stands for (``name=True, tag=False``: ``--name``), for
    :func:`output_name`'s refusal to suggest."""
    return " and ".join(f"--{option}" for option, needed in missing.items() if needed)


def default_name(path: str | os.PathLike, report: Findings, instead: str = "--name") -> str:
    """The name of a conversion's outputs made from its input ``path`` when no ``--name``
    (qrels and sidecar) or ``--tag`` (a run's file) is given: :func:`output_name` of its
    :func:`input_stem` (``instead``: the options it stands for)."""
    return output_name(input_stem(path), report, path, instead)


def output_name(
    stem: str, report: Findings, path: str | os.PathLike, instead: str = "--name"
) -> str:
    """The one rule for a default output name made from an input's ``stem``: the stem as
    the user wrote it (a file name may hold blanks and be long), without leading dots, as
    a default tag drops them (:func:`clean_tag`), so that ``.x.json`` writes ``x.qrels``,
    ``x.sidecar.json`` and ``x.run``, no hidden file; ``input`` when nothing is left
    (``...json``, ``..tsv``: ``.``, ``..``, no file name). A stem changed either way is
    reported (``from``, ``to``), as a chunker's changed tag is. A stem that is no plain
    file name (:func:`check_name`: a control character, a backslash, a byte not UTF-8)
    is refused as a problem of the input ``path``, suggesting the options that would name
    the outputs instead (``instead``): the user gave no name to blame."""
    name = stem.lstrip(".") or "input"
    if not _plain(name):
        raise InputError(
            os.fspath(path),
            None,
            "its name cannot name the outputs (an output's name holds no control "
            f"character, backslash or byte that is not UTF-8): give {instead}",
        )
    if name != stem:
        report.repair(
            "input file's name changed into the outputs' name (leading dots dropped: no "
            "output is a hidden file; 'input' when nothing is left)",
            [{"from": stem, "to": name}],
        )
    return name


def given_name(name: str | None) -> str | None:
    """A converter's ``name=`` (``--name``), checked before anything is read as
    :func:`check_name` checks it: None (the outputs named after the input) or a plain file
    name, which was refused only by ``write_conversion``."""
    if name is None:
        return None
    _refuse_no_text(name, "name")
    return check_name(name)


def _refuse_no_text(value: object, keyword: str) -> None:
    """Refuse a ``name=`` or ``tag=`` that is no text (5 raised Python's TypeError)."""
    if not isinstance(value, str):
        raise UsageError(Setting(keyword), f" must be text, not {python_type(value)}")


def check_name(name: str, what: str | None = None) -> str:
    """``name`` if it is a plain file name (outputs stay in their folder; no control
    character, which a listing shows as another name or on two lines), else a
    :class:`UsageError` naming it as ``what`` (default: a converter's ``name``)."""
    if not _plain(name):
        named = Setting("name", name, quoted=True) if what is None else f"{what} {name!r}"
        raise UsageError(
            named, " is not a plain file name (no / or \\, no control character, not . or ..)"
        )
    return name


def _plain(name: str) -> bool:
    """Whether ``name`` is a plain file name (:func:`check_name`)."""
    return not (
        not name
        or name in (".", "..")
        or any(c in name for c in "/\\")
        or any(unicodedata.category(c) in ("Cc", "Cs") for c in name)  # Cs: a byte not UTF-8
        or Path(name).name != name
    )


def escape_ids(
    frame: pd.DataFrame, columns: Sequence[str], report: Findings, owner: dict
) -> pd.DataFrame:
    """Ids as strings (``StringDtype``) made valid for TREC files by the one reversible
    escaping (:func:`trecbench.ids.escape_id`); each id changed is reported once with
    ``owner`` (in order of first row), however many rows hold it: a query's id repeated
    on each of its documents' rows would otherwise fill the capped list with one change.

    Empty ids are refused earlier, where the input location is known.
    """
    frame, changes = escape_columns(frame, columns)
    report_escapes(changes, report, owner)
    return frame


def escape_columns(
    frame: pd.DataFrame, columns: Sequence[str]
) -> tuple[pd.DataFrame, list[tuple[str, pd.Series, np.ndarray]]]:
    """``frame`` with ``columns`` escaped as :func:`escape_ids` does, and its changes, to
    report with :func:`report_escapes` once the rows written are known: ``(column, the
    original ids, where they changed)`` for each column with a change."""
    frame = frame.copy(deep=False)  # columns replaced below, not changed in place
    changes = []
    for column in columns:
        values, changed = escape_series(frame[column], column)
        if changed.any():
            changes.append((column, frame[column].astype(STR), changed))
        frame[column] = values
    return frame, changes


def report_escapes(
    changes: list[tuple[str, pd.Series, np.ndarray]],
    report: Findings,
    owner: dict,
    rows: np.ndarray | None = None,
) -> None:
    """Report the changes :func:`escape_columns` made (each changed id once, in order of
    first row), of the rows at positions ``rows`` only when given (the rows written: the
    sidecar names no id the files do not hold, such as one cut at a depth)."""
    for column, original, changed in changes:
        if rows is not None:
            written = np.zeros(len(changed), dtype=bool)
            written[rows] = True
            changed = changed & written
        if not changed.any():
            continue
        before = original[changed]
        # the escaping is a function of the id: a distinct original is a distinct change
        unique = before.drop_duplicates()
        after, _ = escape_series(unique, column)
        report.repair(
            f"{column} percent-escaped (reversible; trecbench.ids.unescape_id)",
            ({**owner, "from": a, "to": b} for a, b in zip(unique, after, strict=True)),
        )


def escaped(ids: Iterable[str], what: str = "qid") -> list[str]:
    """``ids`` of the role ``what`` (``qid``, ``docno``) as :func:`escape_ids` writes them
    (to match ids reported elsewhere)."""
    values, _ = escape_series(pd.Series(list(ids), dtype=STR), what)
    return values.tolist()


class RankPolicy:
    """Whether the records of one list give their ``rank`` (the first decides): a list
    that gives some and not others would order some by rank and others by position,
    which no producer meant. ``check(at, rank)`` raises at the first record that
    differs; :meth:`read` also reads the rank."""

    def __init__(self, what: str):
        self.what, self.given, self.first = what, None, None

    def read(self, at, rank, position: int) -> int:
        """The rank of the record at ``at``: ``rank``, an integer from 1 to the largest C
        long (as trec_eval and ``validate``, R10, read ranks), or ``position`` when the
        list gives no ranks."""
        self.check(at, rank)
        if rank is None:
            return position
        value = (at / "rank").expect_integer(rank, 1)
        if value > LONG_MAX:
            raise (at / "rank").error(trec_text.rank_too_large(str(value)))
        return value

    def check(self, at, rank) -> None:
        given = rank is not None
        if self.given is None:
            self.given, self.first = given, at
        elif given != self.given:
            first = self.first.place or f"line {self.first.line}"  # a JSON line's record
            said = "gives a rank" if given else "gives no rank"
            raise (at / "rank").error(
                f"{said}, unlike the first {self.what} ({first}): give every {self.what} "
                "its rank, or none (their order is then the file's)"
            )
