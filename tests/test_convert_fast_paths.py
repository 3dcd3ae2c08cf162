"""The fast paths of the converters' shared readers give what the general ones give:
Arrow's CSV reader of plain tab-separated files (:mod:`trecbench.convert.textfiles`),
documents coded in blocks of whole queries (:func:`trecbench.convert.tables.ranked_run`)
and the escaping check of plain ids from their bytes (:mod:`trecbench.ids`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from trecbench.convert import tables, textfiles
from trecbench.convert.common import Report, ranked_run
from trecbench.errors import InputError
from trecbench.ids import escape_id, needs_escaping
from trecbench.sources import read_source

NAMES = ("qid", "pid", "rank")


@pytest.mark.parametrize(
    "data",
    [
        b"1\td1\t1\n2\td x\t1\n",
        b"1\td1\t1\n2\td2\t1",  # no final line end
        "\ufeff1\td\u00e91\t1\n".encode(),  # a byte-order mark, non-ASCII ids
        b'1\t"d1"\t1\n',  # quotes are characters of the id
    ],
)
def test_plain_files_read_by_arrow_as_split(tmp_path, data):
    path = tmp_path / "run.tsv"
    path.write_bytes(data)
    quick = textfiles._plain_fields(read_source(path, "run"), NAMES)
    split = textfiles._split_fields(read_source(path, "run"), NAMES)
    assert quick is not None
    assert [c.to_pylist() for c in quick.columns] == [c.to_pylist() for c in split.columns]
    assert [c.type for c in quick.columns] == [c.type for c in split.columns]
    assert [quick.error(r, "m").line for r in range(len(split.columns[0]))] == list(split.line)


@pytest.mark.parametrize(
    ("data", "line", "message"),
    [
        (b"1\td1\t1\n\n1\td2\n", 3, "expected 3 fields"),  # line numbers past a blank line
        (b"1\td1\t1\n1\td2\t2\r\r\n", 2, "rank '2\\r'"),  # a CR kept in the field
        (b"1\td1\t1\n1\td2\t2\t\n", 2, "found 4"),
        (b"1\td1\t1\n \n", 2, "found 1 (fields are separated by tabs)"),
        (b"1\td1\t1\n1\t\t2\n", 2, "empty pid"),
        (b"\xef\xbb\xbf\xef\xbb\xbf1\td1\tx\n", 1, "rank 'x'"),  # a second mark: the id's
    ],
)
def test_other_files_refused_at_their_line(tmp_path, data, line, message):
    from trecbench.convert.msmarco import convert_msmarco

    path = tmp_path / "run.tsv"
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        convert_msmarco(path)
    assert caught.value.line == line
    assert message in str(caught.value)


def test_a_document_in_several_queries_of_a_block_or_across_blocks(monkeypatch):
    """Codes are per block of whole queries: a docno shared by queries is no duplicate,
    one repeated in a query is, wherever the blocks end."""
    rng = np.random.default_rng(3)
    data = [(f"q{q}", f"d{rng.integers(0, 6)}", int(rng.integers(1, 5)), 0.0) for q in
            rng.integers(0, 9, 120)]  # fmt: skip
    frame = pd.DataFrame(data, columns=["qid", "docno", "order", "score"])
    runs = {}
    for block in (1 << 16, 1, 7):
        monkeypatch.setattr(tables, "_BLOCK", block)
        report = Report()
        run = ranked_run(frame, "t", None, report)
        runs[block] = (run.table.to_dict("list"), report.as_dict())
    expected = frame.assign(row=range(len(frame))).sort_values(
        ["qid", "order", "row"], key=lambda s: s.map({q: i for i, q in enumerate(
            dict.fromkeys(frame["qid"]))}) if s.name == "qid" else s, kind="stable")  # fmt: skip
    kept = expected.drop_duplicates(["qid", "docno"])
    assert runs[1 << 16][0]["docno"] == kept["docno"].tolist()
    assert runs[1] == runs[7] == runs[1 << 16]


@pytest.mark.parametrize(
    "ids",
    [["a", "b~!"], ["a b"], ["#a"], ["a#"], ["x", "%"], ["\u00e9"], ["a\x7f"], ["", None]],
)
@pytest.mark.parametrize("kind", [pa.string(), pa.large_string()])
def test_ids_needing_no_escape_told_from_their_bytes(ids, kind):
    values = pa.array(ids, kind)
    expected = [text is not None and escape_id(text) != text for text in ids]
    assert needs_escaping(values).tolist() == expected
    assert needs_escaping(values.slice(1)).tolist() == expected[1:]
    assert needs_escaping(pa.chunked_array([values, values])).tolist() == expected * 2
