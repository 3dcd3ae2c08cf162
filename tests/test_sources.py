"""Converter inputs read once, with limits against hostile JSON, and errors located."""

from __future__ import annotations

import gzip
import hashlib

import pytest

from trecbench.errors import InputError
from trecbench.sources import read_json, read_jsonl, read_source


def refused(tmp_path, text: str, name: str = "in.json") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_json(path, "test")
    return str(info.value).removeprefix(str(tmp_path) + "/")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # issue 9.7: each of these was a traceback
        ("[" * 100_000, "in.json:1: JSON nested deeper than 100 levels"),
        ('{"a":\n [1, ' + "7" * 5000 + "]}", "in.json:2: integer with 5000 digits (at most 100"),
        ('{"id": "\\ud800"}', "in.json:1: lone surrogate \\ud800 (not a Unicode character)"),
        ('["ok",\n "\\udfff"]', "in.json:2: lone surrogate \\udfff"),
        ('{"score": 1' + "0" * 400 + ".5}", "in.json:1: number 1000000000000000000000000000000"),
        ('{"score":\n  NaN}', "in.json:2: NaN is not a JSON number"),
        ('{"score": -Infinity}', "in.json:1: -Infinity is not a JSON number"),
        ('{"score": 1e999}', "in.json:1: number 1e999 is beyond a double"),
        # it read as 0.0, silently (a score tied with the zeros), where 1e999 was refused
        ('{"a": 0,\n "score": 1e-400}', "in.json:2: number 1e-400 is too small for a double"),
        ("[0.0, -0.0,\n -2.5E-999]", "in.json:2: number -2.5E-999 is too small for a double"),
        ('{"q1": 1, "q1": 2}', "in.json:1: duplicate key 'q1' in an object"),
        ('{"a": [1, 2}', "in.json:1: invalid JSON: Expecting ',' delimiter at column 12"),
        # it said "Unterminated string starting at" and no more: at what?
        ('{"a":\n  "b', "in.json:2: invalid JSON: Unterminated string starting at column 3"),
        ('["a\tb"]', "in.json:1: invalid JSON: Invalid control character at column 4"),
        ("", "in.json: empty file"),  # was "in.json:1: invalid JSON: Expecting value"
        (" \n\n", "in.json: empty file"),
    ],
)
def test_hostile_json_is_refused_at_its_line(tmp_path, text, message):
    assert refused(tmp_path, text).startswith(message)


def test_json_depth_counts_across_lines(tmp_path):
    # one bracket per line: a newline ends a record only in JSON lines; here the count
    # once restarted at each line and the parser then hit Python's recursion limit
    assert refused(tmp_path, "[\n" * 200).startswith("in.json:101: JSON nested deeper than 100")


def test_what_json_allows_is_kept(tmp_path):
    path = tmp_path / "ok.json"
    path.write_text(
        '\ufeff{"pair": "\\ud83d\\ude00", "slash": "\\\\ud800", "deep": ' + "[" * 99 + "]" * 99
        + ', "big": ' + "9" * 100 + "}",
        encoding="utf-8",
    )  # fmt: skip
    value = read_json(path, "test").value
    assert value["pair"] == "😀" and value["slash"] == "\\ud800"
    assert value["big"] == int("9" * 100)


def test_zeros_however_written_are_not_refused_as_too_small(tmp_path):
    # only a nonzero number read as 0 is refused: a zero's exponent and the smallest
    # subnormal double are read as written
    path = tmp_path / "z.json"
    path.write_text("[0, -0, 0.0, -0.0, 0e-999, 0.000E+5, -0.00e-400, 5e-324]")
    assert [str(v) for v in read_json(path, "test").value] == [
        "0", "-0", "0.0", "-0.0", "0.0", "0.0", "-0.0", "5e-324"
    ]  # fmt: skip


def test_not_utf8_names_the_line(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"a": 1,\n "b": "\xe9"}')
    with pytest.raises(InputError, match=r"latin1.json:2: not UTF-8"):
        read_json(path, "test")


def test_gzip_is_read_by_its_magic_and_hashed_as_stored(tmp_path):
    raw = gzip.compress(b'{"a": [1, 2]}')
    path = tmp_path / "x.json.gz"
    path.write_bytes(raw)
    doc = read_json(path, "test")
    assert doc.value == {"a": [1, 2]}
    assert doc.source.record == {
        "path": str(path),
        "kind": "test",
        "size": len(raw),
        "sha256": hashlib.sha256(raw).hexdigest(),
    }
    named = tmp_path / "plain.json.gz"  # a name is not a format
    named.write_text('{"b": 1}')
    assert read_json(named, "test").value == {"b": 1}
    twice = tmp_path / "twice.gz"
    twice.write_bytes(gzip.compress(raw))
    with pytest.raises(InputError, match=r"compressed twice \(gzip\)"):
        read_json(twice, "test")
    cut = tmp_path / "cut.gz"
    cut.write_bytes(raw[:-6])
    with pytest.raises(InputError, match="corrupt or truncated gzip"):
        read_json(cut, "test")


def test_a_pipe_is_read_once(tmp_path):
    import os
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(b'{"a": 1}'))
    writer.start()
    source = read_source(fifo, "test")
    writer.join()
    assert source.data == b'{"a": 1}'
    assert source.record["sha256"] == hashlib.sha256(b'{"a": 1}').hexdigest()


def test_places_name_the_line_and_the_path(tmp_path):
    path = tmp_path / "cases.json"
    path.write_text('{"test_cases": [\n  {"text": "a"},\n  {"text": "b",\n   "ids": [1, "x"]}\n]}')
    doc = read_json(path, "test")
    at = doc.root / "test_cases" / 1 / "ids" / 0
    with pytest.raises(InputError, match=r"cases.json:4: test_cases\[1\].ids\[0\]: expected a"):
        at.expect_ids(doc.value["test_cases"][1]["ids"][0])
    with pytest.raises(InputError, match=r"found a string \(\"x\"\)"):
        (doc.root / "test_cases" / 1 / "ids").expect_object("x")
    assert (doc.root / "test_cases" / 1 / "ids").expect_ids([1, "x"]) == ["1", "x"]
    with pytest.raises(InputError, match=r"expected an array of ids, found a string"):
        doc.root.expect_ids("c2")  # issue 9.4: never split into one-character ids
    for bad in (1.0, True, "", None):
        with pytest.raises(InputError, match="expected a non-empty string id"):
            doc.root.expect_id(bad)
    # a missing key: the line of the object that lacks it
    assert doc.line_of(("test_cases", 1, "nope")) == 3


def test_json_lines(tmp_path):
    path = tmp_path / "terms.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2}\r\n')
    doc = read_jsonl(path, "test")
    assert doc.records == [(1, {"a": 1}), (3, {"a": 2})]
    (at, _), (third, _) = list(doc)
    with pytest.raises(InputError, match=r"terms.jsonl:3: rank: expected an integer of at least"):
        (third / "rank").expect_integer(-1, 1)
    path.write_text('{"a": 1}\n{"a": NaN}\n')
    with pytest.raises(InputError, match=r"terms.jsonl:2: NaN is not a JSON number"):
        read_jsonl(path, "test")
    path.write_text('{"a": 1}\n{"a": ' + "[" * 500 + "\n")
    with pytest.raises(InputError, match=r"terms.jsonl:2: JSON nested deeper"):
        read_jsonl(path, "test")


@pytest.mark.parametrize("encoding", ["UTF-16-LE", "UTF-16-BE", "UTF-32-LE", "UTF-32-BE"])
@pytest.mark.parametrize(("name", "read"), [("in.json", read_json), ("in.jsonl", read_jsonl)])
def test_a_utf16_file_is_refused_in_scores_words(tmp_path, encoding, name, read):
    """It was "in.json:1: not UTF-8: invalid start byte"; score says "the file is UTF-16".
    A UTF-32 file was said to be UTF-16 (its little-endian mark starts with UTF-16's)."""
    path = tmp_path / name
    path.write_bytes('\ufeff{"a": 1}\n'.encode(encoding))  # the byte-order mark first
    with pytest.raises(InputError) as info:
        read(path, "test")
    assert str(info.value) == f"{path}: the file is {encoding[:6]}; save it as UTF-8"


@pytest.mark.parametrize("encoding", ["UTF-16-LE", "UTF-16-BE", "UTF-32-LE", "UTF-32-BE"])
@pytest.mark.parametrize(("name", "read"), [("in.json", read_json), ("in.jsonl", read_jsonl)])
def test_an_unmarked_utf16_file_is_refused_as_a_marked_one(tmp_path, encoding, name, read):
    """Without a byte-order mark (iconv -t UTF-16LE) it was "in.json:1: not UTF-8" or a
    JSON error at a NUL; told by its NULs, it is refused in the words of a marked one."""
    path = tmp_path / name
    path.write_bytes('{"a": 1}\n'.encode(encoding))
    with pytest.raises(InputError) as info:
        read(path, "test")
    assert str(info.value) == f"{path}: the file is {encoding[:6]}; save it as UTF-8"
