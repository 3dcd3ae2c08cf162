"""MaxOntSim's formulas by name (:mod:`trecbench.engines.maxontsim` computes them), apart
so that a setting naming one is checked without loading numpy or the ontology."""

from __future__ import annotations

from .errors import UsageError

DEFAULT_FORMULA = "hybrid"
FORMULAS = ("hybrid", "simple_resnik_like", "hybrid_strict")
ALIASES = {
    "hybrid": "hybrid",
    "complex": "hybrid",
    "simple_resnik_like": "simple_resnik_like",
    "simple_resnik": "simple_resnik_like",
    "simple": "simple_resnik_like",
    "hybrid_strict": "hybrid_strict",
}


def resolve_formula(name: str | None) -> str:
    """Canonical formula name for ``name`` or an alias; None means the default ``hybrid``.

    Unlike Phentrieve (which silently falls back to hybrid) an unknown name is an error.
    """
    if name is None:
        return DEFAULT_FORMULA
    canonical = ALIASES.get(str(name).lower())
    if canonical is None:
        choices = ", ".join(sorted(ALIASES))
        raise UsageError(f"unknown MaxOntSim formula {name!r} (choose from {choices})")
    return canonical


def same_formula(first: str | None, second: str | None) -> bool:
    """Whether two recorded formula options (``--maxontsim-formula`` as given: an alias,
    or None for the default) name one formula; a name MaxOntSim does not know (an edited
    report) is the same only as itself."""
    try:
        return resolve_formula(first) == resolve_formula(second)
    except UsageError:
        return first == second
