"""The sidecar JSON a conversion writes beside its files (format: docs/convert.md,
Sidecar): provenance, the policies, each run's original scores and statistics, the strata
and the report of what was dropped or repaired."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .. import __version__
from ..inputs.unconverted import SIDECAR_FORMAT, SIDECAR_VERSION
from .identifiers import escaped
from .model import Conversion

SCORE_POLICY = (
    "score = n - rank + 1 where rank is the 1-based position in the producer's order and n "
    "the number of documents written for the query; original scores are kept in "
    "runs.<tag>.original_scores, aligned with the run file's lines"
)
ID_POLICY = (
    "ids are written as given, except that blanks, control and zero-width characters, a "
    "query id's leading '#' and a '%' followed by two hex digits are percent-encoded "
    "(UTF-8, %XX): reversible with trecbench.ids.unescape_id; each change is listed under "
    "report.repaired"
)


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


def sidecar_dict(
    conversion: Conversion, files: dict, validation: dict, written: Sequence[dict]
) -> dict:
    """The sidecar JSON of a conversion (format: docs/convert.md, Sidecar). ``written``:
    the records (path, kind, size, sha256) of the qrels and runs written, as
    ``provenance.outputs`` holds them. No environment block (the reports' Python,
    platform and package versions): the sidecar is the same bytes on every machine, so
    that a committed one (the demo's) stays as committed; its ``trecbench`` names the
    version that wrote it."""

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
        "provenance": {
            **conversion.provenance,
            "outputs": list(written),
        },
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


def _trecbench_sidecar(sidecar: Path) -> dict | None:
    """The document of trecbench's sidecar at ``sidecar``; None when there is none there,
    or what is there is none of trecbench's (it is replaced as any output is)."""
    try:
        if not sidecar.is_file():
            return None
        document = json.loads(sidecar.read_bytes())
    except (OSError, ValueError, RecursionError):  # unreadable, not JSON, or too deep
        return None
    if not isinstance(document, dict) or document.get("format") != SIDECAR_FORMAT:
        return None
    return document


def listed_files(sidecar: Path) -> list[Path]:
    """The qrels and run files an existing sidecar at ``sidecar`` describes (its
    ``qrels.<name>.file`` and ``runs.<tag>.file``, from its folder); none when there is
    no sidecar of trecbench's there."""
    document = _trecbench_sidecar(sidecar) or {}
    entries = [
        entry
        for section in ("qrels", "runs")
        if isinstance(document.get(section), dict)
        for entry in document[section].values()
    ]
    files = [entry.get("file") for entry in entries if isinstance(entry, dict)]
    return [path for file in files if (path := _placed(sidecar, file)) is not None]


def described_checksums(sidecar: Path) -> dict[Path, str | None]:
    """The files an existing sidecar at ``sidecar`` describes, each with the sha256 its
    ``provenance.outputs`` records (None where it records none)."""
    document = _trecbench_sidecar(sidecar) or {}
    provenance = document.get("provenance")
    records = provenance.get("outputs") if isinstance(provenance, dict) else None
    checksums: dict[Path, str | None] = dict.fromkeys(listed_files(sidecar))
    for record in records if isinstance(records, list) else []:
        if isinstance(record, dict) and (path := _placed(sidecar, record.get("path"))):
            checksums[path] = record.get("sha256")
    return checksums


def _placed(sidecar: Path, file: Any) -> Path | None:
    """The file a sidecar names ``file`` (from its folder), None for no file name."""
    if isinstance(file, str) and file and "\0" not in file:
        return sidecar.parent / file
    return None
