"""One name per run, the same in every command: ``names`` when given, else the file's stem
made unique by its shortest distinguishing parent folders, else ``run1..N`` for runs held
in memory (DataFrames, Arrow tables, dicts, records)."""

from __future__ import annotations

import numbers
import os
import re
import stat
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path, PurePath
from typing import Any

from .compressions import without_suffixes
from .errors import Setting, UsageError, excerpt, one_line, option_excerpt
from .plurals import counted
from .text_bytes import encodable
from .type_names import python_type

# what a JSONL run is named (told by its name, or standard input's by its content:
# trecbench.inputs.formats)
JSONL_SUFFIX = ".jsonl"
# the name that reads standard input (and names it in messages and reports)
STANDARD_INPUT = "-"


def nameless(path: str) -> bool:
    """Whether the name ``path`` says nothing of the file's format: standard input, or a
    descriptor's name (``/dev/stdin``; ``<(zcat run.jsonl.gz)`` is ``/dev/fd/63``); such
    an input's format is told by its content too (:mod:`trecbench.inputs.formats`)."""
    return path in (STANDARD_INPUT, "/dev/stdin") or path.startswith(("/dev/fd/", "/proc/"))


def composed(name: str) -> str:
    """``name`` as Unicode composes it (NFC): ``é`` written as one character or as ``e``
    and an accent is one name, shown alike; names are compared so wherever two must show
    apart (runs, systems, collections, benchmark labels)."""
    return unicodedata.normalize("NFC", name)


def config_title(path: str | os.PathLike) -> str:
    """What titles a configuration that names itself nothing (a benchmark's, a
    leaderboard suite's): its file's stem; ``stdin`` for standard input; a descriptor's
    name as given (``<(cat b.toml)``, ``/dev/fd/63``, was titled ``63``)."""
    text = os.fspath(path)
    if text in (STANDARD_INPUT, "/dev/stdin"):
        return "stdin"
    return text if descriptor(text) else Path(text).stem


def file_path(path: str | os.PathLike) -> Path:
    """``path`` as a :class:`~pathlib.Path`, never standard input's ``-`` when it names a
    file: ``Path("./-")`` is ``Path("-")``, so a file called ``-`` given as ``./-`` is kept
    as its absolute path (read as ``-``, it would read standard input)."""
    text = os.fspath(path)
    return Path(os.path.abspath(text)) if text != "-" and Path(text) == Path("-") else Path(text)


def normalised(path: str | os.PathLike) -> str:
    """``os.path.normpath`` of ``path``, except that a file called ``-`` (``./-``) is kept
    as its absolute path, as :func:`file_path` keeps it: normalised to ``-``, it would be
    standard input (``--names base=./-`` read stdin as the run ``base``)."""
    text = os.fspath(path)
    return os.fspath(file_path(text)) if os.path.normpath(text) == "-" else os.path.normpath(text)


def file_stem(path: str | os.PathLike) -> str:
    """A run file's name without its compression suffix and its ``.run``/``.txt``/
    ``.parquet``/``.jsonl`` extension, in any case, as the readers tell them
    (``runs/bm25.run.gz`` -> ``bm25``, ``R1.RUN.GZ`` -> ``R1``)."""
    name = without_suffixes(PurePath(path).name, any_case=True)
    for suffix in (".run", ".txt", ".trec", ".parquet", ".tsv", ".jsonl"):
        if name[-len(suffix) :].lower() == suffix and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def named_as(path: str | os.PathLike, suffix: str) -> bool:
    """Whether the file ``path`` is named ``*suffix`` (in any case), perhaps with a
    compression suffix after it (``run.jsonl.gz``; the compression itself is told by the
    content): how :mod:`trecbench.inputs.formats` tells a format by its name."""
    return without_suffixes(os.path.basename(path).lower()).endswith(suffix)


def descriptor(path: str | os.PathLike) -> bool:
    """Whether ``path`` names a file descriptor (``/dev/fd/63``, what a shell gives for
    ``<(zcat run.gz)``; ``/proc/self/fd/3``), whose stem, a number, names nothing."""
    parent = PurePath(os.path.normpath(os.fspath(path))).parent.as_posix()
    return parent == "/dev/fd" or re.fullmatch(r"/proc/(self|\d+)/fd", parent) is not None


def _with_parents(path: str | os.PathLike, parents: int) -> str:
    if descriptor(path):  # named as given, as standard input is '-'
        return os.fspath(path)
    folders = PurePath(normalised(path)).parent.parts[::-1][:parents]
    return "/".join([*folders[::-1], file_stem(path)])


def _distinct_file_names(paths: list[str | os.PathLike]) -> list[str]:
    """Each path's stem, with parent folders added to those that share a name until they
    no longer do (a path given twice keeps its stem: no folder tells it apart)."""
    parents = [0] * len(paths)
    # normalised, not normpath: ./- is a file called -, told apart from standard input's -
    deepest = [len(PurePath(normalised(p)).parts) - 1 for p in paths]
    while True:
        names = [_with_parents(path, n) for path, n in zip(paths, parents, strict=True)]
        keys = [composed(name) for name in names]  # alike as Unicode composes them
        same = {}
        for key, path in zip(keys, paths, strict=True):
            same.setdefault(key, set()).add(normalised(path))
        # names shared by different files (one file twice: no folder tells it apart)
        shared = {key for key, files in same.items() if len(files) > 1}
        grown = False
        for i, key in enumerate(keys):
            if key in shared and parents[i] < deepest[i]:
                parents[i] += 1
                grown = True
        if not grown:  # left alike (bm25.run, bm25.run.gz in one folder): their paths
            alike = zip(paths, names, keys, strict=True)
            return [os.fspath(p) if key in shared else n for p, n, key in alike]


def _utf8(name: str) -> str:
    """A name from a file name with each byte that is not UTF-8 (a lone surrogate, as
    ``os.fsdecode`` holds it) written ``%XX``: text every output can hold."""
    if encodable(name):
        return name
    return "".join(f"%{ord(c) - 0xDC00:02X}" if "\udc80" <= c <= "\udcff" else c for c in name)


def run_name(value: Any) -> str:
    """A run's name given in Python (an item of ``names``, a ``{name: run}`` dict's key) as
    text: text as it is, an integer in decimal (as an integer id is read); any other value
    refused, not named by its ``str()`` (None named a run ``None``, 1.0 ``1.0``)."""
    if isinstance(value, str):
        return str(value)  # numpy's str_ as Python's
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    raise UsageError(
        f"run name {excerpt(value)}: give run names as text (or integers), not {python_type(value)}"
    )


def listed_names(names: Sequence[str] | None) -> list[str] | None:
    """``names`` given for runs as a list (None stays None), as :func:`listed` takes it."""
    return None if names is None else listed(names, "names", "names, one per run")


def listed(values: Iterable, keyword: str, items: str, unordered: bool = False) -> list:
    """``values``, given to ``keyword=`` as a list of ``items`` (words: ``names, one per
    run``), as a list: any sequence, a numpy array or a pandas Series too. A string is
    refused: it is a sequence of its characters (``names='xy'`` named two runs ``x`` and
    ``y``; ``results='r.json'`` read six files), and read as one item it would mean one
    thing for one and another for several; so are a path, a set (no order to pair it
    with other lists; taken where the order does not count, ``unordered``), a mapping and
    what holds no items at all (a number)."""
    refused = (str, bytes, bytearray, os.PathLike, Mapping, *(() if unordered else (AbstractSet,)))
    if isinstance(values, refused) or not isinstance(values, Iterable):
        # python_type's words: "not None", "not text", "not bytes" (its type's name read
        # "not a NoneType", "not a str")
        kind = python_type(values)
        raise UsageError(f"{keyword}={excerpt(values)}: give a list of {items}, not {kind}")
    return list(values)


def path_argument(value: object, keyword: str) -> Path:
    """``value``, given to ``keyword=`` as an output's path, as a :class:`Path`; a value of
    no path (None, an int, bytes) refused naming the keyword, where pathlib raised
    "expected str, bytes or os.PathLike object, not NoneType" naming none."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise UsageError(
            f"{keyword}={excerpt(value)}: give a path (text or os.PathLike), not "
            f"{python_type(value)}"
        )
    return Path(value)


# why two names that are not one text show alike
TWO_WAYS = "one name written two ways in Unicode"

# how to name two runs apart: the advice of a caller with ``names=`` (``--names`` said on a
# command line), and of one whose runs may be a ``{name: run}`` dict instead
BY_NAMES: tuple[str | Setting, ...] = ("e.g. with ", Setting("names"))
BY_DICT: tuple[str | Setting, ...] = ("e.g. give the runs as a {name: run} dict",)


def run_names(
    sources: Sequence[Any], names: Sequence[str] | None = None, advice=BY_NAMES
) -> list[str]:
    """The display name of each run of ``sources``; two runs never share a name (refused
    with ``advice``, :data:`BY_NAMES` or :data:`BY_DICT`: the caller's way to name them).

    >>> run_names(["a/bm25.run", "b/bm25.run", "dense.run.gz", {"q": {"d": 1.0}}])
    ['a/bm25', 'b/bm25', 'dense', 'run4']
    """
    if names is not None:
        advice = ("give each a name of its own in ", Setting("names"))  # they clash there
        names = [run_name(name) for name in listed_names(names)]
        if len(names) != len(sources):
            given = f"{counted(len(names), 'name')} for {counted(len(sources), 'run')}"
            raise UsageError(f"{given}: give one per run")
    else:
        files = [i for i, s in enumerate(sources) if isinstance(s, (str, os.PathLike))]
        if any(not os.fspath(sources[i]) for i in files):  # named "" it was a blank name
            raise UsageError("a run's path is empty (''): give the run's file")
        distinct = dict(zip(files, _distinct_file_names([sources[i] for i in files]), strict=True))
        names = [_utf8(distinct.get(i, f"run{i + 1}")) for i in range(len(sources))]
    seen: dict[str, str] = {}  # a name as Unicode composes it -> the run's name
    for name in names:
        if not encodable(name):
            raise UsageError(f"run names must be UTF-8 text, not {name!r}")
        if not name.strip():
            raise UsageError(f"run names must not be blank, not {name!r}: name every run")
        key = composed(name)
        if key in seen:  # é as one character and as e and an accent show alike
            other = seen[key]
            named = repr(name) if other == name else f"{other!r} and {name!r}, {TWO_WAYS}"
            raise UsageError(f"two runs are named {named}; name them apart (", *advice, ")")
        seen[key] = name
    return names


def check_run_tag(tag: Any, keyword: str = "tag") -> None:
    """Refuse a ``tag`` (None: none given) that is no run tag, the sixth column of every
    run line: one token of printable text (a blank, a newline or a control character in it
    writes a run no reader parses, or parses as another; ``str()`` lets no non-text
    through). The message names it by ``keyword`` (``fix_tag``: validate's --fix-tag)."""
    if tag is not None and (str(tag).split() != [tag] or not tag.isprintable()):
        raise UsageError(
            Setting(keyword, tag, quoted=True),
            ": a run tag is one token of printable text, without blanks",
        )


def file_key(path: str | os.PathLike) -> tuple[int, int] | None:
    """Which file ``path`` names, as (device, inode), however it is spelled (a link, a
    relative path; ``-`` is standard input, as ``/dev/stdin`` is); None when it cannot be
    examined (its reader says why)."""
    info = examined(path)
    return None if info is None else (info.st_dev, info.st_ino)


def examined(path: str | os.PathLike) -> os.stat_result | None:
    """``os.stat`` of ``path`` (``-``: standard input's), None where it cannot be done."""
    try:
        return os.fstat(0) if os.fspath(path) == "-" else os.stat(path)
    except (OSError, ValueError):
        return None


def repeated_file(paths: Sequence[str | os.PathLike]) -> tuple[str, str] | None:
    """The first path of ``paths`` that names a file named before, however spelt (a link,
    an absolute and a relative path, ``-`` and ``/dev/stdin``), with that earlier path;
    None when every file is named once. A path that cannot be examined (a Dask glob, or
    no file: its reader's error) is told by its spelling."""
    seen: dict = {}
    for path in paths:
        spelt = os.fspath(path)
        key = file_key(spelt) or ("spelt", os.path.normpath(spelt))
        if key in seen:
            return spelt, seen[key]
        seen[key] = spelt
    return None


def read_once_given_twice(paths: Sequence) -> str | None:
    """Why ``paths`` (other items ignored) cannot be read, when two of them name a file
    that can be read once: standard input (``-``, ``/dev/stdin``, ``/dev/fd/0`` or the
    file it is redirected from), or a pipe or FIFO however it is named (``/dev/fd/3``
    twice: the second would read as empty); None when none does. Told by the file's
    identity (device, inode)."""
    stdin_key = file_key("-")
    seen: dict = {}  # each file's first spelling
    for path in paths:
        if not isinstance(path, (str, os.PathLike)):
            continue
        info = examined(path)
        if info is None:
            continue  # it cannot be read: its reader says so
        key, spelt = (info.st_dev, info.st_ino), os.fspath(path)
        regular = stat.S_ISREG(info.st_mode)
        if regular and not names_standard_input(spelt):
            # a regular file is read again from its start, by its name; standard input
            # redirected from it is the file given twice (fuse a.run - < a.run)
            if names_standard_input(seen.get(key, "")):
                return _stdin_twice(seen[key], spelt)
            seen.setdefault(key, spelt)
            continue
        stdin = names_standard_input(spelt) or key == stdin_key
        if not (stdin or stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode)):
            continue
        if key in seen:
            if stdin:
                return _stdin_twice(seen[key], spelt)
            return f"{one_line(spelt)}: a pipe, given twice, can be read once: give it once"
        seen[key] = spelt
    return None


def names_standard_input(path: str) -> bool:
    """Whether ``path`` is a name of standard input (``-``, ``/dev/stdin``, descriptor 0)."""
    return path in (STANDARD_INPUT, "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")


def _stdin_twice(first: str, again: str) -> str:
    """Why standard input named twice cannot be read: by its names (``-``, a
    descriptor's), or as the file it is redirected from, named by its path too."""
    named = [path for path in (first, again) if not names_standard_input(path)]
    if named:
        return (
            f"{one_line(named[0])}: given twice, by its name and as standard input "
            "(redirected from it): give it once"
        )
    return "standard input ('-', /dev/stdin) can be read once: give it once"


def first_read_twice(paths: Sequence) -> tuple[int, str] | None:
    """The index of the first of ``paths`` that names again a file that can be read
    once, and why it cannot be read (:func:`read_once_given_twice`), for a message naming
    the setting that gave it; None when none does. Found by bisection (a refused prefix
    stays refused as paths are added): each path examined a few times, not once per
    later path."""
    problem = read_once_given_twice(paths)
    if problem is None:
        return None
    low, high = 1, len(paths) - 1  # the refused prefix ends within [low, high]
    while low < high:
        middle = (low + high) // 2
        if read_once_given_twice(paths[: middle + 1]) is None:
            low = middle + 1
        else:
            high = middle
    return high, read_once_given_twice(paths[: high + 1]) or problem


def check_read_once(paths: Sequence) -> None:
    """Refuse (:class:`UsageError`) two of ``paths``, in any roles (runs, qrels, a second
    set of qrels), naming one file that can be read once (:func:`read_once_given_twice`):
    its second reader would read it as empty, or wait for a writer for good."""
    read_twice = read_once_given_twice(paths)
    if read_twice is not None:
        raise UsageError(read_twice)


def check_runs_once(paths: Sequence[str | os.PathLike]) -> None:
    """Refuse a run file given twice, or spelt two ways: it would be compared with
    itself (or counted twice). Standard input or a pipe given twice is refused first as
    :func:`check_read_once` refuses it, in the words every command says of it (``- -``
    was "the same run is given twice" here, "can be read once" in score and fuse)."""
    check_read_once(paths)
    repeated = repeated_file(paths)
    if repeated is None:
        return
    path, first = repeated
    if path == first:
        raise UsageError(f"{one_line(path)}: the same run is given twice")
    raise UsageError(
        f"{one_line(path)}: the same run as {one_line(first)}: give it once, spelt one way"
    )


def named_pairs(
    pairs: Sequence[str], is_run: Callable[[str], bool] | None = None
) -> dict[str, str]:
    """The CLI's ``--names NAME=RUN`` ``pairs`` as ``{run path (normalised): name}``; a
    pair without its ``=``, name or path, or a second pair for one run, is refused. A
    pair is split at its first ``=`` followed by a run (``is_run`` of the normalised
    path), else at its first: a name may hold ``=``.

    >>> named_pairs(["sparse=./a/bm25.run"])
    {'a/bm25.run': 'sparse'}
    """
    given: dict[str, str] = {}
    for pair in pairs:
        name, equals, path = _split(pair, is_run)
        if not (name and equals and path):
            raise UsageError(f"--names {option_excerpt(pair)}: expected NAME=RUN")
        if normalised(path) in given:
            raise UsageError(f"--names {option_excerpt(pair)}: {path} is named twice")
        given[normalised(path)] = name
    return given


def _split(pair: str, is_run: Callable[[str], bool] | None) -> tuple[str, str, str]:
    """``pair`` split at its first ``=`` after which ``is_run`` finds a run (a name may
    hold ``=`` too), else at its first."""
    first = pair.partition("=")
    if is_run is not None:
        for at in (i for i, c in enumerate(pair) if c == "="):
            if is_run(normalised(pair[at + 1 :]) if at + 1 < len(pair) else ""):
                return pair[:at], "=", pair[at + 1 :]
    return first


def named_runs(paths: Sequence[str | os.PathLike], pairs: Sequence[str]) -> list[str] | None:
    """The names of run files ``paths`` under the CLI's ``--names NAME=RUN`` ``pairs``: a
    run named by its pair, the others as :func:`run_names` names them; None without pairs
    (the library names them). A pair for a file not among ``paths`` is refused.

    >>> named_runs(["a/bm25.run", "dense.run"], ["sparse=a/bm25.run"])
    ['sparse', 'dense']
    """
    if not pairs:
        return None
    keys = [normalised(path) for path in paths]
    given = named_pairs(pairs, keys.__contains__)
    for pair, path in zip(pairs, given, strict=True):  # a dict in the pairs' order
        if path not in keys:
            raise UsageError(f"--names {option_excerpt(pair)}: {path} is not one of the runs given")
    for name in given.values():  # as the command line wrote it: a byte as \xff
        if not encodable(name):
            raise UsageError(f"run names must be UTF-8 text, not {option_excerpt(name)}")
    stems = run_names(paths)
    return run_names(paths, [given.get(key, stem) for key, stem in zip(keys, stems, strict=True)])


def run_given_twice(
    runs: Mapping[str, os.PathLike], named: str, first_line: Callable | None = None
) -> tuple[str, str] | None:
    """Why ``runs`` (each name's run file) cannot be compared: two names of one file
    (however spelt: a link, ``./``) would compare the run with itself, or fuse it with
    itself, as ``compare`` refuses a run given twice; None when each file is one name's.
    Returns the second name and why, said as ``NAMED 'a' and 'b' are one run file
    ('x.run'): ...`` (``named``: "modes", "systems"); ``first_line(name)``, if given, is
    the line of the first name's setting, said after it (``'a' (line 3) and 'b'``). A
    file is told by its identity (:func:`file_key`), one that cannot be examined by its
    resolved path (its reader says why later)."""
    files: dict[object, tuple[str, str]] = {}
    for name, path in runs.items():
        spelt = os.fspath(path)
        first = files.setdefault(file_key(spelt) or os.path.realpath(spelt), (name, spelt))
        if first[0] != name:
            one = excerpt(first[1])
            shown = one if first[1] == spelt else f"{one} and {excerpt(spelt)}"
            line = None if first_line is None else first_line(first[0])
            at = "" if line is None else f" (line {line})"
            return name, (
                f"{named} {first[0]!r}{at} and {name!r} are one run file ({shown}): the run "
                "would be compared with itself; give it once"
            )
    return None
