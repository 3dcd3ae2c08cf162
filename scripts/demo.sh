#!/usr/bin/env bash
# The main job on the bundled data: validate the bundled runs against the bundled qrels.
set -euo pipefail
cd "$(dirname "$0")/.."
TB=".venv/bin/trecbench"
echo "== validate"
$TB validate runs/*.run --qrels qrels/*.qrels
