"""diff: two reports compared, the likeliest cause named first, diff's exit codes."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import ROOT, diff_reports

from trecbench.cli import run
from trecbench.renderers.text_tables import p_text
from trecbench.report import validate_against_schema

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUN = str(ROOT / "runs" / "tfidf-word.run")


@pytest.fixture
def reports(tmp_path, capsys):
    """Reports of the bundled demo, named by what was changed."""

    def report(name: str, *args: str, qrels: str = QRELS, runs=(RUN,)) -> str:
        path = str(tmp_path / f"{name}.json")
        assert run(["score", "--report", path, *args, qrels, *runs]) == 0
        capsys.readouterr()
        return path

    return report


def test_the_same_evaluation_twice_is_the_same(reports, capsys):
    code, out = diff_reports(capsys, reports("a"), reports("b"))
    assert (code, out) == (0, "the evaluations are the same\n")


def test_other_qrels_are_named_first(reports, tmp_path, capsys):
    qrels = tmp_path / "other.qrels"
    lines = (ROOT / "qrels" / "hpo-demo.qrels").read_text().splitlines()
    qrels.write_text("\n".join(lines[:-5]) + "\n")
    # other qrels *and* another option and run: the qrels still come first
    other = reports("b", "-l", "2", qrels=str(qrels), runs=(str(ROOT / "runs/tfidf-char.run"),))
    code, out = diff_reports(capsys, reports("a"), other)
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith("likely cause: the qrels differ: ")
    assert "other.qrels" in first
    assert "option: relevance_level 1 -> 2" in out


def test_an_option_is_written_as_the_reports_write_it(reports, capsys):
    # a flag is JSON's true/false, as in diff's JSON and the reports, not Python's True
    code, out = diff_reports(capsys, reports("a"), reports("b", "-c", "-M", "5"))
    assert code == 1
    lines = out.splitlines()
    assert (
        lines[0] == "likely cause: the options differ: complete false vs true; max_docs null vs 5"
    )
    assert "option: complete false -> true" in lines


def test_an_option_and_the_values_it_moved(reports, capsys):
    code, out = diff_reports(capsys, reports("a"), reports("b", "-l", "2"))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "likely cause: the options differ: relevance_level 1 vs 2"
    assert "value: tfidf-word MAP@100 0.2329 -> 0.0000" in out  # the run by its name
    # nDCG's gains do not depend on -l: its value did not move and is not listed
    assert not any("nDCG@10" in line for line in lines)


def test_measure_spellings_and_json(reports, tmp_path, capsys):
    a = reports("a", "-m", "ndcg_cut.10")
    b = reports("b", "-m", "nDCG@10")
    code, out = diff_reports(capsys, a, b, "--format", "json")
    document = json.loads(out)
    assert code == 1 and document["same"] is False
    # keyed by the measure, not by a spelling ("nDCG@10: None vs ndcg_cut.10" read as if
    # b had asked for ndcg_cut.10)
    # the measure by the name its values have (the measures: line's), as each report
    # spelled it after (reviewer 425: "ndcg_cut.10 asked as ndcg_cut.10")
    # the same measure spelled otherwise (was: "the measures asked for differ", reviewer 704)
    assert document["cause"] == (
        "the measures are spelled otherwise: nDCG@10 asked as ndcg_cut.10 vs nDCG@10"
    )
    assert document["spellings"] == {"nDCG@10": {"a": "ndcg_cut.10", "b": "nDCG@10"}}
    code, out = diff_reports(capsys, a, b)
    assert "measure spelling: nDCG@10 asked as ndcg_cut.10 -> nDCG@10\n" in out
    empty = tmp_path / "e.json"  # no "type": it said "(None)"
    empty.write_text("{}")
    assert run(["diff", a, str(empty)]) == 2
    assert (
        "not an EvaluationReport or a BenchmarkReport (it has no type)" in capsys.readouterr().err
    )


def test_every_spelling_asked_is_recorded_and_their_order_is_no_difference(reports, capsys):
    """Reviewer r75: a report kept the first spelling of a measure asked twice, so `-m P.5
    -m P@5` against `-m P@5 -m P.5` was 'the measures asked for differ: P@5 asked as P.5
    vs P@5', exit 1, and the report held no trace of the second spelling its table showed."""
    a = reports("a", "-m", "P.5", "-m", "P@5", "-m", "map")
    b = reports("b", "-m", "P@5", "-m", "map", "-m", "P.5")
    columns = json.loads(open(a).read())["measures"][0]["columns"]
    shown = {"name": "P@5", "trec_eval": "P_5", "engine": "fast", "names": ["P.5", "P@5"]}
    assert columns == [shown]
    assert diff_reports(capsys, a, b) == (0, "the evaluations are the same\n")
    # a value held by another measure of the call in one order (P.5,10's P@5), by its own
    # in the other (reviewer r79: 'P.5 asked as P@5 -> (not asked)', exit 1)
    c = reports("c", "-m", "P.5,10", "-m", "P@5")
    d = reports("d", "-m", "P@5", "-m", "P.5,10")
    assert diff_reports(capsys, c, d) == (0, "the evaluations are the same\n")
    code, out = diff_reports(capsys, a, reports("e", "-m", "P.5", "-m", "map"))
    assert code == 1 and "measure spelling: P@5 asked as P.5, P@5 -> P.5\n" in out


def test_a_measure_one_report_asked_for_is_named_with_its_report(reports, capsys):
    """Reviewer 379: 'P.5 asked as P.5 vs (not asked)' said a spelling differed where one
    report asked for P.5 and the other did not."""
    both, one = reports("both", "-m", "map", "-m", "P.5"), reports("one", "-m", "map")
    code, out = diff_reports(capsys, both, one)
    assert code == 1 and out.splitlines()[0] == (
        f"likely cause: the measures asked for differ: P.5 only in {both}"
    )
    # the measures' line says it; a spelling line "P@5 asked as P.5 -> (not asked)" read
    # as a second difference (reviewer 673)
    assert "measures: MAP, P@5 -> MAP\n" in out and "measure spelling" not in out
    other = reports("other", "-m", "map", "-m", "P_5", "-m", "P.10")
    code, out = diff_reports(capsys, one, other)
    assert out.splitlines()[0] == (
        f"likely cause: the measures asked for differ: P_5, P.10 only in {other}"
    )
    code, out = diff_reports(capsys, both, other)
    assert out.splitlines()[0] == (
        f"likely cause: the measures asked for differ: P.10 only in {other}; P@5 asked as P.5 vs "
        "P_5"
    )


def test_a_cause_names_a_few_of_the_measures_only_one_report_asked_for(reports, capsys):
    # all_trec against two measures named all 34 of the others in the cause's one line
    few, every = reports("few", "-m", "P.5", "-m", "map"), reports("every", "-m", "all_trec")
    code, out = diff_reports(capsys, few, every)
    assert code == 1
    document = json.loads(diff_reports(capsys, few, every, "--format", "json")[1])
    # as each report spelled them: the measures b alone asked for
    only = [pair["b"] for pair in document["spellings"].values() if pair["a"] is None]
    only = list(dict.fromkeys(only))  # P's values (P@10, P@15...) by their one -m word
    assert len(only) > 30  # what the cause named
    assert out.splitlines()[0] == (
        f"likely cause: the measures asked for differ: {', '.join(only[:3])} and "
        f"{len(only) - 3} more only in {every}; P@5 asked as P.5 vs P"
    )


def test_a_changed_run_file_with_moved_topics(reports, tmp_path, capsys):
    a = reports("a")
    values = json.loads(open(a).read())["results"][0]["per_query"]
    qid = next(q for q, v in values.items() if 0 < v["nDCG@10"] < 1)
    text = (ROOT / "runs" / "tfidf-word.run").read_text().splitlines()
    block = [line for line in text if line.split()[0] == qid]
    scores = [line.split()[4] for line in block]  # the topic's scores, reversed
    moved = {
        line: " ".join([*line.split()[:4], score, line.split()[5]])
        for line, score in zip(block, reversed(scores), strict=True)
    }
    changed = tmp_path / "tfidf-word.run"
    changed.write_text("\n".join(moved.get(line, line) for line in text) + "\n")
    code, out = diff_reports(capsys, a, reports("b", runs=(str(changed),)))
    assert code == 1
    assert out.splitlines()[0].startswith(f"likely cause: a run file differs: {RUN} (102592 bytes")
    # the run keeps its name (its file's stem) although its path changed; its topic moved
    assert "value: tfidf-word nDCG@10 " in out
    assert f"moved most: {qid} -" in out


def test_versions_alone_do_not_make_evaluations_differ(reports, tmp_path, capsys):
    b = json.loads(open(reports("b")).read())
    b["tool"]["version"] = "9.9.9"
    later = tmp_path / "later.json"
    later.write_text(json.dumps(b))
    code, out = diff_reports(capsys, reports("a"), str(later))
    assert code == 0
    assert out == 'the evaluations are the same\nversion: trecbench "0.1.0" -> "9.9.9"\n'
    # its JSON said "same": true with "cause": "the versions differ: ...", which the
    # shipped schema refuses (a cause is null when the evaluations are the same)
    assert run(["diff", reports("a"), str(later), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    validate_against_schema(document, "diff")
    assert (document["same"], document["cause"]) == (True, None)
    assert document["versions"] == {"trecbench": {"a": "0.1.0", "b": "9.9.9"}}


def test_benchmark_reports_compare_their_modes(tmp_path, capsys):
    source = ROOT / "data" / "hpo-rtask"
    assert (
        run(["benchmark", str(source / "benchmark.toml"), "-o", str(tmp_path / "o"), "--quiet"])
        == 0
    )
    capsys.readouterr()
    a = tmp_path / "o" / "BenchmarkReport.json"
    report = json.loads(a.read_text())
    row = next(r for r in report["results"][0]["summary"] if r["run"] == "vector")
    row["mean"] += 0.01
    report["per_query"]["vector"]["de-01"][row["measure"]] = 0.5
    b = tmp_path / "b.json"
    b.write_text(json.dumps(report))
    code, out = diff_reports(capsys, str(a), str(b))
    assert code == 1
    assert f"value: vector {row['measure']} " in out
    assert "(moved most: de-01 +0.5000)" in out
    shutil.rmtree(tmp_path / "o")


@pytest.mark.parametrize("part", ["summary", "per_query"])
def test_a_comparisons_value_of_no_measure_it_asked_is_refused(tmp_path, capsys, part):
    # a BenchmarkReport's mean (or topic's value) of a measure it did not ask for, added
    # by an edit, was never compared: diff said "the evaluations are the same" (exit 0)
    outdir = tmp_path / "o"
    assert run(["compare", "-m", "P@5", "-o", str(outdir), "--quiet", QRELS, RUN, CHAR]) == 0
    capsys.readouterr()
    a = outdir / "BenchmarkReport.json"
    report = json.loads(a.read_text())
    if part == "summary":
        summary = report["results"][0]["summary"]
        summary.append({**summary[0], "measure": "MAP"})
        place = "results[0].summary"
    else:
        next(iter(report["per_query"]["tfidf-char"].values()))["MAP"] = 0.5
        place = "per_query.tfidf-char"
    b = tmp_path / "b.json"
    b.write_text(json.dumps(report))
    assert run(["diff", str(a), str(b)]) == 2
    said = capsys.readouterr().err
    assert said == f"trecbench: {b}: {place}: 'MAP' is no column of the report's measures\n"


def _duplicated(rows: list, **changed) -> None:
    rows.append({**rows[0], **changed})


_SIDECAR = str(ROOT / "qrels" / "hpo-demo.sidecar.json")
# an edit of a report's sections, and diff's refusal of it (each had been taken: a row
# of no run or measure left out, or, twice, the second silently winning)
_STRAY_ROWS = {
    "score's unjudged row twice": (
        lambda r: _duplicated(r["unjudged_bounds"], unjudged=0.5),
        "unjudged_bounds: the row of run 'tfidf-word' and 'P@5' is listed twice",
    ),
    "score's unjudged row of no measure": (
        lambda r: r["unjudged_bounds"][0].update(measure="Bogus"),
        "unjudged_bounds: 'Bogus' is no column of the report's measures",
    ),
    "score's group of no run": (
        lambda r: r["groups"]["language"].update(zz=r["groups"]["language"]["tfidf-word"]),
        "groups: 'zz' is no run of the report's runs",
    ),
    "compare's topics of no run": (
        lambda r: r["per_query"].update(zz=r["per_query"]["tfidf-word"]),
        "per_query: 'zz' is no run of the report's runs",
    ),
    "compare's run twice": (
        lambda r: r["runs"].append(r["runs"][0]),
        "runs: the run 'tfidf-word' is listed twice",
    ),
    "compare's mean twice": (
        lambda r: _duplicated(r["results"][0]["summary"], mean=0.1),
        "results[0].summary: the row of run 'tfidf-word' and 'P@5' is listed twice",
    ),
    "compare's comparison of no run": (
        lambda r: _duplicated(r["results"][0]["comparisons"], run="nobody"),
        "comparisons: 'nobody' is no run of the report's runs",
    ),
}


@pytest.mark.parametrize("edit", list(_STRAY_ROWS))
def test_a_section_s_row_of_no_run_or_measure_or_twice_is_refused(tmp_path, capsys, edit):
    change, message = _STRAY_ROWS[edit]
    if edit.startswith("score"):
        a = tmp_path / "a.json"
        grouped = ["--strata", _SIDECAR, "--group-by", "language", "--unjudged-bounds"]
        assert run(["score", QRELS, RUN, CHAR, "-m", "P.5", *grouped, "--report", str(a)]) == 0
    else:
        assert run(["compare", "-m", "P@5", "-o", str(tmp_path / "o"), QRELS, RUN, CHAR]) == 0
        a = tmp_path / "o" / "BenchmarkReport.json"
    b = tmp_path / "b.json"
    assert _refused_edited(a, b, change, capsys) == f"trecbench: {b}: {message}\n"


def _refused_edited(a, b, edit, capsys) -> str:
    """What diff says of report ``a`` and its copy ``b`` changed by ``edit``, refused."""
    report = json.loads(a.read_text())
    edit(report)
    b.write_text(json.dumps(report))
    capsys.readouterr()
    assert run(["diff", str(a), str(b)]) == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    "edit, said",
    [
        (lambda r: r["power"].update(rows=[{"run": "tfidf-word"}]), "power/rows/0: 'baseline' is"),
        (lambda r: r["power"]["rows"][0].update(power=1.5), "power/rows/0/power: 1.5 is greater"),
        (lambda r: r["settings"].update(alpha=7), "settings/alpha: 7 is greater than or equal"),
        (
            lambda r: r["unjudged_bounds"]["rows"][0].update(unjudged=7.5),
            "unjudged_bounds/rows/0/unjudged: 7.5",
        ),
    ],
    ids=["power row", "power", "alpha", "unjudged share"],
)
def test_a_comparison_s_power_and_shares_are_held_to_the_schema(tmp_path, capsys, edit, said):
    # a power row without its fields was an internal error (exit 70); a power of 1.5, an
    # alpha of 7 or an unjudged share of 7.5 were printed as changed values
    out = tmp_path / "o"
    asked = ["--power", "0.8", "--unjudged-bounds", "-o", str(out)]
    assert run(["compare", "-m", "P@5", *asked, QRELS, RUN, CHAR]) == 0
    err = _refused_edited(out / "BenchmarkReport.json", tmp_path / "b.json", edit, capsys)
    assert f"does not match the BenchmarkReport schema: benchmark_report: {said}" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("bad", ["qrels", "other kind"])
def test_bad_input_exits_2_in_one_line(reports, tmp_path, capsys, bad):
    a = reports("a")
    if bad == "qrels":
        other = QRELS
    else:
        other = tmp_path / "manifest.json"
        other.write_text(json.dumps({"type": "ExperimentManifest"}))
    assert run(["diff", a, str(other)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1


def test_a_run_named_with_a_line_break_stays_on_its_line(reports, tmp_path, capsys):
    # the value line printed the name's newline raw: one difference on two lines
    hostile = tmp_path / "tfidf\nword.run"
    shutil.copy(RUN, hostile)
    a, b = reports("a", runs=(str(hostile),)), reports("b", "-l", "2", runs=(str(hostile),))
    code, out = diff_reports(capsys, a, b)
    assert code == 1
    value = "value: tfidf%0Aword MAP@100 0.2329 -> 0.0000"
    assert any(line.startswith(value) for line in out.splitlines())


def test_a_run_path_with_a_line_break_stays_on_its_line(reports, tmp_path, capsys):
    # the cause and the input line printed the path's newline raw
    hostile = tmp_path / "tfidf\nword.run"
    shutil.copy(RUN, hostile)
    a = reports("a", runs=(str(hostile),))
    with hostile.open("a") as more:
        more.write("de-01\tQ0\tHP:none\t999\t-1\ttfidf-word\n")  # a document more
    b = reports("b", runs=(str(hostile),))
    code, out = diff_reports(capsys, a, b)
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(f"likely cause: a run file differs: {tmp_path}/tfidf%0Aword.run (")
    assert lines[1].startswith(f"input (run): {tmp_path}/tfidf%0Aword.run ")


def _edited(path: str, tmp_path, edit) -> str:
    """The report at ``path`` with its first run's per-topic values edited by ``edit``."""
    report = json.loads(open(path).read())
    edit(report["results"][0]["per_query"])
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(report))
    return str(edited)


def test_topics_that_move_under_an_unmoved_mean_are_a_difference(reports, tmp_path, capsys):
    # two topics swap their values: the mean stays, and diff said "the same" (exit 0)
    a = reports("a")

    def swap(per_query):
        low, high = sorted(per_query, key=lambda q: per_query[q]["nDCG@10"])[:: len(per_query) - 1]
        values = per_query[low]["nDCG@10"], per_query[high]["nDCG@10"]
        per_query[low]["nDCG@10"], per_query[high]["nDCG@10"] = values[::-1]

    code, out = diff_reports(capsys, a, _edited(a, tmp_path, swap))
    assert code == 1
    assert out.startswith("likely cause: the values differ with the same inputs")
    value = next(line for line in out.splitlines() if line.startswith("value: "))
    assert value.startswith("value: tfidf-word nDCG@10 ")
    mean = value.split()[3]
    assert value.split()[5] == mean  # the mean did not move
    assert value.count("+") == 1 and value.count(" -") == 2  # one up, one down (and the arrow)


def test_a_topic_only_one_report_holds_is_a_difference(reports, tmp_path, capsys):
    a = reports("a")
    dropped = next(iter(json.loads(open(a).read())["results"][0]["per_query"]))
    b = _edited(a, tmp_path, lambda per_query: per_query.pop(dropped))
    code, out = diff_reports(capsys, a, b)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "likely cause: the topics differ: tfidf-word has 1 only in a, 0 only in b"
    assert f"topics: tfidf-word only in a: {dropped}" in lines
    code, out = diff_reports(capsys, a, b, "--format", "json")
    document = json.loads(out)
    assert code == 1 and document["same"] is False
    assert document["topics"] == [{"run": "tfidf-word", "only_a": [dropped], "only_b": []}]


def test_a_topic_value_turned_null_is_counted_among_the_moved(reports, tmp_path, capsys):
    a = reports("a")

    def null_one(per_query):
        per_query[next(iter(per_query))]["MAP@100"] = None

    code, out = diff_reports(capsys, a, _edited(a, tmp_path, null_one), "--format", "json")
    document = json.loads(out)
    assert code == 1
    (change,) = [v for v in document["values"] if v["measure"] == "MAP@100"]
    assert change["moved"] == 1 and change["movers"][0]["change"] is None


def test_a_mean_one_report_lacks_is_a_difference(reports, tmp_path, capsys):
    # a mean of a measure both asked for, deleted from one report: it was skipped, and
    # diff said "the evaluations are the same" (exit 0)
    a = reports("a")
    report = json.loads(open(a).read())
    del report["results"][0]["aggregates"]["MAP@100"]
    b = tmp_path / "lacking.json"
    b.write_text(json.dumps(report))
    code, out = diff_reports(capsys, a, str(b))
    assert code == 1
    assert "value: tfidf-word MAP@100 0.2329 -> -" in out.splitlines()
    code, out = diff_reports(capsys, str(b), a, "--format", "json")
    (change,) = json.loads(out)["values"]
    assert (code, change["measure"], change["a"]) == (1, "MAP@100", None)


@pytest.mark.parametrize("part", ["aggregates", "per_query"])
def test_a_value_of_no_column_of_the_reports_measures_is_refused(reports, tmp_path, capsys, part):
    # an edited report's mean (or topic's value) of a measure it did not ask for was never
    # compared: diff said "the evaluations are the same" (exit 0)
    a = reports("a")
    report = json.loads(open(a).read())
    held = report["results"][0][part]
    (held if part == "aggregates" else next(iter(held.values())))["P@5"] = 0.5
    b = tmp_path / "stray.json"
    b.write_text(json.dumps(report))
    code = run(["diff", a, str(b)])
    said = capsys.readouterr().err
    assert code == 2
    assert (
        said == f"trecbench: {b}: results[0].{part}: 'P@5' is no column of the report's measures\n"
    )


def test_a_move_smaller_than_the_printed_digits_is_not_shown_as_zero(reports, tmp_path, capsys):
    # a value nudged across a rounding edge printed its move as -0.0000
    report = json.loads(open(reports("a")).read())
    per_query = report["results"][0]["per_query"]
    qid = next(iter(per_query))
    sides = []
    for name, value in (("below", 0.41234), ("above", 0.41236)):  # 0.4123 and 0.4124
        per_query[qid]["nDCG@10"] = value
        sides.append(tmp_path / f"{name}.json")
        sides[-1].write_text(json.dumps(report))
    code, out = diff_reports(capsys, *map(str, sides))
    assert code == 1
    moved = next(line for line in out.splitlines() if "nDCG@10" in line)
    assert moved.endswith(f"(moved most: {qid} +2.0e-05)")


@pytest.mark.parametrize("negative", [-0.0, -0.00004])
def test_zero_and_a_negative_zero_are_the_same_printed_value(reports, tmp_path, capsys, negative):
    # -0.0 printed -0.0000 against the other's 0.0000: "moved most: q 0.0000", exit 1
    report = json.loads(open(reports("a")).read())
    per_query = report["results"][0]["per_query"]
    qid = next(iter(per_query))
    sides = []
    for name, value in (("zero", 0.0), ("negative", negative)):
        per_query[qid]["nDCG@10"] = value
        sides.append(tmp_path / f"{name}.json")
        sides[-1].write_text(json.dumps(report))
    code, out = diff_reports(capsys, *map(str, sides))
    assert code == 0, out


def test_a_mean_of_negative_zero_is_printed_as_zero_beside_a_topic_that_moved(
    reports, tmp_path, capsys
):
    # the value line printed "0.0000 -> -0.0000": diff's text output formatted its own
    report = json.loads(open(reports("a")).read())
    result = report["results"][0]
    qid = next(iter(result["per_query"]))
    sides = []
    for name, mean, value in (("zero", 0.0, 0.41), ("negative", -0.0, 0.42)):
        result["aggregates"]["nDCG@10"] = mean
        result["per_query"][qid]["nDCG@10"] = value
        sides.append(tmp_path / f"{name}.json")
        sides[-1].write_text(json.dumps(report))
    code, out = diff_reports(capsys, *map(str, sides))
    moved = next(line for line in out.splitlines() if "nDCG@10" in line)
    assert code == 1 and " 0.0000 -> 0.0000 " in moved and "-0.0000" not in out


CHAR, PARENTS = (
    str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-char", "tfidf-word-parents")
)


def test_runs_are_paired_by_name_and_others_are_only_in_one(reports, capsys):
    # tfidf-word is in both: it was compared with tfidf-word-parents, tfidf-char with it
    a = reports("a", "-m", "map", runs=(CHAR, RUN))
    b = reports("b", "-m", "map", runs=(RUN, PARENTS))
    code, out = diff_reports(capsys, a, b)
    assert code == 1
    assert out.splitlines()[0] == (
        "likely cause: the runs differ: tfidf-char, tfidf-word vs tfidf-word, tfidf-word-parents"
    )
    assert "value:" not in out  # tfidf-word against itself: the same
    assert f"input (run): {CHAR} " in out and "-> none\n" in out


def test_the_order_of_the_runs_or_the_measures_is_no_difference(reports, capsys):
    a = reports("a", "-m", "map", "-m", "P.5", runs=(CHAR, RUN))
    b = reports("b", "-m", "P.5", "-m", "map", runs=(RUN, CHAR))
    assert diff_reports(capsys, a, b) == (0, "the evaluations are the same\n")


def test_a_renamed_run_pairs_with_its_file(reports, capsys):
    a = reports("a", "-m", "map", runs=(CHAR,))
    b = reports("b", "-m", "map", "--names", f"char={CHAR}", runs=(CHAR,))
    code, out = diff_reports(capsys, a, b)
    # was "the runs differ: tfidf-char vs char" (reviewer 704): the same file
    assert out.splitlines()[0] == (
        "likely cause: the runs are named otherwise (the same files): tfidf-char -> char"
    )
    assert code == 1 and "runs: tfidf-char -> char\n" in out
    assert "value:" not in out  # the same file, the same values
    # a run renamed beside one of another file: the runs differ
    c = reports("c", "-m", "map", "--names", f"char={CHAR}", runs=(CHAR, RUN))
    code, out = diff_reports(capsys, a, c)
    assert out.splitlines()[0] == "likely cause: the runs differ: tfidf-char vs char, tfidf-word"


def test_the_engine_alone_is_no_difference(reports, capsys):
    # the engine chooses who computes the values (the same by the differential tests),
    # not what: said as versions are; was "the options differ: engine", exit 1 (reviewer 704)
    a = reports("a", "-m", "map", "-m", "P.5", "--engine", "pytrec_eval")
    b = reports("b", "-m", "map", "-m", "P.5")
    code, out = diff_reports(capsys, a, b)
    assert (code, out) == (
        0, 'the evaluations are the same\nversion: engine "pytrec_eval" -> "auto"\n'
    )  # fmt: skip
    code, out = diff_reports(capsys, a, reports("c", "-m", "map", "-m", "P.5", "-l", "2"))
    assert code == 1 and out.splitlines()[0] == (
        "likely cause: the options differ: relevance_level 1 vs 2"
    )
    assert out.splitlines()[-1] == 'version: engine "pytrec_eval" -> "auto"'


def test_a_run_given_for_a_report_says_what_diff_takes(capsys):
    assert run(["diff", RUN, RUN]) == 2
    assert "not runs or qrels" in capsys.readouterr().err


def test_a_truncated_report_is_refused_at_its_line_and_column(reports, tmp_path, capsys):
    # it said "invalid JSON: Unterminated string starting at: diff compares two reports":
    # json's message ends in "at", as if the string started at "diff compares"
    text = open(reports("a")).read()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: text.index('"inputs"') + 4])
    line = text[: text.index('"inputs"')].count("\n") + 1
    column = len(text[: text.index('"inputs"')].rsplit("\n", 1)[-1]) + 1
    assert run(["diff", str(cut), str(cut)]) == 2
    assert capsys.readouterr().err == (
        f"trecbench: {cut}:{line}: invalid JSON: Unterminated string starting at column "
        f"{column}; diff compares two reports (JSON: score --report, benchmark's "
        "BenchmarkReport.json), not runs or qrels\n"
    )


def test_runs_of_other_names_and_files_are_never_compared(reports, capsys):
    # one run each, of other names and files: tfidf-char was compared with tfidf-word-parents
    code, out = diff_reports(
        capsys, reports("a", "-m", "map", runs=(CHAR,)), reports("b", "-m", "map")
    )
    assert code == 1 and "value:" not in out
    assert out.splitlines()[0] == "likely cause: the runs differ: tfidf-char vs tfidf-word"


@pytest.mark.parametrize(
    "args", [["README.md"], ["--bogus", "README.md", "README.md"], ["--format", "x", "a", "b"]]
)
def test_a_usage_error_exits_2_as_gnu_diffs_trouble(capsys, args):
    """diff's 1 means the reports differ: a usage error there would say they differ."""
    assert run(["diff", *args]) == 2
    assert capsys.readouterr().err.startswith("trecbench: diff: ")


def test_other_commands_keep_exit_1_for_a_usage_error():
    assert run(["similarity", "--bogus", "README.md"]) == 1


@pytest.fixture
def comparisons(tmp_path, capsys):
    """compare's reports (--format json) of the bundled demo's two runs, named by what
    was changed."""

    def comparison(name: str, *args: str) -> str:
        runs = [str(ROOT / "runs" / f"{stem}.run") for stem in ("tfidf-word", "tfidf-char")]
        assert run(["compare", QRELS, *runs, "-m", "P.5", "--format", "json", *args]) == 0
        path = tmp_path / f"{name}.json"
        path.write_text(capsys.readouterr().out)
        return str(path)

    return comparison


def test_another_target_power_is_an_option_and_its_values_differ(comparisons, capsys):
    # compare --power 0.8 vs 0.9: diff said "the evaluations are the same" (exit 0),
    # though the smallest detectable difference and the topics needed moved
    a, b = comparisons("a", "--power", "0.8"), comparisons("b", "--power", "0.9")
    code, out = diff_reports(capsys, a, b)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "likely cause: the options differ: power.target 0.8 vs 0.9"
    assert "power: tfidf-char P@5 topics_needed 48 -> 64" in lines
    assert any(line.startswith("power: tfidf-char P@5 mde 0.0328 -> ") for line in lines)
    code, out = diff_reports(capsys, a, b, "--format", "json")
    changed = {(c["section"], c["field"]): c for c in json.loads(out)["sections"]}
    needed = changed["power", "topics_needed"]
    assert (needed["run"], needed["a"], needed["b"]) == ("tfidf-char", 48, 64)


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        (["--unjudged-bounds"], "option: unjudged_bounds false -> true"),
        (["--power", "0.8"], "option: power.target null -> 0.8"),
    ],
)
def test_a_section_only_one_comparison_holds_is_its_option(comparisons, capsys, asked, said):
    code, out = diff_reports(capsys, comparisons("a"), comparisons("b", *asked))
    assert code == 1
    assert said in out.splitlines()


@pytest.mark.parametrize(
    ("where", "said"),
    [
        (("results", 0, "summary", 1, "tie_high"), "tie bounds: tfidf-char P@5 high "),
        (("unjudged_bounds", "rows", 1, "high"), "unjudged bounds: tfidf-char P@5 high "),
    ],
)
def test_a_bound_that_moved_alone_is_a_difference(comparisons, tmp_path, capsys, where, said):
    # the same options and means: a bound alone moved (another library's version, say)
    a = comparisons("a", "--unjudged-bounds")
    report = json.loads(open(a).read())
    row = report
    for step in where[:-1]:
        row = row[step]
    assert row["run"] == "tfidf-char"
    row[where[-1]] += 0.25
    b = tmp_path / "b.json"
    b.write_text(json.dumps(report))
    code, out = diff_reports(capsys, a, str(b))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "likely cause: the values differ with the same inputs, options and versions"
    assert any(line.startswith(said) for line in lines[1:]), out


@pytest.mark.parametrize("swapped", [False, True])
def test_a_bound_one_report_lacks_is_a_difference(reports, tmp_path, capsys, swapped):
    # a measure's tie bounds deleted from one report (both asked for them): the row was
    # skipped, and diff said "the evaluations are the same" (exit 0)
    a = reports("a", "--tie-bounds")
    report = json.loads(open(a).read())
    del report["results"][0]["tie_bounds"]["measures"]["MAP@100"]
    b = tmp_path / "lacking.json"
    b.write_text(json.dumps(report))
    sides = (str(b), a) if swapped else (a, str(b))
    code, out = diff_reports(capsys, *sides)
    assert code == 1
    high = ("null", "0.2329") if swapped else ("0.2329", "null")
    assert f"tie bounds: tfidf-word MAP@100 high {high[0]} -> {high[1]}" in out.splitlines()


@pytest.mark.parametrize("asked", [["--tie-bounds"], ["--unjudged-bounds"], []])
def test_what_an_older_report_does_not_record_is_no_difference(reports, tmp_path, capsys, asked):
    """Reviewer 201: a report of 916af7b (no bounds option, no -Z file among its inputs)
    against today's of the same command: diff blamed 'tie_bounds false vs true' and 'the
    z-scores file (-Z) differs: none vs z', exit 1. Not recorded there is no difference;
    recorded on both sides it still is."""
    z = tmp_path / "z"
    topics = sorted({line.split()[0] for line in open(QRELS) if line.strip()})
    z.write_text("".join(f"{q} map 0.3 0.2\n" for q in topics))
    new = reports("new", "-m", "map", "-Z", str(z), *asked)
    old = json.loads(open(new).read())
    for key in ("tie_bounds", "unjudged_bounds"):
        del old["options"][key]
    old["inputs"] = [item for item in old["inputs"] if item["kind"] != "zscores"]
    old.pop("unjudged_bounds", None)
    for result in old["results"]:
        result.pop("tie_bounds", None)
    (tmp_path / "old.json").write_text(json.dumps(old))
    assert diff_reports(capsys, str(tmp_path / "old.json"), new) == (
        0,
        "the evaluations are the same\n",
    )
    plain = reports("plain", "-m", "map", "-Z", str(z))
    if asked:
        code, out = diff_reports(capsys, plain, new)
        assert code == 1 and f"{asked[0][2:].replace('-', '_')} false vs true" in out


RTASK = ROOT / "data" / "hpo-rtask"


def test_routing_metrics_are_compared_with_their_settings(reports, tmp_path, capsys):
    # score --routing LOG --report: two reports whose intervals or gate counts differ were
    # "the same" (exit 0); the routing section is now compared, its settings as options
    rtask = {"qrels": str(RTASK / "hpo-rtask.qrels"), "runs": (str(RTASK / "lexical.run"),)}
    a = reports("a", "--routing", str(RTASK / "routing.jsonl"), **rtask)
    report = json.loads(open(a).read())
    report["routing"]["routing_accuracy"]["ci_high"] -= 0.05
    report["routing"]["gate"]["saved"] += 1
    moved = tmp_path / "moved.json"
    moved.write_text(json.dumps(report))
    code, out = diff_reports(capsys, a, str(moved))
    lines = out.splitlines()
    assert code == 1
    assert lines[0] == "likely cause: the values differ with the same inputs, options and versions"
    assert lines[1:] == [
        "routing: routing_accuracy ci_high 0.9333 -> 0.8833",
        "routing: gate saved 0 -> 1",
    ]
    code, out = diff_reports(capsys, a, str(moved), "--format", "json")
    changed = json.loads(out)["sections"][1]
    assert changed == {
        "section": "routing",
        "run": None,
        "measure": "gate",
        "field": "saved",
        "a": 0,
        "b": 1,
    }
    report["routing"]["settings"]["samples"] = 500
    moved.write_text(json.dumps(report))
    assert (
        "option: routing.samples 10000 -> 500"
        in diff_reports(capsys, a, str(moved))[1].splitlines()
    )
    code, out = diff_reports(capsys, reports("none", **rtask), a)
    assert code == 1 and "option: routing false -> true" in out.splitlines()


def test_benchmark_reports_compare_their_routing_metrics(tmp_path, capsys):
    out = tmp_path / "o"
    assert run(["benchmark", str(RTASK / "benchmark.toml"), "-o", str(out), "--quiet"]) == 0
    capsys.readouterr()
    a = out / "BenchmarkReport.json"
    report = json.loads(a.read_text())
    report["benchmark"]["routing"]["gate_efficiency"]["value"] += 1
    b = tmp_path / "b.json"
    b.write_text(json.dumps(report))
    code, text = diff_reports(capsys, str(a), str(b))
    assert code == 1 and "routing: gate_efficiency value 0.0000 -> 1.0000" in text.splitlines()
    shutil.rmtree(out)


def test_a_bound_turned_n_a_is_a_difference(reports, tmp_path, capsys):
    # a row's fields differ, not its values: bounds on one side, a reason on the other
    a = reports("a", "-m", "P.5", "--tie-bounds")
    report = json.loads(open(a).read())
    report["results"][0]["tie_bounds"]["measures"]["P@5"] = {"reason": "not bounded"}
    b = tmp_path / "b.json"
    b.write_text(json.dumps(report))
    code, out = diff_reports(capsys, a, str(b))
    assert code == 1
    assert 'tie bounds: tfidf-word P@5 reason null -> "not bounded"' in out.splitlines()
    assert "tie bounds: tfidf-word P@5 low 0.0571 -> null" in out.splitlines()


def test_each_runs_own_qrels_pair_through_the_run(tmp_path, capsys):
    """Reviewer 218: compare --run-qrels a.run qa.qrels --run-qrels b.run qb.qrels against
    the same runs given in the other order: diff paired the qrels by position and said
    "the qrels differ: qa.qrels vs qb.qrels" (exit 1), though no run's qrels or value
    differed. A run's qrels pair with its qrels in the other report."""
    files = {
        "a.run": "1 Q0 d1 1 2 a\n1 Q0 d9 2 1 a\n2 Q0 d2 1 1 a\n",
        "b.run": "1 Q0 d9 1 2 b\n1 Q0 d1 2 1 b\n2 Q0 d3 1 1 b\n",
        "qa.qrels": "1 0 d1 1\n2 0 d2 1\n",
        "qb.qrels": "1 0 d1 1\n2 0 d3 1\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)

    def comparison(name: str, *pairs: tuple[str, str]) -> str:
        given = [
            arg for pair in pairs for arg in ("--run-qrels", *(str(tmp_path / f) for f in pair))
        ]
        assert run(["compare", "-m", "map", *given, "--baseline", "a", "--format", "json"]) == 0
        (tmp_path / name).write_text(capsys.readouterr().out)
        return str(tmp_path / name)

    a = comparison("x.json", ("a.run", "qa.qrels"), ("b.run", "qb.qrels"))
    b = comparison("y.json", ("b.run", "qb.qrels"), ("a.run", "qa.qrels"))
    assert diff_reports(capsys, a, b) == (0, "the evaluations are the same\n")
    # each run scored with the other's qrels: the qrels of a run differ, both of them
    swapped = comparison("z.json", ("a.run", "qb.qrels"), ("b.run", "qa.qrels"))
    code, out = diff_reports(capsys, a, swapped)
    lines = out.splitlines()
    assert code == 1 and lines[0].startswith(f"likely cause: the qrels differ: {tmp_path}/qa.qrels")
    assert [line.split()[2] for line in lines if line.startswith("input (qrels)")] == [
        f"{tmp_path}/qa.qrels", f"{tmp_path}/qb.qrels",
    ]  # fmt: skip


def test_reports_of_a_file_name_that_is_not_utf8_are_read_back(reports, tmp_path, capsys):
    # score records such a name with its byte as a lone surrogate's escape (\udcff) and
    # diff refused its own report: "a.json:81: lone surrogate \udcff", exit 2
    import os

    named = os.path.join(os.fsencode(tmp_path), b"tfidf\xffword.run")
    shutil.copy(RUN, named)
    runs = (os.fsdecode(named),)
    a, b = reports("a", runs=runs), reports("b", "-l", "2", runs=runs)
    assert "\\udcff" in open(a, encoding="utf-8").read()
    assert diff_reports(capsys, a, a) == (0, "the evaluations are the same\n")
    code, out = diff_reports(capsys, a, b)
    assert code == 1 and "value: tfidf%25FFword MAP@100 0.2329 -> 0.0000" in out


def test_diff_json_of_a_file_name_that_is_not_utf8_is_utf8(reports, tmp_path):
    # the path's lone surrogate was written as its raw byte (\xff): JSON that is no UTF-8,
    # which json.load refused; it is written as the reports write it, its escape \udcff
    import os
    import subprocess
    import sys

    named = os.path.join(os.fsencode(tmp_path), b"tfidf\xffchar.run")
    shutil.copy(ROOT / "runs" / "tfidf-char.run", named)  # another input: its path said
    a, b = reports("a"), reports("b", runs=(os.fsdecode(named),))
    argv = [sys.executable, "-m", "trecbench", "diff", a, b, "--format", "json"]
    shown = subprocess.run(argv, capture_output=True, check=False)
    assert shown.returncode == 1, shown.stderr
    document = json.loads(shown.stdout.decode("utf-8"))
    assert os.fsdecode(named) in json.dumps(document, ensure_ascii=False)


def test_another_test_lists_the_comparisons_p_values(comparisons, capsys):
    # compare --test wilcoxon against the t-test: diff named the option alone, not the
    # p-values it moved, so a verdict that changed with them went unsaid
    a, b = comparisons("a"), comparisons("b", "--test", "wilcoxon")
    rows = [json.loads(open(path).read())["results"][0]["comparisons"][0] for path in (a, b)]
    assert rows[0]["run"] == "tfidf-char" and rows[0]["p_value"] != rows[1]["p_value"]
    code, out = diff_reports(capsys, a, b)
    assert code == 1
    said = f"comparisons: tfidf-char P@5 p_value {p_text(rows[0]['p_value'])} -> "
    assert f"{said}{p_text(rows[1]['p_value'])}" in out.splitlines()


@pytest.mark.parametrize(
    ("field", "x", "y", "said"),
    [
        ("significant", True, False, "significant true -> false"),
        ("p_value", 2.8e-17, 3.1e-10, "p_value 2.8e-17 -> 3.1e-10"),  # not 0.0000 -> 0.0000
        ("p_adjusted", 0.0123, 0.0123000001, None),  # the same printed: no difference
    ],
)
def test_a_comparisons_verdict_or_p_value_that_moved_is_a_difference(
    comparisons, tmp_path, capsys, field, x, y, said
):
    a = comparisons("a")
    reports = []
    for name, value in (("x", x), ("y", y)):
        report = json.loads(open(a).read())
        report["results"][0]["comparisons"][0][field] = value
        reports.append(tmp_path / f"{name}.json")
        reports[-1].write_text(json.dumps(report))
    code, out = diff_reports(capsys, *map(str, reports))
    if said is None:
        assert (code, out) == (0, "the evaluations are the same\n")
        return
    lines = out.splitlines()
    assert code == 1
    assert lines[0] == "likely cause: the values differ with the same inputs, options and versions"
    assert f"comparisons: tfidf-char P@5 {said}" in lines[1:]


def _whole_floats_as_integers(value):
    """``value`` (a report's JSON) with every whole float written as an integer, ``1.0``
    as ``1``: the same number, as JavaScript's JSON.stringify and Go's encoding/json write
    it when they save a report again."""
    if isinstance(value, dict):
        return {key: _whole_floats_as_integers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole_floats_as_integers(item) for item in value]
    return int(value) if isinstance(value, float) and value.is_integer() else value


@pytest.mark.parametrize("kind", ["score", "compare"])
def test_a_whole_number_written_without_its_decimals_is_no_difference(
    reports, comparisons, tmp_path, capsys, kind
):
    """Reviewer r75: a bound of 1.0 written as 1 (the same JSON number) was a difference,
    'unjudged bounds: tfidf-char P@5 high 1.0000 -> 1', exit 1."""
    made = {"score": reports, "compare": comparisons}[kind]
    a = made("a", "-m", "P.5", "--unjudged-bounds")
    report = json.loads(open(a).read())
    rewritten = _whole_floats_as_integers(report)
    # the rewrite touched a section's value, not only the means (which compared alike)
    assert '"high": 1,' in json.dumps(rewritten) and '"high": 1.0,' in json.dumps(report)
    b = tmp_path / "rewritten.json"
    b.write_text(json.dumps(rewritten))
    assert diff_reports(capsys, a, str(b)) == (0, "the evaluations are the same\n")
    # a value that did change prints alike on both sides: 1.0000 -> 0.7500, not 1 -> 0.7500
    b.write_text(json.dumps(rewritten))
    lowered = tmp_path / "lowered.json"
    lowered.write_text(json.dumps(report).replace('"high": 1.0,', '"high": 0.75,', 1))
    code, out = diff_reports(capsys, str(b), str(lowered))
    assert code == 1 and " high 1.0000 -> 0.7500" in out and " 1 -> " not in out


def test_topics_whose_changes_print_alike_are_listed_by_id(reports, tmp_path, capsys):
    # 0.3 -> 0.1 and 0.5 -> 0.3 both print -0.2000, but their doubles differ in the last
    # bits, which ordered the moved topics (and chose the fifth of six listed)
    a = reports("a")
    qids = sorted(json.loads(open(a).read())["results"][0]["per_query"])[:6]
    before = [0.3, 0.5, 0.3, 0.7, 0.5, 0.3]

    def values(after):
        def edit(per_query):
            for qid, value in zip(qids, after, strict=True):
                per_query[qid]["nDCG@10"] = value

        return edit

    old = _edited(a, tmp_path, values(before))
    (tmp_path / "old.json").write_text(open(old).read())
    new = _edited(a, tmp_path, values([round(x - 0.2, 1) for x in before]))
    code, out = diff_reports(capsys, str(tmp_path / "old.json"), new, "--format", "json")
    (change,) = [c for c in json.loads(out)["values"] if c["measure"] == "nDCG@10"]
    assert [mover["qid"] for mover in change["movers"]] == qids[:5]
    # moves below 0.00005 print with two significant digits: 5.0e-05 before 2.0e-05
    # (rounded to four decimals, both were 0.0000 and the larger one was left out); each
    # moves its printed value (0.30004 -> 0.30006: 0.3000 -> 0.3001)
    old = _edited(a, tmp_path, values([0.30004] * 5 + [0.30003]))
    (tmp_path / "old.json").write_text(open(old).read())
    new = _edited(a, tmp_path, values([0.30006] * 5 + [0.30008]))
    code, out = diff_reports(capsys, str(tmp_path / "old.json"), new, "--format", "json")
    (change,) = [c for c in json.loads(out)["values"] if c["measure"] == "nDCG@10"]
    assert [mover["qid"] for mover in change["movers"]] == [qids[5], *qids[:4]]
    # a change beyond a double (1e308 - -1e308) prints n/a: first, not an internal error
    old = _edited(a, tmp_path, values([-1e308] + [0.3] * 5))
    (tmp_path / "old.json").write_text(open(old).read())
    new = _edited(a, tmp_path, values([1e308] + [0.30004] * 4 + [0.30008]))
    code, out = diff_reports(capsys, str(tmp_path / "old.json"), new)
    assert code == 1 and f"(moved most: {qids[0]} n/a, {qids[5]} +0.0001" in out
