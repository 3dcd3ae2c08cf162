"""The measure table: what ``trecbench measures`` prints and ``docs/measures.md`` holds.

Everything comes from the registry (definitions and the engines registered for them): the
table is generated, never written by hand. The engines must have been imported for their
column to be filled (the CLI imports :mod:`trecbench.engines` first).
"""

from __future__ import annotations

import json

from ..markdown_text import markdown_cell
from . import registry
from .catalog import ALL_TREC, NICKNAMES
from .registry import (
    FLOAT_CUTOFF,
    FLOAT_CUTOFFS,
    FLOAT_PARAMS,
    INT_CUTOFF,
    LONG_CUTOFFS,
    META,
    PAIRS,
)
from .trec_params import numbers_of

_TREC_SYNTAX = {
    LONG_CUTOFFS: ".k",
    FLOAT_CUTOFFS: ".r",
    FLOAT_PARAMS: ".params",
    PAIRS: ".g=gain,...",
}


# what a diversity measure reads, said by every view of the listing: qrels of one subtopic give
# numbers without meaning
DIVERSITY_QRELS = "diversity qrels: subtopic in column 2"

# what every family's spellings take besides those listed (measures/names.py reads them):
# the text listing's first lines, and docs/measures.md's above its generated table
READING = (
    "Names are read in any case (p@10, Map, rPrEc, NDCG_CUT@10) but in trec_eval's "
    "parameter lists and labels (P.10, P_10), which are case-sensitive, as in trec_eval.",
    "A name of letters and digits with an integer cutoff may also be written name_at_k, "
    "memorybench's spelling (RR_at_3 is RR@3; Judged_at_5, nDCG_at_10).",
)


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
    elif definition.label is not None and definition.label not in registry.index().trec:
        names.append(f"{definition.label}.k")  # success.k is trec_eval's success, not HitRate
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
    domain = f" ({param.domain})" if param.domain is not None else ""
    return f"{param.name}={_shown(param.default)}{domain}"


def _numbers_text(definition: registry.Definition) -> str:
    """``cutoff in [1, 20]``: the domain of a family's cutoff and trec_eval numbers."""
    numbers = definition.numbers
    return "" if numbers is None else f"{_bare(numbers.what)} {numbers}"


def _numbers_apart(definition: registry.Definition) -> bool:
    """Whether a family's trec_eval numbers are no keyword parameter (set_F's is beta,
    said with the parameters)."""
    numbers = definition.numbers
    return numbers is not None and definition.param(_bare(numbers.what)) is None


def _parameters_cell(definition: registry.Definition) -> str:
    parts = [f"`{_param_text(param)}`" for param in definition.params]
    if _numbers_apart(definition):
        parts.append(_numbers_text(definition))
    return ", ".join(parts) or "—"


def _bare(what: str) -> str:
    return what.removeprefix("the ").removeprefix("a ")


def _domain(domain: registry.Domain) -> dict:
    return {"domain": str(domain), "reason": domain.reason}


def _numbers_record(domain: registry.Domain) -> dict:
    return {"what": domain.what, **_domain(domain)}


def _name(measure) -> str:
    """A measure's canonical name, a trec_eval float list without Python's ``.0``
    (``Rprec_mult.0``, not ``Rprec_mult.0.0``)."""
    if measure.definition.trec_params == FLOAT_CUTOFFS and measure.params and not measure.options:
        values = (_number(float(v)) for v in str(measure.params).split(","))
        return f"{measure.family}.{','.join(values)}"
    return measure.canonical


def printed_names(measure) -> list[str]:
    """The names ``score`` prints a measure's values under (trec_eval's format: ``RR@10``
    is ``recip_rank_cut_10``, ``P`` its default cutoffs' ``P_5`` ... ``P_1000``)."""
    from .labels import level_key, trec_label, value_names

    names = value_names(measure)
    if names is None:  # a float cutoff family without levels: trec_eval's defaults
        return [level_key(measure.family, v) for v in measure.definition.trec_defaults]
    # a level's label as trec text prints it (IPrec@0.005: iprec_at_recall_0.01)
    return [trec_label(measure, label) for label, _ in names]


def meanings(said: list[tuple], output_format: str = "text", version: str = "9.0.8") -> str:
    """What ``trecbench measures NAMES`` prints: per ``(name, measure, engine)`` what the
    name means, as text (a line and its :func:`parameter_lines`), Markdown (a list) or
    JSON (``name``, ``canonical``, ``description``, ``engine``, ``checked_against``,
    ``compat``, ``parameters``); ``version``: the trec_eval whose names were read (said,
    since ``rbp`` is one measure under 9.0.8 and another under 10.0)."""
    if output_format == "json":
        import json

        entries = [
            {
                "name": name, "canonical": measure.canonical,
                "description": measure.definition.description, "engine": engine,
                "checked_against": registry.checked_against(measure.definition, measure.provider),
                "compat": version, "prints_as": printed_names(measure),
                "parameters": [line.strip() for line in parameter_lines(measure)],
            }
            for name, measure, engine in said
        ]  # fmt: skip
        return json.dumps(entries, indent=1, ensure_ascii=False) + "\n"
    out = []
    for name, measure, engine in said:
        what = (
            f"{_name(measure)} — {measure.definition.description} "
            f"(engine {engine}, checked against "
            f"{registry.checked_against(measure.definition, measure.provider)}; read as trec_eval "
            f"{version}'s names)"
        )
        if measure.definition.diversity:
            what += f"; {DIVERSITY_QRELS}"
        printed = f"  prints as {', '.join(printed_names(measure))} (score's trec format)"
        if output_format == "markdown":
            out.append(f"- `{name}`: {what}")
            out.append(f"  - {printed.strip()}")
            out += [f"  - {line.strip()}" for line in parameter_lines(measure)]
        else:
            out += [f"{name}: {what}", printed, *parameter_lines(measure)]
    return "\n".join(out) + "\n"


def parameter_lines(measure) -> list[str]:
    """What ``trecbench measures NAME`` says of a measure's parameters: each one's value
    (or default) and domain, with the domain's reason."""
    definition = measure.definition
    given, numbers = dict(measure.options), []
    for name, value in numbers_of(definition, measure.params) if measure.params else ():
        key = name if name is not None else _bare(definition.numbers.what)
        if definition.param(key) is not None:  # rbp.p=0.8, set_F.0.5 (beta)
            given[key] = value
        else:
            numbers.append(_number(value) if name is None else f"{name}={_number(value)}")
    lines = []
    for param in definition.params:
        shown = _shown(given.get(param.name, param.default))
        if param.name in given:
            shown += f" (default {_shown(param.default)})"
        if param.choices:
            shown += f"; one of {', '.join(map(repr, param.choices))}"
        if param.domain is not None:
            shown += f"; {param.domain}: {param.domain.reason}"
        lines.append(f"  {param.name} = {shown}")
    domain = definition.numbers
    if _numbers_apart(definition):
        value = f" = {', '.join(numbers)}" if numbers else ""
        if not numbers and measure.params is None and definition.trec_defaults:
            defaults = ", ".join(_number(v) for v in definition.trec_defaults)
            value = f" = {defaults} (trec_eval's defaults)"
        lines.append(f"  {_bare(domain.what)}{value}; {domain}: {domain.reason}")
    return lines


def _number(value) -> str:
    """A number as written (relstring.0's cutoff is 0, not 0.0), every digit kept
    (Rprec_mult.0.123456789's multiplier is not %g's 0.123457)."""
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def _shown(value) -> str:
    return "unset" if value is None else repr(value)


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
                        "domain": None if p.domain is None else _domain(p.domain),
                    }
                    for p in d.params
                ],
                "numbers": None
                if d.numbers is None
                else {"what": d.numbers.what, **_domain(d.numbers)},
                "description": d.description,
                "notes": d.notes,
                "summary": d.summary,
                "better": d.better,
                "engines": ["evaluate"] if d.source == META else registry.engines_for(d),
                "source": registry.checked_against(d),
                "trec_eval": list(d.trec_eval),
                "diversity": d.diversity,
                "citation": d.citation,
            }
        )
    return records


def nickname_rows() -> list[dict]:
    """One record per trec_eval nickname (``-m official``): the measures it names, in
    trec_eval 9.0.8 (10.0's all_trec adds ``unj``, ``rbp`` and ``rbp_resid``)."""
    records = []
    for name, names in NICKNAMES.items():
        added = [n for n in ALL_TREC["10.0"] if n not in names] if name == "all_trec" else []
        description = f"trec_eval's nickname for {' '.join(names)}"
        if added:
            description += f" (10.0 adds {' '.join(added)})"
        records.append(
            {
                "name": name, "nickname": True, "spellings": [name], "measures": list(names),
                "measures_10": [*ALL_TREC["10.0"]] if added else list(names),
                "description": description, "trec_eval": ["9.0.8", "10.0"],
            }
        )  # fmt: skip
    return records


def _cell(text: str) -> str:
    """A cell of the table: a line break would end its row."""
    return markdown_cell(text.replace("\n", " "))


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
            what += f" ({DIVERSITY_QRELS})"
        cells = [
            r["name"],
            ", ".join(f"`{s}`" for s in r["spellings"]),
            _parameters_cell(registry.get(r["name"])),
            what,
            ", ".join(r["engines"]) or "—",
            r["source"],
            ", ".join(r["trec_eval"]) or "—",
            r["citation"] or "—",
        ]  # fmt: skip
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    for r in nickname_rows():
        cells = [r["name"], f"`{r['name']}`", "—", r["description"], "—", "—", "9.0.8, 10.0", "—"]
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
        if _numbers_apart(registry.get(r["name"])):
            lines.append(f"  numbers:    {_numbers_text(registry.get(r['name']))}")
        if r["notes"]:
            lines.append(f"  notes:      {r['notes']}")
        if r["diversity"]:
            lines.append(f"  qrels:      {DIVERSITY_QRELS}")
        lines.append(
            f"  engines:    {', '.join(r['engines']) or '-'}; checked against {r['source']}; "
            f"trec_eval: {', '.join(r['trec_eval']) or 'no'}"
        )
        if r["citation"]:
            lines.append(f"  cite:       {r['citation']}")
        blocks.append("\n".join(lines))
    for r in nickname_rows():
        blocks.append(f"{r['name']}: {r['description']}\n  trec_eval: {', '.join(r['trec_eval'])}")
    return "\n".join(READING) + "\n\n" + "\n\n".join(blocks) + "\n"


def as_json() -> str:
    """Every family's record (``"nickname": false``), then every nickname's."""
    records = [{**r, "nickname": False} for r in rows()] + nickname_rows()
    return json.dumps(records, indent=1, default=str, ensure_ascii=False) + "\n"
