#!/usr/bin/env bash
# The NVIDIA verification run (issue 3), on a machine with an NVIDIA GPU and a CUDA build of PyTorch:
# a clean build of this checkout, every test (the GPU suite included), the GPU suite under
# compute-sanitizer's memcheck, then the side-by-side benchmark against torch.cuda.
#   bash scripts/gpu_check.sh [output folder] [step ...]     (default: build/gpu_check, every step)
# Steps: build build_nvidia info pytest_devices pytest_host memcheck benchmark models models_bf16 coverage
# compile_tests compile_benchmark distributed distributed_benchmark amd amd_benchmark amd_vs_nvidia.
# build_nvidia leaves out the AMD adapter's HIP-on-NVIDIA build (a minute less, for runs without AMD steps). `amd` runs the AMD
# adapter's own code on the NVIDIA GPU (HIP's NVIDIA platform, vendor_adapters/amd/nvidia_platform): the
# build step builds it, and the GPU is then hal:0 through the AMD adapter alone. Each step's log lands in the output
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
      step build env TORCH_HAL_CMAKE_ARGS="-DTORCH_HAL_AMD_ON_NVIDIA=ON ${TORCH_HAL_CMAKE_ARGS:-}" \
        "$PYTHON" -m pip install --no-deps --no-build-isolation -e . ;;
    build_nvidia)
      rm -rf build/cmake-* build/current
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
    # Real models (transformers, torchvision where installed) against torch.cuda, fp32 and bf16 autocast, and the
    # map of which ops run natively on the GPU. MODELS (comma-separated) narrows the set: a model whose ops
    # still take the CPU fallback can take minutes.
    models) step models "$PYTHON" benchmarks/model_benchmark.py ${MODELS:+--models "$MODELS"} --markdown "$out/models.md" \
              --json "$out/models.json" ;;
    models_bf16) step models_bf16 "$PYTHON" benchmarks/model_benchmark.py ${MODELS:+--models "$MODELS"} --dtype bf16 \
              --markdown "$out/models_bf16.md" --json "$out/models_bf16.json" ;;
    # torch.compile: Triton on the GPU, and the host device's C++ path (the GPU hidden) on this PyTorch; then
    # compiled hal against compiled cuda. COMPILE_MODELS narrows the benchmark's models.
    compile_tests)
      step compile_triton "$PYTHON" -m pytest tests/gpu/test_compile_triton.py -q
      step compile_host env CUDA_VISIBLE_DEVICES= "$PYTHON" -m pytest tests/python/test_compile_host.py -q ;;
    compile_benchmark) step compile_benchmark "$PYTHON" benchmarks/compile_benchmark.py \
              ${COMPILE_MODELS:+--models "$COMPILE_MODELS"} --markdown "$out/compile.md" --json "$out/compile.json" ;;
    coverage) step coverage "$PYTHON" -m torch_hal coverage --device hal:0 ;;
    # torch.distributed on two GPUs (nvidia-h100-x2 or nvidia-h200-x2): NCCL collectives, DDP, FSDP2, a dead rank,
    # two GPUs in one process (copies, events, the device guard);
    # then all_reduce bus bandwidth and a DDP step against torch.cuda's NCCL on the same two GPUs.
    distributed) step distributed "$PYTHON" -m pytest tests/gpu/test_distributed_gpu.py \
                   tests/gpu/test_two_devices_one_process.py tests/gpu/test_nvidia_runtime.py -v -rs ;;
    distributed_benchmark) step distributed_benchmark "$PYTHON" benchmarks/distributed_benchmark.py \
              --json "$out/distributed_benchmark.json" ;;
    # The AMD adapter's test build, loaded first, and only its device kept: hal:0 is the GPU through HIP.
    amd)
      amd=(env TORCH_HAL_ADAPTERS="$PWD/build/current/amd_on_nvidia/libhal_adapter_amd.so" HAL_VISIBLE_DEVICES=amd:0
           TORCH_HAL_TEST_GPU_VENDOR=amd)
      step amd_info "${amd[@]}" "$PYTHON" -m torch_hal info
      step amd_pytest "${amd[@]}" "$PYTHON" -m pytest tests/conformance tests/gpu -q ;;
    amd_benchmark)
      step amd_benchmark env TORCH_HAL_ADAPTERS="$PWD/build/current/amd_on_nvidia/libhal_adapter_amd.so" \
        HAL_VISIBLE_DEVICES=amd:0 "$PYTHON" benchmarks/cuda_comparison_benchmark.py --markdown "$out/amd_cuda_comparison.md" ;;
    # The same GPU through both adapters in one run: the AMD adapter's HIP path as hal:0, the NVIDIA adapter's
    # hal:1 as the reference, timed with the same pairing as against cuda.
    amd_vs_nvidia)
      step amd_vs_nvidia env TORCH_HAL_ADAPTERS="$PWD/build/current/amd_on_nvidia/libhal_adapter_amd.so" \
        HAL_VISIBLE_DEVICES=amd:0,nvidia:0 "$PYTHON" benchmarks/cuda_comparison_benchmark.py --device hal:0 \
        --reference hal:1 --markdown "$out/amd_vs_nvidia.md" ;;
    *) echo "unknown step: $s"; exit 2 ;;
  esac
done
