"""The "Scored with" line says every setting of the evaluation record not at its default:
it said "-J -N 100" of ``score -N 100 -J -c`` (each flag had been listed by hand, and -c,
--engine and float32 were not), while docs/reports.md promises every flag."""

from __future__ import annotations

import json
import re

import pytest

from trecbench.cli import run
from trecbench.evaluation.settings import LOCAL_OPTIONS, EvalSettings
from trecbench.renderers.scoring_flags import flag_text

# each setting of the record, a value not its default, and how score takes it
CHANGED = {
    "relevance_level": (2, "-l 2"),
    "complete": (True, "-c"),
    "max_docs": (5, "-M 5"),
    "judged_only": (True, "-J"),
    "num_docs": (100, "-N 100"),
    "float32": (False, "float32=False"),  # the API's alone: its keyword
    "engine": ("fast", "--engine fast"),
    "compat": ("10.0", "--compat 10.0"),  # float32 then recorded false: its default there
    "rel_format": ("prefs", "-R prefs"),
    "zscores": ("z.txt", "-Z z.txt"),
    "debug_level": (1, "-D 1"),
    "debug_query": ("q1", "-D 0.q1"),
    "maxontsim_formula": ("simple", "--maxontsim-formula simple"),
    "ontology": ("hp.obo", "--ontology hp.obo"),
}


def _record(**changed) -> dict:
    """The evaluation record every report and page writes (EvalSettings.record: the flags
    and the local options), of ``EvalSettings(**changed)``."""
    local = {key: changed.pop(key) for key in LOCAL_OPTIONS if key in changed}
    return EvalSettings(**changed, options=local).record()


def test_every_setting_of_the_records_is_tested():
    assert set(_record()) == set(CHANGED)
    assert flag_text(_record()) == ""


@pytest.mark.parametrize("key", list(CHANGED))
def test_each_setting_off_its_default_is_said_as_its_flag(key):
    value, said = CHANGED[key]
    assert flag_text(_record(**{key: value})) == said


def test_settings_are_said_in_the_records_order_and_an_unknown_one_as_its_key():
    record = _record(complete=True, judged_only=True, num_docs=100, relevance_level=3)
    assert flag_text(record) == "-l 3 -c -J -N 100"
    assert flag_text({"debug_level": 2, "debug_query": "q7"}) == "-D 2.q7"
    assert flag_text({"debug_query": "q7"}) == "-D 0.q7"
    # a topic's id as a shell word: the line pastes as a command
    assert flag_text({"debug_level": 1, "debug_query": "q 1;x"}) == "-D '1.q 1;x'"
    assert flag_text({"debug_query": "</script>"}) == "-D '0.</script>'"
    assert flag_text({"later_setting": 4}) == "later_setting=4"


def test_n_0_is_not_said():
    """-N 0 is -N's default (trec_eval's: no collection size): "Scored with -N 0" said a
    setting that is the same as not giving it."""
    assert flag_text(_record(num_docs=0)) == ""
    assert flag_text(_record(num_docs=0, judged_only=True)) == "-J"


def test_score_html_says_c(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\n")
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\n")
    page = tmp_path / "n.html"
    args = ["score", "-N", "100", "-J", "-c", "-m", "utility", "-m", "map"]
    folder = str(tmp_path)
    assert run([*args, f"{folder}/qrels", f"{folder}/r.run", "--html", str(page), "--quiet"]) == 0
    said = re.findall(r"<li>Scored as trecbench score ([^<]*) scores</li>", page.read_text())
    assert said == ["-c -J -N 100"]


def test_compare_says_the_c_of_its_missing_zero(tmp_path, capsys):
    """compare's default --missing zero counts a topic a run has no results for as 0, as
    score -c does, but its line said "Scored with -l 2": score -l 2 gave another MAP.
    --missing drop keeps the topics every run holds, which no -c says. The MAPs by hand:
    the qrels' t1 and t2 with one relevant document each (grade 2), b ranking it first on
    t1 and lacking t2: 1 over two topics, 0.5 (score -c; trec_eval 9.0.8 -l 2 -c: 0.5000),
    1 over one (score, and --missing drop's t1 alone)."""
    (tmp_path / "qrels").write_text("t1 0 d1 2\nt2 0 d1 2\n")
    (tmp_path / "a.run").write_text("t1 Q0 d1 1 2 a\nt2 Q0 d1 1 2 a\n")
    (tmp_path / "b.run").write_text("t1 Q0 d1 1 2 b\n")
    files = [str(tmp_path / name) for name in ("qrels", "a.run", "b.run")]
    for missing, said, mean in (("zero", "-l 2 -c", 0.5), ("drop", "-l 2", 1.0)):
        out = tmp_path / missing
        args = ["compare", *files, "-m", "map", "-l", "2", "--missing", missing]
        assert run([*args, "--quiet", "-o", str(out)]) == 0
        text = (out / "BenchmarkComparison.md").read_text()
        assert f"- Scored as trecbench score {said} scores\n" in text
        page = (out / "report.html").read_text()
        assert f"<li>Scored as trecbench score {said} scores</li>" in page
        summary = json.loads((out / "BenchmarkReport.json").read_text())["results"][0]["summary"]
        assert [row["mean"] for row in summary if row["run"] == "b"] == [mean]
    capsys.readouterr()
    for flags, mean in ((["-c"], "0.5000"), ([], "1.0000")):
        assert run(["score", "-l", "2", *flags, "-m", "map", files[0], files[2]]) == 0
        assert capsys.readouterr().out.split() == ["map", "all", mean]


def test_paths_are_shell_quoted_and_isolated_by_markup(tmp_path, monkeypatch):
    """-Z "my z ر.txt" was said as "-Z ⁨my z ر.txt⁩" on the page (and "-Z my z ر.txt" in
    the Markdown): three words pasted, and the page's isolates inside the path. It is one
    shell word now, the page isolating it by <bdi> around the quoted word."""
    import shlex

    from trecbench import evaluate
    from trecbench.comparison import from_evaluation

    monkeypatch.chdir(tmp_path)
    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d1 1\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2 a\nq2 Q0 d2 1 2 a\n")
    name = "my z \u0631.txt"
    (tmp_path / name).write_text("q1 P_1 0.5 0.1\nq2 P_1 0.5 0.1\n")
    comparison = from_evaluation(evaluate("q", "a.run", ["P.1"], zscores=name))
    said = re.findall(r"Scored as trecbench score (.*) scores", comparison.markdown())
    assert said == ["-Z 'my z \u0631.txt'"] and shlex.split(said[0]) == ["-Z", name]
    page = tmp_path / "p.html"
    assert run(["score", "-Z", name, "-m", "P.1", "q", "a.run", "--html", str(page)]) == 0
    said = re.findall(r"<li>Scored as trecbench score (.*) scores</li>", page.read_text())
    assert said == ["-Z <bdi>&#39;my z \u0631.txt&#39;</bdi>"]


def test_float32_asked_of_10_0_is_refused_not_dropped():
    # evaluate(..., compat="10.0", float32=True) compared doubles and recorded
    # float32: false, nothing said; the default is the version's own way
    from trecbench.errors import UsageError

    with pytest.raises(UsageError) as refused:
        EvalSettings(compat="10.0", float32=True)
    assert str(refused.value) == (
        "float32=True compares scores as trec_eval 9.x holds them (C floats); "
        "compat='10.0' holds doubles: give float32 with 9.x alone"
    )
    assert EvalSettings(compat="10.0").float32 is EvalSettings(compat="10.0", float32=False).float32
    assert EvalSettings(compat="10.0").float32 is False and EvalSettings().float32 is True
    # None is taken (the version's own way): the refusal said "True or False"
    for value in ("yes", 1):
        with pytest.raises(UsageError) as refused:
            EvalSettings(float32=value)
        assert str(refused.value) == (
            f"float32 must be True, False or None (as the version holds scores), not {value!r}"
        )


@pytest.mark.parametrize("level", ["0", "-1"])
def test_a_level_below_1_is_refused_as_help_says(level, capsys, tmp_path):
    """Reviewer 675: --help promised trec_eval's -l with no word of its bound, and the
    refusal said pytrec_eval refuses every level below 1, which it reads -1 as: map and
    P_2 0.0 where trec_eval 9.0.8's -l -1 gives 1.0."""
    qrels, run_file = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run_file.write_text("1 Q0 a 1 1 t\n1 Q0 b 2 0.5 t\n")
    assert run(["score", "-l", level, "-m", "map", str(qrels), str(run_file)]) == 1
    assert capsys.readouterr().err == (
        f"trecbench: -l {level}: levels below 1 are not supported (pytrec_eval, which computes "
        "trec_eval's measures, refuses 0 and reads a negative level as no document relevant)\n"
    )
    assert run(["score", "--help"]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "default 1; 1 or more: trec_eval's 0 and below are refused;" in said
