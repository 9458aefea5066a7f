#!/usr/bin/env bash
# Prepare what a GPU machine without network needs, in .gpu/ (git-ignored) for the device's
# `carry`: wheels of the dependencies its image lacks (rapidfuzz, platformdirs, entmax for the
# tests) and the CoNLL-SIGMORPHON 2018 task 1 training/dev files, compressed.
# Usage: bash benchmarks/gpu_prepare.sh [DATA_DIR]   (default ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
data="${1:-../shared/data}"
mkdir -p .gpu/wheels
python -m pip download --quiet --only-binary=:all: --no-deps --dest .gpu/wheels \
    --python-version 3.12 --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
    rapidfuzz platformdirs
python -m pip download --quiet --no-deps --dest .gpu/wheels entmax
tar -czf .gpu/conll2018-task1.tar.gz -C "$data" \
    $(cd "$data" && ls conll2018-task1/*-train-high conll2018-task1/*-train-medium \
        conll2018-task1/*-train-low conll2018-task1/*-dev) conll2018-task1-baseline-dev.csv
du -sh .gpu
