"""Optional dependencies: which extra installs each, and one line when one is missing.

``pip install trecbench`` installs what the commands need on their own; a few features
need a package that is large or of one field only, installed with an extra
(``pip install 'trecbench[plots]'``, from a checkout ``pip install '.[plots]'``;
``trecbench[all]`` for every one). A feature imports
its package through :func:`require`, which turns its absence into a
:class:`~trecbench.errors.MissingExtraError` naming the extra, never a traceback.
``pyproject.toml`` declares the extras; a test keeps both in step.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import MissingExtraError, Setting

# import name -> (distribution to install, extra that installs it)
PACKAGES: dict[str, tuple[str, str]] = {
    "pyhpo": ("hpo3", "hpo"),
    "matplotlib": ("matplotlib", "plots"),
    "cwl": ("cwl-eval", "providers"),
    "pyndeval": ("pyndeval", "providers"),
    "ir_datasets": ("ir-datasets", "datasets"),
    "dask": ("dask", "dask"),
    "distributed": ("distributed", "dask"),
    "jinja2": ("jinja2", "html"),
    "bokeh": ("bokeh", "html"),
    # an accelerator, never required: gzip falls back to Arrow's zlib stream without it
    "isal": ("isal", "fast-gzip"),
}


def missing(module: str, feature: str, *alternative: str | Setting) -> MissingExtraError:
    """The error for ``feature`` when ``module`` is not installed: what to install, and
    ``alternative`` (a way without it, its parts; a setting said as the caller gives it:
    ``ontology=`` to the library, ``--ontology`` on the command line) when there is one."""
    package, extra = PACKAGES[module]
    otherwise = (", or ", *alternative) if alternative else ()
    return MissingExtraError(
        f"{feature} needs {package}, which is not installed: {install_hint(extra)}", *otherwise
    )


def install_hint(extra: str) -> str:
    """How to install ``extra``: from PyPI, and from a checkout of the sources (where
    ``trecbench[...]`` would fetch the released package instead of the checkout)."""
    return f"pip install 'trecbench[{extra}]' (from a checkout: pip install '.[{extra}]')"


def require(module: str, feature: str, *alternative: str | Setting) -> ModuleType:
    """``module`` imported for ``feature``; :func:`missing`'s error when it is not
    installed. An import error from inside an installed package is a bug, not a missing
    extra, and propagates unchanged."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        if error.name != module:
            raise
        raise missing(module, feature, *alternative) from None
