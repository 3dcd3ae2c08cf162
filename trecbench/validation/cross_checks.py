"""Checks of a run against what is known of it: ``--topics`` (R4, R5), qrels (X1-X5), its
file name (R19: :func:`run_name`) and ``--min-depth`` (R9).

:class:`~.findings.QrelsInfo` is what the run checks need from the qrels, collected once by
the qrels checker (or :func:`qrels_info` from a typed table) and shared by every run of a
call.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..compressions import without_suffixes
from ..errors import InputError, Setting, UsageError
from ..id_forms import form, nfc, same_text
from ..plurals import counted, share_percent
from ..trec_eval.negative_topics import STOPS, unevaluable
from . import wording
from .findings import Collector, QrelsInfo
from .rules import PROFILE_DEPTH, PROFILES

# a line's first field: fields end at C's white space (trecbench.inputs.trec_text.C_SPACE,
# not imported: it imports Arrow), as in runs
_FIRST_FIELD = re.compile("[ \t\r\v\f]*([^ \t\r\v\f]+)")

if TYPE_CHECKING:  # imported where used: the small path (.small) runs without them
    import numpy as np
    import pyarrow as pa


def qrels_info(qrels: pa.Table) -> QrelsInfo:
    """Topics of a typed qrels table (:func:`trecbench.inputs.trec_text.qrels_table`) for
    run checks."""
    import numpy as np

    from .. import arrow

    groups = arrow.Groups(qrels.column("qid"))
    qids = groups.keys.to_pylist()
    best = dict(zip(qids, groups.reduce(np.maximum, qrels.column("rel")).tolist(), strict=True))
    return QrelsInfo(set(best), None, {q: g for q, g in best.items() if g < 0})


def near_miss(qid: str, known: dict[str, str]) -> str:
    """`` (did you mean '1'?)`` when ``qid`` matches a known id up to zeros, case, a BOM or
    Unicode's normalization form (:mod:`trecbench.id_forms`);
    ``known`` maps :func:`normal_id` of each known id to the id."""
    hit = known.get(normal_id(qid))
    if hit is None:
        return ""
    if qid.isascii() or form(qid) == form(hit):
        return f" (did you mean {wording.quoted(hit)}?)"
    # printed alike (or but for case): say how they differ
    which = "the same text" if same_text(qid, hit) else "it is"
    return (
        f" (did you mean {wording.quoted(hit)}? {which} in Unicode's {form(hit)}, this "
        f"one in {form(qid)}: ids are compared as bytes)"
    )


# what each trec_eval does with a qrels topic the run lacks (X2, R5): 9.0.8 skips it; 10.0
# stops at the first one (after the topics before it with -q); with -c both score it 0
ABSENT_TOPIC = (
    'trec_eval 9.0.8 skips it, 10.0 stops at the first such topic ("result qid ... not found '
    'in qrels", exit 4); both score it 0 with -c'
)


def absent_topic(topic: str, negative_only: dict[str, int]) -> str:
    """:data:`ABSENT_TOPIC` of qrels topic ``topic``, told apart where the trec_evals do
    otherwise: a topic of negative grades only stops 10.0 with -c too (it cannot evaluate
    it on its placeholder), and a ``#`` topic is a comment to 10.0, no topic (Q8)."""
    if topic.startswith("#"):
        return (
            "trec_eval 9.0.8 skips it (with -c scores it 0); 10.0 skips a line with '#' in "
            "its first column as a comment, but not the line right after one (Q8), and stops "
            "at a topic it reads (exit 4)"
        )
    if topic in negative_only:
        return (
            'trec_eval 9.0.8 skips it (with -c scores it 0); 10.0 stops at it ("result qid ... '
            'not found in qrels", exit 4; with -c "Can\'t calculate measure": every '
            "judgment of it is negative)"
        )
    return ABSENT_TOPIC


def normal_id(qid: str) -> str:
    return nfc(qid).lstrip("\ufeff").lower().lstrip("0") or "0"


def top_ten(
    qrels: QrelsInfo, qid: pa.Array, docno: pa.Array, score: np.ndarray, names: list[str], codes
) -> pa.Table | None:
    """The top 10 (in trec_eval's order) of each topic the qrels have, among whole topic
    blocks or a part of a topic (qid, docno, score; None when there is none): what
    :func:`count_unjudged` ranks again, the parts of a split topic together. ``codes``
    index rows into ``names``."""
    import numpy as np
    import pyarrow as pa

    from .. import arrow
    from .. import arrow_compute as pc
    from ..ranking import rank_table

    in_qrels = np.array([n in qrels.topics for n in names], bool)
    keep = np.flatnonzero(in_qrels[codes] & ~np.isnan(score))
    if not len(keep):
        return None
    index = arrow.array(keep)
    large = pa.large_string()  # one type for every chunk's rows, concatenated at the end
    table = pa.table(
        {
            "qid": pc.cast(pc.take(qid, index), large),
            "docno": pc.cast(pc.take(docno, index), large),
            "score": arrow.array(score[keep]),
        }
    )
    return _in_top_ten(rank_table(table)).drop_columns(["rank"])


def _in_top_ten(ranked: pa.Table) -> pa.Table:
    from .. import arrow
    from .. import arrow_compute as pc

    # a mask, not an expression: filtering by expression loads pyarrow.dataset (pandas)
    return pc.filter(ranked, pc.less_equal(ranked.column("rank"), arrow.scalar(10)))


def count_unjudged(qrels: QrelsInfo, tops: list[pa.Table]) -> tuple[int, int]:
    """X4's counts: unjudged and all documents in the top 10 of the topics the qrels have,
    from the :func:`top_ten` of each part of the run. Ranked again together: a topic split
    over chunks (R20) has one top 10, not one a part (each part's was counted, 20
    documents in the top 10 of a topic in two chunks)."""
    import numpy as np
    import pyarrow as pa

    from .. import arrow
    from .. import arrow_compute as pc
    from ..ranking import rank_table
    from .checker import pair_text

    if not tops:
        return 0, 0
    top = _in_top_ten(rank_table(pa.concat_tables(tops)))
    keys = pair_text(top.column("qid"), top.column("docno"))
    judged = arrow.to_numpy(pc.is_in(keys, value_set=qrels.judged))
    return int(np.count_nonzero(~judged)), len(judged)


def topic_ids(text: str, path: str | os.PathLike) -> list[str]:
    """Topic ids of a topics file's ``text``: the first field of each line (a first line
    of column names, ``qid`` or ``query_id``: :data:`TOPIC_HEADERS`, skipped), the ids of
    JSON lines queries (:func:`_json_ids`: told by their first character or by ``path``'s
    name, ``.jsonl``, ``.json``, ``.ndjson``, compressed or not), or the numbers of a TREC
    topics file (``<num> Number: 301``, ``<num>301</num>``, ``<topic number="301">``);
    none is an error, and so is markup of another kind (its first fields are tags, not
    ids)."""
    if json_topics(text, path):  # read as first fields, '{"_id":' was the one topic
        ids = _json_ids(text, str(path))
    elif "<num>" in text:
        ids = _numbers(text, path)
    elif re.search(r"<topic\s[^>]*\bnumber\s*=", text):
        ids = re.findall(r"<topic\s[^>]*?\bnumber\s*=\s*[\"']?([^\"'\s>]+)", text)
    elif text.lstrip("\ufeff \t\r\n").startswith("<"):
        ids = []
    else:
        ids = [found[1] for line in text.split("\n") if (found := _FIRST_FIELD.match(line))]
        if ids and ids[0].lower() in TOPIC_HEADERS:  # a TSV's header: no topic of the runs
            ids = ids[1:]
    if not ids:
        raise InputError(str(path), None, "no topic ids found")
    return ids


def json_topics(text: str, path: str | os.PathLike) -> bool:
    """Whether a topics file is JSON (lines): its ``text`` starts with ``{`` or ``[``, or
    its name ends in ``.jsonl``, ``.json`` or ``.ndjson`` (compressed or not)."""
    suffix = Path(without_suffixes(Path(path).name.lower())).suffix
    return text.lstrip("\ufeff \t\r\n")[:1] in ("{", "[") or suffix in _JSON_SUFFIXES


_JSON_SUFFIXES = (".jsonl", ".json", ".ndjson")
# the first line's first field that names the id column of a TSV (ir_datasets' query_id,
# BEIR's query-id, MS MARCO-like qid), compared in lower case
TOPIC_HEADERS = frozenset({"qid", "query_id", "query-id", "queryid", "topic_id", "id", "_id"})
# the key of a query's id in JSON lines: BEIR's queries.jsonl, ir_datasets', trecbench's
TOPIC_KEYS = ("_id", "query_id", "qid")
_C_SPACE = re.compile("[ \t\n\r\v\f]")


def _json_ids(text: str, path: str) -> list[str]:
    """The ids of JSON lines queries, one object a line holding one of :data:`TOPIC_KEYS`
    (BEIR's ``{"_id": "q1", "text": ...}``); anything else is refused at its line, never
    read as ids: a JSON array, a line without an id key or with two of them, an id that is
    not a string or an integer or that no run's topic could be (empty, white space)."""
    from ..sources import described, parse_jsonl

    if text.lstrip("\ufeff \t\r\n").startswith("["):
        line = text.count("\n", 0, text.index("[")) + 1
        raise InputError(path, line, f"a JSON array; {_JSON_LINES}")
    ids = []
    for line, query in parse_jsonl(text, path):
        keys = [key for key in TOPIC_KEYS if isinstance(query, dict) and key in query]
        if len(keys) != 1:
            named = " and ".join(f'"{key}"' for key in keys)
            found = f"two topic ids ({named})" if keys else f"no topic id in {described(query)}"
            raise InputError(path, line, f"{found}; {_JSON_LINES}")
        qid = query[keys[0]]
        if isinstance(qid, int) and not isinstance(qid, bool):
            qid = str(qid)
        if not isinstance(qid, str) or not qid or _C_SPACE.search(qid):
            what = repr(qid) if isinstance(qid, str) else described(qid)
            raise InputError(path, line, f'"{keys[0]}" is {what}: no topic id a run can hold')
        ids.append(qid)
    return ids


# said alike to validate's --topics, the library's topics= and a benchmark's `topics`
_JSON_LINES = (
    'topics in JSON are JSON lines: one object a line, its id as "_id" (BEIR), "query_id" or "qid"'
)


def _numbers(text: str, path: str | os.PathLike) -> list[str]:
    """The ids of a TREC topics file's ``<num>`` fields (``<num> Number: 301``,
    ``<num>301</num>``); a field without one is an error (``Number:`` itself was read as
    a topic)."""
    ids = []
    for found in re.finditer(r"<num>\s*(?:Number:)?\s*([^\s<]*)", text, re.ASCII):
        if not found[1]:
            line = text.count("\n", 0, found.start()) + 1
            raise InputError(str(path), line, "a <num> field without a topic number")
        ids.append(found[1])
    return ids


def against_topics(
    report: Collector,
    topics: list[str],
    counts: dict[str, int],
    first: dict[str, int],
    whole: bool = True,
) -> None:
    """R4 (run topics not in ``topics``) and, of a ``whole`` run (not cut short: R27), R5
    (``topics`` the run lacks).

    ``counts`` and ``first``: documents and first line of each run topic."""
    known = set(topics)
    near = {normal_id(t): t for t in topics}
    unknown = [q for q in counts if q not in known]
    report.add_many(
        "R4",
        [first[q] for q in unknown],
        "qid",
        lambda i: (
            f"topic {wording.quoted(unknown[i])} is not in {wording.TOPICS_SETTING}"
            f"{near_miss(unknown[i], near)}"
        ),
    )
    if not whole:
        return
    near_run = {normal_id(q): q for q in counts}
    missing = [t for t in topics if t not in counts]
    report.add_many(
        "R5",
        [None] * len(missing),
        None,
        lambda i: (
            f"topic {wording.quoted(missing[i])} of {wording.TOPICS_SETTING} has no document "
            "in the run"
            f"{near_miss(missing[i], near_run)}: when the qrels judge it, "
            f"{ABSENT_TOPIC}"
        ),
    )


def _unevaluable(counts, judged, negative: dict[str, int]) -> list[tuple[str, str]]:
    """The run's topics trec_eval 9.0.8 cannot evaluate, with why
    (:mod:`trecbench.trec_eval.negative_topics`); it evaluates the run's topics that are in
    the qrels, in byte-wise order."""
    evaluated = sorted(q for q in counts if q in judged)
    fatal = []
    for position, qid in enumerate(evaluated):
        top = negative.get(qid)
        how = None if top is None else unevaluable(position, top)
        if how == STOPS:
            why = "trec_eval 9.0.8 stops with 'Can't calculate measure' (exit 4): it is the "
            fatal.append((qid, why + "first topic it evaluates"))
        elif how is not None:
            fatal.append((qid, f"its largest grade is {top}: trec_eval crashes on it"))
    return fatal


def against_qrels(
    report: Collector,
    qrels: QrelsInfo,
    counts: dict[str, int],
    first: dict[str, int],
    unjudged: tuple[int, int],
    whole: bool = True,
) -> None:
    """X1-X5 of a run (``unjudged``: X4's counts from :func:`count_unjudged`). Against
    qrels cut short (R27) none: any topic may be judged in the part never read; of a run
    cut short (not ``whole``) X1 alone: the topics read that the qrels lack. Nor against
    qrels trec_eval stops reading (:attr:`~trecbench.validation.findings.QrelsInfo.unread_at`):
    it compares no run with them."""
    if not qrels.complete or qrels.unread_at is not None:
        return
    judged = qrels.topics
    # of the qrels' ids one near miss stands for ('1', '01'), the last in sorted order: a
    # set's order is its strings' hashes', which change from one process to the next
    near = {normal_id(t): t for t in sorted(judged)}
    absent = [q for q in counts if q not in judged]
    report.add_many(
        "X1",
        [first[q] for q in absent],
        "qid",
        lambda i: (
            f"topic {wording.quoted(absent[i])} is not in the qrels: trec_eval ignores it"
            f"{near_miss(absent[i], near)}"
        ),
    )
    if not whole:  # which topics trec_eval evaluates, and in what order, is not known
        return
    fatal = _unevaluable(counts, judged, qrels.negative_only)
    report.add_many(
        "X5",
        [first[q] for q, _ in fatal],
        "qid",
        lambda i: (
            f"every judgment of topic {wording.quoted(fatal[i][0])} is negative: {fatal[i][1]}"
        ),
    )
    missing = sorted(t for t in judged if t not in counts)
    report.add_many(
        "X2",
        [None] * len(missing),
        None,
        lambda i: (
            f"qrels topic {wording.quoted(missing[i])} has no document in the run: "
            f"{absent_topic(missing[i], qrels.negative_only)}"
        ),
    )
    if counts and not any(q in judged for q in counts):
        report.add(
            "X3",
            None,
            None,
            # 10.0 stops at the first qrels topic the run lacks (X2's), one there always is
            "no topic is in both the run and the qrels (trec_eval 9.0.8 exits 7; 10.0 stops "
            'at the first qrels topic, "result qid ... not found in qrels", exit 4, or with '
            "-c scores every topic 0)",
        )
    count, total = unjudged
    if total:
        share = share_percent(count / total, " percent")  # 0 or 100 only when it is
        report.add(
            "X4",
            None,
            None,
            f"{count} of {counted(total, 'document')} in the top 10 of judged topics "
            f"{'is' if count == 1 else 'are'} unjudged ({share})",
        )


def too_shallow(
    report: Collector, min_depth: int, counts: dict[str, int], first: dict[str, int]
) -> None:
    """R9.shallow: topics with fewer than ``min_depth`` documents (``counts``, ``first``:
    documents and first line of each run topic)."""
    shallow = [q for q, n in counts.items() if n < min_depth]
    report.add_many(
        "R9.shallow",
        [first[q] for q in shallow],
        "qid",
        lambda i: wording.too_shallow(shallow[i], counts[shallow[i]], min_depth),
    )


def tag_names_file(tag: str, name: str) -> bool:
    """Whether run tag ``tag`` is the file name ``name`` (:func:`file_name`'s), with or
    without its usual extension (``a`` and ``a.run`` both name ``a.run``)."""
    return tag == name or tag == run_name(name)


def file_name(path: str | os.PathLike) -> str:
    """A run file's name without its compression suffixes (``bm25.run.gz`` ->
    ``bm25.run``): what R19 compares the tag with."""
    return without_suffixes(Path(path).name)


def run_name(path: str | os.PathLike) -> str:
    """A run file's name without its compression suffixes and the usual extensions
    (``bm25.run.gz`` -> ``bm25``)."""
    name = without_suffixes(Path(path).name)
    for suffix in (".run", ".trec", ".txt", ".tsv", ".res"):
        name = name.removesuffix(suffix)
    return name


def refuse_depths_at_odds(least: object, most: object, profile: object = None) -> None:
    """Refuse a least depth above the most (``most``: :data:`PROFILE_DEPTH`, the
    ``profile``'s): every topic would be flagged."""
    whose = ""
    if most is PROFILE_DEPTH and profile in PROFILES:
        most, whose = PROFILES[profile].max_depth, f" (the {profile} profile's: give one)"
    if isinstance(least, int) and isinstance(most, int) and least > most:
        raise UsageError(
            Setting("min_depth"), f" {least} is above ", Setting("max_depth"), f" {most}"
            f"{whose}: every topic would be flagged, too deep (R8) or too shallow (R9.shallow)",
        )  # fmt: skip
