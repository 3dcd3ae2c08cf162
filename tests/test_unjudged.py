"""The unjudged-run guard: counts checked by hand, score warns, compare refuses."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import trecbench
from trecbench.errors import UsageError
from trecbench.evaluation import Unjudged, evaluated_depth
from trecbench.measures import parse_measures

# three topics of four documents; the qrels list the ones below (bd1 at -1: unjudged)
RUN = pd.DataFrame(
    [(q, f"{q}d{i}", 4.0 - i) for q in ("a", "b", "c") for i in range(4)],
    columns=["qid", "docno", "score"],
)
QRELS = pd.DataFrame(
    [("a", "ad0", 1), ("a", "ad3", 0), ("b", "bd1", -1), ("c", "cd2", 2), ("c", "other", 1)],
    columns=["qid", "docno", "rel"],
)


def test_depth_is_the_deepest_cutoff_or_the_whole_ranking():
    assert evaluated_depth(parse_measures(["P@5", "nDCG@10", "num_rel"]), None) == 10
    assert evaluated_depth(parse_measures(["MRR@3", "P@2"]), None) == 3
    assert evaluated_depth(parse_measures(["P@5", "map"]), None) is None
    assert evaluated_depth(parse_measures(["P@5", "map"]), 7) == 7
    assert evaluated_depth(parse_measures(["P@50"]), 7) == 7


@pytest.mark.parametrize(
    ("measures", "options", "expected"),
    [
        # top 2: a: ad0 judged, ad1 not; b: bd0 not, bd1 at -1 unjudged; c: neither
        (["P.2"], {}, Unjudged(2, 6, 5, 3, 2)),
        # whole ranking: 12 documents, 3 judged (bd1's -1 is not), b has none
        (["map"], {}, Unjudged(None, 12, 9, 3, 1)),
        # -M 1: a's first is judged, b's and c's are not
        (["map"], {"max_docs": 1}, Unjudged(1, 3, 2, 3, 2)),
    ],
)
def test_unjudged_counts_by_hand(measures, options, expected):
    result = trecbench.evaluate(QRELS, RUN, measures, **options)
    assert result.runs[0].unjudged == expected


def test_a_document_judged_for_several_subtopics_counts_once():
    """Diversity qrels list a document once per subtopic: it is one judged document."""
    run = pd.DataFrame([("1", f"d{i}", 4.0 - i) for i in range(1, 5)], columns=RUN.columns)
    qrels = pd.DataFrame(
        [("1", "d1", 1, str(sub)) for sub in range(1, 7)] + [("1", "d2", 0, "1")],
        columns=["qid", "docno", "rel", "iter"],
    )
    result = trecbench.evaluate(qrels, run, ["alpha_nDCG@4"])
    # top 4: d1 and d2 judged, d3 and d4 not; the one topic has judged documents
    assert result.runs[0].unjudged == Unjudged(4, 4, 2, 1, 0)


def test_flagged_needs_most_documents_unjudged_and_nearly_every_topic_empty():
    # a run on qrels listing only relevant documents: most documents unjudged, but
    # something judged in most topics: not flagged (code-chunk's right qrels: 59% of the
    # documents, no topic; the HPO demo's weakest baseline: 99% and 40 of 56 topics)
    assert not Unjudged(5, 1865, 1106, 373, 0).flagged(0.5)
    assert not Unjudged(100, 2800, 2783, 56, 40).flagged(0.5)
    # its documents unknown to the qrels (code-chunk's other chunker): flagged
    assert Unjudged(5, 1865, 1855, 373, 363).flagged(0.5)
    assert not Unjudged(5, 10, 5, 10, 10).flagged(0.5)  # 50% is not over 50%
    assert Unjudged(5, 10, 6, 10, 9).flagged(0.5) and not Unjudged(5, 10, 6, 10, 9).flagged(0.6)
    assert not Unjudged(5, 10, 6, 10, 8).flagged(0.5)  # 80% of the topics is not nearly all
    text = Unjudged(5, 1865, 1855, 373, 363).message("fixed", "ast.qrels")
    assert text.startswith(
        "fixed: 99.5% of the documents it retrieved within rank 5 are unjudged in "
        "ast.qrels (1,855 of 1,865; none judged in 363 of 373 topics)"
    )
    assert "are these the qrels of this run?" in text


def _files(tmp_path):
    """A run scored against qrels of other documents: 'theirs' judges nothing it retrieves
    within rank 2; 'mine' judges its own documents."""
    (tmp_path / "run.run").write_text(
        "".join(f"{q} Q0 {q}d{i} {i + 1} {4 - i} t\n" for q in "abc" for i in range(4))
    )
    (tmp_path / "mine.qrels").write_text("a 0 ad0 1\nb 0 bd2 1\nc 0 cd1 1\n")
    (tmp_path / "theirs.qrels").write_text("a 0 x1 1\nb 0 x2 1\nc 0 x3 1\nc 0 cd3 0\n")
    return tmp_path


def _cli(argv, cwd, monkeypatch):
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    _register()
    monkeypatch.chdir(cwd)
    return CliRunner().invoke(cli, argv)


def test_score_warns_and_leaves_the_numbers(tmp_path, monkeypatch):
    root = _files(tmp_path)
    wrong = _cli(["score", "-m", "P.2", "theirs.qrels", "run.run"], root, monkeypatch)
    assert wrong.exit_code == 0, wrong.output
    assert (
        "trecbench: warning: run: 100.0% of the documents it retrieved within rank 2 are "
        "unjudged in theirs.qrels (6 of 6; none judged in 3 of 3 topics)" in wrong.stderr
    )
    quiet = _cli(
        ["score", "-m", "P.2", "--unjudged-threshold", "1", "theirs.qrels", "run.run"],
        root,
        monkeypatch,
    )
    assert "unjudged in" not in quiet.stderr and quiet.stdout == wrong.stdout
    right = _cli(["score", "-m", "P.2", "mine.qrels", "run.run"], root, monkeypatch)
    assert "unjudged in" not in right.stderr


def test_compare_refuses_unless_allowed(tmp_path, monkeypatch):
    root = _files(tmp_path)
    (root / "copy.run").write_text((root / "run.run").read_text())
    argv = ["compare", "-m", "P.2", "--samples", "40"]
    refused = _cli([*argv, "theirs.qrels", "run.run", "copy.run"], root, monkeypatch)
    assert refused.exit_code == 1
    assert "run: 100.0% of the documents it retrieved within rank 2 are unjudged" in str(
        refused.exception
    )
    assert "--allow-unjudged" in str(refused.exception)
    allowed = _cli(
        [*argv, "--allow-unjudged", "-o", "out", "theirs.qrels", "run.run", "copy.run"],
        root,
        monkeypatch,
    )
    assert allowed.exit_code == 0, allowed.output
    assert "trecbench: warning: run: 100.0%" in allowed.stderr
    import json

    report = json.loads((root / "out" / "BenchmarkReport.json").read_text())
    assert report["runs"][0]["unjudged"] == {
        "depth": 2,
        "retrieved": 6,
        "unjudged": 6,
        "fraction": 1.0,
        "topics": 3,
        "empty_topics": 3,
    }
    assert report["settings"]["allow_unjudged"] is True
    # each run with its own qrels: nothing to refuse
    own = _cli(
        [*argv, "--run-qrels", "run.run", "mine.qrels", "--run-qrels", "copy.run", "mine.qrels"],
        root,
        monkeypatch,
    )
    assert own.exit_code == 0, own.output


def test_library_refusal_names_the_fraction():
    # a's and c's judged documents are at ranks 3 and 4: nothing judged in the top 2
    qrels = QRELS[QRELS["docno"].isin(["ad3", "cd2"])]
    with pytest.raises(UsageError, match=r"^run1: 100\.0% of the documents .* rank 2 .*"):
        trecbench.compare(qrels, [RUN, RUN.copy()], ["P.2"], samples=40, tie_bounds=False)
    allowed = trecbench.compare(qrels, [RUN, RUN.copy()], ["P.2"], samples=40, allow_unjudged=True)
    # topic b, which the qrels left judge no more, is said first, as score says it
    flagged = [
        f"run{n}: 1 run topic is not in the qrels (ignored, also with -c): b" for n in (1, 2)
    ]
    assert allowed.warnings[:2] == flagged
    unjudged = allowed.warnings[2:]
    assert len(unjudged) == 2 and unjudged[0].startswith("run1: 100.0%")
    # the report keeps them, as printed (an UnjudgedWarning is its text in JSON)
    assert json.loads(allowed.report_file())["warnings"] == list(allowed.warnings)


def test_the_warning_reads_100_percent_only_when_every_document_is_unjudged():
    # 2,999 of 3,000 unjudged is 99.97%: rounded to one decimal it read 100.0%
    text = Unjudged(None, 3000, 2999, 30, 29).message("run", "q.qrels")
    assert text.startswith("run: 99.97% of the documents it retrieved are unjudged in q.qrels ")


def test_a_negative_grade_is_unjudged_for_the_warning_and_judged_for_judged_at_k(tmp_path):
    import ir_measures

    # t1 ranks d1 (1), d3 (-1), d4 (no line), d2 (0); t2 e1 (1), e2 (no line); t3 no qrels
    (tmp_path / "q.qrels").write_text("t1 0 d1 1\nt1 0 d2 0\nt1 0 d3 -1\nt2 0 e1 1\n")
    (tmp_path / "r.run").write_text(
        "t1 Q0 d1 1 10 A\nt1 Q0 d3 2 9 A\nt1 Q0 d4 3 8 A\nt1 Q0 d2 4 7 A\n"
        "t2 Q0 e1 1 10 A\nt2 Q0 e2 1 9 A\nt3 Q0 x 1 9 A\n"
    )
    qrels, run = str(tmp_path / "q.qrels"), str(tmp_path / "r.run")
    result = trecbench.evaluate(qrels, run, ["Judged@2"])
    # top 2 of t1 and t2: d3 (-1) and e2 (no line) unjudged, 2 of 4; every topic has one
    assert result.runs[0].unjudged == Unjudged(2, 4, 2, 2, 0)
    # Judged@2 stays ir_measures' (any qrels line judged): t1 1.0, t2 0.5
    expected = ir_measures.calc_aggregate(
        [ir_measures.Judged @ 2], ir_measures.read_trec_qrels(qrels), ir_measures.read_trec_run(run)
    )
    assert result.runs[0].summary["Judged_2"] == pytest.approx(expected[ir_measures.Judged @ 2])
    assert result.runs[0].summary["Judged_2"] == pytest.approx(0.75)


def test_a_run_of_negative_grades_is_flagged_as_one_the_qrels_do_not_list(tmp_path, monkeypatch):
    # ten topics judge rK relevant and nK at -1; 'neg' ranks nK, xK (no line), 'abs' zK, xK
    (tmp_path / "q.qrels").write_text(
        "".join(f"t{k} 0 r{k} 1\nt{k} 0 n{k} -1\n" for k in range(1, 11))
    )
    for name, first in (("neg", "n"), ("abs", "z")):
        (tmp_path / f"{name}.run").write_text(
            "".join(f"t{k} Q0 {first}{k} 1 10 A\nt{k} Q0 x{k} 2 9 A\n" for k in range(1, 11))
        )
    for name in ("neg", "abs"):
        wrong = _cli(["score", "-m", "P.2", "q.qrels", f"{name}.run"], tmp_path, monkeypatch)
        assert (
            f"trecbench: warning: {name}: 100.0% of the documents it retrieved within rank 2 "
            "are unjudged in q.qrels (20 of 20; none judged in 10 of 10 topics)" in wrong.stderr
        )
    refused = _cli(
        ["compare", "-m", "P.2", "--samples", "40", "q.qrels", "neg.run", "abs.run"],
        tmp_path,
        monkeypatch,
    )
    assert refused.exit_code == 1 and "neg: 100.0% of the documents" in str(refused.exception)


def _sidecar(root, qrels: str, complete: bool = True, runs: dict | None = None) -> str:
    """A converter's sidecar describing ``qrels`` (complete or pooled) and pairing run tags
    with their qrels (``runs``: tag -> qrels file), as hpo's and code-chunk's do."""
    import json

    described = {"file": qrels, "complete": complete, "pooled": not complete}
    from trecbench.inputs.unconverted import SIDECAR_VERSION

    document = {
        "format": "trecbench-sidecar",
        "version": SIDECAR_VERSION,  # as a converter writes it (a format without one is refused)
        "strata": {"fields": [], "queries": {}},
        "qrels": {"q": described},
        "runs": {tag: {"file": "run.run", "qrels": file} for tag, file in (runs or {}).items()},
    }
    (root / "s.json").write_text(json.dumps(document))
    return "s.json"


def test_qrels_a_sidecar_describes_as_complete_are_not_doubted(tmp_path, monkeypatch):
    # gold-only qrels (hpo's): a run that finds little is scored 0, not refused
    root = _files(tmp_path)
    (root / "copy.run").write_text((root / "run.run").read_text().replace(" t\n", " u\n"))
    argv = ["compare", "-m", "P.2", "--samples", "40", "theirs.qrels", "run.run", "copy.run"]
    side = _sidecar(root, "theirs.qrels")
    done = _cli([*argv, "--strata", side], root, monkeypatch)
    assert done.exit_code == 0, done.output
    assert "are these the qrels" not in done.stderr
    score = ["score", "-m", "P.2", "theirs.qrels", "run.run", "--strata", side]
    assert "unjudged in" not in _cli(score, root, monkeypatch).stderr
    # read from the sidecar alone (no --group-by needed); without it, score warns
    assert _cli(score[:-2], root, monkeypatch).stderr.count("are these the qrels") == 1


@pytest.mark.parametrize(
    ("complete", "runs"),
    [
        (False, {}),  # pooled qrels: unjudged is not "not relevant"
        (True, {"t": "mine.qrels"}),  # the run's own qrels are others (code-chunk's chunkers)
    ],
)
def test_the_refusal_stays_where_the_sidecar_does_not_vouch(tmp_path, monkeypatch, complete, runs):
    root = _files(tmp_path)
    (root / "copy.run").write_text((root / "run.run").read_text())
    side = _sidecar(root, "theirs.qrels", complete, runs)
    argv = ["compare", "-m", "P.2", "--samples", "40", "theirs.qrels", "run.run", "copy.run"]
    refused = _cli([*argv, "--strata", side], root, monkeypatch)
    assert refused.exit_code == 1 and "are these the qrels" in str(refused.exception)
    # the sidecar was given: it is not advised again, its declining is said
    assert "give the sidecar that describes them" not in str(refused.exception)
    assert "the sidecar given (--strata) does not vouch for them" in str(refused.exception)
    score = ["score", "-m", "P.2", "theirs.qrels", "run.run", "--strata", side]
    warned = _cli(score, root, monkeypatch).stderr
    assert (
        "the sidecar given (--strata) does not vouch" in warned and "give the sidecar" not in warned
    )


def test_a_run_a_sidecar_of_several_qrels_does_not_list_is_not_vouched_for(tmp_path, monkeypatch):
    # code-chunk's sidecar describes each chunker's qrels, complete for its own documents:
    # a run whose tag it does not list (retagged, or another system's) may belong to any
    import json

    root = _files(tmp_path)
    (root / "copy.run").write_text((root / "run.run").read_text().replace(" t\n", " u\n"))
    side = _sidecar(root, "theirs.qrels", runs={"t": "theirs.qrels"})
    argv = ["compare", "-m", "P.2", "--samples", "40", "theirs.qrels", "run.run", "copy.run"]
    assert _cli([*argv, "--strata", side], root, monkeypatch).exit_code == 0  # one qrels file
    document = json.loads((root / side).read_text())
    document["qrels"]["m"] = {"file": "mine.qrels", "complete": True, "pooled": False}
    (root / side).write_text(json.dumps(document))
    refused = _cli([*argv, "--strata", side], root, monkeypatch)
    assert refused.exit_code == 1 and "copy: " in str(refused.exception)
    assert "run: " not in str(refused.exception)  # its tag is paired with these qrels


def test_the_refusal_says_how_to_go_on_with_complete_qrels(tmp_path, monkeypatch):
    root = _files(tmp_path)
    (root / "copy.run").write_text((root / "run.run").read_text())
    argv = ["compare", "-m", "P.2", "--samples", "40", "theirs.qrels", "run.run", "copy.run"]
    message = str(_cli(argv, root, monkeypatch).exception)
    assert "give the sidecar that describes them as complete, --strata" in message
    assert "--allow-unjudged" in message


def _sidecar_of_fields(root, warning: str | None = None) -> str:
    """A sidecar offering the field ``lang`` and describing ``mine.qrels`` (with the
    converter's ``warning`` about them, when given)."""
    import json

    described = {"file": "mine.qrels", "complete": False, "pooled": True}
    if warning is not None:
        described["warning"] = warning
    strata = {"fields": ["lang"], "queries": {q: {"lang": "de"} for q in "abc"}}
    document = {"strata": strata, "qrels": {"q": described}}
    (root / "f.json").write_text(json.dumps(document))
    return "f.json"


_SCORE = ["score", "-m", "P.2", "mine.qrels", "run.run"]
_COMPARE = ["compare", "-m", "P.2", "--samples", "40", "mine.qrels", "run.run", "copy.run"]


@pytest.mark.parametrize("argv", [_SCORE, _COMPARE])
@pytest.mark.parametrize("group_by", [[], ["--group-by", "lang"]])
def test_the_sidecars_qrels_warning_is_said_with_or_without_group_by(
    tmp_path, monkeypatch, argv, group_by
):
    # said only with --group-by (score) or never (compare)
    root = _files(tmp_path)
    (root / "copy.run").write_text((root / "run.run").read_text().replace(" t\n", " u\n"))
    side = _sidecar_of_fields(root, "found-only qrels: judged where found")
    done = _cli([*argv, "--strata", side, *group_by], root, monkeypatch)
    assert done.exit_code == 0, done.output
    said = "trecbench: warning: mine.qrels: found-only qrels: judged where found\n"
    assert done.stderr.count(said) == 1


@pytest.mark.parametrize("argv", [_SCORE, _COMPARE])
def test_a_sidecar_without_group_by_says_it_stratifies_nothing(tmp_path, monkeypatch, argv):
    root = _files(tmp_path)
    (root / "copy.run").write_text((root / "run.run").read_text().replace(" t\n", " u\n"))
    side = _sidecar_of_fields(root)
    said = (
        "trecbench: warning: --strata: nothing is stratified without --group-by FIELD "
        "(this sidecar offers: lang); read for its qrels only\n"
    )
    alone = _cli([*argv, "--strata", side], root, monkeypatch)
    assert alone.exit_code == 0, alone.output
    assert alone.stderr.count(said) == 1
    grouped = _cli([*argv, "--strata", side, "--group-by", "lang"], root, monkeypatch)
    assert grouped.exit_code == 0, grouped.output
    assert "nothing is stratified" not in grouped.stderr


@pytest.mark.parametrize("argv", [_SCORE, _COMPARE])
@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("nope\n", "bad.json:1: invalid JSON: Expecting value at column 1"),
        ('{"x": 1}\n', "bad.json: not a trecbench sidecar (no strata.queries)"),
    ],
)
def test_a_bad_sidecar_is_refused_whatever_the_runs(tmp_path, monkeypatch, argv, text, said):
    # refused only when a run was flagged unjudged; mine.qrels judge these runs' documents
    root = _files(tmp_path)
    (root / "copy.run").write_text((root / "run.run").read_text().replace(" t\n", " u\n"))
    (root / "bad.json").write_text(text)
    done = _cli([*argv, "--strata", "bad.json"], root, monkeypatch)
    # the command line's entry point says it as one line, exit 2 (an InputError)
    assert type(done.exception).__name__ == "InputError" and str(done.exception) == said


@pytest.mark.parametrize("argv", [_SCORE, _COMPARE])
def test_the_sidecar_is_not_advised_for_qrels_from_a_pipe(tmp_path, monkeypatch, argv):
    # a sidecar names a qrels file: none can vouch for qrels read from <(...) or -
    import os

    root = _files(tmp_path)
    (root / "copy.run").write_text((root / "run.run").read_text().replace(" t\n", " u\n"))
    read, write = os.pipe()
    os.write(write, (root / "theirs.qrels").read_bytes())
    os.close(write)
    try:
        piped = [f"/dev/fd/{read}" if a == "mine.qrels" else a for a in argv]
        done = _cli(piped, root, monkeypatch)
    finally:
        os.close(read)
    said = done.stderr if argv is _SCORE else str(done.exception)
    assert "are these the qrels of this run? (each run of a code-chunk" in said
    assert "memorybench conversion has its own qrels)" in said
    assert "--strata" not in said


def test_a_sidecar_read_from_a_pipe_says_its_qrels_warning(tmp_path, monkeypatch):
    # its qrels' file was resolved against /dev/fd, where no qrels are: never said
    import os

    root = _files(tmp_path)
    side = root / _sidecar_of_fields(root, "found-only qrels: judged where found")
    read, write = os.pipe()
    os.write(write, side.read_bytes())
    os.close(write)
    try:
        done = _cli([*_SCORE, "--strata", f"/dev/fd/{read}"], root, monkeypatch)
    finally:
        os.close(read)
    assert done.exit_code == 0, done.output
    assert "trecbench: warning: mine.qrels: found-only qrels: judged where found\n" in done.stderr


def test_the_library_refuses_a_bad_sidecar_whatever_the_runs(tmp_path):
    # as the command line does: compare(strata=) without group_by reads it before the
    # scoring, not only when a run is flagged (these runs are not: mine.qrels know them)
    from trecbench.errors import InputError

    root = _files(tmp_path)
    (root / "bad.json").write_text("nope\n")
    (root / "copy.run").write_bytes((root / "run.run").read_bytes())  # one run twice: refused
    runs = {"a": root / "run.run", "b": root / "copy.run"}
    with pytest.raises(InputError, match="bad.json:1: invalid JSON"):
        trecbench.compare(root / "mine.qrels", runs, ["P.2"], samples=40, strata=root / "bad.json")


def test_strata_that_cannot_vouch_still_need_group_by(tmp_path):
    # a strata table, or a sidecar given to compare_scores (which scores nothing), says
    # nothing without group_by: refused as before, not silently dropped
    from trecbench.comparison import compare_scores
    from trecbench.strata import load_strata

    root = _files(tmp_path)
    side = root / _sidecar_of_fields(root)
    (root / "copy.run").write_bytes((root / "run.run").read_bytes())  # one run twice: refused
    runs = {"a": root / "run.run", "b": root / "copy.run"}
    with pytest.raises(UsageError, match="^strata needs group_by "):
        trecbench.compare(root / "mine.qrels", runs, ["P.2"], samples=40, strata=load_strata(side))
    values = trecbench.evaluate(root / "mine.qrels", root / "run.run", ["P.2"]).per_query_values
    both = pd.concat([values, values.assign(run="b")])
    with pytest.raises(UsageError, match="^strata needs group_by "):
        compare_scores(both, samples=40, strata=side)


@pytest.mark.parametrize(
    ("runs", "said"),
    [
        ([{"t": {"qrels": "mine.qrels"}}], "s.json:1: runs: expected an object, found an array ("),
        (
            {"t": "mine.qrels"},
            's.json:1: runs.t: expected an object, found a string ("mine.qrels")',
        ),
        ({"t": {"qrels": 5}}, "s.json:1: runs.t.qrels: expected a string, found a number (5)"),
    ],
)
def test_a_sidecars_pairing_not_as_written_is_refused(tmp_path, monkeypatch, runs, said):
    # read as no pairing, it vouched for other qrels: the run's own are mine.qrels
    import json

    root = _files(tmp_path)
    document = json.loads((root / _sidecar(root, "theirs.qrels")).read_text())
    (root / "s.json").write_text(json.dumps({**document, "runs": runs}))
    argv = ["score", "-m", "P.2", "theirs.qrels", "run.run", "--strata", "s.json"]
    done = _cli(argv, root, monkeypatch)
    assert type(done.exception).__name__ == "InputError"
    assert str(done.exception).startswith(said) and "\n" not in str(done.exception)
