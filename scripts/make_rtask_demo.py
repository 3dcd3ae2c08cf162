"""Write the bundled R-task-like demo: an HPO term collection, graded pooled qrels, a lexical
(BM25), a vector (LSA) and a reranked run, and a routing log (offline, deterministic).

The collection is the 19,000-odd active terms of the HPO release bundled in hpo3, each
document its term name (hpo3 ships names; its synonym and definition fields are empty). The
queries are the 56 English and German phrases of ``data/hpo-demo/cases.json``. Outputs,
under ``data/hpo-rtask/``:

* ``lexical.run`` — BM25 (the ``bm25s`` library, Lucene variant, k1 1.5, b 0.75) over the
  names tokenised by bm25s's default pattern, no stop words, no stemming; the best 100
  documents per query, as bm25s's ``retrieve`` returns them, zero scores included: a German
  phrase that shares no word with the English names gets 100 documents scored 0, in
  trec_eval's tie order (docno descending), so that every run covers every query as the
  R task requires.
* ``vector.run`` — LSA with scikit-learn: ``TfidfVectorizer`` over character 3-5-grams
  inside words (``char_wb``; sublinear tf, smoothed idf, L2-normalised), reduced to
  :data:`DIMENSIONS` dimensions by ``TruncatedSVD`` (randomized, 2 power iterations,
  ``random_state=0``); cosine similarity of the normalised term and query vectors.
* ``reranked.run`` — the lexical run's documents re-scored by the vector cosine.
* ``hpo-rtask.qrels`` — graded from the ontology: 2 for an expected term, 1 for a parent
  or child of one; pooled like a TREC track: the top :data:`POOL_DEPTH` of the lexical and
  vector runs are judged, 0 when not relevant (the reranked run and the fused hybrid
  therefore meet unjudged documents).
* ``routing.jsonl`` — a routing log for the mixture-of-experts metrics: the router chooses
  ``lexical`` when the query shares a term with the collection's vocabulary, else
  ``vector``; the optimal expert is the mode with the higher nDCG@10 on that query
  (``null`` when they tie); every phrase needs retrieval, and retrieval always ran.

Runs are :data:`DEPTH` deep (Recall@50 and Recall@100 differ), scores rounded to 6 decimals
and ranked by trecbench's tie policy, written as canonical runs by trecbench itself.

Run: ``.venv/bin/python scripts/make_rtask_demo.py [--out data/hpo-rtask]`` (needs the
``demo-data`` extra: ``pip install -e '.[demo-data]'``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from threadpoolctl import threadpool_limits

import trecbench
from trecbench.files import qrels_bytes, run_bytes
from trecbench.inputs import to_pandas
from trecbench.ontology import load_ontology
from trecbench.outputs import OutputSet

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "data" / "hpo-demo" / "cases.json"
DEPTH = 100
POOL_DEPTH = 10
DIMENSIONS = 64
DECIMALS = 6


class Lsa:
    """Character n-gram TF-IDF reduced by a truncated SVD (latent semantic analysis)."""

    def __init__(self, documents: list[str], dimensions: int):
        self.tfidf = TfidfVectorizer(
            analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True, dtype=np.float64
        )
        weighted = self.tfidf.fit_transform(documents)
        svd = TruncatedSVD(dimensions, algorithm="randomized", n_iter=2, random_state=0)
        # one BLAS thread: the same sums in the same order on every machine (and faster on
        # a busy one)
        with threadpool_limits(1):
            self.components = svd.fit(weighted).components_  # dimensions x vocabulary
        self.documents = self._unit(np.asarray(weighted @ self.components.T))

    @staticmethod
    def _unit(vectors: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)

    def scores(self, queries: list[str]) -> np.ndarray:
        """queries x documents cosine similarities."""
        vectors = self._unit(np.asarray(self.tfidf.transform(queries) @ self.components.T))
        return vectors @ self.documents.T


def _ranked(qids, docnos, scores, tag: str, depth: int = DEPTH) -> pd.DataFrame:
    """Rows ranked by trecbench's policy and cut at ``depth`` per topic."""
    table = pa.table(
        {
            "qid": pa.array(list(qids), pa.string()),
            "docno": pa.array(list(docnos), pa.string()),
            "score": pa.array(np.round(scores, DECIMALS), pa.float64()),
            "tag": pa.array([tag] * len(qids), pa.string()),
        }
    )
    ranked = to_pandas(trecbench.rank_run(table))
    return ranked[ranked["rank"] <= depth].reset_index(drop=True)


def _top(ids: np.ndarray, qids: list[str], matrix: np.ndarray, tag: str):
    """The best ``DEPTH`` documents per query of a queries x documents score matrix, chosen
    as trecbench ranks: score descending at float32, ties by docno descending."""
    descending = np.empty(len(ids), np.int64)
    descending[np.argsort(ids.astype(str))[::-1]] = np.arange(len(ids))
    rows, docs, values = [], [], []
    for q, scores in enumerate(matrix):
        rounded = np.round(scores, DECIMALS)
        keep = np.lexsort((descending, -rounded.astype(np.float32)))[:DEPTH]
        rows += [qids[q]] * len(keep)
        docs.append(ids[keep])
        values.append(scores[keep])
    docnos = np.concatenate(docs) if docs else np.empty(0, object)
    return _ranked(rows, docnos, np.concatenate(values), tag)


def make_qrels(onto, cases: list[dict], pooled: list[pd.DataFrame]) -> pd.DataFrame:
    children: dict[str, set[str]] = {}
    for term in onto.ids:
        for parent in onto.parents(term):
            children.setdefault(parent, set()).add(term)
    grades: dict[tuple[str, str], int] = {}
    for case in cases:
        for term in case["expected_hpo_ids"]:
            neighbours = set(onto.parents(term)) | children.get(term, set())
            for other in neighbours:
                grades.setdefault((case["case_id"], other), 1)
        for term in case["expected_hpo_ids"]:
            grades[(case["case_id"], term)] = 2
    for run in pooled:
        top = run[run["rank"] <= POOL_DEPTH]
        for qid, docno in zip(top["qid"], top["docno"], strict=True):
            grades.setdefault((qid, docno), 0)
    rows = sorted((qid, docno, rel) for (qid, docno), rel in grades.items())
    return pd.DataFrame(rows, columns=["qid", "docno", "rel"])


def routing_lines(qids: list[str], matched: set[str], qrels_path: Path, runs: dict) -> list[str]:
    evaluation = trecbench.evaluate(
        str(qrels_path), list(runs.values()), ["nDCG@10"], run_names=list(runs)
    )
    values = evaluation.per_query.pivot(index="qid", columns="run", values="value")
    values = values.reindex(qids).fillna(0.0)
    lines = []
    for qid in qids:
        lexical, vector = values.loc[qid, "lexical"], values.loc[qid, "vector"]
        optimal = None if lexical == vector else ("lexical" if lexical > vector else "vector")
        record = {
            "qid": qid,
            "chosen_expert": "lexical" if qid in matched else "vector",
            "optimal_expert": optimal,
            "retrieval_ran": True,
            "should_retrieve": True,
        }
        lines.append(json.dumps(record))
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "hpo-rtask")
    args = parser.parse_args(argv)
    import bm25s

    onto = load_ontology()
    ids = np.array(onto.ids, dtype=object)
    names = [onto.label(term) for term in onto.ids]
    cases = json.loads(CASES.read_text(encoding="utf-8"))["test_cases"]
    qids = [case["case_id"] for case in cases]
    texts = [case["text"] for case in cases]

    tokenize = {"stopwords": None, "show_progress": False, "return_ids": False}
    bm25 = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    bm25.index(bm25s.tokenize(names, **tokenize), show_progress=False)
    lexical_scores = np.vstack(
        [bm25.get_scores(tokens) for tokens in bm25s.tokenize(texts, **tokenize)]
    ).astype(np.float64)
    lexical = _top(ids, qids, lexical_scores, "bm25")

    lsa = Lsa(names, DIMENSIONS)
    dense = lsa.scores(texts)
    vector = _top(ids, qids, dense, "lsa")

    # rerank: the lexical candidates, scored by the vector cosine
    column = {term: i for i, term in enumerate(onto.ids)}
    row = {qid: i for i, qid in enumerate(qids)}
    cosine = dense[[row[q] for q in lexical["qid"]], [column[d] for d in lexical["docno"]]]
    reranked = _ranked(list(lexical["qid"]), lexical["docno"].to_numpy(), cosine, "bm25-lsa")

    qrels = make_qrels(onto, cases, [lexical, vector])
    out = args.out
    runs = {"lexical": lexical, "vector": vector, "reranked": reranked}
    files = {out / "hpo-rtask.qrels": qrels_bytes(qrels)}
    files |= {out / f"{name}.run": run_bytes(frame) for name, frame in runs.items()}
    with OutputSet() as staged:
        for path, data in files.items():
            staged.write(path, data)
    # the router: lexical when the query shares a word with the collection
    matched = {qid for qid, scores in zip(qids, lexical_scores, strict=True) if scores.max() > 0}
    lines = routing_lines(
        qids,
        matched,
        out / "hpo-rtask.qrels",
        {name: str(out / f"{name}.run") for name in ("lexical", "vector")},
    )
    with OutputSet() as staged:
        staged.write(out / "routing.jsonl", "\n".join(lines) + "\n")
    for path in [*files, out / "routing.jsonl"]:
        print(f"{path}: {len(path.read_bytes().splitlines())} lines")


if __name__ == "__main__":
    main()
