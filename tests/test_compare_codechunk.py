"""Comparing code-chunk's two chunkers, each with its own qrels, reproduces the published
summary: per chunker nDCG@5, P@5, R@5 as the mean of per-repo means, and the published
"improvement" of ast over fixed. The same comparison on one shared qrels is refused."""

from __future__ import annotations

import json

import pytest

import trecbench
from trecbench.convert.codechunk import convert_codechunk
from trecbench.convert.common import write_conversion
from trecbench.errors import UsageError

MEASURES = {"nDCG@5": "ndcg", "P@5": "precision", "Recall@5": "recall"}


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    from conftest import CODE_CHUNK

    if not CODE_CHUNK.exists():
        pytest.skip(f"{CODE_CHUNK} not available (../shared is absent in a user's clone)")
    (detailed,) = CODE_CHUNK.glob("detailed_*.json")
    (summary,) = CODE_CHUNK.glob("summary_*.json")
    out = tmp_path_factory.mktemp("codechunk")
    write_conversion(convert_codechunk(detailed), out, [detailed])
    return out, json.loads(summary.read_text())


def _compare(out, **options):
    return trecbench.compare(
        None,  # no shared qrels: each chunker has its own
        {"ast": out / "ast.run", "fixed": out / "fixed.run"},
        ["nDCG@5", "P@5", "R@5"],
        run_qrels={"ast": out / "codechunk-ast.qrels", "fixed": out / "codechunk-fixed.qrels"},
        baseline="fixed",
        group_by="qid-prefix",
        samples=200,
        **options,
    )


def test_per_run_qrels_reproduce_the_published_macro_means_and_improvements(converted):
    out, published = converted
    result = _compare(out)
    macro = result.part(result.summary, "qid-prefix:macro").set_index(["run", "measure"])
    for chunker in ("ast", "fixed"):
        for measure, key in MEASURES.items():
            expected = published["overall"][chunker][key]
            assert macro.loc[(chunker, measure), "mean"] == pytest.approx(expected, rel=1e-12)
    # the published improvement is ast's change relative to fixed, in percent
    changes = result.part(result.comparisons, "qid-prefix:macro").set_index("measure")
    for measure, key in MEASURES.items():
        expected = published["overall"]["improvement"][key]
        assert changes.loc[measure, "relative_change"] == pytest.approx(expected, rel=1e-9)
        difference = published["overall"]["ast"][key] - published["overall"]["fixed"][key]
        assert changes.loc[measure, "difference"] == pytest.approx(difference, rel=1e-9)
    # and per repo, as published
    for repo, values in published["perRepo"].items():
        part = result.part(result.summary, f"qid-prefix={repo}").set_index(["run", "measure"])
        for chunker in ("ast", "fixed"):
            for measure, key in MEASURES.items():
                assert part.loc[(chunker, measure), "mean"] == pytest.approx(
                    values[chunker][key], rel=1e-12
                )
    # topics are paired by qid: both qrels judge the same 373 tasks
    assert len(result.queries) == 373 and result.unpaired == {"ast": [], "fixed": []}
    assert result.run_qrels == {
        "ast": str(out / "codechunk-ast.qrels"),
        "fixed": str(out / "codechunk-fixed.qrels"),
    }
    assert result.warnings == []


def test_one_shared_qrels_is_refused_with_the_fraction_unjudged(converted):
    out, _ = converted
    with pytest.raises(UsageError) as refused:
        trecbench.compare(
            out / "codechunk-ast.qrels",
            {"ast": out / "ast.run", "fixed": out / "fixed.run"},
            ["nDCG@5", "P@5", "R@5"],
            samples=50,
        )
    message = str(refused.value)
    assert message.startswith(
        "fixed: 99.5% of the documents it retrieved within rank 5 are unjudged in "
        f"{out / 'codechunk-ast.qrels'} (1,855 of 1,865; none judged in 363 of 373 topics)"
    )
    assert "--allow-unjudged" in message and "\n" not in message


def test_cli_with_run_qrels_prints_the_macro_table(converted, monkeypatch):
    from click.testing import CliRunner

    from trecbench.cli import _register, cli

    out, _ = converted
    _register()
    monkeypatch.chdir(out)
    done = CliRunner().invoke(
        cli,
        ["compare", "--run-qrels", "ast.run", "codechunk-ast.qrels"]
        + ["--run-qrels", "fixed.run", "codechunk-fixed.qrels", "--baseline", "fixed"]
        + ["-m", "nDCG@5", "-m", "P@5", "-m", "R@5", "--group-by", "qid-prefix"]
        + ["--samples", "200", "--movers", "2"],
    )
    assert done.exit_code == 0, done.output
    text = done.stdout
    assert (
        "Qrels: each run its own — ast: codechunk-ast.qrels, fixed: codechunk-fixed.qrels" in text
    )
    macro = text[text.index("Macro over qid-prefix") :]
    rows = [line.split() for line in macro.splitlines()[2:8]]
    assert rows[0][:3] == ["nDCG@5", "ast", "0.7993"] and rows[1][:3] == [
        "fixed",
        "(base)",
        "0.8544",
    ]
    assert rows[0][8] == "-6.4%" and rows[2][8] == "+5.7%" and rows[4][8] == "-10.0%"
    assert "By qid-prefix" in text and "deepmind_tracr" in text
    # shared qrels: refused, exit 1, one line
    refused = CliRunner().invoke(cli, ["compare", "codechunk-ast.qrels", "ast.run", "fixed.run"])
    assert refused.exit_code == 1 and "99.5%" in str(refused.exception)


def test_the_conversion_sidecar_keeps_the_refusal_of_another_chunkers_qrels(converted):
    # its qrels are complete, for the ast chunker's documents: the sidecar pairs the
    # fixed run with its own qrels, so it does not vouch for ast's
    out, _ = converted
    (sidecar,) = out.glob("*.sidecar.json")
    with pytest.raises(UsageError, match="^fixed: 99.5% of the documents"):
        trecbench.compare(
            out / "codechunk-ast.qrels",
            {"ast": out / "ast.run", "fixed": out / "fixed.run"},
            ["nDCG@5"],
            samples=50,
            strata=sidecar,
        )
