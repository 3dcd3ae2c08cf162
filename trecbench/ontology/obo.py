"""OBO 1.4 text (``hp.obo``): [Term] stanzas, ``is_a`` edges, obsolete flags, read line by
line with every refusal at its line."""

from __future__ import annotations

import os

from ..errors import InputError, excerpt
from ..sources import Content, read_source, source_text
from .terms import Ontology
from .user_files import DATE, FileTerms, cycle_message, file_ontology, is_a_cycle


def _obo_value(value: str) -> str:
    """The value of an OBO tag without trailing modifiers ``{...}`` and comments ``! ...``."""
    value = value.split(" ! ", 1)[0]
    if value.endswith("}") and " {" in value:
        value = value[: value.rindex(" {")]
    return value.strip()


def parse_obo(path: str | os.PathLike) -> Ontology:
    """Parse an OBO 1.4 ``hp.obo`` (plain or gzip): [Term] stanzas, ``is_a`` edges,
    obsolete flags.

    Other relations (``relationship:``) are ignored: depth and ancestry are over is_a only.
    ``alt_id`` values are not terms, so they stay unknown (as in Phentrieve).
    """
    return read_obo(read_source(path, "ontology"))


def read_obo(source: Content) -> Ontology:
    """The ontology of an OBO file already read; an is_a cycle refused at its edge's line."""
    path = source.path
    text = source_text(source)  # a byte-order mark dropped, bad bytes named by their line
    reader = _OboReader(path)
    for lineno, raw in enumerate(text.splitlines(), start=1):
        reader.read(lineno, raw.strip())
    reader.finish_term()
    parents = reader.terms.parents
    if not parents:
        raise InputError(path, None, "no [Term] stanza found: not an OBO ontology")
    edge_lines, defined = reader.edge_lines, reader.defined
    cycle = is_a_cycle(parents)
    if cycle is not None:
        raise InputError(path, edge_lines.get((cycle[-2], cycle[-1])), cycle_message(cycle))
    return file_ontology(
        source, reader.terms, lambda term, parent: edge_lines.get((term, parent), defined[term])
    )


class _OboReader:
    """An OBO file read line by line: the stanza it is in, the [Term] being read (a dict of
    its tags until the next stanza), the terms finished, and where each was read."""

    def __init__(self, path: str):
        self.path = path
        self.terms = FileTerms()
        self.stanza: str | None = None
        self.term: dict | None = None
        self.defined: dict[str, int] = {}  # id -> line of its stanza
        self.edge_lines: dict[tuple[str, str], int] = {}  # (term, parent) -> line of the is_a

    def read(self, lineno: int, line: str) -> None:
        """One stripped line: blank or a comment, a stanza's header, or a ``tag: value``
        of the file's header or of the [Term] being read (other stanzas' tags skipped)."""
        if not line or line.startswith("!"):
            return
        if line.startswith("[") and line.endswith("]"):
            self.finish_term()
            self.stanza = line
            self.term = None
            if line == "[Term]":
                self.term = {"line": lineno, "is_a": [], "synonyms": [], "obsolete": False}
                self.term["replaced_by"] = None
            return
        tag, sep, value = line.partition(":")
        if not sep or not tag or any(c.isspace() for c in tag):
            # a tag holds no blank: 'is_a HP:0000118' (its colon left out) is no tag 'is_a
            # HP', skipped as unknown: the edge would be lost without a word
            raise InputError(self.path, lineno, f"expected 'tag: value', got {line[:60]!r}")
        value = value.strip()
        if self.stanza is None:
            if tag == "data-version":
                m = DATE.search(value)
                self.terms.release = m.group(1) if m else value
        elif self.term is not None:
            self._term_tag(lineno, tag, value)

    def _term_tag(self, lineno: int, tag: str, value: str) -> None:
        """A tag of the [Term] being read: the ones the ontology keeps, others skipped."""
        term = self.term
        if tag == "id":
            if "id" in term:
                message = f"a second id in one [Term] stanza (the first: {excerpt(term['id'])})"
                raise InputError(self.path, lineno, message)
            term["id"] = value
        elif tag == "name":
            term["name"] = value
        elif tag == "is_a":
            term["is_a"].append(_obo_value(value))
            self.edge_lines.setdefault((term.get("id", ""), term["is_a"][-1]), lineno)
        elif tag == "is_obsolete":
            term["obsolete"] = value == "true"
        elif tag == "replaced_by":
            term["replaced_by"] = _obo_value(value)
        elif tag == "synonym" and value.startswith('"'):
            term["synonyms"].append(value[1:].split('"', 1)[0])

    def finish_term(self) -> None:
        """The [Term] being read (if any) added to the terms: active or obsolete. One
        without an id, or with an id defined before, is refused at its stanza's line."""
        t, terms = self.term, self.terms
        if t is None:
            return
        if "id" not in t:
            raise InputError(self.path, t["line"], "[Term] stanza without an id")
        first = self.defined.setdefault(t["id"], t["line"])
        if first != t["line"]:
            message = f"term {excerpt(t['id'])} defined twice (first in the stanza at line {first})"
            raise InputError(self.path, t["line"], message)
        if t["obsolete"]:
            terms.obsolete.append(t["id"])
            if t["replaced_by"]:
                terms.replaced[t["id"]] = t["replaced_by"]
        else:
            terms.parents[t["id"]] = t["is_a"]
            terms.labels[t["id"]] = t.get("name", "")
            if t["synonyms"]:
                terms.synonyms[t["id"]] = t["synonyms"]
