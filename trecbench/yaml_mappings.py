"""The keys of a YAML mapping as trecbench's loader (:mod:`trecbench.yaml_loader`) reads
them: a key given twice refused at its line (:func:`check_keys`; with ``text_keys``, a key
that is not text too), merge keys flattened in the order the YAML merge key specifies
(:func:`merge_in_order`: in ``<<: [*a, *b]`` a key of ``a`` wins over ``b``'s), and two
keys that are one once written as JSON refused (:func:`check_json_keys`)."""

from __future__ import annotations

from typing import Any

from .errors import excerpt, excerpt_plain, one_line

MERGE = "tag:yaml.org,2002:merge"


def check_keys(loader: Any, node: Any, text_keys: bool) -> None:
    """Refuse a key given twice in ``node`` and, with ``text_keys``, one that is not text."""
    import yaml

    first_seen: dict[Any, Any] = {}
    for key_node, _ in node.value:
        if key_node.tag == MERGE:  # `<<: *base` merges; keys written out win, by design
            # a second `<<` was merged after the first, silently: one merge key of a list
            earlier = first_seen.setdefault(MERGE, key_node)
            if earlier is not key_node:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"merge key << given twice (first on line {_line_of(loader, earlier)}): "
                    "merge several mappings with one, as <<: [*a, *b]",
                    key_node.start_mark,
                )
            continue
        loader.key_nodes.add(id(key_node))
        key = loader.construct_object(key_node, deep=True)
        if text_keys and not isinstance(key, str):  # as a JSON or TOML configuration's
            raise yaml.constructor.ConstructorError(
                None, None, _no_name(key_node, key), key_node.start_mark
            )
        try:
            earlier = first_seen.get(key)
        except TypeError:  # an unhashable key: the base class refuses it with its line
            continue
        # on its line too: `{b: 1, b: 2}` was read as {b: 2}; a key given again through an
        # alias (`? &s seed : 1` then `*s : 2`) is the first one's node, seen already
        if earlier is not None:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"duplicate key {excerpt(key)} (first on line {_line_of(loader, earlier)})",
                key_node.start_mark,
            )
        first_seen[key] = key_node


def check_json_keys(loader: Any, node: Any) -> None:
    """Refuse two keys of the flattened mapping ``node`` that are two keys to Python (to
    the parsed mapping) but one once written as JSON, whose keys are text (``1:`` and
    ``"1":``): a report's JSON would hold the key twice and its readers keep one value.
    Keys Python takes as one are a duplicate (refused) or a merged key overridden."""
    import yaml

    from .json_values import json_key

    first_as_json: dict[str, tuple[Any, Any]] = {}
    for key_node, _ in node.value:
        key = _key_of(loader, key_node)
        if key is key_node:  # an unhashable key: the base class refuses it with its line
            continue
        earlier, earlier_node = first_as_json.setdefault(json_key(key), (key, key_node))
        if earlier is not key and earlier != key:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"keys {_as_written(earlier_node)} (line {_line_of(loader, earlier_node)}) "
                f"and {_as_written(key_node)} are one key in JSON, whose keys are text: give "
                "one of them another name",
                key_node.start_mark,
            )


def _as_written(node: Any) -> str:
    """The scalar ``node`` as a message quotes it: plain as written, quoted with quotes."""
    text = excerpt_plain(one_line(node.value))
    return text if node.style is None else f'"{text}"'


def merge_in_order(loader: Any, node: Any) -> None:
    """Flatten the mapping ``node``'s merge keys (``<<: *a``, ``<<: [*a, *b]``) into its
    pairs as the YAML merge key is specified: a key of a mapping earlier in the list over
    the same key of a later one, its own keys over all (they come last: constructing the
    mapping keeps the last value, in the first one's place). Keys are one when Python finds
    them equal; PyYAML 6 compared the ids of their texts, so ``x`` (interned) followed the
    specification and ``long key`` did not."""
    merged: dict[Any, tuple[Any, Any]] = {}
    own = []
    for key_node, value_node in node.value:
        if key_node.tag != MERGE:
            own.append((key_node, value_node))
            continue
        for source in _merge_sources(node, value_node):
            loader.flatten_mapping(source)
            # within a flattened source its own key comes after the merged one it overrides
            effective = {_key_of(loader, pair[0]): pair for pair in source.value}
            for key, pair in effective.items():
                merged.setdefault(key, pair)
    if len(own) < len(node.value):
        node.value = list(merged.values()) + own


def _merge_sources(node: Any, value_node: Any) -> list:
    """The mappings the merge key of ``node`` whose value is ``value_node`` merges, in
    order; refused as PyYAML refuses them when they are not mappings."""
    import yaml

    sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
    for source in sources:
        if not isinstance(source, yaml.MappingNode):
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                f"expected a mapping or list of mappings for merging, but found {source.id}",
                source.start_mark,
            )
    return sources


def _key_of(loader: Any, key_node: Any) -> Any:
    """The key ``key_node`` is, as a mapping being merged compares it; an unhashable one
    (left for the base class to refuse with its line) is only equal to itself."""
    key = loader.construct_object(key_node, deep=True)
    try:
        hash(key)
    except TypeError:
        return key_node
    return key


def _line_of(loader: Any, node: Any) -> int:
    """The line in the file where ``node`` starts (the loader's text begins at the file's
    line ``loader.first_line``), counted at ``\\n`` only."""
    return loader.first_line + loader.buffer.count("\n", 0, node.start_mark.index)


def _no_name(key_node, key) -> str:
    """Why a mapping's key read as ``key`` is no name: a scalar YAML read as another type
    than text, or a list or mapping given as a key (``? [a, b]``: its nodes were shown)."""
    if not isinstance(key_node.value, str):  # a sequence's or mapping's node: its nodes
        kind = "table" if isinstance(key, dict) else type(key).__name__  # as others say
        return f"key {excerpt(key)} is a {kind}, not a name: give a name (text) as the key"
    return (
        f"key {excerpt(key_node.value)} is read as {_read_as(key)}, not "
        "as a name: "
        "quote it (YAML reads 1, 010, yes, no, on, off, null as numbers, booleans or nothing)"
    )


def _read_as(value) -> str:
    """What YAML read a plain scalar key as, in words: ``the integer 7`` for ``007`` (not
    the loader's WrittenInt, which keeps how it was written), ``the boolean true``,
    ``nothing (null)``, ``the date 2001-01-01``."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"the integer {int(value)}"
    if isinstance(value, float):
        return f"the number {float(value)!r}"
    return f"the date {value.isoformat()}"  # YAML 1.1's timestamps: a date or a datetime
