"""What the parsers of a user's ontology file (:mod:`.obo`, :mod:`.obographs`) share: its
release date, the is_a cycle it may not hold, and the :class:`Ontology` it makes, with the
input warning of what it leaves out of the active terms."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import InputError, excerpt
from ..plurals import counted
from ..sources import Content
from .terms import ROOT, Ontology

# a release's date, found in OBO's data-version or OBO Graphs' meta version
DATE = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})")


@dataclass
class FileTerms:
    """What a parser read of a file: the active terms' is_a parents (ids as written, defined
    or not), names and synonyms; the obsolete terms and their replacements; the release."""

    parents: dict[str, list[str]] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    synonyms: dict[str, list[str]] = field(default_factory=dict)
    obsolete: list[str] = field(default_factory=list)
    replaced: dict[str, str] = field(default_factory=dict)
    release: str = "unknown"


def file_ontology(source: Content, terms: FileTerms, line_of) -> Ontology:
    """An :class:`Ontology` parsed from a user's file, with the file's checksum and its
    warnings (:func:`_left_out`; ``line_of(term, parent)``: the line of the term's is_a
    edge to ``parent``, of its definition when ``parent`` is None). A file without the
    root is refused: every term of it would be unknown, and every MaxOntSim credit 0."""
    parents, obsolete = terms.parents, terms.obsolete
    if ROOT not in parents:
        marked = " (it is marked obsolete)" if ROOT in obsolete else ""
        raise InputError(source.path, None, f"no {ROOT} root{marked}: not an HPO ontology")
    ontology = Ontology(
        parents,
        terms.labels,
        obsolete=obsolete,
        replaced_by=terms.replaced,
        synonyms=terms.synonyms,
        release=terms.release,
        source=source.path,
        sha256=source.record["sha256"],
    )
    ontology.warnings = _left_out(source.path, parents, set(obsolete), ontology, line_of)
    return ontology  # its warnings kept by load_ontology, in every call, cached or not


def _left_out(path: str, parents, obsolete: set[str], ontology: Ontology, line_of):
    """The file's input warning (none or one line) when it leaves something out of the
    active terms without a word otherwise: is_a edges to an id it does not define (a
    truncated file, or one of another release), and terms that reach no root by is_a
    (not active: unknown to MaxOntSim, whose depths are distances from the root)."""

    def where(term: str, parent: str | None) -> str:
        line = line_of(term, parent)
        return "" if line is None else f", line {line}"

    defined = parents.keys() | obsolete
    dangling = [(t, p) for t, ps in parents.items() for p in ps if p not in defined]
    unreached = [term for term in parents if term not in ontology]
    parts = []
    if dangling:
        term, parent = dangling[0]
        parts.append(
            f"{counted(len(dangling), 'is_a edge')} to an id the file does not define, left "
            f"out (the first: {excerpt(term)} is_a {excerpt(parent)}{where(term, parent)})"
        )
    if unreached:
        parts.append(
            f"{counted(len(unreached), 'term')} without an is_a path to {ROOT}: unknown to "
            f"MaxOntSim (0 against any other id; the first: {excerpt(unreached[0])}"
            f"{where(unreached[0], None)})"
        )
    return (f"{path}: {'; '.join(parts)}",) if parts else ()


def is_a_cycle(parents: Mapping[str, list[str]]) -> list[str] | None:
    """A cycle of is_a edges between terms of ``parents``, as ``[t, parent, ..., t]``, or
    None. Iterative depth-first search: linear in the edges, no recursion limit."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in parents:
        if start in state:
            continue
        state[start] = 1
        path, stack = [start], [iter(parents[start])]
        while stack:
            for parent in stack[-1]:
                if parent not in parents or state.get(parent) == 2:
                    continue
                if state.get(parent) == 1:
                    return [*path[path.index(parent) :], parent]
                state[parent] = 1
                path.append(parent)
                stack.append(iter(parents[parent]))
                break
            else:
                state[path.pop()] = 2
                stack.pop()
    return None


def cycle_message(cycle: list[str]) -> str:
    shown = cycle if len(cycle) <= 8 else [*cycle[:4], "...", *cycle[-3:]]
    return (
        f"is_a cycle: {' -> '.join(excerpt(term) for term in shown)} "
        "(terms on a cycle have no depth or ancestors; an ontology must be acyclic)"
    )
