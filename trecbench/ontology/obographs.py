"""OBO Graphs JSON (``hp.json``): the first graph's CLASS nodes, ``is_a`` edges and
deprecations, every refusal at the line and JSON path of its value."""

from __future__ import annotations

import json
import os
import re

from ..errors import InputError, excerpt
from ..sources import At, JsonDocument, json_document, read_source
from .terms import Ontology
from .user_files import DATE, FileTerms, cycle_message, file_ontology, is_a_cycle

_HP_ID = re.compile(r"^HP:[0-9]{7}$")
_JSON_IRI = re.compile(r"(?:^|/)HP_([0-9]{7})$")


def _json_id(iri: str) -> str | None:
    """``http://purl.obolibrary.org/obo/HP_0000001`` (or ``HP:0000001``) → ``HP:0000001``."""
    if _HP_ID.match(iri):
        return iri
    m = _JSON_IRI.search(iri)
    return f"HP:{m.group(1)}" if m else None


def parse_obographs(path: str | os.PathLike) -> Ontology:
    """Parse an OBO Graphs JSON ``hp.json`` (plain or gzip): CLASS nodes, ``is_a`` edges,
    deprecation. A malformed file is refused with the line and path of the problem."""
    return read_obographs(json_document(read_source(path, "ontology")))


def _optional(container: dict, key: str, default, expect):
    """``container[key]`` checked by ``expect``, or ``default`` when absent or null."""
    value = container.get(key)
    return default if value is None else expect(value)


def read_obographs(doc: JsonDocument) -> Ontology:
    """The ontology of an OBO Graphs document already parsed; an is_a cycle refused at its
    edge."""
    at, nodes, edges, release = _first_graph(doc)
    terms = FileTerms(release=release)
    defined = _read_classes(at, nodes, terms)  # id -> index of its node
    nodes_named = {
        node["id"] for node in nodes if isinstance(node, dict) and isinstance(node.get("id"), str)
    }
    edge_places = _read_is_a_edges(at, edges, terms.parents, nodes_named)
    if not terms.parents:
        raise InputError(doc.path, None, "no HPO class found: not an HPO OBO Graphs file")
    cycle = is_a_cycle(terms.parents)
    if cycle is not None:
        raise edge_places[cycle[-2], cycle[-1]].error(cycle_message(cycle))

    def line_of(term: str, parent: str | None) -> int | None:
        place = at / "nodes" / defined[term] if parent is None else edge_places[term, parent]
        return doc.line_of(place.where)

    return file_ontology(doc.source, terms, line_of)


def _first_graph(doc: JsonDocument) -> tuple[At, list, list, str]:
    """The document's first graph: where it is, its nodes, its edges and its release (the
    date in its meta version, else the version, else ``unknown``)."""
    if isinstance(doc.value, list):  # a cases file, say: not read as OBO text
        raise doc.root.error("not an OBO Graphs JSON (such as hp.json): a JSON array")
    root = doc.root.expect_object(doc.value)
    graphs = (doc.root / "graphs").expect_list(root.get("graphs"))
    if not graphs:
        raise (doc.root / "graphs").error("no graph: not an OBO Graphs JSON ontology")
    at = doc.root / "graphs" / 0
    graph = at.expect_object(graphs[0])
    nodes = _optional(graph, "nodes", [], (at / "nodes").expect_list)
    edges = _optional(graph, "edges", [], (at / "edges").expect_list)
    meta = _optional(graph, "meta", {}, (at / "meta").expect_object)
    version = str(meta.get("version", ""))
    m = DATE.search(version)
    return at, nodes, edges, m.group(1) if m else (version or "unknown")


def _read_classes(at: At, nodes: list, terms: FileTerms) -> dict[str, int]:
    """The graph's HPO CLASS nodes into ``terms`` (deprecated ones as obsolete), each id's
    node index returned; a class defined twice is refused at its second node."""
    defined: dict[str, int] = {}
    for index, node in enumerate(nodes):
        place = at / "nodes" / index
        node = place.expect_object(node)
        term = _json_id(str(node.get("id", "")))
        if term is None or node.get("type", "CLASS") != "CLASS":
            continue
        first = defined.setdefault(term, index)
        if first != index:
            raise place.error(f"class {excerpt(term)} defined twice (first as nodes[{first}])")
        nmeta = _optional(node, "meta", {}, (place / "meta").expect_object)
        if nmeta.get("deprecated"):
            terms.obsolete.append(term)
            replacement = _replacement(place / "meta", nmeta)
            if replacement:
                terms.replaced[term] = replacement
            continue
        terms.parents[term] = []
        terms.labels[term] = str(node.get("lbl", ""))
        listed = _optional(nmeta, "synonyms", [], (place / "meta" / "synonyms").expect_list)
        synonyms = [
            str((place / "meta" / "synonyms" / i).expect_object(s).get("val", ""))
            for i, s in enumerate(listed)
        ]
        if synonyms:
            terms.synonyms[term] = synonyms
    return defined


def _replacement(at: At, nmeta: dict) -> str | None:
    """A deprecated class's replacement: the last HPO id its meta's basic property values
    give as "term replaced by" (IAO_0100001), or None."""
    values = _optional(nmeta, "basicPropertyValues", [], (at / "basicPropertyValues").expect_list)
    replacement = None
    for i, pv in enumerate(values):
        pv = (at / "basicPropertyValues" / i).expect_object(pv)
        if str(pv.get("pred", "")).endswith("IAO_0100001"):  # term replaced by
            new = _json_id(str(pv.get("val", "")))
            if new:
                replacement = new
    return replacement


def _read_is_a_edges(
    at: At, edges: list, parents: dict[str, list[str]], nodes_named: set
) -> dict[tuple[str, str], At]:
    """The graph's is_a edges from an active class added to ``parents``; where the first
    edge of each (term, parent) pair is. An edge to another ontology's class, a node of
    the file (``nodes_named``: the nodes' ids), is left out, as OBO's reader leaves out an
    is_a to a stanza of another ontology; one to an id no node has (a number, none) is
    added as written (JSON's text of it, ``(none)`` for no ``obj``), which the ontology's
    warning says the file does not define, as OBO's reader says it of an is_a line: it
    was left out without a word."""
    edge_places: dict[tuple[str, str], At] = {}
    for index, edge in enumerate(edges):
        edge = (at / "edges" / index).expect_object(edge)
        if edge.get("pred") != "is_a":
            continue
        sub, written = _json_id(str(edge.get("sub", ""))), edge.get("obj")
        if sub not in parents:
            continue
        parent = _parent(written, nodes_named)
        if parent is None:
            continue
        parents[sub].append(parent)
        edge_places.setdefault((sub, parent), at / "edges" / index)
    return edge_places


def _parent(written, nodes_named: set) -> str | None:
    """The parent an is_a edge's ``obj`` names: its HPO id; None for another ontology's
    class the file defines (left out); else the text of what it holds, an id no node has
    (``(none)`` where the edge has no ``obj``)."""
    if isinstance(written, str):
        found = _json_id(written)
        if found is not None:
            return found
        return None if written in nodes_named else written
    return "(none)" if written is None else json.dumps(written)
