"""What a conversion's sidecar records of how it was made, as the reports do: the options
in effect, and the size and sha256 of every qrels and run file it writes, taken from the
bytes as they are written; no machine's environment (the same bytes everywhere)."""

from __future__ import annotations

import hashlib
import json

from conftest import ROOT

import trecbench
from trecbench import provenance
from trecbench.cli import run
from trecbench.convert.sidecar import listed_files
from trecbench.strata import load_strata

CASES = ROOT / "data" / "hpo-demo" / "cases.json"
RESULTS = [
    ROOT / "data" / "hpo-demo" / "results" / name / "terms.jsonl"
    for name in ("tfidf-char", "tfidf-word")
]


def _convert(out, **options) -> dict:
    """The sidecar of the demo cases and two result files converted into ``out``."""
    conversion = trecbench.convert_hpo(CASES, RESULTS, check_ids=False, **options)
    paths = trecbench.write_conversion(conversion, out, inputs=[CASES, *RESULTS])
    return json.loads(paths["sidecar"].read_bytes())


def _on_disk(sidecar_path, record: dict) -> dict:
    data = (sidecar_path.parent / record["path"]).read_bytes()
    return {**record, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def test_outputs_record_size_and_sha256_of_every_file_written(tmp_path):
    out = tmp_path / "o"
    conversion = trecbench.convert_hpo(CASES, RESULTS, check_ids=False)
    paths = trecbench.write_conversion(
        conversion, out, inputs=[CASES, *RESULTS], runs_dir=tmp_path / "runs"
    )
    sidecar = paths["sidecar"]
    outputs = json.loads(sidecar.read_bytes())["provenance"]["outputs"]
    assert [(o["path"], o["kind"]) for o in outputs] == [
        ("cases.qrels", "qrels"),
        ("../runs/tfidf-char.run", "run"),
        ("../runs/tfidf-word.run", "run"),
    ]
    assert outputs == [_on_disk(sidecar, o) for o in outputs]


def test_outputs_checksum_a_run_with_its_ir_metadata_block(tmp_path, capsys):
    about = tmp_path / "about.yaml"
    about.write_text("actor:\n  team: rev\n")
    out = tmp_path / "cv"
    argv = ["convert", "--ir-metadata", str(about), "hpo", str(CASES), "--no-id-check"]
    assert run([*argv, "--results", str(RESULTS[0]), "-o", str(out)]) == 0
    sidecar = out / "cases.sidecar.json"
    outputs = json.loads(sidecar.read_bytes())["provenance"]["outputs"]
    assert (out / "tfidf-char.run").read_bytes().startswith(b"#")  # the block is counted
    assert len(outputs) == 2 and outputs == [_on_disk(sidecar, o) for o in outputs]


def test_outputs_are_checksummed_where_inputs_are_not(tmp_path):
    # readers may count without hashing (score without --report); a written file's
    # record always has its sha256
    with provenance.taking_checksums(False):
        outputs = _convert(tmp_path / "o")["provenance"]["outputs"]
    assert all(len(o["sha256"]) == 64 for o in outputs)
    digest = provenance.Digest(checksum=True)
    with provenance.taking_checksums(False):
        digest.update(b"abc")
    assert digest.sha256 == hashlib.sha256(b"abc").hexdigest()


def test_the_sidecar_names_no_machine(tmp_path):
    # the same bytes on every machine: a committed sidecar (the demo's) stays as committed
    provenance_record = _convert(tmp_path / "o")["provenance"]
    assert "environment" not in provenance_record and "platform" not in json.dumps(
        provenance_record
    )


def test_options_are_those_in_effect(tmp_path):
    options = _convert(tmp_path / "o")["provenance"]["options"]
    # detected formats by run tag, the default grading by name
    assert options["results_format"] == {"tfidf-char": "terms", "tfidf-word": "terms"}
    assert options["graded"] == "binary" and options["grades"] is None
    assert options["depth"] is None


def test_options_name_a_format_given(tmp_path):
    conversion = trecbench.convert_hpo(
        CASES, RESULTS[:1], check_ids=False, results_format="terms", depth=3
    )
    options = conversion.provenance["options"]
    assert options["results_format"] == {"tfidf-char": "terms"} and options["depth"] == 3


def test_two_identical_conversions_write_identical_sidecars(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    _convert(first)
    _convert(second)
    name = "cases.sidecar.json"
    assert (first / name).read_bytes() == (second / name).read_bytes()


def test_a_version_2_sidecar_is_read_as_before(tmp_path):
    out = tmp_path / "o"
    sidecar = _convert(out)
    strata = load_strata(out / "cases.sidecar.json")
    older = dict(sidecar, version=2)
    provenance_before = dict(sidecar["provenance"])
    del provenance_before["outputs"]
    older["provenance"] = provenance_before
    path = out / "old.sidecar.json"
    path.write_text(json.dumps(older))
    assert load_strata(path).equals(strata)
    assert sorted(listed_files(path)) == sorted(
        out / name for name in ("cases.qrels", "tfidf-char.run", "tfidf-word.run")
    )
