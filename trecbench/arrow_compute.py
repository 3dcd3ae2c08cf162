"""Arrow's compute functions called as :mod:`pyarrow.compute` calls them, without importing it.

Importing ``pyarrow.compute`` builds a Python wrapper, a signature and a docstring for each
of Arrow's ~290 functions: 28 ms of the general path's 0.2 s of start-up on the 2-core
machine of ``make bench``, where ``score`` calls a few dozen of them. Here a function is
wrapped when first asked for, as ``pyarrow.compute`` wraps it (its data arguments by
position, its options by keyword or after them, or as ``options=``), and called through
Arrow's function registry; ``cast``, ``fill_null`` and ``index``, which ``pyarrow.compute``
writes by hand, are written as there. Anything else (an options class, ``Expression``) is taken from
``pyarrow._compute``, where ``pyarrow.compute`` takes it, and what neither holds (``field``,
``scalar``, ``top_k_unstable``, ...) from ``pyarrow.compute`` itself, imported then.

Use it as ``from . import arrow_compute as pc``. pyarrow's own methods that compute
(``Array.unique``, ``Array.cast``, ``Table.filter``, ...) import ``pyarrow.compute``:
the paths kept light call the functions here instead (``tests/test_imports.py``)."""

from __future__ import annotations

import importlib
from typing import Any

import pyarrow as pa
from pyarrow import _compute

# pyarrow.compute's names for functions whose names are Python keywords, and its alias
_RENAMED = {"and_": "and", "or_": "or", "utf8_zfill": "utf8_zero_fill"}
# what pyarrow.compute writes by hand (not its generic wrapper): taken from it
_HANDWRITTEN = frozenset({"top_k_unstable", "bottom_k_unstable", "random", "field", "scalar"})


def __getattr__(name: str) -> Any:
    if name.startswith("__"):  # a probe (__path__, __wrapped__): no cause to import pyarrow.compute
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name in _HANDWRITTEN:
        value = getattr(importlib.import_module("pyarrow.compute"), name)
    elif hasattr(_compute, name):
        value = getattr(_compute, name)
    else:
        value = _wrapped(_callable_function(name))
    globals()[name] = value  # wrapped once
    return value


def _callable_function(name: str):
    """Arrow's function ``name``, if ``pyarrow.compute`` exposes it: not aggregates by
    group, nor aggregates of no argument, which cannot be called on their own."""
    try:
        function = _compute.get_function(_RENAMED.get(name, name))
    except (KeyError, pa.ArrowKeyError):
        function = None
    if (
        function is None
        or function.kind == "hash_aggregate"
        or (function.kind == "scalar_aggregate" and function.arity == 0)
    ):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return function


def _wrapped(function):
    """``pyarrow.compute``'s generic wrapper of ``function``."""
    name, arity = function.name, function.arity
    class_name = function._doc.options_class
    options_class = getattr(_compute, class_name) if class_name else None

    def call(*args, memory_pool=None, options=None, **kwargs):
        if arity is not Ellipsis and (
            len(args) < arity or (options_class is None and len(args) != arity)
        ):
            raise TypeError(
                f"{name} takes {arity} positional argument(s), but {len(args)} were given"
            )
        option_args = () if arity is Ellipsis else args[arity:]
        data = args if arity is Ellipsis else args[:arity]
        if options_class is None and (options is not None or kwargs):
            raise TypeError(f"{name} takes no options")
        if options_class is not None:
            options = _options(name, options_class, options, option_args, kwargs)
        if data and isinstance(data[0], _compute.Expression):
            return _compute.Expression._call(name, list(data), options)
        return function.call(data, options, memory_pool)

    call.__name__ = call.__qualname__ = name
    return call


def _options(name, options_class, options, args, kwargs):
    """The options of a call, as ``pyarrow.compute`` builds them (``_handle_options``)."""
    if args or kwargs:
        if options is not None:
            raise TypeError(
                f"Function {name!r} called with both an 'options' argument and additional arguments"
            )
        return options_class(*args, **kwargs)
    if options is None or isinstance(options, options_class):
        return options
    if isinstance(options, dict):
        return options_class(**options)
    raise TypeError(f"Function {name!r} expected a {options_class} parameter, got {type(options)}")


def cast(arr, target_type=None, safe=None, options=None, memory_pool=None):
    """``pyarrow.compute.cast``: safe unless ``safe`` is False."""
    if (safe is not None or target_type is not None) and options is not None:
        raise ValueError(
            "Must either pass values for 'target_type' and 'safe' or pass a value for 'options'"
        )
    if options is None:
        target_type = pa.types.lib.ensure_type(target_type)
        make = _compute.CastOptions.unsafe if safe is False else _compute.CastOptions.safe
        options = make(target_type)
    return _compute.call_function("cast", [arr], options, memory_pool)


def fill_null(values, fill_value):
    """``pyarrow.compute.fill_null``: ``coalesce`` with ``fill_value`` in ``values``' type."""
    if not isinstance(fill_value, (pa.Array, pa.ChunkedArray, pa.Scalar)):
        fill_value = pa.scalar(fill_value, type=values.type)
    elif values.type != fill_value.type:
        fill_value = pa.scalar(fill_value.as_py(), type=values.type)
    return _compute.call_function("coalesce", [values, fill_value])


def index(data, value, start=None, end=None, *, memory_pool=None):
    """``pyarrow.compute.index``: where ``value`` first is in ``data`` from ``start`` (-1:
    nowhere)."""
    if start is not None:
        data = data.slice(start) if end is None else data.slice(start, end - start)
    elif end is not None:
        data = data.slice(0, end)
    if not isinstance(value, pa.Scalar):
        value = pa.scalar(value, type=data.type)
    elif data.type != value.type:
        value = pa.scalar(value.as_py(), type=data.type)
    options = _compute.IndexOptions(value=value)
    result = _compute.call_function("index", [data], options, memory_pool)
    if start is not None and result.as_py() >= 0:
        result = pa.scalar(result.as_py() + start, type=pa.int64())
    return result
