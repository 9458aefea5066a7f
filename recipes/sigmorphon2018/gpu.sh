#!/usr/bin/env bash
# The every-language members on one GPU: trains a high and a medium multilingual model (the
# paper's size, batches of 256, bfloat16 products) for MINUTES each (default 4; SIGTERM then
# saves a resumable state and the best epoch so far is kept), then scores both on every language's
# full dev set with beam 5 (ship.py --dry-run), printing the macro-averages and the tables.
# Expected cost on one H200: 2 x MINUTES of training plus about 2 minutes of evaluation.
#
# On a GPU machine without network: run `bash benchmarks/gpu_prepare.sh` here first and carry
# `.gpu`; there: bash recipes/sigmorphon2018/gpu.sh   (MINUTES=4 SEEDS="1" OUT=/tmp/gpu-grid)
set -uo pipefail
cd "$(dirname "$0")/../.."
PY="${PYTHON:-python3}"
OUT="${OUT:-/tmp/gpu-grid}"
MINUTES="${MINUTES:-4}"
SEEDS="${SEEDS:-1}"
. benchmarks/gpu_env.sh
mkdir -p "$OUT"
models=()
for setting in high medium; do
    members=""
    for seed in $SEEDS; do
        run="$OUT/$setting-s$seed"
        resume=""; [ -f "$run/trainer_state.safetensors" ] && resume="--resume"
        start=$(date +%s)
        timeout --signal=TERM "${MINUTES}m" "$PY" -m inflect train --lang all --setting "$setting" \
            --preset paper --batch-size 256 --dev-sample 100 --epochs 60 --patience 5 \
            --seed "$seed" --device cuda --checkpoint-minutes 1 --out "$run" $resume \
            > "$run.log" 2>&1
        status=$?   # 124: stopped by the timeout (resumable), 0: finished
        echo "$setting seed $seed: trained $(( $(date +%s) - start )) s (status $status)"
        grep -E "device|epoch +[0-9]+ " "$run.log" | tail -4
        members="${members:+$members,}$run"
    done
    models+=(--model "multilingual-$setting=$members")
done
"$PY" recipes/sigmorphon2018/ship.py --dry-run --device cuda --results "$OUT/scores" "${models[@]}"
cat "$OUT"/scores/table-dev-*.md | grep -E "macro|language \|"
