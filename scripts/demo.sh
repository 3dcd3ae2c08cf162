#!/usr/bin/env bash
# The main job, end to end on the bundled HPO benchmark (offline, well under a minute), one
# line a step and one table a command; everything else goes to out/ (logs in out/logs/):
#   1. convert Phentrieve-style test cases and three baseline result files into
#      qrels/hpo-demo.qrels, runs/<run>.run and qrels/hpo-demo.sidecar.json (committed;
#      regenerating them must leave `git status` clean), and one input of every other
#      converter (data/convert) into out/convert/;
#   2. validate the runs against the qrels;
#   3. score them with the KPI preset plus MaxOntSim@10, overall and per stratum
#      (difficulty, language, category): reports in out/;
#   4. compare the runs against tfidf-word: intervals, paired tests, plots and report.html
#      in out/hpo-demo-compare/ (a folder of its own: the examples of the help and docs
#      write out/compare without a grouping);
#   5. run the R-task benchmark of data/hpo-rtask/benchmark.toml (lexical, vector, their RRF
#      fusion, a reranked mode; targets, completeness, routing) into out/hpo-rtask/.
set -euo pipefail
cd "$(dirname "$0")/.."
TB="${TRECBENCH:-.venv/bin/trecbench}"
DATA="data/hpo-demo"
OUT="out"
LOGS="$OUT/logs"
mkdir -p "$LOGS"

MEASURES=(-m nDCG@10 -m MAP@100 -m MRR@10 -m Recall@50 -m Recall@100 -m HitRate@10
          -m MaxOntSim@10)
RUNS=(runs/tfidf-char.run runs/tfidf-word.run runs/tfidf-word-parents.run)
STRATA=(--strata qrels/hpo-demo.sidecar.json)

echo "1. convert: $DATA -> qrels/ runs/, and every other converter's example -> $OUT/convert/"
C=data/convert
{
$TB convert hpo "$DATA/cases.json" \
  --results "$DATA/results/tfidf-char/terms.jsonl" \
  --results "$DATA/results/tfidf-word/terms.jsonl" \
  --results "$DATA/results/tfidf-word-parents/terms.jsonl" \
  --name hpo-demo -o qrels --runs-dir runs
$TB convert code-chunk "$C/code-chunk-detailed.json" -o "$OUT/convert/code-chunk"
$TB convert memorybench "$C/memorybench-export.json" --line-offset chonkie=-1 -o "$OUT/convert/memorybench"
$TB convert lists "$C/remem-chunks.json" --match chunks -o "$OUT/convert/lists"
$TB convert dict "$C/bm25-results.json" --beir-qrels "$C/beir-test.tsv" -o "$OUT/convert/dict"
$TB convert beir-qrels "$C/beir-test.tsv" -o "$OUT/convert/beir-qrels"
$TB convert msmarco "$C/msmarco-run.tsv" -o "$OUT/convert/msmarco"
} > "$LOGS/convert.log" 2>&1

echo "2. validate the runs against the qrels (findings: $LOGS/validate.log)"
$TB validate "${RUNS[@]}" --qrels qrels/hpo-demo.qrels > "$LOGS/validate.log" 2>&1
tail -n 1 "$LOGS/validate.log"

echo
echo "3. score: the KPI preset and MaxOntSim@10 (per stratum and reports: $OUT/hpo-demo.*)"
$TB score qrels/hpo-demo.qrels "${RUNS[@]}" "${MEASURES[@]}" --format table \
  --report "$OUT/hpo-demo.report.json" --manifest "$OUT/hpo-demo.manifest.json" \
  --meta benchmark=hpo-demo 2> "$LOGS/score.log"
{
$TB score qrels/hpo-demo.qrels "${RUNS[@]}" "${MEASURES[@]}" "${STRATA[@]}" \
  --group-by difficulty --group-by language --group-by category --format markdown \
  > "$OUT/hpo-demo.scores.md"
$TB score qrels/hpo-demo.qrels "${RUNS[@]}" "${MEASURES[@]}" -q --format trec \
  > "$OUT/hpo-demo.trec_eval.txt"
} 2>> "$LOGS/score.log"

echo
echo "4. compare against tfidf-word, per language (everything: $OUT/hpo-demo-compare/)"
$TB compare qrels/hpo-demo.qrels runs/tfidf-word.run runs/tfidf-char.run \
  runs/tfidf-word-parents.run "${MEASURES[@]}" --test randomization --seed 42 \
  "${STRATA[@]}" --group-by language -o "$OUT/hpo-demo-compare" --plots --power 0.8 \
  > "$LOGS/compare.txt" 2> "$LOGS/compare.log"
# the all-topics table: from its title to the blank line after it
sed -n '/^All topics/,/^$/p' "$LOGS/compare.txt"

echo "5. benchmark: the R-task modes of data/hpo-rtask (everything: $OUT/hpo-rtask/)"
$TB benchmark data/hpo-rtask/benchmark.toml -o "$OUT/hpo-rtask" \
  > "$LOGS/benchmark.md" 2> "$LOGS/benchmark.log"
sed -n '/^| Metric/,/^$/p' "$LOGS/benchmark.md"

warnings=$(cat "$LOGS"/*.log | grep -h "^trecbench: warning" | sort -u || true)
if [ -n "$warnings" ]; then
  echo "warnings (each once; all output in $LOGS/):"
  echo "$warnings" | sed 's/^/  /'
fi
echo
echo "Open in a browser: $OUT/hpo-demo-compare/report.html and $OUT/hpo-rtask/report.html"
echo "Next, try:"
echo "  $TB compare qrels/hpo-demo.qrels runs/tfidf-word.run runs/tfidf-char.run -m nDCG@10"
echo "  $TB similarity data/hpo-rtask/lexical.run data/hpo-rtask/reranked.run"
echo "  $TB leaderboard data/leaderboard.toml"
