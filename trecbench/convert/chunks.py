"""remem's chunk matching: which gold document a retrieved chunk comes from.

RAG evaluators such as remem's ``retrieval_eval`` give gold documents and retrieved chunks
as *texts*. remem decides that a chunk comes from a document with
``is_chunk_from_original(chunk, original)``, reproduced here rule for rule:

1. a chunk starting with ``Date: `` loses its first line;
2. a chunk then starting with ``user: `` or ``assistant: `` is reduced to the text between
   the first and the second ``": "`` (remem's ``chunk.split(": ")[1]``, quirk included);
3. **exact**: that text is a substring of the document; **json-escaped**: its JSON
   encoding (``json.dumps``, quotes included, reduced the same way) is.

remem's documentation promises a fuzzy step its code does not have; trecbench adds it
last: **fuzzy**: the similarity of that text to the document reaches the threshold
((0, 100], default :data:`FUZZY_THRESHOLD`; ``None`` disables the step, which reproduces
remem's code exactly). The similarity is ``rapidfuzz.fuzz.partial_ratio`` (the best
alignment of the chunk inside the document) when the chunk is not longer than the
document, else ``rapidfuzz.fuzz.ratio`` (the whole texts): a chunk longer than a document
cannot come from it by partial alignment alone.

Each chunk is assigned to at most one gold document: the first one no earlier chunk
took among those it matches, by the strongest rule (exact, json-escaped, fuzzy), then
the document's position; the fuzzy step is tried only when every document matched by
the others is taken. A document is not assigned twice: a chunk whose every match is
taken is a **repeat** and stays an unjudged document, so ranks do not move. A chunk
matching several documents is **ambiguous** (remem would credit them all in Recall_all).

trecbench departs from remem on empty texts: a chunk whose text is empty or blank once
reduced (steps 1 and 2) comes from no document (remem finds ``""`` in every document, and
``"  "`` in any holding two blanks, and credits it), and an empty gold document is refused
where it is read (:mod:`trecbench.convert.lists`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

RULES = ("exact", "json-escaped", "fuzzy")
FUZZY_THRESHOLD = 90.0
_ROLES = ("user: ", "assistant: ")


def _remem_texts(chunk: str) -> tuple[str, str]:
    """The text remem looks for, and its JSON-escaped form (steps 1 and 2)."""
    if chunk.startswith("Date: "):
        chunk = "\n".join(chunk.split("\n")[1:])
    escaped = json.dumps(chunk)
    if chunk.startswith(_ROLES):
        return chunk.split(": ")[1], escaped.split(": ")[1]
    return chunk, escaped


def match_rule(chunk: str, document: str, fuzzy: float | None = FUZZY_THRESHOLD) -> str | None:
    """The rule by which ``chunk`` comes from ``document`` (``exact``, ``json-escaped``,
    ``fuzzy``), or None. Without the fuzzy step this is remem's
    ``is_chunk_from_original``, but for a chunk whose text is empty (:func:`empty_text`),
    which comes from no document here (remem finds ``""`` in every one)."""
    text, escaped = _remem_texts(chunk)
    if not text.strip():
        return None
    if text in document:
        return "exact"
    if escaped in document:
        return "json-escaped"
    if fuzzy is not None and _similarity(text, document, fuzzy) >= fuzzy:
        return "fuzzy"
    return None


def empty_text(chunk: str) -> bool:
    """Whether the text remem looks for in a document is empty or blank once ``chunk`` is
    reduced (steps 1 and 2: ``""``, ``"Date: x"``, ``"user: "``, ``"  "``): it is a
    substring of every document (or of any holding as many blanks), so remem credits such
    a chunk to them; here it matches none."""
    return not _remem_texts(chunk)[0].strip()


def _similarity(text: str, document: str, cutoff: float) -> float:
    from rapidfuzz import fuzz  # imported only when fuzzy matching is used

    # partial_ratio aligns the shorter text inside the longer: never a document in a chunk
    scorer = fuzz.partial_ratio if len(text) <= len(document) else fuzz.ratio
    return scorer(text, document, score_cutoff=cutoff)


@dataclass
class Assignment:
    """What one retrieved chunk became: its gold document (index) and rule, or None."""

    chunk: int
    gold: int | None
    rule: str | None
    repeat: bool = False  # its gold document was already retrieved by an earlier chunk
    also: list[int] = field(default_factory=list)  # other gold documents it matches

    def as_dict(self) -> dict:
        out = {"chunk": self.chunk, "gold": self.gold, "rule": self.rule}
        if self.repeat:
            out["repeat"] = True
        if self.also:
            out["also"] = self.also
        return out


def assign(
    gold: list[str], chunks: list[str], fuzzy: float | None = FUZZY_THRESHOLD
) -> list[Assignment]:
    """Assign each chunk (in ranked order) to a gold document, as the module describes."""
    taken: set[int] = set()
    out = []
    for position, chunk in enumerate(chunks):
        found = {i: rule for i, doc in enumerate(gold) if (rule := match_rule(chunk, doc, None))}
        if fuzzy is not None and all(i in taken for i in found):  # fuzzy only when needed
            found |= {
                i: "fuzzy"
                for i, doc in enumerate(gold)
                if i not in found and match_rule(chunk, doc, fuzzy)
            }
        ranked = sorted(found, key=lambda i: (RULES.index(found[i]), i))
        free = [i for i in ranked if i not in taken]
        if free:
            chosen, repeat = free[0], False
            taken.add(chosen)
        elif ranked:
            chosen, repeat = ranked[0], True
        else:
            out.append(Assignment(position, None, None))
            continue
        also = [i for i in ranked if i != chosen]
        out.append(Assignment(position, chosen, found[chosen], repeat, also))
    return out
