#!/usr/bin/env bash
# Sets up a fresh machine for torch_hal and builds it in place (editable install).
#   bash scripts/setup.sh           # what the quickstart needs
#   bash scripts/setup.sh --tests   # also GoogleTest and pytest, for scripts/run_tests.sh
# Uses the PyTorch already installed when there is one (the GPU machine has 2.11 with CUDA); otherwise
# installs exactly torch==2.13.0 (never a looser spec: that would pull the newest torch with CUDA).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
with_tests=0
[[ "${1:-}" == "--tests" ]] && with_tests=1

as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi; }

need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v g++ >/dev/null || need_apt+=(g++)
if [[ $with_tests -eq 1 && ! -f /usr/include/gtest/gtest.h ]]; then need_apt+=(libgtest-dev); fi
# The Level Zero loader and headers (Debian's 1.8, API 1.4): the Intel adapter is built against the headers and
# loads the loader with dlopen; without an Intel GPU driver it says so (vendor_adapters/intel/CMakeLists.txt).
if [[ ! -f /usr/include/level_zero/ze_api.h ]] && apt-cache show libze-dev >/dev/null 2>&1; then
  need_apt+=(libze1 libze-dev)
fi
# The AMD adapter's toolchain (Debian's HIP 5.2: hipcc, the runtime and device libraries), so the tests
# build it and check that it loads and holds code objects; no AMD GPU is needed.
if [[ $with_tests -eq 1 ]] && ! command -v hipcc >/dev/null && apt-cache show hipcc >/dev/null 2>&1; then
  need_apt+=(hipcc libamdhip64-dev rocm-device-libs)
fi
# clang 19 and its linker compile the same kernels for gfx942 (MI300) and gfx1100 (RX 7000) as well, which
# Debian's hipcc (LLVM 15) cannot target (vendor_adapters/amd/CMakeLists.txt).
if [[ $with_tests -eq 1 ]] && ! command -v clang++-19 >/dev/null && apt-cache show clang-19 >/dev/null 2>&1; then
  need_apt+=(clang-19 lld-19)
fi
# The SPIR-V toolchain of the kernel library's OpenCL form (tests/python/test_spirv_kernels.py): C++ for
# OpenCL with clang-15, LLVM IR to SPIR-V with llvm-spirv-15, validation with spirv-val.
if [[ $with_tests -eq 1 ]]; then
  for tool in clang-15:clang-15 llvm-spirv-15:llvm-spirv-15 spirv-val:spirv-tools; do
    if ! command -v "${tool%%:*}" >/dev/null && apt-cache show "${tool##*:}" >/dev/null 2>&1; then
      need_apt+=("${tool##*:}")
    fi
  done
fi
if [[ ${#need_apt[@]} -gt 0 ]]; then
  echo "setup: installing ${need_apt[*]} with apt-get"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need_apt[@]}"
fi

if ! "$PYTHON" -c "import torch" 2>/dev/null; then
  echo "setup: installing torch==2.13.0"
  "$PYTHON" -m pip install -q "torch==2.13.0"
fi
pip_pkgs=()
"$PYTHON" -c "import numpy" 2>/dev/null || pip_pkgs+=(numpy)
if [[ $with_tests -eq 1 ]]; then
  "$PYTHON" -c "import pytest" 2>/dev/null || pip_pkgs+=(pytest)
  # PyTorch's OpInfo database (tests/opinfo) imports torch.testing._internal, which needs expecttest.
  "$PYTHON" -c "import expecttest" 2>/dev/null || pip_pkgs+=(expecttest)
fi
if [[ ${#pip_pkgs[@]} -gt 0 ]]; then "$PYTHON" -m pip install -q "${pip_pkgs[@]}"; fi

# The training libraries of tests/python/test_integrations.py (torch_hal/integrations), at the versions tested,
# with --no-deps and every dependency listed, so that pip never replaces the installed torch.
if [[ $with_tests -eq 1 ]]; then
  "$PYTHON" -m pip install -q --no-deps lightning==2.6.6 pytorch-lightning==2.6.6 lightning-utilities==0.15.3 \
    torchmetrics==1.9.0 transformers==5.24.0 accelerate==1.15.0 huggingface_hub==2.4.0 safetensors==0.8.0 \
    tokenizers==0.23.3 psutil==7.2.2 tqdm==4.70.1 typer==0.29.2 click==8.5.1 httpx2==2.16.2 httpcore2==2.16.2 \
    h11==0.16.0 anyio==4.16.0 idna==3.20 hf-xet==1.8.0 shellingham==1.5.4 rich==15.0.0 markdown-it-py==4.3.0 \
    mdurl==0.1.2 annotated-doc==0.0.7 truststore==0.10.5 typing_extensions==4.16.0 regex==2026.5.9 \
    filelock==4.3.1 fsspec==2026.9.0 packaging==26.2 PyYAML==6.0.3 pydantic==2.13.4 pydantic_core==2.46.4 \
    annotated-types==0.7.0 typing-inspection==0.4.2
fi

# The OpenCL adapter's tests run on Intel's OpenCL CPU runtime (a pip download, unpacked under build/).
if [[ $with_tests -eq 1 ]]; then bash scripts/opencl_cpu_runtime.sh; fi

export TORCH_HAL_BUILD_TESTS=$([[ $with_tests -eq 1 ]] && echo ON || echo OFF)
echo "setup: building torch_hal against torch $("$PYTHON" -c 'import torch; print(torch.__version__)')"
"$PYTHON" -m pip install -q --no-deps --no-build-isolation -e .
"$PYTHON" -m torch_hal info
