"""What every converter shares: ranking-order preservation, id cleaning, de-duplication,
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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import __version__, outputs
from ..errors import InputError, UsageError

SIDECAR_FORMAT = "trecbench-sidecar"
SIDECAR_VERSION = 1
SCORE_POLICY = (
    "score = n - rank + 1 where rank is the 1-based position in the producer's order and n "
    "the number of documents written for the query; original scores are kept in "
    "runs.<tag>.original_scores, aligned with the run file's lines"
)
# Cap on itemised entries of one kind in the sidecar; the counts stay exact.
MAX_ITEMS = 1000
_TAG_OK = re.compile(r"[^A-Za-z0-9_.-]+")
_WHITESPACE = r"\s"

STR = pd.StringDtype()


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

    def _add(self, bucket: list[dict], key: str, items: Iterable[dict]) -> None:
        items = list(items)
        if not items:
            return
        self.counts[key] = self.counts.get(key, 0) + len(items)
        room = max(0, MAX_ITEMS - sum(1 for entry in bucket if entry["reason"] == key))
        bucket.extend({"reason": key, **item} for item in items[:room])

    def drop(self, reason: str, items: Iterable[dict]) -> None:
        """Record items left out of the output, e.g. duplicate documents."""
        self._add(self.dropped, reason, items)

    def repair(self, reason: str, items: Iterable[dict]) -> None:
        """Record items changed on the way to the output, e.g. escaped whitespace in ids."""
        self._add(self.repaired, reason, items)

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
    original_scores: list[float | None]
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


# ---------------------------------------------------------------------------------------
# ids


def clean_tag(text: str) -> str:
    """A run tag trec_eval and the validator accept: ``[A-Za-z0-9_.-]``, at most 25 chars."""
    tag = _TAG_OK.sub("_", text).strip("_")[:25]
    return tag or "run"


def clean_ids(frame: pd.DataFrame, columns: Sequence[str], report: Report) -> pd.DataFrame:
    """Percent-escape whitespace inside ids (trec_eval splits on it) and report each change.

    Ids become strings (``StringDtype``). Empty ids are refused earlier, where the input
    location is known (:func:`id_text`).
    """
    frame = frame.copy()
    for column in columns:
        values = frame[column].astype(STR)
        spaced = values.str.contains(_WHITESPACE, regex=True)
        if spaced.any():
            fixed = values[spaced].str.replace(
                _WHITESPACE, lambda m: f"%{ord(m.group(0)):02X}", regex=True
            )
            report.repair(
                f"whitespace in {column} percent-escaped",
                ({"from": a, "to": b} for a, b in zip(values[spaced], fixed, strict=True)),
            )
            values = values.where(~spaced, fixed)
        frame[column] = values
    return frame


# ---------------------------------------------------------------------------------------
# runs


def ranked_run(
    frame: pd.DataFrame,
    tag: str,
    qrels: str | None,
    report: Report,
    depth: int | None = None,
) -> RunOutput:
    """Turn a producer's ranked lists into a run that trec_eval orders the same way.

    ``frame`` has ``qid``, ``docno``, ``order`` (the producer's rank or position: smaller is
    better; ties keep row order) and ``score`` (the producer's score, NaN if none). Queries
    keep the order of their first row. Per query: duplicates keep their best-ranked copy
    (each drop reported), the list is cut at ``depth``, and written scores are
    ``n - rank + 1``. Ties and inversions among the original scores are counted.
    """
    frame = clean_ids(frame, ("qid", "docno"), report)
    frame = frame.assign(_query=pd.factorize(frame["qid"])[0], _row=np.arange(len(frame)))
    frame = frame.sort_values(["_query", "order", "_row"], kind="stable")

    reason = f"duplicate document in a query ({tag}; the best-ranked copy is kept)"
    frame = _drop_duplicates(frame, "order", "first", report, reason, {"run": tag})

    position = frame.groupby("_query", sort=False).cumcount().to_numpy() + 1
    if depth is not None:
        cut = position > depth
        report.count(f"documents beyond depth {depth} cut ({tag})", int(cut.sum()))
        frame, position = frame[~cut], position[~cut]
    sizes = frame.groupby("_query", sort=False)["docno"].transform("size").to_numpy()

    scores = frame["score"].to_numpy(dtype=np.float64)
    query = frame["_query"].to_numpy()
    both = (query[1:] == query[:-1]) & ~np.isnan(scores[1:]) & ~np.isnan(scores[:-1])
    tied = both & (scores[1:] == scores[:-1])
    stats = {
        "queries": int(len(np.unique(query))),
        "documents": int(len(frame)),
        "tied_adjacent_scores": int(tied.sum()),
        "queries_with_ties": int(len(np.unique(query[1:][tied]))),
        "float32_only_ties": int(
            (both & ~tied & (scores[1:].astype(np.float32) == scores[:-1].astype(np.float32))).sum()
        ),
        "score_inversions": int((both & (scores[1:] > scores[:-1])).sum()),
    }
    table = pd.DataFrame(
        {
            "qid": frame["qid"].to_numpy(),
            "docno": frame["docno"].to_numpy(),
            "rank": position.astype(np.int64),
            "score": (sizes - position + 1).astype(np.float64),
            "tag": tag,
        }
    ).astype({"qid": STR, "docno": STR, "tag": STR})
    original = [None if np.isnan(s) else float(s) for s in scores]
    return RunOutput(tag=tag, table=table, original_scores=original, qrels=qrels, stats=stats)


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
    frame = clean_ids(frame, ("qid", "docno"), report)
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
    **extra,
) -> dict:
    """Report the queries among ``qids`` without a relevant judgment (under ``reason``)
    and summarise the qrels for the sidecar.

    ``pooled`` qrels only judge retrieved documents (so they are not ``complete``).
    """
    relevant = set(qrels.loc[qrels["rel"] > 0, "qid"])
    empty = [q for q in qids if q not in relevant]
    report.drop(reason, ({"qid": q} for q in empty))
    return {
        "complete": not pooled,
        "pooled": pooled,
        "queries": int(qrels["qid"].nunique()),
        "relevant": int((qrels["rel"] > 0).sum()),
        "without_relevant": empty,
        **extra,
    }


# ---------------------------------------------------------------------------------------
# JSON inputs


def load_json(path: str | os.PathLike) -> Any:
    """Parse a JSON file, turning syntax errors into ``file:line`` input errors."""
    outputs.note_input(path)
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as exc:
        raise InputError(str(path), None, f"cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise InputError(str(path), None, f"not UTF-8: {exc.reason}") from None
    except json.JSONDecodeError as exc:
        raise InputError(str(path), exc.lineno, f"invalid JSON: {exc.msg}") from None


def load_jsonl(path: str | os.PathLike) -> list[tuple[int, dict]]:
    """``(line number, object)`` for every non-blank line of a JSON-lines file."""
    return list(iter_jsonl(path))


def iter_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, dict]]:
    """:func:`load_jsonl` one line at a time (stop early to read only the first records)."""
    outputs.note_input(path)
    try:
        with open(path, encoding="utf-8") as handle:
            for number, text in enumerate(handle, 1):
                if not text.strip():
                    continue
                try:
                    value = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise InputError(str(path), number, f"invalid JSON: {exc.msg}") from None
                if not isinstance(value, dict):
                    raise InputError(str(path), number, "expected a JSON object on each line")
                yield number, value
    except OSError as exc:
        raise InputError(str(path), None, f"cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise InputError(str(path), None, f"not UTF-8: {exc.reason}") from None


def number(value: Any, path: str | os.PathLike, line: int | None, key: str) -> float:
    """A producer's score as float (NaN when absent); anything but a JSON number is an
    error (a string score would otherwise sort as text or crash later)."""
    if value is None:
        return float("nan")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(str(path), line, f"{key} {value!r} is not a number")
    return float(value)


def id_text(value: Any, path: str | os.PathLike, where: str) -> str:
    """An id from JSON as a string: strings as they are, integers in decimal.

    Floats and booleans are refused: ``1.0`` or ``true`` as an id is almost certainly a
    mistake, and its text form is not what the producer meant.
    """
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(str(path), None, f"{where}: expected a non-empty string id, found {value!r}")


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
    return json.dumps(value, ensure_ascii=False)


def sidecar_dict(conversion: Conversion, files: dict, validation: dict) -> dict:
    """The sidecar JSON of a conversion (see the README's convert section for the format)."""
    strata = conversion.strata
    queries: dict[str, dict] = {}
    fields: list[str] = []
    if strata is not None and len(strata):
        fields = [c for c in strata.columns if c != "qid"]
        records = strata.set_index("qid")[fields]
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
        "report": conversion.report.as_dict(),
        "validation": validation,
    }


def _validate(kind: str, path: Path, label: str, qrels=None) -> tuple[dict, object]:
    """Validate a staged output (``label``: its final name) with the strict profile; raise
    on any error.

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
    unit, never over an input.
    """
    from ..files import qrels_bytes, run_bytes

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
            staged = out.write(targets[key], run_bytes(run.table))
            validation[names[key]], _ = _validate("run", staged, names[key], judged.get(run.qrels))
        sidecar = sidecar_dict(conversion, names, validation)
        out.write(targets["sidecar"], json_text(sidecar) + "\n")
    return targets
