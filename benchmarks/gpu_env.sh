# Sourced by benchmarks/gpu_check.sh and recipes/sigmorphon2018/gpu.sh from the repository root:
# the checkout's code first on the import path; on a machine prepared by gpu_prepare.sh (a `.gpu`
# folder carried there), the wheels it holds installed offline and its data unpacked; otherwise
# the data from $INFLECT_DATA_DIR or ../shared/data. Needs $PY.
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
if [ -d .gpu ]; then
    "$PY" -m pip install --quiet --no-index --no-deps .gpu/wheels/*.whl 2>&1 | tail -2
    mkdir -p .gpu/data && tar -xzf .gpu/conll2018-task1.tar.gz -C .gpu/data
    export INFLECT_DATA_DIR="$PWD/.gpu/data"
fi
export INFLECT_DATA_DIR="${INFLECT_DATA_DIR:-../shared/data}"
