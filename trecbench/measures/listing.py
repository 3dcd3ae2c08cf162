"""The measure table: what ``trecbench measures`` prints and ``docs/measures.md`` holds.

Everything comes from the registry (definitions and the engines registered for them): the
table is generated, never written by hand. The engines must have been imported for their
column to be filled (the CLI imports :mod:`trecbench.engines` first).
"""

from __future__ import annotations

import json

from . import registry
from .registry import (
    FLOAT_CUTOFF,
    FLOAT_CUTOFFS,
    FLOAT_PARAMS,
    INT_CUTOFF,
    LONG_CUTOFFS,
    META,
    PAIRS,
)

_TREC_SYNTAX = {
    LONG_CUTOFFS: ".k",
    FLOAT_CUTOFFS: "..r",
    FLOAT_PARAMS: ".params",
    PAIRS: ".g=gain,...",
}
_SOURCES = {
    "pytrec_eval": "trec_eval 9.0.8",
    "local": "trecbench (formula in its notes)",
    "trecbench": "the evaluation itself",
    "gdeval": "gdeval (ir_measures' provider)",
    "judged": "ir_measures' judged provider",
    "cwl_eval": "cwl_eval (ir_measures' provider)",
    "pyndeval": "ndeval via pyndeval (ir_measures' provider)",
    "compat": "ir_measures' compat provider",
    "accuracy": "ir_measures' accuracy provider",
}


def _at(definition: registry.Definition) -> str:
    if definition.cutoff == INT_CUTOFF:
        return "@k" if definition.cutoff_required else "[@k]"
    if definition.cutoff == FLOAT_CUTOFF:
        return "@r"
    return ""


def spellings(definition: registry.Definition) -> list[str]:
    """The ways to ask for a family, trec_eval's first."""
    names = []
    if definition.trec_name is not None:
        names.append(definition.trec_name + _TREC_SYNTAX.get(definition.trec_params, ""))
    elif definition.label is not None:
        names.append(f"{definition.label}.k")
    at = _at(definition)
    when = "".join(
        f"({key}=…)" if value is ... else f"({key}={value!r})"
        for key, value in definition.ir_measures_when
    )
    if definition.ir_measures:
        names.append(f"{definition.ir_measures}{when}{at}")
    if definition.trec_name is None or definition.cutoff:
        for name in (definition.display, definition.name, *definition.aliases):
            if name and name not in (definition.trec_name, definition.ir_measures):
                names.append(f"{name}{at}")
    else:
        names += [a for a in (definition.display, *definition.aliases) if a]
    return list(dict.fromkeys(names))


def _param_text(param: registry.Param) -> str:
    default = "unset" if param.default is None else repr(param.default)
    return f"{param.name}={default}"


def rows() -> list[dict]:
    """One record per family: spellings, parameters, description, engines, source."""
    records = []
    for d in registry.definitions():
        records.append(
            {
                "name": d.name,
                "spellings": spellings(d),
                "parameters": [
                    {
                        "name": p.name,
                        "type": p.type.__name__,
                        "default": p.default,
                        "choices": list(p.choices),
                        "doc": p.doc,
                    }
                    for p in d.params
                ],
                "description": d.description,
                "notes": d.notes,
                "summary": d.summary,
                "better": d.better,
                "engines": ["evaluate"] if d.source == META else registry.engines_for(d),
                "source": d.checked or _SOURCES.get(d.source, d.source),
                "trec_eval": list(d.trec_eval),
                "diversity": d.diversity,
                "citation": d.citation,
            }
        )
    return records


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown() -> str:
    """The table as Markdown (``docs/measures.md`` holds exactly this)."""
    header = (
        "| measure | spellings | parameters | what it computes | engines | checked against "
        "| trec_eval | citation |"
    )
    lines = [header, "|---|---|---|---|---|---|---|---|"]
    for r in rows():
        what = r["description"] + (f". {r['notes']}" if r["notes"] else "")
        if r["diversity"]:
            what += " (diversity qrels: subtopic in column 2)"
        cells = [
            r["name"],
            ", ".join(f"`{s}`" for s in r["spellings"]),
            ", ".join(f"`{_param_text(registry.get(r['name']).param(p['name']))}`"
                      for p in r["parameters"]) or "—",
            what,
            ", ".join(r["engines"]) or "—",
            r["source"],
            ", ".join(r["trec_eval"]) or "—",
            r["citation"] or "—",
        ]  # fmt: skip
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def text() -> str:
    """A terminal listing: one block per family."""
    blocks = []
    for r in rows():
        params = ", ".join(
            _param_text(registry.get(r["name"]).param(p["name"])) for p in r["parameters"]
        )
        lines = [
            f"{r['name']}: {r['description']}",
            f"  spellings:  {', '.join(r['spellings'])}",
        ]
        if params:
            lines.append(f"  parameters: {params}")
        if r["notes"]:
            lines.append(f"  notes:      {r['notes']}")
        lines.append(
            f"  engines:    {', '.join(r['engines']) or '-'}; checked against {r['source']}; "
            f"trec_eval: {', '.join(r['trec_eval']) or 'no'}"
        )
        if r["citation"]:
            lines.append(f"  cite:       {r['citation']}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def as_json() -> str:
    return json.dumps(rows(), indent=1, default=str, ensure_ascii=False) + "\n"
