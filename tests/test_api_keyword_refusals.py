"""The Python API refuses, as one-line UsageErrors naming the keyword, the settings the
command line's options refuse (a reviewer's findings: each was taken silently, or raised
a bare ValueError, or was read as something else)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from trecbench.errors import UsageError
from trecbench.validation import validate_files, validate_qrels, validate_run

ROOT = Path(__file__).resolve().parents[1]
RUN, QRELS = ROOT / "runs" / "tfidf-char.run", ROOT / "qrels" / "hpo-demo.qrels"


def refused(call, keyword: str, **given) -> str:
    """The one-line message of the UsageError ``call(**given)`` raises, naming ``keyword``."""
    with pytest.raises(UsageError) as caught:
        call(**given)
    message = str(caught.value)
    assert keyword in message and "\n" not in message, message
    return message


@pytest.mark.parametrize("call, path", [(validate_run, RUN), (validate_qrels, QRELS)])
@pytest.mark.parametrize("chunk_bytes", [0, -1, 2.5, "4096", True, (1 << 30) + 1, 1 << 40])
def test_chunk_bytes_out_of_bounds_or_not_whole_is_refused(call, path, chunk_bytes):
    """``chunk_bytes=0`` read nothing: a valid file of 2,800 lines was R26, empty;
    ``chunk_bytes=2**40`` raised a MemoryError allocating the chunk."""
    refused(lambda **kw: call(path, **kw), "chunk_bytes", chunk_bytes=chunk_bytes)


@pytest.mark.parametrize("chunk_bytes", [4096, 1 << 30])
def test_a_chunk_within_bounds_still_reads_every_line(chunk_bytes):
    lines = RUN.read_bytes().count(b"\n")  # counted apart from the validator: 2,800
    result = validate_run(RUN, chunk_bytes=chunk_bytes)
    assert result.counts["lines"] == lines == 2800


# each refused as `trecbench validate`'s option refuses it (--profile, --docid-regex,
# --max-depth, --min-depth, --memory, -l); limit has no option: from 0
BAD_RUN_KEYWORDS = [
    ("profile", "nope"),
    ("profile", ["strict"]),
    ("docid_regex", "("),
    ("docid_regex", ""),
    ("docid_regex", 5),
    ("max_depth", -1),
    ("max_depth", 0),
    ("max_depth", 2.5),
    ("max_depth", 2**63),
    ("min_depth", -5),
    ("min_depth", 0),
    ("limit", -1),
    ("memory", 0),
]


@pytest.mark.parametrize("keyword, value", BAD_RUN_KEYWORDS)
def test_validate_run_refuses_what_the_command_line_refuses(keyword, value):
    """``max_depth=-1`` turned R8 off; ``profile='nope'`` raised a bare ValueError."""
    refused(lambda **kw: validate_run(RUN, **kw), keyword, **{keyword: value})


@pytest.mark.parametrize("keyword, value", [*BAD_RUN_KEYWORDS[:2], ("limit", -1), ("memory", 0)])
def test_validate_qrels_refuses_what_the_command_line_refuses(keyword, value):
    refused(lambda **kw: validate_qrels(QRELS, **kw), keyword, **{keyword: value})


@pytest.mark.parametrize("level", [0, -1, 1.5])
def test_relevance_level_below_one_is_refused(level):
    """``relevance_level=0`` was taken, where ``validate -l 0`` is refused."""
    refused(lambda **kw: validate_qrels(QRELS, **kw), "relevance_level", relevance_level=level)
    refused(
        lambda **kw: validate_files([RUN], qrels=QRELS, **kw),
        "relevance_level",
        relevance_level=level,
    )


def test_the_settings_that_mean_not_set_are_still_taken():
    result = validate_run(RUN, max_depth=None, min_depth=None, memory=None, limit=0)
    assert result.counts["lines"] == 2800
    assert validate_run(RUN, max_depth=1).counts["rules"].get("R8")  # 100 lines a topic


RUNS = [ROOT / "runs" / "tfidf-word.run", ROOT / "runs" / "tfidf-char.run"]


@pytest.mark.parametrize("method", ["combsum", "isr", "wsum", "combmnz"])
def test_fuse_refuses_k_for_a_method_without_one(method):
    """``fuse(runs, 'combsum', k=30)`` ignored k, where ``fuse --k`` is refused."""
    from trecbench import fuse

    message = refused(lambda **kw: fuse(RUNS, method, **kw), "k", k=30)
    assert message.startswith("k: ") and "has no k (it is RRF's constant)" in message


def test_fuse_still_takes_rrf_k_and_no_k_elsewhere():
    from trecbench import fuse

    default, given = fuse(RUNS, "rrf"), fuse(RUNS, "rrf", k=60)
    assert default.equals(given)
    assert len(fuse(RUNS, "combsum")) == len(fuse(RUNS, "combsum", k=None))


@pytest.mark.parametrize(
    "method, keyword, value",
    [("combsum", "k_grid", (5, 7)), ("wmnz", "k_grid", [5]), ("rrf", "step", 0.3)],
)
def test_optimize_fusion_refuses_the_grid_of_a_parameter_not_tuned(method, keyword, value):
    """``k_grid`` with combsum, ``step`` with rrf were taken and recorded as if searched."""
    from trecbench.runstudy.fusion_tuning import optimize_fusion

    call = lambda **kw: optimize_fusion(RUNS, QRELS, "P@10", method, **kw)  # noqa: E731
    refused(call, keyword, **{keyword: value})


def _conclusions():
    import trecbench

    return {
        "compare": lambda runs: trecbench.compare(QRELS, runs, ["P@10"]),
        "agree": lambda runs: trecbench.agree(QRELS, runs, ["P@10", "map"]),
        "power": lambda runs: trecbench.power(QRELS, *_baseline_apart(runs), ["P@10"]),
    }


def _baseline_apart(runs):
    """power's baseline and runs: the first run and the others, in dicts if given one."""
    if isinstance(runs, dict):
        items = list(runs.items())
        return dict(items[:1]), dict(items[1:])
    return runs[0], runs[1:]


@pytest.mark.parametrize("name", ["compare", "agree", "power"])
def test_runs_named_alike_are_told_to_name_them_in_a_dict(name, tmp_path):
    """The advice was "e.g. with names", a keyword these calls do not have (TypeError).
    A run held in memory, first, is run1, as a file run1.run is (one file by two paths is
    refused as given twice, before any naming)."""
    import trecbench

    call = _conclusions()[name]
    (tmp_path / "run1.run").write_bytes(RUNS[0].read_bytes())
    alike = [
        trecbench.read_run(RUNS[1]),
        tmp_path / "run1.run",
        ROOT / "runs/tfidf-word-parents.run",
    ]
    message = refused(lambda: call(alike), "run1")
    assert message == (
        "two runs are named 'run1'; name them apart (e.g. give the runs as a {name: run} dict)"
    )
    call({"a": alike[0], "b": alike[1], "c": alike[2]})  # the advice, followed, is taken


def _asking_text_and_summaries():
    import trecbench

    measures = ["P@10", "runid", "relstring", "gm_map"]
    return trecbench.evaluate(QRELS, RUNS[0], measures)


@pytest.mark.parametrize(
    "view, said",
    [("per_query", ["runid", "relstring", "gm_map"]), ("aggregates", ["runid", "relstring"])],
)
def test_the_long_tables_say_what_they_leave_out(view, said):
    """``per_query`` and ``aggregates`` dropped asked measures without the PerTopicWarning
    docs/python-api.md promises, which to_frame(), to_long() and to_dict() give."""
    import warnings

    from trecbench.errors import PerTopicWarning

    result = _asking_text_and_summaries()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = getattr(result, view)
    told = [w for w in caught if issubclass(w.category, PerTopicWarning)]
    text = " ".join(str(w.message) for w in told)
    assert all(name in text for name in said), text
    assert all(w.filename == __file__ for w in told)  # at the caller's line
    assert set(frame["measure"]).isdisjoint(said)
    # the values themselves: P@10 of the first topic, counted from the files
    if view == "per_query":
        row = frame[frame["measure"] == "P@10"].iloc[0]
        assert row["value"] == _p_at_10(row["qid"])


def _p_at_10(qid: str) -> float:
    """P@10 of ``qid`` in RUNS[0], counted apart: its 10 best-scored documents (ties by
    docno descending, trec_eval's order) among the qrels' relevant ones."""
    relevant = {
        line.split()[2]
        for line in QRELS.read_text().splitlines()
        if line.split()[0] == qid and int(line.split()[3]) > 0
    }
    rows = [line.split() for line in RUNS[0].read_text().splitlines()]
    ranked = sorted((r for r in rows if r[0] == qid), key=lambda r: r[2], reverse=True)
    ranked = sorted(ranked, key=lambda r: -float(r[4]))  # stable: docno descending in ties
    return sum(r[2] in relevant for r in ranked[:10]) / 10


@pytest.mark.parametrize("view", ["to_frame", "to_long"])
@pytest.mark.parametrize("value", ["False", 1, None])
def test_per_query_of_the_frames_must_be_true_or_false(view, value):
    """``to_frame(per_query="False")`` gave the per-topic frame: a non-empty string is
    true. Refused as evaluate(judged_only="False") is."""
    import trecbench

    result = trecbench.evaluate(QRELS, RUNS[0], ["P@10"])
    message = refused(lambda **kw: getattr(result, view)(**kw), "per_query", per_query=value)
    assert message == f"per_query must be True or False, not {value!r}"
    assert len(getattr(result, view)(per_query=np.bool_(False))) == 1  # numpy's bool: taken


def test_benchmark_markdown_statistics_must_be_true_or_false(tmp_path):
    from trecbench.benchmarking import run_benchmark

    (tmp_path / "q.qrels").write_text("1 0 d1 1\n")
    (tmp_path / "a.run").write_text("1 Q0 d1 1 1.0 a\n")
    path = tmp_path / "bench.toml"
    path.write_text('qrels = "q.qrels"\nmeasures = ["P@1"]\n[modes.a]\nrun = "a.run"\n')
    bench = run_benchmark(path)
    refused(lambda **kw: bench.markdown(**kw), "statistics", statistics="False")
    assert bench.markdown(np.bool_(False)) == bench.markdown(False)  # numpy's bool: taken


def test_first_parameters_tells_a_script_its_measures_not_minus_m():
    """evaluate(first_parameters=True) advised ``-m P.5,10 given first or -m P@10``: a
    script has no -m; it names measures. The command line keeps its -m words."""
    import trecbench
    from trecbench.errors import FirstParametersWarning

    with pytest.warns(FirstParametersWarning) as said:
        trecbench.evaluate(QRELS, RUNS[0], ["P.5", "P.10"], first_parameters=True)
    (warning,) = [w for w in said if issubclass(w.category, FirstParametersWarning)]
    assert str(warning.message) == (
        "'P.10' not computed: trec_eval computes P with the first parameters given only "
        "(P.5); for both, 'P.5,10' given first or 'P@10' in measures"
    )
    assert warning.filename == __file__
    assert warning.message.cli_line == (
        "-m P.10 not computed: trec_eval computes P with the first parameters given only "
        "(P.5); for both, -m P.5,10 given first or -m P@10"
    )


@pytest.mark.parametrize("threshold", [50, 90.0, None, "x"])
def test_convert_lists_refuses_a_fuzzy_threshold_without_chunks(tmp_path, threshold):
    """``convert_lists(match="ids", fuzzy_threshold=50)`` was taken and dropped (the
    sidecar said null), where ``convert lists --fuzzy-threshold`` without ``--match
    chunks`` is refused."""
    import json

    from trecbench.convert.lists import convert_lists

    path = tmp_path / "lists.json"
    path.write_text(json.dumps({"gold_docs": [["d1"]], "retrieved_chunks": [["d1", "d2"]]}))
    message = refused(
        lambda **kw: convert_lists(path, **kw),
        "fuzzy_threshold",
        match="ids",
        fuzzy_threshold=threshold,
    )
    assert message.endswith('the fuzzy step matches chunks to documents, give match="chunks"')
    ids = convert_lists(path)  # not given: taken, and recorded as none
    assert ids.provenance["options"]["fuzzy_threshold"] is None
    chunks = convert_lists(path, match="chunks")  # not given with chunks: the default, 90
    assert chunks.provenance["options"]["fuzzy_threshold"] == 90.0


@pytest.mark.parametrize("threshold", [np.int64(80), np.float32(80), 80])
def test_convert_lists_writes_a_numpy_fuzzy_threshold(tmp_path, threshold):
    """A numpy threshold was taken (a number in (0, 100]) and then failed to be written:
    the sidecar's JSON said ``TypeError: Object of type int64 is not JSON serializable``.
    It is recorded as the command line's ``--fuzzy-threshold`` is, a float."""
    import json

    from trecbench.convert.common import write_conversion
    from trecbench.convert.lists import convert_lists

    path = tmp_path / "lists.json"
    lists = {"gold_docs": [["doc one"]], "retrieved_chunks": [["doc one", "other"]]}
    path.write_text(json.dumps(lists))
    conversion = convert_lists(path, match="chunks", fuzzy_threshold=threshold)
    written = write_conversion(conversion, tmp_path / "out", [path])
    recorded = json.loads(written["sidecar"].read_text())
    assert recorded["matching"]["fuzzy_threshold"] == 80.0
    assert isinstance(conversion.provenance["options"]["fuzzy_threshold"], float)


@pytest.mark.parametrize("k_grid", [5, "10", 60.0, {10: 1}, {10, 60}])
def test_optimize_fusion_refuses_a_k_grid_that_is_not_a_list(k_grid):
    """``k_grid=5`` was a TypeError (``'int' object is not iterable``), ``k_grid="10"``
    the grid of its characters (refused as ``k ... not '1'``)."""
    from trecbench.runstudy.fusion_tuning import optimize_fusion

    message = refused(
        lambda **kw: optimize_fusion(RUNS, QRELS, "P@10", **kw), "k_grid=", k_grid=k_grid
    )
    assert "give a list of RRF's k values" in message


@pytest.mark.parametrize("threshold", [0, 100.5, -3])
def test_convert_lists_names_fuzzy_threshold_out_of_its_range(tmp_path, threshold):
    """The range refusal said 'the fuzzy threshold', not the keyword given."""
    import json

    from trecbench.convert.lists import convert_lists

    path = tmp_path / "lists.json"
    path.write_text(json.dumps({"gold_docs": [["d1"]], "retrieved_chunks": [["d1", "d2"]]}))
    message = refused(
        lambda **kw: convert_lists(path, match="chunks", **kw),
        "fuzzy_threshold",
        fuzzy_threshold=threshold,
    )
    assert message == f"fuzzy_threshold must be in (0, 100], not {threshold!r}"


def test_token_checker_refuses_a_kind_as_a_usage_error():
    """``TokenChecker(path, "nope")`` raised a bare ValueError, where its other settings
    are refused as UsageErrors naming them."""
    from trecbench.validation import TokenChecker

    message = refused(lambda **kw: TokenChecker("x.run", **kw), "kind", kind="nope")
    assert message == "kind must be 'run' or 'qrels', not 'nope'"


@pytest.mark.parametrize("title", [None, 5, b"x", ["a"]])
def test_a_page_title_that_is_not_text_is_refused(title):
    """``to_html(title=None)`` titled and headed the page "None", 5 "5"."""
    import trecbench

    pytest.importorskip("bokeh")
    comparison = trecbench.compare(QRELS, [RUN, ROOT / "runs" / "tfidf-word.run"], ["P@5"])
    message = refused(comparison.to_html, "title", title=title)
    assert message.startswith("title must be text, not ")


@pytest.mark.parametrize(("given", "kind"), [(None, "None"), (5, "an int")])
def test_a_reader_given_no_path_refuses_it_naming_the_argument(given, kind):
    """pathlib's or os.fspath's "expected str, bytes or os.PathLike object, not NoneType"
    named no argument, for every function that reads a file by its path."""
    import trecbench

    calls = {
        "sidecar": lambda: trecbench.load_strata(given),
        "suite": lambda: trecbench.leaderboard(given),
        "config": lambda: trecbench.run_benchmark(given),
        "path": lambda: trecbench.load_benchmark_config(given),
        "routing log": lambda: trecbench.routing_metrics(given),
        "report": lambda: trecbench.diff_reports(given, given),
        "ontology": lambda: trecbench.evaluate(
            QRELS, RUN, ["MaxOntSim@10"], options={"ontology": given or 5}
        ),
    }
    if given is not None:  # load_ontology(None) is hpo3's bundled release
        calls["path "] = lambda: trecbench.load_ontology(given)
    for name, call in calls.items():
        shown = "an int" if name == "ontology" else kind
        said = (
            rf"{re.escape(name.strip())}(=.*)?: give a path \(text or os\.PathLike\), not {shown}$"
        )
        with pytest.raises(UsageError, match="^" + said):
            call()


@pytest.mark.parametrize(
    ("docids", "said"),
    [
        (5, "docids=5: give a list of docids (text) or a docids file's path, not an int"),
        ({"a": 1}, "docids={'a': 1}: give a list of docids (text) or a docids file's path, "
         "not a dict"),
        ([5], "docids: docid 5: give docids as text, not an int"),
    ],
)  # fmt: skip
def test_docids_of_no_list_of_text_are_refused_naming_them(docids, said):
    """``docids=5`` raised "'int' object is not iterable", ``[5]`` a bare TypeError."""
    assert refused(lambda **kw: validate_run(RUN, **kw), "docids", docids=docids) == said


@pytest.mark.parametrize("tag", [5, b"t", ["t"]])
def test_an_expected_tag_that_is_not_text_is_refused_naming_it(tag):
    """``expected_tag=5`` raised pathlib's "expected str, bytes or os.PathLike object"."""
    message = refused(lambda **kw: validate_run(RUN, **kw), "expected_tag", expected_tag=tag)
    assert message.startswith(f"expected_tag={tag!r}: give a tag as text, not ")


@pytest.mark.parametrize("flag", ["no", 1, None])
def test_collect_judged_must_be_true_or_false(flag):
    """``collect_judged="no"`` was truthy: the judged pairs were collected."""
    message = refused(
        lambda **kw: validate_qrels(QRELS, **kw), "collect_judged", collect_judged=flag
    )
    assert message == f"collect_judged must be True or False, not {flag!r}"


@pytest.mark.parametrize(("given", "kind"), [(None, "None"), (5, "an int")])
def test_a_converter_given_no_path_refuses_it_naming_the_argument(given, kind):
    """A converter naming its outputs after its input's name ran os.fspath on it first:
    pathlib's "expected str, bytes or os.PathLike object, not NoneType" named nothing."""
    import trecbench

    calls = {
        "path": lambda: trecbench.convert_beir_qrels(given),
        "run": lambda: trecbench.convert_dict(given),
        "qrels_json": lambda: trecbench.convert_dict(RUN, qrels_json=given or 5),
        "cases": lambda: trecbench.convert_hpo(given),
        "source": lambda: trecbench.convert_lists(given),
    }
    for name, call in calls.items():
        shown = "an int" if name == "qrels_json" else kind
        said = f"^{name}=.*: give a path \\(text or os\\.PathLike\\), not {shown}$"
        with pytest.raises(UsageError, match=said):
            call()


def test_measures_given_as_a_dict_are_refused_not_read_as_its_keys():
    """``evaluate(q, r, {"P@5": 1})`` computed P@5, the dict's values unused, where a
    dict has no order of measures to keep and its values no meaning."""
    import trecbench

    message = refused(
        lambda **kw: trecbench.evaluate(QRELS, RUN, **kw), "measures", measures={"P@5": 1}
    )
    assert message.startswith("measures={'P@5': 1}: give a list of measure names, not a dict")


def test_a_docid_regex_of_a_byte_not_utf8_is_refused_in_words():
    """``--docid-regex $'\\xff'`` said Python's "'utf-8' codec can't encode character"."""
    import os

    from trecbench.cli import run

    message = refused(lambda **kw: validate_run(RUN, **kw), "docid_regex", docid_regex="\udcff")
    assert message == (
        "docid_regex: '\\udcff' holds a byte that is not UTF-8: it matches no docno (a run is "
        "UTF-8 text); give the pattern in UTF-8"
    )
    assert run(["validate", str(RUN), "--docid-regex", os.fsdecode(b"\xff")]) == 1


@pytest.mark.parametrize("strata", [123, b"strata.json", ["de"]])
@pytest.mark.parametrize("group_by", [None, "language"])
def test_strata_of_no_path_table_or_mapping_are_refused_naming_strata(strata, group_by):
    """``compare(..., strata=123)`` was refused as ``sidecar=123``, a keyword the caller
    never gave (its reading as a sidecar's path named it); without ``group_by`` it was
    refused only once the runs were scored."""
    import trecbench
    from trecbench.comparison import check_outputs

    unread = ROOT / "runs" / "no-such.run"  # refused before any run is read
    said = f"strata={strata!r}: give a sidecar's path, the table trecbench.load_strata reads"
    calls = [lambda **kw: trecbench.compare(QRELS, [RUN, unread], ["P@5"], **kw)]
    if group_by is not None:  # the plots of a sidecar's strata are checked before the work
        calls.append(lambda **kw: check_outputs("out", plots=True, **kw))
    for call in calls:
        message = refused(call, "strata", strata=strata, group_by=group_by)
        assert message.startswith(said) and "sidecar=" not in message


@pytest.mark.parametrize(
    "given, said",
    [
        ({"statistics": {"samples": 100}}, "statistics must be a StatsSettings (or its fields "
         "as keywords), not a dict"),
        ({"scoring": {"max_docs": 5}}, "scoring must be a ScoringSettings (or its fields as "
         "keywords), not a dict"),
        ({"statistics": "t"}, "statistics must be a StatsSettings (or its fields as keywords), "
         "not text"),
    ],
)  # fmt: skip
def test_compare_refuses_settings_of_another_type(given, said):
    """A dict of the fields raised an AttributeError ('dict' object has no attribute
    'missing') once the runs were scored."""
    import trecbench
    from trecbench.comparison import ScoringSettings, StatsSettings

    assert (
        refused(lambda **kw: trecbench.compare(QRELS, RUNS, ["P@5"], **kw), said, **given) == said
    )
    swapped = {"statistics": ScoringSettings(), "scoring": StatsSettings()}
    refused(lambda **kw: trecbench.compare(QRELS, RUNS, ["P@5"], **kw), "not a", **swapped)


def test_fuse_reads_weights_given_as_a_generator_as_a_list():
    """fuse(runs, 'combsum', weights=iter([1, 2])) said '0 weight(s) for 2 run(s)': the
    check before reading used the iterator up."""
    from trecbench import fuse, fusion

    listed = fuse(RUNS, "combsum", weights=[1, 3])
    assert fuse(RUNS, "combsum", weights=(w for w in [1, 3])).equals(listed)
    tables = [fusion.ranked_table(str(path)) for path in RUNS]
    fused = fusion.fuse_tables(tables, "combsum", weights=iter([1, 3]))
    assert fused.equals(fusion.fuse_tables(tables, "combsum", weights=[1, 3]))
