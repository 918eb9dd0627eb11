#!/usr/bin/env bash
# The generators benchmark end to end, from a clean clone with ../shared beside it:
#   bash benchmarks/generators/run.sh
# Creates the main environment (make's .venv) and one environment per peer under .venvs/ (pinned:
# requirements/NAME.txt, constrained by requirements/NAME.lock), splits the data, makes the releases,
# runs every evaluator and writes RESULTS.md's tables, generators.png and RESULTS-attacks.md's tables. Tens of minutes on 2 cores.
# Environment: SEED (default 0), DATASETS (default: every one present), MAIN_VENV (default: the repo's .venv),
# KEEP_RELEASES=1 to reuse releases already made. Evaluators skip a release they already measured byte for byte
# (results in work/results/*.jsonl): remove benchmarks/generators/work for a run from scratch.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
MAIN_VENV=${MAIN_VENV:-$ROOT/.venv}
SEED=${SEED:-0}
export PYTHONHASHSEED=0
cd "$HERE"

if [ ! -x "$MAIN_VENV/bin/alc-dask" ]; then
  make -C "$ROOT" .venv/bin/.installed
fi
MAIN="$MAIN_VENV/bin/python"
"$MAIN" -c 'import matplotlib' 2>/dev/null || "$MAIN" -m pip install --quiet matplotlib

peer_env() {  # peer_env NAME: create .venvs/NAME from its pinned requirements once
  local name=$1 env=.venvs/$1
  if [ ! -f "$env/.installed" ] || [ "requirements/$name.txt" -nt "$env/.installed" ] || [ "requirements/$name.lock" -nt "$env/.installed" ]; then
    echo "== environment $name (pip; torch==2.13.0 takes the local CPU file where it is needed)"
    "$PYTHON" -m venv "$env"
    "$env/bin/python" -m pip install --quiet --upgrade pip
    "$env/bin/python" -m pip install --quiet -r "requirements/$name.txt" -c "requirements/$name.lock"
    touch "$env/.installed"
  fi
}
for name in sdv smartnoise anonymeter syntheval; do peer_env "$name"; done

echo "== data"
if ! "$MAIN" data.py --seed "$SEED" ${DATASETS:+--datasets $DATASETS}; then
  echo "no shared dataset found beside the repository (../shared/data): nothing to benchmark" >&2
  exit 0
fi
"$MAIN" real.py --seed "$SEED"
KEEP=${KEEP_RELEASES:+--skip-existing}
echo "== releases"
"$MAIN" releases.py --seed "$SEED"
.venvs/sdv/bin/python gen_sdv.py --seed "$SEED" $KEEP
.venvs/smartnoise/bin/python gen_smartnoise.py --seed "$SEED" --aim-rounds "${AIM_ROUNDS:-30}" $KEEP

echo "== evaluators"
"$MAIN" evaluators/alc_check.py
"$MAIN" evaluators/alc_attacks.py
.venvs/anonymeter/bin/python evaluators/anonymeter_eval.py
.venvs/sdv/bin/python evaluators/sdmetrics_eval.py
.venvs/syntheval/bin/python evaluators/syntheval_eval.py

echo "== report"
"$MAIN" report.py
"$MAIN" attacks_report.py
