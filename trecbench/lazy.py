"""A package's public names imported from their modules when first used (PEP 562), so
that importing the package stays light: ``import trecbench`` imports no numpy, and the
small ``validate`` path imports :mod:`trecbench.validation` without Arrow, and ``power``
and ``agree`` take :mod:`trecbench.comparison`'s settings without pandas."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_exports(
    namespace: dict, homes: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the package whose ``globals()`` is
    ``namespace``: ``homes`` maps each public name to the module of the package that
    defines it (``"evaluate": "evaluation"``, ``"power": "conclusions.power"``). A name is
    imported once, then kept in ``namespace``."""
    package = namespace["__name__"]
    submodule = submodules(package)

    def __getattr__(name: str):
        home = homes.get(name)
        if home is None:
            return submodule(name)
        value = getattr(importlib.import_module(f".{home}", package), name)
        namespace[name] = value  # looked up once
        return value

    def __dir__() -> list[str]:  # the public names and the module's dunders, no helper
        return sorted({*homes, *(name for name in namespace if name.startswith("__"))})

    return __getattr__, __dir__


def submodules(package: str) -> Callable[[str], object]:
    """The ``__getattr__`` of ``package`` that gives its public module ``name``, imported
    now (``trecbench.ids.escape_id``, ``trecbench.conclusions.power.with_power`` after a
    plain ``import trecbench``, as the docs write them: they were there only once something
    had imported them), or raises the AttributeError of a name the package lacks (a dotted
    or private name too: ``hasattr`` is then False)."""

    def __getattr__(name: str):
        from importlib.util import find_spec

        if name.isidentifier() and not name.startswith("_") and find_spec(f"{package}.{name}"):
            return importlib.import_module(f".{name}", package)  # the import binds it
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
