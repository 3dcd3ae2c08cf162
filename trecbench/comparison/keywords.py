"""Typed settings taken as keyword arguments: the public functions (``compare``,
``compare_scores``) accept a settings value or its fields one by one, as documented, and
their signatures show those fields with the dataclasses' own defaults."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import TypeVar

from ..errors import UsageError
from ..type_names import python_type

Settings = TypeVar("Settings")
Function = TypeVar("Function", bound=Callable)


def settings_from(
    kind: type[Settings], given: Settings | None, keywords: dict, name: str
) -> Settings:
    """``given`` (the argument ``name``; default: ``kind()``) with the fields of ``kind``
    that ``keywords`` name replaced; those keywords are taken out of ``keywords``. The
    value is validated as ``kind`` validates it when built; a ``given`` of another type is
    refused before any work (a dict of the fields raised an AttributeError once the runs
    were scored)."""
    if given is not None and not isinstance(given, kind):
        raise UsageError(
            f"{name} must be a {kind.__name__} (or its fields as keywords), not "
            f"{python_type(given)}"
        )
    names = {field.name for field in dataclasses.fields(kind)}
    taken = {name: keywords.pop(name) for name in list(keywords) if name in names}
    if given is None:
        return kind(**taken)
    return dataclasses.replace(given, **taken) if taken else given


def refuse_unknown(function: str, keywords: dict) -> None:
    """The TypeError Python raises for a keyword ``function`` does not take."""
    if keywords:
        raise TypeError(f"{function}() got an unexpected keyword argument {next(iter(keywords))!r}")


def keywords_of(*kinds: type) -> Callable[[Function], Function]:
    """Show the fields of ``kinds`` as keyword-only parameters (with their defaults) in
    the decorated function's signature, where its ``**settings`` stands."""

    def decorate(function: Function) -> Function:
        signature = inspect.signature(function)
        parameters = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
        for kind in kinds:
            for field in dataclasses.fields(kind):
                default = field.default
                if default is dataclasses.MISSING:
                    default = field.default_factory()
                parameters.append(
                    inspect.Parameter(
                        field.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                        annotation=field.type,
                    )
                )  # fmt: skip
        function.__signature__ = signature.replace(parameters=parameters)
        return function

    return decorate
