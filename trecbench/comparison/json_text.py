"""The per-topic values of a comparison's report as ``json.dumps`` writes them, faster:
a template per tuple of keys filled with the floats, instead of json's pure-Python
indenting encoder (:meth:`trecbench.comparison.result.Comparison.report_json`)."""

from __future__ import annotations


def per_query_json(mapping: dict, indent: int, level: int) -> str:
    """``json.dumps(mapping, indent=indent, ensure_ascii=False)`` nested ``level`` deep, for
    dicts (runs) of dicts (topics) of dicts of finite Python floats under string keys: a
    topic's values fill a template of its keys (made once per key tuple) instead of going
    through json's pure-Python encoder."""
    from json.encoder import encode_basestring  # json's string encoder, ensure_ascii off

    if not mapping:
        return "{}"
    inner = "\n" + " " * (indent * (level + 1))
    close = "\n" + " " * (indent * level) + "}"
    first = next(iter(mapping.values()))
    if not isinstance(first, dict):  # the floats of one topic
        return _float_template(tuple(mapping), indent, level) % tuple(mapping.values())
    if first and not isinstance(next(iter(first.values())), dict):  # topics: one loop
        templates: dict[tuple, str] = {}
        items = []
        for key, row in mapping.items():
            keys = tuple(row)
            template = templates.get(keys)
            if template is None:
                template = templates[keys] = _float_template(keys, indent, level + 1)
            items.append(encode_basestring(key) + ": " + template % tuple(row.values()))
    else:
        items = [
            encode_basestring(key) + ": " + per_query_json(value, indent, level + 1)
            for key, value in mapping.items()
        ]
    return "{" + inner + ("," + inner).join(items) + close


def _float_template(keys: tuple, indent: int, level: int) -> str:
    """The %-template json.dumps writes a dict of floats under ``keys`` as, ``level`` deep
    (``%r`` of a float is ``float.__repr__``, json's own)."""
    from json.encoder import encode_basestring

    if not keys:
        return "{}"
    inner = "\n" + " " * (indent * (level + 1))
    fields = [encode_basestring(key).replace("%", "%%") + ": %r" for key in keys]
    return "{" + inner + ("," + inner).join(fields) + "\n" + " " * (indent * level) + "}"
