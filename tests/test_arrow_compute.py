"""trecbench.arrow_compute calls Arrow's functions as pyarrow.compute does: the same
results, options and refusals, checked against pyarrow.compute itself."""

from __future__ import annotations

import subprocess
import sys

import pyarrow as pa
import pyarrow.compute as reference
import pytest

from trecbench import arrow_compute as pc

WORDS = pa.array(["b", None, "a", "ab", "b"])
NUMBERS = pa.array([2.5, None, -1.5, 7.0])
TABLE = pa.table({"k": pa.array([3, 1, 2]), "v": pa.array(["x", "y", "z"])})


@pytest.mark.parametrize(
    ("name", "args", "kwargs"),
    [
        ("not_equal", (WORDS, pa.scalar("b")), {}),  # no options
        ("unique", (WORDS,), {}),
        ("dictionary_encode", (WORDS,), {}),  # options left to their defaults
        ("is_in", (WORDS,), {"value_set": pa.array(["a", "b"])}),  # options by keyword
        ("match_substring", (WORDS, "a"), {}),  # ... and after the data
        ("match_substring", (WORDS, "A"), {"ignore_case": True}),
        ("sort_indices", (TABLE,), {"sort_keys": [("k", "descending")]}),
        ("binary_join_element_wise", (WORDS, WORDS, "-"), {}),  # varargs: the last is data
        ("take", (WORDS, pa.array([4, 0])), {}),
        ("filter", (TABLE, pa.array([True, False, True])), {}),
        ("or_", (pa.array([True, False]), pa.array([False, False])), {}),
        ("and_", (pa.array([True, False]), pa.array([True, True])), {}),
        ("min_max", (NUMBERS,), {"skip_nulls": False}),
        ("cast", (NUMBERS, pa.float32()), {}),
        ("cast", (pa.array([1.5, 2.0]), pa.int64()), {"safe": False}),
        ("fill_null", (WORDS, "z"), {}),
        ("fill_null", (pa.array([1, None], pa.int32()), pa.scalar(9, pa.int64())), {}),
        ("index", (WORDS, "b"), {}),
        ("index", (WORDS, "b"), {"start": 1}),
        ("index", (WORDS, "b"), {"start": 1, "end": 4}),
        ("index", (WORDS, "q"), {}),
        ("utf8_zfill", (pa.array(["7", "-3"]), 3), {}),  # pyarrow.compute's alias
    ],
)
def test_a_call_gives_what_pyarrow_compute_gives(name, args, kwargs):
    ours, theirs = getattr(pc, name)(*args, **kwargs), getattr(reference, name)(*args, **kwargs)
    assert type(ours) is type(theirs)
    assert ours.equals(theirs)


def test_options_are_taken_as_an_object_or_a_dict():
    keys = [("k", "ascending")]
    expected = reference.sort_indices(TABLE, sort_keys=keys)
    assert pc.sort_indices(TABLE, options=pc.SortOptions(sort_keys=keys)).equals(expected)
    assert pc.sort_indices(TABLE, options={"sort_keys": keys}).equals(expected)
    assert pc.cast(NUMBERS, options=pc.CastOptions.safe(pa.float32())).equals(
        reference.cast(NUMBERS, pa.float32())
    )


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda f: f.not_equal(WORDS), TypeError),  # too few data arguments
        (lambda f: f.not_equal(WORDS, WORDS, WORDS), TypeError),  # too many, and no options
        (lambda f: f.is_in(WORDS, options=f.SetLookupOptions(WORDS), skip_nulls=True), TypeError),
        (lambda f: f.sort_indices(TABLE, options=3), TypeError),
        (lambda f: f.cast(NUMBERS, pa.int64()), pa.ArrowInvalid),  # safe: 2.5 is no integer
        (lambda f: f.cast(NUMBERS, pa.int64(), options=f.CastOptions.safe(pa.int8())), ValueError),
    ],
)
def test_a_call_is_refused_as_pyarrow_compute_refuses_it(call, error):
    with pytest.raises(error):
        call(reference)
    with pytest.raises(error):
        call(pc)


def test_an_expression_is_built_as_pyarrow_compute_builds_it():
    field = reference.field("k")
    assert pc.greater(field, 1).equals(reference.greater(field, 1))
    assert pc.is_in(field, value_set=pa.array([1])).equals(
        reference.is_in(field, value_set=pa.array([1]))
    )


def test_what_is_not_a_function_is_pyarrow_computes_own():
    assert pc.SortOptions is reference.SortOptions
    assert pc.call_function is reference.call_function
    assert pc.field is reference.field and pc.scalar is reference.scalar
    with pytest.raises(AttributeError, match="no_such_function"):
        pc.no_such_function  # noqa: B018 - the lookup is what is tested


@pytest.mark.parametrize("name", ["hash_sum", "count_all", "no_such_function"])
def test_what_pyarrow_compute_does_not_expose_is_refused_alike(name):
    assert not hasattr(reference, name)
    assert not hasattr(pc, name)


def test_a_probe_of_a_dunder_name_imports_nothing():
    probe = (
        "import sys; from trecbench import arrow_compute as pc; "
        "print(hasattr(pc, '__path__'), hasattr(pc, '__wrapped__'), "
        "'pyarrow.compute' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "False"]
