"""The one reversible id escaping (trecbench.ids): examples, round trip, injectivity."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from trecbench.ids import escape_id, escape_series, needs_escaping, unescape_id

# any text a JSON input can hold: every code point but the surrogates
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
# reproducible in CI: the same examples every run, no example database on disk
PROPERTY = settings(derandomize=True, database=None, deadline=None)


def test_examples():
    assert escape_id("q 1") == "q%201"
    assert escape_id("q%201") == "q%25201"  # issue 9.4: these two no longer merge
    assert escape_id("a\tb\nc") == "a%09b%0Ac"
    assert escape_id("#1") == "%231" and escape_id("a#1") == "a#1"  # a comment-looking qid
    # a document's '#' is no line's start; a '%' unquote would not decode is kept: both
    # written as they are, matching a collection's qrels (they were %235 and 100%25_pure)
    assert escape_id("#5", "docno") == "#5" and escape_id("q 1", "docno") == "q%201"
    assert escape_id("100%_pure") == "100%_pure" and escape_id("%", "docno") == "%"
    assert escape_id("%zz%4") == "%zz%4" and escape_id("50%Off") == "50%Off"
    assert escape_id("%41") == "%2541" and escape_id("%af") == "%25af"  # what unquote decodes
    assert escape_id("%%41 ") == "%%2541%20" and escape_id("%4\x00") == "%4%00"
    assert escape_id("x\u00a0y\u200bz") == "x%C2%A0y%E2%80%8Bz"  # NBSP, zero-width space
    assert escape_id("\x00\x7f\x85") == "%00%7F%C2%85"
    for plain in ("HP:0001250", "doc1", "001", "NA", "ä/ö:ü", "😀", "a-b_c.d"):
        assert escape_id(plain) == plain


# texts rich in what the rule turns on: '%' beside hex digits, blanks and '#'
PERCENTS = st.text(st.sampled_from("%%4aAfFgz #\x00\u200b"), max_size=12)


@settings(PROPERTY, max_examples=300)
@given(st.one_of(TEXT, PERCENTS), st.sampled_from(["qid", "docno"]))
def test_round_trip_and_valid_trec_id(text, what):
    escaped = escape_id(text, what)
    assert unescape_id(escaped) == text
    assert not any(c.isspace() for c in escaped)  # trec_eval would split there
    assert what == "docno" or not escaped.startswith("#")
    assert all(ord(c) >= 0x20 and not 0x7F <= ord(c) <= 0x9F for c in escaped)


def test_every_character_the_validator_flags_in_an_id_is_escaped():
    # convert failed ("converted qrels fails validation: R6 ... this is a trecbench bug")
    # on a soft hyphen, an emoji's variation selector, bidi controls, tags: escape_id left
    # them as they were, and R2/R6 flag them; the validator's own character class
    from trecbench.validation.checker import _HOSTILE_CHAR

    assert (
        escape_id("se\u00adlect") == "se%C2%ADlect"
        and escape_id("\u2764\ufe0f") == "\u2764%EF%B8%8F"
    )
    flagged = [
        chr(c)
        for c in range(0x80, 0x110000)
        if not 0xD800 <= c <= 0xDFFF and _HOSTILE_CHAR.match(chr(c))
    ]
    assert len(flagged) > 4000  # the tags block alone holds 4,096
    text = "".join(flagged)
    assert _HOSTILE_CHAR.search(escape_id(text)) is None and unescape_id(escape_id(text)) == text


@settings(PROPERTY, max_examples=300)
@given(st.one_of(TEXT, PERCENTS), st.one_of(TEXT, PERCENTS), st.sampled_from(["qid", "docno"]))
def test_distinct_ids_stay_distinct(a, b, what):
    if a != b:
        assert escape_id(a, what) != escape_id(b, what)


@settings(PROPERTY, max_examples=150)
@given(st.lists(st.one_of(TEXT, PERCENTS), max_size=20), st.sampled_from(["qid", "docno"]))
def test_vectorised_rule_is_the_scalar_rule(texts, what):
    mask = needs_escaping(pa.array(texts, pa.string()), what)
    assert mask.tolist() == [escape_id(t, what) != t for t in texts]
    escaped, changed = escape_series(pd.Series(texts, dtype="string"), what)
    assert escaped.tolist() == [escape_id(t, what) for t in texts]
    assert changed.tolist() == mask.tolist()


def test_the_bytes_told_plain_at_once_are_those_no_escaping_or_trec_line_changes():
    # arrow.plain_ids, a third spelling of the rule (final read 344): every ASCII byte
    # against escape_id, and a string of plain bytes needs no escaping whatever its length
    from trecbench.arrow import plain_ids

    for byte in range(128):
        text = chr(byte)
        plain = plain_ids(pa.array([text, f"a{text}b"]))
        unchanged = escape_id(text) == text and escape_id(f"a{text}b") == f"a{text}b"
        # '%' and '#' need escaping by what surrounds them ('%41', a qid's leading '#'):
        # told plain at once only where none ever does
        assert plain == (unchanged and text not in "%#")
        assert plain == (0x21 <= byte < 0x7F and text not in "%#")
    printable = "".join(chr(b) for b in range(0x21, 0x7F) if chr(b) not in "%#")
    assert plain_ids(pa.array([printable])) and not needs_escaping(pa.array([printable])).any()
    assert not plain_ids(pa.array(["a", ""]), nonempty=True) and plain_ids(pa.array(["a", ""]))


def test_a_role_other_than_qid_or_docno_is_refused_in_one_line():
    # escape_id("#x", "doc") raised a bare KeyError: 'doc'
    import re

    import pytest

    from trecbench.errors import UsageError

    said = "what must be 'qid' or 'docno' (the id's role), not 'doc'"
    for call in (
        lambda: escape_id("#x", "doc"),
        lambda: needs_escaping(pa.array(["#x"]), "doc"),
        lambda: escape_series(pd.Series(["#x"], dtype="string"), "doc"),
    ):
        with pytest.raises(UsageError, match=f"^{re.escape(said)}$"):
            call()
