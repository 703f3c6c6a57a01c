"""The GPU kernel library's strided kernels keep their operands out of local memory.

A kernel that walks strided operands indexes their Shape and Operand strides by a runtime dimension. Passed as
separate by-value parameters (or copied into a local array), nvcc copies them into every thread's local
memory: a stack frame of 100-450 bytes per thread, written and read again for each element. That made the
copy of GPT-2's tied embedding gradient (103 MB) take 1.5 ms on the H100 instead of 0.1 ms. As members of one
argument struct they are read in place (tensor_access.cuh says how). This compiles the kernel files that walk
strided operands with nvcc for sm_90 and reads ptxas's stack frame of every kernel.

Needs nvcc only (no GPU): it runs wherever the NVIDIA adapter builds, CI included.
"""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "vendor_adapters" / "gpu_kernels" / "kernels"
# The kernel files that walk strided operands with offsets_of / offsets_of32 (tensor_access.cuh), and the most
# stack each file's kernels may take. CUDA's math library keeps up to 40 bytes on the stack in sin/cos's argument
# reduction (the unary elementwise kernels); one copied Operand alone is 112 bytes. The special functions' kernels
# (elementwise_special.cu, kept apart from the generic one for this reason) carry double-precision argument
# reductions and some spills of their series (56-64 bytes on sm_90): 96 still tells an operand copy apart.
MAX_STACK_BYTES = 48
STRIDED_FILES = {"scale_into.cu": MAX_STACK_BYTES, "elementwise.cu": MAX_STACK_BYTES, "indexing.cu": MAX_STACK_BYTES,
                 "random.cu": MAX_STACK_BYTES, "triangular.cu": MAX_STACK_BYTES, "elementwise_special.cu": 96}

NVCC = shutil.which("nvcc")


def stack_frames(source: Path) -> dict:
    """{kernel's mangled name: stack frame in bytes} from ptxas's report for one file."""
    result = subprocess.run(
        [NVCC, "-I", str(ROOT / "vendor_adapters" / "gpu_kernels"), "-I", str(ROOT / "include"), "-O3",
         "--generate-code=arch=compute_90,code=[sm_90]", "--expt-relaxed-constexpr", "-std=c++17",
         "-Xptxas", "-v", "-x", "cu", "-c", str(source), "-o", "/dev/null"],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    frames = {}
    current = None
    for line in result.stderr.splitlines():
        entry = re.search(r"Function properties for (\S+)", line)
        if entry:
            current = entry.group(1)
            continue
        frame = re.search(r"(\d+) bytes stack frame", line)
        if frame and current:
            frames[current] = int(frame.group(1))
            current = None
    return frames


@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH (the NVIDIA adapter is not built here)")
@pytest.mark.parametrize("name", sorted(STRIDED_FILES))
def test_strided_kernels_keep_operands_out_of_local_memory(name):
    frames = stack_frames(KERNELS / name)
    kernels = {k: v for k, v in frames.items() if "hal_gpu" in k}
    assert kernels, f"ptxas reported no kernel of {name}"
    limit = STRIDED_FILES[name]
    heavy = {k: v for k, v in kernels.items() if v > limit}
    assert not heavy, (f"{name}: kernels with a stack frame above {limit} bytes (operands copied to "
                       f"local memory; pass them as members of one argument struct): {heavy}")
