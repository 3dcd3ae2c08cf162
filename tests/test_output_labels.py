"""A name read from an input never reads as the output's own text: a topic ``all`` beside
``similarity -q``'s mean row, a group ``(macro)`` beside ``score --group-by``'s summary
rows, and a run named with ``--`` or quotes in LaTeX (where TeX joins them into a dash or
curly quotes)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from urllib.parse import unquote

import pytest

from trecbench.cli import run
from trecbench.renderers.comparison_text import latex_escape


def _lines(capsys, *args: str) -> list[str]:
    assert run(list(args)) == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("output_format", ["table", "markdown"])
@pytest.mark.parametrize("label", ["(macro)", "(micro)", "(spread)"])
def test_a_group_named_as_a_summary_row_is_told_apart(
    capsys, tmp_path, monkeypatch, output_format, label
):
    # the group's row and the summary's both read "(macro)", with other numbers
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d1 1\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 1 t\nq2 Q0 d2 1 1 t\n")
    queries = {"q1": {"g": label}, "q2": {"g": "x"}}
    (tmp_path / "s.json").write_text(json.dumps({"strata": {"fields": ["g"], "queries": queries}}))
    args = ["score", "-m", "P.1", "q", "a.run", "--strata", "s.json", "--group-by", "g"]
    lines = _lines(capsys, *args, "--format", output_format)
    cells = [
        re.split(r" \| | {2,}", line.strip("| ")) for line in lines if line.startswith(("a", "| a"))
    ]
    groups = {cell[1]: cell[3] for cell in cells if len(cell) == 4}
    escaped = "%28" + label[1:]
    assert groups[escaped] == "1.0000" and unquote(escaped) == label
    assert {"(macro)", "(micro)", "(spread)", "x"} <= set(groups)
    assert len(groups) == len([cell for cell in cells if len(cell) == 4])  # no label twice


def test_a_topic_named_all_is_told_apart_from_the_mean_row(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.run").write_text("all Q0 d1 1 2 a\nall Q0 d2 2 1 a\n")
    (tmp_path / "y.run").write_text("all Q0 d2 1 2 b\nall Q0 d1 2 1 b\nq1 Q0 d1 1 1 b\n")
    rows = [line.split() for line in _lines(capsys, "similarity", "-q", "x.run", "y.run")[1:]]
    assert [row[2] for row in rows] == ["%61ll", "q1", "all"]
    assert unquote(rows[0][2]) == "all" and rows[0][3] == "0.9000" and rows[2][3] == "0.4500"


# each joined by TeX into another glyph: an en dash, “, ”, ”, ¡, „ (T1)
LIGATURES = ["bm25--rm3", "x``y", "bob''s", 'say "hi"', "!`", "a,,b", "a---b", "it's"]
# each read by the \\ ending the row before as its own: \\* (the star gone), \\[length]
ROW_STARTS = ["*star", "[l](u)"]


@pytest.mark.parametrize("name", LIGATURES)
def test_latex_breaks_every_ligature_of_a_name(name):
    escaped = latex_escape(name)
    assert not re.search(r"--|``|''|!`|,,|\"", escaped.replace(r"{\ttfamily\char34}", ""))
    assert latex_escape("a-b") == "a-b"  # a lone hyphen stays as it is


@pytest.mark.parametrize("name", [*ROW_STARTS, " *x"])
def test_latex_ends_the_look_ahead_of_the_row_before(name):
    assert latex_escape(name) == "{}" + name
    assert latex_escape("a*[b]") == "a*[b]"  # only where a row starts


def test_compare_latex_prints_a_run_named_with_dashes_as_named(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d1 1\n")
    (tmp_path / "bm25--rm3.run").write_text("q1 Q0 d1 1 1 t\nq2 Q0 d1 1 1 t\n")
    (tmp_path / "b.run").write_text("q1 Q0 d2 1 1 t\nq2 Q0 d1 1 1 t\n")
    lines = _lines(
        capsys, "compare", "-m", "P.1", "q", "bm25--rm3.run", "b.run", "--format", "latex"
    )
    assert any(line.startswith("a & bm25-{}-rm3 & ") for line in lines)


@pytest.mark.parametrize(
    ("command", "args"),
    [("compare", ["qrels/hpo-demo.qrels", "runs/tfidf-char.run", "runs/tfidf-word.run",
                  "--power", "0.8", "--samples", "200"]),
     ("power", ["qrels/hpo-demo.qrels", "runs/tfidf-char.run", "runs/tfidf-word.run"]),
     ("agree", ["qrels/hpo-demo.qrels", "runs/tfidf-char.run", "runs/tfidf-word.run"]),
     ("leaderboard", ["data/leaderboard.toml", "--quiet"])],
)  # fmt: skip
def test_every_latex_output_names_the_package_its_rules_need(capsys, monkeypatch, command, args):
    """Power's, agree's and the leaderboard's tabulars used \\toprule unsaid: LaTeX stops
    at it, undefined, without booktabs (compare's said so)."""
    from conftest import ROOT

    monkeypatch.chdir(ROOT)
    lines = _lines(capsys, command, *args, "--format", "latex")
    first, *rest = lines
    assert first.startswith(f"% trecbench {command}: ")
    assert not any(line.startswith("% trecbench") for line in rest)  # compare's power: once
    assert first.endswith("; needs \\usepackage{booktabs}")


@pytest.mark.skipif(
    shutil.which("pdflatex") is None or shutil.which("pdftotext") is None,
    reason="needs pdflatex and pdftotext (.ci/run installs texlive-latex-base, poppler-utils)",
)
@pytest.mark.parametrize("encoding", ["OT1", "T1"])
def test_names_print_as_given_in_a_compiled_table(tmp_path, encoding):
    body = " \\\\\n".join(latex_escape(name) for name in LIGATURES + ROW_STARTS)
    source = (
        f"\\documentclass{{article}}\\usepackage[{encoding}]{{fontenc}}\\begin{{document}}"
        f"\\begin{{tabular}}{{l}}\n{body}\n\\end{{tabular}}\\end{{document}}\n"
    )
    (tmp_path / "t.tex").write_text(source)
    subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    text = subprocess.run(
        ["pdftotext", "-raw", "t.pdf", "-"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    # a lone ' prints as the apostrophe ’, as in the captions' prose
    names = LIGATURES + ROW_STARTS
    assert text.replace("\u2019", "'").splitlines()[: len(names)] == names
