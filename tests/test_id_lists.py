"""Ids listed in a message (``a, b, c, ...``: score's flagged topics, compare's header,
power's and diff's lines) are escaped so that the list's separator never occurs inside
one: an id read from Parquet, JSONL or a dict may hold ``", "``, and ``a, b`` then read as
one id or two. Each item unquotes to its id (:func:`urllib.parse.unquote`); an id without
a comma, a blank at its ends or a ``%`` prints as it is."""

from __future__ import annotations

import json
from urllib.parse import unquote

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trecbench.cli import run
from trecbench.escaping import escaper, id_list

# the qrels topics without a relevant document, in the byte-wise order they are listed
SCORELESS = ["...", "50%", "a, b", "c", "e,f", "x "]
LISTED = "%2E.., 50%25, a%2C b, c, e%2Cf, ..."


def _items(listed: str) -> list[str]:
    """A list of ids as printed, read back: split at its separator, each unquoted."""
    return [unquote(item) for item in listed.split(", ")]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """Parquet qrels judging topic ``t, u`` relevant and the SCORELESS topics not; run r
    (JSONL) retrieves a document of each and of ``q r``, which the qrels lack; run s
    lacks ``a, b``."""
    monkeypatch.chdir(tmp_path)
    topics = ["t, u", *SCORELESS]
    grades = [1] + [0] * len(SCORELESS)
    qrels = pd.DataFrame({"qid": topics, "docno": "d", "relevance": grades})
    qrels.to_parquet("q.parquet")
    for name, held in (("r", [*topics, "q r"]), ("s", [q for q in topics if q != "a, b"])):
        lines = [json.dumps({"qid": qid, "docno": "d", "score": 1.0}) for qid in held]
        (tmp_path / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


def _warned(capsys) -> list[str]:
    prefix = "trecbench: warning: "
    err = capsys.readouterr().err.splitlines()
    return [line.removeprefix(prefix) for line in err if line.startswith(prefix)]


def test_score_lists_an_id_holding_a_comma_as_one_item(folder, capsys):
    # "... counted): ..., a, b, c, e,f, x " read as the ids "a", "b", "e" and "f" too
    assert run(["score", "-m", "P.1", "q.parquet", "r.jsonl"]) == 0
    said = _warned(capsys)
    assert said == [
        f"6 qrels topics have no relevant document (0 on binary measures where counted): {LISTED}",
        "r: 1 run topic is not in the qrels (ignored, also with -c): q r",
    ]
    assert _items(LISTED)[:-1] == SCORELESS[:5]  # the last item: the list's own "..."


def test_the_api_s_warning_and_each_output_list_the_ids_alike(folder):
    import trecbench
    from trecbench.evaluation.flag_warnings import flag_warnings

    evaluation = trecbench.evaluate("q.parquet", "r.jsonl", ["P.1"])
    (scoreless, _) = flag_warnings(evaluation.flagged)
    assert str(scoreless).endswith(f": {LISTED}")
    # each output escapes an id as it escapes any input text, then as an item of the list
    for output in ("markdown", "html", "table", "latex"):
        assert scoreless.text(escaper(output)).endswith(f": {LISTED}")


def test_compare_s_header_lists_the_topics_a_run_lacks_and_those_without_relevance(folder, capsys):
    # the lines were "s: no results for 1 topic(s): a, b": two topics to read
    args = ["compare", "-m", "P.1", "--samples", "40", "q.parquet", "r.jsonl", "s.jsonl"]
    assert run([*args, "--names", "r=r.jsonl", "--names", "s=s.jsonl"]) == 0
    out = capsys.readouterr().out
    assert "s: no results for 1 topic: a%2C b\n" in out
    assert "and the topics count: %2E.., 50%25, a%2C b, c, e%2Cf, ...\n" in out.replace("\n  ", " ")
    assert run([*args, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "- s: no results for 1 topic: a%2C b\n" in out


def test_power_lists_them_in_its_warnings(folder, capsys):
    assert run(["power", "-m", "P.1", "--quiet", "q.parquet", "r.jsonl", "s.jsonl"]) == 0
    said = _warned(capsys)
    assert "s: no results for 1 of the 7 topics of q.parquet (a%2C b): each counts 0 " in said[1]
    assert said[2] == (
        "q.parquet: 6 topics without a relevant document (grade >= 1): the measures of "
        f"relevant documents are 0 there for every run, and the topics count: {LISTED}"
    )


def test_diff_lists_the_topics_one_report_lacks_and_the_movers(folder, capsys):
    # "only in a: a, b" and "moved most: t, u -1.0000" read as two topics
    (folder / "r2.jsonl").write_text(
        (folder / "s.jsonl").read_text() + '{"qid": "t, u", "docno": "e", "score": 2.0}\n'
    )
    for name, path in (("ra", "r.jsonl"), ("rb", "r2.jsonl")):
        args = ["score", "-m", "P.1", "--names", f"r={path}", "q.parquet", path]
        assert run([*args, "--report", f"{name}.json", "--format", "json"]) == 0
    capsys.readouterr()
    assert run(["diff", "--quiet", "ra.json", "rb.json"]) == 1  # they differ
    lines = capsys.readouterr().out.splitlines()
    assert "topics: r only in a: a%2C b" in lines
    assert "value: r P@1 0.1429 -> 0.0000 (moved most: t%2C u -1.0000)" in lines


@settings(derandomize=True, database=None, deadline=None, max_examples=200)
@given(st.lists(st.text(st.sampled_from(" ,.%ab\n"), max_size=6), min_size=1, max_size=6))
def test_any_list_of_ids_reads_back(ids):
    for shown in (str, escaper("table"), escaper("markdown")):
        listed = id_list(ids, shown, limit=len(ids))
        items = listed.split(", ")
        assert [unquote(item) for item in items] == ids
        assert all(item == item.strip(" ") and item != "..." for item in items)


def test_an_id_without_such_characters_prints_as_it_is():
    assert id_list(["1", "HP:0001250", "q-7_x.y", "a b"]) == "1, HP:0001250, q-7_x.y, a b"
    assert id_list([str(n) for n in range(7)]) == "0, 1, 2, 3, 4, ..."
