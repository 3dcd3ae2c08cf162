"""trecbench against trec_eval 9.0.8 and 10.0 on seeded random inputs
(tests/fixtures/trec_eval_random).

The expected outputs were produced by real trec_eval binaries (9.0.8, and 10.0's default
build for the cases run with ``--compat 10.0``); see tests/fixtures/make_trec_eval_random.py
to regenerate them. Here we only compare: stdout byte for byte, and the exit code.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from fixtures.make_trec_eval_random import build_inputs

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "trec_eval_random"
MANIFEST = json.loads((FIXTURES / "cases.json").read_text())
CASES = {case["name"]: case for case in MANIFEST["cases"]}
SHARED = HERE.parents[1] / "shared" / "data"


def score(argv: list[str], monkeypatch, stdin: str | None = None) -> tuple[bytes, int]:
    """Run ``trecbench score`` in-process; exit code as ``trecbench.cli.main`` sets it."""
    from click.testing import CliRunner

    from trecbench.cli import _register, cli
    from trecbench.errors import TrecbenchError

    _register()
    monkeypatch.chdir(FIXTURES)
    data = (FIXTURES / stdin).read_bytes() if stdin else None
    result = CliRunner().invoke(cli, ["score", *argv], input=data)
    if isinstance(result.exception, TrecbenchError):
        # main() turns library errors into one stderr line and this exit code.
        return result.stdout_bytes, result.exception.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.stdout_bytes, result.exit_code


@pytest.mark.parametrize(
    "name",
    ["mixed__combo", "graded__gains", "graded__J_c_M_l.10", "unsorted__N1000_all_q",
     "topics__c_all_q"],
)  # fmt: skip
def test_score_matches_trec_eval_with_pytrec_eval_called_on_few_topics_at_a_time(name, monkeypatch):
    """pytrec_eval is called on at most TOPICS_PER_CALL topics at a time (its results, Python
    dicts, held whole made a run of 150,000 small topics peak at 2.4 GiB under --memory
    512): the values of calls of a topic each, a gain map's evaluator made anew for each,
    are trec_eval's."""
    from trecbench.engines import pytrec_eval

    monkeypatch.setattr(pytrec_eval, "TOPICS_PER_CALL", 1)
    case = CASES[name]
    stdout, code = score(case["trecbench_argv"], monkeypatch, case.get("stdin"))
    expected = (FIXTURES / case["stdout"]).read_bytes()
    assert (code, stdout.decode()) == (case["exit_code"], expected.decode())
    topics = {line.split(b"\t")[1] for line in stdout.splitlines()} - {b"all"}
    assert len(topics) > 1  # the topics of several calls


@pytest.mark.parametrize("name", sorted(n for n, case in CASES.items() if not case["isolate"]))
def test_score_matches_trec_eval(name, monkeypatch):
    from trecbench.errors import ParameterDomainWarning, TrecEvalUndefinedWarning

    case = CASES[name]
    argv = case["trecbench_argv"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stdout, code = score(argv, monkeypatch, case.get("stdin"))
    expected = (FIXTURES / case["stdout"]).read_bytes()
    assert (code, stdout.decode()) == (case["exit_code"], expected.decode())
    # -Z's marker -1000000 (a topic and measure without a line) is said, with -Z alone
    marked = [w for w in caught if "is trec_eval's -1000000, a marker" in str(w.message)]
    assert "-Z" in argv or not marked
    assert marked or b"\t-1000000.0000\n" not in stdout  # a marker printed is said
    caught = [w for w in caught if w not in marked]
    # 10.0's rbp, read from memory it never initialised, is said to be its default build's
    undefined = [w for w in caught if issubclass(w.category, TrecEvalUndefinedWarning)]
    asks_rbp = any(a in ("all_trec", "rbp") or a.startswith("rbp.") for a in argv)
    assert len(undefined) == (case["compat"] == "10.0" and asks_rbp), undefined
    assert all(str(w.message).startswith("rbp: trec_eval 10.0 rescales") for w in undefined)
    # a parameter outside its measure's meaning is computed as trec_eval does, and said
    caught = [w for w in caught if w not in undefined]
    said = sorted(str(w.message).split("'")[1] for w in caught)
    assert all(issubclass(w.category, ParameterDomainWarning) for w in caught), said
    assert said == OUT_OF_DOMAIN.get(name, [])


# the cases whose measures take a parameter outside its meaning: their warnings
OUT_OF_DOMAIN = {
    "mixed__negative_cutoffs": ["Rprec_mult.0.2,-1,1", "iprec_at_recall.-0.5,0.5"],
    # a gain map's grade 'a', which 9.0.8 reads as 0 and 10.0 leaves out
    "complete__gains.10": ["ndcg.a=2,1=3,2=0.5"],
    "graded__gains": ["ndcg.a=2,1=3,2=0.5"],
    "complete__v10_params.10": ["rbp.p=0.5,1=3,2=-1,a=2"],
}


ISOLATED = sorted(n for n, case in CASES.items() if case["isolate"])


@pytest.mark.parametrize("name", ["mixed__q", "no_overlap__default", *ISOLATED])
def test_console_entry_point(name):
    # The real process path (main() printing errors, setting the exit code); also the
    # cases that could crash the interpreter, so that they cannot take pytest down.
    case = CASES[name]
    command = [sys.executable, "-m", "trecbench", "score", *case["trecbench_argv"]]
    done = subprocess.run(command, cwd=FIXTURES, capture_output=True, check=False)
    assert done.returncode == case["exit_code"], done.stderr.decode()
    assert done.stdout == (FIXTURES / case["stdout"]).read_bytes()
    if case["exit_code"]:
        assert b"Traceback" not in done.stderr and done.stderr.strip()


def _success10(path: Path) -> dict[str, float]:
    values = {}
    for line in path.read_text().splitlines():
        measure, qid, value = line.split("\t")
        assert measure.strip() == "success_10"
        if qid != "all":
            values[qid] = float(value)
    return values


@pytest.mark.parametrize("name", MANIFEST["hitrate_cases"])
def test_hitrate_at_10_equals_success_10(name):
    from trecbench import evaluate

    case = CASES[name]
    expected = _success10(FIXTURES / case["stdout"])
    result = evaluate(FIXTURES / case["qrels"], FIXTURES / case["run"], measures=["HitRate@10"])
    rows = result.per_query[result.per_query["measure"] == "HitRate@10"]
    got = dict(zip(rows["qid"], rows["value"].astype(float), strict=True))
    assert got == expected


def test_fixture_inputs_regenerate_from_seeds():
    inputs = build_inputs()
    named = {"cases.json"} | {CASES[c]["stdout"] for c in CASES}
    for dataset in inputs.values():
        for file_name, text in dataset["files"].values():
            assert (FIXTURES / file_name).read_text() == text, file_name
            named.add(file_name)
    assert {p.name for p in FIXTURES.iterdir()} == named  # nothing stale, nothing missing


def _features(qrels: str, run: str) -> set[str]:
    """Which stress features one fixture input pair contains."""
    with np.errstate(over="ignore", invalid="ignore"):  # scores beyond float32 (+-inf)
        return _found(qrels, run)


def _found(qrels: str, run: str) -> set[str]:
    labels: dict[str, dict[str, int]] = {}
    for line in qrels.splitlines():
        qid, _, docno, rel = line.split()
        labels.setdefault(qid, {})[docno] = int(rel)
    topics: dict[str, list[tuple[str, str, str]]] = {}
    last_qid = None
    found = set()
    for line in run.splitlines():
        qid, _, docno, rank, text, _tag = line.split()
        if qid in topics and qid != last_qid:
            found.add("topic split into blocks")
        topics.setdefault(qid, []).append((docno, rank, text))
        last_qid = qid
    if set(labels) - set(topics):
        found.add("qrels-only topic")
    if set(topics) - set(labels):
        found.add("run-only topic")
    for qid in set(labels) & set(topics):
        rels = labels[qid].values()
        found.add("topic without relevant doc" if max(rels) <= 0 else "topic with relevant doc")
        if max(rels) > 1:
            found.add("graded labels")
        if min(rels) < 0:
            found.add("negative labels")
        docnos = [d for d, _, _ in topics[qid]]
        ranks = [int(r) for _, r, _ in topics[qid]]
        scores = np.array([float(s) for _, _, s in topics[qid]])
        as32 = scores.astype(np.float32).astype(np.float64)
        if len(set(scores)) < len(scores):
            found.add("exact score tie")
        if len(set(as32)) < len(set(scores)):
            found.add("tie only at float32")
        if np.any(np.isinf(as32) & np.isfinite(scores)):
            found.add("score beyond float32")
        # trec_eval 9.x order (float32) vs the order a float64 sort would give
        by_docno = sorted(range(len(docnos)), key=docnos.__getitem__, reverse=True)
        if _by_score(by_docno, as32)[:10] != _by_score(by_docno, scores)[:10]:
            found.add("float32 changes the top 10")
        if np.any(np.diff(scores) > 0):
            found.add("unsorted scores")
        by_rank = np.argsort(ranks, kind="stable")
        if len(set(ranks)) == len(ranks) and np.any(np.diff(as32[by_rank]) > 0):
            found.add("rank column disagrees with scores")
        if sorted(docnos) != sorted(docnos, key=_natural):
            found.add("byte order differs from natural order")
        if any(d.lower() in {"na", "nan", "null", "none", "true", "1e5"} for d in docnos):
            found.add("pandas-trap docno")
    return found


def _data(name: str) -> list[str]:
    """The data lines of a fixture input (10.0's comment lines left out)."""
    lines = (FIXTURES / name).read_text().splitlines()
    return [line for line in lines if not line.lstrip().startswith("#")]


def _by_score(by_docno: list[int], scores: np.ndarray) -> list[int]:
    # Stable sort: equal scores keep docno-descending order, as trec_eval's comparator does.
    return sorted(by_docno, key=lambda i: -scores[i])


def _natural(docno: str):
    digits = "".join(c for c in docno if c.isdigit())
    return (docno.rstrip("0123456789"), int(digits) if digits else -1)


def test_fixtures_cover_every_stress_feature():
    covered = set()
    for dataset in build_inputs().values():
        if "qrels" in dataset["files"]:
            qrels, run = dataset["files"]["qrels"][0], dataset["files"]["run"][0]
            if all(line.split()[1] in ("0", "Q0", "1") for line in _data(qrels)):
                covered |= _features("\n".join(_data(qrels)) + "\n", "\n".join(_data(run)) + "\n")
    wanted = {
        "qrels-only topic",
        "run-only topic",
        "topic without relevant doc",
        "topic with relevant doc",
        "graded labels",
        "negative labels",
        "exact score tie",
        "tie only at float32",
        "score beyond float32",
        "float32 changes the top 10",
        "unsorted scores",
        "rank column disagrees with scores",
        "byte order differs from natural order",
        "pandas-trap docno",
        "topic split into blocks",
    }
    assert wanted <= covered, wanted - covered
    flags = {flag for case in CASES.values() for flag in case["trec_eval_argv"]}
    assert {"-q", "-c", "-J", "-n", "-M", "-M5", "-M10", "-l", "-l2", "-N"} <= flags
    assert {case["exit_code"] for case in CASES.values()} == {0, 1, 2, 4, 7}
    assert {case["compat"] for case in CASES.values()} == {"9.0.8", "10.0"}


def test_fixtures_are_not_copies_of_shared_data():
    if not SHARED.exists():
        pytest.skip(f"{SHARED} not available")
    shared = {hashlib.sha256(p.read_bytes()).digest() for p in SHARED.rglob("*") if p.is_file()}
    for path in (HERE / "fixtures").rglob("*"):
        if path.is_file():
            assert hashlib.sha256(path.read_bytes()).digest() not in shared, path


def _per_topic(text: str) -> dict[str, float]:
    """qid -> value of a one-measure trec_eval output (the 'all' line left out)."""
    rows = (line.split("\t") for line in text.splitlines())
    return {qid: float(value) for _, qid, value in rows if qid != "all"}


@pytest.mark.parametrize("name", ["docnos", "judged_cut", "unjudged_top"])
def test_mrr_at_k_under_J_is_computed_on_the_judged_documents(name, monkeypatch):
    # MRR@10 with -J: unjudged documents are dropped first, then the ranking is cut at 10,
    # as for P@10, nDCG@10 and HitRate@10; the reference is trec_eval -M 10 on a run
    # holding only the judged documents (stored by the fixture generator)
    stdout, code = score(["-J", "-q", "-m", "MRR@10", f"{name}.qrels", f"{name}.run"], monkeypatch)
    assert code == 0
    got = _per_topic(stdout.decode())
    reference = _per_topic((FIXTURES / f"{name}_judged__mrr10.out").read_text())
    assert {q: v for q, v in got.items() if q in reference} == reference
    assert all(v == 0.0 for q, v in got.items() if q not in reference)
    # trec_eval's -M 10 -J cuts first: a different measure, kept under its own spelling
    cut_first = _per_topic((FIXTURES / f"{name}__mrr10_J.out").read_text())
    spelled, _ = score(
        [
            "-J",
            "-q",
            "-M",
            "10",
            "-m",
            "recip_rank",
            *CASES[f"{name}__mrr10_J"]["trec_eval_argv"][-2:],
        ],
        monkeypatch,
    )
    assert _per_topic(spelled.decode()) == cut_first
    if name == "unjudged_top":  # built so that the two differ
        assert (cut_first, got) == ({"A": 0.0, "B": 0.1111}, {"A": 0.5, "B": 0.1111})


def test_gain_maps_over_several_runs(tmp_path):
    # trec_eval parses a gain map in place; pytrec_eval's evaluator, reused for a second
    # run, used to crash on the spent string (exit 139). In a subprocess: a crash must
    # not take pytest down.
    case = CASES["graded__gains"]
    (tmp_path / "graded.run").write_bytes((FIXTURES / "graded.run").read_bytes())
    argv = [*case["trecbench_argv"], str(tmp_path / "graded.run")]  # the same run twice
    command = [sys.executable, "-m", "trecbench", "score", *argv]
    done = subprocess.run(command, cwd=FIXTURES, capture_output=True, check=False)
    expected = (FIXTURES / case["stdout"]).read_bytes()
    # named by their stems, the copy's parent folder telling it apart
    expected = b"# graded\n" + expected + f"# {tmp_path.name}/graded\n".encode() + expected
    assert (done.returncode, done.stdout) == (0, expected), done.stderr.decode()
    command = [sys.executable, "-m", "trecbench", "compare", "-o", str(tmp_path)]
    command += ["-m", "ndcg.1=3,2=9", "-m", "G.1=3,2=9", "graded.qrels", "graded.run", "mixed.run"]
    done = subprocess.run(command, cwd=FIXTURES, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()


@pytest.mark.parametrize("level", [2**31, 10**30])
def test_levels_above_every_grade(level, monkeypatch):
    # trec_eval 9.0.8 crashes for -l >= 2^31 - 1 with these measures (pytrec_eval cannot
    # take it); every level above the largest grade (4) means the same as -l 5
    case = CASES["graded__l5_all_q"]
    argv = [str(level) if arg == "-l5" else arg for arg in case["trecbench_argv"]]
    argv[argv.index(str(level)) : argv.index(str(level))] = ["-l"]
    stdout, code = score(argv, monkeypatch)
    assert (code, stdout) == (0, (FIXTURES / case["stdout"]).read_bytes())


@pytest.mark.parametrize("engine", ["fast", "pytrec_eval"])
def test_scores_beyond_float32_rank_as_trec_eval_without_a_warning(engine):
    # 3.5e38 and 1e39 are +inf as float32 and tie (docno order decides); numpy's cast used
    # to print "RuntimeWarning: overflow encountered in cast" with a source path
    case = CASES["float32_overflow__q"]
    argv = ["--engine", engine, "-m", "map", "-m", "recip_rank", "-q"]
    command = [sys.executable, "-m", "trecbench", "score", *argv, case["qrels"], case["run"]]
    done = subprocess.run(command, cwd=FIXTURES, capture_output=True, check=False, text=True)
    expected = [
        line
        for line in (FIXTURES / case["stdout"]).read_text().splitlines()
        if line.split()[0] in ("map", "recip_rank")
    ]
    assert (done.returncode, done.stderr) == (0, "")
    assert sorted(done.stdout.splitlines()) == sorted(expected)
    validated = [sys.executable, "-m", "trecbench", "validate", case["run"]]
    done = subprocess.run(validated, cwd=FIXTURES, capture_output=True, check=False, text=True)
    assert done.returncode == 0 and "Warning" not in done.stdout + done.stderr


def test_collection_size_beyond_64_bits(monkeypatch):
    # trec_eval reads -N into a long; beyond it, a usage error instead of a traceback
    case = CASES["unsorted__N1000_all_q"]
    argv = ["-N", str(2**63), *case["trecbench_argv"][2:]]
    assert case["trecbench_argv"][:2] == ["-N", "1000"]
    assert score(argv, monkeypatch) == (b"", 1)
