#!/usr/bin/env bash
# The NVIDIA verification run (issue 3), on a machine with an NVIDIA GPU and a CUDA build of PyTorch:
# a clean build of this checkout, every test (the GPU suite included), the GPU suite under
# compute-sanitizer's memcheck, then the side-by-side benchmark against torch.cuda.
#   bash scripts/gpu_check.sh [output folder] [step ...]     (default: build/gpu_check, every step)
# Steps: build info pytest_devices pytest_host memcheck benchmark. Each step's log lands in the output
# folder; the script stops at the first failing step. (The lent GPU machine runs a command for 10 minutes
# at most, so the run is split there: the tests and the benchmark, then memcheck.)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
out=${1:-build/gpu_check}
shift || true
steps=${*:-build info pytest_devices pytest_host memcheck benchmark}
mkdir -p "$out"
step() { local name=$1; shift; echo "== $name"; "$@" >"$out/$name.log" 2>&1 || { tail -50 "$out/$name.log"; echo "FAILED: $name"; exit 1; }; tail -3 "$out/$name.log"; }

for s in $steps; do
  case $s in
    build)
      rm -rf build/cmake-* build/current  # a clean build: no object file of an earlier one is reused
      step build "$PYTHON" -m pip install --no-deps --no-build-isolation -e . ;;
    info) step info "$PYTHON" -m torch_hal info ;;
    # The conformance and GPU suites run over every device (the GPU is hal:0). tests/python is CI's suite:
    # it assumes the host reference device is hal:0, and its subprocesses load plugins and extra host
    # devices, so it runs with the GPU hidden from CUDA (the NVIDIA adapter then reports no device, as on
    # CI), except its tests of torch.cuda beside hal, which need the GPU.
    pytest_devices) step pytest_devices "$PYTHON" -m pytest tests/conformance tests/gpu -q ;;
    pytest_host)
      step pytest_host env CUDA_VISIBLE_DEVICES= "$PYTHON" -m pytest tests/python -q
      step pytest_host_cuda "$PYTHON" -m pytest tests/python -q -k "cuda" ;;
    memcheck)
      if command -v compute-sanitizer >/dev/null; then
        step memcheck compute-sanitizer --tool memcheck --error-exitcode 1 --target-processes all \
          "$PYTHON" -m pytest tests/gpu -q -x -k "not large and not quickstart"
      else
        echo "compute-sanitizer not found: memcheck skipped" | tee "$out/memcheck.log"
      fi ;;
    benchmark) step benchmark "$PYTHON" benchmarks/cuda_comparison_benchmark.py --markdown "$out/cuda_comparison.md" ;;
    *) echo "unknown step: $s"; exit 2 ;;
  esac
done
