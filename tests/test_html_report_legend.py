"""The page's legend says how counts without a better direction are marked only where the
page shows one, by name: score --html's page leaves num_ret and num_rel out, and its legend
said they "get ↑/↓"."""

from __future__ import annotations

import html
import re

import pytest
from conftest import ROOT

from trecbench.cli import run

pytest.importorskip("bokeh")

QRELS = str(ROOT / "qrels" / "hpo-demo.qrels")
RUNS = [str(ROOT / "runs" / f"{name}.run") for name in ("tfidf-word", "tfidf-char")]
ENDING = "Higher is better unless a measure says lower is better"


def _legend(path) -> str:
    (legend,) = re.findall(r'<p class="legend">(.*?)</p>', path.read_text(encoding="utf-8"))
    return html.unescape(legend)


def test_score_s_page_has_no_count_and_its_legend_names_none(tmp_path):
    page = tmp_path / "s.html"
    args = ["score", "-m", "P.5", "-m", "num_ret", "-m", "num_rel", QRELS, *RUNS]
    assert run([*args, "--html", str(page), "--quiet"]) == 0
    legend = _legend(page)
    assert legend.endswith(f"{ENDING}.")
    assert "num_ret" not in legend and "num_rel" not in legend and "↑/↓" not in legend


def test_compare_s_page_names_the_count_it_shows(tmp_path, capsys):
    out = tmp_path / "out"
    args = ["compare", QRELS, *RUNS, "-m", "P@5", "-m", "num_ret", "-o", str(out)]
    assert run(args) == 0
    legend = _legend(out / "report.html")
    assert legend.endswith(
        f"{ENDING}; num_ret, without a better direction, gets ↑/↓ (significantly "
        "higher/lower) and no best run."
    )
    # the text report's legend is as it was: of any count
    assert "counts without a better direction (num_ret, num_rel) get ↑/↓" in " ".join(
        capsys.readouterr().out.split()
    )
