"""The per-topic values as arrays and the sections they are analysed in: the
``queries x runs x measures`` cube, the grouping fields, one section per stratum."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import stats
from ..errors import Setting, UsageError, excerpt
from ..escaping import ShownWarning, group_place, id_list
from ..inputs.given_values import Topics, check_strata_qids, given_qids, refuse_two_values
from ..inputs.python_objects import index_label
from ..naming import listed
from ..rounding import mean_difference
from ..statistical_tests import STRATIFIED_BOOTSTRAP_ONE
from ..type_names import python_type
from .settings import ALL, MACRO

# why an interval or a p-value is undefined (n/a), in the words every output shows
FEWER_THAN_TWO = "fewer than 2 topics"
STRATUM_OF_ONE = "a stratum has fewer than 2 topics ({})"


@dataclass(frozen=True)
class Section:
    """One analysis: ``kind`` ``all``, ``macro`` (over the strata of ``field``) or
    ``stratum`` (``field`` = ``value``), over ``topics`` topics. ``smallest_p``: the
    smallest p-value the chosen test can give over them (None with one run); ``notes``:
    what the reader must know about its tests (e.g. that they cannot reach alpha);
    ``interval_undefined``: why its bootstrap intervals are n/a (None: they are not)."""

    label: str
    kind: str
    field: str | None
    value: str | None
    topics: int
    smallest_p: float | None = None
    notes: tuple[str, ...] = ()
    interval_undefined: str | None = None

    @property
    def title(self) -> str:
        if self.kind == ALL:
            return "All topics"
        if self.kind == MACRO:
            return f"Macro over {self.field}: each {self.field} counts the same"
        return f"{self.field} = {self.value}"


def values_cube(
    per_query: pd.DataFrame,
    runs: list[str],
    measures: list[str],
    queries: list[str],
    column: str = "value",
) -> np.ndarray:
    """``queries x runs x measures`` values of ``column``; absent (run, qid) pairs NaN."""
    refuse_two_values(per_query)
    frame = per_query.set_index(["qid", "run", "measure"])[column]
    index = pd.MultiIndex.from_product([queries, runs, measures], names=frame.index.names)
    values = frame.reindex(index).to_numpy(dtype=np.float64, copy=True)
    return values.reshape(len(queries), len(runs), len(measures))


@dataclass
class SectionPart:
    """One section and which topics (``rows`` of the cube) it analyses."""

    section: Section
    rows: np.ndarray
    strata: np.ndarray | None  # per topic its stratum (macro sections only)


def group_fields(group_by) -> list[str]:
    """``group_by`` (a field's name, a sequence of them or None) as its fields, each once;
    a name that is no text refused saying what it is (``group_by=5`` raised "'int' object
    is not iterable", then was refused as "not blank"), a blank one naming it (``""``
    grouped by a field named '': ``:macro``, ``=de``)."""
    if group_by is None:
        return []
    one = isinstance(group_by, (str, bytes, bytearray)) or not isinstance(group_by, Iterable)
    fields = [group_by] if one else listed(group_by, "group_by", "fields")
    for field in fields:
        if not isinstance(field, str):
            given = python_type(field) + ("" if field is None else f" ({excerpt(field)})")
            raise UsageError(Setting("group_by"), f": a field's name is text (a str), not {given}")
        if not field.strip():
            raise UsageError(
                Setting("group_by", field, quoted=True), ": a field's name is text, not blank"
            )
    return list(dict.fromkeys(fields))


def strata_fields(strata: Mapping, group_by, topics: Topics) -> dict[str, dict[str, str]]:
    """``{field: {qid: stratum}}`` of a mapping: ``{qid: value}`` (one field, named
    ``group_by``, default ``stratum``), ``{field: {qid: value}}`` (several; ``group_by``
    picks some) or a sidecar's per-topic ``{qid: {field: value}}`` (``group_by`` naming
    its fields). Its qids are read as every input's, beside the ``topics`` compared
    (:func:`~trecbench.inputs.given_values.given_qids`: ``7`` is refused beside ``007``, not
    left out). A topic held without a value (None, NaN, NA; the field left out of its
    own mapping) is in ``(none)``, as a sidecar's is (:data:`trecbench.strata.MISSING`);
    a blank value is refused, as in a sidecar."""
    wanted = group_fields(group_by)
    nested = [isinstance(value, Mapping) for value in strata.values()]
    if any(nested) and not all(nested):
        raise UsageError(
            "strata: {qid: value}, {field: {qid: value}} or {qid: {field: value}}, not a mix "
            "of values and mappings"
        )
    if strata and all(nested):
        by_field = _nested_fields(strata, wanted)
    elif len(wanted) > 1:
        named = id_list(wanted, limit=None)  # a field as a list's item
        raise UsageError(
            f"group_by names {len(wanted)} fields ({named}), and a {{qid: value}} "
            "mapping holds one: give {field: {qid: value}}"
        )
    else:
        by_field = {wanted[0] if wanted else "stratum": strata}
    return {str(field): _field(field, mapping, topics) for field, mapping in by_field.items()}


def _field(field, mapping: Mapping, topics: Topics) -> dict[str, str]:
    """``{qid: stratum}`` of one field's ``{qid: value}``, its keys read as qids."""
    keys = list(mapping)

    def where(row: int) -> str:
        return f"topic {index_label(keys[row])}"

    qids = given_qids(keys, "strata", where, topics, keys=True)
    return {
        qid: _stratum(field, qid, value) for qid, value in zip(qids, mapping.values(), strict=True)
    }


def _nested_fields(strata: Mapping, wanted: list[str]) -> dict:
    """The fields ``wanted`` (default: every one) of ``{field: {qid: value}}``, or of the
    sidecar's per-topic ``{qid: {field: value}}`` when ``wanted`` are its inner keys."""
    if not wanted or all(field in strata for field in wanted):
        return {field: strata[field] for field in wanted or strata}
    held = {field for values in strata.values() for field in values}
    unknown = [field for field in wanted if field not in held]
    if unknown:
        raise UsageError(
            f"group_by {unknown[0]!r}: no such field in strata, neither {{field: {{qid: "
            "value}} nor {qid: {field: value}}"
        )
    return {field: {qid: values.get(field) for qid, values in strata.items()} for field in wanted}


def _stratum(field, qid, value) -> str:
    """A topic's stratum: its value as text; no value, ``(none)``; a blank one refused."""
    from ..strata import MISSING, blank_group

    if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)):
        return MISSING
    label = str(value)
    problem = blank_group(str(field), label, "give None")
    if problem is not None:
        raise UsageError(f"strata: topic {qid!r}: {problem}")
    return label


def _interval_undefined(topics: int, strata: np.ndarray | None = None) -> str | None:
    """Why a section's bootstrap intervals are n/a, or None: every resample of one topic is
    that topic, and a macro section's stratified bootstrap draws a stratum's one topic
    every time (its variance left out; a point with one topic per stratum), so either
    interval would read as a certainty the topics do not give."""
    if topics < 2:
        return FEWER_THAN_TWO
    if strata is not None and stats.stratum_of_one(strata):
        return STRATUM_OF_ONE.format(STRATIFIED_BOOTSTRAP_ONE)
    return None


def sections_of(universe: list[str], fields: dict[str, dict[str, str]] | None) -> list[SectionPart]:
    """``all``, then per grouping field its macro section and one section per stratum."""
    index = np.arange(len(universe))
    why = _interval_undefined(len(universe))
    everything = Section(ALL, ALL, None, None, len(universe), interval_undefined=why)
    parts = [SectionPart(everything, index, None)]
    for name, mapping in (fields or {}).items():
        values = np.array([mapping.get(qid) for qid in universe], dtype=object)
        present = np.flatnonzero(values != None)  # noqa: E711 (element-wise)
        if not len(present):
            continue
        # Python strings, not numpy's fixed-width ones: those drop a trailing NUL, which
        # made "a\0" the stratum "a" (and merged the two when both were present)
        labels = np.array([str(value) for value in values[present]], dtype=object)
        why = _interval_undefined(len(present), labels)
        # labelled as score's CSV places a group (the field's = escaped): one label, one section
        label = group_place(name, MACRO, blanks=False)
        macro = Section(label, MACRO, name, None, len(present), interval_undefined=why)
        parts.append(SectionPart(macro, present, labels))
        strata: dict[str, list[int]] = {}
        for row, label in zip(present.tolist(), labels, strict=True):
            strata.setdefault(label, []).append(row)  # labels == value: value as numpy's, NUL cut
        for value in sorted(strata):
            rows = np.array(strata[value], dtype=present.dtype)
            why = _interval_undefined(len(rows))
            label = group_place(name, "group", value, blanks=False)
            stratum = Section(label, "stratum", name, value, len(rows), interval_undefined=why)
            parts.append(SectionPart(stratum, rows, None))
    return parts


class OneStratumWarning(ShownWarning):
    """The warning of a grouping ``field`` whose topics all fall in one stratum ``value``
    (of ``topics`` topics), in parts: the field and the value (read from a sidecar: input
    text) shown as each output escapes its input text."""

    parts = ("field", "value", "topics")

    @staticmethod
    def said(field: str, value: str, topics: int, shown) -> str:
        from ..plurals import counted

        return (
            f"grouping by {shown(field)}: one stratum only, {shown(value)} "
            f"({counted(topics, 'topic')}): no stratum to compare with another (its macro "
            "section is that stratum's analysis)"
        )


def one_stratum_warnings(parts: list[SectionPart]) -> list[str]:
    """A warning per grouping field whose topics all fall in one stratum (grouped by
    ``qid-prefix`` on ids without a prefix: ``(none)``): its macro section and its one
    stratum repeat one analysis, and no stratum is compared with another, as score warns
    that its spread over one group is n/a. Worded as grouping, not as ``--group-by``: a
    benchmark's configuration (``strata.group_by``) and the Python API (``group_by=``) say
    it too."""
    strata: dict[str, list[Section]] = {}
    for part in parts:
        if part.section.kind == "stratum":
            strata.setdefault(part.section.field, []).append(part.section)
    return [
        OneStratumWarning(field, only.value, only.topics)
        for field, (only, *others) in strata.items()
        if not others
    ]


# why a stratum's topics were left out (:class:`DroppedStrataWarning`): after "none of its
# topics"; compare_scores' missing="drop", compare's run_qrels
NOT_IN_EVERY_RUN = "evaluated in every run (missing='drop')"
NOT_IN_EVERY_QRELS = "judged by every run's qrels"


class DroppedStrataWarning(ShownWarning):
    """The warning of a grouping ``field``'s strata none of whose topics is compared
    (``left``: each such stratum's value and topics; ``why``: :data:`NOT_IN_EVERY_RUN`,
    :data:`NOT_IN_EVERY_QRELS`): its macro section averages the strata left, not every
    stratum."""

    parts = ("field", "left", "why")

    @staticmethod
    def said(field: str, left: tuple, why: str, shown) -> str:
        from ..plurals import counted

        strata = ", ".join(f"{shown(value)} ({counted(count, 'topic')})" for value, count in left)
        return (
            f"grouping by {shown(field)}: {'stratum' if len(left) == 1 else 'strata'} {strata} "
            f"left out, none of {'its' if len(left) == 1 else 'their'} topics {why}: the "
            "macro section is over the other strata"
        )


def held_strata(strata, group_by):
    """``strata`` as :func:`strata_map` reads them more than once in a call: a sidecar's
    path read now, as its table (a FIFO's second reading waited for good)."""
    if strata is None or isinstance(strata, (Mapping, pd.DataFrame)):
        return strata
    return strata_table(strata) if group_fields(group_by) else strata


def dropped_strata_warnings(
    strata, group_by, analysed: list[str], dropped: list[str], why: str, read_as: tuple = ()
) -> list[str]:
    """A warning per grouping field (:func:`strata_map` of ``strata`` and ``group_by``, its
    topics ``read_as`` its ``topics_origin`` and ``integers`` say) with strata of
    ``dropped`` topics that none of the topics ``analysed`` is in (a topic without a
    value, None, in no stratum, as in :func:`sections_of`), dropped for ``why``
    (:class:`DroppedStrataWarning`)."""
    fields = strata_map(strata, group_by, analysed + dropped, *read_as) if dropped else None

    def strata_of(mapping: dict[str, str], topics: list[str]) -> Counter:
        return Counter(str(mapping[q]) for q in topics if mapping.get(q) is not None)

    warnings = []
    for field, mapping in (fields or {}).items():
        present, counts = strata_of(mapping, analysed), strata_of(mapping, dropped)
        left = tuple((value, counts[value]) for value in sorted(counts) if value not in present)
        if left:
            warnings.append(DroppedStrataWarning(field, left, why))
    return warnings


def check_grouping(strata, group_by) -> None:
    """What :func:`strata_map` refuses of the ``group_by`` fields before any topic is known
    (:func:`~trecbench.strata.check_group_field`: a field without strata, or one the
    sidecar, a path or a table, lacks), for compare to refuse it before any run is
    scored (each field's name too: :func:`group_fields`); a mapping's fields are read
    beside the topics, by :func:`strata_map`."""
    fields = group_fields(group_by)
    check_strata(strata)
    if isinstance(strata, Mapping) or not fields:
        return
    from ..strata import check_group_field

    frame = strata_table(strata)
    for field in fields:
        check_group_field(frame, field)


def check_strata(strata) -> None:
    """Refuse ``strata`` that are none of what a comparison groups by (a sidecar's path,
    the table :func:`trecbench.load_strata` reads, a mapping, or None), naming
    ``strata=``: read as a sidecar's path, ``strata=123`` was refused as ``sidecar=123``,
    a keyword the caller never gave."""
    if strata is None or isinstance(strata, (str, os.PathLike, pd.DataFrame, Mapping)):
        return
    raise UsageError(
        Setting("strata", strata),
        ": give a sidecar's path, the table trecbench.load_strata reads or a mapping, not "
        + python_type(strata),
    )


def strata_table(strata) -> pd.DataFrame | None:
    """The table of ``strata`` given as a sidecar's path (:func:`trecbench.load_strata`)
    or as that table; None for none; others refused by :func:`check_strata`."""
    check_strata(strata)
    if strata is None or isinstance(strata, pd.DataFrame):
        return strata
    from ..strata import load_strata

    return load_strata(strata)


def strata_map(
    strata, group_by, topics: list[str], topics_origin: str = "the qrels", integers: bool = False
) -> dict[str, dict[str, str]] | None:
    """field -> topic -> stratum: a given mapping (:func:`strata_fields`, its qids read
    beside the ``topics`` of ``topics_origin``, read from ``integers`` or not; a field
    giving none of the ``topics`` a stratum refused), or :func:`trecbench.strata.group_labels`
    of the topics per ``group_by`` field (a field of the sidecar ``strata``, a path or the
    table :func:`~trecbench.strata.read_sidecar` read, or ``qid-prefix``; topics without a
    value: ``(none)``)."""
    fields = group_fields(group_by)
    if isinstance(strata, Mapping):
        fields_held = strata_fields(strata, group_by, (topics, topics_origin, integers))
        return _held(fields_held, topics, not fields)
    if not fields:  # compare reads a sidecar path alone for its complete qrels, not here
        if strata is not None:
            raise UsageError(
                Setting("strata"), " needs ", Setting("group_by"), " (which stratum to compare by)"
            )
        return None
    from ..strata import group_labels

    frame = strata_table(strata)
    if frame is not None and integers:  # 7 is not the sidecar's '007': refused, as a mapping's
        check_strata_qids(frame, (topics, topics_origin, integers))
    series = pd.Series(topics, dtype=object)
    return {
        name: dict(zip(topics, group_labels(series, frame, name).astype(str), strict=True))
        for name in dict.fromkeys(fields)
    }


def _held(
    fields: dict[str, dict[str, str]], topics: list[str], unnamed: bool
) -> dict[str, dict[str, str]]:
    """``fields``, each giving a stratum to one of ``topics`` at least (else refused, as a
    sidecar of other topics is: no section would say so). ``unnamed``: no group_by named
    the fields, so a per-topic ``{qid: {field: value}}`` was read as ``{field: {qid:
    value}}``, its topics as fields: the refusal says what to give."""
    for field, mapping in fields.items():
        if not topics or any(qid in mapping for qid in topics):
            continue
        if unnamed and field in topics:
            raise UsageError(
                f"strata: its keys are topics ({field!r}), each mapping fields to values (a "
                "sidecar's per-topic {qid: {field: value}}): give group_by naming the field"
            )
        raise UsageError(
            f"strata: {field!r} gives none of the topics compared a stratum (e.g. "
            f"{topics[0]!r} has none)"
        )
    return fields


@dataclass
class View:
    """One section's values as ``topics x (measures * runs)`` columns (column ``m * R +
    r``), and how to take its means."""

    part: SectionPart
    flat: np.ndarray
    runs: int

    def column(self, m: int, r: int) -> int:
        return m * self.runs + r

    @property
    def weights(self) -> np.ndarray | None:
        return None if self.part.strata is None else stats.macro_weights(self.part.strata)

    def mean_of(self, matrix: np.ndarray) -> np.ndarray:
        """Per column, the mean over topics (macro: the mean of the strata's means,
        :func:`~trecbench.stats.strata_mean`), summed in topic order
        (:func:`~trecbench.stats.topic_mean`): a run's mean, and a target's mark, do not
        move with the runs and measures beside it."""
        if self.part.strata is None:
            return stats.topic_mean(matrix)
        return stats.strata_mean(matrix, self.part.strata)

    def mean_difference(self, diffs: np.ndarray, scale=None) -> np.ndarray:
        """Per column of paired differences, their mean (macro: weighted) as printed and
        tested: :func:`~trecbench.rounding.mean_difference`, 0 where they add up to 0 on
        paper (``scale``: the size of the values subtracted)."""
        return mean_difference(diffs, self.weights, scale)
