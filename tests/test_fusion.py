"""trecbench.fuse and `trecbench fuse` against ranx's fusion functions and hand-worked values.

ranx is the independent implementation: its fusion and normalisation functions run on the
same tie-free runs, for every method and normalisation both tools have. ranx compiles them
with numba on first use (minutes on this machine); numba documents that with
``NUMBA_DISABLE_JIT=1`` the decorated functions run as the Python they are written in, so
the module's one ranx call runs them that way in a subprocess (about two seconds; nothing
leaks into this process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import trecbench
from trecbench import fusion
from trecbench.cli import _register, cli
from trecbench.errors import DuplicateError, OutputError, UsageError
from trecbench.files import run_bytes
from trecbench.inputs import read_run

_register()

# our method -> ranx's; our normalisation -> ranx's
RANX_METHOD = {
    "rrf": "rrf",
    "isr": "isr",
    "combsum": "sum",
    "combmnz": "mnz",
    "combmax": "max",
    "combmin": "min",
    "combmed": "med",
    "combanz": "anz",
    "wmnz": "wmnz",
}
RANX_NORM = {
    "none": None,
    "min-max": "min-max",
    "z-score": "zmuv",
    "max": "max",
    "sum": "sum",
    "rank": "rank",
}
WEIGHTS = [0.5, 2.0, 1.25]

# ranx/__init__.py imports its whole API (statistics, plots, downloads: ~6 s here); the
# packages ranx and ranx.meta are registered by path without running their __init__, and
# only the modules behind ranx.fuse are loaded (ranx's own code, unchanged)
RANX_SCRIPT = """
import importlib.util, json, os, sys, types
root = importlib.util.find_spec("ranx").submodule_search_locations[0]
for name in ("ranx", "ranx.meta"):
    package = types.ModuleType(name)
    package.__path__ = [os.path.join(root, *name.split(".")[1:])]
    sys.modules[name] = package
from ranx.data_structures import Run
from ranx.meta.fuse import fuse
job = json.load(sys.stdin)
out = []
for case in job["cases"]:
    runs = [Run.from_dict(run) for run in job["runs"][case["runs"]]]
    fused = fuse(runs, norm=case["norm"], method=case["method"], params=case["params"])
    out.append({q: {d: float(s) for d, s in docs.items()} for q, docs in fused.to_dict().items()})
json.dump(out, sys.stdout)
"""


def _tie_free_runs(seed: int = 7, n_runs: int = 3, topics: int = 5, depth: int = 12):
    """Runs as {qid: {docno: score}}: every topic in every run, distinct scores (also at
    float32), documents drawn from a shared pool so that runs overlap partly."""
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(n_runs):
        run = {}
        for t in range(topics):
            docs = rng.choice(25, size=depth - t, replace=False)
            scores = rng.choice(10**6, size=len(docs), replace=False) / 1000 - 300 * r
            run[f"q{t}"] = {f"d{d:02d}": float(s) for d, s in zip(docs, scores, strict=True)}
        runs.append(run)
    return runs


def _frame(run: dict) -> pd.DataFrame:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return pd.DataFrame(rows, columns=["qid", "docno", "score"])


def _rrf_scores(run: dict, k: float) -> dict:
    """A run whose scores are 1 / (k + rank) (rank by score, descending)."""
    out = {}
    for q, docs in run.items():
        ranked = sorted(docs, key=docs.get, reverse=True)
        out[q] = {d: 1 / (k + i + 1) for i, d in enumerate(ranked)}
    return out


def _cases():
    cases = [("rrf", "none", {"k": 60}), ("rrf", "none", {"k": 5}), ("isr", "none", {})]
    for method in ("combsum", "combmnz", "combmax", "combmin", "combmed", "combanz"):
        cases += [(method, norm, {}) for norm in RANX_NORM]
    cases += [("combsum", norm, {"weights": WEIGHTS}) for norm in RANX_NORM]
    cases += [("wmnz", norm, {"weights": WEIGHTS}) for norm in ("none", "min-max", "z-score")]
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def runs():
    return _tie_free_runs()


@pytest.fixture(scope="module")
def ranx_results(runs):
    pytest.importorskip("ranx")
    job = {"runs": {"plain": runs, "rrf60": [_rrf_scores(r, 60) for r in runs]}, "cases": []}
    for method, norm, params in CASES:
        name = "wsum" if method == "combsum" and "weights" in params else RANX_METHOD[method]
        job["cases"].append(
            {"runs": "plain", "method": name, "norm": RANX_NORM[norm], "params": params}
        )
    # weighted RRF = ranx's weighted sum of the runs' 1/(k + rank) scores
    job["cases"].append(
        {"runs": "rrf60", "method": "wsum", "norm": None, "params": {"weights": WEIGHTS}}
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run(
        [sys.executable, "-c", RANX_SCRIPT],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(done.stdout)


def _as_dict(fused: pd.DataFrame) -> dict:
    return {q: dict(zip(g["docno"], g["score"], strict=True)) for q, g in fused.groupby("qid")}


def _assert_same(ours: dict, theirs: dict, runs: list[dict], norm: str = "none"):
    """The same scores: bit for bit where one or two runs hold the document (a sum of two
    values is the same in either order), to 1e-12 where three do (ranx adds them in the
    runs' order, trecbench from the smallest up: :func:`test_the_order_of_the_runs_changes_no_bit`);
    z-scores to 1e-12 always: ranx without numba takes numpy's mean and sd, whose sums add
    in pairs (compiled, numba's add in order, as trecbench does:
    :func:`test_sum_and_z_score_normalisations_are_compiled_ranx_bit_for_bit`)."""
    assert ours.keys() == theirs.keys()
    for qid in ours:
        assert ours[qid].keys() == theirs[qid].keys(), qid
        held = {d: sum(d in run.get(qid, ()) for run in runs) for d in ours[qid]}
        exact = [] if norm == "z-score" else [d for d in sorted(ours[qid]) if held[d] <= 2]
        assert [ours[qid][d] for d in exact] == [theirs[qid][d] for d in exact], qid
        docs = sorted(set(ours[qid]) - set(exact))
        np.testing.assert_allclose(
            [ours[qid][d] for d in docs], [theirs[qid][d] for d in docs], rtol=1e-12, atol=1e-12
        )


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{m}-{n}-{p}" for m, n, p in CASES])
def test_equals_ranx(runs, ranx_results, index):
    method, norm, params = CASES[index]
    fused = trecbench.fuse(
        [_frame(r) for r in runs],
        method,
        norm=norm,
        k=params.get("k"),  # RRF's alone (None: 60); the others refuse one
        weights=params.get("weights"),
    )
    _assert_same(_as_dict(fused), ranx_results[index], runs, norm)


def test_weighted_rrf_equals_ranx_weighted_sum_of_rrf_scores(runs, ranx_results):
    fused = trecbench.fuse([_frame(r) for r in runs], "rrf", k=60, weights=WEIGHTS)
    _assert_same(_as_dict(fused), ranx_results[len(CASES)], runs)


def _compiled_ranx_sum_and_zmuv(scores: dict) -> dict:
    """ranx's sum and zmuv normalisations of one topic's ``{docno: score}`` as compiled ranx
    computes them (ranx/normalization/sum_norm.py, zmuv_norm.py): the scores in ranx's
    order (the doubles descending, as ``Run`` sorts them), every sum from 0, one term after
    the other (the builtin ``sum``; numba's ``np.mean`` and ``np.var``, numba/np/arraymath.py,
    are such loops, and ``np.std`` is ``var ** 0.5``). Run without numba, as
    :func:`ranx_results` runs it, ranx takes numpy's mean and sd, which add in pairs."""
    values = sorted(scores.values(), reverse=True)
    n, low = len(values), min(values)
    total = 0.0
    for value in values:
        total += value
    mean, squares = total / n, 0.0
    for value in values:
        squares += (value - mean) * (value - mean)
    sd = (squares / n) ** 0.5
    return {
        "sum": {d: (s - low) / max(total - low * n, 1e-9) for d, s in scores.items()},
        "z-score": {d: (s - mean) / max(sd, 1e-9) for d, s in scores.items()},
    }


# reviewer 233's topic, where np.add.reduceat's order of addition gave other last bits
# (0.5295857988165681, 0.8282899485918924); ranx 0.3.21, compiled, gives these
REVIEWED = {"d0": 6.46, "d1": 7.26, "d2": 0.1}
COMPILED_RANX_D1 = {"sum": 0.5295857988165682, "z-score": 0.8282899485918922}
# scores that tie at float32 (ranked c, b, a by docno) are added in ranx's order, c, a, b
FLOAT32_TIE = {"c": 7.3, "a": 1.00000005, "b": 1.0}


# FLOAT32_TIE's z-scores of a and b tie at float32 again, b above a by docno against their
# doubles: warned of (tests/test_fused_ties.py); the values are what is checked here
@pytest.mark.filterwarnings("ignore::trecbench.errors.ParameterDomainWarning")
@pytest.mark.parametrize("norm", ["sum", "z-score"])
def test_sum_and_z_score_normalisations_are_compiled_ranx_bit_for_bit(runs, norm):
    assert _compiled_ranx_sum_and_zmuv(REVIEWED)[norm]["d1"] == COMPILED_RANX_D1[norm]
    topics = [REVIEWED, FLOAT32_TIE] + [docs for run in runs for docs in run.values()]
    for scores in topics:
        fused = trecbench.fuse([{"q": scores}], "combsum", norm=norm)
        ours = dict(zip(fused["docno"], fused["score"], strict=True))
        assert ours == _compiled_ranx_sum_and_zmuv(scores)[norm], scores


def test_a_documents_values_add_from_the_smallest_up_whatever_the_runs_order():
    # np.add.reduceat added 0.1 + (0.2 + 0.3): 0.6; ranx adds in the runs' order, so that
    # 0.3, 0.2, 0.1 gave 0.6 and 0.1, 0.2, 0.3 gave 0.6000000000000001; the smallest first
    # gives (0.1 + 0.2) + 0.3 in either order
    total = 0.6000000000000001
    expected = {"combsum": total, "combmnz": total * 3, "combanz": total / 3, "wmnz": total * 3}
    for values in ((0.1, 0.2, 0.3), (0.3, 0.2, 0.1), (0.2, 0.3, 0.1)):
        runs = [{"q": {"a": value, "b": 1.0}} for value in values]
        for method, score in expected.items():
            weights = [1, 1, 1] if method == "wmnz" else None
            fused = trecbench.fuse(runs, method, norm="none", weights=weights)
            assert dict(zip(fused["docno"], fused["score"], strict=True))["a"] == score, method


def test_scores_equal_on_paper_are_equal_doubles():
    # RRF (k 1) of ranks 2, 3 and 4 for z and for a, in other runs: added in the runs'
    # order, z's was 0.7833333333333332 and a's ...33, a rounding apart that trec_eval 10.0
    # (reading doubles) ranks a first and 9.0.8 (float32) z first, by docno, as written
    ranked = [["f1", "z", "a", "f2"], ["g1", "g2", "z", "a"], ["h1", "a", "h2", "z"]]
    runs = [{"1": {d: 4.0 - i for i, d in enumerate(docs)}} for docs in ranked]
    fused = trecbench.fuse(runs, "rrf", k=1)
    scores = dict(zip(fused["docno"], fused["score"], strict=True))
    assert scores["z"] == scores["a"] == 1 / 5 + 1 / 4 + 1 / 3  # the smallest first
    assert list(fused["docno"][:2]) == ["z", "a"]  # the tie: docno descending


def _permuted_runs(seed: int, n_runs: int = 4) -> list[dict]:
    """Runs whose documents are often held by three or four runs, with ranks repeated
    (RRF's values equal on paper) and scores of a few values (sums equal on paper)."""
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(n_runs):
        run = {}
        for t in range(3):
            docs = rng.choice(12, size=8, replace=False)
            run[f"q{t}"] = {f"d{d:02d}": float(rng.choice([0.1, 0.2, 0.3, 0.7])) for d in docs}
        runs.append(run)
    return runs


@pytest.mark.filterwarnings("ignore::trecbench.errors.ParameterDomainWarning")
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "method, norm, weighted",
    [("rrf", "none", False), ("rrf", "none", True), ("isr", "none", False),
     ("combsum", "none", True), ("combsum", "min-max", False), ("combmnz", "sum", False),
     ("combanz", "z-score", False), ("wmnz", "rank", True), ("combmed", "none", False)],
)  # fmt: skip
def test_the_order_of_the_runs_changes_no_bit(seed, method, norm, weighted):
    import itertools

    runs = _permuted_runs(seed)
    weights = [0.1, 0.2, 0.3, 0.4]
    results = set()
    for order in itertools.permutations(range(len(runs))):
        given = [weights[i] for i in order] if weighted else None
        fused = trecbench.fuse([runs[i] for i in order], method, norm=norm, weights=given)
        results.add(tuple(zip(fused["qid"], fused["docno"], fused["score"], strict=True)))
    assert len(results) == 1


@pytest.mark.parametrize("method", ["combmax", "combmin", "combmed", "combsum"])
def test_a_fused_zero_is_0_in_any_order_of_the_runs(method):
    # combmed of 0.0 and -0.0 was -0.0 or 0.0 by the runs' order (reviewer 708), and so
    # were combmax's and combmin's; the file wrote 0 either way
    import math

    runs = [{"q": {"a": 0.0, "b": -1.0}}, {"q": {"a": -0.0, "c": -1.0}}]
    for given in (runs, runs[::-1]):
        fused = trecbench.fuse(given, method, norm="none")
        score = dict(zip(fused["docno"], fused["score"], strict=True))["a"]
        assert math.copysign(1.0, score) == 1.0, (method, given)


@pytest.mark.parametrize("method", ["max", "min", "med"])
def test_a_fused_zero_is_written_0_never_minus_0(tmp_path, method):
    # combmax of the scores -0.0 and -0 wrote "-0"; a run's reader takes it as 0
    from trecbench.cli import run

    (tmp_path / "a.run").write_text("q1 Q0 d1 1 -0.0 a\nq1 Q0 d2 2 -1 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 d1 1 -0 b\nq1 Q0 d2 2 -2 b\n")
    out = tmp_path / "f.run"
    runs = [str(tmp_path / "a.run"), str(tmp_path / "b.run")]
    assert run(["fuse", *runs, "--method", method, "--norm", "none", "-o", str(out)]) == 0
    assert out.read_text().splitlines()[0].split("\t")[4] == "0"


def test_rrf_by_hand_and_trec_eval_order():
    a = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["x", "y", "z"], "score": [3.0, 2.0, 1.0]})
    b = pd.DataFrame({"qid": ["1", "1"], "docno": ["y", "w"], "score": [0.9, 0.4]})
    fused = trecbench.fuse([a, b], "rrf", k=60)
    # y: 1/62 + 1/61; x: 1/61; w: 1/62; z: 1/63
    assert list(fused["docno"]) == ["y", "x", "w", "z"]
    assert list(fused["score"]) == [1 / 62 + 1 / 61, 1 / 61, 1 / 62, 1 / 63]
    assert list(fused["rank"]) == [1, 2, 3, 4]
    assert list(fused.columns) == ["qid", "q0", "docno", "rank", "score", "tag"]
    assert set(fused["tag"]) == {"rrf"}


def test_inputs_are_ranked_by_trecbench_tie_policy_first():
    # tied scores: trec_eval orders b before a (docno descending), so b has rank 1
    tied = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, 1.0]})
    fused = trecbench.fuse([tied], "rrf", k=0)
    assert dict(zip(fused["docno"], fused["score"], strict=True)) == {"b": 1.0, "a": 0.5}
    # equal only at float32 precision: tied for trec_eval 9.x as well
    close = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, 1.0 + 1e-12]})
    assert list(trecbench.fuse([close], "rrf", k=0)["docno"]) == ["b", "a"]


def test_fused_ties_are_ranked_by_docno_descending_and_depth_cuts():
    a = pd.DataFrame({"qid": ["1"] * 3, "docno": ["p", "q", "r"], "score": [3.0, 2.0, 1.0]})
    b = pd.DataFrame({"qid": ["1"] * 3, "docno": ["q", "p", "s"], "score": [3.0, 2.0, 1.0]})
    fused = trecbench.fuse([a, b], "rrf", k=60, depth=3)
    assert list(fused["docno"]) == ["q", "p", "s"]  # p and q tie: q first; r and s tie: s
    assert list(fused["rank"]) == [1, 2, 3]


def test_median_of_even_and_odd_counts():
    runs = [
        pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [s, 0.0]})
        for s in (1.0, 4.0, 2.0, 10.0)
    ]
    two = _as_dict(trecbench.fuse(runs[:2], "combmed", norm="none"))
    assert two["1"] == {"a": 2.5, "b": 0.0}
    three = _as_dict(trecbench.fuse(runs[:3], "combmed", norm="none"))
    assert three["1"]["a"] == 2.0
    four = _as_dict(trecbench.fuse(runs, "combmed", norm="none"))
    assert four["1"]["a"] == 3.0


def test_topics_need_not_agree():
    a = pd.DataFrame({"qid": ["1"], "docno": ["x"], "score": [1.0]})
    b = pd.DataFrame({"qid": ["2"], "docno": ["x"], "score": [1.0]})
    fused = trecbench.fuse([a, b], "combsum", norm="none")
    assert _as_dict(fused) == {"1": {"x": 1.0}, "2": {"x": 1.0}}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "borda"}, "unknown fusion method 'borda'"),
        ({"method": "rrf", "norm": "min-max"}, "rrf fuses ranks"),
        ({"method": "combsum", "norm": "l2"}, "unknown normalisation 'l2'"),
        ({"method": "combsum", "weights": [1.0]}, "1 weight for 2 runs"),
        ({"method": "combmax", "weights": [1.0, 2.0]}, "weights apply to rrf, combsum, wmnz"),
        ({"method": "wmnz"}, "wmnz needs one weight per run"),
        ({"method": "rrf", "k": -1}, "k must be a finite number >= 0"),
        # said "a finite number >= -inf"
        ({"method": "combsum", "weights": [float("nan"), 1.0]}, "finite number >= 0, not nan"),
        # an integer beyond a double: an internal OverflowError
        ({"method": "combsum", "weights": [1, 10**400]}, "finite number >= 0, not 1000000000"),
        ({"method": "rrf", "k": 10**5000}, "k must be a finite number >= 0, not 1.000000E"),
        ({"method": "rrf", "depth": 0}, "depth must be a positive integer"),
        ({"tag": "a b"}, "^tag='a b': a run tag is one token of printable text, without blanks$"),
        ({"tag": "a\nb"}, "a run tag is one token"),  # was written as is: an invalid run
        ({"tag": "a\tb"}, "a run tag is one token"),
        ({"tag": "a\x00"}, "a run tag is one token"),
        ({"tag": "a\u00a0b"}, "a run tag is one token"),  # a no-break space
        ({"tag": ""}, "^tag='': a run tag is one token"),
        ({"tag": 5}, "^tag=5: a run tag is one token"),
    ],
)
def test_bad_settings_are_usage_errors(kwargs, message):
    run = pd.DataFrame({"qid": ["1"], "docno": ["x"], "score": [1.0]})
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        trecbench.fuse([run, run], **kwargs)


def test_duplicate_document_is_trec_eval_s_error(tmp_path):
    path = tmp_path / "dup.run"
    path.write_text("1 Q0 x 1 2 t\n1 Q0 x 2 1 t\n")
    with pytest.raises(DuplicateError, match="duplicate docs x for topic 1"):
        trecbench.fuse([str(path)])


def test_cli_writes_the_canonical_run(tmp_path):
    for name, run in (("a.run", "1 Q0 x 1 3 a\n1 Q0 y 2 2 a\n"), ("b.run", "1 Q0 y 1 5 b\n")):
        (tmp_path / name).write_text(run)
    out = tmp_path / "fused.run"
    args = ["fuse", "--method", "combsum", "--norm", "none", "-w", "1", "-w", "0.5"]
    args += [str(tmp_path / "a.run"), str(tmp_path / "b.run"), "-o", str(out), "--tag", "hyb"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert out.read_text() == "1\tQ0\ty\t1\t4.5\thyb\n1\tQ0\tx\t2\t3\thyb\n"
    assert f"wrote {out}: 2 documents, 1 topic\n" in result.stderr
    expected = trecbench.fuse(
        [str(tmp_path / "a.run"), str(tmp_path / "b.run")],
        "combsum",
        norm="none",
        weights=[1, 0.5],
        tag="hyb",
    )
    assert out.read_bytes() == run_bytes(expected)
    assert list(read_run(out)["score"]) == [4.5, 3.0]


def test_cli_refuses_to_overwrite_an_input(tmp_path):
    run = tmp_path / "a.run"
    run.write_text("1 Q0 x 1 3 a\n")
    result = CliRunner().invoke(cli, ["fuse", str(run), "-o", str(run)])
    assert isinstance(result.exception, OutputError)  # the CLI's main() exits 2 with it
    assert run.read_text() == "1 Q0 x 1 3 a\n"


def test_cli_choices_are_the_library_s():
    from trecbench.cli import fuse as command

    assert set(command.METHOD_CHOICES) == set(fusion.METHODS) | set(fusion.METHOD_ALIASES)
    assert set(command.NORM_CHOICES) == set(fusion.NORMS) | set(fusion.NORM_ALIASES)


def test_ids_holding_a_tab_stay_apart():
    """A document's key is the pair (qid, docno), not their text joined by a tab."""
    run = pd.DataFrame({"qid": ["a\tb", "a"], "docno": ["c", "b\tc"], "score": [1.0, 2.0]})
    fused = trecbench.fuse([run], "combsum", norm="none")
    assert sorted(zip(fused["qid"], fused["docno"], fused["score"], strict=True)) == [
        ("a", "b\tc", 2.0),
        ("a\tb", "c", 1.0),
    ]


# ---------------------------------------------------------------------------------------
# extreme inputs: the fused order against a direct computation, never inf or nan
# (issue 25 item 6: z-scores near ±1e300 overflowed and reversed the fused order)

_EXTREME = [
    {"q": {"d1": 1e300, "d2": -1e300, "d3": 5e299, "d4": 0.0}, "r": {"d1": 3.0, "d2": 1.0}},
    {"q": {"d1": -1e300, "d2": 1e300, "d3": 1e299, "d5": -7e299}, "r": {"d2": 2.0, "d3": 2.5}},
]


def _direct(runs, norm: str, weights) -> dict:
    """combsum by the formulas in exact or 80-digit arithmetic: Fractions for the rational
    normalisations, Decimals (for the square root) for the z-score."""
    import decimal
    from fractions import Fraction

    context = decimal.Context(prec=80, Emax=10**6, Emin=-(10**6))
    fused: dict = {}
    for run, weight in zip(runs, weights, strict=True):
        for qid, docs in run.items():
            s = {d: Fraction(v) for d, v in docs.items()}
            low, high, n = min(s.values()), max(s.values()), len(s)
            for docno, v in s.items():
                if norm == "min-max":
                    value = (v - low) / max(high - low, Fraction(1e-9))
                elif norm == "sum":
                    value = (v - low) / max(sum(s.values()) - n * low, Fraction(1e-9))
                else:  # z-score, population sd
                    mean = sum(s.values()) / n
                    var = sum((x - mean) ** 2 for x in s.values()) / n
                    sd = context.sqrt(
                        context.divide(decimal.Decimal(var.numerator), var.denominator)
                    )
                    top = context.divide(
                        decimal.Decimal((v - mean).numerator), (v - mean).denominator
                    )
                    value = Fraction(context.divide(top, max(sd, decimal.Decimal("1e-9"))))
                key = (qid, docno)
                fused[key] = fused.get(key, 0) + Fraction(weight) * value
    return fused


def test_an_in_memory_run_given_twice_is_refused_as_a_file_is():
    # the API fused a DataFrame, dict or records with itself (or a copy) at double weight
    # without a word, where a file given twice, or a copy of it, is refused
    import pandas as pd

    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [2.0, 1.0]})
    as_dict = {"1": {"a": 1.0, "b": 0.5}}
    said = (
        "this run holds the rows of run1 (a copy); to weigh a run more, give it a weight (weights="
    )
    for runs in ([frame, frame], [frame, frame.copy()], [as_dict, as_dict]):
        with pytest.raises(UsageError) as refused:
            trecbench.fuse(runs, "combsum", norm="none")
        assert str(refused.value).startswith(f"run2: {said}")
    with pytest.raises(UsageError, match=r"^second: this run holds the rows of first \(a copy\)"):
        trecbench.fuse({"first": frame, "second": frame.copy()}, "rrf")
    # other rows, or a tag of its own, are another run
    other = frame.assign(score=[1.0, 2.0])
    assert len(trecbench.fuse([frame, other], "combsum", norm="none")) == 2


def test_a_pipe_given_twice_to_fuse_is_said_as_every_command_says_it(tmp_path, capsys):
    """fuse said a FIFO or '-' given twice as a run given twice ('to weigh a run more,
    give it a weight'); cli-conventions.md: as every command, 'a pipe, given twice, can be
    read once' (nothing read: the FIFO has no writer)."""
    from trecbench.cli import run as main

    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    assert main(["fuse", str(fifo), str(fifo), "-o", "-"]) == 1
    assert capsys.readouterr().err == (
        f"trecbench: {fifo}: a pipe, given twice, can be read once: give it once\n"
    )


# fused scores beyond float32's range tie there, warned of (a test of its own): the values
# and order are what is checked here
@pytest.mark.filterwarnings("ignore::trecbench.errors.ParameterDomainWarning")
@pytest.mark.parametrize("norm", ["z-score", "min-max", "sum"])
@pytest.mark.parametrize("weights", [[1, 1], [1e30, 3e29], [1e300, 3e299], [2.0, 0.5]])
def test_fused_order_and_scores_on_extreme_inputs_match_a_direct_computation(norm, weights):
    fused = trecbench.fuse(_EXTREME, "combsum", norm=norm, weights=weights)
    assert np.isfinite(fused["score"]).all()
    direct = _direct(_EXTREME, norm, weights)
    # trecbench's one order of the exact values: score descending at float32 (fused scores
    # of 1e300 tie there, as in trec_eval), then docno descending
    expected = sorted(direct, key=lambda key: (key[0], -_float32(direct[key]), _desc(key[1])))
    assert list(zip(fused["qid"], fused["docno"], strict=True)) == expected
    for qid, docno, score in zip(fused["qid"], fused["docno"], fused["score"], strict=True):
        assert score == pytest.approx(float(direct[qid, docno]), rel=1e-12, abs=1e-300)


def _twice(run: dict) -> list[dict]:
    """``run`` and itself with a topic of its own: fused as itself twice on every other
    topic (the same rows twice are refused as one run given twice)."""
    return [run, {**run, "another": {"x": 1.0}}]


def _float32(value) -> np.float32:
    with np.errstate(over="ignore"):  # beyond float32: inf, a tie, as trec_eval ranks it
        return np.float32(float(value))


def _desc(text: str) -> list[int]:
    return [-ord(c) for c in text] + [0]


@pytest.mark.parametrize(
    ("runs", "kwargs"),
    [
        (_twice({"q": {"a": 1.0, "b": 2.0}}), {"method": "combsum", "weights": [1e308, 1e308]}),
        (_twice({"q": {"a": 1e308, "b": 2.0}}), {"method": "combsum", "norm": "none"}),
        (_twice({"q": {"a": 1e308, "b": 2.0}}), {"method": "combmnz", "norm": "none"}),
        ([{"q": {"a": -1e300, "b": -2e300}}], {"method": "combsum", "norm": "max"}),
        (_twice({"q": {"a": 1.0}}), {"method": "rrf", "weights": [1e308, 1e308], "k": 0}),
    ],
)
def test_a_fused_score_beyond_a_double_is_refused_not_written(runs, kwargs):
    with pytest.raises(UsageError, match=r"fused score of document '[ab]' in topic 'q' is -?inf"):
        trecbench.fuse(runs, **kwargs)


def test_every_method_and_normalisation_stays_finite_on_extreme_scores():
    for method in fusion.SCORE_BASED:
        for norm in ("min-max", "z-score", "sum", "rank"):
            weights = [1.0, 1.0] if method in fusion.WEIGHTED else None
            fused = trecbench.fuse(_EXTREME, method, norm=norm, weights=weights)
            assert np.isfinite(fused["score"]).all(), (method, norm)


def test_the_largest_doubles_are_normalised_without_a_warning(tmp_path):
    # 1.7e308 made the per-topic scale 2**1024 (no double): numpy's warnings leaked on
    # stderr, then the fusion was refused as beyond a double's range
    huge, small = tmp_path / "huge.run", tmp_path / "small.run"
    huge.write_text("q1 Q0 d1 1 1.7e308 x\nq1 Q0 d2 2 -1.7e308 x\nq1 Q0 d3 3 0 x\n")
    small.write_text("q1 Q0 d2 1 2 y\nq1 Q0 d3 2 1 y\n")
    for norm, expected in (
        ("min-max", {"d1": 1.0, "d2": 1.0, "d3": 0.5}),  # (s - min) / (max - min), summed
        ("max", {"d1": 1.0, "d2": 0.0, "d3": 0.5}),  # s / max: -1 + 1, 0 + 0.5
    ):
        result = CliRunner().invoke(
            cli, ["fuse", "--method", "combsum", "--norm", norm, str(huge), str(small), "-o", "-"]
        )
        assert result.exit_code == 0, result.output
        assert "warning" not in result.stderr
        fused = {line.split()[2]: float(line.split()[4]) for line in result.stdout.splitlines()}
        assert fused == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize(
    ("args", "advice"),
    [
        (["--norm", "min-max", "-w", "1.7e308", "-w", "1.7e308"], "give smaller weights or a rank"),
        (["--norm", "none"], "give a normalisation such as min-max or a rank-based method (rrf)"),
    ],
)
def test_the_advice_names_only_what_the_call_did_not_choose(tmp_path, capsys, args, advice):
    # min-max was advised to a call that used it
    from trecbench.cli import run as main

    run = tmp_path / "a.run"
    run.write_text("q Q0 a 1 1.7e308 t\nq Q0 b 2 1 t\n")
    other = tmp_path / "b.run"
    other.write_text("q Q0 a 1 1.7e308 u\nq Q0 b 2 1 u\n")
    assert main(["fuse", "--method", "combsum", *args, str(run), str(other), "-o", "-"]) == 1
    err = capsys.readouterr().err
    assert "beyond a double's range): " + advice in err
    assert err.count("\n") == 1


def test_fused_scores_beyond_float32_that_tie_against_their_order_are_flagged(tmp_path, capsys):
    # 4e38 and 3.5e38 both read as inf by trec_eval 9.x: B (docno) was ranked above A, whose
    # written score is larger, without a word
    from trecbench.cli import run as main
    from trecbench.errors import ParameterDomainWarning

    one, two = tmp_path / "o1.run", tmp_path / "o2.run"
    one.write_text("q1 Q0 A 1 2e38 t\nq1 Q0 B 2 1.5e38 t\n")
    two.write_text("q1 Q0 A 1 2e38 t\nq1 Q0 B 2 2e38 t\n")
    args = ["fuse", "--method", "combsum", "--norm", "none", str(one), str(two), "-o", "-"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert out == "q1\tQ0\tB\t1\t3.5e+38\tcombsum\nq1\tQ0\tA\t2\t4e+38\tcombsum\n"
    assert err.splitlines()[:-1] == [  # the last: what was written
        "trecbench: warning: ParameterDomainWarning: fused scores beyond float32's range "
        "(±3.4e+38) tie at float32 (as inf), the precision trec_eval 9.x reads scores at, so "
        "it ranks them by docno: 2 documents of 1 topic are ranked against their scores (topic "
        "q1: B 3.5e+38 above A 4e+38); to keep the scores in range, give a normalisation such "
        "as min-max or a rank-based method (rrf)"
    ]
    # below -3.4e38 too, counted over topics; a topic whose tied scores are equal is fine
    runs = [
        {"n": {"a": -2e38, "b": -2.5e38}, "p": {"a": 2e38, "b": 2e38}, "s": {"a": 2.0, "b": 1.0}},
        {"n": {"a": -2e38, "b": -2e38}, "p": {"a": 2e38, "b": 2e38}, "s": {"a": 2.0, "b": 1.0}},
    ]
    with pytest.warns(ParameterDomainWarning, match="as -inf.*2 documents of 1 topic .*topic n: b"):
        trecbench.fuse(runs, "combsum", norm="none")


@pytest.mark.parametrize(
    ("runs", "kwargs"),
    [
        # within float32's range
        ([{"q": {"a": 2e37, "b": 1.5e37}}, {"q": {"a": 2e37, "b": 2e37}}], {"norm": "none"}),
        # beyond it, but the tied scores are equal: the ranking written contradicts nothing
        (_twice({"q": {"a": 2e38, "b": 2e38}}), {"norm": "none"}),
        # beyond it, tied, but docno order is the scores' order
        ([{"q": {"b": 2e38, "a": 1.5e38}}, {"q": {"b": 2e38, "a": 2e38}}], {"norm": "none"}),
    ],
)
def test_fused_scores_whose_ranking_float32_keeps_are_not_flagged(runs, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trecbench.fuse(runs, "combsum", **kwargs)


def test_a_run_given_twice_and_weights_all_zero_are_refused(tmp_path, capsys):
    # both fused silently: a run with itself (weighing double), every score 0
    from trecbench.cli import run as main

    run = tmp_path / "a.run"
    run.write_text("1 Q0 x 1 3 a\n1 Q0 y 2 2 a\n")
    (tmp_path / "b.run").write_text("1 Q0 y 1 5 b\n")
    import gzip

    os.link(run, tmp_path / "linked.run")
    (tmp_path / "copy.run").write_bytes(run.read_bytes())
    (tmp_path / "copy.run.gz").write_bytes(gzip.compress(run.read_bytes()))
    # blanks for tabs: other column types than the tab-separated file's, the same rows
    (tmp_path / "spaced.run").write_text(run.read_text().replace(" ", "\t", 2))
    for second, said in (
        (str(run), "this run is given twice"),
        (f"{tmp_path}/./a.run", "this run is given twice (also as "),
        (str(tmp_path / "linked.run"), "this run is given twice (also as "),
        (str(tmp_path / "copy.run"), f"this run holds the rows of {run} (a copy)"),
        (str(tmp_path / "copy.run.gz"), f"this run holds the rows of {run} (a copy)"),
        (str(tmp_path / "spaced.run"), f"this run holds the rows of {run} (a copy)"),
    ):
        assert main(["fuse", str(run), second, "-o", "-"]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"trecbench: {second}: {said}")
        with pytest.raises(UsageError, match="given twice|a copy"):
            trecbench.fuse([str(run), second])
    args = ["fuse", "--method", "combsum", "-w", "0", "-w", "0", str(run), str(tmp_path / "b.run")]
    assert main([*args, "-o", "-"]) == 1
    assert capsys.readouterr().err == (
        "trecbench: the weights are all 0: every fused score would be 0\n"
    )


# fused scores beyond float32's range tie there, warned of (a test of its own): the values
# and order are what is checked here
@pytest.mark.filterwarnings("ignore::trecbench.errors.ParameterDomainWarning")
def test_normalised_scores_near_the_largest_doubles_are_the_formulas_bit_for_bit():
    # max under all-negative scores near -1e299 divides by the floor: scaled with the
    # scores, the floor was subnormal and lost bits (-6.62877004716082e+307 for ...818e+307)
    import trecbench

    rng = np.random.default_rng(7)
    cases = [np.array([-1.021419897981414e299, -6.628770047160819e298, -1e298, -5e297])]
    cases += [-(10.0 ** rng.uniform(296, 299.2, 4)) for _ in range(100)]
    for norm in ("max", "min-max"):
        for scores in cases:
            run = {"q": {f"d{i}": float(s) for i, s in enumerate(scores)}}
            fused = trecbench.fuse([run], "combsum", norm=norm)
            got = dict(zip(fused["docno"], fused["score"], strict=True))
            low, high = scores.min(), scores.max()
            expected = scores / max(high, 1e-9) if norm == "max" else (scores - low) / (high - low)
            assert [got[f"d{i}"] for i in range(4)] == expected.tolist(), (norm, scores)


def test_a_negative_weight_is_refused(tmp_path, capsys):
    """Reviewer 233: -w 1 -w -1 ranked the document first in both runs at 0, below one
    only the first run retrieved; accepted without a word (ranx accepts them too)."""
    from trecbench.cli import run as main

    runs = [{"q": {"a": 2.0, "b": 1.0}}, {"q": {"a": 2.0, "c": 1.0}}]
    for method in ("combsum", "wmnz", "rrf"):
        with pytest.raises(UsageError) as refused:
            trecbench.fuse(runs, method, weights=[1, -1])
        assert str(refused.value) == "a weight must be a finite number >= 0, not -1"
    paths = [tmp_path / "a.run", tmp_path / "b.run"]
    paths[0].write_text("q Q0 a 1 2 a\nq Q0 b 2 1 a\n")
    paths[1].write_text("q Q0 a 1 2 b\nq Q0 c 2 1 b\n")
    args = ["fuse", "--method", "wmnz", "-w", "1", "-w", "-1", *map(str, paths), "-o", "-"]
    assert main(args) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and "'-w' / '--weight': -1.0 is not in the range x>=0" in err


def test_api_weights_and_depth_of_other_types():
    # weights=1.0 raised a TypeError; depth=np.int64(2) was refused where k and weights
    # take numpy numbers
    import trecbench

    runs = [{"q": {"a": 2.0, "b": 1.0, "c": 0.5}}, {"q": {"b": 2.0, "c": 1.0}}]
    with pytest.raises(trecbench.UsageError, match="weights are one number per run, not 1.0"):
        trecbench.fuse(runs, "combsum", weights=1.0)
    assert len(trecbench.fuse(runs, "combsum", depth=np.int64(2))) == 2


def test_an_rrf_k_whose_ranks_tie_at_float32_is_flagged():
    # --k 1e9 wrote a run whose ranking trec_eval 9.x reads as docno order, without a word
    from trecbench.errors import ParameterDomainWarning

    a = {"q": {"x": 3.0, "y": 2.0, "z": 1.0}}
    b = {"q": {"z": 3.0, "y": 2.0, "x": 1.0}}
    with pytest.warns(ParameterDomainWarning, match="k 1e\\+09: RRF's scores of ranks 1 and 2 tie"):
        fused = trecbench.fuse([a, b], "rrf", k=1e9)
    # deeper ranks tie first at a smaller k: ranks 2 and 3 at 2e7, where 1 and 2 do not
    with pytest.warns(ParameterDomainWarning, match="k 2e\\+07: RRF's scores of ranks 2 and 3"):
        trecbench.fuse([a, b], "rrf", k=2e7)
    assert len(set(np.float32(fused["score"]))) == 1  # what trec_eval 9.x would read
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trecbench.fuse([a, b], "rrf", k=60)
    # ranks 3 and 4 tie at this k, but the runs hold only ranks 1 to 3: no warning of
    # ranks; x's 1/(k + 1) + 1/(k + 3) is y's 2/(k + 2) and 2/k^3 more (7e-15 of it), a
    # float32 tie docno order ranks against, which trec_eval 10.0 does not: said (it was
    # taken for rounding, 2**-40, as on paper equal sums are)
    with pytest.warns(ParameterDomainWarning) as said:
        trecbench.fuse([a, b], "rrf", k=11936085)
    (message,) = [str(warning.message) for warning in said]
    assert message.startswith("fused scores within float32's range tie at float32")
    assert "(topic q: y 1.6755910039864824e-07 above x 1.675591003986494e-07)" in message


@pytest.mark.parametrize(
    ("method", "runs", "expected"),
    [
        # the median of one value, 1e308: (x + x) / 2 overflowed
        ("combmed", [{"q": {"big": 1e308, "s": 1.0}}, {"q": {"s": 2.0}}], {"big": 1e308, "s": 1.5}),
        # the mean of 1.5e308 and 1e308: their sum overflowed
        ("combanz", [{"q": {"a": 1.5e308}}, {"q": {"a": 1e308}}], {"a": 1.25e308}),
        # below the overflow the same bits as the plain formula
        ("combmed", [{"q": {"a": 0.1, "b": 3}}, {"q": {"a": 0.2}}], {"a": (0.1 + 0.2) / 2, "b": 3}),
        ("combanz", [{"q": {"a": 0.1}}, {"q": {"a": 0.2}}], {"a": (0.1 + 0.2) / 2}),
    ],
)  # fmt: skip
def test_a_median_or_mean_within_range_is_not_refused_for_its_sum(method, runs, expected):
    """Reviewer 185: combmed and combanz refused finite results as 'inf (beyond a double's
    range)' where the sum before the halving or the division overflowed."""
    fused = trecbench.fuse(runs, method, norm="none")
    assert dict(zip(fused["docno"], fused["score"], strict=True)) == expected


def test_fused_scores_float32_reads_as_zero_against_their_order_are_flagged():
    """Reviewer 185: weights of 1e-50 made every fused score 0 at float32 (trec_eval 9.x's
    precision): the run was written in docno order, c above a, without a word."""
    from trecbench.errors import ParameterDomainWarning

    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    with pytest.warns(ParameterDomainWarning) as said:
        fused = trecbench.fuse(_twice(run), "combsum", norm="none", weights=[1e-50, 1e-50])
    assert list(fused["docno"][fused["qid"] == "q"]) == [
        "c",
        "b",
        "a",
    ]  # trec_eval 9.x's order of equal scores
    assert str(said[0].message).startswith(
        "fused scores within float32's smallest normal value (±1.2e-38) tie at float32 (as 0)"
    )
    assert str(said[0].message).endswith("give larger weights, a normalisation such as "
                                         "min-max or a rank-based method (rrf)")  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # tiny, but float32 keeps them apart: no warning
        trecbench.fuse(_twice(run), "combsum", norm="none", weights=[1e-30, 1e-30])


@pytest.mark.parametrize(
    ("scores", "count"),
    [
        ({"z": 1e-50, "y": 1.7e-50, "x": 1.25e-50}, 3),  # z, y, x: none where it belongs
        ({"c": 1.7e-50, "b": 1e-50, "a": 1.25e-50}, 2),  # c, b, a: c is in place
        ({"z": 1e308, "y": 1.7e308, "x": 1.25e308}, 3),  # the same beyond the range
    ],
)
def test_the_warning_counts_every_document_placed_against_its_score(scores, count):
    """Reviewer 192: the neighbours out of order were counted, 2 of the 3 misplaced."""
    from trecbench.errors import ParameterDomainWarning

    with pytest.warns(ParameterDomainWarning, match=f" {count} documents of 1 topic are ranked"):
        trecbench.fuse([{"q": scores}], "combmax", norm="none")


def test_weights_as_a_dict_or_a_set_are_refused_not_paired_by_keys_or_hash_order():
    # {"a": 1, "b": 2} was read as its keys ("a weight must be a finite number >= 0, not
    # 'a'"), a set {2.0, 0.5} in its hash order, paired with the runs by no order of theirs
    import trecbench

    runs = {"a": {"q": {"x": 2.0, "y": 1.0}}, "b": {"q": {"y": 2.0, "x": 1.0}}}
    for weights in ({"a": 1.0, "b": 2.0}, {2.0, 0.5}):
        with pytest.raises(trecbench.UsageError, match=r"^weights are one number per run, not "):
            trecbench.fuse(runs, "combsum", weights=weights)
