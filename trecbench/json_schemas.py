"""The JSON Schemas shipped in ``trecbench/schemas/``: loaded, checked with ECMA-262's
``pattern`` (:func:`schema_validator`), and what they refuse said in the input's own
spelling (:func:`schema_refusal`, :func:`schema_message`): the reports' checks
(:func:`trecbench.report.validate_against_schema`), the configurations' loaders and the
converters' inputs share them. ``jsonschema`` is imported only when a schema is checked.
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any

from .ecma_regex import ecma_pattern
from .yaml_loader import NumberAsText, WrittenInt


def _schema_files():
    from importlib import resources

    return resources.files("trecbench").joinpath("schemas")


def load_schema(name: str) -> dict:
    """A JSON Schema shipped in ``trecbench/schemas/`` (``name`` without ``.schema.json``)."""
    return json.loads(_schema_files().joinpath(f"{name}.schema.json").read_text("utf-8"))


def schema_validator(schema: dict, **options: Any):
    """A Draft 2020-12 validator of ``schema`` (``options`` as ``jsonschema`` takes them)
    that reads ``pattern`` as JSON Schema means it, as ECMA-262 does
    (:func:`~trecbench.ecma_regex.ecma_pattern`); every shipped schema is checked
    through it. (No shipped schema uses ``patternProperties``, which would keep Python's
    reading: a test says so.)"""
    exact = options.pop("exact_integers", False)
    return _ecma_validator(exact)(schema, **options)


@functools.cache
def _ecma_validator(exact_integers: bool = False):
    """Draft 2020-12's validator class with ECMA-262's ``pattern`` (made once); with
    ``exact_integers``, an ``integer`` is an integer as written, never a float (JSON Schema
    counts ``10.0`` as one)."""
    import jsonschema

    def pattern(validator, wanted, instance, _schema):
        if validator.is_type(instance, "string") and not re.search(ecma_pattern(wanted), instance):
            yield jsonschema.ValidationError(f"{instance!r} does not match {wanted!r}")

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER
    if exact_integers:
        checker = checker.redefine(
            "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
        )
    return jsonschema.validators.extend(base, validators={"pattern": pattern}, type_checker=checker)


def schema_refusal(
    obj: Any, schema_name: str, *, exact_integers: bool = False
) -> tuple[tuple[str | int, ...], str] | None:
    """What a shipped schema refuses of ``obj``: the path of the refused value (keys and
    list indexes) and why, or None when it matches; a configuration's loader names the
    key as its messages do. With ``exact_integers``, a float is refused where the schema
    takes an integer, ``10.0`` too (JSON Schema takes it): a configuration's integer
    setting is one as written, every one alike, not one printed as ``10.0`` and another
    refused later under a key not written.

    Every shipped schema is registered under its ``$id``, so schemas can share
    definitions (the EvaluationReport uses the manifest's ``file`` and ``environment``).
    ``jsonschema`` (a dependency: benchmark configurations are checked with it) is imported
    here only, so commands that check no schema do not load it.
    """
    import jsonschema
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    shipped = [
        json.loads(entry.read_text("utf-8"))
        for entry in _schema_files().iterdir()
        if entry.name.endswith(".schema.json")
    ]
    # registered without their $schema, which a $ref to a whole schema would follow to
    # jsonschema's own Draft 2020-12 validator, reading its patterns as Python's
    registry = Registry().with_resources(
        (
            schema["$id"],
            Resource(
                {key: value for key, value in schema.items() if key != "$schema"}, DRAFT202012
            ),
        )
        for schema in shipped
        if "$id" in schema
    )
    validator = schema_validator(
        load_schema(schema_name),
        registry=registry,
        format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER,
        exact_integers=exact_integers,
    )
    error = jsonschema.exceptions.best_match(validator.iter_errors(obj))
    if error is None:
        return None
    unknown = _unknown_key(error)
    if unknown is not None:
        return unknown
    path = tuple(error.absolute_path)
    if "propertyNames" in error.absolute_schema_path:  # a key's name refused: at that key
        path = (*path, error.instance)
    return path, schema_message(error)


def _unknown_key(error: Any) -> tuple[tuple[str | int, ...], str] | None:
    """A key the schema does not know (``additionalProperties: false``), refused at its
    own path, not at the object holding it: a configuration's loader names it dotted at
    the line that writes it (``bench.toml:6: modes.b.bogus``), where jsonschema said the
    table's (or no line: the top level's). None for any other refusal."""
    if error.validator != "additionalProperties" or error.validator_value is not False:
        return None
    if not isinstance(error.instance, dict):
        return None
    known = list(error.schema.get("properties", {}))
    patterns = list(error.schema.get("patternProperties", {}))
    extra = next(
        (
            key
            for key in error.instance
            if key not in known and not any(re.search(ecma_pattern(p), key) for p in patterns)
        ),
        None,
    )
    if extra is None:
        return None
    allowed = f" (allowed: {', '.join(known)})" if known else ""
    return (*error.absolute_path, extra), f"unknown key: no other key is allowed here{allowed}"


def schema_message(error: Any) -> str:
    """What a jsonschema ``error`` says, the refused value quoted as its input writes it
    (``true``, ``null``: :func:`_value_text`), not in Python's syntax (``True``, ``None``)."""
    message, shown = error.message, repr(error.instance)
    if message.startswith(shown):  # a YAML date as 2024-01-01, not datetime.date(...)
        message = _value_text(error.instance) + message[len(shown) :]
    if error.validator == "type" and isinstance(error.instance, NumberAsText):
        message = error.instance.refusal(error.validator_value) or message  # 9e-1
    return message


def _value_text(value: Any) -> str:
    """A value a schema refused, as an error message quotes it: in the spelling of the
    TOML, YAML or JSON it was read from (:func:`~trecbench.errors.json_excerpt`), a date or
    time in ISO 8601."""
    import datetime

    from .errors import json_excerpt, shortened

    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):  # JSON has no spelling
        # a number beyond a double as written (yaml_loader.WrittenFloat), else inf, nan
        return shortened(getattr(value, "text", None) or repr(value))
    if isinstance(value, WrittenInt):  # 0x10, not 16
        return shortened(value.text)
    return json_excerpt(value)
