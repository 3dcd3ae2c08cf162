"""The registry of input formats (trecbench.inputs.formats): detection, and a capability
a format lacks refused in one line naming the file."""

from __future__ import annotations

import dataclasses

import pyarrow as pa
import pytest

from trecbench import evaluate
from trecbench.errors import InputError
from trecbench.inputs import formats
from trecbench.inputs.streams import sniff


def test_parquet_is_told_by_content_and_text_takes_the_rest(tmp_path):
    import pyarrow.parquet as pq

    parquet = tmp_path / "run.txt"  # the name does not make it text
    pq.write_table(pa.table({"qid": ["q1"], "docno": ["d1"], "score": [1.0]}), parquet)
    text = tmp_path / "run.parquet"  # nor Parquet
    text.write_text("q1 Q0 d1 1 1.0 t\n")
    assert sniff(parquet) == (None, formats.PARQUET)
    assert sniff(text) == (None, formats.TREC_TEXT)


def test_a_missing_capability_is_refused_in_one_line(tmp_path, monkeypatch):
    """A format without a block reader: a large run of it under --memory is refused,
    naming the file, rather than read as TREC text."""
    import pyarrow.parquet as pq

    from trecbench import memory

    run = tmp_path / "run.parquet"
    pq.write_table(
        pa.table({"qid": ["q1"] * 9, "docno": list("abcdefghi"), "score": [1.0] * 9}), run
    )
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\n")
    whole = dataclasses.replace(
        formats.PARQUET, capabilities=formats.PARQUET.capabilities - {"read_blocks"}
    )
    monkeypatch.setattr(formats, "FORMATS", (whole, formats.TREC_TEXT))
    assert evaluate(str(qrels), str(run), ["P.5"]).per_query is not None  # read whole
    monkeypatch.setattr(memory, "BLOCK_LINES", 3)
    monkeypatch.setattr(memory, "FEWEST_BLOCK_LINES", 3)
    with pytest.raises(InputError) as raised:
        evaluate(str(qrels), str(run), ["P.5"], memory=1)
    assert str(raised.value) == f"{run}: Parquet runs cannot be read in blocks (--memory)"


def test_a_kind_a_format_does_not_hold_is_refused():
    only_runs = dataclasses.replace(formats.TREC_TEXT, kinds=("run",))
    with pytest.raises(InputError, match=r"^q.txt: TREC text files hold run, not qrels$"):
        only_runs.reader("read_whole", "q.txt", "qrels")


@pytest.mark.parametrize(
    ("lines", "cited"),
    [
        (
            [0, 0, 0],
            "2: duplicate docs d1 for topic q1 (first on line 1)",
        ),  # was 9223372036854775807
        ([5, -3, 0], "2: duplicate docs d1 for topic q1 (first on line 1)"),  # was 5 ... line -3
        ([4, 4, 9], "2: duplicate docs d1 for topic q1 (first on line 1)"),  # one line, two rows
        ([7, 3, 9], "7: duplicate docs d1 for topic q1 (first on line 3)"),  # lines, sorted anew
    ],
)
def test_a_line_column_is_taken_only_when_it_holds_line_numbers(tmp_path, lines, cited):
    import pyarrow.parquet as pq

    path = tmp_path / "dup.parquet"
    columns = {"qid": ["q1"] * 3, "docno": ["d1", "d1", "d2"], "score": [1.0, 0.5, 0.2]}
    pq.write_table(pa.table(columns | {"line": lines}), path)
    qrels = tmp_path / "q"
    qrels.write_text("q1 0 d1 1\n")
    with pytest.raises(InputError) as raised:
        evaluate(str(qrels), str(path), ["P.5"])
    assert str(raised.value) == f"{path}:{cited}"
