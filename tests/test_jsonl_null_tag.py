"""A JSONL run line with ``"tag": null`` is refused at its line by ``validate`` and
``score``, as a null qid or docno is: it was read as the default tag ``run``, as if the
key were absent (which it still means)."""

from __future__ import annotations

import pytest

from trecbench.cli import run

GOOD = '{"qid": "q1", "docno": "d1", "score": 2}'
MESSAGE = "tag must be a JSON string, not null (ids are never inferred)"


# the key as JSON may spell it: Arrow's reader gives each a null tag, as for no key
@pytest.mark.parametrize("key", ['"tag"', '"t\\u0061g"', '"\\u0074\\u0061\\u0067"'])
@pytest.mark.parametrize("spaces", [": ", " :\t"])
def test_validate_and_score_refuse_a_null_tag_at_its_line(key, spaces, tmp_path, capsys):
    path = tmp_path / "run.jsonl"
    null_tag = '{"qid": "q1", "docno": "d2", "score": 1, ' + key + spaces + "null}"
    path.write_text("\n".join([GOOD, null_tag, GOOD.replace("d1", "d3")]) + "\n")
    assert run(["validate", str(path)]) == 2
    shown = capsys.readouterr()
    assert shown.err == ""
    said = f"{path}:2:line: error[R32]: {MESSAGE}; the lines after it are not read\n"
    assert said in shown.out
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    assert run(["score", str(qrels), str(path)]) == 2
    assert capsys.readouterr().err == f"trecbench: {path}:2: {MESSAGE}\n"


def test_a_line_without_a_tag_still_has_the_default_one(tmp_path, capsys):
    path = tmp_path / "run.jsonl"
    path.write_text(GOOD + "\n")
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    assert run(["validate", str(path)]) == 0
    capsys.readouterr()
    assert run(["score", "-m", "runid", str(qrels), str(path)]) == 0
    assert capsys.readouterr().out == "runid                 \tall\trun\n"
