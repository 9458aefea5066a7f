#!/usr/bin/env bash
# The CUDA path in one run (about 5 minutes on one GPU): the CUDA-marked tests, the sparse
# mappings and the trainer on CUDA (bfloat16 products), one short `inflect train` and an
# `inflect predict` on CUDA; prints one summary (also written to $OUT/summary.txt).
#
# On a GPU machine without network, first run `bash benchmarks/gpu_prepare.sh` here and copy
# `.gpu` to the GPU machine with the checkout; then, there:  bash benchmarks/gpu_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/gpu-check}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
. benchmarks/gpu_env.sh
summary="$OUT/summary.txt"
: > "$summary"
step() {  # step NAME SECONDS COMMAND...: run, keep the log, one summary line
    local name=$1 limit=$2 start status
    shift 2
    start=$(date +%s)
    if timeout "$limit" "$@" > "$OUT/$name.log" 2>&1; then status=ok; else status="FAILED ($?)"; fi
    echo "$name: $status in $(( $(date +%s) - start )) s" | tee -a "$summary"
}
"$PY" -c "import torch; assert torch.cuda.is_available(), 'no CUDA'; print(torch.__version__, torch.cuda.get_device_name())" | tee -a "$summary" || exit 2
step tests 120 "$PY" -m pytest -q -p no:cacheprovider -m cuda tests
step bench_sparse 60 "$PY" benchmarks/bench_sparse.py --device cuda --no-package --quick --threads 1
step bench_train 60 "$PY" benchmarks/bench_train.py --device cuda --epochs 1 --data-dir "$INFLECT_DATA_DIR"
step train 60 "$PY" -m inflect train --lang german --setting medium --preset cpu-small --epochs 2 \
    --device cuda --out "$OUT/run-de" --data-dir "$INFLECT_DATA_DIR"
step predict 30 "$PY" -m inflect predict --model "$OUT/run-de" --lang german Haus "N;DAT;PL" \
    --device cuda --format tsv
{
    echo "--- tests";        tail -3 "$OUT/tests.log"
    echo "--- bench_sparse (fwd+bwd x softmax)"; grep -E "^\| (32x|8x)" "$OUT/bench_sparse.log"
    echo "--- bench_train";  tail -6 "$OUT/bench_train.log"
    echo "--- train";        grep -E "device|epoch +[0-9]|best dev" "$OUT/train.log"
    echo "--- predict";      cat "$OUT/predict.log"
} | tee -a "$summary"
