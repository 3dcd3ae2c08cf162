"""Whether scores compare as float32 (trec_eval 9.x's C float) is decided in one place,
trecbench.score_precision.compares_float32: the scoring, fusion and the report's
drill-down rank a run alike under every trec_eval version and setting."""

from __future__ import annotations

import ast

import pytest
from conftest import ROOT

from trecbench.evaluation import evaluate
from trecbench.fusion import ranked_table
from trecbench.html_report import documents
from trecbench.score_precision import compares_float32
from trecbench.trec_eval import compat


def _rule_statements(path) -> list[int]:
    """The lines of ``path`` where a ``float32`` flag is and-ed with another (a setting
    with a version's: the rule itself)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            named = [
                value for value in node.values
                if isinstance(value, ast.Attribute) and value.attr == "float32"
            ]  # fmt: skip
            if named:
                lines.append(node.lineno)
    return lines


def test_the_float32_rule_is_stated_once():
    """It was written in html_report/documents.py, evaluation/scoring.py and fusion.py."""
    found = {
        path.relative_to(ROOT).as_posix(): lines
        for path in sorted((ROOT / "trecbench").rglob("*.py"))
        if (lines := _rule_statements(path))
    }
    assert list(found) == ["trecbench/score_precision.py"]


@pytest.mark.parametrize(
    ("version", "asked", "compared"),
    [("9.0.8", True, True), ("9.0.8", False, False), ("10.0", True, False), ("10.0", False, False)],
)
def test_scores_compare_as_float32_only_where_the_version_holds_them_so_and_asked(
    version, asked, compared
):
    assert compares_float32(compat.get(version), asked) is compared


# each with whether scores compare as float32 under it
OPTIONS = [
    ({}, True), ({"float32": False}, False),
    ({"compat": "10.0"}, False), ({"compat": "10.0", "float32": False}, False),
]  # fmt: skip
# float32=True asked of 10.0 is refused by the evaluation (tests/test_scoring_flags.py)


@pytest.mark.parametrize(("options", "float32"), OPTIONS, ids=repr)
def test_scoring_fusion_and_the_drill_down_rank_a_run_alike(tmp_path, options, float32):
    # 0.3 and 0.30000001 are one float32 (docno decides, descending), two doubles
    (tmp_path / "q").write_text("t1 0 d1 1\n")
    lines = ["t1 Q0 d1 1 1.0 r", "t1 Q0 d2 2 0.30000001 r", "t1 Q0 d3 3 0.3 r"]
    (tmp_path / "t.run").write_text("\n".join(lines) + "\n")
    qrels, run = str(tmp_path / "q"), str(tmp_path / "t.run")
    scored = evaluate(qrels, [run], ["P.5"], drill_depth=3, **options).runs[0]
    kept = scored.drill_down.documents.column("docno").to_pylist()
    fused = ranked_table(run, **options).column("docno").to_pylist()
    table = documents.judgments({"r": qrels}, {}, options)
    shown = documents.drill_down({"r": run}, {}, table, 3, options)[0]["t1"]["r"]
    expected = ["d1", "d3", "d2"] if float32 else ["d1", "d2", "d3"]
    assert kept == fused == [row[0] for row in shown] == expected
    assert [row[3:] for row in shown] == ([[], [1], []] if float32 else [[], [], []])
