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

The package: :mod:`.terms` (the :class:`Ontology` and its closure), :mod:`.bundled`
(hpo3's release), :mod:`.obo` and :mod:`.obographs` (a user's file, with what they share in
:mod:`.user_files`); here, :func:`load_ontology` and its cache.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from pathlib import Path

from .. import input_warnings, outputs, provenance
from ..compressions import SUFFIXES
from ..errors import EMPTY_FILE, InputError
from ..lazy import submodules as _submodules
from ..naming import path_argument
from ..sources import json_document, read_source
from .bundled import from_hpo3
from .obo import parse_obo, read_obo
from .obographs import parse_obographs, read_obographs
from .terms import KNOWN, OBSOLETE, ROOT, UNKNOWN, Ontology

__all__ = [
    "KNOWN",
    "OBSOLETE",
    "ROOT",
    "UNKNOWN",
    "Ontology",
    "load_ontology",
    "parse_obo",
    "parse_obographs",
]

# hpo3's release and regular files, by path, size and modification time, for the
# process's life (a file that can be read once is kept for its call: load_ontology)
_CACHE: dict[tuple, Ontology] = {}
# a JSON array's start: '[' and a value (an OBO stanza, "[Term]", opens with a word)
JSON_ARRAY = re.compile(rb'\[\s*(?:[\[{"\]0-9-]|true|false|null|$)')


def load_ontology(path: str | os.PathLike | None = None) -> Ontology:
    """The ontology for ``--ontology``: hpo3's bundled release when ``path`` is None, else
    ``hp.obo`` or ``hp.json`` (chosen by the file's first non-blank character, past a
    UTF-8 byte-order mark: ``{``, or ``[`` opening a JSON array, not an OBO stanza; a
    file named ``.json`` that OBO's reader refuses is refused as no JSON).

    Cached per process (a regular file keyed by path, inode, size, modification time and,
    on POSIX systems, status change time, which ``os.utime`` cannot set back as it sets
    the modification time; on Windows ``st_ctime`` is the creation time), so
    scoring several runs builds the ontology once. A file that can be read only once (a
    FIFO, ``<(zcat hp.obo.gz)``) is read once per call (the call's input scope,
    :func:`trecbench.provenance.read_in_call`): every evaluation of the call, and each
    worker process, takes what was read. Never touches the network.
    """
    if path is None:
        loaded = _cached(("hpo3",), from_hpo3)
    else:
        p = path_argument(path, "path")
        outputs.note_input(path)
        try:
            st = p.stat()
        except OSError as exc:
            raise InputError(str(path), None, f"cannot read ontology: {exc}") from exc
        if stat.S_ISREG(st.st_mode):
            key = (str(p.resolve()), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
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
    # a UTF-8 byte-order mark (an editor's hp.json) before the '{': dropped as the text is
    head = source.data[:4096].removeprefix(codecs.BOM_UTF8)
    if not source.data.strip():  # as every input says one (OBO's reader: "no [Term]")
        raise InputError(source.path, None, EMPTY_FILE)
    # an array (a cases file, say) is JSON too, refused as no OBO Graphs; OBO's stanzas
    # start with '[' too ("[Term]")
    is_json = head.lstrip().startswith(b"{") or JSON_ARRAY.match(head.lstrip()) is not None
    if is_json:
        return read_obographs(json_document(source))
    try:
        return read_obo(source)
    except InputError:
        if _named_json(path):  # JSON's error of it (not OBO's "expected 'tag: value'")
            json_document(source)
        raise


def _named_json(path: str | os.PathLike) -> bool:
    """Whether the file is named as JSON (``hp.json``, ``hp.json.gz``)."""
    suffixes = [suffix.lower() for suffix in Path(os.fsdecode(path)).suffixes]
    if suffixes and suffixes[-1] in SUFFIXES:
        suffixes.pop()  # compressed: the suffix before names the format
    return suffixes[-1:] == [".json"]


__getattr__ = _submodules(__name__)  # trecbench.ontology.<module> after import trecbench
