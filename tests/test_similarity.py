"""similarity: RBO against the rbo package (and brute-force bounds), overlap and Kendall's
tau against plain Python, rankings in trecbench's tie order."""

from __future__ import annotations

import json
import random

import pytest

from trecbench.cli import run
from trecbench.errors import UsageError
from trecbench.runstudy.similarity import similarity

rbo = pytest.importorskip("rbo")  # installed by `make test` (Makefile: --no-deps)

DEEP = 3000  # the rankings' continuation used for the brute-force bounds


def _run(ranking: list[str]) -> dict:
    return {"q": {doc: float(len(ranking) - i) for i, doc in enumerate(ranking)}}


def _random_pair(rng: random.Random) -> tuple[list[str], list[str], float]:
    docs = [f"d{i}" for i in range(rng.randint(1, 25))]
    s = rng.sample(docs, rng.randint(1, len(docs)))
    t = rng.sample(docs, rng.randint(1, len(docs)))
    return s, t, rng.choice([0.5, 0.8, 0.9, 0.98])


def _brute_bounds(s: list[str], t: list[str], p: float) -> tuple[float, float]:
    """RBO_min and RBO_max as the rbo package's truncated RBO of the rankings continued
    with documents that never agree, and that agree as early as they can."""
    fresh_s, fresh_t = [f"x{i}" for i in range(DEEP)], [f"y{i}" for i in range(DEEP)]
    low = rbo.RankingSimilarity((s + fresh_s)[:DEEP], (t + fresh_t)[:DEEP]).rbo(k=DEEP, p=p)
    short, long = (s, t) if len(s) <= len(t) else (t, s)
    unseen_long = [d for d in long if d not in short]
    unseen_short = [d for d in short if d not in long]
    shared = [f"z{i}" for i in range(DEEP)]
    high = rbo.RankingSimilarity(
        (short + unseen_long + shared)[:DEEP], (long + unseen_short + shared)[:DEEP]
    ).rbo(k=DEEP, p=p)
    return low, high


def test_rbo_equals_the_rbo_package_and_brute_force_bounds():
    rng = random.Random(7)
    for _ in range(60):
        s, t, p = _random_pair(rng)
        pair = similarity({"a": _run(s), "b": _run(t)}, rbo_p=p).pairs[0]
        assert pair.values["rbo_ext"][0] == pytest.approx(
            rbo.RankingSimilarity(s, t).rbo_ext(p), abs=1e-12
        )
        low, high = _brute_bounds(s, t, p)
        assert pair.values["rbo_min"][0] == pytest.approx(low, abs=1e-9)
        assert pair.values["rbo_res"][0] == pytest.approx(high - low, abs=1e-9)


def _tau(x: list[int], y: list[int]) -> float:
    pairs = [(i, j) for i in range(len(x)) for j in range(i + 1, len(x))]
    sign = [(x[i] - x[j]) * (y[i] - y[j]) for i, j in pairs]
    return (sum(v > 0 for v in sign) - sum(v < 0 for v in sign)) / len(pairs)


@pytest.mark.parametrize("rows_at_once", [None, 1, 7, 40])
def test_overlap_and_kendall_tau_per_topic_equal_plain_python(monkeypatch, rows_at_once):
    """Also when the runs' documents are matched a few topics at a time (``SLICE``): the
    same docno in several topics of one slice stays apart."""
    if rows_at_once is not None:
        monkeypatch.setattr("trecbench.runstudy.similarity.SLICE", rows_at_once)
    rng = random.Random(11)
    a, b = {}, {}
    for topic in range(12):
        s, t, _ = _random_pair(rng)
        a[f"q{topic}"], b[f"q{topic}"] = _run(s)["q"], _run(t)["q"]
    pair = similarity({"a": a, "b": b}, overlap_k=5).pairs[0]
    for index, qid in enumerate(pair.qids):
        s, t = list(a[qid]), list(b[qid])
        top_s, top_t = set(s[:5]), set(t[:5])
        assert pair.values["overlap"][index] == pytest.approx(
            len(top_s & top_t) / len(top_s | top_t)
        )
        shared = [d for d in s if d in t]
        if len(shared) < 2:
            assert pair.values["kendall_tau"][index] != pair.values["kendall_tau"][index]
        else:
            expected = _tau([s.index(d) for d in shared], [t.index(d) for d in shared])
            assert pair.values["kendall_tau"][index] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("counter", ["scipy's", "gone", "every pair"])
def test_kendall_tau_is_scipys_tau_b_to_the_last_bit(monkeypatch, counter):
    """Per topic, as scipy.stats.kendalltau of the two runs' ranks of the shared documents
    (topics of 0 to 300 shared documents; long ones take scipy's tree path too), with
    scipy's private counter of discordant pairs, were it gone without, or (few pairs)
    every pair compared."""
    import numpy as np
    from scipy.stats import kendalltau

    from trecbench.runstudy import similarity as module

    if counter == "gone":
        monkeypatch.setattr(module, "_discordant_counter", lambda: None)
    monkeypatch.setattr(module, "SMALL_PAIRS", 10**9 if counter == "every pair" else -1)

    rng = random.Random(3)
    a, b = {}, {}
    for topic in range(40):
        docs = [f"d{i}" for i in range(rng.choice([1, 2, 3, 30, 300]))]
        s = rng.sample(docs, rng.randint(1, len(docs)))
        t = rng.sample(docs, rng.randint(1, len(docs)))
        a[f"q{topic}"], b[f"q{topic}"] = _run(s)["q"], _run(t)["q"]
    pair = similarity({"a": a, "b": b}).pairs[0]
    for index, qid in enumerate(pair.qids):
        s, t = list(a[qid]), list(b[qid])
        shared = [d for d in s if d in t]
        expected = np.nan
        if len(shared) >= 2:
            ranks = [s.index(d) for d in shared], [t.index(d) for d in shared]
            expected = kendalltau(*ranks)[0]
            if ranks[1] == sorted(ranks[1]) or ranks[1] == sorted(ranks[1], reverse=True):
                expected = 1.0 if ranks[1] == sorted(ranks[1]) else -1.0  # scipy: 0.99999...
        np.testing.assert_array_equal(pair.values["kendall_tau"][index], expected)


@pytest.mark.parametrize("counter", ["scipy's", "gone", "every pair"])
def test_a_run_against_itself_has_a_tau_of_exactly_one(monkeypatch, counter):
    """Five shared documents in one order: scipy's tau-b is 0.9999999999999999 (10 pairs,
    10 / sqrt(10) / sqrt(10)), printed so in similarity's JSON; reversed, -1."""
    from trecbench.runstudy import similarity as module

    if counter == "gone":
        monkeypatch.setattr(module, "_discordant_counter", lambda: None)
    monkeypatch.setattr(module, "SMALL_PAIRS", 10**9 if counter == "every pair" else -1)
    docs = [f"d{i}" for i in range(5)]
    a, b = _run(docs)["q"], _run(docs[::-1])["q"]
    pair = similarity({"a": {"q": a}, "b": {"q": a}, "c": {"q": b}}).pairs
    assert [p.values["kendall_tau"][0] for p in pair] == [1.0, -1.0, -1.0]


def test_rbo_a_few_topics_at_a_time_is_rbo_of_all_at_once(monkeypatch):
    """RBO is computed in blocks of ``PLACES`` (topic, depth) places: each topic alone,
    so any block size gives the same bits."""
    import numpy as np

    rng = random.Random(9)
    a, b = {}, {}
    for topic in range(30):
        s, t, _ = _random_pair(rng)
        a[f"q{topic}"], b[f"q{topic}"] = _run(s)["q"], _run(t)["q"]
    b["only-b"] = _run(["d1", "d2"])["q"]
    whole = similarity({"a": a, "b": b}, rbo_p=0.8).pairs[0].values
    for places in (1, 7, 40):
        monkeypatch.setattr("trecbench.runstudy.similarity.PLACES", places)
        blocks = similarity({"a": a, "b": b}, rbo_p=0.8).pairs[0].values
        for name in ("rbo_ext", "rbo_min", "rbo_res"):
            np.testing.assert_array_equal(blocks[name], whole[name])


@pytest.mark.parametrize(("p", "shared_from"), [(0.9, 500), (0.5, 200)])
def test_rbo_of_runs_that_agree_only_deep_is_tiny_not_rounding_noise(p, shared_from):
    """Two runs 1,000 deep sharing documents only from ``shared_from`` on: RBO is
    1.25e-36 at p 0.9 (the rbo package's, and exact fractions'), where rbo_min's tail,
    taken as the whole series less its first terms, cancelled to noise that 500 shared
    documents made 1.4e-13, and rbo_ext was held up to it: printed, 1.4e-13."""
    from fractions import Fraction

    a = [f"a{i}" for i in range(1000)]
    b = [f"b{i}" for i in range(shared_from)] + a[::-1][: 1000 - shared_from]
    values = similarity([_run(a), _run(b)], rbo_p=p).pairs[0].values
    exact, seen_a, seen_b, overlap, q = Fraction(0), set(), set(), 0, Fraction(p)
    for depth, (x, y) in enumerate(zip(a, b, strict=True), 1):
        overlap += (x in seen_b) + (y in seen_a) + (x == y)
        seen_a.add(x)
        seen_b.add(y)
        exact += Fraction(overlap, depth) * q**depth
    exact = (1 - q) / q * exact + Fraction(overlap, 1000) * q**1000
    assert values["rbo_ext"][0] == pytest.approx(float(exact), rel=1e-9, abs=0)
    assert values["rbo_ext"][0] == pytest.approx(
        rbo.RankingSimilarity(a, b).rbo_ext(p=p), rel=1e-9, abs=0
    )
    # nothing agrees beyond the lists' ends at the least: rbo_min is rbo_ext here
    assert values["rbo_min"][0] == pytest.approx(float(exact), rel=1e-9, abs=0)


def test_rankings_follow_trec_eval_tie_order():
    # equal scores: docno descending, so "b" ranks before "a" in both runs -> identical
    tied = {"q": {"a": 1.0, "b": 1.0, "c": 0.5}}
    ordered = {"q": {"b": 3.0, "a": 2.0, "c": 1.0}}
    pair = similarity({"tied": tied, "ordered": ordered}).pairs[0]
    assert pair.values["rbo_ext"][0] == pytest.approx(1.0)
    assert pair.values["kendall_tau"][0] == pytest.approx(1.0)
    reversed_ties = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    pair = similarity({"tied": tied, "other": reversed_ties}).pairs[0]
    assert pair.values["kendall_tau"][0] == pytest.approx(1 / 3)


@pytest.mark.parametrize("rows_at_once", [None, 1])
def test_topic_held_by_one_run_counts_as_rbo_zero(monkeypatch, rows_at_once):
    if rows_at_once is not None:
        monkeypatch.setattr("trecbench.runstudy.similarity.SLICE", rows_at_once)
    a = {"q1": {"d": 1.0}, "q2": {"e": 1.0}, "q3": {"d": 1.0}}
    pair = similarity({"a": a, "b": {"q1": {"d": 1.0}, "q0": {"d": 1.0}}}).pairs[0]
    assert pair.qids == ["q0", "q1", "q2", "q3"]
    assert list(pair.values["rbo_ext"]) == [0.0, pytest.approx(1.0), 0.0, 0.0]
    pair = similarity({"a": {k: a[k] for k in ("q1", "q2")}, "b": {"q1": {"d": 1.0}}}).pairs[0]
    assert pair.values["rbo_res"][1] == pytest.approx(1.0)
    assert pair.mean()["rbo_ext"] == pytest.approx(0.5)
    # exactly: a topic of 40 documents one run lacks gave rbo_res 0.9999999999999999
    deep = {"q1": {"d": 1.0}, "q2": {f"d{i}": 100.0 - i for i in range(40)}}
    pair = similarity({"a": {"q1": {"d": 1.0}}, "c": deep}).pairs[0]
    assert (pair.values["rbo_res"][1], pair.values["rbo_min"][1]) == (1.0, 0.0)


@pytest.mark.parametrize("options", [{"rbo_p": 1.0}, {"rbo_p": 0}, {"overlap_k": 0}, {"depth": -1}])
def test_settings_outside_their_domain_are_refused(options):
    with pytest.raises(UsageError):
        similarity({"a": _run(["d"]), "b": _run(["d"])}, **options)


def test_cli_json_carries_rbo_ext_per_topic_and_a_mean(capsys):
    args = ["similarity", "runs/tfidf-word.run", "runs/tfidf-char.run", "--format", "json"]
    assert run(args) == 0
    document = json.loads(capsys.readouterr().out)
    pair = document["pairs"][0]
    assert (pair["a"], pair["b"]) == ("tfidf-word", "tfidf-char")
    values = [topic["rbo_ext"] for topic in pair["topics"]]
    assert len(values) == 56
    assert pair["mean"]["rbo_ext"] == pytest.approx(sum(values) / len(values))
    assert document["settings"]["rbo_p"] == 0.9


def test_cli_refuses_one_run_and_a_persistence_outside_0_1_in_one_line(capsys):
    assert run(["similarity", "runs/tfidf-word.run"]) == 1
    assert capsys.readouterr().err == ("trecbench: similarity compares runs: give at least two\n")
    args = ["similarity", "runs/tfidf-word.run", "runs/tfidf-char.run", "--rbo-p", "1"]
    assert run(args) == 1
    captured = capsys.readouterr()
    assert (captured.out, captured.err.count("\n")) == ("", 1)
    assert "'--rbo-p': 1.0 is not in the range 0<x<1." in captured.err


def test_a_persistence_of_another_type_is_refused_by_its_type():
    # Decimal("0.9") is in (0, 1), and was told "must be in (0, 1), not Decimal('0.9')"
    from decimal import Decimal

    from trecbench.errors import UsageError

    a, b = {"q": {"a": 2.0}}, {"q": {"a": 1.0}}
    with pytest.raises(UsageError) as refused:
        similarity({"a": a, "b": b}, rbo_p=Decimal("0.9"))
    assert str(refused.value) == (
        "rbo_p must be a number in (0, 1) (a persistence), not a Decimal (Decimal('0.9')): "
        "give a float, as 0.9"
    )


def test_runs_are_named_by_stems_made_distinct_only_where_needed():
    from trecbench.naming import run_names

    assert run_names(["runs/bm25.run", "x/a/dense.run.gz", "y/a/dense.run", {"q": {}}]) == [
        "bm25",
        "x/a/dense",
        "y/a/dense",
        "run4",
    ]
    assert run_names(["p/x.run", "p/x.run.gz"]) == ["p/x.run", "p/x.run.gz"]  # only paths differ
    with pytest.raises(UsageError, match="two runs are named 'x'"):
        run_names(["p/x.run", "p/x.run"])


def test_rows_gathered_by_stretches_equal_a_take():
    """Whole topics moved (a few stretches of consecutive rows) are copied by slices; any
    other order is taken row by row; both give the rows asked for."""
    import numpy as np
    import pyarrow as pa

    from trecbench.runstudy.ranked import _gathered

    column = pa.chunked_array(
        [[f"d{i}" for i in range(0, 300)], [f"d{i}" for i in range(300, 1000)]]
    )
    blocks = np.r_[np.arange(600, 1000), np.arange(0, 250), np.arange(250, 600)]
    shuffled = np.random.default_rng(1).permutation(1000)
    for rows in (blocks, shuffled, blocks[:0], blocks[5:7]):
        expected = [f"d{i}" for i in rows]
        assert pa.chunked_array([_gathered(column, rows)], pa.string()).to_pylist() == expected


def test_runs_without_a_topic_in_common_have_no_similarity(tmp_path, capsys):
    # every topic held by one run only: rbo 0 and overlap 0 were printed as the pair's
    # similarity, exit 0 (score and compare end with exit 7 where nothing is shared)
    other = tmp_path / "other.run"
    other.write_text("x1 Q0 d1 1 2 o\nx1 Q0 d2 2 1 o\n")
    assert run(["similarity", "runs/tfidf-word.run", str(other)]) == 7
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"trecbench: {other}: no topic in common with runs/tfidf-word.run: "
        "no similarity to measure\n"
    )
    # among more runs, that pair's statistics are undefined and the others are shown
    assert run(["similarity", "runs/tfidf-word.run", "runs/tfidf-char.run", str(other)]) == 0
    captured = capsys.readouterr()
    rows = [line.split() for line in captured.out.splitlines()[1:]]
    assert rows[1][:3] == ["tfidf-word", "other", "all"] and rows[1][3:8] == ["-"] * 5
    assert rows[0][3] != "-"  # tfidf-word and tfidf-char share their topics
    # named as the rows name the runs (--names), not by their files
    assert "trecbench: warning: other: no topic in common with tfidf-word: " in captured.err
    assert run(["similarity", "runs/tfidf-word.run", "runs/tfidf-char.run", str(other),
                "--names", f"apart={other}"]) == 0  # fmt: skip
    assert "trecbench: warning: apart: no topic in common with tfidf-word: " in (
        capsys.readouterr().err
    )
    # no pair of three runs shares a topic: the message says so, not of one pair
    third = tmp_path / "third.run"
    third.write_text("x2 Q0 d1 1 2 o\n")
    assert run(["similarity", "runs/tfidf-word.run", str(other), str(third)]) == 7
    assert capsys.readouterr().err == (
        "trecbench: no two of the 3 runs have a topic in common: no similarity to measure\n"
    )


def test_numpy_numbers_are_taken_and_held_as_pythons():
    """overlap_k=np.int64(2) and rbo_p=np.float32(.5) were refused; JSON writes neither.
    By hand: the top 2 of a are {a, b}, of b {b, c}: Jaccard 1/3."""
    import numpy as np

    a, b = {"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 1.0, "c": 1.0}}
    result = similarity({"a": a, "b": b}, rbo_p=np.float32(0.5), overlap_k=np.int64(2))
    settings = json.loads(json.dumps(result.to_json()))["settings"]
    assert settings == {"rbo_p": 0.5, "overlap_k": 2, "depth": None}
    assert result.pairs[0].values["overlap"].tolist() == [pytest.approx(1 / 3)]
    kept = similarity({"a": a, "b": b}, depth=np.uint8(1)).to_json()["settings"]
    assert kept["depth"] == 1 and type(kept["depth"]) is int
    # np.float32(0.9) is the p it prints as: it was 0.8999999761581421, recorded and used
    given = similarity({"a": a, "b": b}, rbo_p=np.float32(0.9))
    assert given.to_json()["settings"]["rbo_p"] == 0.9
    plain = similarity({"a": a, "b": b}, rbo_p=0.9).pairs[0].values["rbo_ext"].tolist()
    assert given.pairs[0].values["rbo_ext"].tolist() == plain


def _exact_residual(s: list[str], t: list[str], p: str, deep: int) -> float:
    """rbo_max - rbo_min in 60 digits: the rankings continued as :func:`_brute_bounds`
    continues them, each depth's (X_max - X_min)/d (1 - p) p^(d-1) summed to ``deep``."""
    from decimal import Decimal, localcontext

    short, long = (s, t) if len(s) <= len(t) else (t, s)
    fresh = [[f"x{i}" for i in range(deep)], [f"y{i}" for i in range(deep)]]
    low = [(s + fresh[0])[:deep], (t + fresh[1])[:deep]]
    unseen_long = [d for d in long if d not in short]
    unseen_short = [d for d in short if d not in long]
    shared = [f"z{i}" for i in range(deep)]
    high = [(short + unseen_long + shared)[:deep], (long + unseen_short + shared)[:deep]]
    with localcontext() as context:
        context.prec = 60
        q, total, weight = Decimal(p), Decimal(0), 1 - Decimal(p)
        seen = [[set(), set()], [set(), set()]]
        for depth in range(1, deep + 1):
            overlaps = []
            for (a, b), (in_a, in_b) in zip((low, high), seen, strict=True):
                in_a.add(a[depth - 1])
                in_b.add(b[depth - 1])
                overlaps.append(len(in_a & in_b))
            total += (overlaps[1] - overlaps[0]) * weight / depth
            weight *= q
        return float(total)


@pytest.mark.parametrize("extra", [0, 5])
def test_a_residual_below_rbo_mins_last_bit_is_not_0(extra):
    # two rankings of the same 400 documents (and 5 more in one), p 0.9: rbo_res is
    # 1.2e-20 (3.1e-20), which rbo_max - rbo_min cancelled to 0 (printed 0.0000)
    s = [f"d{i:03d}" for i in range(400)]
    t = s + [f"e{i}" for i in range(extra)]
    pair = similarity({"a": _run(s), "b": _run(t)}, rbo_p=0.9).pairs[0]
    exact = _exact_residual(s, t, "0.9", 1500)
    assert 0 < exact < 1e-16
    assert pair.values["rbo_res"][0] == pytest.approx(exact, rel=1e-9, abs=0)
    assert pair.mean()["rbo_res"] == pytest.approx(exact, rel=1e-9, abs=0)


def test_the_per_topic_table_prints_a_qid_s_blanks_as_one_field(tmp_path, capsys):
    # a qid read from JSONL (or a dict, a DataFrame) may hold blanks: the table printed
    # "q 1" and "q  2 " as they are, two fields of its whitespace-separated row (and "q  2"
    # as two cells); each blank is %20, as in score's group places, and unquotes back
    # One identical document per topic: RBO_min = (1 - p) / p * -ln(1 - p) = 0.2558
    from urllib.parse import unquote

    for name in ("a", "b"):
        lines = [json.dumps({"qid": q, "docno": "d", "score": 1.0}) for q in ("q 1", "q  2 ")]
        (tmp_path / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    runs = [str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")]
    assert run(["similarity", "-q", "--quiet", *runs]) == 0
    out = capsys.readouterr().out
    assert out == (
        "a  b  qid          rbo_ext  rbo_min  rbo_res  overlap@10  kendall_tau  shared\n"
        "a  b  q%20%202%20  1.0000   0.2558   0.7442   1.0000      -            1\n"
        "a  b  q%201        1.0000   0.2558   0.7442   1.0000      -            1\n"
        "a  b  all          1.0000   0.2558   0.7442   1.0000      -            2\n"
    )
    qids = [line.split()[2] for line in out.splitlines()[1:3]]
    assert [unquote(qid) for qid in qids] == ["q  2 ", "q 1"]  # byte-wise: " " < "1"


def test_a_mean_tau_over_part_of_the_topics_says_how_many(tmp_path, capsys):
    # the all row printed a tau of -1 (topic 1's) beside RBO means over 4 topics, unsaid
    a, b = tmp_path / "A.run", tmp_path / "B.run"
    a.write_text("1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n2 Q0 a 1 1 r\n3 Q0 x 1 1 r\n")
    b.write_text("1 Q0 c 1 3 s\n1 Q0 b 2 2 s\n1 Q0 a 3 1 s\n2 Q0 b 1 1 s\n4 Q0 y 1 1 s\n")
    assert run(["similarity", str(a), str(b)]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[1].split()[3:] == [
        "0.2138", "0.0944", "0.8444", "0.2500", "-1.0000", "3"
    ]  # fmt: skip
    assert captured.err == (
        "trecbench: warning: A and B: the mean kendall_tau is over 1 of 4 topics (the rest "
        "have fewer than two documents both runs retrieved)\n"
    )
    b.write_text("1 Q0 c 1 3 s\n1 Q0 b 2 2 s\n")
    a.write_text("1 Q0 c 1 3 s\n1 Q0 b 2 2 s\n")
    assert run(["similarity", str(a), str(b)]) == 0
    assert capsys.readouterr().err == ""  # every topic has a tau
    # topics shared, none with two documents both runs hold: it said "over 0 of 2 topics"
    a.write_text("1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n")
    b.write_text("1 Q0 a 1 1 s\n2 Q0 c 1 1 s\n")
    assert run(["similarity", str(a), str(b)]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[1].split()[-2:] == ["-", "1"]
    assert captured.err == (
        "trecbench: warning: A and B: no kendall_tau: no topic has two documents both runs "
        "retrieved\n"
    )


def test_taus_that_cancel_have_a_mean_of_0(tmp_path):
    # review 723: taus of 0.6, -0.2 and -0.4 (scipy.stats.kendalltau's, exactly 0 on
    # paper: 6/10 - 2/10 - 4/10) had a mean of 1.85e-17, printed as 1.9e-17
    orders = {"t1": [2, 1, 4, 3, 5], "t2": [4, 5, 1, 2, 3], "t3": [5, 4, 1, 2, 3]}
    a, b = [], []
    for qid, order in orders.items():
        for rank in range(5):
            a.append(f"{qid} Q0 d{rank + 1} {rank + 1} {10 - rank} A\n")
            b.append(f"{qid} Q0 d{order[rank]} {rank + 1} {10 - rank} B\n")
    (tmp_path / "A.run").write_text("".join(a))
    (tmp_path / "B.run").write_text("".join(b))
    (pair,) = similarity([str(tmp_path / "A.run"), str(tmp_path / "B.run")]).pairs
    taus = pair.values["kendall_tau"].tolist()
    assert taus == pytest.approx([0.6, -0.2, -0.4])
    assert pair.mean()["kendall_tau"] == 0.0
