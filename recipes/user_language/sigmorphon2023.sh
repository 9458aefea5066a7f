#!/usr/bin/env bash
# The README's "Your own language" figures on the SIGMORPHON 2023 files: Amharic
# (two seeds and their ensemble) and Japanese, trained on the files as a user would, scored on the
# 2023 dev and test files. Usage:
#   bash recipes/user_language/sigmorphon2023.sh 2023InflectionST/part1/data runs/sigmorphon2023
# (D: the part1/data folder of github.com/sigmorphon/2023InflectionST, read in place; OUT: the run
# folders and scores/*.tsv). Each run is about 5 CPU minutes on one thread; two run at a time.
set -euo pipefail
D=${1:?the 2023 part1/data folder}
OUT=${2:?an output folder}
mkdir -p "$OUT/scores"
train() {  # NAME FILE-CODE LANGUAGE EPOCHS PATIENCE SEED
    inflect train --train "$D/$2.trn" --dev "$D/$2.dev" --lang "$3" --preset cpu-small \
        --epochs "$4" --patience "$5" --seed "$6" --threads 1 --out "$OUT/$1" \
        > "$OUT/$1.log" 2>&1
}
train amh amh amharic 14 5 1 &
train amh-s2 amh amharic 14 5 2 &
wait
train jap jap japanese 8 4 1
for split in dev tst; do
    inflect evaluate --model "$OUT/amh" --gold "$D/amh.$split" --lang amharic --format tsv \
        > "$OUT/scores/amh.$split.tsv"
    inflect evaluate --model "$OUT/amh-s2" --gold "$D/amh.$split" --lang amharic --format tsv \
        > "$OUT/scores/amh-s2.$split.tsv"
    inflect evaluate --model "$OUT/amh" --model "$OUT/amh-s2" --gold "$D/amh.$split" \
        --lang amharic --format tsv > "$OUT/scores/amh-ensemble.$split.tsv"
    inflect evaluate --model "$OUT/jap" --gold "$D/jap.$split" --lang japanese --format tsv \
        > "$OUT/scores/jap.$split.tsv"
done
inflect runs compare "$OUT/amh" "$OUT/amh-s2" "$OUT/jap" --format tsv > "$OUT/scores/runs.tsv"
head -n 3 "$OUT"/scores/*.tsv
