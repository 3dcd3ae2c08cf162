"""MaxOntSim@k: hand-worked pairs, Phentrieve's quirk, the corrected formula, per-query rules.

Depths δ and deepest-common-ancestor depths L below were read off the bundled HPO
2025-11-24 (hpo3) and are cross-checked by ``test_depths_of_hand_worked_pairs``; D = 14.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT

from trecbench import maxontsim_formulas
from trecbench.engines import maxontsim
from trecbench.engines.maxontsim import max_ont_sim, pair_similarities, similarity
from trecbench.errors import UsageError
from trecbench.evaluation.settings import EvalSettings
from trecbench.ontology import load_ontology, parse_obo

SEIZURE, FOCAL = "HP:0001250", "HP:0007359"  # δ 4, 5; Focal-onset seizure is_a Seizure
SHORT_STATURE = "HP:0004322"  # δ 4; LCA with Seizure: Phenotypic abnormality (δ 1)
GDD, ID = "HP:0001263", "HP:0001249"  # δ 6, 5; LCA Neurodevelopmental abnormality (δ 4)
MICRO, MACRO = "HP:0000252", "HP:0000256"  # δ 7, 7; LCA Abnormality of skull size (δ 5)
RUTI, RECURRENT = "HP:0000010", "HP:0002719"  # δ 5, 5; RECURRENT is a parent of RUTI
EPIPHYSES, BOWING = "HP:0010236", "HP:0002979"  # δ 7, 5; LCA HP:0011314 (δ 6)
AD_INHERITANCE = "HP:0000006"  # δ 3, under Mode of inheritance: LCA with Seizure = root
OBSOLETE, ITS_REPLACEMENT = "HP:0000057", "HP:0008665"

# (e, r, δe, δr, L)
HAND_PAIRS = [
    (SEIZURE, SHORT_STATURE, 4, 4, 1),
    (SEIZURE, FOCAL, 4, 5, 4),
    (GDD, ID, 6, 5, 4),
    (MICRO, MACRO, 7, 7, 5),
    (RUTI, RECURRENT, 5, 5, 5),
    (EPIPHYSES, BOWING, 7, 5, 6),
    (AD_INHERITANCE, SEIZURE, 3, 4, 0),
]


@pytest.fixture(scope="module")
def onto():
    return load_ontology()


def test_depths_of_hand_worked_pairs(onto):
    assert onto.max_depth == 14
    for e, r, de, dr, lca in HAND_PAIRS:
        common = onto.ancestors(e) & onto.ancestors(r)
        assert (onto.depth(e), onto.depth(r)) == (de, dr)
        assert max(onto.depth(c) for c in common) == lca
    assert onto.depth("HP:0011314") == 6 and "HP:0011314" in onto.ancestors(EPIPHYSES)


@pytest.mark.parametrize(
    "e, r, hybrid, simple",
    [
        # p = 4+4-2·1 = 6: 0.7·1/14 + 0.3·(1 - 6/8) = 0.05 + 0.075
        (SEIZURE, SHORT_STATURE, 0.125, 1 / 14),
        # p = 4+5-2·4 = 1: 0.7·4/14 + 0.3·(1 - 1/9) = 0.2 + 0.2666…
        (SEIZURE, FOCAL, 0.4666666666666667, 4 / 14),
        # p = 6+5-2·4 = 3: 0.7·4/14 + 0.3·(1 - 3/11) = 0.2 + 0.21818…
        (GDD, ID, 0.41818181818181815, 4 / 14),
        # p = 7+7-2·5 = 4: 0.7·5/14 + 0.3·(1 - 4/14) = 0.25 + 0.214285…
        (MICRO, MACRO, 0.4642857142857143, 5 / 14),
        # L = 0 (root): 0.7·0 + 0.3·(1 - 7/7) = 0 — and simple 0/14 = 0
        (AD_INHERITANCE, SEIZURE, 0.0, 0.0),
    ],
)
def test_hand_worked_pairs(onto, e, r, hybrid, simple):
    assert similarity(e, r, "hybrid", onto) == pytest.approx(hybrid, abs=1e-15)
    assert similarity(r, e, "complex", onto) == pytest.approx(hybrid, abs=1e-15)  # symmetric
    assert similarity(e, r, "simple_resnik_like", onto) == pytest.approx(simple, abs=1e-15)
    # p ≥ 1 here, so the corrected formula agrees with hybrid
    assert similarity(e, r, "hybrid_strict", onto) == similarity(e, r, "hybrid", onto)


def test_float64_expression_matches_phentrieve_bit_for_bit(onto):
    # Phentrieve: 0.7 * (lca / max_depth) + 0.3 * (1 - total_path / (d1 + d2))
    assert similarity(SEIZURE, FOCAL, "hybrid", onto) == 0.7 * (4 / 14) + 0.3 * (1 - 1 / 9)
    assert similarity(GDD, ID, "hybrid", onto) == 0.7 * (4 / 14) + 0.3 * (1 - 3 / 11)


def test_quirk_pairs_score_one_under_hybrid_only(onto):
    # RUTI/RECURRENT: p = 5+5-2·5 = 0; EPIPHYSES/BOWING: p = 7+5-2·6 = 0 → hybrid says 1.0
    for e, r in [(RUTI, RECURRENT), (EPIPHYSES, BOWING)]:
        assert similarity(e, r, "hybrid", onto) == 1.0
        assert similarity(e, r, "complex", onto) == 1.0
    # simple: L/D = 5/14 and 6/14
    assert similarity(RUTI, RECURRENT, "simple", onto) == pytest.approx(5 / 14, abs=1e-15)
    assert similarity(EPIPHYSES, BOWING, "simple_resnik", onto) == pytest.approx(6 / 14)
    # hybrid_strict floors p at 1: 0.7·5/14 + 0.3·(1 - 1/10) = 0.25 + 0.27 = 0.52
    assert similarity(RUTI, RECURRENT, "hybrid_strict", onto) == pytest.approx(0.52, abs=1e-15)
    # 0.7·6/14 + 0.3·(1 - 1/12) = 0.3 + 0.275 = 0.575
    assert similarity(EPIPHYSES, BOWING, "hybrid_strict", onto) == pytest.approx(0.575)


def test_published_count_of_ancestor_pairs_scoring_one(onto):
    # maxontsim.md: 13,839 ancestor/descendant pairs score 1.0 under hybrid on 2025-11-24;
    # under hybrid_strict none does.
    sizes = np.diff(onto.anc_ptr)
    term = np.repeat(np.arange(len(onto)), sizes)
    anc = onto.anc_idx
    proper = term != anc
    e, r = onto.ids[term[proper]], onto.ids[anc[proper]]
    assert (pair_similarities(e, r, "hybrid", onto) == 1.0).sum() == 13839
    assert pair_similarities(e, r, "hybrid_strict", onto).max() < 1.0


def _reference(onto, e, r, formula):
    """A direct transcription of Phentrieve's per-pair code over Python sets."""
    if e == r:
        return 1.0
    if not (onto.is_active(e) and onto.is_active(r)):
        return 0.0
    lca = max(onto.depth(c) for c in onto.ancestors(e) & onto.ancestors(r))
    d = onto.max_depth
    if formula == "simple_resnik_like":
        return max(0.0, min(1.0, lca / d))
    d1, d2 = onto.depth(e), onto.depth(r)
    total = (d1 - lca) + (d2 - lca)
    if formula == "hybrid_strict":
        total = max(total, 1)
    if total <= 0:
        return 1.0
    sim = 0.7 * (lca / d) + 0.3 * (1 - total / (d1 + d2 if d1 + d2 > 0 else 1))
    return max(0.0, min(1.0, sim))


@pytest.mark.parametrize("formula", maxontsim_formulas.FORMULAS)
def test_vectorised_equals_per_pair_reference(onto, formula):
    rng = np.random.default_rng(7)
    pool = rng.choice(onto.ids, 400, replace=False)
    e, r = rng.choice(pool, 3000), rng.choice(pool, 3000)
    # include ancestor pairs (where the quirk lives), unknown, obsolete and identical ids
    e = np.concatenate([e, [RUTI, "HP:9999999", OBSOLETE, OBSOLETE, "", SEIZURE]])
    r = np.concatenate([r, [RECURRENT, SEIZURE, ITS_REPLACEMENT, OBSOLETE, "", SEIZURE]])
    got = pair_similarities(e, r, formula, onto)
    want = np.array([_reference(onto, a, b, formula) for a, b in zip(e, r, strict=True)])
    assert np.array_equal(got, want)


def test_unknown_and_obsolete_ids(onto):
    for formula in maxontsim_formulas.FORMULAS:
        assert similarity(OBSOLETE, ITS_REPLACEMENT, formula, onto) == 0.0
        assert similarity("HP:9999999", SEIZURE, formula, onto) == 0.0
        assert similarity(SEIZURE, "not-an-id", formula, onto) == 0.0
        assert similarity("", SEIZURE, formula, onto) == 0.0
        # identical ids are 1 even when unknown (Phentrieve's rule)
        assert similarity(OBSOLETE, OBSOLETE, formula, onto) == 1.0
        assert similarity("HP:9999999", "HP:9999999", formula, onto) == 1.0


def test_alt_ids_are_unknown(tmp_path):
    from test_ontology import OBO

    path = tmp_path / "hp.obo"
    path.write_text(OBO)
    tiny = parse_obo(path)
    # HP:0000009 is an alt_id of HP:0000003: unknown, so 0 against its own primary id.
    assert similarity("HP:0000009", "HP:0000003", "hybrid", tiny) == 0.0
    # the quirk in the tiny DAG: Y (δ2) vs C (δ3), C ∈ A(Y): L = 3, p = 2+3-6 = -1 → 1.0
    assert similarity("HP:0000006", "HP:0000004", "hybrid", tiny) == 1.0
    # strict: 0.7·3/3 + 0.3·(1 - 1/5) = 0.7 + 0.24
    assert similarity("HP:0000006", "HP:0000004", "hybrid_strict", tiny) == pytest.approx(0.94)


def test_formula_names():
    assert maxontsim_formulas.resolve_formula(None) == "hybrid"
    assert maxontsim_formulas.resolve_formula("COMPLEX") == "hybrid"
    assert maxontsim_formulas.resolve_formula("simple") == "simple_resnik_like"
    with pytest.raises(UsageError, match="unknown MaxOntSim formula 'resnik'"):
        maxontsim_formulas.resolve_formula("resnik")


def test_an_unknown_formula_is_refused_without_a_maxontsim_measure_too():
    # it was passed unread (exit 0) when no MaxOntSim measure was asked
    with pytest.raises(UsageError, match="unknown MaxOntSim formula 'bogus'"):
        EvalSettings(options={"maxontsim_formula": "bogus"})
    # a bad option value names the option (docs: cli-conventions); it named none
    done = _score("-m", "P.1", "--maxontsim-formula", "bogus")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith(
        "trecbench: score: Invalid value for '--maxontsim-formula': unknown MaxOntSim "
        "formula 'bogus' (choose from "
    )
    assert done.stderr.count("\n") == 1


def _score(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "trecbench", "score", *args, "qrels/hpo-demo.qrels",
         "runs/tfidf-char.run"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_a_formula_without_a_maxontsim_measure_is_refused_as_benchmark_refuses_it():
    # it was accepted, changing nothing, and benchmark refuses the same setting
    said = "trecbench: {}: no MaxOntSim measure is scored ({} hold none): "
    said += "give -m MaxOntSim@k, or leave {} out\n"
    formula = ("--maxontsim-formula", "it")
    # [] : the KPI preset, no MaxOntSim in it
    for measures, given in ((["-m", "P@1"], "-m"), ([], "the default measures")):
        done = _score(*measures, "--maxontsim-formula", "hybrid_strict")
        assert (done.returncode, done.stdout, done.stderr) == (
            1,
            "",
            said.format(formula[0], given, formula[1]),
        )
    # compare alike (it was accepted there too, changing nothing)
    args = ["compare", "qrels/hpo-demo.qrels", "runs/tfidf-char.run", "runs/tfidf-word.run"]
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", *args, "-m", "P@1", "--maxontsim-formula", "hybrid"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (
        1,
        "",
        said.format(formula[0], "-m", "it"),
    )
    # an ontology file, read by MaxOntSim alone, likewise (benchmark refuses its ontology)
    done = _score("-m", "P@1", "--ontology", "README.md")  # refused before it is read
    assert (done.returncode, done.stdout, done.stderr) == (
        1,
        "",
        said.format("--ontology", "-m", "it"),
    )
    # agree and power take the same options: refused there too
    for command in ("agree", "power"):
        args = [command, "qrels/hpo-demo.qrels", "runs/tfidf-char.run", "runs/tfidf-word.run"]
        done = subprocess.run(
            [sys.executable, "-m", "trecbench", *args, "-m", "P@1", "--ontology", "README.md"],
            cwd=ROOT, capture_output=True, text=True, check=False,
        )  # fmt: skip
        expected = said.format("--ontology", "-m", "it")
        assert (done.returncode, done.stdout, done.stderr) == (1, "", expected), command
    done = _score("--ontology", "README.md", "--maxontsim-formula", "hybrid")
    both = said.format("--maxontsim-formula and --ontology", "the default measures", "them")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", both)
    done = _score("-q", "-m", "MaxOntSim@1", "--maxontsim-formula", "hybrid_strict")
    assert done.returncode == 0 and done.stderr == ""


# ---------------------------------------------------------------------------------------
# per query


def _ranked(rows):
    """rows: {qid: [docno, ...]} already in trec_eval order."""
    frames = [
        pd.DataFrame(
            {"qid": q, "docno": docs, "score": np.arange(len(docs), 0, -1.0)},
        ).assign(rank=np.arange(1, len(docs) + 1))
        for q, docs in rows.items()
    ]
    return pd.concat(frames, ignore_index=True)


def _qrels(rows):
    return pd.DataFrame(rows, columns=["qid", "docno", "rel"])


def test_per_query_values_and_exact_match_shortcut(onto):
    ranked = _ranked(
        {
            "a": [SHORT_STATURE, FOCAL, SEIZURE],  # gold at rank 3
            "b": [RECURRENT, AD_INHERITANCE],  # quirk pair with gold RUTI
            "c": [AD_INHERITANCE],  # only a root-LCA candidate
            "d": [SEIZURE],  # no gold with rel ≥ 1
            "x": [SEIZURE],  # not in qrels: not evaluated
        }
    )
    qrels = _qrels(
        [
            ("a", SEIZURE, 1),
            ("b", RUTI, 2),
            ("c", SEIZURE, 1),
            ("d", SEIZURE, 0),
            ("y", SEIZURE, 1),  # not in the run: not evaluated
        ]
    )
    at1 = max_ont_sim(ranked, qrels, 1, EvalSettings())
    assert list(at1.index) == ["a", "b", "c", "d"]
    assert at1.to_dict() == {"a": 0.125, "b": 1.0, "c": 0.0, "d": 0.0}
    at2 = max_ont_sim(ranked, qrels, 2, EvalSettings())
    assert at2["a"] == pytest.approx(0.4666666666666667)  # Focal-onset seizure at rank 2
    assert max_ont_sim(ranked, qrels, 3, EvalSettings())["a"] == 1.0  # exact match in the top 3
    strict = max_ont_sim(ranked, qrels, 10, _formula("hybrid_strict"))
    assert strict["b"] == pytest.approx(0.52) and strict["a"] == 1.0
    # relevance level 2 leaves only query b with gold ids
    lvl2 = max_ont_sim(ranked, qrels, 10, EvalSettings(relevance_level=2))
    assert lvl2.to_dict() == {"a": 0.0, "b": 1.0, "c": 0.0, "d": 0.0}
    with pytest.raises(UsageError):
        max_ont_sim(ranked, qrels, 0, EvalSettings())


def _formula(formula: str) -> EvalSettings:
    return EvalSettings(options={"maxontsim_formula": formula})


def test_k_monotonicity_on_random_rankings(onto):
    rng = np.random.default_rng(11)
    pool = rng.choice(onto.ids, 600, replace=False)
    ranked = _ranked({f"q{i}": list(rng.choice(pool, 30, replace=False)) for i in range(40)})
    qrels = _qrels([(f"q{i}", g, 1) for i in range(40) for g in rng.choice(pool, 2)])
    for formula in maxontsim_formulas.FORMULAS:
        options = _formula(formula)
        values = [max_ont_sim(ranked, qrels, k, options) for k in (1, 2, 5, 10, 30, 100)]
        for small, large in zip(values[:-1], values[1:], strict=True):
            assert (large >= small).all()
        assert not values[-1].equals(values[0])  # the test can fail: values do change with k
        assert ((values[-1] >= 0) & (values[-1] <= 1)).all()


def test_ontology_info_for_reports(tmp_path):
    info = maxontsim.ontology_info()
    assert info["release"] == "2025-11-24" and info["formula"] == "hybrid"
    assert info["source"].startswith("hpo3") and len(info["sha256"]) == 64
    from test_ontology import OBO

    path = tmp_path / "hp.obo"
    path.write_text(OBO)
    info = maxontsim.ontology_info(str(path), "simple")
    assert info["release"] == "2099-01-31" and info["formula"] == "simple_resnik_like"


def test_registered_in_the_local_measure_registry():
    from trecbench.engines import local

    entry = local.lookup("maxontsim")
    assert entry is not None and entry.compute is max_ont_sim
    assert local.lookup("max_ont_similarity") is entry
    assert local.by_trec_name("maxontsim") is entry


def test_through_evaluate_uses_trec_eval_order_and_options():
    from trecbench import evaluate

    # Tied scores: trec_eval orders by docno descending, so HP:0007359 (Focal-onset
    # seizure) is rank 1 although the producer listed Short stature first.
    run = pd.DataFrame(
        {
            "qid": ["q1", "q1", "q2"],
            "docno": [SHORT_STATURE, FOCAL, RECURRENT],
            "score": [1.0, 1.0, 0.5],
            "tag": "t",
        }
    )
    qrels = pd.DataFrame({"qid": ["q1", "q2"], "docno": [SEIZURE, RUTI], "rel": [1, 2]})

    def values(**kwargs):
        result = evaluate(qrels, run, ["MaxOntSim@1"], **kwargs).per_query
        return dict(zip(result["qid"], result["value"], strict=True))

    got = values()
    assert got["q1"] == pytest.approx(0.4666666666666667) and got["q2"] == 1.0
    assert values(options={"maxontsim_formula": "hybrid_strict"})["q2"] == pytest.approx(0.52)
    assert values(relevance_level=2)["q1"] == 0.0


def test_similarity_takes_an_ontology_path_as_ontology_options_do(tmp_path):
    # a path (as --ontology and options={"ontology": ...} take it) was used as an Ontology
    # and failed with an AttributeError
    from test_ontology import OBO

    path = tmp_path / "hp.obo"
    path.write_text(OBO)
    assert similarity("HP:0000006", "HP:0000004", "hybrid_strict", str(path)) == pytest.approx(0.94)
    assert similarity("HP:0000006", "HP:0000004", "hybrid_strict", path) == pytest.approx(0.94)
    assert pair_similarities(["HP:0000006"], ["HP:0000004"], "hybrid", path).tolist() == [1.0]


@pytest.mark.parametrize(
    "expected, retrieved",
    [([SEIZURE], [SEIZURE, FOCAL]), ([SEIZURE, FOCAL], [SEIZURE]), (SEIZURE, FOCAL)],
)
def test_pairs_not_aligned_are_refused(onto, expected, retrieved):
    # lengths 1 and 2 broadcast or failed with an IndexError; two strings with a TypeError
    with pytest.raises(UsageError, match="of one length"):
        pair_similarities(expected, retrieved, "hybrid", onto)


def test_relevant_ids_the_ontology_does_not_know_are_said_once(tmp_path, capsys):
    # an obsolete (HP:0000057) or mistyped (hp:0001250) gold id scored 0 against every
    # other id without a word, where convert hpo reports such ids
    from trecbench.cli import run

    qrels, ranked = tmp_path / "q", tmp_path / "r"
    qrels.write_text("x 0 HP:0000057 1\nx 0 HP:9 0\ny 0 hp:0001250 1\nz 0 HP:0001250 1\n")
    ranked.write_text("x Q0 HP:0008665 1 1.0 r\ny Q0 HP:0001250 1 1.0 r\nz Q0 HP:0001250 1 1 r\n")
    for jobs in ("1", "2"):
        assert run(["score", "-m", "MaxOntSim@10", "-j", jobs, str(qrels), str(ranked)]) == 0
        out, err = capsys.readouterr()
        assert out == "maxontsim_10          \tall\t0.3333\n"  # x 0, y 0, z 1
        said = (
            f"trecbench: warning: {qrels}: 2 relevant ids not among the ontology's terms "
            "(obsolete, unknown or mistyped: HP:0000057, hp:0001250): MaxOntSim scores such "
            "an id 1 where a run retrieves it and 0 against every other id\n"
        )
        assert err == said  # HP:9, judged 0, is no gold id: not said
    assert run(["score", "-m", "P.1", str(qrels), str(ranked)]) == 0
    assert "ontology" not in capsys.readouterr().err  # no MaxOntSim: no ontology read


def _warned(argv: list[str], capsys) -> tuple[str, list[str]]:
    """``score``'s output of ``argv`` and its warnings, each without the prefix."""
    from trecbench.cli import run

    assert run(["score", *argv]) == 0
    out, err = capsys.readouterr()
    return out, [line.removeprefix("trecbench: warning: ") for line in err.splitlines()]


def test_what_makes_maxontsim_another_measure_is_said(tmp_path, capsys):
    # -J drops the retrieved ids the qrels do not judge, those MaxOntSim credits: it was
    # HitRate unsaid (FOCAL retrieved: by hand, LCA Seizure at depth 4 of D 14, path 1 of
    # depths 4 + 5: 0.7 * 4/14 + 0.3 * (1 - 1/9) = 0.4667; 0 under -J). Qrels
    # grading expected ids 1 and 2 (convert hpo --graded ontology's parents and children
    # at 1) made a grade-1 id retrieved an exact hit, unsaid
    qrels, ranked = tmp_path / "q", tmp_path / "r"
    qrels.write_text(f"q1 0 {SEIZURE} 1\n")
    ranked.write_text(f"q1 Q0 {FOCAL} 1 2 r\nq1 Q0 HP:0000118 2 1 r\n")
    out, said = _warned(["-m", "MaxOntSim@1", str(qrels), str(ranked)], capsys)
    assert out == "maxontsim_1           \tall\t0.4667\n" and said == []
    out, said = _warned(["-J", "-m", "MaxOntSim@1", str(qrels), str(ranked)], capsys)
    assert out == "maxontsim_1           \tall\t0.0000\n"
    assert said == [
        "-J drops every retrieved id the qrels do not judge, the ids MaxOntSim gives partial "
        "credit to: only ids judged below its relevance level still earn it (where the "
        "qrels judge none, MaxOntSim@k is HitRate@k)"
    ]
    # a grade-0 judgment keeps its partial credit under -J (review 720: the warning said
    # HitRate, which is 0 here; by hand as above, 0.4667)
    qrels.write_text(f"q1 0 {SEIZURE} 1\nq1 0 {FOCAL} 0\n")
    out, _ = _warned(
        ["-J", "-m", "MaxOntSim@1", "-m", "success.1", str(qrels), str(ranked)], capsys
    )
    assert out == "maxontsim_1           \tall\t0.4667\nsuccess_1             \tall\t0.0000\n"
    qrels.write_text(f"q1 0 {SEIZURE} 2\nq1 0 {FOCAL} 1\n")
    out, said = _warned(["-m", "MaxOntSim@1", str(qrels), str(ranked)], capsys)
    assert out == "maxontsim_1           \tall\t1.0000\n"
    assert said == [
        f"{qrels}: MaxOntSim takes every id graded 1 or more as expected, and these qrels "
        "grade them 1 to 2: an id graded 1 retrieved scores 1, as an expected term does; "
        "MaxOntSim(rel=2) takes the top grade alone"
    ]
    for level in (["-l", "2", "-m", "MaxOntSim@1"], ["-m", "MaxOntSim(rel=2)@1"]):
        out, said = _warned([*level, str(qrels), str(ranked)], capsys)
        assert out.endswith("\tall\t0.4667\n") and said == []


def test_an_unknown_id_is_said_at_the_level_its_measure_counts_relevant(tmp_path, capsys):
    # MaxOntSim(rel=2) called the obsolete HP:0000057, graded 1, relevant: it is not at 2
    qrels, ranked = tmp_path / "q", tmp_path / "r"
    qrels.write_text(f"q1 0 {SEIZURE} 2\nq1 0 HP:0000057 1\n")
    ranked.write_text("q1 Q0 HP:0000057 1 1 r\n")
    out, said = _warned(["-m", "MaxOntSim(rel=2)@1", str(qrels), str(ranked)], capsys)
    assert out.endswith("\tall\t0.0000\n") and said == []
    both = ["-m", "MaxOntSim(rel=2)@1", "-m", "MaxOntSim@1", str(qrels), str(ranked)]
    out, said = _warned(both, capsys)  # relevant to MaxOntSim@1: said
    assert "1 relevant id not among the ontology's terms" in said[-1]


def test_a_benchmark_names_its_qrels_file_in_maxontsim_warnings(tmp_path, capsys):
    # benchmark said "qrels table: 1 relevant id not among ..." (score and leaderboard name
    # the file): its qrels, read once, went to the scoring as a table without its path
    from trecbench.cli import run

    (tmp_path / "q.qrels").write_text(f"q1 0 {SEIZURE} 1\nq2 0 HP:0000057 1\n")
    for mode in "ab":
        (tmp_path / f"{mode}.run").write_text(
            f"q1 Q0 {FOCAL} 1 2 {mode}\nq2 Q0 {SEIZURE} 1 1 {mode}\n"
        )
    config = tmp_path / "c.toml"
    config.write_text(
        'qrels = "q.qrels"\nmeasures = ["MaxOntSim@1"]\n[statistics]\nsamples = 100\n'
        '[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "b.run"\n'
    )
    assert run(["benchmark", str(config), "-o", str(tmp_path / "o"), "--quiet"]) == 0
    said = capsys.readouterr().err
    assert f"trecbench: warning: {tmp_path / 'q.qrels'}: 1 relevant id not among" in said
    assert "qrels table" not in said
