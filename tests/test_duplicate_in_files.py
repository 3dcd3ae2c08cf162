"""A document a run lists twice, cited in its files (trecbench.inputs.tables
duplicate_in_files): one function for a run of one file and for the files a Dask run's
lines are numbered across, each listing a row where its file's lines are its rows."""

from __future__ import annotations

import pytest

from trecbench.errors import DuplicateError
from trecbench.inputs.tables import FILE_LINE_BITS, duplicate_in_files
from trecbench.ranking import duplicate_error


def _in_file(index: int, line: int) -> int:
    return index << FILE_LINE_BITS | line


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        ([False, False], "b.run:4: duplicate docs d for topic 1 (first on line 3 of a.run)"),
        ([False, True], "b.run: row 4: duplicate docs d for topic 1 (first on line 3 of a.run)"),
        ([True, False], "b.run:4: duplicate docs d for topic 1 (first at row 3 of a.run)"),
    ],
)
def test_each_listing_is_cited_in_its_own_file_as_its_file_counts(rows, said):
    error = duplicate_error("run1", "1", "d", _in_file(0, 3), _in_file(1, 4))
    cited = duplicate_in_files(error, files=["a.run", "b.run"], rows=rows)
    assert isinstance(cited, DuplicateError) and str(cited) == said


def test_a_run_of_one_file_names_no_other():
    error = duplicate_error("r.parquet", "1", "d", 2, 5)
    assert str(duplicate_in_files(error, files=["r.parquet"], rows=[True])) == (
        "r.parquet: row 5: duplicate docs d for topic 1 (first at row 2)"
    )
    as_lines = duplicate_in_files(error, files=["r.parquet"], rows=[False])
    assert (str(as_lines), as_lines.line) == (str(error), error.line)


def test_the_places_are_named_and_the_qrels_duplicate_is_left_as_it_is():
    error = duplicate_error("r", "1", "d", 2, 5)
    with pytest.raises(TypeError):  # two lists of one length, easy to swap: named
        duplicate_in_files(error, ["r"], [True])  # type: ignore[misc]
    qrels = duplicate_error("q", "1", "d", 2, 5, rule="Q5")
    assert duplicate_in_files(qrels, files=["r"], rows=[True]) is qrels


def test_the_qrels_duplicate_is_cited_as_its_file_counts_when_told_its_rule():
    qrels = duplicate_error("q.parquet", "1", "d", 2, 5, rule="Q5")
    cited = duplicate_in_files(qrels, files=["q.parquet"], rows=[True], rule="Q5")
    assert str(cited) == "q.parquet: row 5: duplicate docs d for topic 1 (first at row 2)"
    assert cited.rule == "Q5" and cited.exit_code == 4
