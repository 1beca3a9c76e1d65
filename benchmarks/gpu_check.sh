#!/usr/bin/env bash
# Train the quick start's recipe (configs/default.yaml, SB3) on the GPU and on the CPU and
# print the steps per second of each (benchmarks/train_speed.py, the same rollouts).
# Where torch sees no CUDA device it prints why and exits 0 (skipped).
# Usage: bash benchmarks/gpu_check.sh [--repeats N]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
if ! "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)'; then
    echo "gpu_check: skipped: torch $("$PY" -c 'import torch; print(torch.__version__)') finds no CUDA device"
    exit 0
fi
"$PY" -c 'import torch; print("gpu_check:", torch.cuda.get_device_name(0))'
"$PY" -m benchmarks.train_speed --configs default --device cuda "$@"
"$PY" -m benchmarks.train_speed --configs default --device cpu "$@"
