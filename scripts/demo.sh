#!/usr/bin/env bash
# The main job, end to end on the bundled HPO benchmark (offline, well under a minute):
#   1. convert Phentrieve-style test cases and three baseline result files into
#      qrels/hpo-demo.qrels, runs/<run>.run and the sidecar qrels/hpo-demo.sidecar.json
#      (committed; regenerating them must leave `git status` clean), and one small input
#      of every other converter (data/convert) into out/convert/;
#   2. validate the runs against the qrels;
#   3. score them with the KPI preset plus MaxOntSim@10, overall and per stratum
#      (difficulty, language, category), writing reports into out/ (gitignored);
#   4. compare the runs against tfidf-word: intervals, paired tests, tables and plots in
#      out/compare/;
#   5. run the R-task benchmark of data/hpo-rtask/benchmark.toml (lexical, vector, their
#      RRF fusion, a reranked mode; targets, completeness, routing) into out/hpo-rtask/.
set -euo pipefail
cd "$(dirname "$0")/.."
TB="${TRECBENCH:-.venv/bin/trecbench}"
DATA="data/hpo-demo"
OUT="out"
mkdir -p "$OUT"

MEASURES=(-m nDCG@10 -m MAP@100 -m MRR@10 -m Recall@50 -m Recall@100 -m HitRate@10
          -m MaxOntSim@10)
RUNS=(runs/tfidf-char.run runs/tfidf-word.run runs/tfidf-word-parents.run)

echo "== convert: $DATA -> qrels/ runs/"
$TB convert hpo "$DATA/cases.json" \
  --results "$DATA/results/tfidf-char/terms.jsonl" \
  --results "$DATA/results/tfidf-word/terms.jsonl" \
  --results "$DATA/results/tfidf-word-parents/terms.jsonl" \
  --name hpo-demo -o qrels --runs-dir runs
C=data/convert
$TB convert code-chunk "$C/code-chunk-detailed.json" -o "$OUT/convert/code-chunk"
$TB convert memorybench "$C/memorybench-export.json" --line-offset chonkie=-1 -o "$OUT/convert/memorybench"
$TB convert lists "$C/remem-chunks.json" --match chunks -o "$OUT/convert/lists"
$TB convert dict "$C/bm25-results.json" --beir-qrels "$C/beir-test.tsv" -o "$OUT/convert/dict"
$TB convert beir-qrels "$C/beir-test.tsv" -o "$OUT/convert/beir-qrels"
$TB convert msmarco "$C/msmarco-run.tsv" -o "$OUT/convert/msmarco"

echo
echo "== validate"
$TB validate "${RUNS[@]}" --qrels qrels/hpo-demo.qrels

echo
echo "== score: KPI preset + MaxOntSim@10, per difficulty, language and category"
$TB score qrels/hpo-demo.qrels "${RUNS[@]}" "${MEASURES[@]}" \
  --strata qrels/hpo-demo.sidecar.json \
  --group-by difficulty --group-by language --group-by category \
  --format table --report "$OUT/hpo-demo.report.json" \
  --manifest "$OUT/hpo-demo.manifest.json" --meta benchmark=hpo-demo
$TB score qrels/hpo-demo.qrels "${RUNS[@]}" "${MEASURES[@]}" \
  --strata qrels/hpo-demo.sidecar.json --group-by difficulty --group-by language \
  --format markdown > "$OUT/hpo-demo.scores.md"
$TB score qrels/hpo-demo.qrels "${RUNS[@]}" "${MEASURES[@]}" -q --format trec \
  > "$OUT/hpo-demo.trec_eval.txt"
echo
echo "reports: $OUT/hpo-demo.report.json $OUT/hpo-demo.manifest.json" \
  "$OUT/hpo-demo.scores.md $OUT/hpo-demo.trec_eval.txt"

echo
echo "== compare: tfidf-char and tfidf-word-parents against tfidf-word, per language"
$TB compare qrels/hpo-demo.qrels runs/tfidf-word.run runs/tfidf-char.run \
  runs/tfidf-word-parents.run "${MEASURES[@]}" --test randomization --seed 42 \
  --strata qrels/hpo-demo.sidecar.json --group-by language -o "$OUT/compare" --plots

# ---- R-task benchmark (trecbench benchmark; data from scripts/make_rtask_demo.py) ----
echo
echo "== benchmark: lexical, vector, hybrid (RRF fusion) and reranked modes of the R-task demo"
$TB benchmark data/hpo-rtask/benchmark.toml -o "$OUT/hpo-rtask"
# ---- end of the R-task benchmark ----
