"""YAML read so that a small document cannot explode or mislead: :func:`load_yaml`.

PyYAML's ``SafeLoader`` builds no objects, but an alias (``*name``) shares a node, so a
526-byte document of nested aliases ("billion laughs") stands for billions of values that
every consumer (a schema check, ``repr`` in an error message) walks one by one. The
:class:`BoundedSafeLoader` weighs the document as if every alias were written out (one per
node plus the characters of each scalar, computed once per node: linear in the document)
and refuses it beyond :data:`MAX_EXPANDED` plus twice its length; a node that contains
itself is refused too. A mapping key given twice is refused with both lines, as JSON and
TOML configurations are (PyYAML keeps the last silently); in a configuration, a key YAML
reads as something else than text (``1:``, ``no:``, ``on:``) is refused with its line:
JSON and TOML keys are text, and a mode named ``no`` read as ``False`` was an internal
error; keys that are one key once written as JSON (``1:`` and ``"1":``, both ``"1"``)
are refused too, as a JSON key given twice (:mod:`trecbench.yaml_mappings`). Merge keys
follow the YAML specification (:func:`~.yaml_mappings.merge_in_order`): in
``<<: [*a, *b]`` a key of ``a`` wins over ``b``'s. A value YAML cannot construct
(``2022-02-30``, ``!!int x``, ``!!int ""``, an integer past the 4,300 digits Python
reads) is refused at its line, not raised as Python's error. The lines
messages name (:func:`error_line`, "first on line") are counted at ``\n`` only, as the run
readers count a file's lines (PyYAML's own count also breaks at ``\r``, U+0085, U+2028
and U+2029). In a configuration, a plain scalar YAML 1.1 reads as text that YAML 1.2 reads
as a number (``9e-1``, ``08``) is :class:`NumberAsText`, for the message refusing it where
a number is expected (in an ir_metadata block, which has no schema, it is refused at its
line, but as an id's value: ``tag: 1e3`` is the tag ``1e3``); one YAML 1.1 reads as a
number or a boolean that YAML 1.2 reads otherwise (``010``, ``1:40``, ``0b101``, ``1_0``,
``yes``) is refused at its line, in a configuration and in an ir_metadata block alike
(:mod:`trecbench.yaml_versions`), and an integer spelt otherwise than in decimals
(``0x10``) is a :class:`WrittenInt`, quoted as written.
Nesting is bounded (:data:`MAX_DEPTH`) in YAML as in TOML (:func:`nesting_depth`): the
schema check and the parsers recurse, and thousands of brackets ended in an internal
RecursionError.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from decimal import Decimal
from functools import cache
from typing import Any

from .errors import excerpt, int_text
from .yaml_mappings import MERGE, check_json_keys, check_keys, merge_in_order
from .yaml_versions import (
    disagreement,
    number_in_yaml_1_2,
    number_spellings,
    read_apart_error,
    writable_int,
    yaml_1_2_value,
)

MAX_EXPANDED = 1_000_000  # nodes and scalar characters an expanded document may hold
MAX_DEPTH = 64  # nesting levels (a configuration needs a handful; checkers recurse)
_VALUE = "tag:yaml.org,2002:value"
_TEXT = "tag:yaml.org,2002:str"


class WrittenFloat(float):
    """A number a configuration writes that is not finite, and its ``text``: a NaN or an
    infinity as written (YAML ``.nan``, ``.Inf``, TOML ``nan``, ``-inf``), said so in the
    message refusing it, not as Python's ``nan``; or a number beyond a double's range
    (``1e400``: infinity, as every reader reads it), said to overflow (as the run readers
    say of a score ``1e400``), not that ``inf`` was given (:meth:`overflows`); or a number
    not 0 too small for a double (``1e-400``: 0.0), said to underflow, not quoted as 0.0
    (:meth:`underflows`)."""

    text: str

    @property
    def overflows(self) -> bool:
        """Whether the text is a number too large for a double, not an infinity."""
        return math.isinf(self) and "inf" not in self.text.lower()

    @property
    def underflows(self) -> bool:
        """Whether the text is a number other than 0 that a double reads as 0."""
        return self == 0 and _names_a_non_zero(self.text)


def _names_a_non_zero(text: str) -> bool:
    """Whether a decimal float's ``text`` (``1e-400``, ``0.0e-9``) has a digit other than 0
    before its exponent."""
    mantissa = text.lower().split("e")[0]
    return any(digit in mantissa for digit in "123456789")


def read_float(value: float, text: str) -> float:
    """A TOML or YAML float ``value`` read from ``text``: a :class:`WrittenFloat` when it
    is not finite (a NaN, an infinity, a number too large for a double) or reads as 0 and
    is not (``1e-400``), else ``value``."""
    if math.isfinite(value) and not (value == 0 and _names_a_non_zero(text)):
        return value
    written = WrittenFloat(value)
    written.text = text
    return written


class NumberAsText(str):
    """A plain scalar of a configuration that YAML 1.1 (PyYAML) reads as text and YAML 1.2
    as a number (:func:`~trecbench.yaml_versions.number_in_yaml_1_2`): an exponent without
    a dot or a sign (``9e-1``, ``1e400``, ``1.5e3``), which JSON and TOML read as numbers
    too, a leading zero before an 8 or a 9 (``08``), ``0o17``, ``-.5``. Text where text
    is taken; where a number is expected, :meth:`refusal` says why it is not one and how
    to write it."""

    def refusal(self, expected: str | list[str]) -> str | None:
        """Why the schema refused this text where it expected ``expected`` (a JSON Schema
        type or list of them), or None when no number was expected."""
        types = [expected] if isinstance(expected, str) else list(expected)
        if "number" not in types and "integer" not in types:
            return None
        value = yaml_1_2_value(self)
        if isinstance(value, float) and math.isinf(value):  # as TOML's 1e400 is refused
            return f"{self} overflows a double"
        # as written: 1e-400 is no 0, whatever the double
        exact = Decimal(self) if isinstance(value, float) else Decimal(value)
        if "number" not in types:  # an integer is expected: a fraction is none at all
            if exact != exact.to_integral_value():
                return f"{self} is not an integer"
            spelt = int_text(int(exact))
        elif isinstance(value, float) and not value and _names_a_non_zero(self):  # 1e-400
            return f"{self} underflows a double (reads as 0)"
        else:  # 1e3 as 1.0e+3 or 1000.0, 08 and 0o17 as 8 and 15, -.5 as -0.5
            spelt = number_spellings(self)
        return f"{self} is read as text by YAML 1.1; write {spelt}"


class WrittenInt(int):
    """An integer of a configuration spelt otherwise than in decimals (``0x10``, ``007``,
    ``+1``), which YAML 1.1 and 1.2 read alike, and its ``text``: a message refusing it
    quotes it as written, not as 16."""

    text: str


class _VersionReadings:
    """The constructors of plain scalars as YAML 1.1 and 1.2 both read them: a number or
    boolean the two read apart refused at its line (:func:`~.yaml_versions.disagreement`);
    in a configuration (``text_keys``: the loader reads one), a number spelt otherwise
    than in decimals kept with its text (:class:`WrittenInt`), text YAML 1.2 reads as a
    number marked (:class:`NumberAsText`). Mixed in before ``yaml.SafeLoader``, whose
    constructors it extends."""

    text_keys = False
    tagged: set[int]
    key_nodes: set[int]

    def construct_yaml_float(self, node):
        value = read_float(super().construct_yaml_float(node), node.value)
        return self.as_yaml_1_2_reads(node, value)

    def construct_yaml_int(self, node):
        value = writable_int(super().construct_yaml_int(node))
        value = self.as_yaml_1_2_reads(node, value)
        if not self.in_configuration(node) or node.value == int_text(value):
            return value
        written = WrittenInt(value)  # 0x10, 007, +1: quoted so
        written.text = node.value
        return written

    def construct_yaml_bool(self, node):
        return self.as_yaml_1_2_reads(node, super().construct_yaml_bool(node))

    def construct_yaml_str(self, node):
        text = super().construct_yaml_str(node)
        plain = node.style is None and id(node) not in self.tagged
        if not plain or id(node) in self.ids or not number_in_yaml_1_2(text):
            return text
        if self.text_keys:  # a configuration: refused where a number is expected
            return NumberAsText(text)
        # an ir_metadata block's `k1: 1e3`, text to PyYAML, 1000.0 to ruamel.yaml
        problem = disagreement(node.value, text, _keeping_as_text(self, node))
        raise read_apart_error()(None, None, problem, node.start_mark)

    def in_configuration(self, node) -> bool:
        """Whether ``node`` is a plain scalar of a configuration, untagged (a value
        or a key)."""
        return self.text_keys and node.style is None and id(node) not in self.tagged

    def as_yaml_1_2_reads(self, node, value):
        """``value``, which YAML 1.1 read ``node`` as; refused at its line
        (:func:`~.yaml_versions.read_apart`) when YAML 1.2 reads the plain scalar
        otherwise (``010``, ``yes``, ``1:30``): a configuration's value, an ir_metadata
        block's value or key (a description's ``time: 1:30`` was written back and
        recorded as 90). A configuration's key is refused as no text at all instead
        (:func:`~.yaml_mappings.check_keys`). A tag does not settle it (YAML 1.2 reads
        `!!int 010` as 10, YAML 1.1 as 8)."""
        if node.style is not None or (self.text_keys and id(node) in self.key_nodes):
            return value
        problem = disagreement(node.value, value, _keeping_as_text(self, node))
        if problem is not None:
            raise read_apart_error()(None, None, problem, node.start_mark)
        return value


@cache
def _loader_class(text_keys: bool) -> type:
    import yaml

    class BoundedSafeLoader(_VersionReadings, yaml.SafeLoader):
        """``yaml.SafeLoader`` that bounds what aliases expand to and refuses duplicate keys
        (and, with ``text_keys``, keys that are not text)."""

        def compose_document(self):
            node = super().compose_document()
            _check_expanded_size(node, MAX_EXPANDED + 2 * len(self.buffer))
            return node

        def __init__(self, stream, id_keys: frozenset[str] = frozenset(), first_line: int = 1):
            super().__init__(stream)
            self.keys_checked: set[int] = set()
            self.tagged: set[int] = set()  # scalars written with a tag (`!!int x`)
            self.key_nodes: set[int] = set()  # the mappings' keys, as check_keys read them
            self.id_keys, self.root, self.first_line = id_keys, None, first_line
            self.ids: set[int] = set()  # the id keys' scalars, text as written

        def compose_scalar_node(self, anchor):
            tagged = self.peek_event().tag not in (None, "!")
            node = super().compose_scalar_node(anchor)
            if tagged:
                self.tagged.add(id(node))
            return node

        def flatten_mapping(self, node):
            for key_node, _ in node.value:  # `=:` is the key '=', as PyYAML reads it
                if key_node.tag == _VALUE:
                    key_node.tag = _TEXT
            # a mapping's keys checked as written, before its merge keys add theirs: a
            # merged mapping with a `<<` of its own is flattened first, and its keys then
            # read as given twice (`b: &b {<<: *a, tag: 3}` under `<<: *b`)
            if id(node) not in self.keys_checked:
                self.keys_checked.add(id(node))
                check_keys(self, node, text_keys)
            merge_in_order(self, node)
            check_json_keys(self, node)  # merged keys too: `<<: {1: a}` beside `"1": b`
            if node is self.root:  # its merged keys are its own now, as constructed
                self.ids = _ids_as_text(node, self.id_keys)

        def construct_object(self, node, deep=False):
            try:
                return super().construct_object(node, deep)
            except (ValueError, LookupError, AttributeError) as error:
                if not isinstance(node, yaml.ScalarNode):
                    raise
                # PyYAML's constructors raise Python's errors for a scalar they cannot read
                # (an IndexError for `!!int ""`, `!!int +`, `!!float _`: no digit left)
                raise yaml.constructor.ConstructorError(
                    None, None, _unreadable(self, node, error), node.start_mark
                ) from None

    BoundedSafeLoader.text_keys = text_keys
    if text_keys:  # a configuration: no value JSON cannot hold, refused at its line
        for kind in ("binary", "set"):
            BoundedSafeLoader.add_constructor(f"tag:yaml.org,2002:{kind}", _no_such_value)
    BoundedSafeLoader.add_constructor(
        "tag:yaml.org,2002:float", BoundedSafeLoader.construct_yaml_float
    )
    BoundedSafeLoader.add_constructor(_TEXT, BoundedSafeLoader.construct_yaml_str)
    BoundedSafeLoader.add_constructor("tag:yaml.org,2002:int", BoundedSafeLoader.construct_yaml_int)
    BoundedSafeLoader.add_constructor(
        "tag:yaml.org,2002:bool", BoundedSafeLoader.construct_yaml_bool
    )
    return BoundedSafeLoader


def _no_such_value(loader: Any, node: Any) -> None:
    """Refuse a configuration's ``!!binary`` or ``!!set`` value (at any depth): a setting
    is text, a number, a boolean, a list or a table; quoted, the value was Python's text
    of bytes or a set (``"b'hi'" is not of type 'string'``)."""
    import yaml

    kind = node.tag.rsplit(":", 1)[-1]
    message = f"a !!{kind} value: a setting is text, a number, a boolean, a list or a table"
    raise yaml.constructor.ConstructorError(None, None, message, node.start_mark)


def _unreadable(loader: Any, node: Any, error: Exception) -> str:
    """Why the scalar ``node`` could not be constructed (``error``, raised by PyYAML's
    constructor as a Python error), for a one-line message, and how to keep it as text
    (:func:`_keeping_as_text`)."""
    kind = node.tag.rsplit(":", 1)[-1]
    digits = node.value.lstrip("+-").replace("_", "")
    if kind == "int" and digits.isdigit() and len(digits) > sys.get_int_max_str_digits():
        reason = f" (more than the {sys.get_int_max_str_digits():,} digits Python reads)"
    elif isinstance(error, ValueError) and str(error):
        reason = f" ({str(error)})"
    else:
        reason = ""
    advice = _keeping_as_text(loader, node)
    return f"{excerpt(node.value)} is not a valid !!{kind}{reason}; {advice} to keep it as text"


def _keeping_as_text(loader: Any, node: Any) -> str:
    """How to write the scalar ``node`` for it to be read as its text: quoted when it has
    no tag; without its tag when it has one (quoted, ``!!int 'x'`` is still an int), and
    quoted too when its plain text untagged is no text (``!!int yes`` would be true,
    ``!!int 1.5`` a float, ``!!int ~`` nothing, ``!!timestamp 2022-02-30`` still a date)."""
    if id(node) not in loader.tagged:
        return "quote it"
    dropped = f"drop the tag !!{node.tag.rsplit(':', 1)[-1]}"
    untagged = loader.resolve(type(node), node.value, (True, False))
    return f"{dropped} and quote it" if node.style is None and untagged != _TEXT else dropped


def error_line(error: Exception, text: str, first_line: int = 1) -> int:
    """The line in the file of the YAML ``error`` raised reading ``text`` (which begins at
    the file's line ``first_line``), counted at ``\\n`` only; ``first_line`` when the error
    has no place."""
    mark = getattr(error, "problem_mark", None)
    index = mark.index if mark is not None else getattr(error, "position", None)
    return first_line if index is None else text_line(index, text, first_line)


def text_line(index: int, text: str, first_line: int = 1) -> int:
    """The file's line of ``text``'s character ``index``, counted at ``\\n`` only; the end
    of a text whose last line ends (PyYAML's "end of stream", tomllib's "end of document")
    is on that last line, not on a line past the end."""
    if index >= len(text) and text.endswith("\n"):
        index = len(text) - 1
    return first_line + text.count("\n", 0, index)


def error_problem(error: Exception, text: str = "", first_line: int = 1) -> str:
    """What the YAML ``error`` says is wrong, on one line without PyYAML's "in <unicode
    string>" place (messages give the file's line): after PyYAML's context, where it gives
    one, with the context's line in ``text`` (which begins at the file's line
    ``first_line``): ``while scanning a quoted scalar (line 1): found unexpected end of
    stream``; the problem alone said neither what was left open nor where."""
    import yaml

    if isinstance(error, yaml.reader.ReaderError) and isinstance(error.character, int):
        return f"unacceptable character U+{error.character:04X}: {error.reason}"
    problem = getattr(error, "problem", None) or str(error)
    context, mark = getattr(error, "context", None), getattr(error, "context_mark", None)
    if not context:
        return problem
    place = "" if mark is None else f" (line {text_line(mark.index, text, first_line)})"
    return f"{context}{place}: {problem}"


def key_line(text: str, keys: Sequence[str | int]) -> int | None:
    """The line (counted at ``\\n``) where the YAML ``text`` writes the key at ``keys`` (a
    list's item: where the item starts), a merged key where its mapping writes it (own
    keys first, then the merged mappings in order: the one that wins); None when the
    document does not write it (a default). Read from the nodes' marks: composing builds
    no values and expands no alias."""
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        return None
    mark = None
    for key in keys:
        found = _written_at(node, key)
        if found is None:
            return None
        mark, node = found
    return None if mark is None else 1 + text.count("\n", 0, mark.index)


def _written_at(node: Any, key: str | int) -> tuple[Any, Any] | None:
    """Where ``node`` writes ``key`` and its value's node: ``(mark, value)``, or None."""
    import yaml

    if isinstance(node, yaml.SequenceNode):
        if isinstance(key, int) and 0 <= key < len(node.value):
            return node.value[key].start_mark, node.value[key]
        return None
    if not isinstance(node, yaml.MappingNode):
        return None
    merged = []
    for key_node, value in node.value:
        if key_node.tag == MERGE:
            merged += value.value if isinstance(value, yaml.SequenceNode) else [value]
        elif isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
            return key_node.start_mark, value
    return next(filter(None, (_written_at(source, key) for source in merged)), None)


def _children(node: Any) -> list:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_expanded_size(root: Any, limit: int) -> None:
    """Refuse a node graph that, with its aliases written out, would exceed ``limit``
    (nodes plus scalar characters) or :data:`MAX_DEPTH` levels, or that contains itself.
    Iterative and memoised per node: the walk is linear in the document, not in its
    expansion."""
    import yaml

    if root is None:
        return
    weight: dict[int, int] = {}
    depth: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack = [(root, False)]
    while stack:
        node, finished = stack.pop()
        if id(node) in weight:
            continue
        if finished:
            own = 1 + (len(node.value) if isinstance(node, yaml.ScalarNode) else 0)
            children = _children(node)
            total = own + sum(weight[id(child)] for child in children)
            depth[id(node)] = 1 + max((depth[id(child)] for child in children), default=0)
            if depth[id(node)] > MAX_DEPTH:
                raise yaml.composer.ComposerError(
                    None, None, f"nested deeper than {MAX_DEPTH} levels", node.start_mark
                )
            if total > limit:
                raise yaml.composer.ComposerError(
                    None,
                    None,
                    f"with its aliases expanded the document would exceed {limit:,} values "
                    "and characters (nested aliases, a 'billion laughs'?)",
                    node.start_mark,
                )
            weight[id(node)] = total
            open_nodes.discard(id(node))
            continue
        open_nodes.add(id(node))
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_nodes:
                raise yaml.composer.ComposerError(
                    None, None, "an alias refers to a node that contains it", child.start_mark
                )
            if id(child) not in weight:
                stack.append((child, False))


def nesting_depth(value: Any) -> int:
    """Levels of lists and dicts in a tree of plain values (a parsed TOML or JSON document;
    iterative, so a deep one cannot exhaust the stack)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, level + 1)
            stack.extend((child, level + 1) for child in item)
    return deepest


def load_yaml(
    text: str, text_keys: bool = False, id_keys: frozenset[str] = frozenset(), first_line: int = 1
) -> Any:
    """One YAML document read with :class:`BoundedSafeLoader`; raises ``yaml.YAMLError``
    (with a ``problem_mark`` where it has a line) for what it refuses. ``text_keys``: a
    key read as anything but text is refused (a configuration, whose JSON and TOML forms
    have text keys; an ir_metadata block may well say ``2022:``). ``id_keys``: keys of the
    document's top mapping whose values are ids, kept as written when YAML would read them
    as another type (a run's ``tag: 007`` is the tag ``007``, not the octal number 7),
    written in it or merged into it (``<<: *base``). ``first_line``: the file's line the
    text begins at, for the lines a message names (see :func:`error_line`)."""
    import yaml

    loader = _loader_class(text_keys)(text, id_keys, first_line)
    # built depth first, in the document's order: of two values refused, the first in the
    # text is said (PyYAML builds a mapping's nested values after its scalars)
    loader.deep_construct = True
    try:
        loader.root = loader.get_single_node()
        if loader.root is None:
            return None
        return loader.construct_document(loader.root)
    except RecursionError:  # thousands of nested brackets: PyYAML composes recursively
        raise yaml.YAMLError(f"nested deeper than {MAX_DEPTH} levels") from None
    finally:
        loader.dispose()


def _ids_as_text(root: Any, id_keys: frozenset[str]) -> set[int]:
    """The plain scalars of the top mapping ``root``'s ``id_keys`` read as text, as
    written; YAML's null stays null (no value given). ``root`` is flattened: the pairs its
    merge keys brought are among its own, so a merged id is read so too. A new node replaces
    each, since an alias may share it with a value that is no id (the merged mapping's
    own stays as YAML reads it). Returns the ids (``id()``) of the id scalars read as text,
    which a YAML 1.2 reader's number (``tag: 1e3``) does not make ambiguous."""
    import yaml

    text, null = "tag:yaml.org,2002:str", "tag:yaml.org,2002:null"
    as_written = set()
    for index, (key, value) in enumerate(root.value):
        is_id = isinstance(key, yaml.ScalarNode) and key.value in id_keys
        if not is_id or not isinstance(value, yaml.ScalarNode) or value.tag == null:
            continue
        # a new node even for text: the one read may be an alias's too (`tag: &a 1e3`,
        # `b: *a`), whose other uses are read as any value is
        value = yaml.ScalarNode(text, value.value, value.start_mark, value.end_mark, value.style)
        root.value[index] = (key, value)
        as_written.add(id(value))
    return as_written
