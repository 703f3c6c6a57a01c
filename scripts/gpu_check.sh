#!/usr/bin/env bash
# The NVIDIA verification run (issue 3), on a machine with an NVIDIA GPU and a CUDA build of PyTorch:
# build from this checkout, run every test (the GPU suite included), run the GPU suite's training and
# kernel tests under compute-sanitizer's memcheck, then the side-by-side benchmark against torch.cuda.
#   bash scripts/gpu_check.sh [output folder]     (default: build/gpu_check)
# Each step's log lands in the output folder; the script stops at the first failing step.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
out=${1:-build/gpu_check}
mkdir -p "$out"
step() { local name=$1; shift; echo "== $name"; "$@" >"$out/$name.log" 2>&1 || { tail -50 "$out/$name.log"; echo "FAILED: $name"; exit 1; }; tail -3 "$out/$name.log"; }

step build "$PYTHON" -m pip install --no-deps --no-build-isolation -e .
step info "$PYTHON" -m torch_hal info
# The conformance and GPU suites run over every device (the GPU is hal:0); tests/python assumes the host
# reference device is hal:0 (as on CI), so it runs with only that device visible.
step pytest_devices "$PYTHON" -m pytest tests/conformance tests/gpu -q
step pytest_host env HAL_VISIBLE_DEVICES=host:0 "$PYTHON" -m pytest tests/python -q
if command -v compute-sanitizer >/dev/null; then
  step memcheck compute-sanitizer --tool memcheck --error-exitcode 1 --target-processes all \
    "$PYTHON" -m pytest tests/gpu -q -x -k "not large and not quickstart"
else
  echo "compute-sanitizer not found: memcheck skipped" | tee "$out/memcheck.log"
fi
step benchmark "$PYTHON" benchmarks/cuda_comparison_benchmark.py --markdown "$out/cuda_comparison.md"
