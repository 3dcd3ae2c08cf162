"""A measure answers to the name it was asked by, and results come in the shapes the
ecosystem's tools give (issue 27): pytrec_eval's dicts, ir_measures' names."""

from __future__ import annotations

import re
from functools import partial

import pyarrow as pa
import pytest
from conftest import ROOT, printed_under_hash_seeds

import trecbench
from trecbench.cli import run as cli_run
from trecbench.errors import DuplicateError

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUN = str(ROOT / "runs" / "tfidf-char.run")


def _trec(path, column):
    table = {}
    for line in open(path):
        fields = line.split()
        table.setdefault(fields[0], {})[fields[2]] = fields[column]
    return table


def test_frames_are_keyed_by_the_spelling_asked():
    evaluation = trecbench.evaluate(QRELS, RUN, ["nDCG@10", "R@100", "RR@10", "ndcg_cut.5"])
    frame = evaluation.to_frame()
    assert list(frame.columns) == ["nDCG@10", "R@100", "RR@10", "ndcg_cut.5"]
    assert frame["RR@10"].iloc[0] == pytest.approx(0.4015, abs=5e-5)
    display = evaluation.to_frame(labels="display")
    assert list(display.columns) == ["nDCG@10", "Recall@100", "MRR@10", "nDCG@5"]
    assert list(evaluation.to_frame(labels="trec").columns)[0] == "ndcg_cut_10"
    # a measure of several values names each value: by trec_eval's label when spelled as
    # trec_eval spells it (pytrec_eval's keys: {"P"} gives P_5, ...), else its display name
    several = trecbench.evaluate(QRELS, RUN, ["recall.10,20", "nDCG@5"]).to_frame()
    assert list(several.columns) == ["recall_10", "recall_20", "nDCG@5"]
    import pytrec_eval

    qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in _trec(QRELS, 3).items()}
    run = {q: {d: float(s) for d, s in docs.items()} for q, docs in _trec(RUN, 4).items()}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"P", "ndcg_cut"}).evaluate(run)
    mine = trecbench.evaluate(qrels, run, ["P", "ndcg_cut"]).to_dict()
    assert {q: set(values) for q, values in mine.items()} == {
        q: set(values) for q, values in theirs.items()
    }


def test_to_dict_is_pytrec_evals_shape_with_its_numbers():
    import pytrec_eval

    qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in _trec(QRELS, 3).items()}
    run = {q: {d: float(s) for d, s in docs.items()} for q, docs in _trec(RUN, 4).items()}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "P_5", "map"}).evaluate(run)
    mine = trecbench.evaluate(qrels, run, ["ndcg_cut.10", "P.5", "map"]).to_dict()
    assert set(mine) == set(expected)
    for qid, values in expected.items():
        assert mine[qid]["ndcg_cut.10"] == pytest.approx(values["ndcg_cut_10"], abs=1e-12)
        assert mine[qid]["P.5"] == pytest.approx(values["P_5"], abs=1e-12)
        assert mine[qid]["map"] == pytest.approx(values["map"], abs=1e-12)
    several = trecbench.evaluate(qrels, {"a": run, "b": run}, ["P.5"]).to_dict()
    assert set(several) == {"a", "b"} and several["a"] == several["b"]


def test_ir_measures_names_give_ir_measures_numbers():
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import RR, R, nDCG

    qrels = list(ir_measures.read_trec_qrels(QRELS))
    run = list(ir_measures.read_trec_run(RUN))
    measures = [nDCG @ 10, R @ 100, RR @ 10]
    expected = ir_measures.calc_aggregate(measures, qrels, run)
    frame = trecbench.evaluate(qrels, run, [str(m) for m in measures]).to_frame()
    for measure in measures:
        assert frame[str(measure)].iloc[0] == pytest.approx(expected[measure], abs=1e-9)


def test_score_labels_asked(capsys):
    assert (
        cli_run(
            [
                "score",
                "--format",
                "table",
                "--labels",
                "asked",
                "-m",
                "ndcg_cut.10",
                "-m",
                "RR@10",
                QRELS,
                RUN,
            ]
        )
        == 0
    )
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header[-2:] == ["ndcg_cut.10", "RR@10"]


def _pytrec_eval(measures):
    import pytrec_eval

    qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in _trec(QRELS, 3).items()}
    run = {q: {d: float(s) for d, s in docs.items()} for q, docs in _trec(RUN, 4).items()}
    return pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)


def test_two_spellings_are_computed_once_and_shown_under_both():
    expected = _pytrec_eval({"ndcg_cut_10", "P_5"})
    evaluation = trecbench.evaluate(QRELS, RUN, ["ndcg_cut.10", "P.5", "nDCG@10", "NDCG@10"])
    assert [column.label for column in evaluation.columns] == ["P_5", "ndcg_cut_10"]  # once
    assert list(evaluation.to_frame().columns) == ["P.5", "ndcg_cut.10", "nDCG@10", "NDCG@10"]
    assert list(evaluation.to_frame(labels="display").columns) == ["P@5", "nDCG@10"]
    shaped = evaluation.to_dict()
    for qid, values in expected.items():
        for name in ("ndcg_cut.10", "nDCG@10", "NDCG@10"):
            assert shaped[qid][name] == pytest.approx(values["ndcg_cut_10"], abs=1e-12)
        assert shaped[qid]["P.5"] == pytest.approx(values["P_5"], abs=1e-12)
    per_topic = evaluation.to_frame(per_query=True)
    assert (per_topic["nDCG@10"] == per_topic["ndcg_cut.10"]).all()


def test_a_value_of_a_measure_of_several_answers_to_its_own_name_too():
    # P_5 beside P.5,10 (folded by trec_eval's first-parameters rule), R@10 beside
    # recall.10,20 and num_q beside NumQ were computed and shown under one name only
    expected = _pytrec_eval({"P_5", "P_10", "recall_10", "recall_20"})
    evaluation = trecbench.evaluate(QRELS, RUN, ["P.5,10", "P_5", "R@10", "recall.10,20"])
    shaped = evaluation.to_dict()
    for qid, values in expected.items():
        for name, label in (("P_5", "P_5"), ("P_10", "P_10"), ("R@10", "recall_10"),
                            ("recall_10", "recall_10"), ("recall_20", "recall_20")):  # fmt: skip
            assert shaped[qid][name] == pytest.approx(values[label], abs=1e-12), name
    assert [column.label for column in evaluation.columns] == [
        "P_5", "P_10", "recall_10", "recall_20",
    ]  # fmt: skip
    # a third spelling of it too: P@5 vanished beside P.5,10 and P_5 (helper 106)
    for names, shown in (
        (["P.5,10", "P_5", "P.5", "P@5"], ["P_5", "P.5", "P@5", "P_10"]),
        (["ndcg_cut.5,10", "ndcg_cut_5", "nDCG@5"], ["ndcg_cut_5", "nDCG@5", "ndcg_cut_10"]),
    ):
        assert list(trecbench.evaluate(QRELS, RUN, names).to_frame().columns) == shown
    counts = trecbench.evaluate(QRELS, RUN, ["NumQ", "num_q"]).to_frame()
    assert list(counts.columns) == ["NumQ", "num_q"] and counts.iloc[0, 0] == counts.iloc[0, 1]


def test_measures_may_be_a_generator():
    # read by two readers, a generator was empty for the second: "no measure asked"
    names = ("P_5", "map")
    listed = trecbench.evaluate(QRELS, RUN, list(names)).to_dict()
    assert trecbench.evaluate(QRELS, RUN, (name for name in names)).to_dict() == listed
    assert trecbench.evaluate(QRELS, RUN, iter(names)).to_dict() == listed


def test_long_tables_pair_the_measure_as_asked_with_its_canonical_name():
    expected = _pytrec_eval({"ndcg_cut_10", "recall_10", "recall_20"})
    evaluation = trecbench.evaluate(QRELS, RUN, ["ndcg_cut.10", "nDCG@10", "recall.10,20"])
    long = evaluation.to_long()
    assert list(long.columns) == ["run", "measure", "canonical", "value"]
    assert list(zip(long["measure"], long["canonical"], strict=True)) == [
        ("recall_10", "Recall@10"),  # one spelling of two values: each by its own label
        ("recall_20", "Recall@20"),
        ("ndcg_cut.10", "nDCG@10"),
        ("nDCG@10", "nDCG@10"),
    ]
    mean = sum(v["ndcg_cut_10"] for v in expected.values()) / len(expected)
    assert list(long["value"].iloc[2:]) == pytest.approx([mean, mean], abs=1e-12)
    per_topic = evaluation.to_long(per_query=True, labels="trec")
    assert list(per_topic.columns) == ["run", "qid", "measure", "canonical", "value"]
    assert len(per_topic) == 3 * len(expected)  # trec_eval's labels: each value once
    rows = per_topic[per_topic["measure"] == "recall_20"].set_index("qid")["value"]
    assert rows.to_dict() == pytest.approx({q: v["recall_20"] for q, v in expected.items()})
    assert set(per_topic["canonical"]) == {"Recall@10", "Recall@20", "nDCG@10"}


def test_score_labels_are_as_asked_by_default_and_trec_text_prints_once(capsys):
    args = ["score", "-m", "ndcg_cut.10", "-m", "P.5", "-m", "nDCG@10", QRELS, RUN]
    assert cli_run([*args, "--format", "table"]) == 0
    assert capsys.readouterr().out.splitlines()[0].split()[2:4] == ["P.5", "ndcg_cut.10"]
    assert cli_run(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["P_5", "ndcg_cut_10"]


def test_a_column_names_itself_under_each_labels_and_refuses_others():
    """Column.name (asked once per printed line): trec_eval's label, the display name, the
    spelling asked (the display name when none was); any other ``labels`` is refused. Its
    summary, kept once asked, is its measure's."""
    from trecbench.errors import UsageError
    from trecbench.evaluation import Column
    from trecbench.measures import parse_measure

    measure = parse_measure("recip_rank")
    asked = Column("recip_rank_cut_10", "MRR@10", measure, "fast", "MRR@10")
    plain = Column("P_5", "P@5", parse_measure("P.5"), "fast")
    assert [asked.name(labels) for labels in ("trec", "display", "asked")] == [
        "recip_rank_cut_10", "MRR@10", "MRR@10"
    ]  # fmt: skip
    assert plain.name() == "P@5" and plain.name("trec") == "P_5"
    with pytest.raises(UsageError, match="labels must be one of"):
        plain.name("bogus")
    assert asked.summary == measure.summary and asked.per_query
    assert asked == Column("recip_rank_cut_10", "MRR@10", measure, "fast", "MRR@10")


def test_a_pyterrier_results_frame_with_docid_beside_docno_is_read(tmp_path):
    # Terrier's Retriever returns qid, docid (its internal number), docno, rank, score,
    # query: docno names the document. map = (1/1 + 2/3) / 2 by hand
    import pandas as pd

    results = pd.DataFrame(
        {
            "qid": ["1"] * 3,
            "docid": [10, 11, 12],
            "docno": ["d1", "d2", "d3"],
            "rank": [0, 1, 2],
            "score": [3.0, 2.0, 1.0],
            "query": ["q"] * 3,
        }
    )
    qrels = pd.DataFrame({"qid": ["1", "1"], "docno": ["d1", "d3"], "label": [1, 1]})
    values = trecbench.evaluate(qrels, results, ["map"]).to_dict()
    assert values["1"]["map"] == pytest.approx((1 + 2 / 3) / 2)
    results.to_parquet(tmp_path / "results.parquet")
    qrels.to_parquet(tmp_path / "qrels.parquet")
    assert cli_run(["score", "-m", "map", str(tmp_path / "qrels.parquet"),
                    str(tmp_path / "results.parquet")]) == 0  # fmt: skip
    # renamed to ir_measures' names, as PyTerrier hands it to ir_measures: docid was
    # refused beside doc_id ("columns ['doc_id', 'docid'] all name the document id")
    renamed = results.rename(columns={"qid": "query_id", "docno": "doc_id"})
    assert trecbench.evaluate(qrels, renamed, ["map"]).to_dict() == values
    # two other names of the document id are still ambiguous
    with pytest.raises(trecbench.UsageError, match="all name the document id"):
        trecbench.evaluate(qrels, results.rename(columns={"docid": "doc_id"}), ["map"])


def test_a_pyterrier_frame_without_docno_is_not_scored_on_terrier_docids(tmp_path):
    # Terrier's internal number 0 matched the qrels' docno "0" (MS MARCO's numeric
    # docnos): P@1 1.0, no warning. Refused; Pyserini's docid (text) is read.
    import pandas as pd

    results = pd.DataFrame({"qid": ["1", "1"], "docid": [0, 1], "rank": [0, 1],
                            "score": [9.0, 8.0], "query": ["q", "q"]})  # fmt: skip
    qrels = pd.DataFrame({"qid": ["1", "1"], "docno": ["0", "7187158"], "label": [1, 1]})
    with pytest.raises(trecbench.InputError, match="'docid' holds integers: a PyTerrier"):
        trecbench.evaluate(qrels, results, ["P@1"])
    results.to_parquet(tmp_path / "results.parquet")
    qrels.to_parquet(tmp_path / "qrels.parquet")
    assert cli_run(["score", "-m", "P@1", str(tmp_path / "qrels.parquet"),
                    str(tmp_path / "results.parquet")]) == 2  # fmt: skip
    pyserini = results.assign(docid=["7187158", "0"])
    assert trecbench.evaluate(qrels, pyserini, ["P@1"]).to_dict() == {"1": {"P@1": 1.0}}


def test_integer_ids_beside_ids_they_lost_zeros_of_are_refused(tmp_path):
    # pandas read docno 0123 as 123: scored as is, map 0.25 where trec_eval gives 1.0 on
    # the file as written (the judged documents no longer match). Refused, naming an id.
    import pandas as pd

    run = tmp_path / "r.run"
    run.write_text("1 Q0 0123 1 3.0 r\n1 Q0 456 2 2.0 r\n1 Q0 789 3 1.0 r\n")
    csv = tmp_path / "q.csv"
    csv.write_text("qid,iter,docno,rel\n1,0,0123,1\n1,0,456,1\n1,0,789,0\n")
    lost = pd.read_csv(csv)
    assert str(lost["docno"].dtype) == "int64"
    for qrels in (lost, {1: {123: 1, 456: 1, 789: 0}}):
        with pytest.raises(trecbench.InputError, match="such as '0123' that no integer prints"):
            trecbench.evaluate(qrels, str(run), ["map"])
    lost.to_parquet(tmp_path / "q.parquet")
    assert cli_run(["score", "-m", "map", str(tmp_path / "q.parquet"), str(run)]) == 2
    # read as text, or integers on both sides, or ids no integer lost: scored
    kept = pd.read_csv(csv, dtype=str)
    assert trecbench.evaluate(kept, str(run), ["map"]).to_dict()["1"]["map"] == 1.0
    numbers = pd.DataFrame({"qid": [1, 1], "docno": [123, 456], "score": [2.0, 1.0]})
    assert trecbench.evaluate(lost, numbers, ["map"]).to_dict()["1"]["map"] == pytest.approx(
        (1 + 2 / 2) / 2
    )
    plain = pd.DataFrame({"qid": ["1"], "docno": ["123"], "score": [1.0]})
    assert trecbench.evaluate(lost, plain, ["P.1"]).to_dict()["1"]["P.1"] == 1.0
    # pool and fuse --optimize judge runs against qrels too: the same refusal
    text_qrels = tmp_path / "q.qrels"
    text_qrels.write_text("01 0 d1 1\n01 0 d2 0\n02 0 d1 1\n")
    numbered = pd.DataFrame({"qid": [1, 1, 2], "docno": ["d1", "d2", "d1"], "score": [2.0, 1, 1]})
    numbered.to_parquet(tmp_path / "a.parquet")
    numbered.assign(score=[1.0, 2, 1]).to_parquet(tmp_path / "b.parquet")
    runs = [str(tmp_path / f"{name}.parquet") for name in ("a", "b")]
    pool = ["pool", *runs, "--qrels", str(text_qrels), "-o", str(tmp_path / "pool.txt")]
    fuse = ["fuse", "--optimize", "P@1", "--qrels", str(text_qrels), *runs]
    text_run = tmp_path / "t.run"  # runs against each other: topic 1 beside 01
    text_run.write_text("01 Q0 d1 1 1 t\n02 Q0 d1 1 1 t\n")
    together = [runs[0], str(text_run)]
    for command in (
        pool,
        [*fuse, "-o", str(tmp_path / "f.run")],
        ["fuse", *together, "-o", str(tmp_path / "f.run")],
        ["similarity", *together],
        ["pool", *together, "-o", str(tmp_path / "pool.txt")],
    ):
        assert cli_run(command) == 2, command
    assert not (tmp_path / "pool.txt").exists() and not (tmp_path / "f.run").exists()
    # the refusal names the run holding the id (it said "another of the runs")
    with pytest.raises(trecbench.InputError, match=r"a\.parquet: .* while .*t\.run has query"):
        trecbench.pool([runs[0], str(text_run)], depth=5)
    # runs held in memory are named as their loading names them (fuse said "run 1")
    frames = [numbered, pd.DataFrame({"qid": ["01"], "docno": ["d1"], "score": [1.0]})]
    for refuse in (trecbench.fuse, trecbench.similarity, partial(trecbench.pool, depth=5)):
        with pytest.raises(trecbench.InputError, match=r"^run1: its query ids .* while run2 "):
            refuse(frames)
    # integer runs pooled with each other, or beside ids any integer prints as: pooled
    pooled = trecbench.pool([runs[0], runs[1], {"1": {"d3": 1.0}}], depth=5)
    assert (pooled.qid, pooled.docno) == (["1", "1", "1", "2"], ["d1", "d2", "d3", "d1"])


def test_an_error_in_a_run_held_in_memory_names_the_run():
    # several frames are each a "run DataFrame": which one held the NaN was not said
    import pandas as pd

    good = pd.DataFrame({"qid": ["q"] * 3, "docno": ["a", "b", "c"], "score": [1.0, 2.0, 3.0]})
    bad = good.assign(score=[1.0, float("nan"), 3.0])
    for runs, name in (({"mine": bad}, "mine"), ([good, bad], "run2")):
        with pytest.raises(trecbench.InputError, match=rf"^run '{name}' \(run DataFrame\): row 1"):
            trecbench.evaluate({"q": {"a": 1}}, runs, ["map"])


def test_a_duplicate_in_qrels_is_the_qrels_whatever_holds_the_run(tmp_path):
    # a run held in memory took the blame: "run 'run1' (run dict):2: duplicate docs a"
    # for the qrels' a (trec_eval: form_res_rels, the qrels'); qrels held in memory are
    # cited by their rows, as a run is
    import pandas as pd

    (tmp_path / "q").write_text("7 0 a 1\n7 0 a 0\n")
    frame = pd.DataFrame({"qid": ["7", "7"], "docno": ["a", "a"], "rel": [1, 0]}, index=[10, 20])
    run_dict = {"7": {"a": 1.0, "b": 2.0}}
    run_frame = pd.DataFrame({"qid": ["7", "7"], "docno": ["a", "b"], "score": [1.0, 2.0]})
    cited = {
        str(tmp_path / "q"): rf"^{re.escape(str(tmp_path / 'q'))}:2: duplicate docs a for topic 7 ",
        "frame": r"^qrels DataFrame: row 20: duplicate docs a for topic 7 \(first at row 10\)$",
    }
    for qrels, qrels_key in ((str(tmp_path / "q"), str(tmp_path / "q")), (frame, "frame")):
        for run in (run_dict, run_frame):
            with pytest.raises(DuplicateError, match=cited[qrels_key]):
                trecbench.evaluate(qrels, run, ["P_5"])


def test_rows_sharing_an_index_label_are_cited_by_position():
    # pd.concat keeps the labels: "row 0: duplicate docs a (first at row 0)" named one row
    # twice; records are cited as records
    import pandas as pd

    qrels = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "rel": [1, 0, 1]})
    run = pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]})
    cited = {
        r"^qrels DataFrame: row 3: duplicate docs a for topic 1 \(first at row 0\)$": (
            pd.concat([qrels, qrels.iloc[[0]]]), run),
        r"^run 'run1' \(run DataFrame\): row 1: duplicate docs a .*\(first at row 0\)$": (
            {"1": {"a": 1}}, pd.concat([run, run])),
        r"^qrels records: record 1: duplicate docs a for topic 1 \(first at record 0\)$": (
            [{"query_id": "1", "doc_id": "a", "relevance": 1}] * 2, run),
    }  # fmt: skip
    for message, (truth, ranking) in cited.items():
        with pytest.raises(DuplicateError, match=message):
            trecbench.evaluate(truth, ranking, ["map"])
    missing = pd.concat([run, run.assign(docno=["b"], score=[float("nan")])])
    with pytest.raises(trecbench.InputError, match=r"\(run DataFrame\): row 1: score is missing"):
        trecbench.evaluate({"1": {"a": 1}}, missing, ["map"])


def test_a_duplicate_in_a_run_held_in_memory_is_cited_by_its_rows():
    # a DataFrame has rows, not lines: a duplicate said "run1:3 ... (first on line 1)" and
    # pool, fuse and similarity said "run DataFrame:3" of whichever frame it was; its
    # other errors cite the frame's index labels (a numpy label printed as np.int64(20))
    import pandas as pd

    other = pd.DataFrame({"qid": ["q"] * 3, "docno": ["a", "b", "c"], "score": [1.0, 2, 3]})
    twice = other.assign(docno=["a", "b", "a"]).set_axis([10, 20, 30])
    cited = (
        r"^run 'run2' \(run DataFrame\): row 30: duplicate docs a for topic q \(first at row 10\)$"
    )
    for call in (
        lambda: trecbench.evaluate({"q": {"a": 1}}, [other, twice], ["map"]),
        lambda: trecbench.pool([other, twice], depth=5),
        lambda: trecbench.pool([other, twice], depth=1),
        lambda: trecbench.fuse([other, twice]),
        lambda: trecbench.similarity([other, twice]),
    ):
        with pytest.raises(DuplicateError, match=cited):
            call()
    with pytest.raises(DuplicateError, match=r"^run 'b' \(run table\): row 2: .*at row 0"):
        trecbench.evaluate({"q": {"a": 1}}, {"a": other, "b": pa.Table.from_pandas(twice)}, ["map"])
    from ir_measures import ScoredDoc  # a list of records: rows by position

    records = [ScoredDoc("q", "a", 1.0), ScoredDoc("q", "a", 3.0)]
    with pytest.raises(
        DuplicateError, match=r"\(run records\): record 1: .* \(first at record 0\)$"
    ):
        trecbench.evaluate({"q": {"a": 1}}, records, ["map"])
    missing = other.assign(score=[1.0, float("nan"), 2]).set_axis([10, 20, 30])
    with pytest.raises(trecbench.InputError, match=r"^run 'run1' \(run DataFrame\): row 20: "):
        trecbench.evaluate({"q": {"a": 1}}, missing, ["map"])
    for call in (lambda: trecbench.fuse([other, missing]), lambda: trecbench.pool([missing])):
        with pytest.raises(trecbench.InputError, match=r"^run 'run\d' \(run DataFrame\): row 20"):
            call()


def test_a_multiindex_row_is_cited_by_its_labels_as_python_values():
    # a MultiIndex's label is a tuple of numpy values: "row ('r', np.int64(3))"
    import pandas as pd

    run = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"],
                        "score": [2.0, 1.0, float("nan")]})  # fmt: skip
    run = run.set_index([pd.Index(["q", "q", "r"]), pd.Index([1, 2, 3])])
    with pytest.raises(trecbench.InputError, match=r"\): row \('r', 3\): score is missing$"):
        trecbench.evaluate({"1": {"a": 1}}, run, ["P@1"])
    twice = run.assign(docno=["a", "b", "a"], qid="1", score=[3.0, 2.0, 1.0])
    cited = r"row \('r', 3\): duplicate docs a for topic 1 \(first at row \('q', 1\)\)$"
    with pytest.raises(DuplicateError, match=cited):
        trecbench.rank_run(twice)


def test_a_measure_without_a_value_per_topic_is_warned_of_in_the_per_topic_views():
    # gm_map vanished from to_dict() and to_frame(per_query=True) without a word (pytrec_eval
    # gives its log per topic), and to_dict() of two runs was {} rather than a dict per run
    from trecbench.errors import PerTopicWarning

    measures = ["runid", "gm_map", "P_5"]  # runid is named in a warning of its own
    evaluation = trecbench.evaluate(QRELS, [RUN, RUN], measures, names=["a", "b"])
    said = r"^gm_map: no value per topic \(a summary over topics, .*\): not in to_dict\(\)"
    with pytest.warns(PerTopicWarning) as caught:
        shaped = evaluation.to_dict()
    assert re.match(said, str(caught[0].message)) and "runid" in str(caught[1].message)
    assert list(shaped) == ["a", "b"] and all("gm_map" not in v for v in shaped["a"].values())
    with pytest.warns(PerTopicWarning, match=r"not in to_frame\(per_query=True\)"):
        assert "gm_map" not in evaluation.to_frame(per_query=True).columns
    alone = trecbench.evaluate(QRELS, [RUN, RUN], ["gm_map"], names=["a", "b"])
    with pytest.warns(PerTopicWarning):
        assert alone.to_dict() == {"a": {}, "b": {}}


def test_a_measure_left_out_of_a_view_is_named_as_asked():
    """relstring.3 asked was named relstring_3 (its label) in the warning of every view,
    which said to_dict() had it: to_dict() keys it relstring.3, as asked."""
    from trecbench.errors import PerTopicWarning

    evaluation = trecbench.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["relstring.3", "map"])
    assert evaluation.to_dict() == {"q": {"relstring.3": "1", "map": 1.0}}
    for view in ("to_frame", "to_long", "per_query", "aggregates"):
        with pytest.warns(PerTopicWarning) as caught:
            getattr(evaluation, view)() if view.startswith("to_") else getattr(evaluation, view)
        assert str(caught[0].message).startswith("relstring.3: text per topic"), view
    with pytest.warns(PerTopicWarning, match=r"^relstring_3: text"):
        evaluation.to_frame(labels="trec")


def test_runid_and_relstring_asked_are_in_a_view_or_named_saying_where_they_are():
    # reviewer 436: runid and relstring asked beside map vanished from to_frame() (map only)
    # and runid from to_dict() without a word; each view holds numbers, and names what it
    # leaves out: runid is the run's tag (runs[i].runid), relstring text (in to_dict())
    import warnings

    from trecbench.errors import PerTopicWarning

    evaluation = trecbench.evaluate(
        {"q": {"d": 1}}, {"q": {"d": 1.0}}, ["runid", "relstring", "map"]
    )
    runid = (
        "runid: the run's tag (text, not a number): not in {}; each run's runid has it "
        "(result.runs[0].runid)"
    )
    relstring = "relstring: text per topic, not a number: not in {}; to_dict() has it"
    views = {
        "to_frame()": (evaluation.to_frame, [runid, relstring]),
        "to_frame(per_query=True)": (
            lambda: evaluation.to_frame(per_query=True),
            [runid, relstring],
        ),
        "to_long()": (evaluation.to_long, [runid, relstring]),
        "to_dict()": (evaluation.to_dict, [runid]),
    }
    for view, (call, expected) in views.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            shown = call()
        assert [str(w.message) for w in caught] == [text.format(view) for text in expected]
        assert {w.category for w in caught} == {PerTopicWarning}
        assert "runid" not in str(shown)  # left out, as said
    assert evaluation.runs[0].runid == "run"  # the tag a dict run is written with
    with pytest.warns(PerTopicWarning):
        assert evaluation.to_dict() == {"q": {"map": 1.0, "relstring": "1"}}
        assert list(evaluation.to_frame().columns) == ["map"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluation._repr_html_()  # a notebook's display warns of nothing


def test_measures_of_another_type_are_refused_naming_them():
    # parse_measure(5) and (None) raised AttributeError ('strip'), evaluate(..., 5)
    # TypeError ('int' object is not iterable); parse_measure took no ir_measures object,
    # which evaluate takes
    import ir_measures

    from trecbench.errors import UsageError

    assert trecbench.parse_measure(ir_measures.nDCG @ 10) == trecbench.parse_measure("nDCG@10")
    for bad in (5, None):
        with pytest.raises(UsageError, match=rf"measure {bad} \(\w+\): give a name \(str\)"):
            trecbench.parse_measure(bad)
    with pytest.raises(UsageError, match=r"measure 5 \(int\): give names \(str\)"):
        trecbench.evaluate(QRELS, RUN, 5)
    with pytest.raises(UsageError, match=r"measure 5 \(int\)"):
        trecbench.parse_measures(5)
    with pytest.raises(UsageError, match=r"measure b'P_5' \(bytes\)"):  # was "measure 80"
        trecbench.evaluate(QRELS, RUN, b"P_5")


TINY_QRELS = "q1 0 d1 2\nq1 0 d2 1\nq2 0 d3 1\n"
TINY_RUN = "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq2 Q0 d3 1 1.0 r\n"


@pytest.mark.parametrize(
    "name",
    [
        "SDCG(dcg='log2',max_rel=3)@10",  # was: SDCG has no parameter 'dcg'
        "Success(judged_only=True)@1",  # was: Success@k (HitRate) has no parameter ...
        "SetP(relative=False)",  # was: SetP (set_P) has no parameter 'relative'
        "SetRelP(relative=True)",  # was: SetRelP (set_relative_P) has no parameter ...
        "SetRelP(relative=False)",  # was: relative must be one of True (ir_measures: SetP)
        "RR(judged_only=False)@5",  # was: RR@k (MRR) has no parameter 'judged_only'
    ],
)
def test_ir_measures_parameters_score_what_ir_measures_scores(tmp_path, capsys, name):
    ir_measures = pytest.importorskip("ir_measures")
    if name.startswith("SDCG"):
        pytest.importorskip("cwl")
    (tmp_path / "q.qrels").write_text(TINY_QRELS)
    (tmp_path / "r.run").write_text(TINY_RUN)
    measure = ir_measures.parse_measure(name)
    qrels = ir_measures.read_trec_qrels(str(tmp_path / "q.qrels"))
    run = ir_measures.read_trec_run(str(tmp_path / "r.run"))
    (want,) = ir_measures.calc_aggregate([measure], qrels, run).values()
    assert cli_run(["score", "-m", name, str(tmp_path / "q.qrels"), str(tmp_path / "r.run")]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.split()[1:] == ["all", f"{want:.4f}"]


def test_a_parameter_at_ir_measures_default_reads_alike_as_text_and_as_object():
    """The parameters of ir_measures' a family leaves out at their ir_measures default
    (its registry entry's ir_measures_unset) are ir_measures' own, with that default;
    given so, the string and the object mean one measure (the string was refused), given
    another value both are refused."""
    ir_measures = pytest.importorskip("ir_measures")
    from trecbench.errors import UsageError
    from trecbench.measures import registry

    unset = [d for d in registry.definitions() if d.ir_measures_unset]
    assert {d.name for d in unset} >= {"ERR_IA", "alpha_nDCG", "P_IA", "AP_IA"}  # MRR has it
    for definition in unset:
        name = definition.ir_measures or definition.name
        at = "@5" if definition.cutoff else ""
        for key, default in definition.ir_measures_unset:
            supported = ir_measures.parse_measure(name + at).SUPPORTED_PARAMS
            assert supported[key].default == default, (name, key)
            text = f"{name}({key}={default!r}){at}"
            measure = trecbench.parse_measure(text)
            assert measure == trecbench.parse_measure(ir_measures.parse_measure(text))
            assert (
                measure == trecbench.parse_measure(name + at) and measure.family == definition.name
            )
            with pytest.raises(UsageError, match=f"has no parameter '{key}'"):
                trecbench.parse_measure(f"{name}({key}={not default!r}){at}")


def test_sdcg_refuses_a_dcg_its_provider_lacks_naming_the_one_it_has():
    from trecbench.errors import UsageError

    # cwl_eval, SDCG's one provider, has log2 alone; ir_measures refuses the others too
    with pytest.raises(UsageError, match=r"dcg must be one of 'log2'$"):
        trecbench.parse_measure("SDCG(dcg='exp-log2',max_rel=3)@10")


def test_setp_relative_is_a_bool_naming_one_of_its_two_families():
    from trecbench.errors import UsageError

    assert trecbench.parse_measure("SetP(relative=False)").family == "set_P"
    assert trecbench.parse_measure("SetRelP(relative=True)").family == "set_relative_P"
    # relative=1 was read as relative=True (set_relative_P); ir_measures refuses an int
    with pytest.raises(UsageError, match="relative must be bool, got 1"):
        trecbench.parse_measure("SetP(relative=1)")
    # ir_measures' SetRelP is SetP(relative=True), so relative=False makes it SetP, as
    # ir_measures reads the text and as the ir_measures object was already read here; the
    # text was refused ("relative must be one of True")
    ir_measures = pytest.importorskip("ir_measures")
    assert repr(ir_measures.parse_measure("SetRelP(relative=False)")) == "SetP"
    assert trecbench.parse_measure("SetRelP(relative=False)").family == "set_P"
    assert trecbench.parse_measure(ir_measures.SetRelP(relative=False)).family == "set_P"
    assert trecbench.parse_measure("SetRelP").family == "set_relative_P"
    with pytest.raises(UsageError, match="relative must be bool, got 1"):
        trecbench.parse_measure("SetRelP(relative=1)")
    # the family's own name has no such reading: relative=False would mean its opposite
    with pytest.raises(UsageError, match="relative must be one of True"):
        trecbench.parse_measure("set_relative_P(relative=False)")


@pytest.mark.parametrize(
    ("measures", "keys"),
    [
        ({"P.5", "P.10"}, {"P.5": "P_5", "P.10": "P_10"}),
        (["ndcg_cut.5", "ndcg_cut.10"], {"ndcg_cut.5": "ndcg_cut_5", "ndcg_cut.10": "ndcg_cut_10"}),
        (["P.5", "P_10"], {"P.5": "P_5", "P_10": "P_10"}),
        (["P@5", "P@10"], {"P@5": "P_5", "P@10": "P_10"}),
        ({"P.5,10", "P.20"}, {"P_5": "P_5", "P_10": "P_10", "P.20": "P_20"}),
        (["recall.5", "recall.10"], {"recall.5": "recall_5", "recall.10": "recall_10"}),
        ({"map_cut.10", "map_cut.5", "recip_rank"}, {  # trec_eval's printing order
            "recip_rank": "recip_rank", "map_cut.5": "map_cut_5", "map_cut.10": "map_cut_10"
        }),
    ],
)  # fmt: skip
def test_every_spelling_of_a_family_gets_its_value_as_from_pytrec_eval(measures, keys):
    """pytrec_eval.RelevanceEvaluator(qrels, {'P.5', 'P.10'}) gives both: one of them came
    back (which one by PYTHONHASHSEED), and ['ndcg_cut.5', 'ndcg_cut.10'] lost the second
    (trec_eval's -m rule, which is score's alone)."""
    expected = _pytrec_eval(set(keys.values()))
    evaluation = trecbench.evaluate(QRELS, RUN, measures)
    assert list(evaluation.to_frame().columns) == list(keys)  # a set in one order
    shaped = evaluation.to_dict()
    assert shaped.keys() == expected.keys()
    for qid, values in expected.items():
        assert shaped[qid].keys() == keys.keys()
        for name, label in keys.items():
            assert shaped[qid][name] == pytest.approx(values[label], abs=1e-12), name


def test_a_set_of_measures_is_read_in_one_order_whatever_the_hash_seed():
    probe = (
        "import trecbench\n"
        f"e = trecbench.evaluate({QRELS!r}, {RUN!r}, {{'P.5', 'P.10', 'ndcg_cut.10', 'map'}})\n"
        "print(list(e.to_frame().columns))"
    )
    # trec_eval's printing order, whatever the set's
    assert printed_under_hash_seeds(probe) == {"['map', 'P.5', 'P.10', 'ndcg_cut.10']\n"}


@pytest.mark.parametrize("small", [True, False])
def test_score_keeps_trec_eval_s_first_parameters_and_says_what_it_left_out(
    tmp_path, capsys, small
):
    """trecbench score -m P.5 -m P.10 prints P_5 alone, as trec_eval 9.0.8 does, byte for
    byte, but no longer silently: one warning line names what was left out and how to get
    both (the small files' fast path too, which leaves the call to the general one)."""
    if small:
        qrels, run = tmp_path / "q", tmp_path / "r"
        qrels.write_text("1 0 a 1\n1 0 b 0\n")
        run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
        expected = "P_5                   \tall\t0.2000\n"
    else:
        qrels, run = QRELS, RUN
        alone = cli_run(["score", "-m", "P.5", str(qrels), str(run)])
        expected = capsys.readouterr().out
        assert alone == 0 and expected.startswith("P_5 ")
    assert cli_run(["score", "-m", "P.5", "-m", "P.10", str(qrels), str(run)]) == 0
    captured = capsys.readouterr()
    assert captured.out == expected
    assert captured.err == (
        "trecbench: warning: FirstParametersWarning: -m P.10 not computed: trec_eval "
        "computes P with the first parameters given only (P.5); for both, -m P.5,10 given "
        "first or -m P@10\n"
    )


GRADED_QRELS = "1 0 a 1\n1 0 b 2\n1 0 c 0\n"
GRADED_RUN = "1 Q0 a 1 3 r\n1 Q0 c 2 2 r\n1 Q0 b 3 1 r\n"


def _graded(tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    (tmp_path / "q").write_text(GRADED_QRELS)
    (tmp_path / "r").write_text(GRADED_RUN)
    qrels = list(ir_measures.read_trec_qrels(str(tmp_path / "q")))
    return ir_measures, qrels, list(ir_measures.read_trec_run(str(tmp_path / "r")))


def test_an_ir_measures_object_means_every_parameter_it_was_given(tmp_path):
    """P(rel=1)@2 prints P@2 (ir_measures leaves out a parameter equal to its default):
    read as what it printed, relevance_level=2 was applied (0.0, ir_measures 0.5), and
    beside P(rel=2)@2 two measures gave one number. A printed name that means another
    measure here gives way to the spelling with every parameter; no two measures share
    one name."""
    ir_measures, qrels, run = _graded(tmp_path)
    from ir_measures import RR, P

    objects = [P(rel=1) @ 2, P(rel=2) @ 2, RR(rel=1) @ 2, P @ 2]
    theirs = ir_measures.calc_aggregate(objects, qrels, run)
    assert [theirs[m] for m in objects] == [0.5, 0.0, 1.0, 0.5]
    ours = trecbench.evaluate(qrels, run, objects, relevance_level=2).to_frame()
    assert ours.iloc[0].to_dict() == {
        "P(rel=1)@2": 0.5, "P(rel=2)@2": 0.0, "RR(rel=1)@2": 1.0, "P@2": 0.0  # P@2: -l 2
    }  # fmt: skip
    spelt = trecbench.evaluate(qrels, run, ["P(rel=1)@2"], relevance_level=2).to_frame()
    assert spelt.iloc[0].to_dict() == {"P(rel=1)@2": 0.5}
    assert trecbench.parse_measure(P(rel=1) @ 2) == trecbench.parse_measure("P(rel=1)@2")
    # judged_only=False is spelt out, as rel=1 is: unset, it is the call's -J
    plain = trecbench.evaluate(qrels, run, [P(judged_only=False) @ 2]).to_frame()
    assert list(plain.columns) == ["P(judged_only=False)@2"]


@pytest.mark.filterwarnings("ignore::trecbench.errors.ProviderWarning")  # no subtopics
@pytest.mark.parametrize(
    "name", ["AP_IA", "P_IA@2", "ERR_IA@2", "nERR_IA@2", "alpha_nDCG@2", "alpha_DCG@2"]
)
def test_a_parameter_at_ir_measures_default_that_the_measure_lacks_changes_nothing(tmp_path, name):
    """RR(judged_only=False)@5 was refused ("RR@k (MRR) has no parameter 'judged_only'"),
    where ir_measures computes RR@5: at ir_measures' default, a parameter the measure
    lacks here changes nothing. It stays in the name, as rel=1 does (unset, judged_only
    is the call's -J, which refuses it: computed judged-only, RR(judged_only=False)@5
    was printed as RR@5), and another value stays refused."""
    ir_measures, qrels, run = _graded(tmp_path)
    plain = ir_measures.parse_measure(name)
    given = trecbench.evaluate(qrels, run, [plain(judged_only=False)]).to_frame()
    alone = trecbench.evaluate(qrels, run, [plain]).to_frame()
    assert given.to_numpy().tolist() == alone.to_numpy().tolist()
    theirs = ir_measures.calc_aggregate([plain(judged_only=False)], qrels, run)
    assert given.iloc[0].tolist() == pytest.approx([theirs[plain]])
    assert "judged_only=False" in given.columns[0]
    with pytest.raises(trecbench.errors.UsageError, match="judged_only=False, but -J"):
        trecbench.evaluate(qrels, run, [plain(judged_only=False)], judged_only=True)
    with_rel = [plain(rel=1, judged_only=False)], [plain(rel=1)]
    kept = [trecbench.evaluate(qrels, run, m, relevance_level=2).to_frame() for m in with_rel]
    assert kept[0].to_numpy().tolist() == kept[1].to_numpy().tolist()
    assert "rel=1" in kept[0].columns[0]
    with pytest.raises(trecbench.errors.UsageError, match="has no parameter 'judged_only'"):
        trecbench.parse_measure(plain(judged_only=True))


def test_ir_measures_objects_take_numpy_numbers_as_their_values(tmp_path):
    """numpy 2 prints np.float64(0.5), which was refused ("p must be a literal value");
    ir_measures computes it. A numpy integer is its int, as relevance_level takes one
    (ir_measures' own check refuses rel=np.int64(2)); a numpy bool stays refused where a
    bool is."""
    np = pytest.importorskip("numpy")
    ir_measures, qrels, run = _graded(tmp_path)
    from ir_measures import RBP, P

    theirs = ir_measures.calc_aggregate([RBP(p=0.5, rel=1), P(rel=2) @ 5], qrels, run)
    objects = [RBP(p=np.float64(0.5), rel=1), P(rel=np.int64(2)) @ 5]
    ours = trecbench.evaluate(qrels, run, objects).to_frame().iloc[0].to_dict()
    assert ours == pytest.approx({"RBP(p=0.5,rel=1)": theirs[RBP(p=0.5, rel=1)], "P(rel=2)@5": 0.2})
    assert theirs[P(rel=2) @ 5] == 0.2
    from trecbench.errors import UsageError

    with pytest.raises(UsageError, match=r"'P\(rel=True\)@5': rel must be int, got True"):
        trecbench.parse_measure(P(rel=np.True_) @ 5)
    with pytest.raises(UsageError, match=r"'P\(foo=1\)@5': P has no parameter 'foo'"):
        trecbench.parse_measure(P(foo=1) @ 5)  # its repr raises KeyError: a traceback
    # float('nan') was "p must be a literal value", as if it were no number
    for value, text in ((float("nan"), "nan"), (np.inf, "inf"), (-np.inf, "inf")):
        with pytest.raises(
            UsageError, match=rf"RBP\(p=-?{text}\)': p must be a finite number, not"
        ):
            trecbench.parse_measure(RBP(p=value))


@pytest.mark.parametrize(
    "measures", [["P", "P.10"], ["P.10", "P"], ["P", "P.5,10"], ["ndcg_cut", "ndcg_cut.5"]]
)
def test_score_s_first_parameters_keys_a_value_by_the_measure_computed(measures):
    """first_parameters=True (score's -m rule) keyed P@10's value of ['P', 'P.10'] as
    'P' (the bare name, first) and 'P.10' both; without it, and in pytrec_eval, it is
    'P.10' alone. A bare name takes the list given under either rule: the same keys."""
    as_given = trecbench.evaluate(QRELS, RUN, measures).to_frame()
    first = trecbench.evaluate(QRELS, RUN, measures, first_parameters=True).to_frame()
    assert list(first.columns) == list(as_given.columns) and first.equals(as_given)
    assert "P" not in first.columns and "ndcg_cut" not in first.columns


@pytest.mark.parametrize(
    ("measures", "keys"),
    [
        ({"P", "P.10"}, {"P.10": "P_10"}),
        (["P", "P_10"], {"P_10": "P_10"}),
        (["P.5", "P", "P.10"], {"P.5": "P_5", "P.10": "P_10"}),
        (["set_F", "set_F.0.5"], {"set_F.0.5": "set_F"}),  # pytrec_eval's label
    ],
)
def test_a_bare_family_takes_the_parameter_lists_given_as_pytrec_eval_reads_it(measures, keys):
    """pytrec_eval's {'P', 'P.10'} gives P_10 alone, as trec_eval's and trecbench score's
    -m P -m P.10 do; evaluate gave P_5 ... P_1000 too. Spelt otherwise (P@10), or with
    other parameters (P(rel=2)@5), the bare name keeps its defaults."""
    theirs = _pytrec_eval(measures)
    shaped = trecbench.evaluate(QRELS, RUN, measures).to_dict()
    for qid, values in theirs.items():
        assert set(values) == set(keys.values()) and set(shaped[qid]) == set(keys)
        for name, label in keys.items():
            assert shaped[qid][name] == pytest.approx(values[label], abs=1e-12), name
    for kept in (["P", "P@10"], ["P", "P(rel=2)@5"]):
        columns = trecbench.evaluate(QRELS, RUN, kept).to_frame().columns
        assert "P_1000" in columns


@pytest.mark.parametrize(
    ("measures", "other"),
    [
        (["ndcg", "nDCG", "ndcg.1=3"], "nDCG"),
        (["nDCG", "ndcg", "ndcg.1=3"], "nDCG"),
        (["set_F", "SetF", "set_F.0.5"], "SetF"),
    ],
)
def test_a_bare_family_leaves_out_no_other_spelling_of_its_measure(measures, other):
    """['ndcg', 'nDCG', 'ndcg.1=3'] computed ndcg.1=3 alone: nDCG, merged into the bare
    ndcg asked before it, was left out with it, unsaid (asked first, it was kept). nDCG's
    own parameters are its defaults whatever the order, as beside ndcg.1=3 alone."""
    shaped = trecbench.evaluate(QRELS, RUN, measures).to_dict()
    alone = trecbench.evaluate(QRELS, RUN, [other]).to_dict()
    for qid, values in alone.items():
        assert shaped[qid][other] == values[other]
        assert shaped[qid][measures[-1]] is not None


# one topic: d1 and d3 relevant, d2 judged not; the run ranks dX (unjudged), d1, d3. By
# hand: AP = (1/2 + 2/3) / 2 = 0.5833; judged only (d1, d3 at ranks 1, 2) AP = 1
J_QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n"
J_RUN = "1 Q0 dX 1 3 r\n1 Q0 d1 2 2 r\n1 Q0 d3 3 1 r\n"


def test_judged_only_false_is_not_overridden_by_minus_j(tmp_path, capsys):
    """-J made AP(judged_only=False) judged-only (1.0000 under that name): a parameter at
    its default was dropped, indistinguishable from unset. -J ranks the judged documents
    alone for every engine, so the clash is refused in one line; rel, a parameter given,
    beats -l."""
    (tmp_path / "q").write_text(J_QRELS)
    (tmp_path / "r").write_text(J_RUN)
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    both = "AP(judged_only=False) AP(judged_only=True)"
    assert cli_run(["score", "-m", both, "--format", "csv", *files]) == 0
    rows = [line.split(",") for line in capsys.readouterr().out.splitlines()[1:]]
    assert [(r[2], round(float(r[4]), 4)) for r in rows] == [
        ("AP(judged_only=False)", 0.5833), ("AP(judged_only=True)", 1.0)
    ]  # fmt: skip
    refusal = (
        "trecbench: measure 'AP(judged_only=False)': judged_only=False, but -J "
        "(judged_only=True) ranks the judged documents alone for every measure; ask it "
        "without -J\n"
    )
    for asked in (both, "AP AP(judged_only=False)", "P(judged_only=False)@2 P@2"):
        assert cli_run(["score", "-J", "-m", asked, *files]) == 1
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.startswith("trecbench: measure '")
    assert cli_run(["score", "-J", "-m", both, *files]) == 1
    assert capsys.readouterr().err == refusal
    assert cli_run(["score", "-J", "-m", "RR(judged_only=False)@5", *files]) == 1
    capsys.readouterr()
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import AP

    asked = [AP(judged_only=False), AP(judged_only=True)]
    qrels = list(ir_measures.read_trec_qrels(files[0]))
    run = list(ir_measures.read_trec_run(files[1]))
    theirs = ir_measures.calc_aggregate(asked, qrels, run)
    ours = trecbench.evaluate(*files, asked).to_frame().iloc[0].to_dict()
    assert [round(theirs[m], 4) for m in asked] == [0.5833, 1.0]
    assert ours == pytest.approx(  # the object's every parameter spelt out, as rel=1 is
        {"AP(judged_only=False)": theirs[asked[0]], "AP(judged_only=True)": theirs[asked[1]]}
    )
    with pytest.raises(trecbench.errors.UsageError, match="judged_only=False, but -J"):
        trecbench.evaluate(*files, asked, judged_only=True)


def test_the_python_api_page_says_what_judged_only_true_does_to_a_judged_only_false_object():
    """docs/python-api.md said P(judged_only=False)@5 is computed with it "whatever" the
    call's judged_only is, while judged_only=True refuses it: the page now quotes the
    refusal, checked here against what evaluate raises. By hand: P@5 = 1/5."""
    pytest.importorskip("ir_measures")
    from ir_measures import P

    page = " ".join((ROOT / "docs" / "python-api.md").read_text().split())
    asked = [P(judged_only=False) @ 5]
    with pytest.raises(trecbench.errors.UsageError) as caught:
        trecbench.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, asked, judged_only=True)
    assert f"(`UsageError`: `{caught.value}`)" in page
    computed = trecbench.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, asked)
    assert computed.to_dict() == {"q": {"P(judged_only=False)@5": 0.2}}
    assert "with `judged_only=False`, the default, it is computed as asked" in page
