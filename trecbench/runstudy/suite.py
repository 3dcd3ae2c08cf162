"""A leaderboard suite: collections (each with qrels, one run per system and optionally a
stratum of topics) and the measures to rank the systems by, read from TOML.

.. code-block:: toml

    name = "hpo-languages"
    measures = ["nDCG@10", "MRR@10"]      # default: the KPI preset
    systems = ["lexical", "vector"]       # order of the table; the first is the baseline
    [collections.de]
    qrels = "hpo-rtask.qrels"
    runs = "{system}.run"                 # a pattern, or a table {lexical = "a.run", ...}
    strata = "sidecar.json"               # optional: the collection's topics are those
    where = { language = "de" }           # whose strata fields have these values

Relative paths are relative to the suite's folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ..errors import InputError, UsageError, shortened
from ..escaping import id_list
from ..naming import TWO_WAYS, composed, config_title
from ..toml_loader import ConfigText, config_folder, config_path
from ..type_names import not_text

SCHEMA = "leaderboard_suite"
# the tables' columns beside the collections' (runstudy/board_text.py), which no collection
# may be named as: a collection "macro" headed a column beside the macro mean's, alike
COLUMNS = ("system", "macro", "mean rank", "p (collections)", "p (topics)")


@dataclass(frozen=True)
class Collection:
    """One collection of a suite: its qrels, each system's run and the stratum of topics
    it keeps (``where``: strata field -> value; empty: every topic)."""

    name: str
    qrels: Path
    runs: dict[str, Path]
    strata: Path | None = None
    where: dict[str, str] = field(default_factory=dict)
    # where the suite's text gives the collection (``suite.toml:7: collections.de``), for
    # the refusals found as it is scored; None: not read from a file. Not compared
    entry: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Suite:
    """A leaderboard suite (see the module docstring)."""

    path: Path
    name: str
    measures: list[str]
    systems: list[str]
    collections: list[Collection]
    # where the suite's text gives its measures (``suite.toml:2: measures``), for the
    # refusals found as they are computed; None: not read from a file. Where the text
    # puts them is no part of what the suite is: not compared
    measures_where: str | None = field(default=None, compare=False)
    # the suite file's record (path, kind, size, sha256) taken as it was read: what a
    # leaderboard records of it, not the file as it is later (edited, gone, a pipe); None:
    # not read from a file
    record: dict | None = field(default=None, compare=False)
    # the suite's text, whose lines name the setting of a file that cannot be read or a
    # stratum that keeps nothing (:meth:`place`); None: not read from a file
    config_text: ConfigText | None = field(default=None, compare=False, repr=False)
    description: str | None = None  # what the suite is, in its own words (None: none)

    def __post_init__(self) -> None:
        # load_suite checks a file's suite at its lines before making one; this check is
        # for every other way one is made (dataclasses.replace of a loaded suite kept its
        # text, and passed: an unknown system was a KeyError, no collection an IndexError)
        from ..measures.per_topic import listed_measures

        if not self.measures:
            raise UsageError("suite: measures: none given (load_suite gives the KPI preset's)")
        try:
            listed_measures(list(self.measures), "the leaderboard's means and tests are")
        except UsageError as error:
            raise UsageError(f"suite: {error}") from None
        from ..measures.spellings import refuse_two_spellings

        try:  # one board each, by one name: a spelling asked would vanish
            refuse_two_spellings(list(self.measures), "leaderboard")
        except UsageError as error:  # at the suite's measures, before any run is read
            raise UsageError(
                f"{self.measures_where or f'{self.path}: measures'}: {error}"
            ) from None
        if not self.systems or not self.collections:
            none = "systems" if not self.systems else "collections"
            raise UsageError(f"suite: {none}: none given: there is nothing to rank")
        for collection in self.collections:
            unmatched = _systems_unmatched(self.systems, collection.runs)
            if unmatched is not None:
                raise UsageError(f"suite: collection {collection.name!r} {unmatched}")

    @property
    def baseline(self) -> str:
        return self.systems[0]

    def place(self, *keys: str) -> tuple[int | None, str]:
        """The line where the suite's text writes the setting at ``keys`` (None: not
        found, or a suite made in Python) and the key dotted, for a message naming it."""
        from ..toml_loader import key_path

        line = None if self.config_text is None else self.config_text.line(keys)
        return line, key_path(keys)

    def run_keys(self, collection: str, system: str) -> tuple[str, ...]:
        """The setting that names a system's run in a collection: its entry of a ``runs``
        table, or the ``runs`` pattern."""
        keys = ("collections", collection, "runs", system)
        if self.config_text is not None and self.config_text.line(keys, own=True) is not None:
            return keys
        return keys[:-1]


def _document(path: Path) -> tuple[dict, ConfigText, dict]:
    """The suite's document, text (for the lines of the keys messages name) and record
    (its bytes' size and sha256, as every input's)."""
    from .. import outputs, provenance
    from ..text_encoding import utf8_text
    from ..toml_loader import load_toml

    outputs.note_input(path)
    try:
        data = provenance.read_file(path)
    except OSError as error:
        raise InputError.unreadable(path, error) from None
    document = load_toml(data, path, "a valid TOML suite")
    record = provenance.bytes_record(path, "suite", data)
    return document, ConfigText(path, utf8_text(data, str(path))), record


def _check_schema(document: dict, source: ConfigText) -> None:
    from ..json_schemas import schema_refusal

    _check_where(document, source)
    refused = schema_refusal(document, SCHEMA)
    if refused is not None:  # a setting, as benchmark's configuration: a usage error
        keys, message = refused
        raise UsageError(f"{source.where(keys)}: {shortened(message)}")


def _systems_unmatched(
    systems: list[str], runs: Mapping[str, Path], unlisted: str | None = None
) -> str | None:
    """What a collection whose ``runs`` are not one of each of the ``systems`` has:
    ``has no run of a, b`` (the systems without one), else ``has a run of a system not
    listed: c`` (``unlisted``: other words for it); None when they match. Each system is
    a list's item (:func:`~trecbench.escaping.id_list`, every one): a name read from the
    suite holding a line feed cannot split the message, nor ``a, b`` read as two."""
    missing = [system for system in systems if system not in runs]
    extra = [system for system in runs if system not in systems]
    if not missing and not extra:
        return None
    what = "has no run of" if missing else unlisted or "has a run of a system not listed"
    named = missing or extra
    return f"{what}: {id_list(named, limit=None)}"


def _check_shown_apart(names: list[str], what: str, source: ConfigText, keys_of) -> None:
    """Two ``names`` (systems, collections) that are one text Unicode writes two ways
    (``é`` as one character or as ``e`` and an accent) are refused at the second's
    setting, ``keys_of(index, name)``: the board showed two rows or columns of one name."""
    seen: dict[str, str] = {}
    for index, name in enumerate(names):
        other = seen.setdefault(composed(name), name)
        if other != name:
            raise UsageError(
                f"{source.where(keys_of(index, name))}: {what} {other!r} and {name!r} are "
                f"{TWO_WAYS}, shown alike: rename one"
            )


def _check_where(document: dict, source: ConfigText) -> None:
    """A ``where`` value is text, matched as written against the strata's values (text,
    never inferred): a number or boolean TOML made of it (``true``, ``1e0``) would match
    its Python spelling (``True``, ``1.0``), never the stratum ``true`` or ``1e0``."""
    collections = document.get("collections")
    for name, spec in collections.items() if isinstance(collections, Mapping) else ():
        where = spec.get("where") if isinstance(spec, Mapping) else None
        for key, value in where.items() if isinstance(where, Mapping) else ():
            problem = not_text(value, "a strata value")
            if problem is not None:
                raise UsageError(f"{source.where(('collections', name, 'where', key))}: {problem}")


def _runs(spec, systems: list[str] | None, resolve, where) -> dict[str, Path]:
    """Each system's run, from the collection's ``runs`` (``where()`` names it): a pattern
    or a table; ``resolve(value, *keys)`` makes a path of a value."""
    if isinstance(spec, str):
        if "{system}" not in spec:
            raise UsageError(f"{where()}: a runs pattern names its file with {{system}}")
        if systems is None:
            raise UsageError(f"{where()}: a runs pattern needs the suite's systems list")
        return {system: resolve(spec.replace("{system}", system), "runs") for system in systems}
    return {system: resolve(run, "runs", system) for system, run in spec.items()}


def _check_runs_once(runs: dict[str, Path], where) -> None:
    """Each run file of a collection is one system's (:func:`~trecbench.naming.run_given_twice`):
    two systems of one file tied at every rank, their tests n/a, as if two systems had been
    compared (``benchmark`` refuses two modes of one file alike). Refused at the
    collection's ``runs`` (``where()``), before any run is read."""
    from ..naming import run_given_twice

    problem = run_given_twice(runs, "systems")
    if problem is not None:
        raise UsageError(f"{where()}: {problem[1]}")


def _collection_path(
    source: ConfigText, base: Path, collection: str, value: str, *keys: str
) -> Path:
    """The path ``value`` the suite ``source`` gives at a ``collection``'s ``keys``."""
    return config_path(source, base, value, ("collections", collection, *keys))


def _qrels_path(value: str, resolve) -> Path:
    """A collection's qrels: an ir_datasets id (``irds:ID``) as it is, a path from the
    suite's folder (``resolve``): the id was read as a file of that folder
    (``lb/irds:msmarco-passage``, "no such file, nor an ir_datasets dataset")."""
    from ..inputs.datasets import PREFIX

    return Path(value) if value.startswith(PREFIX) else resolve(value, "qrels")


def load_suite(path) -> Suite:
    """Read and check a leaderboard suite: the shipped schema first, then that every
    collection has a run of every system."""
    path = Path(path)
    document, source, record = _document(path)
    _check_schema(document, source)
    base, listed = config_folder(path), document.get("systems")
    collections = []
    named = list(document["collections"])
    _check_shown_apart(named, "collections", source, lambda _, name: ("collections", name))
    for name, spec in document["collections"].items():
        if name in COLUMNS:
            place = source.where(("collections", name))
            listed_columns = ", ".join(COLUMNS)
            raise UsageError(
                f"{place}: {name!r} heads another column of the tables ({listed_columns}): "
                "name the collection otherwise"
            )
        where = partial(source.where, ("collections", name, "runs"))  # said when refused
        resolve = partial(_collection_path, source, base, name)
        strata = spec.get("strata")
        if bool(strata) != bool(spec.get("where")):
            place = source.where(("collections", name))
            raise UsageError(f"{place}: strata and where go together")
        runs = _runs(spec["runs"], listed, resolve, where)
        _check_runs_once(runs, where)
        collections.append(
            Collection(
                name,
                _qrels_path(spec["qrels"], resolve),
                runs,
                None if strata is None else resolve(strata, "strata"),
                dict(spec.get("where", {})),  # text: _check_where
                source.where(("collections", name)),
            )
        )
    systems = list(listed) if listed else list(collections[0].runs)
    first = collections[0].name  # without `systems`, its runs name them
    _check_shown_apart(
        systems,
        "systems",
        source,
        lambda index, system: (
            ("systems", index) if listed else ("collections", first, "runs", system)
        ),
    )
    # no list says "not listed" without `systems`: the first collection's runs name them
    unlisted = (
        f"has a run of a system the first collection, {collections[0].name!r}, has none of "
        "(without `systems`, its runs name the systems)"
    )
    for collection in collections:
        unmatched = _systems_unmatched(systems, collection.runs, None if listed else unlisted)
        if unmatched is not None:
            place = source.where(("collections", collection.name))
            raise UsageError(f"{place}: {unmatched}")
    measures = _measures(list(document.get("measures") or []), source)
    name = document.get("name", config_title(path))
    where = source.where(("measures",))
    description = document.get("description")
    return Suite(path, name, measures, systems, collections, where, record, source, description)


def _measures(measures: list[str], source: ConfigText) -> list[str]:
    """The suite's measures (none: the KPI preset), each name checked before any run is
    read, as is a measure with no value per topic (the boards' means and tests are of
    per-topic values: it would vanish)."""
    from ..measures import KPI_PRESET
    from ..measures.per_topic import listed_measures, refused_entry_index
    from ..measures.trec_params import MeasureParameterError

    if not measures:
        return list(KPI_PRESET)
    computed = "the leaderboard's means and tests are"
    try:  # each entry a -m value: its names one by one ("P@5 map" is two)
        return listed_measures(measures, computed)[0]
    except (UsageError, MeasureParameterError) as error:  # the latter trec_eval's (P.abc),
        # which was told without the file or line, where benchmark tells both: at the
        # refused entry's own line (a list over several lines), as benchmark cites it
        keys = ("measures", refused_entry_index(measures, computed))
        message = str(error).removeprefix("measures: ")  # the key, named by where()
        raise UsageError(f"{source.where(keys)}: {message}") from None
