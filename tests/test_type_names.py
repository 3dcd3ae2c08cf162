"""A value's type named in one vocabulary per input (trecbench.type_names): a value read
from JSON in JSON's words wherever it is read (a converter's input, a JSONL run, a run dict
in a JSON file), a value held in memory in Python's (a dict, records)."""

from __future__ import annotations

import json
import types

import pytest

from trecbench import inputs
from trecbench.convert.dicts import convert_dict
from trecbench.errors import InputError
from trecbench.sources import read_json


def _refusal(call, *args, **keywords) -> str:
    with pytest.raises(InputError) as caught:
        call(*args, **keywords)
    return str(caught.value)


@pytest.mark.parametrize(
    ("value", "named", "in_a_line"),
    [
        ("1", 'a string ("1")', 'the string "1"'),
        ([1], "an array ([1])", "the array [1]"),
        ({"a": 1}, 'an object ({"a": 1})', 'the object {"a": 1}'),
        (True, "a boolean (true)", "the boolean true"),
        (None, "null", "null"),
    ],
    ids=repr,
)
def test_a_json_value_is_named_alike_by_every_reader_of_json(tmp_path, value, named, in_a_line):
    """The converters said "a list" where a run dict in a JSON file said "an array" and a
    JSONL run "the array"; a run dict said "text" where the others said a string."""
    document = tmp_path / "doc.json"
    document.write_text(json.dumps({"score": value}))
    at = read_json(document, "test").root / "score"
    converter = _refusal(at.expect_number, value, optional=False)
    assert converter.endswith(f"score: expected a number, found {named}")

    run_dict = tmp_path / "run.json"
    run_dict.write_text(json.dumps({"q1": {"d1": value}}))
    kind = named.split(" (")[0]
    assert f"{kind}, not a number" in _refusal(convert_dict, run_dict)

    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text(json.dumps({"qid": "q1", "docno": "d1", "score": value}) + "\n")
    message = _refusal(inputs.load_run, str(jsonl))
    assert message.endswith(f"score must be a JSON number, not {in_a_line}")


@pytest.mark.parametrize(
    ("record", "named"),
    [(3, "an int"), ("q d 1", "text"), (b"q", "bytes"), (("q", "d", 1.0), "a tuple")],
    ids=repr,
)
def test_a_record_that_is_no_dict_beside_dicts_is_named_in_pythons_words(record, named):
    # "record 1 is a int", "is a str": the type's name after an article written "a"
    rows = [{"qid": "q", "docno": "d", "score": 1.0}, record]
    assert _refusal(inputs.load_run, rows) == (
        f"run records: record 1 is {named}, not a dict as record 0"
    )


def test_a_dict_record_beside_other_records_is_named_beside_the_first_records_type():
    class Item:
        def __init__(self):
            self.query_id, self.doc_id, self.score = "q", "d", 1.0

    rows = [Item(), {"qid": "q", "docno": "e", "score": 2.0}]
    assert _refusal(inputs.load_run, rows) == (
        "run records: record 1 is a dict, not an Item as record 0"
    )
    named = [types.SimpleNamespace(query_id="q", doc_id="d", score=1.0), rows[1]]
    assert "not a SimpleNamespace as record 0" in _refusal(inputs.load_run, named)
