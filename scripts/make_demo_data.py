"""Write the bundled HPO demo benchmark and three lexical baseline runs (offline, deterministic).

Outputs, under ``data/hpo-demo/`` (the source files ``trecbench convert hpo`` turns into
``qrels/`` and ``runs/``):

* ``cases.json`` — 56 hand-written clinical phrases, 28 English and 28 German, in
  Phentrieve's richer schema (``metadata`` + ``test_cases`` with ``case_id``, ``text``,
  ``expected_hpo_ids``, ``difficulty``, ``category``, ``hpo_domain``, ``language``).
  Every expected id is checked to be an active term of the bundled HPO release;
  ``hpo_domain`` is derived from the ontology (the organ-system branch under
  "Phenotypic abnormality" of the first expected id).
* ``results/<run>/terms.jsonl`` — Phentrieve's per-candidate result lines
  (``case_id, hpo_id, label, rank, score, is_gold``), the top 50 HPO terms per case from
  three TF-IDF retrievers over the term labels of the bundled ontology:

  - ``tfidf-word``: word unigrams of the label;
  - ``tfidf-char``: character 3-5-grams inside words (robust to German spellings such as
    "Mikrozephalie" vs "Microcephaly");
  - ``tfidf-word-parents``: word unigrams of the label plus its parents' labels.

  TF-IDF: sublinear tf (1 + ln tf), smoothed idf ln((N + 1)/(df + 1)) + 1, L2-normalised
  vectors, cosine score rounded to 6 decimals. Candidates are ordered by score, ties by
  HPO id — the order the converter must preserve. No randomness is involved.

Run: ``.venv/bin/python scripts/make_demo_data.py [--out data/hpo-demo]``.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np
from scipy import sparse

from trecbench.ontology import load_ontology
from trecbench.outputs import write_file

ROOT = Path(__file__).resolve().parents[1]
DEPTH = 50
PHENOTYPIC_ABNORMALITY = "HP:0000118"

# (English phrase, German phrase, expected ids, difficulty en, difficulty de, category en,
#  category de). Categories follow Phentrieve's proposal: exact_match, synonym,
#  abbreviation, layperson, complex.
CONCEPTS = [
    ("seizures", "Krampfanfälle", ["HP:0001250"], "easy", "medium", "exact_match", "synonym"),
    ("short stature", "Kleinwuchs", ["HP:0004322"], "easy", "medium", "exact_match", "synonym"),
    ("microcephaly", "Mikrozephalie", ["HP:0000252"], "easy", "easy", "exact_match", "exact_match"),
    (
        "abnormally large head",
        "Makrozephalie",
        ["HP:0000256"],
        "medium",
        "easy",
        "layperson",
        "exact_match",
    ),
    (
        "intellectual disability",
        "geistige Behinderung",
        ["HP:0001249"],
        "easy",
        "medium",
        "exact_match",
        "synonym",
    ),
    (
        "developmental delay",
        "Entwicklungsverzögerung",
        ["HP:0001263"],
        "medium",
        "medium",
        "synonym",
        "synonym",
    ),
    ("floppy baby", "Muskelhypotonie", ["HP:0001252"], "hard", "medium", "layperson", "synonym"),
    ("curved spine", "Skoliose", ["HP:0002650"], "hard", "easy", "layperson", "exact_match"),
    ("hearing loss", "Schwerhörigkeit", ["HP:0000365"], "medium", "medium", "synonym", "synonym"),
    ("cleft palate", "Gaumenspalte", ["HP:0000175"], "easy", "medium", "exact_match", "synonym"),
    (
        "VSD",
        "Ventrikelseptumdefekt",
        ["HP:0001629"],
        "hard",
        "medium",
        "abbreviation",
        "exact_match",
    ),
    ("ASD", "Vorhofseptumdefekt", ["HP:0001631"], "hard", "medium", "abbreviation", "synonym"),
    (
        "enlarged liver",
        "Hepatomegalie",
        ["HP:0002240"],
        "medium",
        "easy",
        "layperson",
        "exact_match",
    ),
    (
        "splenomegaly",
        "vergrößerte Milz",
        ["HP:0001744"],
        "easy",
        "hard",
        "exact_match",
        "layperson",
    ),
    (
        "extra fingers",
        "Polydaktylie der Hand",
        ["HP:0001161"],
        "hard",
        "medium",
        "layperson",
        "exact_match",
    ),
    ("drooping upper eyelid", "Ptosis", ["HP:0000508"], "hard", "easy", "layperson", "exact_match"),
    ("squint", "Schielen", ["HP:0000486"], "hard", "hard", "synonym", "layperson"),
    ("nystagmus", "Augenzittern", ["HP:0000639"], "easy", "hard", "exact_match", "layperson"),
    ("obesity", "Adipositas", ["HP:0001513"], "easy", "medium", "exact_match", "synonym"),
    (
        "failure to thrive",
        "Gedeihstörung",
        ["HP:0001508"],
        "easy",
        "medium",
        "exact_match",
        "synonym",
    ),
    ("autistic behaviour", "Autismus", ["HP:0000717"], "medium", "easy", "synonym", "exact_match"),
    (
        "unsteady gait",
        "unsicherer Gang",
        ["HP:0002317"],
        "easy",
        "medium",
        "exact_match",
        "synonym",
    ),
    (
        "widely spaced eyes",
        "Hypertelorismus",
        ["HP:0000316"],
        "hard",
        "easy",
        "layperson",
        "exact_match",
    ),
    (
        "protein in the urine",
        "Proteinurie",
        ["HP:0000093"],
        "medium",
        "easy",
        "layperson",
        "exact_match",
    ),
    (
        "frequent infections",
        "rezidivierende Infekte",
        ["HP:0002719"],
        "medium",
        "hard",
        "synonym",
        "synonym",
    ),
    (
        "clouding of the lens",
        "Grauer Star",
        ["HP:0000518"],
        "hard",
        "hard",
        "layperson",
        "layperson",
    ),
    (
        "short stature and microcephaly",
        "Kleinwuchs und Mikrozephalie",
        ["HP:0004322", "HP:0000252"],
        "medium",
        "hard",
        "complex",
        "complex",
    ),
    (
        "seizures with global developmental delay",
        "Krampfanfälle mit globaler Entwicklungsverzögerung",
        ["HP:0001250", "HP:0001263"],
        "medium",
        "hard",
        "complex",
        "complex",
    ),
]


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", text.lower())


def _char_grams(text: str) -> list[str]:
    grams = []
    for word in _words(text):
        padded = f" {word} "
        for n in (3, 4, 5):
            grams.extend(padded[i : i + n] for i in range(len(padded) - n + 1))
    return grams


class TfIdf:
    """Cosine TF-IDF retrieval over a fixed list of documents (sparse matrices)."""

    def __init__(self, documents: list[list[str]]):
        self.vocab: dict[str, int] = {}
        rows, cols = [], []
        for i, tokens in enumerate(documents):
            for token in tokens:
                rows.append(i)
                cols.append(self.vocab.setdefault(token, len(self.vocab)))
        counts = sparse.csr_matrix(
            (np.ones(len(rows)), (rows, cols)), shape=(len(documents), len(self.vocab))
        )
        counts.sum_duplicates()
        df = np.bincount(counts.indices, minlength=len(self.vocab))
        self.idf = np.log((len(documents) + 1) / (df + 1)) + 1
        self.matrix = self._weigh(counts)

    def _weigh(self, counts):
        counts = counts.tocsr().astype(np.float64)
        counts.data = 1 + np.log(counts.data)
        weighted = counts.multiply(self.idf).tocsr()
        norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
        norms[norms == 0] = 1
        return sparse.diags(1 / norms) @ weighted

    def scores(self, tokens: list[str]) -> np.ndarray:
        cols = [self.vocab[t] for t in tokens if t in self.vocab]
        query = sparse.csr_matrix(
            (np.ones(len(cols)), (np.zeros(len(cols), int), cols)), shape=(1, len(self.vocab))
        )
        query.sum_duplicates()
        return np.asarray((self.matrix @ self._weigh(query).T).todense()).ravel()


def make_cases(onto) -> list[dict]:
    """The test cases, ids checked against the ontology; qids en-01.., de-01.."""
    top = {t for t in onto.ids if PHENOTYPIC_ABNORMALITY in onto.parents(t)}
    cases = {"en": [], "de": []}
    for en, de, ids, diff_en, diff_de, cat_en, cat_de in CONCEPTS:
        for term in ids:
            assert onto.is_active(term), f"{term} is not an active term of HPO {onto.release}"
        branches = sorted(onto.label(t) for t in onto.ancestors(ids[0]) & top)
        domain = re.sub(r"^Abnormality of (the )?", "", branches[0]) if branches else "other"
        for lang, text, difficulty, category in (
            ("en", en, diff_en, cat_en),
            ("de", de, diff_de, cat_de),
        ):
            cases[lang].append(
                {
                    "case_id": f"{lang}-{len(cases[lang]) + 1:02d}",
                    "text": text,
                    "expected_hpo_ids": ids,
                    "difficulty": difficulty,
                    "category": category,
                    "hpo_domain": domain,
                    "language": lang,
                }
            )
    return cases["en"] + cases["de"]


def retrievers(onto) -> dict:
    """name -> (analyser, document tokens per term, in ``onto.ids`` order)."""
    labels = [onto.label(t) for t in onto.ids]
    with_parents = [
        _words(onto.label(t)) + [w for p in onto.parents(t) for w in _words(onto.label(p))]
        for t in onto.ids
    ]
    return {
        "tfidf-word": (_words, [_words(x) for x in labels]),
        "tfidf-char": (_char_grams, [_char_grams(x) for x in labels]),
        "tfidf-word-parents": (_words, with_parents),
    }


def run_lines(onto, cases, analyser, documents) -> list[str]:
    """Phentrieve ``terms.jsonl`` lines: top ``DEPTH`` terms per case."""
    model = TfIdf(documents)
    ids = onto.ids
    by_id = np.argsort(ids.astype(str))  # tie order: HPO id ascending
    id_rank = np.empty(len(ids), np.int64)
    id_rank[by_id] = np.arange(len(ids))
    lines = []
    for case in cases:
        scores = np.round(model.scores(analyser(case["text"])), 6)
        order = np.lexsort((id_rank, -scores))[:DEPTH]
        gold = set(case["expected_hpo_ids"])
        for rank, i in enumerate(order, start=1):
            record = {
                "case_id": case["case_id"],
                "hpo_id": ids[i],
                "label": onto.label(ids[i]),
                "rank": rank,
                "score": float(scores[i]),
                "is_gold": ids[i] in gold,
            }
            lines.append(json.dumps(record, ensure_ascii=False))
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "hpo-demo")
    args = parser.parse_args(argv)
    onto = load_ontology()
    cases = make_cases(onto)
    document = {
        "metadata": {
            "dataset_id": "trecbench-hpo-demo",
            "version": "1.0",
            "description": (
                "Hand-written English and German clinical phrases with their HPO terms, "
                f"checked against HPO {onto.release} ({onto.source}); written by "
                "scripts/make_demo_data.py for trecbench's demo."
            ),
            "hpo_release": onto.release,
            "hpo_sha256": onto.sha256,
        },
        "test_cases": cases,
    }
    write_file(args.out / "cases.json", json.dumps(document, ensure_ascii=False, indent=2) + "\n")
    for name, (analyser, documents) in retrievers(onto).items():
        lines = run_lines(onto, cases, analyser, documents)
        write_file(args.out / "results" / name / "terms.jsonl", "\n".join(lines) + "\n")
        print(f"{args.out / 'results' / name / 'terms.jsonl'}: {len(lines)} candidates")
    print(f"{args.out / 'cases.json'}: {len(cases)} cases (HPO {onto.release})")


if __name__ == "__main__":
    main()
