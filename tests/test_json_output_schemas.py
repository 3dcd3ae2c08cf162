"""The JSON Schemas of the commands' ``--format json`` outputs (trecbench/schemas/): each
command run on varied inputs (the bundled demos, undefined figures, every option that
changes the JSON's shape) validates; a wrong type or a missing required key is refused."""

from __future__ import annotations

import copy
import json

import pytest
from click.testing import CliRunner
from conftest import ROOT

from trecbench.cli import cli
from trecbench.errors import OutputError
from trecbench.report import validate_against_schema

pytest.importorskip("jsonschema")

QRELS = str(ROOT / "qrels/hpo-demo.qrels")
RUNS = [
    str(ROOT / f"runs/{name}.run") for name in ("tfidf-word", "tfidf-char", "tfidf-word-parents")
]
RTASK = ROOT / "data/hpo-rtask"
RTASK_QRELS = str(RTASK / "hpo-rtask.qrels")
RTASK_RUNS = [str(RTASK / f"{name}.run") for name in ("lexical", "vector", "reranked")]


def _json(*argv: str) -> dict:
    """What ``trecbench argv --format json`` prints, parsed (exit 0 asserted)."""
    done = CliRunner().invoke(cli, [*argv, "--format", "json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


def _refused(document: dict, schema: str, change) -> None:
    """``change`` (on a copy of ``document``) makes it refused by ``schema``."""
    broken = copy.deepcopy(document)
    change(broken)
    with pytest.raises(OutputError, match=f"^{schema}: "):
        validate_against_schema(broken, schema)


OUTPUT_SCHEMAS = ["power"]


@pytest.mark.parametrize("name", OUTPUT_SCHEMAS)
def test_output_schemas_are_draft_2020_12_with_descriptions(name):
    import jsonschema

    from trecbench.json_schemas import load_schema

    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == f"urn:trecbench:schema:{name}"
    assert schema["description"] and schema["additionalProperties"] is False


# --- power ---------------------------------------------------------------------------------


def _one_topic(tmp_path) -> list[str]:
    """qrels of one topic and two runs: power's figures undefined (the t-test needs 2)."""
    qrels, base, new = tmp_path / "one.qrels", tmp_path / "base.run", tmp_path / "new.run"
    qrels.write_text("q1 0 d1 1\n")
    base.write_text("q1 Q0 d2 2 1 b\nq1 Q0 d1 1 2 b\n")
    new.write_text("q1 Q0 d1 1 2 n\n")
    return [str(qrels), str(base), str(new)]


@pytest.mark.parametrize(
    "argv",
    [
        ["power", QRELS, *RUNS, "-m", "nDCG@10", "-m", "MRR@10", "-m", "Recall@100"],
        ["power", QRELS, *RUNS[:2], "-m", "nDCG@10", "--alpha", "0.01", "--power", "0.9"],
        # the reranker's Recall@100 is BM25's on every topic (sd 0: nulls with a reason);
        # MaxOntSim adds the ontology's record
        ["power", RTASK_QRELS, *RTASK_RUNS, "-m", "Recall@100", "-m", "MaxOntSim@10"],
        ["power", RTASK_QRELS, *RTASK_RUNS[:2], "-l", "2", "-M", "5", "-J"],
    ],
)
def test_power_json_matches_its_schema(argv):
    document = _json(*argv)
    validate_against_schema(document, "power")
    assert document["rows"]


def test_power_json_with_undefined_figures_matches_its_schema(tmp_path):
    document = _json("power", *_one_topic(tmp_path), "-m", "nDCG@10")
    validate_against_schema(document, "power")
    (row,) = document["rows"]
    assert row["n_topics"] == 1 and row["sd"] is None and row["reason"]
    document = _json("power", RTASK_QRELS, RTASK_RUNS[0], RTASK_RUNS[2], "-m", "Recall@100")
    assert document["rows"][0]["effect_size"] is None
    validate_against_schema(document, "power")


def test_power_schema_refuses_a_wrong_type_or_a_missing_key():
    document = _json("power", QRELS, *RUNS[:2], "-m", "nDCG@10")
    _refused(document, "power", lambda d: d["rows"][0].update(n_topics="56"))
    _refused(document, "power", lambda d: d["rows"][0].pop("reason"))
    _refused(document, "power", lambda d: d["settings"].pop("alpha"))
    _refused(document, "power", lambda d: d.pop("inputs"))
    _refused(document, "power", lambda d: d.update(extra=1))
    _refused(document, "power", lambda d: d["evaluation"].update(complete="yes"))
