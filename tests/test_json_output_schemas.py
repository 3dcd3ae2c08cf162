"""The JSON Schemas of the commands' ``--format json`` outputs (trecbench/schemas/): each
command run on varied inputs (the bundled demos, undefined figures, every option that
changes the JSON's shape) validates; a wrong type or a missing required key is refused."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, write_tenths

from trecbench import statistical_tests
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


OUTPUT_SCHEMAS = ["power", "agree", "similarity", "pool", "leaderboard", "diff", "sidecar"]


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


# --- agree ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["agree", QRELS, *RUNS, "-m", "nDCG@10", "-m", "MRR@10", "-m", "Recall@100"],
        # --qrels-b adds the judgments' kappas (one null, with its reason) and orderings;
        # a resampling test records its samples and seed
        ["agree", RTASK_QRELS, *RTASK_RUNS, "-m", "nDCG@10", "-m", "Recall@100",
         "--qrels-b", QRELS, "--test", "randomization", "--seed", "1"],
        # family-wise: correction none; too few resamples for Holm: no share, a reason
        ["agree", QRELS, *RUNS, "-m", "nDCG@10", "--test", "tukey", "--samples", "100"],
        ["agree", QRELS, *RUNS, "-m", "P@10", "--test", "randomization", "--samples", "20"],
        # two runs tied on Recall@100 everywhere: tau undefined; MaxOntSim: the ontology
        ["agree", RTASK_QRELS, RTASK_RUNS[0], RTASK_RUNS[2], "-m", "Recall@100",
         "-m", "MaxOntSim@10", "--test", "wilcoxon", "--correction", "bh"],
    ],
)  # fmt: skip
def test_agree_json_matches_its_schema(argv):
    document = _json(*argv)
    validate_against_schema(document, "agree")
    assert document["discriminative_power"]


def test_agree_json_with_pairs_without_a_p_value_matches_its_schema(tmp_path):
    counts = {"r0": [2, 1, 3, 2, 1, 3], "r1": [5, 4, 6, 5, 4, 6], "r2": [3, 2, 4, 3, 2, 4]}
    write_tenths(tmp_path, counts)
    runs = [str(tmp_path / f"{run}.run") for run in counts]
    document = _json("agree", str(tmp_path / "q.qrels"), *runs, "-m", "P@10", "-m", "P@5")
    validate_against_schema(document, "agree")
    assert document["discriminative_power"][0]["undefined_pairs"] == 3


def test_agree_schema_takes_the_tests_and_corrections_of_the_registry():
    from trecbench.json_schemas import load_schema

    settings = load_schema("agree")["properties"]["settings"]["properties"]
    assert settings["test"]["enum"] == list(statistical_tests.NAMES)
    assert settings["correction"]["enum"] == list(statistical_tests.CORRECTION_CHOICES)


def test_agree_schema_refuses_a_wrong_type_or_a_missing_key():
    argv = ["agree", RTASK_QRELS, *RTASK_RUNS, "-m", "nDCG@10", "--qrels-b", QRELS]
    document = _json(*argv)
    validate_against_schema(document, "agree")
    _refused(document, "agree", lambda d: d["settings"].update(test="anova"))
    _refused(document, "agree", lambda d: d["judgments"].pop("weighted_kappa"))
    _refused(document, "agree", lambda d: d["judgments"].update(both=-1))
    _refused(document, "agree", lambda d: d["means"][0].update(mean="0.2"))
    _refused(document, "agree", lambda d: d["qrels_orderings"][0].pop("tau_ap"))
    _refused(document, "agree", lambda d: d["discriminative_power"][0].update(pairs=None))
    _refused(document, "agree", lambda d: d.pop("judgments"))


# --- similarity ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        [],
        ["--rbo-p", "0.98", "--overlap-k", "5"],
        ["--depth", "3"],
        ["-q", "--names", f"first stage={RTASK_RUNS[0]}"],
    ],
)
def test_similarity_json_matches_its_schema(options):
    document = _json("similarity", *RTASK_RUNS, *options)
    validate_against_schema(document, "similarity")
    assert len(document["pairs"]) == 3 and document["pairs"][0]["topics"]


def test_similarity_json_of_runs_without_a_topic_in_common_matches_its_schema(tmp_path):
    # a and b share no topic (every figure null, with the reason); c shares one with each:
    # a topic only one run holds counts with RBO 0, and tau is undefined on one document
    for name, lines in {"a": ["q1"], "b": ["q2"], "c": ["q1", "q2"]}.items():
        (tmp_path / f"{name}.run").write_text("".join(f"{q} Q0 d1 1 2 {name}\n" for q in lines))
    runs = [str(tmp_path / f"{name}.run") for name in "abc"]
    document = _json("similarity", *runs)
    validate_against_schema(document, "similarity")
    undefined, defined, _ = document["pairs"]
    assert undefined["undefined"] and set(undefined["mean"].values()) == {None}
    assert defined["undefined"] is None and defined["mean"]["kendall_tau"] is None


def test_similarity_schema_names_the_statistics_of_the_code():
    from trecbench.json_schemas import load_schema
    from trecbench.runstudy.similarity import STATISTICS

    pair = load_schema("similarity")["properties"]["pairs"]["items"]["properties"]
    assert pair["mean"]["required"] == list(STATISTICS)
    topic = pair["topics"]["items"]["required"]
    assert topic == ["qid", *STATISTICS, "n_a", "n_b", "shared"]


def test_similarity_schema_refuses_a_wrong_type_or_a_missing_key():
    document = _json("similarity", *RUNS[:2])
    _refused(document, "similarity", lambda d: d["pairs"][0]["mean"].update(rbo_ext=1.5))
    _refused(document, "similarity", lambda d: d["pairs"][0]["topics"][0].pop("shared"))
    _refused(document, "similarity", lambda d: d["pairs"][0]["topics"][0].update(qid=1))
    _refused(document, "similarity", lambda d: d["settings"].update(depth=0))
    _refused(document, "similarity", lambda d: d["pairs"][0].pop("undefined"))
    _refused(document, "similarity", lambda d: d.update(pairs=[]))


# --- pool ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        [*RUNS, "--depth", "10"],
        [RUNS[0]],  # a single run: every document unique
        [*RUNS, "--depth", "10", "--qrels", QRELS, "-l", "2"],  # judged and relevant_only
        [*RTASK_RUNS, "--qrels", RTASK_QRELS, "--unjudged-grade", "-1"],
        [*RUNS[:2], "--depth", "1000", "--qrels", QRELS, "--names", f"word={RUNS[0]}"],
    ],
)
def test_pool_json_matches_its_schema(options, tmp_path):
    document = _json("pool", *options, "-o", str(tmp_path / "pool.txt"))
    validate_against_schema(document, "pool")
    assert document["documents"] == len((tmp_path / "pool.txt").read_text().splitlines())
    assert ("judged" in document["runs"][0]) == ("--qrels" in options)


def test_pool_schema_refuses_a_wrong_type_or_a_missing_key(tmp_path):
    bare = _json("pool", *RUNS, "--depth", "5", "-o", str(tmp_path / "a.txt"))
    judged = _json("pool", *RUNS, "--qrels", QRELS, "-o", str(tmp_path / "b.txt"))
    _refused(bare, "pool", lambda d: d["runs"][0].update(pooled=-1))
    _refused(bare, "pool", lambda d: d["runs"][0].update(judged=3))  # without relevant_only
    _refused(bare, "pool", lambda d: d["settings"].update(qrels="q.qrels"))  # rows unjudged
    _refused(bare, "pool", lambda d: d["settings"].pop("unjudged_grade"))
    _refused(bare, "pool", lambda d: d.update(topics="56"))
    _refused(judged, "pool", lambda d: d["runs"][1].pop("relevant_only"))
    _refused(
        judged,
        "pool",
        lambda d: [row.pop(k) for row in d["runs"] for k in ("judged", "relevant_only")],
    )


# --- leaderboard ---------------------------------------------------------------------------

SUITE = """measures = ["P@5", "num_ret", "num_nonrel_judged_ret"]
systems = ["a", "b"]
[collections.one]
qrels = "q.qrels"
runs = "{system}.run"
[collections.two]
qrels = "q3.qrels"
runs = { a = "x3.run", b = "y3.run" }
"""


def _suite(folder) -> str:
    """A suite whose systems lack topics (warnings), whose tests have too few pairs or
    differences that do not vary (p null), with a count that ranks no one (num_ret: ranks
    null) and a lower-is-better measure; and its one-system twin (no test at all)."""
    files = {
        "q.qrels": "q1 0 d1 1\nq2 0 d1 1\n",
        "q3.qrels": "q3 0 d1 1\n",
        "a.run": "q1 Q0 d1 1 2 a\n",
        "b.run": "q2 Q0 d1 1 2 b\n",
        "x3.run": "q3 Q0 d1 1 2 x\n",
        "y3.run": "q3 Q0 d2 1 2 y\nq3 Q0 d1 2 1 y\n",
        "suite.toml": SUITE,
        "one.toml": SUITE.replace('["a", "b"]', '["a"]').split("[collections.two]")[0],
    }
    for name, text in files.items():
        (folder / name).write_text(text)
    return str(folder / "suite.toml")


def test_leaderboard_json_matches_its_schema(tmp_path):
    document = _json("leaderboard", str(ROOT / "data/leaderboard.toml"))
    validate_against_schema(document, "leaderboard")
    assert document["collections"][0]["where"] == {"language": "de"}
    document = _json("leaderboard", _suite(tmp_path))
    validate_against_schema(document, "leaderboard")
    assert document["warnings"] and document["collections"][0]["where"] is None
    count = document["measures"][1]
    assert count["better"] is None and count["systems"][0]["mean_rank"] is None
    assert document["measures"][0]["systems"][1]["over_topics"]["p"] is None
    document = _json("leaderboard", str(tmp_path / "one.toml"))
    validate_against_schema(document, "leaderboard")
    assert document["measures"][0]["systems"][0]["over_collections"] is None


def test_leaderboard_schema_refuses_a_wrong_type_or_a_missing_key(tmp_path):
    document = _json("leaderboard", _suite(tmp_path))
    row = ("measures", 0, "systems", 1)

    def at(d, keys=row):
        for key in keys:
            d = d[key]
        return d

    _refused(document, "leaderboard", lambda d: at(d)["over_topics"].pop("reason"))
    _refused(document, "leaderboard", lambda d: at(d)["over_collections"].update(n="2"))
    _refused(document, "leaderboard", lambda d: at(d).update(mean_rank=0))
    _refused(document, "leaderboard", lambda d: at(d)["means"].update(one=None))
    _refused(document, "leaderboard", lambda d: d["measures"][0].update(better="up"))
    _refused(document, "leaderboard", lambda d: d["settings"].update(seed=1))
    _refused(document, "leaderboard", lambda d: d.pop("created"))
    _refused(document, "leaderboard", lambda d: d["collections"][0].pop("where"))


def test_leaderboard_schema_takes_the_directions_of_the_registry():
    from trecbench.json_schemas import load_schema
    from trecbench.measures.registry import HIGHER, LOWER

    board = load_schema("leaderboard")["properties"]["measures"]["items"]["properties"]
    assert board["better"]["enum"] == [HIGHER, LOWER, None]


# --- diff ----------------------------------------------------------------------------------


def _diff(a: str, b: str) -> dict:
    """``trecbench diff a b --format json`` parsed: exit 0 when the evaluations are the
    same, 1 when they differ (``same`` says which)."""
    done = CliRunner().invoke(cli, ["diff", a, b, "--format", "json"])
    assert done.exit_code in (0, 1), done.output
    document = json.loads(done.stdout)
    assert document["same"] == (done.exit_code == 0)
    return document


def _report(folder, name: str, *argv: str) -> str:
    """An EvaluationReport of ``score --report`` (``argv``: its options, qrels, runs)."""
    path = str(folder / f"{name}.json")
    done = CliRunner().invoke(cli, ["score", "--report", path, *argv])
    assert done.exit_code == 0, done.output
    return path


def _benchmark_report(folder, name: str, *argv: str) -> str:
    """compare's BenchmarkReport.json (``argv``: its options, qrels, runs)."""
    done = CliRunner().invoke(cli, ["compare", "-o", str(folder / name), "--quiet", *argv])
    assert done.exit_code == 0, done.output
    return str(folder / name / "BenchmarkReport.json")


def test_diff_json_of_evaluation_reports_matches_its_schema(tmp_path):
    bounds = [
        "--tie-bounds",
        "--unjudged-bounds",
        "--strata",
        str(ROOT / "qrels/hpo-demo.sidecar.json"),
    ]
    bounds += ["--group-by", "language"]
    base = _report(tmp_path, "a", *bounds, QRELS, RUNS[0])
    fewer = tmp_path / "fewer.qrels"
    fewer.write_text("".join(Path(QRELS).read_text().splitlines(keepends=True)[:-5]))
    others = {
        "same": [*bounds, QRELS, RUNS[0]],  # same: cause null, nothing listed
        "level": ["-l", "2", *bounds, QRELS, RUNS[0]],  # options, values and sections
        "spelled": ["-m", "ndcg_cut.10", QRELS, RUNS[0]],  # measures and spellings
        "more": [*bounds, QRELS, *RUNS[:2]],  # a run and its file only in b
        "fewer": [*bounds, str(fewer), RUNS[0]],  # the qrels, topics only in a
    }
    found = set()
    for name, argv in others.items():
        document = _diff(base, _report(tmp_path, name, *argv))
        validate_against_schema(document, "diff")
        found |= {key for key, value in document.items() if value not in ([], {}, None, False)}
    assert {"cause", "options", "values", "sections", "measures", "runs", "topics"} <= found
    assert {"inputs", "same", "reports", "spellings"} <= found


def test_diff_json_of_benchmark_reports_matches_its_schema(tmp_path):
    argv = [QRELS, *RUNS, "-m", "P@5", "-m", "nDCG@10", "--power", "0.8", "--unjudged-bounds"]
    a = _benchmark_report(tmp_path, "a", *argv)
    b = _benchmark_report(tmp_path, "b", "-l", "2", *argv)
    document = _diff(a, b)
    validate_against_schema(document, "diff")
    assert {change["section"] for change in document["sections"]} >= {"comparisons", "power"}
    validate_against_schema(_diff(a, a), "diff")


def test_diff_schema_takes_the_sections_of_the_code():
    from trecbench.json_schemas import load_schema
    from trecbench.runstudy.reportview import SECTIONS

    change = load_schema("diff")["properties"]["sections"]["items"]["properties"]
    assert change["section"]["enum"] == list(SECTIONS)


def test_diff_schema_refuses_a_wrong_type_or_a_missing_key(tmp_path):
    a = _report(tmp_path, "a", "--tie-bounds", QRELS, RUNS[0])
    document = _diff(a, _report(tmp_path, "b", "-l", "2", "--tie-bounds", QRELS, *RUNS[:2]))
    validate_against_schema(document, "diff")
    _refused(document, "diff", lambda d: d.update(same="no"))
    _refused(document, "diff", lambda d: d.update(same=True))  # with a cause
    _refused(document, "diff", lambda d: d["values"][0].pop("movers"))
    _refused(document, "diff", lambda d: d["values"][0].update(moved=-1))
    _refused(document, "diff", lambda d: d["sections"][0].update(section="means"))
    _refused(document, "diff", lambda d: d["options"]["relevance_level"].pop("b"))
    _refused(document, "diff", lambda d: d["inputs"][0].update(a={"path": "x"}))
    _refused(document, "diff", lambda d: d["runs"].update(a="tfidf-word"))
    _refused(document, "diff", lambda d: d.pop("reports"))


# --- convert's sidecar ---------------------------------------------------------------------

CONVERT = ROOT / "data/convert"
HPO = ROOT / "data/hpo-demo"
CONVERSIONS = {
    "beir-qrels": [str(CONVERT / "beir-test.tsv")],
    "code-chunk": [str(CONVERT / "code-chunk-detailed.json")],
    "dict": [str(CONVERT / "bm25-results.json"), "--depth", "2"],
    "hpo": [str(HPO / "cases.json"), "--no-id-check"],
    "hpo graded": [
        str(HPO / "cases.json"),
        *("--results", str(HPO / "results/tfidf-word/terms.jsonl"), "--tag", "w"),
        *("--results", str(HPO / "results/tfidf-char/terms.jsonl"), "--tag", "c"),
        *("--graded", "ontology"),
    ],
    "lists": [str(CONVERT / "remem-chunks.json")],
    "lists chunks": [str(CONVERT / "remem-chunks.json"), "--match", "chunks"],
    "memorybench": [str(CONVERT / "memorybench-export.json")],
    "msmarco": [str(CONVERT / "msmarco-run.tsv")],
}


def _sidecar(folder, conversion: str) -> dict:
    """The sidecar ``convert`` writes of ``conversion`` (a key of :data:`CONVERSIONS`)."""
    command = conversion.split()[0]
    argv = ["convert", "--quiet", command, *CONVERSIONS[conversion], "-o", str(folder)]
    done = CliRunner().invoke(cli, argv)
    assert done.exit_code == 0, done.output
    (path,) = folder.glob("*.sidecar.json")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("conversion", CONVERSIONS)
def test_every_converters_sidecar_matches_its_schema(conversion, tmp_path):
    document = _sidecar(tmp_path / "out", conversion)
    validate_against_schema(document, "sidecar")
    assert ("matching" in document) == (conversion == "lists chunks")


def test_the_bundled_sidecar_matches_its_schema():
    path = ROOT / "qrels/hpo-demo.sidecar.json"
    validate_against_schema(json.loads(path.read_text(encoding="utf-8")), "sidecar")


def test_sidecar_schema_takes_the_codes_format_version_converters_and_severities():
    from trecbench.cli.convert import convert
    from trecbench.convert.sidecar import SIDECAR_VERSION
    from trecbench.inputs.unconverted import SIDECAR_FORMAT
    from trecbench.json_schemas import load_schema
    from trecbench.validation.rules import SEVERITIES

    schema = load_schema("sidecar")
    top = schema["properties"]
    assert (top["format"]["const"], top["version"]["const"]) == (SIDECAR_FORMAT, SIDECAR_VERSION)
    assert top["converter"]["enum"] == sorted(convert.commands)
    finding = top["validation"]["additionalProperties"]["properties"]["findings"]["items"]
    assert finding["properties"]["severity"]["enum"] == list(SEVERITIES)


def test_sidecar_schema_refuses_a_wrong_type_or_a_missing_key(tmp_path):
    document = _sidecar(tmp_path / "out", "hpo graded")
    run = next(iter(document["runs"]))
    _refused(document, "sidecar", lambda d: d["runs"][run].pop("original_scores"))
    _refused(document, "sidecar", lambda d: d["runs"][run].update(queries="56"))
    _refused(document, "sidecar", lambda d: d["provenance"]["outputs"][0].update(kind="x"))
    _refused(document, "sidecar", lambda d: d["provenance"].pop("inputs"))
    _refused(document, "sidecar", lambda d: d["strata"]["queries"]["en-01"].update(language=[]))
    _refused(document, "sidecar", lambda d: d["report"].pop("notes"))
    _refused(document, "sidecar", lambda d: d.update(version=2))
    _refused(document, "sidecar", lambda d: d.update(converter="fuse"))
    name = next(iter(document["validation"]))
    _refused(document, "sidecar", lambda d: d["validation"][name]["counts"].pop("error"))


# --- validate ------------------------------------------------------------------------------

MESSY_RUN = (
    b"\xef\xbb\xbfq2 Q0 d5 0 1 tagA x\r\n"  # a mark, rank 0, a seventh token, CRLF
    b"q1\tQ0\td1 1 3.0 tagA\n\n"  # a blank line
    b"q1 Q0 d2 2 4.0 tagB\n"  # mixed tags, score up
    b"q1 Q0 d1 3 1e0 tagA\n"  # a duplicate, scientific notation
    b"q1 X d10 9 nan tagA\n"  # field 2, a rank gap, no number
)


def _validated(*argv: str) -> tuple[int, list]:
    """``trecbench validate argv --format json``: its exit code and its document."""
    done = CliRunner().invoke(cli, ["validate", *argv, "--format", "json"])
    return done.exit_code, json.loads(done.stdout)


def test_the_validate_schema_is_draft_2020_12():
    import jsonschema

    from trecbench.json_schemas import load_schema

    schema = load_schema("validate")
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == "urn:trecbench:schema:validate" and schema["description"]
    assert all(d["additionalProperties"] is False for d in schema["$defs"].values())


def test_validate_json_matches_its_schema(tmp_path):
    # validate --format json had no schema (helper 640): every other JSON output has one
    messy, qrels, fixed = tmp_path / "messy.run", tmp_path / "q.qrels", tmp_path / "fixed.run"
    messy.write_bytes(MESSY_RUN)
    qrels.write_text("q1 0 d1 1\nq1 0 d2 -1\nq3 0 d9 1\n# a comment\n")
    code, document = _validated(str(messy), "--qrels", str(qrels), "--profile", "strict")
    assert code == 2 and [d["kind"] for d in document] == ["qrels", "run"]
    validate_against_schema(document, "validate")
    assert {"R7", "R12", "R23"} <= set(document[1]["counts"]["rules"])
    ok = tmp_path / "ok.run"
    ok.write_bytes(MESSY_RUN.replace(b"nan", b"0.5"))
    code, document = _validated(str(ok), "--fix", str(fixed), "--fix-tag", "t")
    assert code == 0 and document[0]["fix"]["output"] == str(fixed)
    assert document[0]["fix"]["changes"] and document[0]["fix"]["counts"]["error"] == 0
    validate_against_schema(document, "validate")
    code, document = _validated(str(messy), "--fix", str(tmp_path / "refused.run"))
    assert code and document[0]["fix"]["refused"] and document[0]["fix"]["counts"] is None
    validate_against_schema(document, "validate")


def test_the_validate_schema_names_the_rules_and_checks_of_the_code():
    from trecbench.json_schemas import load_schema
    from trecbench.validation.rules import CHECKS, PROFILES

    defs = load_schema("validate")["$defs"]
    assert defs["finding"]["properties"]["check"]["enum"] == list(CHECKS)
    rules = {check.split(".")[0] for check in CHECKS}
    assert set(defs["finding"]["properties"]["rule"]["enum"]) == rules
    assert defs["settings"]["properties"]["profile"]["enum"] == list(PROFILES)


def test_the_validate_schema_refuses_a_wrong_type_or_a_missing_key(tmp_path):
    (tmp_path / "r.run").write_bytes(MESSY_RUN)
    _, document = _validated(str(tmp_path / "r.run"))
    _refused(document, "validate", lambda d: d[0]["findings"][0].update(rule="R99"))
    _refused(document, "validate", lambda d: d[0]["findings"][0].update(severity="fatal"))
    _refused(document, "validate", lambda d: d[0]["counts"].pop("checks"))
    _refused(document, "validate", lambda d: d[0]["settings"].update(max_depth=0))
    _refused(document, "validate", lambda d: d[0].update(kind="topics"))
