"""The ontology's model: :class:`Ontology`, the active terms as integer arrays, and the
closure (depths, ancestor sets) it is built from, whatever the ontology was read from."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping

import numpy as np

ROOT = "HP:0000001"

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
        ids, depths, parent_idx, topological = rooted(parents)
        self.ids = ids
        self.index = {t: i for i, t in enumerate(ids)}
        self.depths = depths
        # the ancestor sets (0.15 s on HPO) when first asked for: a check of ids needs none
        self._topology: tuple[list[list[int]], list[int]] | None = (parent_idx, topological)
        self._ancestor_sets: tuple[np.ndarray, np.ndarray] | None = None
        self.labels = {t: labels.get(t, "") for t in ids}
        self._parents = {t: tuple(p for p in parents[t] if p in self.index) for t in ids}
        self._children: dict[str, tuple[str, ...]] | None = None
        self.max_depth = int(depths.max()) if len(depths) else 0
        self._pd_index = None

    @property
    def anc_ptr(self) -> np.ndarray:
        """Where each term's ancestors start in :attr:`anc_idx` (CSR), computed when first
        asked for."""
        return self._ancestors()[0]

    @property
    def anc_idx(self) -> np.ndarray:
        """The ancestors of every term, each term's sorted (CSR, see :attr:`anc_ptr`)."""
        return self._ancestors()[1]

    def _ancestors(self) -> tuple[np.ndarray, np.ndarray]:
        if self._ancestor_sets is None:
            self._ancestor_sets = ancestor_sets(*self._topology)
            self._topology = None
        return self._ancestor_sets

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


def rooted(parents: Mapping[str, Iterable[str]]):
    """The rooted terms in BFS order and their depths, with what their ancestor sets are
    built from (:func:`ancestor_sets`): ``(ids, depths, parent indices, a topological
    order)``.

    Only terms reachable from :data:`ROOT` through edges between terms of ``parents`` are
    kept; an edge to a term outside ``parents`` (e.g. an obsolete one) is ignored.
    """
    children: dict[str, list[str]] = {}
    for term, ps in parents.items():
        for p in ps:
            if p in parents:
                children.setdefault(p, []).append(term)
    if ROOT not in parents:
        return np.array([], dtype=object), np.zeros(0, np.int64), [], []
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
    topological = [i for i, n in enumerate(pending) if n == 0]
    for i in topological:  # grows while read: Kahn's queue
        for c in kids[i]:
            pending[c] -= 1
            if pending[c] == 0:
                topological.append(c)
    # Terms on an is_a cycle never become ready: the file parsers refuse cycles with their
    # line (user_files.is_a_cycle); hpo3's release has none. Left out of T should one slip
    # through (a term that became ready has every parent ready: none refers to them).
    if len(topological) != len(order):
        keep = sorted(topological)
        remap = {old: new for new, old in enumerate(keep)}
        parent_idx = [[remap[p] for p in parent_idx[i]] for i in keep]
        topological = [remap[i] for i in topological]
        order = [order[i] for i in keep]
    depths = np.fromiter((depth[t] for t in order), np.int64, len(order))
    return np.array(order, dtype=object), depths, parent_idx, topological


def ancestor_sets(parent_idx: list[list[int]], topological: list[int]):
    """``(anc_ptr, anc_idx)``: each term's ancestors, itself included, sorted (CSR), from
    its parents' indices and an order that has every parent before its children."""
    anc: list[frozenset[int]] = [frozenset()] * len(parent_idx)
    for i in topological:
        acc = {i}
        for p in parent_idx[i]:
            acc |= anc[p]
        anc[i] = frozenset(acc)
    sizes = np.fromiter((len(a) for a in anc), np.int64, len(anc))
    anc_ptr = np.zeros(len(anc) + 1, np.int64)
    np.cumsum(sizes, out=anc_ptr[1:])
    anc_idx = np.fromiter((j for a in anc for j in sorted(a)), np.int64, int(anc_ptr[-1]))
    return anc_ptr, anc_idx
