"""What every converter shares: ranking-order preservation, id escaping, de-duplication,
the sidecar, self-validation and writing.

A converter builds a :class:`Conversion` (qrels tables, run tables, a sidecar dict) and never
prints or writes; :func:`write_conversion` validates and writes it.

**Ranking order.** Producers break score ties by their own order, trec_eval re-sorts by
score and breaks ties by docno, so original scores cannot be written as they are. Every
converter writes ``score = n - rank + 1`` (``n`` documents for the query, ``rank`` the
1-based position in the producer's order): integers, strictly decreasing, exact in float32,
so trec_eval reproduces the producer's order exactly. The original scores go to the sidecar
(one value per run line, in file order), and ties or order inversions among them are counted.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .. import __version__, outputs
from ..errors import InputError, UsageError
from ..ids import STR, escape_series
from ..ranking import as_float32
from ..sources import At

SIDECAR_FORMAT = "trecbench-sidecar"
SIDECAR_VERSION = 2
SCORE_POLICY = (
    "score = n - rank + 1 where rank is the 1-based position in the producer's order and n "
    "the number of documents written for the query; original scores are kept in "
    "runs.<tag>.original_scores, aligned with the run file's lines"
)
ID_POLICY = (
    "ids are written as given, except that blanks, control and zero-width characters, a "
    "leading '#' and '%' are percent-encoded (UTF-8, %XX): reversible with "
    "trecbench.ids.unescape_id; each change is listed under report.repaired"
)
# The seed's warning (memorybench's token fallback), for every qrels whose relevant
# documents are only those the runs found.
FOUND_ONLY_WARNING = (
    "found-only qrels: only retrieved documents were judged, so the relevant documents "
    "nobody retrieved are unknown; the ideal DCG counts only what was found and may be "
    "underestimated (nDCG and recall are then overestimated): compare such numbers only "
    "with numbers judged the same way"
)
# Cap on itemised entries of one kind in the sidecar; the counts stay exact.
MAX_ITEMS = 1000
_TAG_OK = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass
class Report:
    """Everything a conversion dropped, repaired or noticed, for the sidecar.

    ``dropped`` and ``repaired`` hold one dict per item (``reason`` plus ids); ``counts``
    holds exact totals per reason even when the item lists are capped at ``MAX_ITEMS``.
    """

    dropped: list[dict] = field(default_factory=list)
    repaired: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    # entries listed per (bucket, reason): counts cannot say it (a reason may also be
    # counted without items, or be both dropped and repaired), and re-counting the
    # bucket on every call was quadratic (most of the time on 30k memorybench results)
    _listed: dict[tuple[str, str], int] = field(default_factory=dict, repr=False, compare=False)

    def _add(self, bucket: str, key: str, items: Iterable[dict]) -> None:
        items = list(items)
        if not items:
            return
        self.counts[key] = self.counts.get(key, 0) + len(items)
        listed = self._listed.get((bucket, key), 0)
        room = max(0, MAX_ITEMS - listed)
        getattr(self, bucket).extend({"reason": key, **item} for item in items[:room])
        self._listed[bucket, key] = listed + min(room, len(items))

    def drop(self, reason: str, items: Iterable[dict]) -> None:
        """Record items left out of the output, e.g. duplicate documents."""
        self._add("dropped", reason, items)

    def repair(self, reason: str, items: Iterable[dict]) -> None:
        """Record items changed on the way to the output, e.g. escaped whitespace in ids."""
        self._add("repaired", reason, items)

    def count(self, key: str, n: int) -> None:
        """Add ``n`` to a counter without itemising."""
        if n:
            self.counts[key] = self.counts.get(key, 0) + int(n)

    def note(self, text: str) -> None:
        """A sentence the user should read (printed by the CLI, kept in the sidecar)."""
        self.notes.append(text)

    def as_dict(self) -> dict:
        return {
            "counts": dict(sorted(self.counts.items())),
            "dropped": self.dropped,
            "repaired": self.repaired,
            "notes": self.notes,
        }


@dataclass
class RunOutput:
    """One run to write as ``<tag>.run``, judged against the qrels called ``qrels``."""

    tag: str
    table: pd.DataFrame  # qid, docno, rank, score, tag (written order)
    original_scores: list[float | None] | None  # None: the producer gave no scores
    qrels: str | None  # None: converted without qrels
    stats: dict


@dataclass
class Conversion:
    """The result of a converter: qrels tables by name, runs, and the sidecar content."""

    name: str
    converter: str
    qrels: dict[str, pd.DataFrame]
    runs: list[RunOutput]
    report: Report
    strata: pd.DataFrame | None = None  # qid + one string column per stratum field
    provenance: dict = field(default_factory=dict)
    qrels_info: dict[str, dict] = field(default_factory=dict)
    sections: dict[str, Any] = field(default_factory=dict)  # converter-specific sidecar keys
    ir_metadata: dict[str, Any] | None = None  # written atop every run (convert --ir-metadata)

    @property
    def source(self) -> str:
        """The path of the main input (what errors about the whole conversion name)."""
        inputs = self.provenance.get("inputs") or [{}]
        return str(inputs[0].get("path", self.name))


# ---------------------------------------------------------------------------------------
# ids


def clean_tag(text: str) -> str:
    """A run tag trec_eval and the validator accept: ``[A-Za-z0-9_.-]``, at most 25 chars."""
    tag = _TAG_OK.sub("_", text).strip("_")[:25]
    return tag or "run"


def unique_tag(name: str, owners: dict[str, str], at: At, what: str) -> str:
    """``clean_tag(name)`` for a new ``name`` (``what``: a provider, a chunker), refused when
    an earlier name has the same tag: its qrels and run would silently replace the first's.

    ``owners`` maps each tag given so far to its name, as the error names it (filled
    here); ``at`` is where ``name`` was read.
    """
    tag = clean_tag(name)
    if tag in owners:
        raise at.error(
            f"{owners[tag]} and {what} {name!r} would both be written as {tag!r} (a run tag "
            "keeps at most 25 of A-Z a-z 0-9 _ . -): rename one"
        )
    owners[tag] = f"{what} {name!r}"
    return tag


def input_stem(path: str | os.PathLike) -> str:
    """A default name from an input path: its file name without ``.gz`` and extension."""
    return Path(Path(path).name.removesuffix(".gz")).stem or "input"


def escape_ids(
    frame: pd.DataFrame, columns: Sequence[str], report: Report, owner: dict
) -> pd.DataFrame:
    """Ids as strings (``StringDtype``) made valid for TREC files by the one reversible
    escaping (:func:`trecbench.ids.escape_id`); each change is reported with ``owner``.

    Empty ids are refused earlier, where the input location is known.
    """
    frame = frame.copy()
    for column in columns:
        values, changed = escape_series(frame[column])
        if changed.any():
            original = frame[column].astype(STR)[changed]
            report.repair(
                f"{column} percent-escaped (reversible; trecbench.ids.unescape_id)",
                (
                    {**owner, "from": a, "to": b}
                    for a, b in zip(original, values[changed], strict=True)
                ),
            )
        frame[column] = values
    return frame


def escaped(ids: Iterable[str]) -> list[str]:
    """``ids`` as :func:`escape_ids` writes them (to match ids reported elsewhere)."""
    values, _ = escape_series(pd.Series(list(ids), dtype=STR))
    return values.tolist()


# ---------------------------------------------------------------------------------------
# runs


def ranked_run(
    frame: pd.DataFrame,
    tag: str,
    qrels: str | None,
    report: Report,
    depth: int | None = None,
    queries: Iterable[str] | None = None,
) -> RunOutput:
    """Turn a producer's ranked lists into a run that trec_eval orders the same way.

    ``frame`` has ``qid``, ``docno``, ``order`` (the producer's rank or position: smaller is
    better; ties keep row order, and are counted) and ``score`` (the producer's score, NaN
    if none). Queries keep the order of their first row. Per query: duplicates keep their
    best-ranked copy (each drop reported), the list is cut at ``depth``, and written scores
    are ``n - rank + 1``. Ties and inversions among the original scores are counted.
    ``queries`` are all the queries the producer answered (as in the input): those without
    a document are reported, as they are absent from the run.
    """
    frame = escape_ids(frame, ("qid", "docno"), report, {"run": tag})
    qids, docnos = _arrow(frame["qid"]), _arrow(frame["docno"])
    # integer codes (queries numbered by first appearance), sorted once with numpy
    query = np.asarray(pc.dictionary_encode(qids).indices, dtype=np.int64)
    doc = np.asarray(pc.dictionary_encode(docnos).indices, dtype=np.int64)
    order = frame["order"].to_numpy()
    index = np.lexsort((np.arange(len(frame)), order, query))
    query, doc, order = query[index], doc[index], order[index]
    if queries is not None:
        present = set(pc.unique(qids).to_pylist())
        report.drop(
            f"query without retrieved documents ({tag}; absent from the run: trec_eval "
            "skips it unless -c counts it as 0)",
            ({"run": tag, "qid": q} for q in dict.fromkeys(escaped(queries)) if q not in present),
        )
    same_query = query[1:] == query[:-1]
    report.count(
        f"documents sharing the producer's rank of the one before ({tag}; input order kept)",
        int((same_query & (order[1:] == order[:-1])).sum()),
    )

    # duplicates: the first of each (query, doc) in this order is the best-ranked copy
    key = query * (int(doc.max(initial=0)) + 1) + doc
    unique, first = np.unique(key, return_index=True)
    keep = np.zeros(len(key), bool)
    keep[first] = True
    if not keep.all():
        dropped = np.flatnonzero(~keep)
        kept_order = order[first[np.searchsorted(unique, key[dropped])]]
        report.drop(
            f"duplicate document in a query ({tag}; the best-ranked copy is kept)",
            (
                {"run": tag, "qid": q, "docno": d, "order": _plain(o), "kept_order": _plain(k)}
                for q, d, o, k in zip(
                    qids.take(pa.array(index[dropped])).to_pylist(),
                    docnos.take(pa.array(index[dropped])).to_pylist(),
                    order[dropped],
                    kept_order,
                    strict=True,
                )
            ),
        )
        index, query = index[keep], query[keep]

    starts = np.flatnonzero(np.r_[True, query[1:] != query[:-1]]) if len(query) else query
    lengths = np.diff(np.r_[starts, len(query)])
    position = np.arange(len(query)) - np.repeat(starts, lengths) + 1
    if depth is not None:
        cut = position > depth
        report.count(f"documents beyond depth {depth} cut ({tag})", int(cut.sum()))
        index, query, position = index[~cut], query[~cut], position[~cut]
        lengths = np.minimum(lengths, depth)
    sizes = np.repeat(lengths, lengths)

    scores = frame["score"].to_numpy(dtype=np.float64)[index]
    both = (query[1:] == query[:-1]) & ~np.isnan(scores[1:]) & ~np.isnan(scores[:-1])
    tied = both & (scores[1:] == scores[:-1])
    single = as_float32(scores)  # as trec_eval 9.x holds them
    stats = {
        "queries": int(len(lengths)),
        "documents": int(len(index)),
        "tied_adjacent_scores": int(tied.sum()),
        "queries_with_ties": int(len(np.unique(query[1:][tied]))),
        "float32_only_ties": int((both & ~tied & (single[1:] == single[:-1])).sum()),
        "score_inversions": int((both & (scores[1:] > scores[:-1])).sum()),
    }
    rows = pa.array(index)
    table = pd.DataFrame(
        {
            "qid": qids.take(rows).to_pandas(types_mapper=lambda _: STR),
            "docno": docnos.take(rows).to_pandas(types_mapper=lambda _: STR),
            "rank": position.astype(np.int64),
            "score": (sizes - position + 1).astype(np.float64),
            "tag": pd.Series([tag] * len(index), dtype=STR),
        }
    )
    missing = np.isnan(scores)
    original = None if missing.all() else np.where(missing, None, scores).tolist()
    return RunOutput(tag=tag, table=table, original_scores=original, qrels=qrels, stats=stats)


def _arrow(values: pd.Series) -> pa.Array:
    """A string column as one Arrow array (pandas may hold it in several chunks)."""
    array = pa.array(values)
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def _plain(value):
    """A JSON-friendly Python scalar."""
    return value.item() if isinstance(value, np.generic) else value


def _drop_duplicates(
    frame: pd.DataFrame, column: str, keep: str, report: Report, reason: str, owner: dict
) -> pd.DataFrame:
    """One row per (qid, docno): the first, with ``column`` set to the group's ``keep``
    aggregate (``"first"``, ``"max"``). Each other row is reported under ``reason`` as
    ``owner`` plus its ids, its ``column`` value and the kept one (``kept_<column>``).
    """
    duplicate = frame.duplicated(["qid", "docno"], keep="first")
    if not duplicate.any():
        return frame
    kept = frame.groupby(["qid", "docno"], sort=False)[column].transform(keep)
    dropped = frame[duplicate]
    report.drop(
        reason,
        (
            {**owner, "qid": q, "docno": d, column: _plain(v), f"kept_{column}": _plain(k)}
            for q, d, v, k in zip(
                dropped["qid"], dropped["docno"], dropped[column], kept[duplicate], strict=True
            )
        ),
    )
    return frame.assign(**{column: kept})[~duplicate]


# ---------------------------------------------------------------------------------------
# qrels


def make_qrels(frame: pd.DataFrame, name: str, report: Report) -> pd.DataFrame:
    """Qrels from ``qid``, ``docno``, ``rel`` rows (order of first appearance kept).

    Duplicate judgments keep the highest grade; each is reported (trec_eval would not
    complain, but ranx/ir_measures keep the last and trectools double counts).
    """
    frame = escape_ids(frame, ("qid", "docno"), report, {"qrels": name})
    frame = frame.assign(rel=frame["rel"].astype(np.int64))
    reason = f"duplicate judgment ({name}; the highest grade is kept)"
    frame = _drop_duplicates(frame, "rel", "max", report, reason, {"qrels": name})
    return frame[["qid", "docno", "rel"]].reset_index(drop=True)


def qrels_summary(
    qrels: pd.DataFrame,
    qids: Iterable[str],
    report: Report,
    reason: str,
    *,
    pooled: bool = False,
    found_only: bool = False,
    **extra,
) -> dict:
    """Report the queries among ``qids`` (as in the input) without a relevant judgment
    (under ``reason``) and summarise the qrels for the sidecar.

    ``pooled`` qrels only judge retrieved documents (so they are not ``complete``);
    ``found_only`` ones know no relevant document but those found, and carry
    :data:`FOUND_ONLY_WARNING`.
    """
    relevant = set(qrels.loc[qrels["rel"] > 0, "qid"])
    empty = [q for q in escaped(qids) if q not in relevant]
    report.drop(reason, ({"qid": q} for q in empty))
    info = {
        "complete": not pooled,
        "pooled": pooled,
        "found_only": found_only,
        "queries": int(qrels["qid"].nunique()),
        "relevant": int((qrels["rel"] > 0).sum()),
        "without_relevant": empty,
        **extra,
    }
    if found_only:
        info["warning"] = FOUND_ONLY_WARNING
    return info


# ---------------------------------------------------------------------------------------
# sidecar, validation and writing


def json_text(value: Any, indent: str = "") -> str:
    """Indented JSON that keeps lists of plain values (scores, ids) on one line."""
    inner = indent + " "
    if isinstance(value, dict) and value:
        items = [
            f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {json_text(v, inner)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        items = [inner + json_text(v, inner) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + indent + "]"
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def sidecar_dict(conversion: Conversion, files: dict, validation: dict) -> dict:
    """The sidecar JSON of a conversion (format: docs/convert.md, Sidecar)."""
    strata = conversion.strata
    queries: dict[str, dict] = {}
    fields: list[str] = []
    if strata is not None and len(strata):
        fields = [c for c in strata.columns if c != "qid"]
        records = strata.set_index("qid")[fields]
        # keyed by the ids as written to the qrels and runs (escape_ids), so that
        # `score --strata` finds every query
        records.index = escaped(records.index)
        queries = {
            qid: {k: v for k, v in row.items() if not pd.isna(v)}
            for qid, row in records.to_dict("index").items()
        }
    return {
        "format": SIDECAR_FORMAT,
        "version": SIDECAR_VERSION,
        "trecbench": __version__,
        "converter": conversion.converter,
        "name": conversion.name,
        "provenance": conversion.provenance,
        "score_policy": SCORE_POLICY,
        "id_policy": ID_POLICY,
        "qrels": {
            name: {"file": files[f"qrels:{name}"], **conversion.qrels_info.get(name, {})}
            for name in conversion.qrels
        },
        "runs": {
            run.tag: {
                "file": files[f"run:{run.tag}"],
                "qrels": files.get(f"qrels:{run.qrels}"),
                **run.stats,
                "original_scores": run.original_scores,
            }
            for run in conversion.runs
        },
        "strata": {"fields": fields, "queries": queries},
        **conversion.sections,
        "report": conversion.report.as_dict(),
        "validation": validation,
    }


def check_name(name: str, what: str = "--name") -> str:
    """``name`` if it is a plain file name (outputs stay in their folder), else a
    :class:`UsageError`."""
    if (
        not name
        or name in (".", "..")
        or any(c in name for c in "/\\\0")
        or Path(name).name != name
    ):
        raise UsageError(f"{what} {name!r} is not a plain file name (no folder, not . or ..)")
    return name


def check_judgeable(conversion: Conversion) -> None:
    """Refuse, naming the input, what would make an invalid or unscorable output: an empty
    qrels or run, a run with no query in its qrels, or a run query whose judgments are all
    negative (trec_eval 9.0.8 cannot evaluate it)."""
    source = conversion.source
    for name, table in conversion.qrels.items():
        if table.empty:
            raise InputError(source, None, f"no judgment to write as qrels {name}")
    for run in conversion.runs:
        if run.table.empty:
            raise InputError(source, None, f"run {run.tag}: no retrieved document")
        if run.qrels is None:
            continue
        qrels = conversion.qrels[run.qrels]
        asked = set(run.table["qid"])
        if asked.isdisjoint(qrels["qid"]):
            raise InputError(
                source, None, f"run {run.tag} has no query in common with qrels {run.qrels}"
            )
        best = qrels[qrels["qid"].isin(asked)].groupby("qid")["rel"].max()
        if (best < 0).any():
            raise InputError(
                source,
                None,
                f"qrels {run.qrels}: query {best.index[best < 0][0]!r} has only negative "
                "judgments, which trec_eval 9.0.8 cannot evaluate",
            )


def compare_command(conversion: Conversion, paths: dict[str, Path]) -> str | None:
    """The ``trecbench compare`` command for the runs written: ``compare QRELS RUN...``
    when they share their qrels, else each with its own (``--run-qrels RUN QRELS``);
    None with fewer than two runs or a run without qrels."""
    runs = conversion.runs
    if len(runs) < 2 or any(run.qrels is None for run in runs):
        return None
    files = [str(paths[f"run:{run.tag}"]) for run in runs]
    qrels = [str(paths[f"qrels:{run.qrels}"]) for run in runs]
    if len(set(qrels)) == 1:
        return shlex.join(["trecbench", "compare", qrels[0], *files])
    pairs = [part for pair in zip(files, qrels, strict=True) for part in ("--run-qrels", *pair)]
    return shlex.join(["trecbench", "compare", *pairs])


def _validate(kind: str, path: Path, label: str, qrels=None) -> tuple[dict, object]:
    """Validate a staged output (``label``: its final name) with the strict profile; raise
    on any error (the converters check their inputs first: an error here is a bug).

    Returns the sidecar's summary (counts and the warnings/infos) and, for qrels, the
    ``QrelsInfo`` the run checks need.
    """
    from ..validation import validate_qrels, validate_run

    if kind == "run":
        result = validate_run(path, profile="strict", max_depth=None, qrels=qrels)
    else:
        result = validate_qrels(path, profile="strict", collect_judged=True)
    if not result.ok:
        first = next(f for f in result.findings if f.severity == "error")
        raise InputError(
            label,
            first.line,
            f"converted {kind} fails validation: {first.rule}: {first.message} "
            f"({result.errors} error(s)); this is a trecbench bug, please report it",
        )
    summary = {"counts": result.counts, "findings": [f.to_dict() for f in result.findings]}
    return summary, result.qrels_info


def _headed(conversion: Conversion, run: RunOutput) -> bytes:
    """The ir_metadata block a run's file begins with (none without metadata)."""
    if conversion.ir_metadata is None:
        return b""
    from ..inputs import ir_metadata

    return ir_metadata.block_text({"tag": run.tag, **conversion.ir_metadata}).encode("utf-8")


def write_conversion(
    conversion: Conversion,
    outdir: str | os.PathLike,
    inputs: Sequence[str | os.PathLike],
    runs_dir: str | os.PathLike | None = None,
) -> dict[str, Path]:
    """Validate and write qrels and the sidecar into ``outdir``, runs into ``runs_dir``
    (default ``outdir``); return the paths. The sidecar names the files relative to itself.

    Files are staged (:class:`trecbench.outputs.OutputSet`) and validated with
    :mod:`trecbench.validation`; only if every file passes are they all put in place, as a
    unit, never over an input. File names come from the conversion's name, qrels names and
    run tags, which must be plain file names (:func:`check_name`).
    """
    from ..files import qrels_bytes, run_bytes

    check_name(conversion.name)
    for name in conversion.qrels:
        check_name(name, "qrels name")
    for run in conversion.runs:
        check_name(run.tag, "run tag")
    check_judgeable(conversion)
    outdir = Path(outdir)
    runs_dir = outdir if runs_dir is None else Path(runs_dir)
    targets: dict[str, Path] = {}
    for name in conversion.qrels:
        targets[f"qrels:{name}"] = outdir / f"{name}.qrels"
    for run in conversion.runs:
        key = f"run:{run.tag}"
        if key in targets:
            raise UsageError(f"two runs would both be written as {run.tag}.run")
        targets[key] = runs_dir / f"{run.tag}.run"
    targets["sidecar"] = outdir / f"{conversion.name}.sidecar.json"
    if len({p.resolve() for p in targets.values()}) != len(targets):
        raise UsageError("two outputs would have the same file name; choose another --name")

    names = {key: Path(os.path.relpath(path, outdir)).as_posix() for key, path in targets.items()}
    with outputs.OutputSet(inputs) as out:
        for path in targets.values():  # every target is checked before any work
            out.check(path)
        validation, judged = {}, {}
        for name, table in conversion.qrels.items():
            key = f"qrels:{name}"
            staged = out.write(targets[key], qrels_bytes(table))
            validation[names[key]], judged[name] = _validate("qrels", staged, names[key])
        for run in conversion.runs:
            key = f"run:{run.tag}"
            staged = out.write(targets[key], _headed(conversion, run) + run_bytes(run.table))
            validation[names[key]], _ = _validate("run", staged, names[key], judged.get(run.qrels))
        sidecar = sidecar_dict(conversion, names, validation)
        out.write(targets["sidecar"], json_text(sidecar) + "\n")
    return targets
